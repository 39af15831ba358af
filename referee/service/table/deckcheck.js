// @ts-check
// The deal form's decks in words, without the page: what a deck box's text sends, the format chosen,
// and a refusal's problems by line, in line order.

/** A deck box's text as the deal sends it: JSON ids or counts when it reads as JSON, else the text itself
 *  (a deck list or a deck code, read by the referee, docs/api.md §13). Throws on bad JSON. */
export function deckFromText(text) {
  if (!/^\s*[[{]/.test(text)) return text.trim();
  return JSON.parse(text);
}

/** The format chosen: null, an id (its latest revision) or {id, date} (the revision in force that day). */
export function formatFromChoice(value) {
  if (!value) return null;
  const [id, date] = value.split("@");
  return date ? { id, date } : id;
}

/** A deck the referee could not read: each bad line (`errors` keyed `….line.N`; in a NewGame's answer
 *  `decks.P.line.N`, `prefix` picks the player's) with its messages, in line order. */
export function refusalLines(errors, prefix = "") {
  const lines = [];
  for (const [key, messages] of Object.entries(errors || {})) {
    const m = key.startsWith(prefix) ? key.match(/line\.(\d+)$/) : null;
    if (m) lines.push(/** @type {[number, string]} */ ([Number(m[1]), [messages].flat().join(" ")]));
  }
  return lines.sort((a, b) => a[0] - b[0]);
}

/** A deck's violations in line order (the deck's own lines first, by number; those of no line after,
 *  in the order the referee gave them). */
export function problemsByLine(violations) {
  return violations.map((v, i) => ({ v, i }))
    .sort((a, b) => (a.v.line ?? Infinity) - (b.v.line ?? Infinity) || a.i - b.i).map(({ v }) => v);
}

/** The sample decks legal in `format` (by their `formats` list; a sample without one is legal everywhere). */
export const samplesFor = (decks, format) => decks.filter((d) => !format || !d.formats || d.formats.includes(format));
