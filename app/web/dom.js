// Tiny DOM helpers. Everything that may come from the server or the user goes in as
// text (Text nodes / textContent); this module never parses HTML.

/**
 * el("p", {class: "x", "aria-live": "polite"}, "text", otherNode)
 * Attributes are set with setAttribute (never `on*` handlers or `style`); children that
 * are strings become Text nodes.
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    if (/^on/i.test(name) || name === "style") {
      throw new Error(`el(): refusing attribute ${name}`);
    }
    node.setAttribute(name, value === true ? "" : String(value));
  }
  node.append(...children.filter((c) => c !== null && c !== undefined && c !== false));
  return node;
}

/** Remove all children. */
export function clear(node) {
  node.replaceChildren();
}

/** Paragraphs of a text separated by blank lines, as <p> elements (text only). */
export function paragraphs(text) {
  return String(text)
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => el("p", {}, p));
}

/** "2026-05-20" -> "20/05/2026"; anything else is returned unchanged. */
export function formatDate(iso) {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(String(iso));
  return m ? `${m[3]}/${m[2]}/${m[1]}` : String(iso);
}
