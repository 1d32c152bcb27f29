// Entry point: wires the question box, the answer view, the card panel and the history.

import { askStream, ApiError } from "./api.js";
import { AnswerView } from "./answer.js";
import { CardPanel } from "./card-panel.js";
import { QuestionHistory } from "./history.js";
import { QuestionForm } from "./question-form.js";

const $ = (id) => document.getElementById(id);
const status = $("status");
const suggestions = $("suggestions");

const answer = new AnswerView($("answer"), {
  onSuggest(question) {
    form.value = question;
    ask(question);
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

function announce(message) {
  // Clear first so the same message twice is announced twice.
  status.textContent = "";
  window.setTimeout(() => {
    status.textContent = message;
  }, 50);
}

async function ask(question) {
  if (busy) return;
  busy = true;
  suggestions.hidden = true;
  answer.start(question);
  // Disabling the box would drop focus to the page body: keep it on the answer heading,
  // where the answer is about to appear.
  $("answer-title").focus({ preventScroll: true });
  form.setBusy(true);
  questions.setDisabled(true);
  $("answer").scrollIntoView({ block: "nearest" });
  announce("Buscando a resposta…");
  let retry = null;
  try {
    const result = await askStream(question, { onDelta: (text) => answer.append(text) });
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
    retry = answer.fail(err, () => ask(question));
    // The alert box reads the details; the status must not stay on "Buscando…".
    announce("Não foi possível obter a resposta.");
  } finally {
    busy = false;
    form.setBusy(false);
    questions.setDisabled(false);
    if (retry) retry.focus();
    else if (window.matchMedia("(pointer: coarse)").matches) {
      // Touch: do not bring the on-screen keyboard back over the answer.
      $("answer-title").focus();
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

// A reload (or Back-then-Forward) keeps the conversation: show its latest answer again.
// A card that was open stays open.
const latest = questions.latest;
if (latest && latest.result) {
  answer.show(latest.question, latest.result);
  suggestions.hidden = true;
}
panel.follow(window.history.state);
