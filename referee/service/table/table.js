// @ts-check
// The table page: deal, play (hot-seat or private seats) and replay, all through the API.
// The page never reads a plain state: every picture is drawn from /v1/view for one seat,
// and the actions offered are /v1/legal-actions for that seat, labelled by the referee.

import { RefereeError, createClient } from "./api.js";
import { cardFrame, cardName, cardWords, drawBoard, drawStatus, h } from "./board.js";
import { actionName, eventText, t } from "./i18n.js";

/** @typedef {import("./api.js").State} State */
/** @typedef {import("./api.js").View} View */
/** @typedef {import("./api.js").ListedAction} ListedAction */

const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

const S = {
  lang: localStorage.getItem("af-table-lang") === "ja" ? "ja" : "en",
  mode: "hot", // hot | private | replay
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
};

const HOT_KEY = "af-table-hot"; // the hot-seat game in this browser's storage: it survives a reload
const HISTORY_KEPT = 60; // positions kept for undo across a reload (storage is a few MiB)

const api = createClient({ language: () => S.lang });
const catalog = new Map();

// -- helpers -----------------------------------------------------------------

const seatKey = () => (S.seats ? S.seats[S.seat] || null : null);
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

async function refresh() {
  if (S.state === null) return;
  const state = S.state;
  const seat = seatKey();
  const [view, actions] = await Promise.all([
    api.view(state, /** @type {0|1} */ (S.seat), seat),
    S.mode === "replay" ? Promise.resolve([]) : api.legalActions(state, /** @type {0|1} */ (S.seat), seat),
  ]);
  if (S.state !== state) return; // a newer state arrived meanwhile
  S.view = view;
  S.actions = S.mode === "private" ? actions : actions.filter((a) => a.player === S.seat);
  if (S.mode === "hot" && S.follow && view.phase !== "over" && actor(view) !== S.seat) {
    S.seat = actor(view);
    S.curtain = S.seat;
    S.view = null;
    draw();
    return;
  }
  draw();
}

let generation = 0;

function draw() {
  document.body.dataset.gen = String(++generation); // tests wait for the next drawing
  translatePage();
  drawSeatBar();
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
  if (S.mode === "replay" || S.mode === "hot") {
    const buttons = [0, 1].map((p) => h("button.seat" + (S.seat === p ? ".active" : ""),
      { dataset: { seat: String(p) }, onclick: () => switchSeat(p) }, S.names[p]));
    const follow = S.mode === "hot"
      ? h("label.follow", {}, h("input", { type: "checkbox", id: "follow", checked: S.follow,
          onchange: (e) => { S.follow = e.target.checked; } }), " ", t(S.lang, "follow"))
      : null;
    const tools = S.mode === "hot" ? h("div.tools", {},
      h("button#undo.tool", { onclick: undo, disabled: !S.history.length, title: t(S.lang, "undo_hint") },
        `↶ ${t(S.lang, "undo")}`), h("span.tool-note", {}, t(S.lang, "undo_note")),
      h("button#download.tool", { onclick: download }, `⤓ ${t(S.lang, "download")}`)) : null;
    bar.replaceChildren(h("span.seat-label", {}, `${t(S.lang, "seat")} (${t(S.lang, S.mode === "hot" ? "hot_seat" : "tab_replay")}):`),
      ...buttons, ...(follow ? [follow] : []), ...(tools ? [tools] : []));
    return;
  }
  const parts = [h("p.private-note", {}, t(S.lang, "private_mode", { name: S.names[S.seat] }), " ", t(S.lang, "final_moves"))];
  const other = S.seats && S.seats.length === 2 ? S.seats[1 - S.seat] : null;
  const gameId = S.view && /** @type {any} */ (S.view).game_id;
  if (other && S.ledger && gameId) {
    const link = `${location.origin}/table/remote.html#game=${gameId}&seat=${other}`;
    parts.push(h("p.invite", {}, t(S.lang, "invite_device", { name: S.names[1 - S.seat] }), " ",
      h("a#invite-link", { href: link, target: "_blank", rel: "noopener" }, link)));
    if (S.watch) {
      const watch = `${location.origin}/table/watch.html#game=${gameId}&watch=${S.watch}`;
      parts.push(h("p.invite", {}, t(S.lang, "watch_link"), " ",
        h("a#watch-link", { href: watch, target: "_blank", rel: "noopener" }, watch)));
    }
  } else if (other) {
    const link = `${location.origin}/table#join=${encodeJoin(S.state, other)}`;
    parts.push(h("p.invite", {}, t(S.lang, "invite", { name: S.names[1 - S.seat] }), " ",
      h("a#invite-link", { href: link, target: "_blank", rel: "noopener" }, link.slice(0, 48) + "…")));
    if (S.ledger === false) parts.push(h("p#no-ledger.private-note", {}, t(S.lang, "no_ledger")));
  }
  bar.replaceChildren(...parts);
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
  $("actions-title").hidden = false;
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
    box.replaceChildren(...parts);
    return;
  }
  const owed = S.actions.find((a) => a.type === "discard");
  if (owed) parts.push(discardPanel(owed));
  else if (S.selected) parts.push(cardPanel(S.selected));
  const waiting = !S.actions.some((a) => a.type !== "concede"); // conceding is open to both, always (11.2)
  if (waiting) parts.push(h("p.empty", {}, t(S.lang, "no_actions", { name: S.names[actor(view)] })));
  const groups = new Map();
  for (const a of distinct(S.actions)) {
    if (a.type === "concede") continue;
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
  const items = S.events.map((ev, i) => h("li", { dataset: { type: ev.type } },
    h("span.n", { "aria-hidden": "true" }, `${i + 1}.`), " ",
    h("span.ev", {}, eventText(S.lang, ev, nameOf, who, (type) => actionName(S.lang, type)))));
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

async function act(action) {
  if (S.busy || S.state === null) return;
  const { label, ...plain } = action;
  S.busy = true;
  try {
    const before = S.state;
    const step = await api.apply(S.state, plain, seatKey());
    clearProblem();
    S.selected = null;
    S.note = null;
    S.discarding = [];
    if (S.mode === "hot") {
      S.history.push({ state: before, events: S.events.length, seat: S.seat });
      S.played.push(plain);
    }
    adopt(step.state, step.events);
    await refresh();
  } catch (err) {
    const { rule, text } = describeError(err);
    S.problem = { action: plain, state: S.state };
    showProblem(text, rule);
  } finally {
    S.busy = false;
  }
}

/** Hot-seat undo: back to the position before the last move (the page's own history; no server call
 *  changes anything: a plain state is a value). Off in private mode, where a move is final. */
async function undo() {
  if (S.mode !== "hot" || S.busy || !S.history.length) return;
  const last = /** @type {{state: State, events: number, seat: number}} */ (S.history.pop());
  S.played.pop();
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
    history: S.history.slice(-n), follow: S.follow });
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
  S.seat = view.phase === "over" ? 0 : actor(view);
  S.curtain = view.phase === "over" ? null : S.seat;
  $("tab-play").removeAttribute("disabled");
  showTab("play");
  await refresh();
  return true;
}

/** Back to the Deal form; the finished game leaves the browser's storage. */
function newGame() {
  localStorage.removeItem(HOT_KEY);
  S.state = null;
  S.view = null;
  S.game = null;
  S.history = [];
  S.played = [];
  S.note = null;
  $("tab-play").setAttribute("disabled", "");
  showTab("deal");
  $("deal-button").focus();
}

/** "Download this game": the replay body (POST /v1/replay, the Replay tab) and a `referee check`
 *  scenario of the game so far, its `then` the position reached. */
function download() {
  if (!S.game || !S.view) return;
  const view = S.view;
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
}

function save(filename, text) {
  const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  const a = h("a", { href: url, download: filename, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** A new state (and its events): kept, and shared with this game's other tabs. */
function adopt(state, events) {
  S.state = state;
  S.events.push(...(events || []));
  if (S.mode === "private" && S.gameKey) {
    localStorage.setItem(S.gameKey, JSON.stringify({ state, at: Date.now() }));
  }
  saveHot();
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
    sel.onchange = () => { $(`paste-${p}`).hidden = sel.value !== "paste"; };
  }
}

function deckOf(p) {
  const value = /** @type {HTMLSelectElement} */ ($(`deck-${p}`)).value;
  if (value !== "paste") return sampleDecks[Number(value)].deck;
  const text = /** @type {HTMLTextAreaElement} */ ($(`paste-${p}`)).value;
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${t(S.lang, p ? "player_2" : "player_1")}: ${S.lang === "ja" ? "デッキがJSONではありません" : "the deck is not JSON"}`);
  }
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
    };
    const step = await api.newGame(/** @type {any} */ (game));
    S.game = step.seats ? null : { ...game, seed: typeof step.state === "object" ? step.state.seed : undefined };
    startGame(step, names, step.seats ? 0 : null);
  } catch (err) {
    const { rule, text } = describeError(err);
    const violations = err instanceof RefereeError && err.problem.violations
      ? err.problem.violations.map((v) => `${v.rule} ${v.detail}`).join(" · ") : "";
    errorBox.textContent = `${rule ? `${t(S.lang, "rule")} ${rule} ` : ""}${text}${violations ? ` — ${violations}` : ""}`;
    errorBox.hidden = false;
  }
}

/** Begin playing from a dealt game: hot-seat, or private with `mySeat` (both seats held by the dealer's tab at first). */
function startGame(step, names, mySeat) {
  S.mode = step.seats ? "private" : "hot";
  S.seats = step.seats || null;
  S.names = names;
  S.state = null;
  S.events = [];
  S.replay = null;
  S.curtain = null;
  S.selected = null;
  S.history = [];
  S.played = [];
  S.note = null;
  clearProblem();
  $("replay-bar").hidden = true;
  S.ledger = null;
  S.watch = step.watch || null;
  if (S.mode === "private") {
    S.seat = mySeat ?? 0;
    S.gameKey = `af-table:${step.commitment || String(step.state).slice(0, 64)}`;
    sessionStorage.setItem("af-table-game", JSON.stringify({ seats: S.seats, seat: S.seat, names, key: S.gameKey }));
  } else {
    S.seat = 0;
  }
  adopt(step.state, step.events);
  ($("tab-play")).removeAttribute("disabled");
  showTab("play");
  return refresh().then(() => (S.mode === "private" ? askForLedger() : undefined));
}

/** Whether the referee keeps a ledger (docs/api.md §11), as its readiness answer says. */
async function askForLedger() {
  try {
    S.ledger = (await api.ready()).ledger === true;
  } catch {
    S.ledger = null; // draining or unreachable: keep the one-browser invite, say nothing
  }
  await refresh();
}

// -- private mode: a second tab joins with the other seat ---------------------------------

function encodeJoin(state, seat) {
  const json = JSON.stringify({ state, seat, names: S.names, key: S.gameKey });
  return btoa(unescape(encodeURIComponent(json))).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function decodeJoin(text) {
  const b64 = text.replaceAll("-", "+").replaceAll("_", "/");
  return JSON.parse(decodeURIComponent(escape(atob(b64))));
}

async function joinFromHash() {
  const m = location.hash.match(/^#join=(.+)$/);
  if (!m) return false;
  const join = decodeJoin(m[1]);
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
  S.state = state;
  S.events = [];
  $("tab-play").removeAttribute("disabled");
  showTab("play");
  await refresh();
  return true;
}

// Another tab of this game moved: take its newer state (the later `seq` wins).
window.addEventListener("storage", async (e) => {
  if (S.mode !== "private" || e.key !== S.gameKey || !e.newValue) return;
  const { state } = JSON.parse(e.newValue);
  const view = await api.view(state, /** @type {0|1} */ (S.seat), seatKey());
  if (S.view && typeof view.seq === "number" && typeof S.view.seq === "number" && view.seq <= S.view.seq) return;
  S.state = state;
  await refresh();
});

// -- replay -------------------------------------------------------------------------------

/** Load a replay body or a `referee expand` file: compute every position by applying the actions. */
async function loadReplay(text) {
  const errorBox = $("replay-error");
  errorBox.hidden = true;
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
  const R = { states: [], events: [], actions, failAt: null, violation: null, focus: body.focus ?? null, index: 0, name: body.name || "" };
  try {
    if (body.game) {
      const step = await api.newGame(body.game);
      R.states.push(step.state);
      R.events.push(step.events);
    } else {
      R.states.push(body.state);
      R.events.push([]);
    }
    const suspect = body.refused ? body.refused.index : body.focus;
    for (let i = 0; i < actions.length; i++) {
      if (i === suspect) {
        // Known to be refused: ask /v1/validate (a 200), rather than have /v1/apply answer 422.
        const check = await api.validate(R.states[i], actions[i]);
        if (!check.legal) {
          R.failAt = i;
          R.violation = check.violation;
          break;
        }
      }
      try {
        const step = await api.apply(R.states[i], actions[i]);
        R.states.push(step.state);
        R.events.push(step.events);
      } catch (err) {
        if (!(err instanceof RefereeError) || err.status >= 500) throw err;
        R.failAt = i;
        R.violation = err.problem;
        break;
      }
    }
  } catch (err) {
    const { rule, text: msg } = describeError(err);
    errorBox.textContent = `${rule ? `${t(S.lang, "rule")} ${rule} ` : ""}${msg}`;
    errorBox.hidden = false;
    return;
  }
  const players = (body.game && body.game.players) || (body.state && body.state.players?.map((p) => p.name));
  S.names = players && players.length === 2 ? players : [t(S.lang, "player_1"), t(S.lang, "player_2")];
  S.mode = "replay";
  S.seats = null;
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

async function showReplayStep() {
  const R = S.replay;
  if (!R) return;
  S.state = R.states[R.index];
  S.events = R.events.slice(0, R.index + 1).flat();
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
  R.index = Math.max(0, Math.min(R.states.length - 1, to));
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
      await loadDecks();
      if (S.state !== null) {
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
  $("replay-file").addEventListener("change", async (e) => {
    const file = /** @type {HTMLInputElement} */ (e.target).files?.[0];
    if (file) {
      const text = await file.text();
      /** @type {HTMLTextAreaElement} */ ($("replay-text")).value = text;
      await loadReplay(text);
    }
  });
  $("rp-first").addEventListener("click", () => stepReplay(0));
  $("rp-prev").addEventListener("click", () => stepReplay(S.replay.index - 1));
  $("rp-next").addEventListener("click", () => stepReplay(S.replay.index + 1));
  $("rp-last").addEventListener("click", () => stepReplay(S.replay.states.length - 1));
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
  await loadDecks();
  if (!(await joinFromHash()) && !(await restoreHot())) showTab("deal");
  document.body.dataset.ready = "1";
}

main().catch((err) => {
  const box = $("deal-error");
  box.textContent = String(err && err.message ? err.message : err);
  box.hidden = false;
});
