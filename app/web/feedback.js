// "Esta resposta ajudou?": "Ajudou" / "Não ajudou" under every answer (not under errors),
// and after "Não ajudou" an optional reason from a short list. Each choice is sent at once
// to POST /api/feedback with the answer's answer_id (a later choice replaces the earlier
// one on the server), so a rating is never lost waiting for a reason. Toggle buttons
// (aria-pressed) show what the service stored; a status line confirms it, and a failure
// is explained in plain Portuguese with the technical text under details.

import { el, clear } from "./dom.js";
import { errorNotice, plainMessage } from "./errors.js";

/** The API's reason codes and how the page names them. */
export const REASONS = [
  ["nao_respondeu", "Não respondeu minha pergunta"],
  ["dificil_de_entender", "Difícil de entender"],
  ["informacao_errada", "Informação errada"],
  ["outro", "Outro motivo"],
];

const THANKS = "Obrigado pela avaliação.";

// What a failure means here (the general messages in errors.js speak of the question).
const CODES = {
  unknown_answer:
    "O serviço não encontrou esta resposta para registrar a avaliação: ela pode ser antiga " +
    "demais. Se quiser, faça a pergunta de novo e avalie a nova resposta.",
  feedback_unavailable:
    "O serviço não conseguiu guardar a avaliação agora. Tente de novo em alguns minutos; " +
    "a resposta acima continua valendo.",
  invalid_request: "O serviço não aceitou a avaliação. Recarregue a página e tente de novo.",
};
const FALLBACK = "Não foi possível enviar a avaliação agora. Tente de novo em alguns instantes.";

let boxes = 0; // ids for aria-labelledby, one set per box

export class FeedbackBox {
  /**
   * send(helpful, reason): a promise that resolves once the service stored the rating
   * and rejects with an ApiError. onStored({helpful, reason}): it was stored. `rating` is
   * what was stored earlier for this answer (shown again from the session), or null.
   */
  constructor({ rating = null, send, onStored = () => {} }) {
    boxes += 1;
    const question = `feedback-question-${boxes}`;
    const reasonsTitle = `feedback-reasons-${boxes}`;
    this.send = send;
    this.onStored = onStored;
    this.stored = rating;
    this.wantsReason = Boolean(rating && !rating.helpful);
    this.pending = 0; // the number of the request in flight (0: none)
    this.sent = 0;

    this.yes = this.toggle("Ajudou", () => this.choose(true, null));
    this.no = this.toggle("Não ajudou", () => this.choose(false, null));
    this.reasonButtons = REASONS.map(([code, label]) => {
      const button = this.toggle(label, () => this.choose(false, code));
      button.dataset.reason = code;
      return button;
    });
    this.reasons = el(
      "div",
      { class: "feedback__reasons", role: "group", "aria-labelledby": reasonsTitle },
      el("p", { class: "feedback__hint", id: reasonsTitle }, "Se quiser, diga o que faltou:"),
      el(
        "ul",
        { class: "feedback__list" },
        ...this.reasonButtons.map((b) => el("li", {}, b)),
      ),
    );
    this.status = el("p", { class: "feedback__status", role: "status" });
    this.error = el("div", { class: "feedback__error" });
    this.root = el(
      "div",
      { class: "feedback", role: "group", "aria-labelledby": question },
      el("p", { class: "feedback__question", id: question }, "Esta resposta ajudou?"),
      el("p", { class: "feedback__choices" }, this.yes, this.no),
      this.reasons,
      this.status,
      this.error,
    );
    if (rating) this.status.textContent = THANKS;
    this.render();
  }

  toggle(label, onClick) {
    const button = el(
      "button",
      { type: "button", class: "button button--quiet feedback__button", "aria-pressed": "false" },
      label,
    );
    button.addEventListener("click", () => {
      // While a rating is on its way the buttons wait (aria-disabled keeps their focus).
      if (!this.pending) onClick();
    });
    return button;
  }

  async choose(helpful, reason) {
    const stored = this.stored;
    // Already stored: nothing to send ("Não ajudou" again keeps the reason given).
    const same =
      stored && stored.helpful === helpful && (reason === null || stored.reason === reason);
    this.wantsReason = !helpful;
    this.last = { helpful, reason };
    if (same) {
      this.render();
      return;
    }
    this.sent += 1;
    const number = this.sent;
    this.pending = number;
    clear(this.error);
    this.status.textContent = "Enviando a avaliação…";
    this.render();
    try {
      await this.send(helpful, reason);
      this.stored = { helpful, reason };
      this.onStored(this.stored);
      this.status.textContent = THANKS;
    } catch (error) {
      this.status.textContent = "";
      this.showError(error);
    } finally {
      if (this.pending === number) this.pending = 0;
      this.render();
    }
  }

  showError(error) {
    const retry = el("button", { type: "button", class: "button button--primary" }, "Enviar de novo");
    retry.addEventListener("click", () => {
      if (this.pending || !this.last) return;
      const { helpful, reason } = this.last;
      // The box (and this button) goes away: focus moves to the choice being sent again.
      const again = reason
        ? this.reasonButtons.find((b) => b.dataset.reason === reason)
        : helpful
          ? this.yes
          : this.no;
      again.focus();
      this.choose(helpful, reason);
    });
    const gone = error && (error.code === "unknown_answer" || error.status === 404);
    this.error.append(
      errorNotice(error, {
        title: "A avaliação não foi enviada",
        message: plainMessage(error, { codes: CODES, fallback: FALLBACK }),
        actions: gone ? [] : [retry],
      }),
    );
  }

  /** Pressed states follow what the service stored; reasons show after "Não ajudou". */
  render() {
    const stored = this.stored;
    this.yes.setAttribute("aria-pressed", String(Boolean(stored && stored.helpful)));
    this.no.setAttribute("aria-pressed", String(Boolean(stored && !stored.helpful)));
    for (const button of this.reasonButtons) {
      const on = Boolean(stored && !stored.helpful && stored.reason === button.dataset.reason);
      button.setAttribute("aria-pressed", String(on));
    }
    this.reasons.hidden = !this.wantsReason;
    for (const button of [this.yes, this.no, ...this.reasonButtons]) {
      if (this.pending) button.setAttribute("aria-disabled", "true");
      else button.removeAttribute("aria-disabled");
    }
    this.root.dataset.state = this.pending ? "sending" : stored ? "stored" : "open";
  }
}
