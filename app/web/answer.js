// The answer view: loading, the streamed answer with citation chips, the topic a
// follow-up was assumed to be about, emergency alert, refusal (and the not-covered state
// with its suggestions), the feedback buttons, and errors with a retry button. Server
// text only ever goes in as text.

import { decisionOf, technicalDetails } from "./answer-details.js";
import { tokenize, createChip, upgradeChip } from "./citations.js";
import { el, clear } from "./dom.js";
import { errorNotice } from "./errors.js";
import { shorten } from "./text.js";

const ASKED_CHARS = 200; // a longer question is echoed shortened, with a button for all of it

const EMERGENCY = {
  medical: {
    title: "Emergência: procure atendimento agora",
    calls: [{ href: "tel:192", label: "Ligar 192 (SAMU)" }],
  },
  poisoning: {
    title: "Possível intoxicação: ligue agora",
    calls: [
      { href: "tel:192", label: "Ligar 192 (SAMU)" },
      { href: "tel:08007226001", label: "Ligar 0800 722 6001 (Disque-Intoxicação, 24 horas)" },
    ],
  },
  self_harm: {
    title: "Peça ajuda agora",
    calls: [
      { href: "tel:188", label: "Ligar 188 (CVV, 24 horas)" },
      { href: "tel:192", label: "Ligar 192 (SAMU)" },
    ],
  },
};

/**
 * Appends answer text piece by piece: paragraphs on blank lines, chips for markers. A card
 * gets one chip, where the answer first cites it: a later marker of the same card adds
 * nothing (a second chip would open the same card and count it twice).
 */
class StreamRenderer {
  constructor(container) {
    this.container = container;
    this.paragraph = null;
    this.newlines = 0; // newlines seen but not yet applied (a "\n\n" may span two deltas)
    this.text = "";
    this.cards = new Set(); // the cards that already have their chip
  }

  append(piece) {
    this.text += piece;
    for (const part of tokenize(piece)) {
      if (part.type === "cite") {
        if (this.cards.has(part.id)) continue;
        this.cards.add(part.id);
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
  /**
   * onSuggest(question): a suggestion of the not-covered state was chosen.
   * feedback(result): the feedback element for an answer, or null (none for that answer).
   */
  constructor(root, { onSuggest = () => {}, feedback = () => null } = {}) {
    this.root = root;
    this.asked = root.querySelector("#asked-text");
    this.askedMore = root.querySelector("#asked-more");
    this.notices = root.querySelector("#answer-notices");
    this.main = root.querySelector("#answer-main");
    this.body = root.querySelector("#answer-body");
    this.extra = root.querySelector("#answer-extra");
    this.onSuggest = onSuggest;
    this.feedback = feedback;
    this.renderer = null;
    this.question = "";
    this.askedMore.addEventListener("click", () => {
      const expand = this.askedMore.getAttribute("aria-expanded") !== "true";
      this.showAsked(expand);
    });
  }

  /** "Você perguntou:" with the question, shortened when long (all of it on request). */
  showAsked(full) {
    const short = shorten(this.question, ASKED_CHARS);
    this.asked.textContent = full ? this.question : short;
    this.askedMore.hidden = short === this.question;
    this.askedMore.setAttribute("aria-expanded", full ? "true" : "false");
    this.askedMore.textContent = full ? "Mostrar menos" : "Mostrar a pergunta inteira";
  }

  /** A new question: clear the previous answer and show the loading state. */
  start(question) {
    this.root.hidden = false;
    this.root.classList.remove("answer--refused", "answer--error");
    this.question = String(question);
    this.showAsked(false);
    clear(this.notices);
    clear(this.body);
    clear(this.extra);
    this.resetMain();
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
    const citations = Array.isArray(result.citations) ? result.citations : [];
    const byId = new Map(citations.map((c) => [c && c.id, c]));
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
    this.markTopic(result.topic);
    // An escalation with nothing after it is not followed by a "not covered" box: the
    // alert is the whole answer.
    if (result.refused && this.body.textContent.trim()) this.showRefusal(result);
    this.body.setAttribute("aria-busy", "false");
    const feedback = this.feedback(result);
    if (feedback) this.extra.append(feedback);
    this.extra.append(technicalDetails(result));
    this.root.dataset.state = result.refused ? "refused" : "answered";
  }

  /**
   * A follow-up's answer starts with the topic the service assumed ("Sobre a
   * levotiroxina: ..."): that lead-in is set apart so that the assumption is plain to see.
   */
  markTopic(topic) {
    if (typeof topic !== "string" || !topic.trim()) return;
    const first = this.body.querySelector("p");
    if (!first) return;
    first.normalize(); // the streamed pieces become one text node up to the first chip
    const text = first.firstChild;
    const lead = `Sobre ${topic.trim()}:`;
    if (!text || text.nodeType !== Node.TEXT_NODE || !text.data.startsWith(lead)) return;
    text.splitText(lead.length);
    text.replaceWith(el("strong", { class: "answer__topic" }, lead));
  }

  /**
   * A refusal is said once: the answer text itself becomes the body of the warning box
   * (the box adds only its title). A not-covered answer adds the close topics the base
   * does cover, as questions to ask.
   */
  showRefusal(result) {
    this.root.classList.add("answer--refused");
    this.main.classList.add("notice", "notice--refused");
    this.main.prepend(el("p", { class: "notice__title" }, "A base não cobre essa pergunta"));
    const decision = decisionOf(result);
    if (decision && decision.outcome === "not_covered") {
      const suggestions = this.suggestions(result.suggestions);
      if (suggestions) this.main.append(suggestions);
    }
  }

  /** Buttons for the contract's `suggestions` ({id, title, question}); null when none. */
  suggestions(items) {
    const usable = (Array.isArray(items) ? items : []).filter(
      (s) => s && typeof s.question === "string" && s.question.trim(),
    );
    if (!usable.length) return null;
    return el(
      "div",
      { class: "covered" },
      el(
        "p",
        { class: "covered__title" },
        "Os cartões tratam destes assuntos próximos; escolha um para perguntar:",
      ),
      el(
        "ul",
        { class: "covered__list" },
        ...usable.slice(0, 3).map((s) => {
          const button = el("button", { type: "button", class: "suggestion" }, s.question.trim());
          if (typeof s.title === "string" && s.title) button.title = `Cartão: ${s.title}`;
          button.addEventListener("click", () => this.onSuggest(s.question.trim()));
          return el("li", {}, button);
        }),
      ),
    );
  }

  /** No answer on show (a new conversation starts). */
  reset() {
    this.root.hidden = true;
    this.root.classList.remove("answer--refused", "answer--error");
    this.question = "";
    clear(this.notices);
    clear(this.body);
    clear(this.extra);
    this.resetMain();
    this.renderer = null;
    delete this.root.dataset.state;
  }

  /** The box of a refusal, removed before the next answer. */
  resetMain() {
    this.main.classList.remove("notice", "notice--refused");
    for (const node of [...this.main.children]) if (node !== this.body) node.remove();
  }

  emergencyBox(kind, text) {
    return el(
      "div",
      { class: "alert", role: "alert" },
      el("h3", { class: "alert__title" }, kind.title),
      text ? el("p", { class: "alert__text" }, text) : null,
      el(
        "p",
        { class: "alert__calls" },
        ...kind.calls.map((c) => el("a", { class: "button button--danger", href: c.href }, c.label)),
      ),
    );
  }

  /** An error: what happened in plain words, the technical text under details, a retry. */
  fail(error, onRetry) {
    clear(this.notices);
    clear(this.body);
    this.resetMain();
    this.body.setAttribute("aria-busy", "false");
    this.root.classList.add("answer--error");
    this.root.dataset.state = "error";
    const retry = el("button", { type: "button", class: "button button--primary" }, "Tentar de novo");
    retry.addEventListener("click", onRetry);
    this.notices.append(
      errorNotice(error, { title: "Não foi possível obter a resposta", actions: [retry] }),
    );
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
