// The questions of this session (kept in memory only: health questions are private, and
// a shared computer should not keep them). Choosing one shows its answer again, or asks
// again when it never got one.

import { el, clear } from "./dom.js";

const MAX_ITEMS = 8;

export class QuestionHistory {
  constructor(root, { onPick }) {
    this.root = root;
    this.list = root.querySelector("#history-list");
    this.onPick = onPick;
    this.items = []; // newest first: {question, result|null}
    root.querySelector("#history-clear").addEventListener("click", () => {
      this.items = [];
      this.render();
      document.getElementById("question")?.focus();
    });
  }

  /** Record a question (moving it to the top if it was asked before). */
  add(question, result = null) {
    this.items = this.items.filter((i) => i.question !== question);
    this.items.unshift({ question, result });
    this.items.length = Math.min(this.items.length, MAX_ITEMS);
    this.render();
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
            : `${(item.result.citations || []).length} fonte(s)`;
      const button = el(
        "button",
        { type: "button", class: "history__item" },
        el("span", { class: "history__question" }, item.question),
        el("span", { class: "history__state" }, state),
      );
      button.disabled = Boolean(this.disabled);
      button.addEventListener("click", () => this.onPick(item));
      this.list.append(el("li", {}, button));
    }
  }
}
