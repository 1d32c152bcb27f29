// The questions of this conversation and their answers. They are kept in sessionStorage:
// it belongs to this tab only and the browser deletes it when the tab closes (health
// questions are private, and a shared computer should not keep them), yet a reload or
// Back-then-Forward no longer loses them. "Limpar" deletes them at once. Choosing one
// shows its answer again, or asks again when it never got one.

import { el, clear } from "./dom.js";
import { shorten, MAX_QUESTION_CHARS } from "./text.js";

const MAX_ITEMS = 8;
const SHOWN_CHARS = 120; // a question longer than this is shortened in the list
const STORAGE_KEY = "cartoes.conversa.v1";
const ANSWER_ID = /^[0-9a-f]{32}$/;

function storage() {
  try {
    return window.sessionStorage;
  } catch {
    return null; // storage disabled (privacy mode, sandboxed frame)
  }
}

/** An item read back from storage, or null when it is not one we wrote. */
function validItem(raw) {
  if (!raw || typeof raw !== "object") return null;
  const { question, result, answerId } = raw;
  if (typeof question !== "string" || !question || question.length > 4 * MAX_QUESTION_CHARS) {
    return null;
  }
  const answer = result && typeof result === "object" && typeof result.answer === "string";
  return {
    question,
    result: answer ? result : null,
    answerId: typeof answerId === "string" && ANSWER_ID.test(answerId) ? answerId : null,
  };
}

export class QuestionHistory {
  constructor(root, { onPick }) {
    this.root = root;
    this.list = root.querySelector("#history-list");
    this.onPick = onPick;
    this.items = this.load(); // newest first: {question, result|null, answerId|null}
    root.querySelector("#history-clear").addEventListener("click", () => {
      this.items = [];
      this.save();
      this.render();
      document.getElementById("question")?.focus();
    });
    this.render();
  }

  /** The newest item, e.g. to show its answer again after a reload. */
  get latest() {
    return this.items[0] || null;
  }

  /** Record a question (moving it to the top if it was asked before). */
  add(question, result = null) {
    this.items = this.items.filter((i) => i.question !== question);
    const id = result && typeof result.answer_id === "string" ? result.answer_id : "";
    this.items.unshift({ question, result, answerId: ANSWER_ID.test(id) ? id : null });
    this.items.length = Math.min(this.items.length, MAX_ITEMS);
    this.save();
    this.render();
  }

  load() {
    try {
      const raw = JSON.parse(storage()?.getItem(STORAGE_KEY) || "[]");
      return Array.isArray(raw) ? raw.map(validItem).filter(Boolean).slice(0, MAX_ITEMS) : [];
    } catch {
      return []; // unreadable: start a new conversation rather than fail
    }
  }

  save() {
    const store = storage();
    if (!store) return;
    try {
      if (this.items.length) store.setItem(STORAGE_KEY, JSON.stringify(this.items));
      else store.removeItem(STORAGE_KEY);
    } catch {
      // quota exceeded or storage disabled: the conversation stays in memory only
    }
  }

  setDisabled(disabled) {
    this.disabled = disabled;
    for (const b of this.list.querySelectorAll("button")) b.disabled = disabled;
  }

  render() {
    clear(this.list);
    this.root.hidden = this.items.length === 0;
    for (const item of this.items) {
      const state = !item.result
        ? "sem resposta: escolha para perguntar de novo"
        : item.result.emergency
          ? "alerta de emergência"
          : item.result.refused
            ? "fora da base"
            : `${Array.isArray(item.result.citations) ? item.result.citations.length : 0} fonte(s)`;
      const button = el(
        "button",
        { type: "button", class: "history__item" },
        el("span", { class: "history__question" }, shorten(item.question, SHOWN_CHARS)),
        el("span", { class: "history__state" }, state),
      );
      button.disabled = Boolean(this.disabled);
      button.addEventListener("click", () => this.onPick(item));
      this.list.append(el("li", {}, button));
    }
  }
}
