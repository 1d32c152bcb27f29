// "Detalhes técnicos": how an answer was made, for support staff, in plain Portuguese.
// It reads the fields of today's AskResponse and, when the response has them, the
// contract's newer ones (decision, topic, uncovered_terms, answer_id); any of them may be
// missing or malformed without breaking the answer.

import { el } from "./dom.js";

const GENERATORS = {
  extractive: "frases copiadas dos cartões, sem reescrever",
  "extractive-fallback": "frases copiadas dos cartões (o modelo de linguagem falhou desta vez)",
  openai: "texto escrito por um modelo de linguagem a partir dos cartões e conferido com eles",
  none: "nenhuma: sem cartão que responda, o serviço mostrou a resposta padrão",
};

const OUTCOMES = {
  answer: "respondida com os cartões",
  not_covered: "fora do que os cartões cobrem",
  emergency: "alerta de emergência",
};

const decimal = new Intl.NumberFormat("pt-BR", { maximumFractionDigits: 2, minimumFractionDigits: 2 });
const plainNumber = new Intl.NumberFormat("pt-BR", { maximumFractionDigits: 3 });

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/** The response's decision object when it has a usable one, else null. */
export function decisionOf(result) {
  return isObject(result.decision) ? result.decision : null;
}

function signalValue(value) {
  if (typeof value === "boolean") return value ? "sim" : "não";
  if (typeof value === "number") return plainNumber.format(value);
  if (Array.isArray(value)) return value.map(String).join(", ") || "nenhum";
  return String(value);
}

function signalsList(signals) {
  const entries = isObject(signals) ? Object.entries(signals) : [];
  if (!entries.length) return null;
  return el(
    "ul",
    { class: "details__signals" },
    ...entries.map(([name, value]) => el("li", {}, `${name}: ${signalValue(value)}`)),
  );
}

/** The <details> element for one answer. */
export function technicalDetails(result) {
  const list = el("dl", { class: "details__list" });
  const row = (term, value) => list.append(el("dt", {}, term), el("dd", {}, value));

  const generator = String(result.generator ?? "");
  const how = GENERATORS[generator] || `outro método (${generator || "não informado"})`;
  row("Como a resposta foi montada", how);

  const decision = decisionOf(result);
  if (decision) {
    const outcome = String(decision.outcome ?? "");
    row("Decisão", OUTCOMES[outcome] || outcome || "não informada");
    if (decision.reason) row("Motivo", String(decision.reason));
    const signals = signalsList(decision.signals);
    if (signals) row("Sinais usados na decisão", signals);
  }
  if (typeof result.topic === "string" && result.topic) row("Assunto assumido", result.topic);
  const uncovered = Array.isArray(result.uncovered_terms) ? result.uncovered_terms.map(String) : [];
  if (uncovered.length) row("Termos sem cartão na base", uncovered.join(", "));

  const retrieval = (Array.isArray(result.retrieval) ? result.retrieval : [])
    .map((r) => `${r.id} (${decimal.format(Number(r.score))})`)
    .join(", ");
  row("Cartões consultados (semelhança com a pergunta)", retrieval || "nenhum");
  const warnings = Array.isArray(result.citation_warnings) ? result.citation_warnings : [];
  if (warnings.length) row("Avisos sobre as citações", warnings.map(String).join("; "));
  if (typeof result.answer_id === "string" && result.answer_id) {
    row("Identificador da resposta", result.answer_id);
  }
  return el(
    "details",
    { class: "details" },
    el("summary", {}, "Detalhes técnicos (para a equipe de suporte)"),
    list,
  );
}
