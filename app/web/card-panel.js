// The side panel with a cited card: full text, source, license, access date, audience.
// Opened from a chip (click, Enter or Space); Escape, the close button, "Voltar à
// resposta" at its end, or the browser's Back button close it, and focus goes back to the
// chip that opened it (Forward opens it again). Opening puts focus on its close button
// (a screen reader reads the dialog's name, the card's title, with it). While focus is in
// it, Tab and Shift+Tab cycle inside it at every size; when it covers the page (aria-modal,
// narrow screens) a Tab from outside it lands in it too.
//
// The panel is a <dialog>, shown with show() (never showModal(): beside the answer on a
// wide screen it must not block the page, and where it covers the page app.js makes the
// page behind it inert and sets aria-modal). Escape is handled here, since a non-modal
// dialog does not close on Escape by itself.

import { getCard } from "./api.js";
import { el, clear, paragraphs, formatDate } from "./dom.js";
import { errorNotice } from "./errors.js";

// Who a card is written for (the card's `audience`), as the panel names it.
const AUDIENCE = { adult: "adultos", child: "crianças", elderly: "idosos" };

const FOCUSABLE = 'button:not([disabled]), a[href], summary, [tabindex]:not([tabindex="-1"])';

export class CardPanel {
  constructor(root, { onToggle = () => {} } = {}) {
    this.root = root;
    this.title = root.querySelector("#card-panel-title");
    this.closeButton = root.querySelector("#card-panel-close");
    this.content = root.querySelector("#card-panel-content");
    this.onToggle = onToggle;
    this.opener = null;
    this.requested = null;
    // Opening pushes a history entry, so that Back closes the card instead of leaving the
    // page; closing otherwise goes back over that entry (and ignores its popstate).
    this.pushed = false;
    this.ignorePops = 0;
    this.closeButton.addEventListener("click", () => this.close());
    root.querySelector("#card-panel-back").addEventListener("click", () => this.close());
    document.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && this.isOpen && !event.defaultPrevented) {
        event.preventDefault();
        this.close();
      }
    });
    // On the document, not the panel: a Tab pressed while focus is outside it (on the
    // page's body after a click on the inert page) still lands inside.
    document.addEventListener("keydown", (event) => this.trapTab(event));
    window.addEventListener("popstate", (event) => {
      if (this.ignorePops > 0) {
        this.ignorePops -= 1;
        return;
      }
      this.follow(event.state);
    });
  }

  /**
   * Follow the history entry the page is on: a card's entry (Forward, or a reload while
   * a card was open) opens that card; any other entry (Back) closes the panel.
   */
  follow(state) {
    const id = state && typeof state.cardPanel === "string" ? state.cardPanel : "";
    if (id) {
      if (this.isOpen && this.requested === id) return;
      this.pushed = true; // already on the card's entry: open() must not push another
      const chip = document.querySelector(`#answer-body .chip[data-card="${CSS.escape(id)}"]`);
      this.open(id, chip);
    } else if (this.pushed) {
      this.pushed = false;
      this.close();
    }
  }

  /**
   * While focus is in the open panel (modal or beside the answer), Tab from its last control
   * goes to the first one and Shift+Tab from the first to the last, so that the footer is
   * never reached from it. While the panel is modal, Tab from anywhere outside it (or from
   * the dialog itself) goes to its first control, Shift+Tab to its last; beside the answer
   * a Tab from the page is left alone, since the page stays usable there.
   */
  trapTab(event) {
    if (event.key !== "Tab" || !this.isOpen) return;
    const active = document.activeElement;
    const inside = this.root.contains(active);
    if (!inside && this.root.getAttribute("aria-modal") !== "true") return;
    const items = [...this.root.querySelectorAll(FOCUSABLE)].filter((n) => n.getClientRects().length);
    if (!items.length) return;
    const first = items[0];
    const last = items[items.length - 1];
    if (!inside || active === this.root) {
      event.preventDefault();
      (event.shiftKey ? last : first).focus();
    } else if (event.shiftKey && active === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && active === last) {
      event.preventDefault();
      first.focus();
    }
  }

  get isOpen() {
    return this.root.open;
  }

  async open(id, opener) {
    if (this.opener && this.opener !== opener) this.opener.setAttribute("aria-expanded", "false");
    this.opener = opener || null;
    if (this.opener) this.opener.setAttribute("aria-expanded", "true");
    this.requested = id;
    if (this.pushed) {
      window.history.replaceState({ cardPanel: id }, "");
    } else {
      // Manual scroll restoration (kept by the entries of this document): going back over
      // the card's entry must not jump the page to where it was, or to a #fragment.
      window.history.scrollRestoration = "manual";
      window.history.pushState({ cardPanel: id }, "");
      this.pushed = true;
    }
    this.root.dataset.card = id;
    // The layout makes room for the panel before it shows: show() focuses its close
    // button at once, and in the one-column layout the panel would sit below the page,
    // so that focusing it would scroll the page to its end.
    this.onToggle(true);
    if (!this.root.open) this.root.show();
    this.title.textContent = opener ? opener.querySelector(".chip__label")?.textContent || id : id;
    clear(this.content);
    this.content.append(el("p", { class: "loading" }, el("span", { class: "spinner", "aria-hidden": "true" }), "Carregando o cartão…"));
    this.root.setAttribute("aria-busy", "true");
    this.closeButton.focus();
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
    const groups = (card.audience || []).map((g) => AUDIENCE[g] || String(g));
    if (groups.length) row("Para quem", groups.join(", "));
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
      errorNotice(error, {
        title: notFound ? "Cartão não encontrado" : "Não foi possível carregar o cartão",
        message: notFound
          ? "Este cartão não está mais na base: ele pode ter sido retirado ou atualizado " +
            "depois desta resposta."
          : "",
        actions: notFound ? [] : [retry],
      }),
    );
  }

  close() {
    if (!this.isOpen) return;
    // Focus goes back to the chip if it was in the panel (or nowhere); someone typing a
    // new question beside the open panel keeps their place.
    const active = document.activeElement;
    const refocus = !active || active === document.body || this.root.contains(active);
    if (this.pushed) {
      this.pushed = false;
      this.ignorePops += 1;
      window.history.back();
    }
    this.root.close();
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
