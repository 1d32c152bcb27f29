// The side panel with a cited card: full text, source, license, access date.
// Opened from a chip (click, Enter or Space); Escape or the close button closes it and
// focus goes back to the chip that opened it.

import { getCard } from "./api.js";
import { el, clear, paragraphs, formatDate } from "./dom.js";

export class CardPanel {
  constructor(root, { onToggle = () => {} } = {}) {
    this.root = root;
    this.title = root.querySelector("#card-panel-title");
    this.content = root.querySelector("#card-panel-content");
    this.onToggle = onToggle;
    this.opener = null;
    this.requested = null;
    root.querySelector("#card-panel-close").addEventListener("click", () => this.close());
    document.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && !this.root.hidden && !event.defaultPrevented) {
        event.preventDefault();
        this.close();
      }
    });
  }

  get isOpen() {
    return !this.root.hidden;
  }

  async open(id, opener) {
    if (this.opener && this.opener !== opener) this.opener.setAttribute("aria-expanded", "false");
    this.opener = opener || null;
    if (this.opener) this.opener.setAttribute("aria-expanded", "true");
    this.requested = id;
    this.root.hidden = false;
    this.root.dataset.card = id;
    this.onToggle(true);
    this.title.textContent = opener ? opener.querySelector(".chip__label")?.textContent || id : id;
    clear(this.content);
    this.content.append(el("p", { class: "loading" }, el("span", { class: "spinner", "aria-hidden": "true" }), "Carregando o cartão…"));
    this.root.setAttribute("aria-busy", "true");
    this.title.focus();
    try {
      const card = await getCard(id);
      if (this.requested !== id) return; // another chip was opened meanwhile
      this.render(card);
    } catch (error) {
      if (this.requested !== id) return;
      this.renderError(id, error);
    } finally {
      if (this.requested === id) this.root.setAttribute("aria-busy", "false");
    }
  }

  render(card) {
    this.title.textContent = card.title || card.id;
    clear(this.content);
    const topics = (card.topics || []).length
      ? el(
          "ul",
          { class: "topics", "aria-label": "Assuntos" },
          ...card.topics.map((t) => el("li", { class: "topic" }, String(t))),
        )
      : null;
    const meta = el("dl", { class: "card-meta" });
    const row = (term, value) => meta.append(el("dt", {}, term), el("dd", {}, value));
    row("Fonte", String(card.source || "não informada"));
    row("Licença", String(card.license || "não informada"));
    row("Acesso em", formatDate(card.accessed_at || "não informado"));
    if (card.reviewed_at) row("Revisado em", formatDate(card.reviewed_at) + (card.reviewed_by ? ` — ${card.reviewed_by}` : ""));
    row("Identificador", String(card.id || ""));
    this.content.append(
      ...(topics ? [topics] : []),
      el("div", { class: "card-text" }, ...paragraphs(card.text || "")),
      meta,
    );
  }

  renderError(id, error) {
    clear(this.content);
    const retry = el("button", { type: "button", class: "button button--primary" }, "Tentar de novo");
    retry.addEventListener("click", () => this.open(id, this.opener));
    const notFound = error.status === 404;
    this.content.append(
      el(
        "div",
        { class: "notice notice--error", role: "alert" },
        el(
          "p",
          { class: "notice__title" },
          notFound ? "Cartão não encontrado" : "Não foi possível carregar o cartão",
        ),
        el("p", {}, error.message || "Erro inesperado."),
        error.detail
          ? el("p", { class: "notice__detail" }, "Mensagem do serviço: ", el("span", { class: "notice__server" }, error.detail))
          : null,
        notFound ? null : el("p", { class: "notice__actions" }, retry),
      ),
    );
  }

  close() {
    if (!this.isOpen) return;
    // Focus goes back to the chip if it was in the panel (or nowhere); someone typing a
    // new question beside the open panel keeps their place.
    const active = document.activeElement;
    const refocus = !active || active === document.body || this.root.contains(active);
    this.root.hidden = true;
    this.requested = null;
    delete this.root.dataset.card;
    this.onToggle(false);
    const opener = this.opener;
    this.opener = null;
    if (opener) opener.setAttribute("aria-expanded", "false");
    if (!refocus) return;
    if (opener && opener.isConnected) opener.focus();
    else document.getElementById("question")?.focus();
  }
}
