// The question box: Enter sends, Shift+Enter adds a line, empty input is refused here
// (no request), and the box is disabled while an answer is on its way.

const MAX_CHARS = 2000;

export class QuestionForm {
  constructor(form, { onAsk }) {
    this.form = form;
    this.input = form.querySelector("#question");
    this.button = form.querySelector("#ask-button");
    this.error = form.querySelector("#question-error");
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
    this.input.addEventListener("input", () => {
      if (!this.error.hidden && this.input.value.trim()) this.clearError();
    });
  }

  submit() {
    if (this.busy) return;
    const question = this.input.value.trim();
    if (!question) {
      this.showError("Escreva a sua pergunta antes de enviar.");
      return;
    }
    if (question.length > MAX_CHARS) {
      this.showError(`A pergunta pode ter no máximo ${MAX_CHARS} caracteres.`);
      return;
    }
    this.clearError();
    this.onAsk(question);
  }

  showError(message) {
    this.error.textContent = message;
    this.error.hidden = false;
    this.input.setAttribute("aria-invalid", "true");
    this.input.setAttribute("aria-describedby", "question-error question-hint");
    this.input.focus();
  }

  clearError() {
    this.error.hidden = true;
    this.error.textContent = "";
    this.input.removeAttribute("aria-invalid");
    this.input.setAttribute("aria-describedby", "question-hint");
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
  }

  get value() {
    return this.input.value;
  }

  focus() {
    this.input.focus();
  }
}
