// The questions of this session and their answers, grouped in conversations. They are
// kept in sessionStorage: it belongs to this tab only and the browser deletes it when the
// tab closes (health questions are private, and a shared computer should not keep them),
// yet a reload or Back-then-Forward no longer loses them. "Limpar" deletes them at once.
// Choosing one shows its answer again, or asks again when it never got one.
//
// The turns of the current conversation that got a reply (an answer, a refusal or an
// escalation) are what a follow-up question carries (`turns()`, sent as the API's
// `history`); only answers count as answered (`isAnswered`). "Nova conversa" starts a new
// one, and the list shows where it started.

import { el, clear } from "./dom.js";
import { counted, shorten, MAX_QUESTION_CHARS } from "./text.js";

const MAX_ITEMS = 8;
const SHOWN_CHARS = 120; // a question longer than this is shortened in the list
const STORAGE_KEY = "cartoes.conversa.v1";
const CURRENT_KEY = "cartoes.conversa.atual.v1"; // the current conversation's number
const ANSWER_ID = /^[0-9a-f]{32}$/;
const CARD_ID = /^card-\d{3,6}$/;
const REASONS = new Set(["nao_respondeu", "dificil_de_entender", "informacao_errada", "outro"]);

// The API's bounds for `history` (app/api/schemas.py): turns, characters, citations.
export const HISTORY_TURNS = 3;
const HISTORY_CHARS = 500;
const HISTORY_CITATIONS = 6;

function storage() {
  try {
    return window.sessionStorage;
  } catch {
    return null; // storage disabled (privacy mode, sandboxed frame)
  }
}

/** A rating read back from storage ({helpful, reason}), or null. */
function validRating(raw) {
  if (!raw || typeof raw !== "object" || typeof raw.helpful !== "boolean") return null;
  return { helpful: raw.helpful, reason: REASONS.has(raw.reason) ? raw.reason : null };
}

/** An item read back from storage, or null when it is not one we wrote. */
function validItem(raw) {
  if (!raw || typeof raw !== "object") return null;
  const { question, result, answerId, conversation, rating } = raw;
  if (typeof question !== "string" || !question || question.length > 4 * MAX_QUESTION_CHARS) {
    return null;
  }
  const answer = result && typeof result === "object" && typeof result.answer === "string";
  return {
    question,
    result: answer ? result : null,
    answerId: typeof answerId === "string" && ANSWER_ID.test(answerId) ? answerId : null,
    conversation: Number.isSafeInteger(conversation) && conversation >= 0 ? conversation : 0,
    rating: validRating(rating),
  };
}

/**
 * Whether a stored answer answered the question with the cards: a refusal (not covered)
 * and an emergency escalation are turns of the conversation, but not answered ones.
 */
export function isAnswered(result) {
  return Boolean(result) && !result.refused && !result.emergency;
}

/** The distinct cards an answer cites (a card cited twice is one source). */
function sourceCount(result) {
  const cited = Array.isArray(result.citations) ? result.citations : [];
  return new Set(cited.map((c) => c && c.id).filter((id) => typeof id === "string")).size;
}

/** One turn as the API takes it: the question (at most 500 characters) and its cards. */
function turnOf(item) {
  const question = [...item.question.trim()].slice(0, HISTORY_CHARS).join("").trim();
  const cited = Array.isArray(item.result.citations) ? item.result.citations : [];
  const citations = [...new Set(cited.map((c) => c && c.id))]
    .filter((id) => typeof id === "string" && CARD_ID.test(id))
    .slice(0, HISTORY_CITATIONS);
  return { question, citations };
}

export class QuestionHistory {
  /** onPick(item): an item of the list was chosen; onChange(): the conversation changed. */
  constructor(root, { onPick, onChange = () => {} }) {
    this.root = root;
    this.list = root.querySelector("#history-list");
    this.onPick = onPick;
    this.onChange = onChange;
    // newest first: {question, result|null, answerId|null, conversation, rating|null}
    this.items = this.load();
    this.current = this.loadCurrent();
    root.querySelector("#history-clear").addEventListener("click", () => {
      this.items = [];
      this.current = 0;
      this.save();
      this.render();
      this.onChange();
      document.getElementById("question")?.focus();
    });
    this.render();
  }

  /** The newest item, e.g. to show its answer again after a reload. */
  get latest() {
    return this.items[0] || null;
  }

  /**
   * The items of the current conversation that got a reply (an answer, a refusal or an
   * escalation: what a follow-up carries), newest first; `isAnswered` tells them apart.
   */
  get conversation() {
    return this.items.filter((i) => i.conversation === this.current && i.result);
  }

  /** What a follow-up carries: the last answered turns of this conversation, oldest first. */
  turns() {
    return this.conversation.slice(0, HISTORY_TURNS).reverse().map(turnOf);
  }

  /** Start a new conversation: later questions carry none of the earlier ones. */
  newConversation() {
    if (this.items.some((i) => i.conversation === this.current)) this.current += 1;
    this.save();
    this.render();
    this.onChange();
  }

  /** Record a question (moving it to the top if it was asked before). */
  add(question, result = null) {
    this.items = this.items.filter((i) => i.question !== question);
    const id = result && typeof result.answer_id === "string" ? result.answer_id : "";
    this.items.unshift({
      question,
      result,
      answerId: ANSWER_ID.test(id) ? id : null,
      conversation: this.current,
      rating: null,
    });
    this.items.length = Math.min(this.items.length, MAX_ITEMS);
    this.save();
    this.render();
    this.onChange();
  }

  /** The rating stored for an answer ({helpful, reason}), or null. */
  ratingOf(answerId) {
    const item = this.items.find((i) => i.answerId && i.answerId === answerId);
    return item ? item.rating : null;
  }

  /** Remember that an answer was rated, so that showing it again shows the rating. */
  rate(answerId, rating) {
    const item = this.items.find((i) => i.answerId && i.answerId === answerId);
    if (!item) return;
    item.rating = validRating(rating);
    this.save();
  }

  load() {
    try {
      const raw = JSON.parse(storage()?.getItem(STORAGE_KEY) || "[]");
      return Array.isArray(raw) ? raw.map(validItem).filter(Boolean).slice(0, MAX_ITEMS) : [];
    } catch {
      return []; // unreadable: start a new conversation rather than fail
    }
  }

  loadCurrent() {
    const newest = this.items.reduce((n, i) => Math.max(n, i.conversation), 0);
    try {
      const stored = Number(storage()?.getItem(CURRENT_KEY));
      return Number.isSafeInteger(stored) && stored >= newest ? stored : newest;
    } catch {
      return newest;
    }
  }

  save() {
    const store = storage();
    if (!store) return;
    try {
      if (this.items.length) store.setItem(STORAGE_KEY, JSON.stringify(this.items));
      else store.removeItem(STORAGE_KEY);
      if (this.items.length && this.current) store.setItem(CURRENT_KEY, String(this.current));
      else store.removeItem(CURRENT_KEY);
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
    let group = this.current;
    for (const item of this.items) {
      if (item.conversation !== group) {
        // Where an earlier conversation's questions begin (the newest are on top).
        group = item.conversation;
        this.list.append(el("li", { class: "history__divider" }, "Conversa anterior"));
      }
      const state = !item.result
        ? "sem resposta: escolha para perguntar de novo"
        : item.result.emergency
          ? "alerta de emergência"
          : item.result.refused
            ? "fora da base"
            : sourceCount(item.result)
              ? counted(sourceCount(item.result), "fonte", "fontes")
              : "sem fontes";
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
