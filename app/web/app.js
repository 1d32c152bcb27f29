// Entry point: wires the question box, the answer view, the card panel and the history.

import { askStream, ApiError } from "./api.js";
import { AnswerView } from "./answer.js";
import { CardPanel } from "./card-panel.js";
import { History } from "./history.js";
import { QuestionForm } from "./question-form.js";

const $ = (id) => document.getElementById(id);
const status = $("status");
const suggestions = $("suggestions");

const answer = new AnswerView($("answer"));
const panel = new CardPanel($("card-panel"), {
  onToggle: (open) => $("layout").classList.toggle("layout--panel", open),
});
const form = new QuestionForm($("ask-form"), { onAsk: ask });
const history = new History($("history"), {
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
  form.setBusy(true);
  history.setDisabled(true);
  suggestions.hidden = true;
  answer.start(question);
  announce("Buscando a resposta…");
  let retry = null;
  try {
    const result = await askStream(question, { onDelta: (text) => answer.append(text) });
    answer.finish(result);
    history.add(question, result);
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
    history.add(question, null);
    if (!form.value.trim()) form.value = question;
    retry = answer.fail(err, () => ask(question));
  } finally {
    busy = false;
    form.setBusy(false);
    history.setDisabled(false);
    if (retry) retry.focus();
    else form.focus();
  }
}

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

document.documentElement.classList.add("js");
