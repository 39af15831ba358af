// @ts-check
// Listed actions as the page offers them: one button per move, in the groups of a turn, the cards an
// action names, and an action the referee did not list (a recorded illegal one) in words.

import { t } from "./i18n.js";

// The groups of the actions list, in the order a turn goes.
export const GROUPS = {
  mulligan: "setup", keep: "setup", play_case: "case", skip_case: "case",
  play_fairy: "play", play_evidence: "play", dispatch: "dispatch", redispatch: "dispatch", recall: "dispatch",
  investigate: "investigate", cast_spell: "spells", use_ability: "spells", counter: "spells",
  draw: "turn", pass: "turn", end_turn: "turn", discard: "turn",
};
export const GROUP_ORDER = ["setup", "case", "play", "dispatch", "investigate", "spells", "turn", "other"];

/** One button per move: listed actions with one label are the same move for this player (the referee
 *  words two different moves differently), so the first of them stands for all. */
export function distinct(actions) {
  const seen = new Map();
  for (const a of actions) if (!seen.has(a.label || JSON.stringify(a))) seen.set(a.label || JSON.stringify(a), a);
  return [...seen.values()];
}

/** The listed moves by group, in a turn's order; conceding and the clock's claim stand apart. */
export function grouped(actions) {
  const groups = new Map();
  for (const a of distinct(actions)) {
    if (a.type === "concede" || a.type === "claim_time") continue;
    const g = GROUPS[a.type] || "other";
    if (!groups.has(g)) groups.set(g, []);
    groups.get(g).push(a);
  }
  return GROUP_ORDER.filter((g) => groups.has(g)).map((g) => /** @type {[string, any[]]} */ ([g, groups.get(g)]));
}

/** The ids an action names, its first one the card it is "about". */
export function involved(a) {
  const ids = [a.card, a.fairy, a.case, ...(a.targets || []), ...(a.cards || [])].filter(Boolean);
  return [...new Set(ids)];
}
export const primary = (a) => involved(a)[0];

/** The listed moves of the card `source` that name `iid` as a target (a click on it then means that move). */
export const targeting = (actions, source, iid) =>
  distinct(actions.filter((a) => primary(a) === source && involved(a).slice(1).includes(iid)));

/** An action the referee did not list in words: its type and the cards it names as the seat may see
 *  them (`nameOf`), never an instance id. */
export function describeAction(action, names, nameOf) {
  const ids = involved(action);
  const who = typeof action.player === "number" ? `${names[action.player] ?? action.player}: ` : "";
  return `${who}${action.type}${ids.length ? ` (${ids.map((iid) => nameOf(iid)).join(", ")})` : ""}`;
}

/** Whether a listed action is the recorded `action` (a record leaves out what the listing fills in). */
export function sameAction(listed, action) {
  const { label, ...a } = listed;
  const { pay, ...b } = action;
  return JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries({ targets: a.targets, ...b })
    .filter(([k, v]) => v !== undefined || k in a).sort());
}

/** "against the computer (greedy, quick)" */
export function computerLine(lang, c) {
  if (!c) return "";
  const strength = { 100: "strength_quick", 500: "strength_normal", 2000: "strength_strong" }[c.budget];
  return t(lang, "vs_computer", { bot: c.bot, strength: strength ? t(lang, strength) : `${c.budget} ms` });
}

/** A refused deal in one line: the rule, the detail, then each violation the detail does not already say. */
export function refusalText(lang, problem) {
  const rule = problem.rule ? `${t(lang, "rule")} ${problem.rule} ` : "";
  const detail = `${problem.code ? `${problem.code}: ` : ""}${problem.detail || ""}`;
  const more = (problem.violations || []).filter((v) => !detail.includes(v.detail))
    .map((v) => `${v.rule} ${v.detail}`);
  return `${rule}${detail}${more.length ? ` — ${[...new Set(more)].join(" · ")}` : ""}`;
}

/** A spectator's view held some moves behind the game (its `watch_delay`, docs/api.md §12): said, else "". */
export function watchDelayText(lang, view) {
  const n = view && typeof view.watch_delay === "number" ? view.watch_delay : 0;
  return n > 0 ? t(lang, "watch_delay", { n }) : "";
}
