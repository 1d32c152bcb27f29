// Text helpers shared by the widgets. Lengths count characters as the API does (Unicode
// code points, so an emoji is one character), not UTF-16 units.

export const MAX_QUESTION_CHARS = 2000;

/** The number of characters of a text, counted as the API counts them. */
export function charCount(text) {
  return [...String(text)].length;
}

/** The first `max` characters of a text and "…", or the text itself when it is short. */
export function shorten(text, max) {
  const chars = [...String(text)];
  if (chars.length <= max) return String(text);
  return `${chars.slice(0, max).join("").trimEnd()}…`;
}

/** 2000 -> "2.000" (Brazilian digit grouping). */
export function formatCount(n) {
  return Number(n).toLocaleString("pt-BR");
}

/**
 * A count with its word in the right number: counted(1, "fonte", "fontes") -> "1 fonte",
 * counted(2, ...) -> "2 fontes" (Portuguese uses the plural for zero too). Never "(s)".
 */
export function counted(n, singular, plural) {
  return `${formatCount(n)} ${n === 1 ? singular : plural}`;
}
