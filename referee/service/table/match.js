// @ts-check
// A match's flow between its games (docs/api.md §15, RULES 14.2): who chooses who plays first in the next
// game, and whether a page waits for it.

/** Whether a finished game's match goes on: then the loser deals the next game, and this page waits for it. */
export const matchGoesOn = (view) => !!view.match && (view.match.winner === null || view.match.winner === undefined);

/**
 * What a finished match game asks of this page: nothing (no match going on, or not a private seat), to
 * wait for the loser's choice, for the computer (the loser) to choose, or for this page (the loser's) to
 * choose who plays first, the loser's own name first.
 * @param {any} view
 * @param {{private: boolean, seat: number, computer: {player: number} | null, holds: (p: number) => boolean}} page
 * @returns {{kind: "none"} | {kind: "wait" | "computer", loser: 0 | 1} | {kind: "choose", loser: 0 | 1, order: number[]}}
 */
export function nextGameChoice(view, page) {
  if (!view.match || !matchGoesOn(view) || !view.result || !page.private) return { kind: "none" };
  const loser = /** @type {0|1} */ (1 - view.result.winner);
  // Only the loser's own page chooses (the dealer's page also keeps the other seat, to hand out its link).
  const computerLost = !!page.computer && page.computer.player === loser;
  if (!(page.seat === loser || computerLost) || !page.holds(loser)) return { kind: "wait", loser };
  if (computerLost) return { kind: "computer", loser };
  return { kind: "choose", loser, order: [loser, 1 - loser] };
}

/** Whether "New game" is offered at a game's end: not beside the loser's choice of who plays first (the
 *  match goes on; leaving it is the other tabs' "New game" or the Deal tab). */
export const offersNewGame = (choice) => choice.kind !== "choose";

/** The match line's words: game, best of, each player's wins. */
export function matchScore(m, names) {
  return { game: m.game, best_of: m.best_of, a: names[0], b: names[1], wa: m.wins[0], wb: m.wins[1] };
}
