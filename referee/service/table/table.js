// @ts-check
// The table page: deal, play (hot-seat, a private seat, against the computer), watch and replay,
// all through the API, on one board for everyone. The page never reads a plain state: every
// picture is drawn from a view for one seat (/v1/view, or /v1/latest's view when following a
// private game), and the actions offered are /v1/legal-actions for that seat, labelled by the referee.

import { RefereeError, createClient } from "./api.js";
import { cardFrame, cardName, cardWords, drawBoard, drawStatus, h } from "./board.js";
import { changesBetween } from "./changes.js";
import { actionName, eventText, t } from "./i18n.js";

/** @typedef {import("./api.js").State} State */
/** @typedef {import("./api.js").View} View */
/** @typedef {import("./api.js").ListedAction} ListedAction */

const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

const S = {
  lang: localStorage.getItem("af-table-lang") === "ja" ? "ja" : "en",
  mode: "hot", // hot | private | watch | replay
  /** @type {State | null} */ state: null,
  /** @type {string[] | null} */ seats: null, // private mode: the seat keys this tab holds, by player
  seat: 0, // whose view is drawn
  follow: true,
  curtain: /** @type {number | null} */ (null),
  /** @type {View | null} */ view: null,
  /** @type {ListedAction[]} */ actions: [],
  /** @type {object[]} */ events: [],
  selected: /** @type {string | null} */ (null),
  problem: /** @type {{action: object, state: State} | null} */ (null),
  names: ["Player 1", "Player 2"],
  gameKey: "",
  busy: false,
  replay: /** @type {any} */ (null),
  // Hot-seat: the NewGame dealt (its seed filled in), the actions applied since, and the positions
  // before each of them (undo steps back through these; a plain state is a value).
  game: /** @type {any} */ (null),
  /** @type {object[]} */ played: [],
  /** @type {{state: State, events: number, seat: number}[]} */ history: [],
  note: /** @type {string | null} */ (null),
  /** @type {string[]} */ discarding: [], // the end step: the hand cards chosen to discard (RULES 6.6)
  // Private mode: whether the referee keeps a ledger (docs/api.md §11), asked once a game is
  // dealt; with one, the invite is a short link (game id and seat) that works on any device.
  ledger: /** @type {boolean | null} */ (null),
  watch: /** @type {string | null} */ (null),
  gameId: /** @type {string | null} */ (null), // private mode: the game's id (every private view carries it)
  // Against the computer: the seat it plays, which bot, its budget per move (docs/api.md §16).
  computer: /** @type {{player: 0 | 1, bot: string, budget: number} | null} */ (null),
  thinking: false,
  // Private mode, where this page makes every move (against the computer): the deal's token, from which
  // the record is written (POST /v1/records with both seats and S.played).
  dealt: /** @type {string | null} */ (null),
  // ... and, in a clocked game, each move's time in ms since the deal (the record's `@ms`, docs/records.md),
  // read from the view's clock after each move (`since` is when the referee recorded it).
  dealtAt: /** @type {number | null} */ (null),
  /** @type {number[]} */ times: [],
};

const HOT_KEY = "af-table-hot"; // the hot-seat game in this browser's storage: it survives a reload
const HISTORY_KEPT = 60; // positions kept for undo across a reload (storage is a few MiB)

const api = createClient({ language: () => S.lang });
const catalog = new Map();

// -- helpers -----------------------------------------------------------------

const seatKey = () => (S.seats ? S.seats[S.seat] || null : null);
/** The key this page acts (or watches) with for `player`: a seat, or null in plain mode. */
const seatOf = (player) => (S.seats ? S.seats[player] || null : null);
const PRIVATE_KEY = "af-table-private"; // the private game this browser last played: its link (fragment)
const POLL_MS = 500; // following a private game: how often to ask for the latest state while someone plays
const POLL_IDLE_MS = 3000; // ... after a minute without a move, or while the page is hidden
const actor = (view) => (view.pending ? view.pending.responder : view.active);
const nameOf = (iid, cid) => cardName(S.view, catalog, iid, S.lang, cid);

function showProblem(text, rule) {
  const box = $("problem");
  box.replaceChildren(...(rule ? [h("strong.rule", {}, `${t(S.lang, "rule")} ${rule}`), " "] : []), text);
  box.hidden = false;
}

function clearProblem() {
  S.problem = null;
  $("problem").hidden = true;
}

/** A refused request in words: rule and detail for a 422, code and detail otherwise. */
function describeError(err) {
  if (err instanceof RefereeError) {
    const p = err.problem;
    return { rule: p.rule, text: `${p.code ? `${p.code}: ` : ""}${p.detail || ""}` };
  }
  return { rule: undefined, text: String(err && err.message ? err.message : err) };
}

function translatePage() {
  document.documentElement.lang = S.lang;
  for (const el of document.querySelectorAll("[data-t]")) {
    el.textContent = t(S.lang, /** @type {HTMLElement} */ (el).dataset.t || "");
  }
  for (const b of document.querySelectorAll("[data-lang]")) {
    b.classList.toggle("active", /** @type {HTMLElement} */ (b).dataset.lang === S.lang);
  }
}

function showTab(name) {
  for (const tab of ["deal", "play", "replay"]) {
    $(tab).hidden = tab !== name && !(name === "replay-board" && tab === "play");
    $(`tab-${tab}`).classList.toggle("active", tab === name || (name === "replay-board" && tab === "replay"));
  }
  if (name === "replay-board") $("replay").hidden = true;
}

// -- drawing -------------------------------------------------------------------

/** Draw the state held from one seat's view: `known` is a view already at hand (/v1/latest's). */
async function refresh(known) {
  if (S.state === null) return;
  const state = S.state;
  const seat = S.mode === "watch" ? S.watch : seatKey();
  const [view, actions] = await Promise.all([
    known ? Promise.resolve(known) : api.view(state, /** @type {0|1} */ (S.seat), seat),
    S.mode === "replay" || S.mode === "watch" ? Promise.resolve([])
      : api.legalActions(state, /** @type {0|1} */ (S.seat), seat),
  ]);
  if (S.state !== state) return; // a newer state arrived meanwhile
  S.view = view;
  if (S.mode === "private" || S.mode === "watch") {
    S.names = view.players.map((pl, p) => pl.name || t(S.lang, p ? "player_2" : "player_1"));
  }
  S.actions = S.mode === "private" ? actions : actions.filter((a) => a.player === S.seat);
  if (S.mode === "hot" && !S.computer && S.follow && view.phase !== "over" && actor(view) !== S.seat) {
    S.seat = actor(view);
    S.curtain = S.seat;
    S.view = null;
    draw();
    return;
  }
  draw();
  if (S.computer && view.phase !== "over" && actor(view) === S.computer.player) setTimeout(computerMove, 0);
}

let generation = 0;

function draw() {
  document.body.dataset.gen = String(++generation); // tests wait for the next drawing
  translatePage();
  drawSeatBar();
  drawSideTools();
  const board = $("board");
  const curtain = $("curtain");
  if (S.curtain !== null) {
    // Between seats, neither hand is in the page: the board is emptied, not covered.
    board.replaceChildren();
    $("actions").replaceChildren();
    $("log").replaceChildren();
    $("status").replaceChildren();
    $("curtain-text").textContent = t(S.lang, "curtain", { name: S.names[S.curtain] });
    $("curtain-go").textContent = t(S.lang, "curtain_go", { name: S.names[S.curtain] });
    curtain.hidden = false;
    return;
  }
  curtain.hidden = true;
  const view = S.view;
  if (!view) return;
  drawStatus($("status"), view, catalog, S.lang, S.names);
  drawBoard(board, view, catalog, S.lang, S.names, openTrash);
  for (const el of board.querySelectorAll(".card[data-iid]")) {
    const iid = /** @type {HTMLElement} */ (el).dataset.iid;
    if (!iid) continue;
    el.addEventListener("click", () => clickCard(iid));
    el.addEventListener("keydown", (e) => {
      const key = /** @type {KeyboardEvent} */ (e).key;
      if (key === "Enter" || key === " ") {
        e.preventDefault();
        clickCard(iid);
      }
    });
  }
  drawActions();
  drawLog();
  markCards();
}

function drawSeatBar() {
  const bar = $("seat-bar");
  if (S.mode === "watch") {
    bar.replaceChildren(h("p.private-note", {}, t(S.lang, "watching")));
    return;
  }
  if (S.mode === "replay" || S.mode === "hot") {
    const seats = S.computer ? [] : [0, 1];
    const buttons = seats.map((p) => h("button.seat" + (S.seat === p ? ".active" : ""),
      { dataset: { seat: String(p) }, onclick: () => switchSeat(p) }, S.names[p]));
    const follow = S.mode === "hot" && !S.computer
      ? h("label.follow", {}, h("input", { type: "checkbox", id: "follow", checked: S.follow,
          onchange: (e) => { S.follow = e.target.checked; } }), " ", t(S.lang, "follow"))
      : null;
    const tools = S.mode === "hot" ? h("div.tools", {},
      h("button#undo.tool", { onclick: undo, disabled: !S.history.length, title: t(S.lang, "undo_hint") },
        `↶ ${t(S.lang, "undo")}`), h("span.tool-note", {}, t(S.lang, "undo_note"))) : null;
    const label = S.computer ? computerLine() : `${t(S.lang, "seat")} (${t(S.lang, S.mode === "hot" ? "hot_seat" : "tab_replay")}):`;
    bar.replaceChildren(h("span.seat-label", {}, label), ...buttons, ...(follow ? [follow] : []), ...(tools ? [tools] : []));
    return;
  }
  // Private mode: said once (which seat, and that moves are final), then the links.
  const parts = [h("p#private-note.private-note", {}, t(S.lang, "private_mode", { name: S.names[S.seat] }), " ",
    t(S.lang, "final_moves"), S.computer ? ` ${computerLine()}` : "")];
  const other = S.seats && S.seats.length === 2 && !S.computer ? S.seats[1 - S.seat] : null;
  if (S.ledger && S.gameId) {
    const links = [[t(S.lang, "your_link"), linkTo(ownKeys()), "own-link"]];
    if (other) links.push([t(S.lang, "invite_device", { name: S.names[1 - S.seat] }), linkTo({ seat: other }), "invite-link"]);
    if (S.watch) links.push([t(S.lang, "watch_link"), linkTo({ watch: S.watch }), "watch-link"]);
    // Folded once the game is under way: the links are for the start (and a reload shows them again).
    parts.push(h("details.links", { open: (S.view?.seq ?? 0) < 2 ? true : undefined },
      h("summary", {}, t(S.lang, "links")),
      h("ul", {}, ...links.map(([text, href, id]) => h("li", {}, h(`a#${id}`, { href, target: "_blank", rel: "noopener" }, text),
        " ", h("button.tool.copy", { type: "button", "aria-label": `${t(S.lang, "copy")}: ${text}`,
          onclick: () => navigator.clipboard?.writeText(href) }, t(S.lang, "copy")))))));
  } else if (other && S.ledger === false) {
    const link = `${location.origin}/table#join=${encodeJoin(S.state, other)}`;
    parts.push(h("p.invite", {}, t(S.lang, "invite", { name: S.names[1 - S.seat] }), " ",
      h("a#invite-link", { href: link, target: "_blank", rel: "noopener" }, link.slice(0, 48) + "…")));
    parts.push(h("p#no-ledger.private-note", {}, t(S.lang, "no_ledger")));
  }
  bar.replaceChildren(...parts);
}

/** Beside the board: the game's download where this page knows every move, a replayed record's lines. */
function drawSideTools() {
  const parts = [];
  const view = S.curtain === null ? S.view : null;
  if (view && view.clock) parts.push(clockBox(view));
  if (view && view.match) parts.push(matchLine(view));
  if (view && view.format) {
    const name = formats.find((f) => f.id === view.format.id)?.name || view.format.id;
    parts.push(h("p#format-line.format-line", {}, t(S.lang, "format_of_game", { name, revision: view.format.revision })));
  }
  if (knowsEveryMove() || ledgerKeepsTheGame()) {
    const note = S.mode === "hot" ? "download_hot" : knowsEveryMove() ? "download_seat" : "download_ledger";
    parts.push(h("div.tools.download", {}, h("button#download.tool", { type: "button", onclick: download },
      `⤓ ${t(S.lang, "download")}`), h("span.tool-note", {}, t(S.lang, note))));
  }
  if (S.mode === "replay" && S.replay && S.replay.record) parts.push(recordListing(S.replay));
  $("side-tools").replaceChildren(...parts);
  const current = document.querySelector("#record-lines li.current");
  if (current) { // the position's line in the middle of the listing (the listing scrolls, not the page)
    const list = /** @type {HTMLElement} */ ($("record-lines"));
    list.scrollTop = /** @type {HTMLElement} */ (current).offsetTop - list.clientHeight / 2;
  }
}

// -- clocks and matches (docs/api.md §15) --------------------------------------------------------

/** A player's time left: the view's `remaining`, less the time since `since` for the player whose time
 *  runs (counted here, between positions, without asking the referee; the referee's own clock decides). */
function timeLeft(clock, p, live) {
  const running = live && clock.running === p ? Math.max(0, Date.now() - Date.parse(clock.since)) : 0;
  return Math.max(0, clock.remaining[p] - running);
}

function clockText(ms) {
  const s = Math.ceil(ms / 1000);
  const hms = [Math.floor(s / 3600), Math.floor(s / 60) % 60, s % 60];
  return hms[0] ? `${hms[0]}:${String(hms[1]).padStart(2, "0")}:${String(hms[2]).padStart(2, "0")}`
    : `${hms[1]}:${String(hms[2]).padStart(2, "0")}`;
}

const clocksLive = () => (S.mode === "private" || S.mode === "watch") && !!S.view && S.view.phase !== "over";

/** Both clocks, the opponent's above as on the board, and the claim where the referee lists it. */
function clockBox(view) {
  const order = S.mode === "watch" || S.mode === "replay" ? [1, 0] : [1 - S.seat, S.seat];
  const claim = S.actions.find((a) => a.type === "claim_time");
  return h("section#clocks.clocks", { "aria-label": t(S.lang, "clocks") },
    ...order.map((p) => h(`div.clock${view.clock.running === p && clocksLive() ? ".running" : ""}`,
      { dataset: { player: String(p) } },
      h("span.clock-name", {}, S.names[p]), " ",
      h("span.clock-time", { role: "timer", "aria-label": `${S.names[p]}` }, clockText(timeLeft(view.clock, p, clocksLive()))),
      h("span.clock-out", {}, ` ${t(S.lang, "time_out")}`))),
    claim ? h("button#claim.action.claim", { type: "button", onclick: () => act(claim) },
      t(S.lang, "claim", { name: S.names[1 - claim.player] })) : null);
}

function matchLine(view) {
  const m = view.match;
  const text = t(S.lang, "match_score", { game: m.game, best_of: m.best_of, a: S.names[0], b: S.names[1], wa: m.wins[0], wb: m.wins[1] });
  return h("p#match-line.match-line", {}, text,
    m.winner !== null && m.winner !== undefined ? h("strong", {}, ` · ${t(S.lang, "match_won", { name: S.names[m.winner] })}`) : null);
}

let lastClaimAsk = 0;

/** Every quarter second: the clocks count down on the page; when the opponent's time is out, the legal
 *  actions are asked again (the claim is listed exactly while it is legal), once a second at most. */
function tickClocks() {
  const box = document.getElementById("clocks");
  const clock = S.view && S.view.clock;
  if (!box || !clock) return;
  const live = clocksLive();
  for (const p of [0, 1]) {
    const el = box.querySelector(`.clock[data-player="${p}"]`);
    if (!el) continue;
    const ms = timeLeft(clock, p, live);
    /** @type {HTMLElement} */ (el.querySelector(".clock-time")).textContent = clockText(ms);
    el.classList.toggle("out", ms <= 0);
    el.classList.toggle("low", ms > 0 && ms < 10_000);
  }
  const opponent = 1 - S.seat;
  if (live && S.mode === "private" && clock.running === opponent && timeLeft(clock, opponent, true) <= 0
      && !S.actions.some((a) => a.type === "claim_time") && !S.busy && Date.now() - lastClaimAsk > 1000) {
    lastClaimAsk = Date.now();
    refresh();
  }
}

/** Game over in a match not yet won: the loser chooses who plays first in the next game (RULES 14.2), with
 *  their seat; the computer, when it lost, chooses to play first itself. */
function nextGamePanel(view) {
  const m = view.match;
  if (!m || (m.winner !== null && m.winner !== undefined) || !view.result || S.mode !== "private") return null;
  const loser = /** @type {0|1} */ (1 - view.result.winner);
  // Only the loser's own page chooses (the dealer's page also keeps the other seat, to hand out its link).
  const theirs = S.seat === loser || (!!S.computer && S.computer.player === loser);
  if (!theirs || !seatOf(loser)) return h("p#next-wait.note", {}, t(S.lang, "next_wait", { name: S.names[loser] }));
  if (S.computer && S.computer.player === loser) {
    setTimeout(() => nextMatchGame(loser), 0);
    return null;
  }
  return h("section#next-game.card-panel", {}, h("p.cp-text", {}, t(S.lang, "next_game")),
    ...[loser, 1 - loser].map((p) => h(`button#next-first-${p}.action`, { type: "button", onclick: () => nextMatchGame(/** @type {0|1} */ (p)) },
      t(S.lang, "next_first", { name: S.names[p] }))));
}

let nextAsked = "";

/** POST /v1/matches/next with the final state, the loser's seat and their choice: a new game with new seats,
 *  this page the dealer (it holds both seats and hands out the other link). */
async function nextMatchGame(first) {
  const view = S.view;
  if (!view || !view.result || S.busy || nextAsked === S.state) return;
  const loser = /** @type {0|1} */ (1 - view.result.winner);
  nextAsked = /** @type {string} */ (S.state);
  S.busy = true;
  try {
    const step = await api.nextGame({ state: /** @type {string} */ (S.state), first_player: first, seats: [seatOf(loser) || ""] });
    S.busy = false;
    await startGame(step, S.names, S.computer, S.computer ? null : loser);
  } catch (err) {
    nextAsked = "";
    if (err instanceof RefereeError && err.problem.code === "next_game_dealt") { // dealt already (another tab)
      S.busy = false;
      await followOnce(); // the game that ended names it as `next`: this page moves to it
      return;
    }
    const { rule, text } = describeError(err);
    showProblem(text, rule);
  } finally {
    S.busy = false;
  }
}

/** Whether this page made (and kept) every move of its game: hot-seat, or a private game against the
 *  computer; only then can it write the game's record. Two devices each know their own moves only. */
function knowsEveryMove() {
  return (S.mode === "hot" && !!S.game) || (S.mode === "private" && !!S.computer && !!S.dealt);
}

/** A private game on two devices: this page knows its own moves only; the referee's ledger keeps the game's
 *  every token, so the record is written from them (POST /v1/records with the game id, docs/records.md). */
function ledgerKeepsTheGame() {
  return S.mode === "private" && !knowsEveryMove() && !!S.ledger && !!S.gameId && !!seatKey();
}

const RECORD_SHOWN = 400; // lines of a long record drawn around the position (a record may hold 100,000 moves)

/** A replayed record, one line of it beside each position: the line of the move that made the position
 *  shown is highlighted; a click on a move's line steps there. */
function recordListing(R) {
  const rec = R.record;
  const lines = rec.text.replace(/\n$/, "").split("\n");
  const currentLine = R.index > 0 ? rec.lines[R.index - 1] : 0;
  const refusedLine = R.failAt !== null ? rec.lines[R.failAt] : 0;
  const moveOn = new Map(rec.lines.map((line, i) => [line, i + 1]));
  const from = Math.max(0, Math.min(currentLine - RECORD_SHOWN / 2, lines.length - RECORD_SHOWN));
  const shown = lines.slice(from, from + RECORD_SHOWN);
  return h("section#record.record", { "aria-labelledby": "record-title" },
    h("h2#record-title", {}, t(S.lang, "record")),
    h("ol#record-lines.record-lines", { start: String(from + 1), tabindex: "0", "aria-labelledby": "record-title" },
      ...shown.map((text, k) => {
        const n = from + k + 1;
        const move = moveOn.get(n);
        const cls = (n === currentLine ? ".current" : "") + (n === refusedLine ? ".refused" : "") + (move ? ".move" : "");
        return h(`li${cls}`, { dataset: { line: String(n) }, "aria-current": n === currentLine ? "step" : undefined,
          title: n === refusedLine ? t(S.lang, "record_refused") : undefined,
          onclick: move !== undefined && move <= R.end ? () => stepReplay(move) : undefined }, text);
      })));
}

/** "against the computer (greedy, quick)" */
function computerLine() {
  const c = S.computer;
  if (!c) return "";
  const strength = { 100: "strength_quick", 500: "strength_normal", 2000: "strength_strong" }[c.budget];
  return t(S.lang, "vs_computer", { bot: c.bot, strength: strength ? t(S.lang, strength) : `${c.budget} ms` });
}

/** What this page's own link carries: its seat and, against the computer, the computer's seat and settings. */
function ownKeys() {
  const c = S.computer;
  const keys = { seat: seatKey() || "" };
  return c ? { ...keys, cpu: seatOf(c.player) || "", bot: c.bot, budget: String(c.budget) } : keys;
}

/** A private game's link: the game id and one key, in the fragment (a browser never sends it to a server). */
function linkTo(keys) {
  const params = new URLSearchParams({ game: S.gameId || "", ...keys });
  return `${location.origin}/table#${params}`;
}

// The groups of the actions list, in the order a turn goes.
const GROUPS = {
  mulligan: "setup", keep: "setup", play_case: "case", skip_case: "case",
  play_fairy: "play", play_evidence: "play", dispatch: "dispatch", redispatch: "dispatch", recall: "dispatch",
  investigate: "investigate", cast_spell: "spells", use_ability: "spells", counter: "spells",
  draw: "turn", pass: "turn", end_turn: "turn", discard: "turn",
};
const GROUP_ORDER = ["setup", "case", "play", "dispatch", "investigate", "spells", "turn", "other"];

/** One button per move: listed actions with one label are the same move for this player (the referee
 *  words two different moves differently), so the first of them stands for all. */
function distinct(actions) {
  const seen = new Map();
  for (const a of actions) if (!seen.has(a.label || JSON.stringify(a))) seen.set(a.label || JSON.stringify(a), a);
  return [...seen.values()];
}

function actionButton(a) {
  return h("button.action" + (a.type === "concede" ? ".concede" : ""), {
    type: "button",
    dataset: { type: a.type },
    onclick: () => act(a),
    onmouseenter: () => markCards(a),
    onmouseleave: () => markCards(),
    onfocus: () => markCards(a),
    onblur: () => markCards(),
  }, a.label || a.type);
}

/** The card panel: a clicked (or tapped) card's full text, and the listed actions about it. */
function cardPanel(iid, withActions = true) {
  const view = S.view;
  const cid = view.cards[iid];
  const card = cid ? catalog.get(cid) : null;
  const name = nameOf(iid);
  const mine = distinct(S.actions.filter((a) => primary(a) === iid));
  const targeted = mine.some((a) => involved(a).length > 1);
  if (!withActions) {
    return h("section#card-panel.card-panel", { "aria-live": "polite" }, h("p.cp-text", {}, card ? cardWords(card, S.lang) : name));
  }
  return h("section#card-panel.card-panel", { "aria-live": "polite" },
    h("p.cp-text", {}, card ? cardWords(card, S.lang) : name),
    h("h3.group-title", {}, mine.length ? t(S.lang, "card_actions", { card: name }) : t(S.lang, "no_card_actions", { card: name })),
    ...mine.map(actionButton),
    targeted ? h("p.hint", {}, t(S.lang, "targets_hint")) : null,
    h("button#all-actions.link", { type: "button", onclick: () => { S.selected = null; draw(); } }, t(S.lang, "all_actions")));
}

/** The end step: the referee lists one discard (the last cards of the hand) and any set of that many
 *  hand cards is equally legal (docs/api.md §6), so the player picks the cards in the hand. */
function discardPanel(owed) {
  const need = owed.cards.length;
  const chosen = S.discarding.filter((iid) => S.view.players[S.seat].hand.includes(iid));
  const ready = chosen.length === need;
  const names = chosen.map((iid) => nameOf(iid)).join(S.lang === "ja" ? "、" : ", ");
  return h("section#discard-panel.card-panel", { "aria-live": "polite" },
    h("p.cp-text", {}, t(S.lang, "discard_pick", { n: need, k: chosen.length })),
    h("button#discard-chosen.action", { type: "button", disabled: !ready,
      onclick: () => act({ type: "discard", player: owed.player, cards: chosen }) },
      ready ? t(S.lang, "discard_these", { cards: names }) : t(S.lang, "discard_choose", { n: need - chosen.length })));
}

function drawActions() {
  const box = $("actions");
  const view = S.view;
  if (!view) return;
  if (S.mode === "replay") {
    $("actions-title").hidden = true;
    box.classList.add("replaying");
    box.replaceChildren(...(S.selected && view.cards[S.selected] ? [cardPanel(S.selected, false)] : []));
    return;
  }
  box.classList.remove("replaying");
  $("actions-title").hidden = S.mode === "watch";
  $("selection").hidden = true;
  const parts = [];
  if (S.note) parts.push(h("p.note", { role: "status" }, S.note));
  if (view.phase === "over") {
    const result = view.result ? t(S.lang, "winner", { name: S.names[view.result.winner], reason: t(S.lang, `reasons.${view.result.reason}`) }) : "";
    parts.push(h("div.game-over", {},
      h("p.over-text", {}, t(S.lang, "game_over_note", { result })),
      h("button#new-game.primary", { type: "button", onclick: newGame }, t(S.lang, "new_game")),
      S.mode === "hot" && S.game ? h("button#replay-this.tool", { type: "button",
        onclick: () => loadReplay(JSON.stringify({ game: S.game, actions: S.played })) }, t(S.lang, "replay_this")) : null));
    const next = nextGamePanel(view); // null unless a match goes on (replaceChildren would write "null")
    if (next) parts.push(next);
    box.replaceChildren(...parts);
    return;
  }
  const owed = S.actions.find((a) => a.type === "discard");
  if (owed) parts.push(discardPanel(owed));
  else if (S.selected) parts.push(cardPanel(S.selected));
  const waiting = !S.actions.some((a) => a.type !== "concede"); // conceding is open to both, always (11.2)
  if (S.mode === "watch") parts.push(h("p.empty", {}, t(S.lang, "follow_note")));
  else if (S.computer && actor(view) === S.computer.player) {
    parts.push(h("p.empty.thinking", { role: "status" }, t(S.lang, "thinking", { name: S.names[S.computer.player] })));
  } else if (waiting) parts.push(h("p.empty", {}, t(S.lang, "no_actions", { name: S.names[actor(view)] })));
  const groups = new Map();
  for (const a of distinct(S.actions)) {
    if (a.type === "concede" || a.type === "claim_time") continue; // the claim stands by the clocks
    const g = GROUPS[a.type] || "other";
    if (!groups.has(g)) groups.set(g, []);
    groups.get(g).push(a);
  }
  for (const g of GROUP_ORDER) {
    const list = groups.get(g);
    if (!list) continue;
    parts.push(h("section.group", { dataset: { group: g }, "aria-label": t(S.lang, `groups.${g}`) },
      h("h3.group-title", {}, `${t(S.lang, `groups.${g}`)} (${list.length})`), ...list.map(actionButton)));
  }
  parts.push(...distinct(S.actions.filter((a) => a.type === "concede")).map(actionButton));
  box.replaceChildren(...parts);
}

function drawLog() {
  const view = S.view;
  if (!view) return;
  const who = (p) => S.names[p] ?? String(p);
  const items = S.events.map((ev, i) => h("li", { dataset: ev.seen ? { type: ev.type, seen: "1" } : { type: ev.type },
    title: ev.seen ? t(S.lang, "seen_hint") : undefined },
    h("span.n", { "aria-hidden": "true" }, `${i + 1}.`), " ",
    h("span.ev", {}, eventText(S.lang, ev, nameOf, who, (type) => actionName(S.lang, type), (iid) => !!view.cards[iid]))));
  const log = $("log");
  log.replaceChildren(...items);
  log.scrollTop = log.scrollHeight;
}

/** The ids an action names, its first one the card it is "about". */
function involved(a) {
  const ids = [a.card, a.fairy, a.case, ...(a.targets || []), ...(a.cards || [])].filter(Boolean);
  return [...new Set(ids)];
}
const involves = (a, iid) => involved(a).includes(iid);
const primary = (a) => involved(a)[0];

/** Highlight what can be clicked now, or the cards of a hovered action. */
function markCards(hovered) {
  const board = $("board");
  const sources = new Set(S.actions.map(primary).filter(Boolean));
  const targets = new Set(S.selected ? S.actions.filter((a) => primary(a) === S.selected)
    .flatMap((a) => involved(a).slice(1)) : []);
  const lit = new Set(hovered ? involved(hovered) : []);
  for (const el of board.querySelectorAll(".card[data-iid]")) {
    const iid = /** @type {HTMLElement} */ (el).dataset.iid || "";
    el.classList.toggle("selectable", !S.selected && sources.has(iid));
    el.classList.toggle("selected", S.selected === iid);
    el.classList.toggle("targetable", targets.has(iid));
    el.classList.toggle("lit", lit.has(iid));
    el.classList.toggle("chosen", S.discarding.includes(iid));
  }
}

function openTrash(p) {
  const view = S.view;
  if (!view) return;
  $("trash-title").textContent = t(S.lang, "of_trash", { name: S.names[p] });
  const trash = view.players[p].trash;
  $("trash-cards").replaceChildren(...(trash.length ? trash.map((iid) =>
    cardFrame(iid, catalog.get(view.cards[iid]) || null, S.lang)) : [h("p.trash-empty", {}, t(S.lang, "trash_empty"))]));
  /** @type {HTMLDialogElement} */ ($("trash-dialog")).showModal();
}

// -- acting ----------------------------------------------------------------------

/** Send a listed action (or the computer's suggested one) with the seat of its player. */
async function act(action) {
  if (S.busy || S.state === null) return;
  const { label, ...plain } = action;
  const byComputer = !!S.computer && plain.player === S.computer.player;
  S.busy = true;
  try {
    const before = S.state;
    const step = await api.apply(S.state, plain, seatOf(plain.player));
    clearProblem();
    S.selected = null;
    S.note = null;
    S.discarding = [];
    if (S.mode === "hot") S.history.push({ state: before, events: S.events.length, seat: S.seat, by: plain.player });
    if (knowsEveryMove()) {
      // Kept by the move's number (`seq`, one more a move since the deal), not appended: a move the ledger
      // answers as already recorded (the same action sent again) takes its own place, never a second one.
      const seq = /** @type {number} */ ((step.view ?? step.state).seq ?? S.played.length + 1);
      S.played.length = seq - 1;
      S.played.push(plain);
      if (S.dealtAt !== null && step.view && step.view.clock) {
        S.times.length = seq - 1;
        S.times.push(Date.parse(step.view.clock.since) - S.dealtAt);
      }
      saveMoves();
    }
    if (byComputer) {
      // The computer's seat was told its own events (its hand among them): the log reads the move
      // from the player's views instead, so nothing the computer may see reaches the screen.
      const was = S.view;
      adopt(step.state, []);
      await refresh();
      if (was && S.view) logEvents(changesBetween(was, S.view));
      return;
    }
    adopt(step.state, step.events);
    await refresh();
  } catch (err) {
    if (err instanceof RefereeError && err.status === 409) { // stale: another device moved first
      S.note = t(S.lang, "caught_up");
      S.busy = false;
      await followOnce().catch(() => undefined); // the poll tries again if this ask fails
      return;
    }
    const { rule, text } = describeError(err);
    S.problem = { action: plain, state: S.state };
    showProblem(text, rule);
  } finally {
    S.busy = false;
    if (S.computer && S.view && S.view.phase !== "over" && actor(S.view) === S.computer.player) setTimeout(computerMove, 0);
  }
}

/** The computer's move: /v1/suggest from its seat, then /v1/apply with that seat, like any player. */
async function computerMove() {
  const c = S.computer;
  if (!c || S.thinking || S.busy || !S.view || S.view.phase === "over" || actor(S.view) !== c.player) return;
  const state = S.state;
  S.thinking = true;
  try {
    const body = seatOf(c.player) ? { state, seat: seatOf(c.player), bot: c.bot, budget_ms: c.budget }
      : { state, player: c.player, bot: c.bot, budget_ms: c.budget };
    const { action } = await api.suggest(/** @type {any} */ (body)); // its label names what the computer sees: not shown
    if (S.state !== state) return;
    S.thinking = false;
    await act(action);
  } catch (err) {
    const { rule, text } = describeError(err);
    showProblem(text, rule);
  } finally {
    S.thinking = false;
  }
}

/** Events the page learnt, added to the log (and kept with the game). */
function logEvents(events) {
  S.events.push(...events);
  saveLog();
  drawLog();
}

/** Hot-seat undo: back to the position before the last move (the page's own history; no server call
 *  changes anything: a plain state is a value). Off in private mode, where a move is final. */
async function undo() {
  if (S.mode !== "hot" || S.busy || !S.history.length) return;
  let last = /** @type {{state: State, events: number, seat: number, by?: number}} */ (S.history.pop());
  S.played.pop();
  // Against the computer, undo goes back to the player's own last move (the computer's replies with it).
  while (S.computer && last.by === S.computer.player && S.history.length) {
    last = /** @type {any} */ (S.history.pop());
    S.played.pop();
  }
  S.state = last.state;
  S.events.length = last.events;
  S.selected = null;
  S.note = t(S.lang, "undone");
  clearProblem();
  S.curtain = null;
  S.seat = last.seat;
  saveHot();
  await refresh();
}

/** The hot-seat game in the browser's storage, so that a reload brings it back. */
function saveHot() {
  if (S.mode !== "hot" || !S.game) return;
  const keep = (n) => ({ game: S.game, names: S.names, played: S.played, state: S.state, events: S.events,
    history: S.history.slice(-n), follow: S.follow, computer: S.computer });
  for (const n of [HISTORY_KEPT, 10, 0]) {
    try {
      localStorage.setItem(HOT_KEY, JSON.stringify(keep(n)));
      return;
    } catch { /* over the storage quota: keep fewer positions for undo */ }
  }
}

/** A hot-seat game kept by `saveHot`, back on the table behind the curtain (neither hand shown). */
async function restoreHot() {
  const text = localStorage.getItem(HOT_KEY);
  if (!text) return false;
  let saved;
  try {
    saved = JSON.parse(text);
  } catch {
    localStorage.removeItem(HOT_KEY);
    return false;
  }
  if (!saved || !saved.state || !saved.game) return false;
  S.mode = "hot";
  S.seats = null;
  S.game = saved.game;
  S.names = saved.names;
  S.played = saved.played || [];
  S.history = saved.history || [];
  S.events = saved.events || [];
  S.follow = saved.follow !== false;
  S.computer = saved.computer || null;
  S.state = saved.state;
  S.note = t(S.lang, "resumed");
  let view;
  try {
    view = await api.view(S.state, 0, null);
  } catch {
    localStorage.removeItem(HOT_KEY); // a state this referee no longer takes (another catalog or secret)
    S.state = null;
    return false;
  }
  S.seat = S.computer ? 1 - S.computer.player : (view.phase === "over" ? 0 : actor(view));
  S.curtain = view.phase === "over" || S.computer ? null : S.seat;
  $("tab-play").removeAttribute("disabled");
  showTab("play");
  await refresh();
  return true;
}

/** Back to the Deal form; the finished game leaves the browser's storage. */
function newGame() {
  localStorage.removeItem(HOT_KEY);
  if (S.mode === "private") localStorage.removeItem(PRIVATE_KEY); // a watcher forgets nothing of a seat's
  stopFollowing();
  if (location.hash) history.replaceState(null, "", "/table");
  S.mode = "hot";
  S.seats = null;
  S.computer = null;
  S.state = null;
  S.view = null;
  S.game = null;
  S.dealt = null;
  S.history = [];
  S.played = [];
  S.note = null;
  $("tab-play").setAttribute("disabled", "");
  showTab("deal");
  $("deal-button").focus();
}

/** "Download this game": the game's record (.afr, POST /v1/records) and, hot-seat, the replay body
 *  (POST /v1/replay, the Replay tab) and a `referee check` scenario of the game so far. A private game's
 *  record is the seat's own (its commitment, its own deck) until the game is over, then the whole one. */
async function download() {
  if (!(knowsEveryMove() || ledgerKeepsTheGame()) || !S.view) return;
  const view = S.view;
  try {
    if (ledgerKeepsTheGame()) { // its own seat's record; the whole one once over, if this page holds both seats
      const gameId = /** @type {string} */ (S.gameId);
      const own = { seat: /** @type {string} */ (seatKey()) };
      const both = S.seats && S.seats.every((s) => !!s) ? { seats: /** @type {string[]} */ (S.seats) } : null;
      const text = view.phase === "over" && both
        ? await api.gameRecord(gameId, both).catch(() => api.gameRecord(gameId, own))
        : await api.gameRecord(gameId, own);
      save(`ace-file-${gameId}-${view.seq ?? "game"}.afr`, text, "text/plain");
      return;
    }
    if (S.mode === "private") {
      const body = { state: S.dealt || "", seats: S.seats || [], actions: S.played,
        ...(S.dealtAt !== null ? { times: S.times } : {}) };
      const seat = { ...body, player: /** @type {0|1} */ (S.seat) };
      const text = view.phase === "over" ? await api.record(body).catch(() => api.record(seat)) : await api.record(seat);
      save(`ace-file-${S.gameId || "game"}-${S.played.length}.afr`, text, "text/plain");
      return;
    }
    const stem = `ace-file-${String(S.game.seed || "game").replace(/[^\w.-]+/g, "_")}-${S.played.length}`;
    const body = { game: S.game, actions: S.played };
    const then = { legal: true, phase: view.phase, turn: view.turn, step: view.step, active: view.active,
      result: view.result ?? null, "p0.file": view.players[0].file, "p1.file": view.players[1].file,
      "p0.hand": view.players[0].hand.length, "p1.hand": view.players[1].hand.length };
    const scenario = { name: `a table game (seed ${S.game.seed}), ${S.played.length} action(s)`,
      given: { game: S.game }, when: S.played, then };
    save(`${stem}.replay.json`, JSON.stringify(body, null, 1));
    save(`${stem}.scenario.yaml`, "# referee check FILE: this game so far, as a scenario (JSON is YAML)\n"
      + JSON.stringify(scenario, null, 1) + "\n");
    save(`${stem}.afr`, await api.record(body), "text/plain");
  } catch (err) {
    const { rule, text } = describeError(err);
    showProblem(text, rule);
  }
}

function save(filename, text, type = "application/json") {
  const url = URL.createObjectURL(new Blob([text], { type: `${type};charset=utf-8` }));
  const a = h("a", { href: url, download: filename, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** A new state (and its events): kept, in the browser's storage too, so that a reload brings it back. */
function adopt(state, events) {
  S.state = state;
  S.events.push(...(events || []));
  if (S.mode === "private" && S.gameKey) {
    localStorage.setItem(S.gameKey, JSON.stringify({ state, at: Date.now() })); // the token, for a referee without a ledger
    saveLog();
  }
  saveHot();
}

const LOG_KEPT = 600; // events kept with a private game in this browser (a whole game is a few hundred)

/** A private seat's event log, kept with the game in this browser (a reload loses nothing). */
function saveLog() {
  if (S.mode !== "private" || !S.gameKey) return;
  try {
    localStorage.setItem(`${S.gameKey}:log:${S.seat}`, JSON.stringify(S.events.slice(-LOG_KEPT)));
  } catch { /* over quota: the log is a convenience, the game is on the referee */ }
}

/** Private mode against the computer: the deal's token and the moves, kept for the record across a reload. */
function saveMoves() {
  if (S.mode !== "private" || !S.gameKey || !S.dealt) return;
  try {
    localStorage.setItem(`${S.gameKey}:moves`, JSON.stringify({ dealt: S.dealt, played: S.played, times: S.times, dealtAt: S.dealtAt }));
  } catch { /* over quota: the record is then not offered after a reload */ }
}

function loadMoves() {
  try {
    const kept = JSON.parse(localStorage.getItem(`${S.gameKey}:moves`) || "null");
    S.dealt = kept ? kept.dealt : null;
    S.played = kept ? kept.played : [];
    S.times = kept ? kept.times || [] : [];
    S.dealtAt = kept ? kept.dealtAt ?? null : null;
  } catch {
    S.dealt = null;
    S.played = [];
    S.times = [];
    S.dealtAt = null;
  }
}

function loadLog() {
  try {
    return JSON.parse(localStorage.getItem(`${S.gameKey}:log:${S.seat}`) || "[]");
  } catch {
    return [];
  }
}

/** What a click (or a tap, or Enter) on a card means: the target of the selected card's listed actions,
 *  or else the card chosen: its full text and the listed actions about it. Only listed actions are sent. */
async function clickCard(iid) {
  if (!S.view || S.busy) return;
  if (S.mode === "replay") { // a replay only shows a card's full text
    S.selected = S.selected === iid ? null : iid;
    draw();
    return;
  }
  if (S.selected === iid) {
    S.selected = null;
    draw();
    return;
  }
  const owed = S.actions.find((a) => a.type === "discard");
  if (owed && S.view.players[S.seat].hand.includes(iid)) { // choose (or unchoose) a card to discard
    S.discarding = S.discarding.includes(iid) ? S.discarding.filter((c) => c !== iid)
      : [...S.discarding, iid].slice(-owed.cards.length);
    draw();
    return;
  }
  if (S.selected) {
    const source = S.selected;
    const matches = distinct(S.actions.filter((a) => primary(a) === source && involved(a).slice(1).includes(iid)));
    if (matches.length === 1) return act(matches[0]);
    if (matches.length > 1) {
      $("actions").replaceChildren(h("section.card-panel", {},
        h("h3.group-title", {}, t(S.lang, "card_actions", { card: nameOf(source) })), ...matches.map(actionButton)));
      return;
    }
  }
  S.selected = iid;
  clearProblem();
  draw();
  const panel = document.getElementById("card-panel");
  if (panel && window.matchMedia("(max-width: 760px)").matches) panel.scrollIntoView({ block: "nearest" });
}

/** Ask /v1/validate about an action that was refused, to word it again (in another language). */
async function attempt(action) {
  if (!action || S.state === null) return;
  try {
    const res = await api.validate(S.state, action, seatKey());
    if (res.legal) return;
    S.problem = { action, state: S.state };
    const v = res.violation;
    showProblem(`${v.code}: ${v.detail}`, v.rule);
  } catch (err) {
    const { rule, text } = describeError(err);
    showProblem(text, rule);
  }
}

async function switchSeat(p) {
  if (S.mode === "private") return;
  S.seat = p;
  S.curtain = null;
  S.selected = null;
  clearProblem();
  if (S.mode === "replay") return showReplayStep();
  await refresh();
}

// -- dealing ------------------------------------------------------------------------

let sampleDecks = [];

async function loadDecks() {
  sampleDecks = (await api.sampleDecks()).decks;
  for (const p of [0, 1]) {
    const sel = /** @type {HTMLSelectElement} */ ($(`deck-${p}`));
    const current = sel.value;
    sel.replaceChildren(...sampleDecks.map((d, i) => h("option", { value: String(i) }, S.lang === "ja" ? d.name_ja : d.name)),
      h("option", { value: "paste" }, t(S.lang, "paste")));
    sel.value = current || String(Math.min(p, sampleDecks.length - 1));
    sel.onchange = () => {
      $(`paste-${p}`).hidden = sel.value !== "paste";
      checkDeckSoon(p);
    };
    $(`paste-${p}`).oninput = () => checkDeckSoon(p);
  }
}

/** A player's deck as the deal sends it: a sample's, or the deck box's text: JSON ids or counts when it
 *  reads as JSON, else the text itself (a deck list or a deck code, read by the referee, docs/api.md §13). */
function deckOf(p) {
  const value = /** @type {HTMLSelectElement} */ ($(`deck-${p}`)).value;
  if (value !== "paste") return sampleDecks[Number(value)].deck;
  const text = /** @type {HTMLTextAreaElement} */ ($(`paste-${p}`)).value;
  if (!/^\s*[[{]/.test(text)) return text.trim();
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${t(S.lang, p ? "player_2" : "player_1")}: ${t(S.lang, "deck_not_json")}`);
  }
}

// -- the deck box: every problem of a deck, by line, in the format chosen ------------------------------

/** @type {{id: string, name: string, revisions: {from: string}[]}[]} */
let formats = [];

/** The catalog's formats (GET /v1/formats) in the deal form: each at its latest revision, and each
 *  earlier revision by its date. */
async function loadFormats() {
  try {
    formats = (await api.formats()).formats;
  } catch {
    formats = [];
  }
  const sel = /** @type {HTMLSelectElement} */ ($("format"));
  const current = sel.value;
  const options = [h("option", { value: "" }, t(S.lang, "no_format"))];
  for (const f of formats) {
    const dates = f.revisions.map((r) => r.from);
    const latest = dates[dates.length - 1];
    options.push(h("option", { value: f.id }, t(S.lang, "format_latest", { name: f.name, from: latest })));
    for (const from of dates.slice(0, -1).reverse()) {
      options.push(h("option", { value: `${f.id}@${from}` }, t(S.lang, "format_as_of", { name: f.name, from })));
    }
  }
  sel.replaceChildren(...options);
  sel.value = current;
  sel.onchange = () => { checkDeckSoon(0); checkDeckSoon(1); };
  $("format-label").hidden = !formats.length;
}

/** The format chosen: null, an id (its latest revision) or {id, date} (the revision in force that day). */
function formatChosen() {
  const value = /** @type {HTMLSelectElement} */ ($("format")).value;
  if (!value) return null;
  const [id, date] = value.split("@");
  return date ? { id, date } : id;
}

const CHECK_DELAY_MS = 300; // the deck box asks once typing pauses, not on every key
const checkTimers = [0, 0];
const checkAsked = [0, 0]; // the latest ask per box: an older answer arriving late is dropped

function checkDeckSoon(p) {
  $(`deck-check-${p}`).dataset.checking = "1"; // what it says is of the text before: dimmed until the answer
  window.clearTimeout(checkTimers[p]);
  checkTimers[p] = window.setTimeout(() => checkDeck(p), CHECK_DELAY_MS);
}

/** Ask POST /v1/decks/validate about one player's deck and list what it says, each problem by its line. */
async function checkDeck(p) {
  const box = $(`deck-check-${p}`);
  const done = () => { if (asked === checkAsked[p]) delete box.dataset.checking; };
  const asked = ++checkAsked[p];
  let deck;
  try {
    deck = deckOf(p);
  } catch (err) {
    box.replaceChildren(h("p.deck-bad", {}, String(err.message)));
    done();
    return;
  }
  if (deck === "") {
    box.replaceChildren();
    done();
    return;
  }
  const format = formatChosen();
  let answer;
  try {
    answer = await api.validateDeck(format ? { deck, format } : { deck });
  } catch (err) {
    if (asked === checkAsked[p]) box.replaceChildren(...deckRefusal(err));
    done();
    return;
  }
  if (asked !== checkAsked[p]) return;
  done();
  const fmt = formats.find((f) => f.id === (typeof format === "string" ? format : format?.id));
  const n = answer.deck ? Object.values(answer.deck.counts).reduce((a, b) => a + b, 0) : 0;
  if (answer.legal) {
    const inFormat = fmt ? t(S.lang, "deck_in_format", { name: fmt.name }) : "";
    const code = answer.deck?.code;
    box.replaceChildren(h("p.deck-ok", {}, `✓ ${t(S.lang, "deck_legal", { format: inFormat, n })}`),
      ...(code ? [h("p.deck-code", {}, `${t(S.lang, "deck_code")}: `, h("code", {}, code))] : []));
    return;
  }
  box.replaceChildren(h("p.deck-bad", {}, `✗ ${t(S.lang, "deck_problems", { n: answer.violations.length })}`),
    h("ul.deck-problems", {}, ...answer.violations.map((v) => h("li", { dataset: v.line ? { line: String(v.line) } : {} },
      v.line ? h("strong.line", {}, t(S.lang, "line", { n: v.line })) : null, v.line ? " " : null,
      h("span.rule", {}, `${t(S.lang, "rule")} ${v.rule}`), ` ${v.detail}`))));
}

/** A deck the referee could not read: each bad line (`errors` keyed `….line.N`; in a NewGame's answer
 *  `decks.P.line.N`, `prefix` picks the player's) by its number, else the detail. */
function deckRefusal(err, prefix = "") {
  const { text } = describeError(err);
  const errors = err instanceof RefereeError ? /** @type {any} */ (err.problem).errors : null;
  const lines = [];
  for (const [key, messages] of Object.entries(errors || {})) {
    const m = key.startsWith(prefix) ? key.match(/line\.(\d+)$/) : null;
    if (m) lines.push([Number(m[1]), [messages].flat().join(" ")]);
  }
  lines.sort((a, b) => a[0] - b[0]);
  if (!lines.length) return [h("p.deck-bad", {}, `✗ ${text}`)];
  return [h("p.deck-bad", {}, `✗ ${t(S.lang, "deck_problems", { n: lines.length })}`),
    h("ul.deck-problems", {}, ...lines.map(([n, message]) =>
      h("li", { dataset: { line: String(n) } }, h("strong.line", {}, t(S.lang, "line", { n })), ` ${message}`)))];
}

async function deal(event) {
  event.preventDefault();
  const errorBox = $("deal-error");
  errorBox.hidden = true;
  try {
    const names = [0, 1].map((p) => /** @type {HTMLInputElement} */ ($(`name-${p}`)).value.trim() || t(S.lang, p ? "player_2" : "player_1"));
    const seed = /** @type {HTMLInputElement} */ ($("seed")).value.trim();
    const first = /** @type {HTMLSelectElement} */ ($("first-player")).value;
    const game = {
      decks: [deckOf(0), deckOf(1)], players: names,
      options: { response_windows: /** @type {HTMLSelectElement} */ ($("windows")).value },
      ...(seed ? { seed } : {}), ...(first !== "" ? { first_player: Number(first) } : {}),
      .../** @type {HTMLInputElement} */ ($("no-shuffle")).checked ? { shuffle: false } : {},
      ...(formatChosen() ? { format: formatChosen() } : {}),
      ...clockAndMatch(),
    };
    const computer = readComputer();
    const step = await api.newGame(/** @type {any} */ (game));
    S.game = step.seats ? null : { ...game, seed: typeof step.state === "object" ? step.state.seed : undefined };
    await startGame(step, names, computer);
  } catch (err) {
    for (const p of [0, 1]) { // a list's bad lines in its own box, by line (decks.P.line.N)
      const errors = err instanceof RefereeError ? /** @type {any} */ (err.problem).errors : null;
      if (Object.keys(errors || {}).some((k) => k.startsWith(`decks.${p}.`))) $(`deck-check-${p}`).replaceChildren(...deckRefusal(err, `decks.${p}.`));
    }
    const { rule, text } = describeError(err);
    const violations = err instanceof RefereeError && err.problem.violations
      ? err.problem.violations.map((v) => `${v.rule} ${v.detail}`).join(" · ") : "";
    errorBox.textContent = `${rule ? `${t(S.lang, "rule")} ${rule} ` : ""}${text}${violations ? ` — ${violations}` : ""}`;
    errorBox.hidden = false;
  }
}

/** The deal form's opponent: null for a person, else the computer's seat, bot and budget. */
function readComputer() {
  if (/** @type {HTMLSelectElement} */ ($("opponent")).value !== "computer") return null;
  return {
    player: /** @type {0|1} */ (Number(/** @type {HTMLSelectElement} */ ($("computer-seat")).value)),
    bot: /** @type {HTMLSelectElement} */ ($("bot")).value,
    budget: Number(/** @type {HTMLSelectElement} */ ($("strength")).value),
  };
}

/** The deal form's clock and match (docs/api.md §15), where the referee can keep a clock (else hidden). */
function clockAndMatch() {
  if ($("deal-clock").hidden) return {};
  const chosen = /** @type {HTMLSelectElement} */ ($("clock")).value;
  const [initial, increment] = chosen === "custom"
    ? [Number(/** @type {HTMLInputElement} */ ($("clock-initial")).value), Number(/** @type {HTMLInputElement} */ ($("clock-increment")).value)]
    : chosen.split("+").map(Number);
  const bestOf = Number(/** @type {HTMLSelectElement} */ ($("match")).value);
  return { ...(chosen ? { clock: { initial, increment } } : {}), ...(bestOf > 1 ? { match: { best_of: bestOf } } : {}) };
}

/** Begin playing a dealt game: hot-seat (plain mode), or private, where this page holds the dealer's
 *  seat (player 1's, or the one the computer does not play) and, against the computer, the computer's. */
async function startGame(step, names, computer, me = null) {
  stopFollowing(); // a game followed before this one
  S.mode = step.seats ? "private" : "hot";
  S.names = names;
  S.state = null;
  S.events = [];
  S.replay = null;
  S.curtain = null;
  S.selected = null;
  S.history = [];
  S.played = [];
  S.note = null;
  S.computer = computer;
  clearProblem();
  $("replay-bar").hidden = true;
  S.ledger = null;
  S.watch = step.watch || null;
  S.seat = computer ? 1 - computer.player : (me ?? 0);
  S.dealt = S.mode === "private" && computer ? step.state : null;
  if (S.mode === "private") {
    S.seats = [step.seats[0], step.seats[1]];
    const view = await api.view(step.state, /** @type {0|1} */ (S.seat), seatKey());
    S.gameId = /** @type {any} */ (view).game_id;
    S.dealtAt = view.clock ? Date.parse(view.clock.since) : null;
    S.times = [];
    S.gameKey = `af-table:${S.gameId}`;
    S.ledger = await hasLedger();
    if (S.ledger) {
      // The dealer's own seat goes in this page's address (the fragment) and the browser's storage:
      // a reload or a browser restart finds the game again. The other seat leaves by its link only.
      // The other seat's and the watch links stay on this device too, to hand out after a reload.
      localStorage.setItem(`${S.gameKey}:keys`, JSON.stringify({ seats: S.seats, watch: S.watch }));
      saveMoves();
      remember();
    }
  } else {
    S.seats = null;
    S.gameId = null;
  }
  adopt(step.state, step.events);
  $("tab-play").removeAttribute("disabled");
  showTab("play");
  await refresh();
  if (S.mode === "private" && S.ledger) startFollowing();
}

/** The deal form's clock and match, shown only where the referee can keep a clock: private mode with a
 *  ledger (`/readyz` says `ledger: true`; a ledger is kept only in private mode). */
async function offerClocks() {
  const ledger = await hasLedger();
  $("deal-clock").hidden = ledger !== true;
  const sel = /** @type {HTMLSelectElement} */ ($("clock"));
  const custom = () => {
    for (const el of document.querySelectorAll("label.clock-custom")) /** @type {HTMLElement} */ (el).hidden = sel.value !== "custom";
  };
  sel.onchange = custom;
  custom();
}

/** Whether the referee keeps a ledger (docs/api.md §11), as its readiness answer says. */
async function hasLedger() {
  try {
    return (await api.ready()).ledger === true;
  } catch {
    return null; // draining or unreachable: keep the one-browser invite, say nothing
  }
}

/** This page's own link in its address bar (replaceState: no history entry) and in the browser's storage. */
function remember() {
  const hash = `#${new URLSearchParams(S.mode === "watch" ? { game: S.gameId || "", watch: S.watch || "" }
    : { game: S.gameId || "", ...ownKeys() })}`;
  if (location.hash !== hash) history.replaceState(null, "", `/table${hash}`);
  if (S.mode === "private") localStorage.setItem(PRIVATE_KEY, hash);
}

// -- private mode: one seat per device, following the game through the ledger -----------------

function encodeJoin(state, seat) {
  const json = JSON.stringify({ state, seat, names: S.names, key: S.gameKey });
  return btoa(unescape(encodeURIComponent(json))).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function decodeJoin(text) {
  const b64 = text.replaceAll("-", "+").replaceAll("_", "/");
  return JSON.parse(decodeURIComponent(escape(atob(b64))));
}

/** Open the game a link names: `#game=ID&seat=KEY` (a seat; with `cpu`, `bot`, `budget` against the
 *  computer), `#game=ID&watch=KEY` (a spectator), or a one-browser `#join=...` (no ledger). */
async function joinFromHash() {
  const m = location.hash.match(/^#join=(.+)$/);
  if (m) return joinOneBrowser(decodeJoin(m[1]));
  const params = new URLSearchParams(location.hash.slice(1));
  const gameId = params.get("game");
  const seat = params.get("seat");
  const watch = params.get("watch");
  if (!gameId || !(seat || watch)) return false;
  S.mode = seat ? "private" : "watch";
  S.gameId = gameId;
  S.gameKey = `af-table:${gameId}`;
  S.watch = watch;
  S.replay = null;
  S.curtain = null;
  S.history = [];
  S.note = null;
  let latest;
  try {
    latest = await api.latest(gameId, /** @type {string} */ (seat || watch));
    S.ledger = true;
  } catch (err) {
    const stored = localStorage.getItem(S.gameKey);
    if (!(err instanceof RefereeError && err.problem.code === "no_ledger" && stored && seat)) {
      const { text } = describeError(err);
      S.mode = "hot";
      showTab("deal");
      $("deal-error").textContent = err instanceof RefereeError && err.status === 404 ? t(S.lang, "not_found_game") : text;
      $("deal-error").hidden = false;
      return true;
    }
    S.ledger = false; // no ledger: this browser's own copy of the token
    const state = JSON.parse(stored).state;
    latest = { state, view: await api.view(state, 0, seat) };
  }
  const view = latest.view;
  const player = /** @type {0|1} */ (view.viewer ?? 0);
  const seats = /** @type {any} */ ([null, null]);
  S.computer = null;
  if (seat) {
    seats[player] = seat;
    const cpu = params.get("cpu");
    if (cpu) {
      seats[1 - player] = cpu;
      S.computer = { player: /** @type {0|1} */ (1 - player), bot: params.get("bot") || "greedy",
        budget: Number(params.get("budget")) || 500 };
    }
  }
  S.seats = seat ? seats : null;
  S.seat = player;
  const dealt = seat ? JSON.parse(localStorage.getItem(`${S.gameKey}:keys`) || "null") : null;
  if (dealt && dealt.seats[player] === seat) { // this device dealt: it hands out the other links again
    S.seats = dealt.seats;
    S.watch = dealt.watch;
  }
  S.state = latest.state;
  S.events = loadLog();
  if (S.computer) loadMoves();
  else S.dealt = null;
  if (S.mode === "private") remember();
  $("tab-play").removeAttribute("disabled");
  showTab("play");
  await refresh(view);
  if (S.ledger) startFollowing();
  return true;
}

/** The no-ledger invite: the token travels in the link, and the two tabs share it through storage. */
async function joinOneBrowser(join) {
  history.replaceState(null, "", "/table");
  const stored = localStorage.getItem(join.key);
  const state = stored ? JSON.parse(stored).state : join.state;
  const view = await api.view(state, 0, join.seat);
  const seats = [null, null];
  seats[view.viewer] = join.seat;
  S.mode = "private";
  S.seats = /** @type {any} */ (seats);
  S.seat = view.viewer;
  S.names = join.names;
  S.gameKey = join.key;
  S.gameId = /** @type {any} */ (view).game_id;
  S.ledger = false;
  S.state = state;
  S.events = [];
  $("tab-play").removeAttribute("disabled");
  showTab("play");
  await refresh(view);
  return true;
}

// Another tab of this game in this browser moved (no ledger): take its newer state (the later `seq` wins).
window.addEventListener("storage", async (e) => {
  if (S.mode !== "private" || S.ledger || e.key !== S.gameKey || !e.newValue) return;
  const { state } = JSON.parse(e.newValue);
  const view = await api.view(state, /** @type {0|1} */ (S.seat), seatKey());
  if (S.view && typeof view.seq === "number" && typeof S.view.seq === "number" && view.seq <= S.view.seq) return;
  await takeLatest(state, view);
});

let followTimer = 0;
let lastChange = Date.now();

/** Follow the game: ask the ledger for the latest state (POST /v1/latest) every half second while the
 *  game moves, every few seconds when idle or hidden. Each ask is one short request: nothing waits on the
 *  server, so no worker is held by a page that only watches. */
function startFollowing() {
  stopFollowing();
  const loop = async () => {
    await followOnce().catch(() => undefined);
    if (S.view && S.view.phase === "over" && !matchGoesOn(S.view)) return;
    const idle = document.hidden || Date.now() - lastChange > 60_000;
    followTimer = window.setTimeout(loop, idle ? POLL_IDLE_MS : POLL_MS);
  };
  followTimer = window.setTimeout(loop, POLL_MS);
}

function stopFollowing() {
  window.clearTimeout(followTimer);
  followTimer = 0;
}

document.addEventListener("visibilitychange", () => {
  if (!document.hidden && followTimer) startFollowing(); // back in view: catch up now, then at full pace
});

/** One ask for the latest state; a newer one is taken (never an older: `seq` only goes forward). */
async function followOnce() {
  if (!S.gameId || (S.mode !== "private" && S.mode !== "watch")) return;
  const key = S.mode === "watch" ? S.watch : seatKey();
  if (!key || S.busy) return;
  let latest;
  try {
    latest = await api.latest(S.gameId, key);
  } catch (err) {
    const code = err instanceof RefereeError ? err.problem.code : null;
    S.note = t(S.lang, code === "ledger_unavailable" ? "ledger_down" : "unreachable");
    drawActions();
    throw err;
  }
  if (S.note === t(S.lang, "unreachable") || S.note === t(S.lang, "ledger_down")) S.note = null;
  if (latest.next) return followNext(latest.next);
  // A move of this page in flight adopts its own answer; and only a later state is taken, never the one
  // shown (its token may be a step behind the one a move just adopted) nor an earlier one.
  if (S.busy || (S.view && latest.seq <= (S.view.seq ?? -1))) return;
  await takeLatest(latest.state, latest.view);
}

/** Whether a finished game's match goes on: then the loser deals the next game, and this page waits for it. */
const matchGoesOn = (view) => !!view.match && (view.match.winner === null || view.match.winner === undefined);

/** The match's next game, once the loser has dealt it (docs/api.md §15: /v1/latest's `next` on the game that
 *  ended): this page opens it with the seat the referee gives its player there (or the watch key), as if it had
 *  been handed that game's link. */
async function followNext(next) {
  stopFollowing();
  const key = S.mode === "watch" ? { watch: next.seat } : { seat: next.seat };
  history.replaceState(null, "", `/table#${new URLSearchParams({ game: next.game_id, ...key })}`);
  await joinFromHash();
}

/** A state another device (or the computer's seat) made: the log reads the move from the two views. */
async function takeLatest(state, view) {
  const before = S.view;
  lastChange = Date.now();
  S.state = state;
  S.selected = null;
  S.discarding = [];
  if (before && view.seq !== before.seq) S.events.push(...changesBetween(before, view));
  if (S.mode === "private" && S.gameKey) {
    localStorage.setItem(S.gameKey, JSON.stringify({ state, at: Date.now() }));
    saveLog();
  }
  await refresh(view);
}

// -- replay -------------------------------------------------------------------------------

/** Load a game record (.afr), a replay body or a `referee expand` file, and open it at the deal. */
async function loadReplay(text) {
  const errorBox = $("replay-error");
  errorBox.hidden = true;
  if (!/^\s*\{/.test(text)) return loadRecord(text); // a record starts with a tag (or a comment); JSON with "{"
  let body;
  try {
    body = JSON.parse(text);
  } catch (err) {
    errorBox.textContent = `JSON: ${err.message}`;
    errorBox.hidden = false;
    return;
  }
  const actions = Array.isArray(body.actions) ? body.actions : body.when;
  if ((!body.game && !body.state) || !Array.isArray(actions)) {
    errorBox.textContent = S.lang === "ja" ? "{\"game\" または \"state\", \"actions\"} が必要です。"
      : "Expected {\"game\" or \"state\", \"actions\": [...]}.";
    errorBox.hidden = false;
    return;
  }
  const refs = actions.some((a) => Object.values(a || {}).some((v) => [v].flat().some((x) => /^@?p[01]\./.test(String(x)))));
  if (refs) {
    errorBox.textContent = S.lang === "ja"
      ? "行動にカード参照（p0.hand.…）があります。referee expand FILE の出力を読み込んでください。"
      : "The actions hold card references (p0.hand.…): load what referee expand FILE writes instead.";
    errorBox.hidden = false;
    return;
  }
  // One /v1/replay call checks the whole line (and finds a refused action, with its rule); positions
  // are then made as they are shown: a step from the one before (its events told by /v1/apply), a
  // jump by /v1/replay from the nearest position made.
  await openReplay(body, actions, null);
}

/** A record: read by the referee (POST /v1/records/read: its NewGame, actions and the line of each), checked
 *  by one /v1/replay of the record itself, stepped through like any replay with its lines beside the board. */
async function loadRecord(text) {
  let parts;
  try {
    parts = await api.readRecord(text);
  } catch (err) {
    showRecordError(err, text);
    return;
  }
  await openReplay({ game: parts.game }, parts.actions, { text, lines: parts.lines, times: parts.times });
}

/** A record that does not read: its line number and what is wrong, and the lines around it, that one marked. */
function showRecordError(err, text) {
  const errorBox = $("replay-error");
  const line = err instanceof RefereeError && typeof err.problem.line === "number" ? err.problem.line : null;
  const { rule, text: msg } = describeError(err);
  const parts = [];
  if (line !== null) parts.push(h("strong.rule", {}, t(S.lang, "record_line", { n: line })), " ");
  else if (rule) parts.push(h("strong.rule", {}, `${t(S.lang, "rule")} ${rule}`), " ");
  parts.push(msg);
  if (line !== null) {
    const lines = text.split("\n");
    const from = Math.max(1, line - 2);
    const around = lines.slice(from - 1, line + 2);
    parts.push(h("ol.record-lines.excerpt", { start: String(from) }, ...around.map((l, k) =>
      h(from + k === line ? "li.refused" : "li", { "aria-current": from + k === line ? "true" : undefined },
        l.length > 200 ? `${l.slice(0, 200)}…` : l))));
  }
  errorBox.replaceChildren(...parts);
  errorBox.hidden = false;
}

/** Open a line of play at the deal: `record` (its text and each action's line) when it came from a record. */
async function openReplay(body, actions, record) {
  const errorBox = $("replay-error");
  const R = { states: [], events: [], actions, failAt: null, violation: null, focus: body.focus ?? null, index: 0,
    name: body.name || "", end: actions.length, record };
  try {
    if (record && record.times) {
      // A clocked game's positions come from its times (docs/api.md §15): each is one /v1/replay from the
      // deal with the times up to it (a referee without a ledger deals no clock, but replays one).
      R.game = body.game;
      R.states.push((await api.replay({ game: body.game, actions: [], times: [] })).state);
      R.events.push([]);
    } else if (body.game) {
      const step = await api.newGame(body.game);
      R.states.push(step.state);
      R.events.push(step.events);
    } else {
      R.states.push(body.state);
      R.events.push([]);
    }
    await checkLine(R);
  } catch (err) {
    if (record) {
      showRecordError(err, record.text);
      return;
    }
    const { rule, text: msg } = describeError(err);
    errorBox.textContent = `${rule ? `${t(S.lang, "rule")} ${rule} ` : ""}${msg}`;
    errorBox.hidden = false;
    return;
  }
  const players = (body.game && body.game.players) || (body.state && body.state.players?.map((p) => p.name));
  S.names = players && players.length === 2 ? players : [t(S.lang, "player_1"), t(S.lang, "player_2")];
  stopFollowing();
  S.mode = "replay";
  S.seats = null;
  S.computer = null;
  S.dealt = null;
  S.replay = R;
  S.seat = 0;
  S.curtain = null;
  clearProblem();
  R.index = 0; // a replay opens at the deal; Last and Failing action jump
  $("replay-bar").hidden = false;
  $("rp-fail").hidden = R.failAt === null && R.focus === null;
  showTab("replay-board");
  await showReplayStep();
}

/** The whole line in one /v1/replay call: where it ends, or the first refused action and its violation
 *  (worded in the page's language: a language switch asks again). */
async function checkLine(R) {
  R.failAt = null;
  R.violation = null;
  try {
    if (R.record) await api.replayRecord(R.record.text); // its Result checked too; a refusal names its line
    else R.states[R.actions.length] = (await api.replay({ state: R.states[0], actions: R.actions })).state;
  } catch (err) {
    if (!(err instanceof RefereeError) || err.status !== 422 || typeof err.problem.index !== "number") throw err;
    R.failAt = err.problem.index;
    R.violation = err.problem;
  }
  R.end = R.failAt ?? R.actions.length;
}

/** The position after `i` actions: made from the one before (one /v1/apply, its events told) or, for a
 *  jump, by one /v1/replay from the nearest earlier position made (its events read from the views). */
async function position(R, i) {
  if (R.states[i] !== undefined) return;
  if (R.record && R.record.times) {
    R.states[i] = (await api.replay({ game: R.game, actions: R.actions.slice(0, i), times: R.record.times.slice(0, i) })).state;
    return;
  }
  if (R.states[i - 1] !== undefined) {
    const step = await api.apply(R.states[i - 1], R.actions[i - 1]);
    R.states[i] = step.state;
    R.events[i] = step.events;
    return;
  }
  let j = i - 1;
  while (R.states[j] === undefined) j--;
  R.states[i] = (await api.replay({ state: R.states[j], actions: R.actions.slice(j, i) })).state;
}

/** The replay's log up to position `i`: the events told, and for the stretches jumped over, one line. */
async function replayLog(R, i) {
  const out = [...R.events[0]];
  for (let k = 1; k <= i; k++) {
    if (R.events[k]) out.push(...R.events[k]);
    else if (k === 1 || R.events[k - 1]) {
      let last = k;
      while (last < i && !R.events[last + 1]) last++;
      out.push({ type: "jumped", first: k, last });
    }
  }
  return out;
}

async function showReplayStep() {
  const R = S.replay;
  if (!R) return;
  await position(R, R.index);
  S.state = R.states[R.index];
  S.events = await replayLog(R, R.index);
  await refresh();
  const n = R.actions.length;
  $("rp-pos").textContent = R.index === 0 ? `${t(S.lang, "start")} (0/${n})` : t(S.lang, "position", { i: R.index, n });
  const next = R.actions[R.index];
  const line = $("rp-action");
  line.replaceChildren();
  if (R.failAt !== null && R.index === R.failAt) {
    const v = R.violation;
    showProblem(t(S.lang, "refused_at", { i: R.index, rule: v.rule || v.status, code: v.code, detail: v.detail }), v.rule);
  } else clearProblem();
  if (next) {
    const listed = await api.legalActions(S.state, null).catch(() => []);
    const same = listed.find((a) => sameAction(a, next));
    line.textContent = `▶ ${same ? same.label : describeAction(next)}`;
  }
}

/** An action the referee did not list (a recorded illegal one) in words: its type and the cards it
 *  names as the seat may see them, never an instance id. */
function describeAction(action) {
  const ids = involved(action);
  const who = typeof action.player === "number" ? `${S.names[action.player] ?? action.player}: ` : "";
  return `${who}${action.type}${ids.length ? ` (${ids.map((iid) => nameOf(iid)).join(", ")})` : ""}`;
}

function sameAction(listed, action) {
  const { label, ...a } = listed;
  const { pay, ...b } = action;
  return JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries({ targets: a.targets, ...b })
    .filter(([k, v]) => v !== undefined || k in a).sort());
}

function stepReplay(to) {
  const R = S.replay;
  if (!R) return;
  R.index = Math.max(0, Math.min(R.end, to));
  showReplayStep();
}

// -- start -------------------------------------------------------------------------------

async function main() {
  translatePage();
  for (const b of document.querySelectorAll("[data-lang]")) {
    b.addEventListener("click", async () => {
      S.lang = /** @type {HTMLElement} */ (b).dataset.lang === "ja" ? "ja" : "en";
      localStorage.setItem("af-table-lang", S.lang);
      translatePage();
      await Promise.all([loadDecks(), loadFormats()]);
      for (const p of [0, 1]) checkDeckSoon(p);
      if (S.state !== null) {
        if (S.mode === "replay" && S.replay.failAt !== null) await checkLine(S.replay); // the refusal in this language
        if (S.mode === "replay") await showReplayStep();
        else await refresh();
        if (S.problem && S.problem.state === S.state) await attempt(S.problem.action);
      }
    });
  }
  for (const b of document.querySelectorAll("[data-tab]")) {
    b.addEventListener("click", () => {
      const tab = /** @type {HTMLElement} */ (b).dataset.tab;
      if (tab === "play" && S.mode === "replay") return;
      showTab(tab || "deal");
    });
  }
  $("deal-form").addEventListener("submit", deal);
  $("curtain-go").addEventListener("click", () => { S.curtain = null; refresh(); });
  $("replay-load").addEventListener("click", () => loadReplay(/** @type {HTMLTextAreaElement} */ ($("replay-text")).value));
  const openFile = async (/** @type {File | undefined} */ file) => {
    if (!file) return;
    const text = await file.text();
    /** @type {HTMLTextAreaElement} */ ($("replay-text")).value = text;
    await loadReplay(text);
  };
  $("replay-file").addEventListener("change", (e) => openFile(/** @type {HTMLInputElement} */ (e.target).files?.[0]));
  const drop = $("replay-drop"); // a record or replay file dropped anywhere on the Replay tab's box
  drop.addEventListener("dragover", (e) => {
    e.preventDefault();
    drop.classList.add("dragging");
  });
  drop.addEventListener("dragleave", () => drop.classList.remove("dragging"));
  drop.addEventListener("drop", (e) => {
    e.preventDefault();
    drop.classList.remove("dragging");
    openFile(/** @type {DragEvent} */ (e).dataTransfer?.files?.[0]);
  });
  $("rp-first").addEventListener("click", () => stepReplay(0));
  $("rp-prev").addEventListener("click", () => stepReplay(S.replay.index - 1));
  $("rp-next").addEventListener("click", () => stepReplay(S.replay.index + 1));
  $("rp-last").addEventListener("click", () => stepReplay(S.replay.end));
  $("rp-fail").addEventListener("click", () => stepReplay(S.replay.failAt ?? S.replay.focus ?? 0));
  // Replay with the keyboard, as in a chess viewer: ← → step, Home / End jump.
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && S.selected) {
      S.selected = null;
      draw();
      return;
    }
    if (S.mode !== "replay" || !S.replay || /** @type {HTMLElement} */ (e.target).closest("textarea, input")) return;
    const moves = { ArrowLeft: -1, ArrowRight: 1, Home: -Infinity, End: Infinity };
    if (!(e.key in moves)) return;
    e.preventDefault();
    stepReplay(S.replay.index + moves[e.key]);
  });
  const cards = await api.cards();
  for (const c of cards.cards) catalog.set(c.id, c);
  await Promise.all([loadDecks(), loadFormats(), offerClocks()]);
  for (const p of [0, 1]) checkDeckSoon(p);
  window.setInterval(tickClocks, 250);
  const opponent = /** @type {HTMLSelectElement} */ ($("opponent"));
  const showComputer = () => {
    for (const el of document.querySelectorAll("label.cpu")) /** @type {HTMLElement} */ (el).hidden = opponent.value !== "computer";
  };
  opponent.addEventListener("change", showComputer);
  showComputer();
  // A private game this browser plays (its link kept in storage) comes back after a browser restart.
  const kept = localStorage.getItem(PRIVATE_KEY);
  if (!location.hash && kept) history.replaceState(null, "", `/table${kept}`);
  if (!(await joinFromHash()) && !(await restoreHot())) showTab("deal");
  window.addEventListener("hashchange", () => { joinFromHash(); }); // another game's link pasted into this tab
  document.body.dataset.ready = "1";
}

main().catch((err) => {
  const box = $("deal-error");
  box.textContent = String(err && err.message ? err.message : err);
  box.hidden = false;
});
