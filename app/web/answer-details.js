// "Detalhes técnicos": how an answer was made, for support staff, in plain Portuguese:
// how the text was put together, the decision and why, the cards consulted (with their
// titles, highest similarity first) and the few signals worth reading, each named in
// Portuguese. Nothing goes on screen as the service named it (no English key, no raw
// object): a signal or a warning the page does not know is counted, not printed. It reads
// the fields of today's AskResponse; any of them may be missing or malformed without
// breaking the answer.

import { getCard } from "./api.js";
import { el } from "./dom.js";
import { counted } from "./text.js";

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

// The label of the decision's reason, by outcome.
const WHY = {
  answer: "Por que foi respondida",
  not_covered: "Por que não foi respondida",
  emergency: "Por que houve o alerta",
};

const EMERGENCY_KINDS = {
  medical: "emergência médica",
  poisoning: "intoxicação",
  self_harm: "risco de se machucar",
};

// The service's citation warnings (app/agent/citations.py, nodes.py), in Portuguese.
const WARNINGS = [
  [
    /^removed citation \[cite:(\S+)\]: not one of the retrieved cards$/,
    (id) => `citação de ${id} retirada: não é um dos cartões consultados`,
  ],
  [
    /^ignored cited id '([^']+)' in the structured answer: not retrieved$/,
    (id) => `o modelo indicou ${id}, que não foi consultado: ignorado`,
  ],
  [
    /^(\S+) listed as a citation but not cited in the text; not shown$/,
    (id) => `${id} indicado como fonte, mas não citado no texto: não mostrado`,
  ],
  [/^no verified citation left: answer refused$/, () => "nenhuma citação conferida: resposta recusada"],
];

const decimal = new Intl.NumberFormat("pt-BR", { maximumFractionDigits: 2, minimumFractionDigits: 2 });
const percent = new Intl.NumberFormat("pt-BR", { style: "percent", maximumFractionDigits: 0 });

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const isNumber = (v) => typeof v === "number" && Number.isFinite(v);

/** The response's decision object when it has a usable one, else null. */
export function decisionOf(result) {
  return isObject(result.decision) ? result.decision : null;
}

/** The emergency reading of the signals, in words ("emergência médica 94%"), or null. */
function emergencyReading(reading) {
  if (!isObject(reading)) return null;
  if (isObject(reading.p)) {
    const kinds = Object.entries(EMERGENCY_KINDS)
      .filter(([kind]) => isNumber(reading.p[kind]))
      .map(([kind, name]) => `${name} ${percent.format(reading.p[kind])}`);
    if (kinds.length) return `chance de emergência: ${kinds.join(", ")}`;
  }
  const concepts = Array.isArray(reading.concepts) ? reading.concepts.length : 0;
  return concepts
    ? `sinais de emergência na pergunta: ${concepts}`
    : "nenhum sinal de emergência na pergunta";
}

// The signals worth reading, each as a Portuguese sentence; `used` lists the keys read.
const SIGNALS = [
  {
    keys: ["p_covered", "threshold"],
    text: (s) =>
      isNumber(s.p_covered)
        ? `chance de os cartões cobrirem a pergunta: ${percent.format(s.p_covered)}` +
          (isNumber(s.threshold) ? ` (mínimo para responder: ${percent.format(s.threshold)})` : "")
        : null,
  },
  {
    keys: ["top_sim"],
    text: (s) =>
      isNumber(s.top_sim) ? `semelhança do cartão mais próximo, na decisão: ${decimal.format(s.top_sim)}` : null,
  },
  {
    keys: ["names"],
    text: (s) =>
      Array.isArray(s.names)
        ? `medicamentos reconhecidos na pergunta: ${s.names.map(String).join(", ") || "nenhum"}`
        : null,
  },
  {
    keys: ["uncovered_aspect"],
    text: (s) => (s.uncovered_aspect === true ? "a pergunta trata de algo que os cartões não cobrem" : null),
  },
  { keys: ["emergency"], text: (s) => emergencyReading(s.emergency) },
];

function signalsList(signals) {
  if (!isObject(signals)) return null;
  const read = new Set();
  const lines = [];
  for (const signal of SIGNALS) {
    const line = signal.text(signals);
    if (!line) continue;
    lines.push(line);
    for (const key of signal.keys) read.add(key);
  }
  const others = Object.keys(signals).filter((k) => !read.has(k)).length;
  if (others) {
    lines.push(
      others === 1
        ? "mais 1 sinal interno, não mostrado aqui (está na resposta da API)"
        : `mais ${counted(others, "sinal interno", "sinais internos")}, não mostrados aqui ` +
          "(estão na resposta da API)",
    );
  }
  if (!lines.length) return null;
  return el("ul", { class: "details__signals" }, ...lines.map((line) => el("li", {}, line)));
}

/** The citation warnings in Portuguese; the ones the page does not know are counted. */
function warningsText(warnings) {
  const lines = [];
  let unknown = 0;
  for (const warning of warnings.map(String)) {
    const known = WARNINGS.find(([pattern]) => pattern.test(warning));
    if (known) lines.push(known[1](...warning.match(known[0]).slice(1)));
    else unknown += 1;
  }
  if (unknown) {
    lines.push(
      unknown === 1
        ? "1 outro aviso, não mostrado aqui (está na resposta da API)"
        : `${counted(unknown, "outro aviso", "outros avisos")}, não mostrados aqui ` +
          "(estão na resposta da API)",
    );
  }
  return lines.join("; ");
}

/**
 * The cards consulted, highest similarity first: title (id), similarity, and whether the
 * answer cites it. A title the response does not carry is fetched when the details open.
 */
function cardsList(result) {
  const titles = new Map();
  for (const list of [result.suggestions, result.citations]) {
    for (const c of Array.isArray(list) ? list : []) {
      if (isObject(c) && typeof c.id === "string" && typeof c.title === "string" && c.title) {
        titles.set(c.id, c.title);
      }
    }
  }
  const cited = new Set(
    (Array.isArray(result.citations) ? result.citations : []).map((c) => isObject(c) && c.id),
  );
  const cards = (Array.isArray(result.retrieval) ? result.retrieval : [])
    .filter((r) => isObject(r) && typeof r.id === "string" && r.id)
    .map((r) => ({ id: r.id, score: Number(r.score) }))
    .sort((a, b) => (isNumber(b.score) ? b.score : -Infinity) - (isNumber(a.score) ? a.score : -Infinity));
  if (!cards.length) return { list: "nenhum", load: () => {} };
  const pending = [];
  const list = el(
    "ol",
    { class: "details__cards" },
    ...cards.map((card) => {
      const title = el(
        "span",
        { class: "details__card-title" },
        titles.get(card.id) || "carregando o título…",
      );
      if (!titles.has(card.id)) pending.push([card.id, title]);
      return el(
        "li",
        { "data-card": card.id },
        title,
        ` (${card.id})`,
        isNumber(card.score) ? `: semelhança ${decimal.format(card.score)}` : "",
        cited.has(card.id) ? "; citado na resposta" : "",
      );
    }),
  );
  let loaded = false;
  const load = () => {
    if (loaded) return;
    loaded = true;
    for (const [id, node] of pending) {
      getCard(id).then(
        (card) => {
          node.textContent = typeof card.title === "string" && card.title ? card.title : "sem título";
        },
        () => {
          node.textContent = "título indisponível";
        },
      );
    }
  };
  return { list, load };
}

/** The <details> element for one answer. */
export function technicalDetails(result) {
  const list = el("dl", { class: "details__list" });
  const row = (term, value) => list.append(el("dt", {}, term), el("dd", {}, value));

  const generator = String(result.generator ?? "");
  const how = GENERATORS[generator] || "outro método, não descrito aqui";
  row("Como a resposta foi montada", how);

  const decision = decisionOf(result);
  if (decision) {
    const outcome = String(decision.outcome ?? "");
    row("Decisão", OUTCOMES[outcome] || "não informada");
    if (decision.reason) row(WHY[outcome] || "Motivo da decisão", String(decision.reason));
    const signals = signalsList(decision.signals);
    if (signals) row("O que pesou na decisão", signals);
  }
  if (typeof result.topic === "string" && result.topic) row("Assunto assumido", result.topic);
  const uncovered = Array.isArray(result.uncovered_terms) ? result.uncovered_terms.map(String) : [];
  if (uncovered.length) row("Termos sem cartão na base", uncovered.join(", "));

  const cards = cardsList(result);
  row("Cartões consultados (o mais semelhante à pergunta primeiro)", cards.list);
  const warnings = Array.isArray(result.citation_warnings) ? result.citation_warnings : [];
  if (warnings.length) row("Avisos sobre as citações", warningsText(warnings));
  if (typeof result.answer_id === "string" && result.answer_id) {
    row("Identificador da resposta", result.answer_id);
  }
  const details = el(
    "details",
    { class: "details" },
    el("summary", {}, "Detalhes técnicos (para a equipe de suporte)"),
    list,
  );
  details.addEventListener("toggle", () => {
    if (details.open) cards.load();
  });
  return details;
}
