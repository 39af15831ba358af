// @ts-check
// A tiny typed client of the referee's API, used by the table page.
// The shapes are those of openapi.yaml, through the TypeScript types generated
// from it (clients/typescript/openapi.d.ts): one source of truth. The types are
// only read by editors and `tsc --checkJs`; the browser runs this file as it is.

/** @typedef {import("../../../clients/typescript/openapi").components["schemas"]} Schemas */
/** @typedef {import("../../../clients/typescript/openapi").operations} Operations */
/** @typedef {Schemas["NewGame"]} NewGame */
/** @typedef {Schemas["State"] | string} State  a plain State, or a private-mode token (docs/api.md §10) */
/** @typedef {Schemas["View"]} View */
/** @typedef {Operations["applyAction"]["responses"]["200"]["content"]["application/json"]["events"][number]} GameEvent  one of the typed events */
/** @typedef {Schemas["Card"]} Card */
/** @typedef {Operations["applyAction"]["requestBody"]["content"]["application/json"]["action"]} Action */
/** @typedef {Operations["legalActions"]["responses"]["200"]["content"]["application/json"]["actions"][number]} ListedAction */
/** @typedef {Schemas["Violation"]} Violation */
/** @typedef {{state: State, events: GameEvent[], seats?: string[], watch?: string, commitment?: string, view?: View}} GameStep */

/** A refused request: `status` and the problem details (`code`, `detail`, and `rule` for a 422). */
export class RefereeError extends Error {
  /** @param {number} status @param {{code?: string, detail?: string, rule?: string, index?: number, violations?: Violation[],
   *  round?: number | null, table?: number | null}} problem */
  constructor(status, problem) {
    super(problem.detail || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }
}

/**
 * A client of the referee at `base` ("" = this page's origin).
 * @param {{base?: string, language?: () => string}} [options]
 */
export function createClient(options = {}) {
  const base = options.base || "";
  const language = options.language || (() => "en");

  /** @param {string} path @param {object} [body] @returns {Promise<any>} */
  async function call(path, body) {
    const init = body === undefined
      ? { headers: { "Accept-Language": language() } }
      : { method: "POST", body: JSON.stringify(body),
          headers: { "Content-Type": "application/json", "Accept-Language": language() } };
    const resp = await fetch(base + path, init);
    const data = await resp.json();
    if (!resp.ok) throw new RefereeError(resp.status, data);
    return data;
  }

  /** A POST whose answer is text (a game record), or a problem (JSON) when refused.
   *  @param {string} path @param {object} body @returns {Promise<string>} */
  async function callText(path, body) {
    const resp = await fetch(base + path, { method: "POST", body: JSON.stringify(body),
      headers: { "Content-Type": "application/json", "Accept-Language": language() } });
    if (!resp.ok) throw new RefereeError(resp.status, await resp.json());
    return resp.text();
  }

  /** @param {object} body @param {string | null | undefined} seat */
  const seated = (body, seat) => (seat ? { ...body, seat } : body);

  return {
    /** @param {NewGame} game @returns {Promise<GameStep>} */
    newGame: (game) => call("/v1/games", game),
    /** @param {State} state @param {Action} action @param {string | null} [seat] @returns {Promise<GameStep>} */
    apply: (state, action, seat) => call("/v1/apply", seated({ state, action }, seat)),
    /** @param {State} state @param {Action} action @param {string | null} [seat]
     *  @returns {Promise<{legal: boolean, violation: Violation | null}>} */
    validate: (state, action, seat) => call("/v1/validate", seated({ state, action }, seat)),
    /** @param {State} state @param {0 | 1 | null} player @param {string | null} [seat]
     *  @returns {Promise<ListedAction[]>} */
    legalActions: async (state, player, seat) => (await call("/v1/legal-actions",
      seated(player === null || seat ? { state, labels: true } : { state, player, labels: true }, seat))).actions,
    /** @param {State} state @param {0 | 1} player @param {string | null} [seat] @returns {Promise<View>} */
    view: async (state, player, seat) => (await call("/v1/view", seated(seat ? { state } : { state, player }, seat))).view,
    /** @param {string} gameId @param {string} seat
     *  @returns {Promise<{state: string, seq: number, view: View, next?: {game_id: string, seat: string}}>} */
    latest: (gameId, seat) => call("/v1/latest", { game_id: gameId, seat }),
    /** One call for a whole line of play (docs/api.md §1): the state after every action, or a 422 with `index`.
     *  @param {{game?: NewGame, state?: State, actions: Action[], seats?: string[], times?: number[]}} body
     *  @returns {Promise<{state: State, applied: number}>} */
    replay: (body) => call("/v1/replay", body),
    /** A game record (docs/api.md §14), as text: whole, or one seat's (`player`).
     *  @param {{game?: NewGame, state?: State, actions: Action[], seats?: string[], player?: 0 | 1 | null}} body
     *  @returns {Promise<string>} */
    record: (body) => callText("/v1/records", body),
    /** A private game's record from its id alone (a referee with a ledger, docs/api.md §14): the moves
     *  recovered from its tokens. Both seats: the whole record once the game is over; one seat: its record.
     *  @param {string} gameId @param {{seats: string[]} | {seat: string}} which
     *  @returns {Promise<string>} */
    gameRecord: (gameId, which) => callText("/v1/records", { game_id: gameId, ...which }),
    /** A record read, not played: its NewGame, actions, times and the line of each (400 `bad_record` with `line`).
     *  @param {string} text
     *  @returns {Promise<{game: NewGame, actions: Action[], times: number[] | null, lines: number[], result: object | null}>} */
    readRecord: (text) => call("/v1/records/read", { record: text }),
    /** A record replayed whole; on a private referee, a finished game's with its deal's token and the replayed
     *  game's seats (docs/api.md §14), to make each position with `replay`.
     *  @param {string} text @returns {Promise<{state: State, applied: number, start?: string, seats?: string[]}>} */
    replayRecord: (text) => call("/v1/replay", { record: text }),
    /** A bot's move for one seat, from that seat's view only (docs/api.md §16).
     *  @param {{state: State, player?: 0 | 1, seat?: string, bot: string, budget_ms: number}} body
     *  @returns {Promise<{action: Action, label?: string}>} */
    suggest: (body) => call("/v1/suggest", body),
    /** Every problem of one deck (a list, a code, ids or counts), in a format or none, and its canonical forms.
     *  @param {{deck: any, format?: any}} body
     *  @returns {Promise<{legal: boolean, violations: (Violation & {line?: number})[],
     *    deck?: {counts: Record<string, number>, list: string | null, code: string | null}}>} */
    validateDeck: (body) => call("/v1/decks/validate", body),
    /** The catalog's formats and their dated revisions (docs/api.md §13).
     *  @returns {Promise<{formats: {id: string, name: string, series: any,
     *    revisions: {from: string, banned?: string[], restricted?: Record<string, number>}[]}[]}>} */
    formats: () => call("/v1/formats"),
    /** A match's next game, dealt from the final state of the one that ended, the loser's choice of who
     *  plays first (docs/api.md §15); private: the loser's seat. Answers as newGame.
     *  @param {{state: State, first_player: 0 | 1, seats?: string[], player?: 0 | 1}} body
     *  @returns {Promise<GameStep>} */
    nextGame: (body) => call("/v1/matches/next", body),
    /** An event's next round (docs/api.md §17): the document with it appended, or `swiss_ended` when only
     *  rematches are left. @param {object} event
     *  @returns {Promise<{event: any, round: number | null, pairings: any[], swiss_ended?: boolean}>} */
    pairEvent: (event) => call("/v1/events/pair", { event }),
    /** @param {object} event @returns {Promise<{standings: any[], ratings: Record<string, {rating: number, rd: number,
     *  volatility: number}>, winner?: string}>} */
    eventStandings: (event) => call("/v1/events/standings", { event }),
    /** Every round checked (RULES 15): `{ok: true}`, or the first rule broken as a 422 with `round` and `table`.
     *  @param {object} event @returns {Promise<{ok: boolean}>} */
    checkEvent: (event) => call("/v1/events/check", { event }),
    /** @returns {Promise<{status: string, ledger: boolean}>} */
    ready: () => call("/readyz"),
    /** @returns {Promise<{catalog: {id: string, digest: string}, cards: Card[]}>} */
    cards: () => call("/v1/cards"),
    /** @returns {Promise<{decks: {name: string, name_ja: string, deck: Schemas["NewGame"]["decks"][number]}[]}>} */
    sampleDecks: () => call("/table/decks.json"),
  };
}
