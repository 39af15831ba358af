// @ts-check
// A private game's links (docs/api.md §11): the game id and one key in the fragment (a browser never sends
// it to a server), and the one-browser invite of a referee without a ledger (the token in the link).

/** What a page's own link carries: its seat and, against the computer, the computer's seat and settings. */
export function ownKeys(seat, computer, computerSeat) {
  const keys = { seat: seat || "" };
  return computer ? { ...keys, cpu: computerSeat || "", bot: computer.bot, budget: String(computer.budget) } : keys;
}

/** A private game's link on `origin`. */
export function linkTo(origin, gameId, keys) {
  return `${origin}/table#${new URLSearchParams({ game: gameId || "", ...keys })}`;
}

/** The no-ledger invite's fragment: the token, the seat, the names and the storage key, base64url. */
export function encodeJoin(join) {
  const json = JSON.stringify(join);
  return btoa(unescape(encodeURIComponent(json))).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

export function decodeJoin(text) {
  const b64 = text.replaceAll("-", "+").replaceAll("_", "/");
  return JSON.parse(decodeURIComponent(escape(atob(b64))));
}

/**
 * What a link's fragment opens: a one-browser invite, a seat (with `cpu`, `bot`, `budget` against the
 * computer), a spectator's watch, or nothing.
 * @param {string} hash
 * @returns {{join: any} | {gameId: string, seat: string | null, watch: string | null,
 *   computer: {bot: string, budget: number, seat: string} | null} | null}
 */
export function parseLink(hash) {
  const m = hash.match(/^#join=(.+)$/);
  if (m) return { join: decodeJoin(m[1]) };
  const params = new URLSearchParams(hash.slice(1));
  const gameId = params.get("game");
  const seat = params.get("seat");
  const watch = params.get("watch");
  if (!gameId || !(seat || watch)) return null;
  const cpu = seat ? params.get("cpu") : null;
  const computer = cpu ? { seat: cpu, bot: params.get("bot") || "greedy", budget: Number(params.get("budget")) || 500 } : null;
  return { gameId, seat, watch: seat ? null : watch, computer };
}
