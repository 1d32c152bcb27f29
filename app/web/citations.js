// Citation markers [cite:card-X] and the chips that replace them.

import { el } from "./dom.js";

// Same shape as the server's marker (app/agent/text.py CITE_MARKER).
const MARKER = /\[cite:\s*([^\]\s]+)\s*\]/g;

/** Split text into [{type: "text", text}] and [{type: "cite", id}] parts. */
export function tokenize(text) {
  const parts = [];
  let last = 0;
  for (const m of String(text).matchAll(MARKER)) {
    if (m.index > last) parts.push({ type: "text", text: text.slice(last, m.index) });
    parts.push({ type: "cite", id: m[1] });
    last = m.index + m[0].length;
  }
  if (last < text.length) parts.push({ type: "text", text: text.slice(last) });
  return parts;
}

/** A provisional chip showing the card id; `upgradeChip` gives it the card's title. */
export function createChip(id) {
  const label = el("span", { class: "chip__label" }, id);
  const chip = el(
    "button",
    {
      type: "button",
      class: "chip chip--provisional",
      "data-card": id,
      "aria-haspopup": "dialog",
      "aria-expanded": "false",
      "aria-controls": "card-panel",
    },
    el("span", { class: "sr-only" }, "Fonte: "),
    label,
  );
  return chip;
}

/** Give a chip its card's title (or mark it as having none). */
export function upgradeChip(chip, citation) {
  const label = chip.querySelector(".chip__label");
  chip.classList.remove("chip--provisional");
  if (citation && citation.title) {
    label.textContent = citation.title;
    chip.title = `${citation.title} (${citation.id}): abrir o cartão`;
  } else {
    chip.classList.add("chip--untitled");
    chip.title = `${chip.dataset.card}: abrir o cartão`;
  }
}
