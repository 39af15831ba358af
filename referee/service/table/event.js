// @ts-check
// The Event tab's decisions that need no browser: an event document from a list of names, a result or a
// drop entered in its last round, the scores a best-of allows (RULES 15.2), a standings row in words.
// The referee pairs and ranks (docs/api.md §17); the page only keeps the document and edits its results.

export const MAX_ID = 64; // a player's id: 1 to 64 characters (docs/api.md §17)

/** The names of a list, one a line, blank lines dropped; the repeated and the too long named as problems.
 *  @param {string} text @returns {{names: string[], repeated: string[], tooLong: string[]}} */
export function readNames(text) {
  const names = [];
  const repeated = [];
  for (const line of text.split(/\r?\n/)) {
    const name = line.trim();
    if (!name) continue;
    if (names.includes(name)) repeated.push(name);
    else names.push(name);
  }
  return { names, repeated, tooLong: names.filter((n) => n.length > MAX_ID) };
}

/** A new event's document, as `referee event new` writes it: each name a player (its id), no round yet.
 *  @param {{names: string[], seed: string, bestOf: number, cut: number, swissRounds?: number | null, name?: string}} o */
export function newEvent(o) {
  /** @type {Record<string, any>} */
  const doc = { seed: o.seed, best_of: o.bestOf, cut: o.cut, players: o.names.map((id) => ({ id })), rounds: [] };
  if (o.name) doc.name = o.name;
  if (o.swissRounds) doc.swiss_rounds = o.swissRounds;
  return doc;
}

/** RULES 15.2: one side won the games a match needs, the other fewer. @param {number[]} games @param {number} bestOf */
export function isMatchScore(games, bestOf) {
  const need = (bestOf + 1) / 2;
  return games.length === 2 && Math.max(...games) === need && Math.min(...games) >= 0 && Math.min(...games) < need;
}

/** Every game score a match of `bestOf` may end with, the first player's wins first (2–0, 2–1, 1–2, 0–2).
 *  @param {number} bestOf @returns {[number, number][]} */
export function matchScores(bestOf) {
  const need = (bestOf + 1) / 2;
  /** @type {[number, number][]} */
  const won = [];
  for (let lost = 0; lost < need; lost++) won.push([need, lost]);
  return [...won, ...won.map(([a, b]) => /** @type {[number, number]} */ ([b, a])).reverse()];
}

/** A result as the value of the page's result menu ("2-1", "forfeit:ID", "" none), and back. */
export function resultKey(result) {
  if (!result) return "";
  return result.forfeit !== undefined ? `forfeit:${result.forfeit}` : result.games.join("-");
}

/** @param {string} key @param {number} bestOf @returns {{games: number[]} | {forfeit: string} | null} */
export function resultFromKey(key, bestOf) {
  if (!key) return null;
  if (key.startsWith("forfeit:")) return { forfeit: key.slice("forfeit:".length) };
  const games = key.split("-").map(Number);
  if (!isMatchScore(games, bestOf)) throw new RangeError(`${key} is not a match score in best of ${bestOf}`);
  return { games };
}

const lastRound = (doc) => doc.rounds[doc.rounds.length - 1];

/** The document with `result` (or none, null) for pairing `index` of its last round; the document is not changed.
 *  Only the last round takes results: the rounds before it were paired from theirs (RULES 15.2). */
export function withResult(doc, index, result) {
  const copy = structuredClone(doc);
  const pairing = lastRound(copy).pairings[index];
  if (!pairing || !pairing.players) throw new RangeError(`no match at pairing ${index + 1} of the last round`);
  if (result && result.games && !isMatchScore(result.games, copy.best_of)) {
    throw new RangeError(`${result.games.join("-")} is not a match score in best of ${copy.best_of}`);
  }
  if (result) pairing.result = result;
  else delete pairing.result;
  return copy;
}

/** The document with `player` leaving after its last round (`drops: true`) or staying (false). */
export function withDrop(doc, player, drops) {
  const copy = structuredClone(doc);
  const round = lastRound(copy);
  const kept = (round.drops || []).filter((p) => p !== player);
  if (drops) kept.push(player);
  if (kept.length) round.drops = kept;
  else delete round.drops;
  return copy;
}

/** Whether every match of the last round has its result (then the next round may be paired, RULES 15.2). */
export function roundComplete(doc) {
  const round = lastRound(doc);
  return !round || round.pairings.every((p) => !p.players || p.result);
}

/** A result in words, the pairing's order kept: "2–1", or "Ren forfeits" through `forfeits`. */
export function resultText(result, forfeits) {
  if (!result) return "";
  return result.forfeit !== undefined ? forfeits(result.forfeit) : result.games.join("–");
}

/** One standings row as the table's cells: rank, player, points, record, OMW, GW, OGW, rating, dropped.
 *  The rates as percentages to 2 decimals (the 4 places the referee answers); the rating ± its RD. */
export function standingCells(row, rating, droppedWord) {
  const pct = (x) => `${(Number(x) * 100).toFixed(2)}%`;
  const rated = rating ? `${Math.round(rating.rating)} ±${Math.round(rating.rd)}` : "";
  return [String(row.rank), row.player, String(row.match_points), row.record, pct(row.omw), pct(row.gw),
    pct(row.ogw), rated, row.dropped ? droppedWord : ""];
}

/** A seed for an event started without one: random, as the Deal tab's. */
export function randomSeed() {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  return `event-${[...bytes].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}
