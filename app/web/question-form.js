// The question box: Enter sends, Shift+Enter adds a line, empty input is refused here
// (no request), and the box is disabled while an answer is on its way.
// Text over the API's limit is never cut: the counter turns into a warning and the
// question is not sent until the patient shortens it (a silent cut would change the
// question without saying so).

import { MAX_QUESTION_CHARS, charCount, formatCount } from "./text.js";

const TOO_LONG =
  `A pergunta passou do limite de ${formatCount(MAX_QUESTION_CHARS)} caracteres. ` +
  "Encurte o texto para enviar (nada foi cortado).";

export class QuestionForm {
  constructor(form, { onAsk }) {
    this.form = form;
    this.input = form.querySelector("#question");
    this.button = form.querySelector("#ask-button");
    this.error = form.querySelector("#question-error");
    this.counter = form.querySelector("#question-count");
    this.onAsk = onAsk;
    this.busy = false;
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.submit();
    });
    this.input.addEventListener("keydown", (event) => {
      // isComposing: Enter that confirms an IME composition must not send.
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        this.submit();
      }
    });
    this.input.addEventListener("input", () => this.update());
    this.update();
  }

  /** Characters the API would count (it trims the question first). */
  length() {
    return charCount(this.input.value.trim());
  }

  /** Counter and over-limit warning follow the text as it is typed or pasted. */
  update() {
    const n = this.length();
    const over = n > MAX_QUESTION_CHARS;
    this.counter.textContent = over
      ? `${formatCount(n)} de ${formatCount(MAX_QUESTION_CHARS)} caracteres: ` +
        `${formatCount(n - MAX_QUESTION_CHARS)} a mais`
      : `${formatCount(n)} de ${formatCount(MAX_QUESTION_CHARS)} caracteres`;
    this.counter.classList.toggle("ask__count--over", over);
    if (over) {
      if (this.error.textContent !== TOO_LONG) this.showError(TOO_LONG, { focus: false });
    } else if (!this.error.hidden && (this.error.textContent === TOO_LONG || n > 0)) {
      this.clearError();
    }
  }

  submit() {
    if (this.busy) return;
    const question = this.input.value.trim();
    if (!question) {
      this.showError("Escreva a sua pergunta antes de enviar.");
      return;
    }
    if (charCount(question) > MAX_QUESTION_CHARS) {
      this.showError(TOO_LONG);
      return;
    }
    this.clearError();
    this.onAsk(question);
  }

  showError(message, { focus = true } = {}) {
    this.error.textContent = message;
    this.error.hidden = false;
    this.input.setAttribute("aria-invalid", "true");
    this.input.setAttribute("aria-describedby", "question-error question-hint question-count");
    if (focus) this.input.focus();
  }

  clearError() {
    this.error.hidden = true;
    this.error.textContent = "";
    this.input.removeAttribute("aria-invalid");
    this.input.setAttribute("aria-describedby", "question-hint question-count");
  }

  setBusy(busy) {
    this.busy = busy;
    this.input.disabled = busy;
    this.button.disabled = busy;
    this.button.textContent = busy ? "Respondendo…" : "Perguntar";
    this.form.setAttribute("aria-busy", busy ? "true" : "false");
  }

  set value(text) {
    this.input.value = text;
    this.update();
  }

  get value() {
    return this.input.value;
  }

  focus() {
    this.input.focus();
  }
}
