// @ts-check
// The Replay tab: a game record (.afr), a replay body or a `referee expand` file, opened at the deal and
// stepped through; one /v1/replay checks the whole line (and finds a refused action, with its rule).

import { RefereeError } from "./api.js";
import { h } from "./board.js";
import { changesBetween } from "./changes.js";
import { drawLog, nameOf } from "./draw.js";
import { stopFollowing } from "./follow.js";
import { t } from "./i18n.js";
import { describeAction, sameAction } from "./labels.js";
import { refresh } from "./play.js";
import { replayLog, nearestMade } from "./replayline.js";
import { $, clearProblem, describeError, showProblem, showTab } from "./ui.js";

/** @typedef {import("./session.js").Session} Session */
/** @typedef {import("./session.js").Replay} Replay */

const refusal = (s, text) => {
  const errorBox = $("replay-error");
  errorBox.textContent = text;
  errorBox.hidden = false;
};

/** Load a game record (.afr), a replay body or a `referee expand` file, and open it at the deal. @param {Session} s */
export async function loadReplay(s, text) {
  $("replay-error").hidden = true;
  if (!/^\s*\{/.test(text)) return loadRecord(s, text); // a record starts with a tag (or a comment); JSON with "{"
  let body;
  try {
    body = JSON.parse(text);
  } catch (err) {
    return refusal(s, `JSON: ${err.message}`);
  }
  const actions = Array.isArray(body.actions) ? body.actions : body.when;
  if ((!body.game && !body.state) || !Array.isArray(actions)) {
    return refusal(s, s.lang === "ja" ? "{\"game\" または \"state\", \"actions\"} が必要です。"
      : "Expected {\"game\" or \"state\", \"actions\": [...]}.");
  }
  const refs = actions.some((a) => Object.values(a || {}).some((v) => [v].flat().some((x) => /^@?p[01]\./.test(String(x)))));
  if (refs) {
    return refusal(s, s.lang === "ja"
      ? "行動にカード参照（p0.hand.…）があります。referee expand FILE の出力を読み込んでください。"
      : "The actions hold card references (p0.hand.…): load what referee expand FILE writes instead.");
  }
  // Positions are made as they are shown: a step from the one before (its events told by /v1/apply),
  // a jump by /v1/replay from the nearest position made.
  await openReplay(s, body, actions, null);
}

/** A record: read by the referee (POST /v1/records/read: its NewGame, actions and the line of each), checked
 *  by one /v1/replay of the record itself, stepped through like any replay with its lines beside the board.
 *  @param {Session} s */
async function loadRecord(s, text) {
  let parts;
  try {
    parts = await s.api.readRecord(text);
  } catch (err) {
    showRecordError(s, err, text);
    return;
  }
  await openReplay(s, { game: parts.game }, parts.actions, { text, lines: parts.lines, times: parts.times });
}

/** A record that does not read: its line number and what is wrong, and the lines around it, that one marked. @param {Session} s */
function showRecordError(s, err, text) {
  const errorBox = $("replay-error");
  const line = err instanceof RefereeError && typeof (/** @type {any} */ (err.problem)).line === "number"
    ? /** @type {number} */ (/** @type {any} */ (err.problem).line) : null;
  const { rule, text: msg } = describeError(err);
  const parts = [];
  if (line !== null) parts.push(h("strong.rule", {}, t(s.lang, "record_line", { n: line })), " ");
  else if (rule) parts.push(h("strong.rule", {}, `${t(s.lang, "rule")} ${rule}`), " ");
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

/** Open a line of play at the deal: `record` (its text and each action's line) when it came from a record. @param {Session} s */
async function openReplay(s, body, actions, record) {
  /** @type {Replay} */
  const R = { states: [], events: [], actions, failAt: null, violation: null, focus: body.focus ?? null, index: 0,
    name: body.name || "", end: actions.length, record };
  try {
    if (record) await checkLine(s, R); // a private referee answers the deal's token and seats (docs/api.md §14)
    if (R.seats) {
      R.events.push([]);
    } else if (record && record.times) {
      // A clocked game's positions come from its times (docs/api.md §15): each is one /v1/replay from the
      // deal with the times up to it (a referee without a ledger deals no clock, but replays one).
      R.game = body.game;
      R.states.push((await s.api.replay(/** @type {any} */ ({ game: body.game, actions: [], times: [] }))).state);
      R.events.push([]);
    } else if (body.game) {
      const step = await s.api.newGame(body.game);
      R.states.push(step.state);
      R.events.push(step.events);
    } else {
      R.states.push(body.state);
      R.events.push([]);
    }
    if (!record) await checkLine(s, R);
  } catch (err) {
    if (record) return showRecordError(s, err, record.text);
    const { rule, text: msg } = describeError(err);
    return refusal(s, `${rule ? `${t(s.lang, "rule")} ${rule} ` : ""}${msg}`);
  }
  const players = (body.game && body.game.players) || (body.state && body.state.players?.map((p) => p.name));
  s.names = players && players.length === 2 ? players : [t(s.lang, "player_1"), t(s.lang, "player_2")];
  stopFollowing();
  s.mode = "replay";
  s.net.seats = R.seats ?? null; // the replayed game's, on a private referee: the views are asked with them
  s.computer = null;
  s.moves.dealt = null;
  s.replay = R;
  s.seat = 0;
  s.curtain = null;
  clearProblem(s);
  R.index = 0; // a replay opens at the deal; Last and Failing action jump
  $("replay-bar").hidden = false;
  $("rp-fail").hidden = R.failAt === null && R.focus === null;
  showTab("replay-board");
  await showReplayStep(s);
}

/** The whole line in one /v1/replay call: where it ends, or the first refused action and its violation
 *  (worded in the page's language: a language switch asks again). @param {Session} s @param {Replay} R */
export async function checkLine(s, R) {
  R.failAt = null;
  R.violation = null;
  try {
    if (R.record) { // its Result checked too; a refusal names its line
      const answer = await s.api.replayRecord(R.record.text);
      if (answer.start && answer.seats) {
        R.states[0] = answer.start;
        R.seats = answer.seats;
      }
    } else R.states[R.actions.length] = (await s.api.replay({ state: R.states[0], actions: R.actions })).state;
  } catch (err) {
    if (!(err instanceof RefereeError) || err.status !== 422 || typeof err.problem.index !== "number") throw err;
    R.failAt = err.problem.index;
    R.violation = err.problem;
  }
  R.end = R.failAt ?? R.actions.length;
}

/** The position after `i` actions: made from the one before (one /v1/apply, its events told) or, for a
 *  jump, by one /v1/replay from the nearest earlier position made (its events read from the views).
 *  @param {Session} s @param {Replay} R */
async function position(s, R, i) {
  if (R.states[i] !== undefined) return;
  if (R.seats) { // a private referee's replayed game: each position one /v1/replay from its deal, with its seats
    const times = R.record && R.record.times ? { times: R.record.times.slice(0, i) } : {};
    R.states[i] = (await s.api.replay({ state: R.states[0], actions: R.actions.slice(0, i), seats: R.seats, ...times })).state;
    return;
  }
  if (R.record && R.record.times) {
    R.states[i] = (await s.api.replay(/** @type {any} */ ({ game: R.game, actions: R.actions.slice(0, i), times: R.record.times.slice(0, i) }))).state;
    return;
  }
  if (R.states[i - 1] !== undefined) {
    const step = await s.api.apply(R.states[i - 1], R.actions[i - 1]);
    R.states[i] = step.state;
    R.events[i] = step.events;
    return;
  }
  const j = nearestMade(R.states, i);
  R.states[i] = (await s.api.replay({ state: R.states[j], actions: R.actions.slice(j, i) })).state;
}

/** Draw the replay at its position, the next action in words under the steps. @param {Session} s */
export async function showReplayStep(s) {
  const R = s.replay;
  if (!R) return;
  await position(s, R, R.index);
  s.state = R.states[R.index];
  s.events = replayLog(R, R.index);
  await refresh(s);
  if (R.seats) logFromViews(s, R);
  const n = R.actions.length;
  $("rp-pos").textContent = R.index === 0 ? `${t(s.lang, "start")} (0/${n})` : t(s.lang, "position", { i: R.index, n });
  const next = R.actions[R.index];
  const line = $("rp-action");
  line.replaceChildren();
  if (R.failAt !== null && R.index === R.failAt) {
    const v = R.violation;
    showProblem(s.lang, t(s.lang, "refused_at", { i: R.index, rule: v.rule || v.status, code: v.code, detail: v.detail }), v.rule);
  } else clearProblem(s);
  if (next) {
    const seat = R.seats && typeof next.player === "number" ? R.seats[next.player] : null;
    const listed = await s.api.legalActions(/** @type {any} */ (s.state), null, seat).catch(() => []);
    const same = listed.find((a) => sameAction(a, next));
    line.textContent = `▶ ${same ? same.label : describeAction(next, s.names, (iid) => nameOf(s, iid))}`;
  }
}

/** A private referee's replayed record: its positions come without events, so a step's are read from the
 *  views before and after it (changes.js), as a followed game's are. @param {Session} s @param {Replay} R */
function logFromViews(s, R) {
  const i = R.index;
  const views = (R.views ??= {}); // by seat and position: a step's two views are one seat's
  views[`${s.seat}:${i}`] = s.view;
  const before = views[`${s.seat}:${i - 1}`];
  if (i > 0 && !R.events[i] && before && s.view) {
    R.events[i] = changesBetween(before, s.view);
    s.events = replayLog(R, i);
    drawLog(s);
  }
}

/** Step to position `to` (within the line's playable end). @param {Session} s */
export function stepReplay(s, to) {
  const R = s.replay;
  if (!R) return;
  R.index = Math.max(0, Math.min(R.end, to));
  showReplayStep(s);
}
