// @ts-check
// What each of the page's modes may do, as one table: hot-seat (both players at this screen), a private
// seat (one seat per device, moves final), a spectator following a private game, a replayed line.
// The controllers ask `MODES[s.mode]` instead of naming modes, so a mode's abilities are read in one place.

/**
 * @typedef {object} Mode
 * @property {boolean} acts the page asks for the seat's legal actions and offers them
 * @property {boolean} allActions every listed action is offered (a private seat's listing is its own),
 *   not only those of the seat drawn (hot-seat lists both players')
 * @property {boolean} switchesSeat the seat bar switches whose view is drawn
 * @property {boolean} turnsToActor hot-seat: the board turns (behind a curtain) to whoever must act
 * @property {boolean} undoes a move can be taken back (a plain state is a value; a private move is final)
 * @property {boolean} namesFromView the players' names come from the view (the referee keeps them)
 * @property {boolean} live the game's clock runs on the referee while this page shows it
 * @property {boolean} keepsLocally the game is kept in this browser's storage by its game key
 * @property {boolean} seatedClocks the clocks are ordered from the seat drawn (else player 2 above)
 * @property {boolean} showsOnly a card click shows its text; nothing is acted on
 */

/** @type {Record<import("./session.js").ModeName, Mode>} */
export const MODES = {
  hot: { acts: true, allActions: false, switchesSeat: true, turnsToActor: true, undoes: true,
    namesFromView: false, live: false, keepsLocally: false, seatedClocks: true, showsOnly: false },
  private: { acts: true, allActions: true, switchesSeat: false, turnsToActor: false, undoes: false,
    namesFromView: true, live: true, keepsLocally: true, seatedClocks: true, showsOnly: false },
  watch: { acts: false, allActions: false, switchesSeat: false, turnsToActor: false, undoes: false,
    namesFromView: true, live: true, keepsLocally: false, seatedClocks: false, showsOnly: false },
  replay: { acts: false, allActions: false, switchesSeat: true, turnsToActor: false, undoes: false,
    namesFromView: false, live: false, keepsLocally: false, seatedClocks: false, showsOnly: true },
};

/** The mode the session is in. @param {{mode: import("./session.js").ModeName}} s */
export const mode = (s) => MODES[s.mode];

/** The actions offered to the seat drawn, from the referee's listing for that seat. */
export function offered(s, listed) {
  return mode(s).allActions ? listed : listed.filter((a) => a.player === s.seat);
}

/** Whether this page made (and kept) every move of its game: hot-seat, or a private game against the
 *  computer; only then can it write the game's record. Two devices each know their own moves only. */
export function knowsEveryMove(s) {
  return (s.mode === "hot" && !!s.moves.game) || (s.mode === "private" && !!s.computer && !!s.moves.dealt);
}

/** A private game on two devices: this page knows its own moves only; the referee's ledger keeps the game's
 *  every token, so the record is written from them (POST /v1/records with the game id, docs/records.md). */
export function ledgerKeepsTheGame(s) {
  const seat = s.net.seats ? s.net.seats[s.seat] : null;
  return s.mode === "private" && !knowsEveryMove(s) && !!s.net.ledger && !!s.net.gameId && !!seat;
}
