// The answer view: loading, the streamed answer with citation chips, emergency alert,
// refusal, and errors with a retry button. Server text only ever goes in as text.

import { tokenize, createChip, upgradeChip } from "./citations.js";
import { el, clear } from "./dom.js";

const EMERGENCY = {
  medical: {
    title: "Emergência: procure atendimento agora",
    calls: [{ href: "tel:192", label: "Ligar 192 (SAMU)" }],
  },
  self_harm: {
    title: "Peça ajuda agora",
    calls: [
      { href: "tel:188", label: "Ligar 188 (CVV, 24 horas)" },
      { href: "tel:192", label: "Ligar 192 (SAMU)" },
    ],
  },
};

/** Appends answer text piece by piece: paragraphs on blank lines, chips for markers. */
class StreamRenderer {
  constructor(container) {
    this.container = container;
    this.paragraph = null;
    this.newlines = 0; // newlines seen but not yet applied (a "\n\n" may span two deltas)
    this.text = "";
  }

  append(piece) {
    this.text += piece;
    for (const part of tokenize(piece)) {
      if (part.type === "cite") {
        this.flushNewlines();
        this.current().append(createChip(part.id));
        continue;
      }
      for (const chunk of part.text.split(/(\n+)/)) {
        if (!chunk) continue;
        if (chunk.startsWith("\n")) {
          this.newlines += chunk.length;
        } else {
          this.flushNewlines();
          this.current().append(chunk);
        }
      }
    }
  }

  flushNewlines() {
    if (this.newlines >= 2) this.paragraph = null;
    else if (this.newlines === 1 && this.paragraph) this.paragraph.append(el("br"));
    this.newlines = 0;
  }

  current() {
    if (!this.paragraph) {
      this.paragraph = el("p");
      this.container.append(this.paragraph);
    }
    return this.paragraph;
  }
}

export class AnswerView {
  constructor(root) {
    this.root = root;
    this.asked = root.querySelector("#asked-text");
    this.notices = root.querySelector("#answer-notices");
    this.body = root.querySelector("#answer-body");
    this.extra = root.querySelector("#answer-extra");
    this.renderer = null;
  }

  /** A new question: clear the previous answer and show the loading state. */
  start(question) {
    this.root.hidden = false;
    this.root.classList.remove("answer--refused", "answer--error");
    this.asked.textContent = question;
    clear(this.notices);
    clear(this.body);
    clear(this.extra);
    this.notices.append(
      el(
        "div",
        { class: "loading" },
        el("span", { class: "spinner", "aria-hidden": "true" }),
        el("span", {}, "Buscando a resposta nos cartões…"),
      ),
    );
    this.body.setAttribute("aria-busy", "true");
    this.renderer = new StreamRenderer(this.body);
    this.root.dataset.state = "loading";
  }

  append(piece) {
    const loading = this.notices.querySelector(".loading");
    if (loading) loading.remove();
    this.root.dataset.state = "streaming";
    this.renderer.append(piece);
  }

  /** The final event: authoritative text, chip titles, emergency and refusal states. */
  finish(result) {
    clear(this.notices);
    const answer = String(result.answer ?? "");
    if (!this.renderer || this.renderer.text !== answer) {
      // Should not happen (the deltas add up to the answer); trust the final object.
      clear(this.body);
      this.renderer = new StreamRenderer(this.body);
      this.renderer.append(answer);
    }
    const byId = new Map((result.citations || []).map((c) => [c.id, c]));
    for (const chip of this.body.querySelectorAll(".chip")) {
      upgradeChip(chip, byId.get(chip.dataset.card));
    }

    const emergency = EMERGENCY[result.emergency];
    if (emergency) {
      // The answer starts with the escalation paragraph: move it into the alert box.
      const first = this.body.querySelector("p");
      const text = first ? first.textContent.trim() : "";
      if (first) first.remove();
      this.notices.append(this.emergencyBox(emergency, text));
    }
    if (result.refused) {
      this.root.classList.add("answer--refused");
      this.notices.append(
        el(
          "div",
          { class: "notice notice--refused" },
          el("p", { class: "notice__title" }, "A base não cobre essa pergunta"),
          el(
            "p",
            {},
            "Os cartões disponíveis não trazem informação segura sobre isso. " +
              "Tente perguntar de outro jeito ou fale com o seu médico ou farmacêutico.",
          ),
        ),
      );
    }
    this.body.setAttribute("aria-busy", "false");
    this.extra.append(this.details(result));
    this.root.dataset.state = result.refused ? "refused" : "answered";
  }

  emergencyBox(kind, text) {
    return el(
      "div",
      { class: "alert", role: "alert" },
      el("p", { class: "alert__title" }, kind.title),
      text ? el("p", { class: "alert__text" }, text) : null,
      el(
        "p",
        { class: "alert__calls" },
        ...kind.calls.map((c) => el("a", { class: "button button--danger", href: c.href }, c.label)),
      ),
    );
  }

  details(result) {
    const list = el("dl", { class: "details__list" });
    const row = (term, value) => list.append(el("dt", {}, term), el("dd", {}, value));
    row("Gerador", String(result.generator ?? ""));
    const retrieval = (result.retrieval || [])
      .map((r) => `${r.id} (${Number(r.score).toFixed(2)})`)
      .join(", ");
    row("Cartões recuperados", retrieval || "nenhum");
    const warnings = result.citation_warnings || [];
    if (warnings.length) row("Avisos de citação", warnings.join("; "));
    return el(
      "details",
      { class: "details" },
      el("summary", {}, "Detalhes técnicos (para a equipe de suporte)"),
      list,
    );
  }

  /** An error: what happened, the server's message when there is one, and a retry. */
  fail(error, onRetry) {
    clear(this.notices);
    clear(this.body);
    this.body.setAttribute("aria-busy", "false");
    this.root.classList.add("answer--error");
    this.root.dataset.state = "error";
    const hint =
      error.kind === "network"
        ? "Verifique sua conexão com a internet e tente de novo."
        : error.status === 422
          ? "Revise a pergunta e tente de novo."
          : "Tente de novo em alguns instantes.";
    const retry = el("button", { type: "button", class: "button button--primary" }, "Tentar de novo");
    retry.addEventListener("click", onRetry);
    const box = el(
      "div",
      { class: "notice notice--error", role: "alert" },
      el("p", { class: "notice__title" }, "Não foi possível obter a resposta"),
      el("p", {}, `${error.message || "Erro inesperado."} ${hint}`),
      error.detail
        ? el("p", { class: "notice__detail" }, "Mensagem do serviço: ", el("span", { class: "notice__server" }, error.detail))
        : null,
      el("p", { class: "notice__actions" }, retry),
    );
    this.notices.append(box);
    return retry;
  }

  /** Show an earlier answer again (from the history), without a request. */
  show(question, result) {
    this.start(question);
    clear(this.notices);
    this.append(String(result.answer ?? ""));
    this.finish(result);
  }

  /** The chip elements of the current answer. */
  chips() {
    return [...this.body.querySelectorAll(".chip")];
  }
}
