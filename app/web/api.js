// The HTTP API: POST /api/ask/stream (SSE over fetch), GET /api/cards/{id} and
// POST /api/feedback.

import { readEvents } from "./sse.js";

const ASK_TIMEOUT_MS = 120_000;
const CARD_TIMEOUT_MS = 20_000;
const FEEDBACK_TIMEOUT_MS = 20_000;

/**
 * An error the page can explain (errors.js): kind is "network", "http", "stream" or
 * "timeout"; code is the API's error code; retryAfter the seconds of a Retry-After header.
 */
export class ApiError extends Error {
  constructor(kind, message, { status = 0, code = "", detail = "", retryAfter = 0 } = {}) {
    super(message);
    this.name = "ApiError";
    this.kind = kind;
    this.status = status;
    this.code = code;
    this.detail = detail;
    this.retryAfter = retryAfter;
  }
}

/** Retry-After in seconds (delta-seconds or an HTTP date); 0 when absent or unreadable. */
function retryAfterSeconds(value) {
  if (!value) return 0;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const when = Date.parse(value);
  return Number.isNaN(when) ? 0 : Math.max(0, Math.ceil((when - Date.now()) / 1000));
}

function apiKey() {
  try {
    return window.localStorage.getItem("apiKey") || "";
  } catch {
    return ""; // storage disabled (privacy mode, sandboxed frame)
  }
}

function headers(extra = {}) {
  const h = { ...extra };
  const key = apiKey();
  if (key) h["X-API-Key"] = key;
  return h;
}

/** Aborts when the caller's signal does or after `ms`; `timedOut()` tells which. */
function deadline(ms, outer) {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, ms);
  const onAbort = () => controller.abort();
  if (outer) outer.addEventListener("abort", onAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    done() {
      clearTimeout(timer);
      if (outer) outer.removeEventListener("abort", onAbort);
    },
  };
}

async function send(url, init, limit) {
  try {
    return await fetch(url, { ...init, signal: limit.signal });
  } catch (err) {
    if (limit.timedOut()) throw new ApiError("timeout", "O serviço demorou demais para responder.");
    if (err && err.name === "AbortError") throw err;
    throw new ApiError("network", "Não foi possível falar com o serviço.");
  }
}

/** POST `body` as JSON, uncached, accepting `accept`; the response, as send() gives it. */
function postJson(path, body, accept, limit) {
  return send(
    path,
    {
      method: "POST",
      headers: headers({ "Content-Type": "application/json", Accept: accept }),
      body: JSON.stringify(body),
      cache: "no-store",
    },
    limit,
  );
}

/** A non-2xx response as an ApiError, with the server's {"error": {...}} when present. */
async function httpError(response) {
  let code = "";
  let detail = "";
  try {
    const body = await response.json();
    if (body && body.error) {
      code = String(body.error.code || "");
      detail = String(body.error.message || "");
    }
  } catch {
    // not JSON: keep the status only
  }
  return new ApiError("http", `O serviço respondeu com erro (${response.status}).`, {
    status: response.status,
    code,
    detail,
    retryAfter: retryAfterSeconds(response.headers.get("retry-after")),
  });
}

/**
 * Ask a question. `history` is the conversation's earlier turns, oldest first
 * ([{question, citations}], see history.js); it is left out of the request when empty.
 * Calls onDelta(text) for each piece of the answer as it arrives and resolves with the
 * final object {answer, citations, refused, emergency, answer_id, ...}.
 */
export async function askStream(question, { history = [], onDelta = () => {}, signal } = {}) {
  const limit = deadline(ASK_TIMEOUT_MS, signal);
  const body = history.length ? { question, history } : { question };
  try {
    const response = await postJson("/api/ask/stream", body, "text/event-stream", limit);
    if (!response.ok) throw await httpError(response);
    const type = response.headers.get("content-type") || "";
    if (!type.startsWith("text/event-stream") || !response.body) {
      throw new ApiError("stream", "O serviço respondeu em um formato inesperado.", {
        status: response.status,
      });
    }
    try {
      for await (const { event, data } of readEvents(response.body)) {
        if (event === "delta") {
          onDelta(String(JSON.parse(data).text ?? ""));
        } else if (event === "final") {
          return JSON.parse(data);
        } else if (event === "error") {
          const body = JSON.parse(data);
          const e = body && body.error ? body.error : {};
          throw new ApiError("stream", "O serviço interrompeu a resposta.", {
            code: String(e.code || ""),
            detail: String(e.message || ""),
          });
        }
      }
    } catch (err) {
      if (err instanceof ApiError) throw err;
      if (limit.timedOut()) throw new ApiError("timeout", "O serviço demorou demais para responder.");
      if (err && err.name === "AbortError") throw err;
      throw new ApiError("stream", "A resposta foi interrompida antes de terminar.");
    }
    throw new ApiError("stream", "A resposta foi interrompida antes de terminar.");
  } finally {
    limit.done();
  }
}

const cardCache = new Map();

/** GET /api/cards/{id}: {id, title, text, source, license, accessed_at, topics}. */
export async function getCard(id) {
  if (cardCache.has(id)) return cardCache.get(id);
  const limit = deadline(CARD_TIMEOUT_MS);
  try {
    const response = await send(
      `/api/cards/${encodeURIComponent(id)}`,
      { headers: headers({ Accept: "application/json" }) },
      limit,
    );
    if (!response.ok) throw await httpError(response);
    let card;
    try {
      card = await response.json();
    } catch {
      throw new ApiError("stream", "O serviço respondeu em um formato inesperado.");
    }
    cardCache.set(id, card);
    return card;
  } finally {
    limit.done();
  }
}

/**
 * POST /api/feedback: whether the answer `answerId` helped, with an optional reason code
 * ("nao_respondeu", "dificil_de_entender", "informacao_errada", "outro"). Resolves when
 * the service stored it (201); throws an ApiError otherwise (404 unknown_answer, 503
 * feedback_unavailable, network, timeout...).
 */
export async function sendFeedback(answerId, helpful, reason = null) {
  const limit = deadline(FEEDBACK_TIMEOUT_MS);
  const body = { answer_id: answerId, helpful };
  if (reason) body.reason = reason;
  try {
    const response = await postJson("/api/feedback", body, "application/json", limit);
    if (!response.ok) throw await httpError(response);
  } finally {
    limit.done();
  }
}
