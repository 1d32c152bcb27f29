// A small Server-Sent Events parser for fetch() streams (EventSource cannot POST).
// Follows the WHATWG event-stream rules that matter here: lines end in CRLF, LF or CR;
// `event:` names the event, `data:` lines are joined with "\n", a blank line dispatches,
// lines starting with ":" are comments, one space after the colon is dropped.

export class SSEParser {
  constructor() {
    this.buffer = "";
    this.reset();
  }

  reset() {
    this.eventName = "";
    this.data = [];
  }

  /** Feed decoded text; returns the events completed by it: [{event, data}]. */
  feed(text) {
    this.buffer += text;
    const events = [];
    for (;;) {
      const match = /\r\n|\n|\r/.exec(this.buffer);
      if (!match) break;
      // A lone CR at the very end may be the first half of a CRLF: wait for more input.
      if (match[0] === "\r" && match.index === this.buffer.length - 1) break;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      const event = this.line(line);
      if (event) events.push(event);
    }
    return events;
  }

  /** End of stream: an unterminated event is discarded, as the spec says. */
  end() {
    this.buffer = "";
    this.reset();
  }

  line(line) {
    if (line === "") {
      if (this.data.length === 0) {
        this.reset();
        return null;
      }
      const event = { event: this.eventName || "message", data: this.data.join("\n") };
      this.reset();
      return event;
    }
    if (line.startsWith(":")) return null;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") this.eventName = value;
    else if (field === "data") this.data.push(value);
    return null;
  }
}

/** Async iterator over the events of a fetch Response body. */
export async function* readEvents(body) {
  const reader = body.getReader();
  const decoder = new TextDecoder("utf-8");
  const parser = new SSEParser();
  let finished = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        finished = true;
        yield* parser.feed(decoder.decode());
        parser.end();
        return;
      }
      yield* parser.feed(decoder.decode(value, { stream: true }));
    }
  } finally {
    // The consumer stopped early (or reading failed): do not leave the request open.
    if (!finished) reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
