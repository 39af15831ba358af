// @ts-check
// What one table page holds, by concern. `createSession` makes it once (table.js) and hands it to each
// controller as an argument: no module holds it at its top level, so what reads or changes which part
// is in each function's signature. What a mode may do is a table (modes.js), not a branch per mode.

/** @typedef {import("./api.js").State} State */
/** @typedef {import("./api.js").View} View */
/** @typedef {import("./api.js").ListedAction} ListedAction */
/** @typedef {"hot" | "private" | "watch" | "replay"} ModeName */
/** @typedef {ReturnType<typeof import("./api.js").createClient>} Client */
/** @typedef {{player: 0 | 1, bot: string, budget: number}} Computer */
/** @typedef {{state: State, events: number, seat: number, by?: number}} Undo */

/**
 * The game this page's own moves make, written down so its record can be made: hot-seat, the NewGame
 * dealt (its seed filled in); against the computer in private mode, the deal's token (`dealt`), and, in
 * a clocked game, each move's time in ms since the deal (`dealtAt`: the record's `@ms`, docs/records.md).
 * @typedef {{game: any, dealt: string | null, dealtAt: number | null, played: object[], times: number[]}} Moves
 */

/**
 * A private game (docs/api.md §11): the seat keys this tab holds by player, the game's id and the key
 * under which this browser keeps it, whether the referee keeps a ledger (asked once a game is dealt;
 * with one, the invite is a short link that works on any device), and the watch key.
 * @typedef {{seats: (string | null)[] | null, gameId: string | null, gameKey: string,
 *   ledger: boolean | null, watch: string | null}} Seats
 */

/**
 * A line of play opened in the Replay tab: the positions made so far (by index), their events, where
 * the line is refused (its violation), the record's text and lines when it came from one; on a private
 * referee, the replayed game's seats (its positions are tokens, docs/api.md §14).
 * @typedef {{states: any[], events: any[][], actions: any[], failAt: number | null, violation: any,
 *   focus: number | null, index: number, name: string, end: number, game?: any,
 *   record: {text: string, lines: number[], times?: number[] | null} | null, seats?: string[] | null,
 *   views?: Record<string, any>}} Replay
 */

/**
 * @typedef {object} Session
 * @property {"en" | "ja"} lang
 * @property {ModeName} mode
 * @property {Client} api
 * @property {Map<string, any>} catalog the catalog's cards by id
 * @property {{id: string, name: string, revisions: {from: string}[]}[]} formats
 * @property {any[]} sampleDecks
 * @property {State | null} state the position held
 * @property {View | null} view that position as the seat drawn sees it
 * @property {ListedAction[]} actions what that seat may do
 * @property {any[]} events the log
 * @property {number} seat whose view is drawn
 * @property {number | null} curtain hot-seat: between seats, whose turn the curtain names
 * @property {boolean} follow hot-seat: the board turns to whoever must act
 * @property {string | null} selected the card chosen on the board
 * @property {string[]} discarding the end step: the hand cards chosen to discard (RULES 6.6)
 * @property {string | null} note
 * @property {{action: object, state: State} | null} problem a refused action, to word it again
 * @property {string[]} names
 * @property {boolean} busy a request that changes the game is under way
 * @property {boolean} thinking the computer is choosing its move
 * @property {Computer | null} computer
 * @property {Undo[]} history hot-seat: the positions before each move (undo steps back through them)
 * @property {Moves} moves
 * @property {Seats} net
 * @property {Replay | null} replay
 */

/** A page's session, in `lang`, talking to the referee through `api`. */
export function createSession(lang, api) {
  /** @type {Session} */
  const s = {
    lang, mode: "hot", api, catalog: new Map(), formats: [], sampleDecks: [],
    state: null, view: null, actions: [], events: [], seat: 0, curtain: null, follow: true,
    selected: null, discarding: [], note: null, problem: null, names: ["Player 1", "Player 2"],
    busy: false, thinking: false, computer: null, history: [],
    moves: emptyMoves(), net: { seats: null, gameId: null, gameKey: "", ledger: null, watch: null }, replay: null,
  };
  return s;
}

/** @returns {Moves} */
export function emptyMoves() {
  return { game: null, dealt: null, dealtAt: null, played: [], times: [] };
}

/** The key this page acts (or watches) with for `player`: a seat, or null in plain mode. */
export const seatOf = (s, player) => (s.net.seats ? s.net.seats[player] || null : null);

/** The seat key of the seat drawn. */
export const seatKey = (s) => seatOf(s, s.seat);

/** Who must act in `view`: the responder of a pending window, else the active player. */
export const actor = (view) => (view.pending ? view.pending.responder : view.active);
