// What an error means for a patient, in plain Portuguese, one message per error code of
// the API (app/api/errors.py, app/api/security.py) plus the browser's own failures. The
// server's technical text stays available under "Detalhes técnicos", for support staff.

import { el } from "./dom.js";

const AGAIN_SOON = "Tente de novo em alguns instantes.";
const AGAIN_MINUTES = "Tente de novo em alguns minutos.";

const BY_CODE = {
  invalid_request:
    "O serviço não aceitou a pergunta do jeito que ela foi enviada. " +
    "Confira se ela tem entre 1 e 2.000 caracteres e tente de novo.",
  payload_too_large: "A pergunta ficou grande demais para enviar. Encurte o texto e tente de novo.",
  unsupported_media_type:
    "O serviço não entendeu o formato do envio. Recarregue a página e tente de novo.",
  unauthorized:
    "Este serviço pede uma chave de acesso, e a chave deste navegador está faltando ou não vale " +
    "mais. Fale com quem administra o serviço.",
  store_unavailable: `A base de cartões está fora do ar no momento. ${AGAIN_MINUTES}`,
  store_error: `A base de cartões teve um problema ao responder. ${AGAIN_MINUTES}`,
  index_not_ready: `A base de cartões ainda está sendo preparada. ${AGAIN_MINUTES}`,
  not_found: "O serviço não encontrou o que a página pediu. Recarregue a página e tente de novo.",
  internal_error: `Aconteceu um erro inesperado no serviço. ${AGAIN_SOON}`,
};

// A status without a JSON body we know (e.g. a proxy's own HTML error page).
const CODE_OF_STATUS = {
  401: "unauthorized",
  404: "not_found",
  413: "payload_too_large",
  415: "unsupported_media_type",
  422: "invalid_request",
  429: "rate_limited",
  500: "internal_error",
};
const UNREACHABLE = `O serviço está fora do ar ou sobrecarregado no momento. ${AGAIN_MINUTES}`;

const BY_KIND = {
  network:
    "Não foi possível falar com o serviço. Verifique sua conexão com a internet e tente de novo.",
  timeout: `O serviço demorou demais para responder. ${AGAIN_SOON}`,
};

const FALLBACK = `Não foi possível obter a resposta agora. ${AGAIN_SOON}`;

function waitText(seconds) {
  if (!(seconds > 0)) return "Espere um minuto e tente de novo.";
  if (seconds < 60) return `Espere ${seconds} segundo${seconds === 1 ? "" : "s"} e tente de novo.`;
  const minutes = Math.ceil(seconds / 60);
  return `Espere ${minutes} minuto${minutes === 1 ? "" : "s"} e tente de novo.`;
}

/**
 * The plain-Portuguese explanation of an ApiError (or of anything thrown). A caller other
 * than the question box (the feedback buttons) passes its own messages for some codes
 * (`codes`, which win over the general ones) and its own `fallback`.
 */
export function plainMessage(error, { codes = {}, fallback = FALLBACK } = {}) {
  const messages = { ...BY_CODE, ...codes };
  const known = error && error.code && (messages[error.code] || error.code === "rate_limited");
  const code = known ? error.code : error && CODE_OF_STATUS[error.status];
  if (!code && error && [502, 503, 504].includes(error.status)) return UNREACHABLE;
  if (code === "rate_limited") return `Muitas perguntas em pouco tempo. ${waitText(error.retryAfter)}`;
  if (code && messages[code]) return messages[code];
  if (error && BY_KIND[error.kind]) return BY_KIND[error.kind];
  // No code we know: the browser's own description when it has one (a cut stream, an
  // unexpected format), else the generic message.
  if (error && error.kind === "stream" && !error.code && error.message) {
    return `${error.message} ${AGAIN_SOON}`;
  }
  return fallback;
}

/** The technical description, for support staff: status, code and the server's text. */
export function technicalLines(error) {
  const lines = [];
  if (error && error.status) lines.push(`Resposta HTTP (${error.status})`);
  if (error && error.code) lines.push(`Código do erro: ${error.code}`);
  if (error && error.kind === "network") {
    lines.push("Falha de rede: a conexão com o serviço não abriu.");
  }
  if (error && error.kind === "timeout") lines.push("Tempo esgotado esperando o serviço.");
  if (error && error.retryAfter) lines.push(`Retry-After: ${error.retryAfter} s`);
  if (error && error.detail) lines.push(`Mensagem do serviço: ${error.detail}`);
  return lines;
}

/**
 * An error box: a title, the plain message (or `message`), optional actions, and the
 * technical text in a closed <details>. Every piece of text goes in as text.
 */
export function errorNotice(error, { title, message = "", actions = [] }) {
  const lines = technicalLines(error);
  return el(
    "div",
    { class: "notice notice--error", role: "alert" },
    el("p", { class: "notice__title" }, title),
    el("p", { class: "notice__text" }, message || plainMessage(error)),
    actions.length ? el("p", { class: "notice__actions" }, ...actions) : null,
    lines.length
      ? el(
          "details",
          { class: "notice__tech" },
          el("summary", {}, "Detalhes técnicos"),
          ...lines.map((line) => el("p", { class: "notice__server" }, line)),
        )
      : null,
  );
}
