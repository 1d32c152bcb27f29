// Entry point: wires the question box, the conversation, the answer view with its
// feedback buttons, the card panel and the history.

import { askStream, sendFeedback, ApiError } from "./api.js";
import { AnswerView } from "./answer.js";
import { CardPanel } from "./card-panel.js";
import { FeedbackBox } from "./feedback.js";
import { QuestionHistory, isAnswered } from "./history.js";
import { QuestionForm } from "./question-form.js";
import { el } from "./dom.js";
import { counted } from "./text.js";
import { TextSize } from "./text-size.js";

const $ = (id) => document.getElementById(id);
const status = $("status");
const suggestions = $("suggestions");
const ANSWER_ID = /^[0-9a-f]{32}$/;

new TextSize($("text-size"));

const answer = new AnswerView($("answer"), {
  onSuggest(question) {
    // A suggestion is a whole question of its own (it names its card's topic): it is not
    // read as a follow-up of the question the cards did not cover.
    form.value = question;
    ask(question, { fresh: true });
  },
  feedback(result) {
    const id = typeof result.answer_id === "string" ? result.answer_id : "";
    if (!ANSWER_ID.test(id)) return null;
    return new FeedbackBox({
      rating: questions.ratingOf(id),
      send: (helpful, reason) => sendFeedback(id, helpful, reason),
      onStored: (rating) => questions.rate(id, rating),
    }).root;
  },
});
// On narrow screens the card panel covers the page: the page behind it (the skip link
// too, which would otherwise draw on top of the panel) is made inert (no focus, no
// screen-reader browsing) and stops scrolling until the panel closes.
const narrow = window.matchMedia("(max-width: 63.99rem)");
const behindPanel = [
  document.querySelector(".skip-link"),
  document.querySelector(".site-header"),
  $("main"),
  document.querySelector(".site-footer"),
];
const panel = new CardPanel($("card-panel"), {
  onToggle(open) {
    $("layout").classList.toggle("layout--panel", open);
    const cover = open && narrow.matches;
    document.documentElement.classList.toggle("panel-covers", cover);
    $("card-panel").setAttribute("aria-modal", cover ? "true" : "false");
    for (const node of behindPanel) node.inert = cover;
  },
});
const form = new QuestionForm($("ask-form"), { onAsk: ask });
const questions = new QuestionHistory($("history"), {
  onChange: showConversation,
  onPick(item) {
    if (item.result) {
      answer.show(item.question, item.result);
      announce("Mostrando a resposta anterior.");
      $("answer-title").focus();
    } else {
      ask(item.question);
    }
  },
});

let busy = false;

/**
 * The bar under the question box: the questions of this conversation the next one follows,
 * and how many of them the cards answered (a refusal or an escalation is not "respondida").
 */
function showConversation() {
  const turns = questions.conversation;
  const answered = turns.filter((item) => isAnswered(item.result)).length;
  $("conversation").hidden = turns.length === 0;
  const count =
    answered === turns.length
      ? counted(answered, "pergunta respondida", "perguntas respondidas")
      : `${counted(turns.length, "pergunta", "perguntas")} nesta conversa, ` +
        (answered ? counted(answered, "respondida", "respondidas") : "nenhuma respondida");
  // On a phone, where the bar stays on screen (sticky) and must stay small, only the
  // counts are in sight; the rest is still read out.
  $("conversation-text").replaceChildren(
    el("span", { class: "conversation__lead" }, "Conversa em andamento: "),
    `${count}.`,
    el("span", { class: "conversation__more" }, " A próxima pode continuar o mesmo assunto."),
  );
}

$("new-conversation").addEventListener("click", () => {
  if (busy) return;
  questions.newConversation();
  panel.close();
  answer.reset();
  suggestions.hidden = false;
  form.value = "";
  form.focus();
  announce("Nova conversa: as próximas perguntas não dependem das anteriores.");
});

function announce(message) {
  // Clear first so the same message twice is announced twice.
  status.textContent = "";
  window.setTimeout(() => {
    status.textContent = message;
  }, 50);
}

/**
 * Ask a question; it carries the answered turns of the current conversation (the API's
 * `history`) unless `fresh`.
 */
async function ask(question, { fresh = false } = {}) {
  if (busy) return;
  busy = true;
  const history = fresh ? [] : questions.turns();
  suggestions.hidden = true;
  answer.start(question);
  // Disabling the box would drop focus to the page body: keep it on the answer heading,
  // where the answer is about to appear.
  $("answer-title").focus({ preventScroll: true });
  form.setBusy(true);
  questions.setDisabled(true);
  $("new-conversation").disabled = true;
  $("answer").scrollIntoView({ block: "nearest" });
  announce("Buscando a resposta…");
  let retry = null;
  try {
    const result = await askStream(question, {
      history,
      onDelta: (text) => answer.append(text),
    });
    answer.finish(result);
    questions.add(question, result);
    form.value = "";
    announce(
      result.emergency
        ? "Atenção: alerta de emergência na resposta."
        : result.refused
          ? "A base não cobre essa pergunta."
          : "Resposta pronta.",
    );
  } catch (error) {
    const err =
      error instanceof ApiError ? error : new ApiError("stream", "Erro inesperado no navegador.");
    if (!(error instanceof ApiError)) console.error(error);
    questions.add(question, null);
    if (!form.value.trim()) form.value = question;
    retry = answer.fail(err, () => ask(question, { fresh }));
    // The alert box reads the details; the status must not stay on "Buscando…".
    announce("Não foi possível obter a resposta.");
  } finally {
    busy = false;
    form.setBusy(false);
    questions.setDisabled(false);
    $("new-conversation").disabled = false;
    if (retry) retry.focus();
    else if (window.matchMedia("(pointer: coarse)").matches) {
      // Touch: do not bring the on-screen keyboard back over the answer, and show the
      // answer from its start (an alert first), whatever grew above it meanwhile.
      $("answer").scrollIntoView({ block: "start" });
      $("answer-title").focus({ preventScroll: true });
    } else form.focus();
  }
}

// The skip link moves focus without a #fragment navigation (which would add a history
// entry that Back then has to step over).
document.querySelector(".skip-link").addEventListener("click", (event) => {
  event.preventDefault();
  form.focus();
});

// Chips: one listener for all of them (buttons, so Enter and Space click them too).
$("answer-body").addEventListener("click", (event) => {
  const chip = event.target.closest(".chip");
  if (chip) panel.open(chip.dataset.card, chip);
});

for (const button of suggestions.querySelectorAll(".suggestion")) {
  button.addEventListener("click", () => {
    form.value = button.textContent;
    ask(button.textContent);
  });
}

// A reload (or Back-then-Forward) keeps the conversation: show its latest answer again
// (none after "Nova conversa"). A card that was open stays open.
const latest = questions.latest;
if (latest && latest.result && latest.conversation === questions.current) {
  answer.show(latest.question, latest.result);
  suggestions.hidden = true;
}
showConversation();
panel.follow(window.history.state);
// Every listener above is attached: the browser tests wait for this before they type.
document.documentElement.dataset.ready = "true";
