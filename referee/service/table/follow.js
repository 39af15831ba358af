// @ts-check
// Private mode: one seat per device (or a spectator), following the game through the referee's ledger
// (POST /v1/latest, docs/api.md §11), or through this browser's storage where the referee keeps none.
// What a poll takes is decided in poll.js; this module asks, takes, and opens the game a link names.

import { RefereeError } from "./api.js";
import { changesBetween, joinedLines } from "./changes.js";
import { drawActions } from "./draw.js";
import { t } from "./i18n.js";
import { linkTo, ownKeys, parseLink } from "./links.js";
import { clearChoices } from "./moves.js";
import { refresh } from "./play.js";
import { keepsPolling, pollDelay, pollKey, pollTakes, storageTakes } from "./poll.js";
import { seatKey, seatOf } from "./session.js";
import { PRIVATE_KEY, keepPrivate, loadLog, loadMoves } from "./store.js";
import { emptyMoves } from "./session.js";
import { $, describeError, showTab } from "./ui.js";

/** @typedef {import("./session.js").Session} Session */

let followTimer = 0;
let lastChange = Date.now();

/** Follow the game: ask the ledger for the latest state every half second while the game moves, every
 *  few seconds when idle or hidden. Each ask is one short request: nothing waits on the server, so no
 *  worker is held by a page that only watches. @param {Session} s */
export function startFollowing(s) {
  stopFollowing();
  const loop = async () => {
    await followOnce(s).catch(() => undefined);
    if (!keepsPolling(s.view)) return;
    followTimer = window.setTimeout(loop, pollDelay({ hidden: document.hidden, lastChange }));
  };
  followTimer = window.setTimeout(loop, pollDelay({ hidden: false, lastChange: Date.now() }));
}

export function stopFollowing() {
  window.clearTimeout(followTimer);
  followTimer = 0;
}

/** Back in view: catch up now, then at full pace. @param {Session} s */
export function resumeFollowing(s) {
  if (!document.hidden && followTimer) startFollowing(s);
}

/** One ask for the latest state; a later one is taken (pollTakes). @param {Session} s */
export async function followOnce(s) {
  if (!s.net.gameId || !(s.mode === "private" || s.mode === "watch")) return;
  const key = pollKey(s);
  if (!key || s.busy) return;
  let latest;
  try {
    latest = await s.api.latest(s.net.gameId, key);
  } catch (err) {
    const code = err instanceof RefereeError ? err.problem.code : null;
    s.note = t(s.lang, code === "ledger_unavailable" ? "ledger_down" : "unreachable");
    drawActions(s);
    throw err;
  }
  if (s.note === t(s.lang, "unreachable") || s.note === t(s.lang, "ledger_down")) s.note = null;
  const taken = pollTakes(/** @type {any} */ (latest), { busy: s.busy, shownSeq: s.view ? s.view.seq ?? -1 : null });
  if (taken === "next") return followNext(s, /** @type {any} */ (latest).next);
  if (taken === "take") await takeLatest(s, latest.state, latest.view);
}

/** The match's next game, once the loser has dealt it (docs/api.md §15: /v1/latest's `next` on the game that
 *  ended): this page opens it with the seat the referee gives its player there (or the watch key), as if it had
 *  been handed that game's link. @param {Session} s */
async function followNext(s, next) {
  stopFollowing();
  const key = s.mode === "watch" ? { watch: next.seat } : { seat: next.seat };
  history.replaceState(null, "", `/table#${new URLSearchParams({ game: next.game_id, ...key })}`);
  await joinFromHash(s);
}

/** A state another device (or the computer's seat) made: the log reads the move from the two views. @param {Session} s */
export async function takeLatest(s, state, view) {
  const before = s.view;
  lastChange = Date.now();
  s.state = state;
  clearChoices(s);
  if (before && view.seq !== before.seq) s.events.push(...changesBetween(before, view));
  keepPrivate(localStorage, s, state);
  await refresh(s, view);
}

/** Another tab of this game in this browser moved (no ledger): take its newer state. @param {Session} s */
export async function takeFromStorage(s, e) {
  if (s.mode !== "private" || s.net.ledger || e.key !== s.net.gameKey || !e.newValue) return;
  const { state } = JSON.parse(e.newValue);
  const view = await s.api.view(state, /** @type {0|1} */ (s.seat), seatKey(s));
  if (storageTakes(view, s.view)) await takeLatest(s, state, view);
}

/** This page's own link in its address bar (replaceState: no history entry) and in the browser's storage. @param {Session} s */
export function remember(s) {
  const keys = s.mode === "watch" ? { watch: s.net.watch || "" }
    : ownKeys(seatKey(s), s.computer, s.computer ? seatOf(s, s.computer.player) : null);
  const hash = linkTo("", s.net.gameId, keys).slice("/table".length);
  if (location.hash !== hash) history.replaceState(null, "", `/table${hash}`);
  if (s.mode === "private") localStorage.setItem(PRIVATE_KEY, hash);
}

/** Whether the referee keeps a ledger (docs/api.md §11), as its readiness answer says. @param {Session} s */
export async function hasLedger(s) {
  try {
    return (await s.api.ready()).ledger === true;
  } catch {
    return null; // draining or unreachable: keep the one-browser invite, say nothing
  }
}

/** Open the game a link names (links.js parseLink). @param {Session} s */
export async function joinFromHash(s) {
  const link = parseLink(location.hash);
  if (!link) return false;
  if ("join" in link) return joinOneBrowser(s, link.join);
  const seat = link.seat;
  s.mode = seat ? "private" : "watch";
  s.net.gameId = link.gameId;
  s.net.gameKey = `af-table:${link.gameId}`;
  s.net.watch = link.watch;
  s.replay = null;
  s.curtain = null;
  s.history = [];
  s.note = null;
  let latest;
  try {
    latest = await s.api.latest(link.gameId, /** @type {string} */ (seat || link.watch));
    s.net.ledger = true;
  } catch (err) {
    const stored = localStorage.getItem(s.net.gameKey);
    if (!(err instanceof RefereeError && err.problem.code === "no_ledger" && stored && seat)) {
      const { text } = describeError(err);
      s.mode = "hot";
      showTab("deal");
      $("deal-error").textContent = err instanceof RefereeError && err.status === 404 ? t(s.lang, "not_found_game") : text;
      $("deal-error").hidden = false;
      return true;
    }
    s.net.ledger = false; // no ledger: this browser's own copy of the token
    const state = JSON.parse(stored).state;
    latest = { state, view: await s.api.view(state, 0, seat) };
  }
  const view = latest.view;
  const player = /** @type {0|1} */ (view.viewer ?? 0);
  /** @type {(string | null)[]} */
  const seats = [null, null];
  s.computer = null;
  if (seat) {
    seats[player] = seat;
    if (link.computer) {
      seats[1 - player] = link.computer.seat;
      s.computer = { player: /** @type {0|1} */ (1 - player), bot: link.computer.bot, budget: link.computer.budget };
    }
  }
  s.net.seats = seat ? seats : null;
  s.seat = player;
  const dealt = seat ? JSON.parse(localStorage.getItem(`${s.net.gameKey}:keys`) || "null") : null;
  if (dealt && dealt.seats[player] === seat) { // this device dealt: it hands out the other links again
    s.net.seats = dealt.seats;
    s.net.watch = dealt.watch;
  }
  s.state = latest.state;
  const kept = loadLog(localStorage, s);
  s.events = kept.length ? kept : joinedLines(view); // a device that did not deal: the deal's lines all the same
  s.moves = s.computer ? loadMoves(localStorage, s) : emptyMoves();
  if (s.mode === "private") remember(s);
  $("tab-play").removeAttribute("disabled");
  showTab("play");
  await refresh(s, view);
  if (s.net.ledger) startFollowing(s);
  return true;
}

/** The no-ledger invite: the token travels in the link, and the two tabs share it through storage. @param {Session} s */
async function joinOneBrowser(s, join) {
  history.replaceState(null, "", "/table");
  const stored = localStorage.getItem(join.key);
  const state = stored ? JSON.parse(stored).state : join.state;
  const view = await s.api.view(state, 0, join.seat);
  /** @type {(string | null)[]} */
  const seats = [null, null];
  seats[view.viewer] = join.seat;
  s.mode = "private";
  s.net.seats = seats;
  s.seat = view.viewer;
  s.names = join.names;
  s.net.gameKey = join.key;
  s.net.gameId = /** @type {any} */ (view).game_id;
  s.net.ledger = false;
  s.state = state;
  s.events = joinedLines(view);
  $("tab-play").removeAttribute("disabled");
  showTab("play");
  await refresh(s, view);
  return true;
}
