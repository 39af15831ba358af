// @ts-check
// Playing: the view and the actions asked for the seat drawn, a listed action sent (or the computer's),
// hot-seat's undo, a card clicked, the game's download, New game, a match's next game.

import { RefereeError } from "./api.js";
import { h } from "./board.js";
import { changesBetween } from "./changes.js";
import { claimWorthAsking, clocksLive } from "./clock.js";
import { actionButton, draw, drawLog, nameOf } from "./draw.js";
import { followOnce, stopFollowing } from "./follow.js";
import { t } from "./i18n.js";
import { targeting } from "./labels.js";
import { clearChoices, keepMove, toggleDiscard, undoTo } from "./moves.js";
import { knowsEveryMove, ledgerKeepsTheGame, mode, offered } from "./modes.js";
import { startGame } from "./deal.js";
import { showReplayStep } from "./replay.js";
import { actor, emptyMoves, seatKey, seatOf } from "./session.js";
import { HOT_KEY, PRIVATE_KEY, keepPrivate, loadHot, saveHot, saveLog, saveMoves } from "./store.js";
import { $, clearProblem, describeError, saveFile, showProblem, showTab } from "./ui.js";

/** @typedef {import("./session.js").Session} Session */

/** Draw the state held from one seat's view: `known` is a view already at hand (/v1/latest's). @param {Session} s */
export async function refresh(s, known) {
  if (s.state === null) return;
  const state = s.state;
  const key = s.mode === "watch" ? s.net.watch : seatKey(s);
  const seat = /** @type {0|1} */ (s.seat);
  const [view, actions] = await Promise.all([
    known ? Promise.resolve(known) : s.api.view(state, seat, key),
    mode(s).acts ? s.api.legalActions(state, seat, key) : Promise.resolve([]),
  ]);
  if (s.state !== state) return; // a newer state arrived meanwhile
  s.view = view;
  if (mode(s).namesFromView) s.names = view.players.map((pl, p) => pl.name || t(s.lang, p ? "player_2" : "player_1"));
  s.actions = offered(s, actions);
  if (mode(s).turnsToActor && !s.computer && s.follow && view.phase !== "over" && actor(view) !== s.seat) {
    s.seat = actor(view);
    s.curtain = s.seat;
    s.view = null;
    draw(s);
    return;
  }
  draw(s);
  computerSoon(s);
}

/** The computer's move, soon, when it must act. @param {Session} s */
function computerSoon(s) {
  if (s.computer && s.view && s.view.phase !== "over" && actor(s.view) === s.computer.player) setTimeout(() => computerMove(s), 0);
}

/** A new state (and its events): kept, in the browser's storage too, so that a reload brings it back. @param {Session} s */
export function adopt(s, state, events) {
  s.state = state;
  s.events.push(...(events || []));
  keepPrivate(localStorage, s, state);
  saveHot(localStorage, s);
}

/** Send a listed action (or the computer's suggested one) with the seat of its player. @param {Session} s */
export async function act(s, action) {
  if (s.busy || s.state === null) return;
  const { label, ...plain } = action;
  const byComputer = !!s.computer && plain.player === s.computer.player;
  s.busy = true;
  try {
    const before = s.state;
    const step = await s.api.apply(s.state, /** @type {any} */ (plain), seatOf(s, plain.player));
    clearProblem(s);
    clearChoices(s);
    s.note = null;
    if (mode(s).undoes) s.history.push({ state: before, events: s.events.length, seat: s.seat, by: plain.player });
    if (knowsEveryMove(s)) {
      keepMove(s.moves, step, plain);
      saveMoves(localStorage, s);
    }
    if (byComputer) {
      // The computer's seat was told its own events (its hand among them): the log reads the move
      // from the player's views instead, so nothing the computer may see reaches the screen.
      const was = s.view;
      adopt(s, step.state, []);
      await refresh(s);
      if (was && s.view) logEvents(s, changesBetween(was, s.view));
      return;
    }
    adopt(s, step.state, step.events);
    await refresh(s);
  } catch (err) {
    if (err instanceof RefereeError && err.status === 409) { // stale: another device moved first
      s.note = t(s.lang, "caught_up");
      s.busy = false;
      await followOnce(s).catch(() => undefined); // the poll tries again if this ask fails
      return;
    }
    const { rule, text } = describeError(err);
    s.problem = { action: plain, state: /** @type {any} */ (s.state) };
    showProblem(s.lang, text, rule);
  } finally {
    s.busy = false;
    computerSoon(s);
  }
}

/** The computer's move: /v1/suggest from its seat, then /v1/apply with that seat, like any player. @param {Session} s */
async function computerMove(s) {
  const c = s.computer;
  if (!c || s.thinking || s.busy || !s.view || s.view.phase === "over" || actor(s.view) !== c.player) return;
  const state = s.state;
  s.thinking = true;
  try {
    const seat = seatOf(s, c.player);
    const body = seat ? { state, seat, bot: c.bot, budget_ms: c.budget } : { state, player: c.player, bot: c.bot, budget_ms: c.budget };
    const { action } = await s.api.suggest(/** @type {any} */ (body)); // its label names what the computer sees: not shown
    if (s.state !== state) return;
    s.thinking = false;
    await act(s, action);
  } catch (err) {
    const { rule, text } = describeError(err);
    showProblem(s.lang, text, rule);
  } finally {
    s.thinking = false;
  }
}

/** Events the page learnt, added to the log (and kept with the game). @param {Session} s */
export function logEvents(s, events) {
  s.events.push(...events);
  saveLog(localStorage, s);
  drawLog(s);
}

/** Hot-seat undo: back to the position before the last move (the page's own history; no server call
 *  changes anything: a plain state is a value). Off in private mode, where a move is final. @param {Session} s */
export async function undo(s) {
  if (!mode(s).undoes || s.busy) return;
  const last = undoTo(s.history, s.moves.played, s.computer);
  if (!last) return;
  s.state = last.state;
  s.events.length = last.events;
  s.selected = null;
  s.note = t(s.lang, "undone");
  clearProblem(s);
  s.curtain = null;
  s.seat = last.seat;
  saveHot(localStorage, s);
  await refresh(s);
}

/** A hot-seat game kept in this browser, back on the table behind the curtain (neither hand shown). @param {Session} s */
export async function restoreHot(s) {
  const saved = loadHot(localStorage);
  if (!saved) return false;
  s.mode = "hot";
  s.net.seats = null;
  s.moves = { ...emptyMoves(), game: saved.game, played: saved.played || [] };
  s.names = saved.names;
  s.history = saved.history || [];
  s.events = saved.events || [];
  s.follow = saved.follow !== false;
  s.computer = saved.computer || null;
  s.state = saved.state;
  s.note = t(s.lang, "resumed");
  let view;
  try {
    view = await s.api.view(saved.state, 0, null);
  } catch {
    localStorage.removeItem(HOT_KEY); // a state this referee no longer takes (another catalog or secret)
    s.state = null;
    return false;
  }
  s.seat = s.computer ? 1 - s.computer.player : (view.phase === "over" ? 0 : actor(view));
  s.curtain = view.phase === "over" || s.computer ? null : s.seat;
  $("tab-play").removeAttribute("disabled");
  showTab("play");
  await refresh(s);
  return true;
}

/** Back to the Deal form; the finished game leaves the browser's storage. @param {Session} s */
export function newGame(s) {
  localStorage.removeItem(HOT_KEY);
  if (s.mode === "private") localStorage.removeItem(PRIVATE_KEY); // a watcher forgets nothing of a seat's
  stopFollowing();
  if (location.hash) history.replaceState(null, "", "/table");
  s.mode = "hot";
  s.net.seats = null;
  s.computer = null;
  s.state = null;
  s.view = null;
  s.moves = emptyMoves();
  s.history = [];
  s.note = null;
  $("tab-play").setAttribute("disabled", "");
  showTab("deal");
  $("deal-button").focus();
}

let nextAsked = "";

/** POST /v1/matches/next with the final state, the loser's seat and their choice: a new game with new seats,
 *  this page the dealer (it holds both seats and hands out the other link). @param {Session} s @param {0|1} first */
export async function nextMatchGame(s, first) {
  const view = s.view;
  if (!view || !view.result || s.busy || nextAsked === s.state) return;
  const loser = /** @type {0|1} */ (1 - view.result.winner);
  nextAsked = /** @type {string} */ (s.state);
  s.busy = true;
  try {
    const step = await s.api.nextGame({ state: /** @type {string} */ (s.state), first_player: first, seats: [seatOf(s, loser) || ""] });
    s.busy = false;
    await startGame(s, step, s.names, s.computer, s.computer ? null : loser);
  } catch (err) {
    nextAsked = "";
    if (err instanceof RefereeError && err.problem.code === "next_game_dealt") { // dealt already (another tab)
      s.busy = false;
      await followOnce(s); // the game that ended names it as `next`: this page moves to it
      return;
    }
    const { rule, text } = describeError(err);
    showProblem(s.lang, text, rule);
  } finally {
    s.busy = false;
  }
}

let lastClaimAsk = 0;

/** Every quarter second, a private seat whose opponent's time is out asks for its actions again (the
 *  claim is listed exactly while it is legal). @param {Session} s */
export function askForClaim(s) {
  const clock = s.view && s.view.clock;
  if (!clock || s.mode !== "private" || !clocksLive(mode(s).live, s.view)) return;
  if (!claimWorthAsking({ clock, seat: s.seat, actions: s.actions, busy: s.busy, lastAsk: lastClaimAsk })) return;
  lastClaimAsk = Date.now();
  refresh(s);
}

/** "Download this game": the game's record (.afr, POST /v1/records) and, hot-seat, the replay body
 *  (POST /v1/replay, the Replay tab) and a `referee check` scenario of the game so far. A private game's
 *  record is the seat's own (its commitment, its own deck) until the game is over, then the whole one.
 *  @param {Session} s */
export async function download(s) {
  if (!(knowsEveryMove(s) || ledgerKeepsTheGame(s)) || !s.view) return;
  const view = s.view;
  const m = s.moves;
  try {
    if (ledgerKeepsTheGame(s)) { // its own seat's record; the whole one once over, if this page holds both seats
      const gameId = /** @type {string} */ (s.net.gameId);
      const own = { seat: /** @type {string} */ (seatKey(s)) };
      const seats = s.net.seats;
      const both = seats && seats.every((k) => !!k) ? { seats: /** @type {string[]} */ (seats) } : null;
      const text = view.phase === "over" && both
        ? await s.api.gameRecord(gameId, both).catch(() => s.api.gameRecord(gameId, own))
        : await s.api.gameRecord(gameId, own);
      saveFile(`ace-file-${gameId}-${view.seq ?? "game"}.afr`, text, "text/plain");
      return;
    }
    if (s.mode === "private") {
      const body = { state: m.dealt || "", seats: /** @type {string[]} */ (s.net.seats || []), actions: m.played,
        ...(m.dealtAt !== null ? { times: m.times } : {}) };
      const seat = { ...body, player: /** @type {0|1} */ (s.seat) };
      const text = view.phase === "over" ? await s.api.record(/** @type {any} */ (body)).catch(() => s.api.record(/** @type {any} */ (seat)))
        : await s.api.record(/** @type {any} */ (seat));
      saveFile(`ace-file-${s.net.gameId || "game"}-${m.played.length}.afr`, text, "text/plain");
      return;
    }
    const stem = `ace-file-${String(m.game.seed || "game").replace(/[^\w.-]+/g, "_")}-${m.played.length}`;
    const body = { game: m.game, actions: m.played };
    const then = { legal: true, phase: view.phase, turn: view.turn, step: view.step, active: view.active,
      result: view.result ?? null, "p0.file": view.players[0].file, "p1.file": view.players[1].file,
      "p0.hand": view.players[0].hand.length, "p1.hand": view.players[1].hand.length };
    const scenario = { name: `a table game (seed ${m.game.seed}), ${m.played.length} action(s)`,
      given: { game: m.game }, when: m.played, then };
    saveFile(`${stem}.replay.json`, JSON.stringify(body, null, 1));
    saveFile(`${stem}.scenario.yaml`, "# referee check FILE: this game so far, as a scenario (JSON is YAML)\n"
      + JSON.stringify(scenario, null, 1) + "\n");
    saveFile(`${stem}.afr`, await s.api.record(/** @type {any} */ (body)), "text/plain");
  } catch (err) {
    const { rule, text } = describeError(err);
    showProblem(s.lang, text, rule);
  }
}

/** What a click (or a tap, or Enter) on a card means: the target of the selected card's listed actions,
 *  or else the card chosen: its full text and the listed actions about it. Only listed actions are sent.
 *  @param {Session} s */
export async function clickCard(s, iid) {
  if (!s.view || s.busy) return;
  if (s.selected === iid || mode(s).showsOnly) { // a replay only shows a card's full text
    s.selected = s.selected === iid ? null : iid;
    draw(s);
    return;
  }
  const owed = s.actions.find((a) => a.type === "discard");
  if (owed && s.view.players[s.seat].hand.includes(iid)) { // choose (or unchoose) a card to discard
    s.discarding = toggleDiscard(s.discarding, iid, /** @type {any} */ (owed).cards.length);
    draw(s);
    return;
  }
  if (s.selected) {
    const source = s.selected;
    const matches = targeting(s.actions, source, iid);
    if (matches.length === 1) return act(s, matches[0]);
    if (matches.length > 1) {
      $("actions").replaceChildren(h("section.card-panel", {},
        h("h3.group-title", {}, t(s.lang, "card_actions", { card: nameOf(s, source) })), ...matches.map((a) => actionButton(s, a))));
      return;
    }
  }
  s.selected = iid;
  clearProblem(s);
  draw(s);
  const panel = document.getElementById("card-panel");
  if (panel && window.matchMedia("(max-width: 760px)").matches) panel.scrollIntoView({ block: "nearest" });
}

/** Ask /v1/validate about an action that was refused, to word it again (in another language). @param {Session} s */
export async function attempt(s, action) {
  if (!action || s.state === null) return;
  try {
    const res = await s.api.validate(s.state, action, seatKey(s));
    if (res.legal) return;
    s.problem = { action, state: s.state };
    const v = res.violation;
    showProblem(s.lang, `${v.code}: ${v.detail}`, v.rule);
  } catch (err) {
    const { rule, text } = describeError(err);
    showProblem(s.lang, text, rule);
  }
}

/** @param {Session} s */
export async function switchSeat(s, p) {
  if (!mode(s).switchesSeat) return;
  s.seat = p;
  s.curtain = null;
  s.selected = null;
  clearProblem(s);
  if (s.mode === "replay") return showReplayStep(s);
  await refresh(s);
}
