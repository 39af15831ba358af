// @ts-check
// What a move changes on the page, apart from drawing: the moves kept for the record, hot-seat's undo
// history, and the choices made on the board before it (selection, cards to discard, the note).

/** @typedef {import("./session.js").Session} Session */
/** @typedef {import("./session.js").Undo} Undo */

/**
 * Keep a move made by this page: by its number (`seq`, one more a move since the deal), not appended, so
 * that a move the ledger answers as already recorded (the same action sent again) takes its own place,
 * never a second one; in a clocked game with its time since the deal (`since` is when the referee recorded it).
 * @param {import("./session.js").Moves} moves
 * @param {{state: any, view?: any}} step the referee's answer
 * @param {object} action
 */
export function keepMove(moves, step, action) {
  const seq = /** @type {number} */ ((step.view ?? step.state).seq ?? moves.played.length + 1);
  moves.played.length = seq - 1;
  moves.played.push(action);
  if (moves.dealtAt !== null && step.view && step.view.clock) {
    moves.times.length = seq - 1;
    moves.times.push(Date.parse(step.view.clock.since) - moves.dealtAt);
  }
}

/** The board's choices end with a move (or a state taken from elsewhere). @param {Session} s */
export function clearChoices(s) {
  s.selected = null;
  s.discarding = [];
}

/**
 * Hot-seat undo: the position to go back to, popping the history (and the moves kept): the last move, and
 * against the computer, back to the player's own last move (the computer's replies with it).
 * @param {Undo[]} history
 * @param {object[]} played
 * @param {{player: number} | null} computer
 * @returns {Undo | null}
 */
export function undoTo(history, played, computer) {
  let last = history.pop();
  if (!last) return null;
  played.pop();
  while (computer && last.by === computer.player && history.length) {
    last = /** @type {Undo} */ (history.pop());
    played.pop();
  }
  return last;
}

/** The end step: a tap on a hand card chooses it (or unchooses it); the last `need` chosen count. */
export function toggleDiscard(discarding, iid, need) {
  return discarding.includes(iid) ? discarding.filter((c) => c !== iid) : [...discarding, iid].slice(-need);
}
