// @ts-check
// The Event tab: an event started from a list of names, each round paired by the referee and shown by
// table, results and drops entered in the last round, the standings and ratings, the document downloaded
// and loaded. The referee keeps no event (docs/api.md §17): this page keeps the document in the browser's
// storage (store.js) and sends it whole to /v1/events/pair, /standings and /check.

import { h } from "./board.js";
import { matchScores, newEvent, randomSeed, readNames, resultFromKey, resultKey, resultText, roundComplete,
  standingCells, withDrop, withResult } from "./event.js";
import { t } from "./i18n.js";
import { loadEvent, saveEvent } from "./store.js";
import { $, describeError, problemOf, saveFile } from "./ui.js";

/** @typedef {import("./session.js").Session} Session */
/** @typedef {{doc: any, table: any, note: string, asked: number}} EventPage  the document, its standings, the last
 *  word said, and the standings asked so far (only the latest answer is drawn) */

/** The tab's controls wired; the kept event drawn. @param {Session} s */
export function wireEvent(s) {
  /** @type {EventPage} */
  const ev = { doc: loadEvent(localStorage), table: null, note: "", asked: 0 };
  /** @type {HTMLDetailsElement} */ ($("ev-new")).open = !ev.doc;
  $("ev-form").addEventListener("submit", (e) => { e.preventDefault(); start(s, ev); });
  $("ev-pair").addEventListener("click", () => pairNext(s, ev));
  $("ev-check").addEventListener("click", () => check(s, ev));
  $("ev-download").addEventListener("click", () => {
    if (ev.doc) saveFile(`${(ev.doc.name || "event").replace(/[^\w.-]+/g, "_")}.json`, `${JSON.stringify(ev.doc, null, 2)}\n`);
  });
  $("ev-file").addEventListener("change", (e) => loadFile(s, ev, /** @type {HTMLInputElement} */ (e.target).files?.[0]));
  for (const b of document.querySelectorAll("[data-lang]")) b.addEventListener("click", () => refresh(s, ev));
  if (ev.doc) refresh(s, ev);
  else draw(s, ev);
}

/** A new event from the form: names checked here (a clear word before any request), the rest by the referee. */
async function start(s, ev) {
  const value = (id) => /** @type {HTMLInputElement} */ ($(id)).value.trim();
  const { names, repeated, tooLong } = readNames(value("ev-names"));
  const refused = repeated.length ? t(s.lang, "ev_names_repeated", { names: repeated.join(", ") })
    : tooLong.length ? t(s.lang, "ev_names_long", { names: tooLong.join(", ") })
      : names.length < 2 ? t(s.lang, "ev_names_few") : "";
  if (refused) return showEventProblem(refused);
  const doc = newEvent({ names, seed: value("ev-seed") || randomSeed(), bestOf: Number(value("ev-best-of")),
    cut: Number(value("ev-cut")), swissRounds: Number(value("ev-swiss")) || null, name: value("ev-name") });
  if (await adopt(s, ev, doc, "")) /** @type {HTMLDetailsElement} */ ($("ev-new")).open = false;
}

/** Take `doc` as the event once the referee ranks it (so a document it refuses is never kept). */
async function adopt(s, ev, doc, note) {
  const asked = ++ev.asked;
  try {
    const table = await s.api.eventStandings(doc);
    if (asked !== ev.asked) return false; // a later change is on its way: its answer is drawn
    ev.table = table;
  } catch (err) {
    refuse(s, err);
    return false;
  }
  ev.doc = doc;
  ev.note = note;
  saveEvent(localStorage, doc);
  $("ev-problem").hidden = true;
  draw(s, ev);
  return true;
}

/** A result or a drop entered: kept at once (the next change builds on it, however fast it comes), then ranked. */
function edit(s, ev, doc) {
  ev.doc = doc;
  saveEvent(localStorage, doc);
  adopt(s, ev, doc, "");
}

async function refresh(s, ev) {
  if (ev.doc) await adopt(s, ev, ev.doc, ev.note);
  else draw(s, ev);
}

async function pairNext(s, ev) {
  if (!ev.doc) return;
  try {
    const answer = await s.api.pairEvent(ev.doc);
    const note = answer.swiss_ended ? t(s.lang, "ev_swiss_ended") : t(s.lang, "ev_paired", { n: answer.round });
    await adopt(s, ev, answer.event, note);
  } catch (err) {
    refuse(s, err);
  }
}

async function check(s, ev) {
  if (!ev.doc) return;
  try {
    await s.api.checkEvent(ev.doc);
    $("ev-problem").hidden = true;
    ev.note = t(s.lang, "ev_ok");
    draw(s, ev);
  } catch (err) {
    refuse(s, err);
  }
}

async function loadFile(s, ev, file) {
  if (!file) return;
  let doc;
  try {
    doc = JSON.parse(await file.text());
  } catch (err) {
    return showEventProblem(t(s.lang, "ev_bad_file", { detail: String(/** @type {Error} */ (err).message) }));
  }
  await adopt(s, ev, doc, "");
}

/** A refusal in words: the rule, its round and table (a 422), or the fields a 400 names. */
function refuse(s, err) {
  const { rule, text } = describeError(err);
  const p = problemOf(err) || {};
  const where = [p.round ? t(s.lang, "ev_round_of", { n: p.round }) : "", p.table ? t(s.lang, "ev_table_of", { n: p.table }) : ""];
  const fields = (p.errors || []).slice(0, 5).map((e) => (typeof e === "string" ? e : `${e.field || e.loc || ""} ${e.message || e.msg || ""}`.trim()));
  showEventProblem([where.filter(Boolean).join(", "), text, ...fields].filter(Boolean).join(" · "), rule);
}

function showEventProblem(text, rule) {
  const box = $("ev-problem");
  box.replaceChildren(...(rule ? [h("strong.rule", {}, `RULES ${rule}`), " "] : []), text);
  box.hidden = false;
}

/** The tab drawn from the document and its standings. @param {Session} s @param {EventPage} ev */
function draw(s, ev) {
  const doc = ev.doc;
  for (const id of ["ev-pair", "ev-check", "ev-download"]) /** @type {HTMLButtonElement} */ ($(id)).disabled = !doc;
  /** @type {HTMLButtonElement} */ ($("ev-pair")).disabled = !doc || !roundComplete(doc) || !!ev.table?.winner;
  const winner = ev.table?.winner;
  const said = [
    doc ? t(s.lang, "ev_summary", { name: doc.name || t(s.lang, "tab_event"), players: doc.players.length,
      best_of: doc.best_of, seed: doc.seed }) : t(s.lang, "ev_none"),
    doc?.swiss_ended && !ev.note ? t(s.lang, "ev_swiss_ended") : "",
    ev.note,
  ].filter(Boolean);
  $("ev-note").replaceChildren(...said.map((x) => h("span", {}, x)), ...(winner ? [h("strong.ev-winner", {}, t(s.lang, "ev_winner", { name: winner }))] : []));
  $("ev-standings").replaceChildren(doc && ev.table ? standingsTable(s, ev.table) : "");
  $("ev-rounds").replaceChildren(...(doc ? doc.rounds.map((_, i) => roundBox(s, ev, doc.rounds.length - 1 - i)) : []));
}

function standingsTable(s, table) {
  const heads = ["ev_rank", "ev_player", "ev_points", "ev_record", "ev_omw", "ev_gw", "ev_ogw", "ev_rating", "ev_dropped"];
  return h("table.ev-table", {},
    h("thead", {}, h("tr", {}, heads.map((k) => h("th", { scope: "col" }, t(s.lang, k))))),
    h("tbody", {}, table.standings.map((row) => h("tr", { class: row.dropped ? "dropped" : null },
      standingCells(row, table.ratings[row.player], t(s.lang, "ev_dropped_yes"))
        .map((cell, i) => (i === 1 ? h("th", { scope: "row" }, cell) : h("td", {}, cell)))))));
}

/** Round `index` (0-based) by table; the last round's matches take results and its players drops. */
function roundBox(s, ev, index) {
  const doc = ev.doc;
  const round = doc.rounds[index];
  const last = index === doc.rounds.length - 1;
  const title = t(s.lang, round.cut ? "ev_cut_round" : "ev_round", { n: index + 1 });
  const forfeits = (name) => t(s.lang, "ev_forfeits", { name });
  const rows = round.pairings.map((p, i) => h("tr", {},
    h("td", {}, p.players ? String(p.table ?? i + 1) : t(s.lang, "ev_bye")),
    h("td.ev-players", {}, p.players ? `${p.players[0]} – ${p.players[1]}` : p.bye),
    h("td", {}, !p.players ? "" : last ? resultMenu(s, ev, p, i) : resultText(p.result, forfeits))));
  const drops = last ? dropBoxes(s, ev, round) : (round.drops || []).length
    ? h("p.ev-drops", {}, round.drops.map((name) => t(s.lang, "ev_drops", { name })).join(", ")) : null;
  return h("details.ev-round", { open: last || null },
    h("summary", {}, title),
    h("div.ev-scroll", { role: "region", "aria-label": title, tabindex: "0" },
      h("table.ev-table", {},
        h("thead", {}, h("tr", {}, ["ev_table", "ev_players", "ev_result"].map((k) => h("th", { scope: "col" }, t(s.lang, k))))),
        h("tbody", {}, rows))),
    drops);
}

/** A match's result: every score its best-of allows, in the pairing's order, or a forfeit by either player. */
function resultMenu(s, ev, pairing, index) {
  const [a, b] = pairing.players;
  const options = [["", t(s.lang, "ev_no_result")],
    ...matchScores(ev.doc.best_of).map((g) => [g.join("-"), g.join("–")]),
    ...[a, b].map((p) => [`forfeit:${p}`, t(s.lang, "ev_forfeits", { name: p })])];
  const chosen = resultKey(pairing.result);
  const menu = h("select", { "aria-label": t(s.lang, "ev_result_of", { n: pairing.table ?? index + 1, a, b }),
    dataset: { table: String(pairing.table ?? index + 1) } },
  options.map(([value, label]) => h("option", { value, selected: value === chosen || null }, label)));
  menu.addEventListener("change", () => edit(s, ev, withResult(ev.doc, index, resultFromKey(menu.value, ev.doc.best_of))));
  return menu;
}

/** One box a player of the last round: ticked, they leave after it (`drops`). */
function dropBoxes(s, ev, round) {
  const players = round.pairings.flatMap((p) => p.players || [p.bye]);
  const dropped = new Set(round.drops || []);
  return h("div.ev-drops", {}, players.map((name) => {
    const box = h("input", { type: "checkbox", checked: dropped.has(name) || null });
    box.addEventListener("change", () => edit(s, ev, withDrop(ev.doc, name, /** @type {HTMLInputElement} */ (box).checked)));
    return h("label", {}, box, " ", t(s.lang, "ev_drops", { name }));
  }));
}
