// @ts-check
// Drawing the session: the board (board.js) from the view held, the actions offered, the log, and what
// stands beside them (the seat bar, the clocks, the match, the download, a replayed record's lines).
// Nothing here changes the game: a button calls its controller (play.js, replay.js).

import { cardFrame, cardName, cardWords, drawBoard, drawStatus, h } from "./board.js";
import { clockState, clockText, clocksLive, timeLeft } from "./clock.js";
import { actionName, eventText, t } from "./i18n.js";
import { computerLine, distinct, grouped, involved, primary, watchDelayText } from "./labels.js";
import { encodeJoin, linkTo, ownKeys } from "./links.js";
import { matchScore, nextGameChoice, offersNewGame } from "./match.js";
import { knowsEveryMove, ledgerKeepsTheGame, mode } from "./modes.js";
import { act, clickCard, download, newGame, nextMatchGame, switchSeat, undo } from "./play.js";
import { loadReplay, stepReplay } from "./replay.js";
import { actor, seatKey, seatOf } from "./session.js";
import { $, copyOrSelect, translatePage } from "./ui.js";

/** @typedef {import("./session.js").Session} Session */

/** A card's name as the seat drawn may know it. @param {Session} s */
export const nameOf = (s, iid, cid) => cardName(s.view, s.catalog, iid, s.lang, cid);

let generation = 0;

/** Draw everything from the session. @param {Session} s */
export function draw(s) {
  document.body.dataset.gen = String(++generation); // tests wait for the next drawing
  translatePage(s.lang);
  drawSeatBar(s);
  drawSideTools(s);
  const board = $("board");
  if (s.curtain !== null) {
    // Between seats, neither hand is in the page: the board is emptied, not covered.
    board.replaceChildren();
    for (const id of ["actions", "log", "status"]) $(id).replaceChildren();
    $("curtain-text").textContent = t(s.lang, "curtain", { name: s.names[s.curtain] });
    $("curtain-go").textContent = t(s.lang, "curtain_go", { name: s.names[s.curtain] });
    $("curtain").hidden = false;
    return;
  }
  $("curtain").hidden = true;
  const view = s.view;
  if (!view) return;
  drawStatus($("status"), view, s.catalog, s.lang, s.names);
  drawBoard(board, view, s.catalog, s.lang, s.names, (p) => openTrash(s, p));
  for (const el of board.querySelectorAll(".card[data-iid]")) {
    const iid = /** @type {HTMLElement} */ (el).dataset.iid;
    if (!iid) continue;
    el.addEventListener("click", () => clickCard(s, iid));
    el.addEventListener("keydown", (e) => {
      const key = /** @type {KeyboardEvent} */ (e).key;
      if (key === "Enter" || key === " ") {
        e.preventDefault();
        clickCard(s, iid);
      }
    });
  }
  drawActions(s);
  drawLog(s);
  markCards(s);
}

/** @param {Session} s */
function drawSeatBar(s) {
  const bar = $("seat-bar");
  if (s.mode === "watch") {
    const behind = watchDelayText(s.lang, s.view);
    bar.replaceChildren(h("p.private-note", {}, t(s.lang, "watching")), behind ? h("p#watch-delay.note", {}, behind) : "");
    return;
  }
  if (mode(s).switchesSeat) {
    const seats = s.computer ? [] : [0, 1];
    const buttons = seats.map((p) => h("button.seat" + (s.seat === p ? ".active" : ""),
      { dataset: { seat: String(p) }, onclick: () => switchSeat(s, p) }, s.names[p]));
    const follow = mode(s).turnsToActor && !s.computer
      ? h("label.follow", {}, h("input", { type: "checkbox", id: "follow", checked: s.follow,
          onchange: (e) => { s.follow = e.target.checked; } }), " ", t(s.lang, "follow"))
      : null;
    const tools = mode(s).undoes ? h("div.tools", {},
      h("button#undo.tool", { onclick: () => undo(s), disabled: !s.history.length, title: t(s.lang, "undo_hint") },
        `↶ ${t(s.lang, "undo")}`), h("span.tool-note", {}, t(s.lang, "undo_note"))) : null;
    const label = s.computer ? computerLine(s.lang, s.computer)
      : `${t(s.lang, "seat")} (${t(s.lang, s.mode === "hot" ? "hot_seat" : "tab_replay")}):`;
    bar.replaceChildren(h("span.seat-label", {}, label), ...buttons, ...(follow ? [follow] : []), ...(tools ? [tools] : []));
    return;
  }
  bar.replaceChildren(...privateSeatBar(s));
}

/** Private mode: said once (which seat, and that moves are final), then the links. @param {Session} s */
function privateSeatBar(s) {
  const parts = [h("p#private-note.private-note", {}, t(s.lang, "private_mode", { name: s.names[s.seat] }), " ",
    t(s.lang, "final_moves"), s.computer ? ` ${computerLine(s.lang, s.computer)}` : "")];
  const seats = s.net.seats;
  const other = seats && seats.length === 2 && !s.computer ? seats[1 - s.seat] : null;
  if (s.net.ledger && s.net.gameId) {
    const own = ownKeys(seatKey(s), s.computer, s.computer ? seatOf(s, s.computer.player) : null);
    const links = [[t(s.lang, "your_link"), linkTo(location.origin, s.net.gameId, own), "own-link"]];
    if (other) links.push([t(s.lang, "invite_device", { name: s.names[1 - s.seat] }), linkTo(location.origin, s.net.gameId, { seat: other }), "invite-link"]);
    if (s.net.watch) links.push([t(s.lang, "watch_link"), linkTo(location.origin, s.net.gameId, { watch: s.net.watch }), "watch-link"]);
    // Folded once the game is under way: the links are for the start (and a reload shows them again).
    parts.push(h("details.links", { open: (s.view?.seq ?? 0) < 2 ? true : undefined },
      h("summary", {}, t(s.lang, "links")),
      h("ul", {}, ...links.map(([text, href, id]) => linkItem(s, text, href, id)))));
  } else if (other && s.net.ledger === false) {
    const link = `${location.origin}/table#join=${encodeJoin({ state: s.state, seat: other, names: s.names, key: s.net.gameKey })}`;
    parts.push(h("p.invite", {}, t(s.lang, "invite", { name: s.names[1 - s.seat] }), " ",
      h("a#invite-link", { href: link, target: "_blank", rel: "noopener" }, link.slice(0, 48) + "…")));
    parts.push(h("p#no-ledger.private-note", {}, t(s.lang, "no_ledger")));
  }
  return parts;
}

/** One link with its Copy button: copied where the browser allows it (a secure context), else shown
 *  selected in a field for the user to copy; the line under it says which. @param {Session} s */
function linkItem(s, text, href, id) {
  const field = /** @type {HTMLInputElement} */ (h("input.link-field", { value: href, readonly: true, hidden: true,
    "aria-label": text, dataset: { for: id } }));
  const said = h("span.copy-said", { role: "status" });
  const copy = async () => {
    const copied = await copyOrSelect(href, field);
    said.textContent = ` ${t(s.lang, copied ? "copied" : "select_copy")}`;
  };
  return h("li", {}, h(`a#${id}`, { href, target: "_blank", rel: "noopener" }, text), " ",
    h("button.tool.copy", { type: "button", "aria-label": `${t(s.lang, "copy")}: ${text}`, onclick: copy },
      t(s.lang, "copy")), said, field);
}

/** Beside the board: the clocks, the match, the format, the game's download where this page knows every
 *  move (or the ledger keeps them), a replayed record's lines. @param {Session} s */
function drawSideTools(s) {
  const parts = [];
  const view = s.curtain === null ? s.view : null;
  if (view && view.clock) parts.push(clockBox(s, view));
  if (view && view.match) parts.push(matchLine(s, view));
  if (view && view.format) {
    const format = /** @type {any} */ (view.format);
    const name = s.formats.find((f) => f.id === format.id)?.name || format.id;
    parts.push(h("p#format-line.format-line", {}, t(s.lang, "format_of_game", { name, revision: format.revision })));
  }
  if (knowsEveryMove(s) || ledgerKeepsTheGame(s)) {
    const note = s.mode === "hot" ? "download_hot" : knowsEveryMove(s) ? "download_seat" : "download_ledger";
    parts.push(h("div.tools.download", {}, h("button#download.tool", { type: "button", onclick: () => download(s) },
      `⤓ ${t(s.lang, "download")}`), h("span.tool-note", {}, t(s.lang, note))));
  }
  if (s.replay && s.replay.record && mode(s).showsOnly) parts.push(recordListing(s, s.replay));
  $("side-tools").replaceChildren(...parts);
  const current = document.querySelector("#record-lines li.current");
  if (current) { // the position's line in the middle of the listing (the listing scrolls, not the page)
    const list = $("record-lines");
    list.scrollTop = /** @type {HTMLElement} */ (current).offsetTop - list.clientHeight / 2;
  }
}

/** Both clocks, the opponent's above as on the board, and the claim where the referee lists it. @param {Session} s */
function clockBox(s, view) {
  const order = mode(s).seatedClocks ? [1 - s.seat, s.seat] : [1, 0];
  const claim = s.actions.find((a) => a.type === "claim_time");
  const live = clocksLive(mode(s).live, s.view);
  return h("section#clocks.clocks", { "aria-label": t(s.lang, "clocks") },
    ...order.map((p) => h(`div.clock${view.clock.running === p && live ? ".running" : ""}`,
      { dataset: { player: String(p) } },
      h("span.clock-name", {}, s.names[p]), " ",
      h("span.clock-time", { role: "timer", "aria-label": `${s.names[p]}` }, clockText(timeLeft(view.clock, p, live))),
      h("span.clock-out", {}, ` ${t(s.lang, "time_out")}`))),
    claim ? h("button#claim.action.claim", { type: "button", onclick: () => act(s, claim) },
      t(s.lang, "claim", { name: s.names[1 - claim.player] })) : null);
}

/** The clocks counted down on the page (every quarter second). @param {Session} s */
export function tickClockBox(s) {
  const box = document.getElementById("clocks");
  const clock = s.view && s.view.clock;
  if (!box || !clock) return;
  const live = clocksLive(mode(s).live, s.view);
  for (const p of [0, 1]) {
    const el = box.querySelector(`.clock[data-player="${p}"]`);
    if (!el) continue;
    const ms = timeLeft(clock, p, live);
    /** @type {HTMLElement} */ (el.querySelector(".clock-time")).textContent = clockText(ms);
    const marks = clockState(ms);
    el.classList.toggle("out", marks.out);
    el.classList.toggle("low", marks.low);
  }
}

/** @param {Session} s */
function matchLine(s, view) {
  const m = view.match;
  return h("p#match-line.match-line", {}, t(s.lang, "match_score", matchScore(m, s.names)),
    m.winner !== null && m.winner !== undefined ? h("strong", {}, ` · ${t(s.lang, "match_won", { name: s.names[m.winner] })}`) : null);
}

const RECORD_SHOWN = 400; // lines of a long record drawn around the position (a record may hold 100,000 moves)

/** A replayed record, one line of it beside each position: the line of the move that made the position
 *  shown is highlighted; a click on a move's line steps there.
 *  @param {Session} s @param {import("./session.js").Replay} R */
function recordListing(s, R) {
  const rec = /** @type {NonNullable<typeof R.record>} */ (R.record);
  const lines = rec.text.replace(/\n$/, "").split("\n");
  const currentLine = R.index > 0 ? rec.lines[R.index - 1] : 0;
  const refusedLine = R.failAt !== null ? rec.lines[R.failAt] : 0;
  const moveOn = new Map(rec.lines.map((line, i) => [line, i + 1]));
  const from = Math.max(0, Math.min(currentLine - RECORD_SHOWN / 2, lines.length - RECORD_SHOWN));
  const shown = lines.slice(from, from + RECORD_SHOWN);
  return h("section#record.record", { "aria-labelledby": "record-title" },
    h("h2#record-title", {}, t(s.lang, "record")),
    h("ol#record-lines.record-lines", { start: String(from + 1), tabindex: "0", "aria-labelledby": "record-title" },
      ...shown.map((text, k) => {
        const n = from + k + 1;
        const move = moveOn.get(n);
        const cls = (n === currentLine ? ".current" : "") + (n === refusedLine ? ".refused" : "") + (move ? ".move" : "");
        return h(`li${cls}`, { dataset: { line: String(n) }, "aria-current": n === currentLine ? "step" : undefined,
          title: n === refusedLine ? t(s.lang, "record_refused") : undefined,
          onclick: move !== undefined && move <= R.end ? () => stepReplay(s, move) : undefined }, text);
      })));
}

/** @param {Session} s */
export function actionButton(s, a) {
  return h("button.action" + (a.type === "concede" ? ".concede" : ""), {
    type: "button",
    dataset: { type: a.type },
    onclick: () => act(s, a),
    onmouseenter: () => markCards(s, a),
    onmouseleave: () => markCards(s),
    onfocus: () => markCards(s, a),
    onblur: () => markCards(s),
  }, a.label || a.type);
}

/** The card panel: a clicked (or tapped) card's full text, and the listed actions about it. @param {Session} s */
function cardPanel(s, iid, withActions = true) {
  const cid = /** @type {any} */ (s.view).cards[iid];
  const card = cid ? s.catalog.get(cid) : null;
  const name = nameOf(s, iid);
  const text = h("p.cp-text", {}, card ? cardWords(card, s.lang) : name);
  if (!withActions) return h("section#card-panel.card-panel", { "aria-live": "polite" }, text);
  const mine = distinct(s.actions.filter((a) => primary(a) === iid));
  const targeted = mine.some((a) => involved(a).length > 1);
  return h("section#card-panel.card-panel", { "aria-live": "polite" }, text,
    h("h3.group-title", {}, mine.length ? t(s.lang, "card_actions", { card: name }) : t(s.lang, "no_card_actions", { card: name })),
    ...mine.map((a) => actionButton(s, a)),
    targeted ? h("p.hint", {}, t(s.lang, "targets_hint")) : null,
    h("button#all-actions.link", { type: "button", onclick: () => { s.selected = null; draw(s); } }, t(s.lang, "all_actions")));
}

/** The end step: the referee lists one discard (the last cards of the hand) and any set of that many
 *  hand cards is equally legal (docs/api.md §6), so the player picks the cards in the hand. @param {Session} s */
function discardPanel(s, owed) {
  const need = owed.cards.length;
  const chosen = s.discarding.filter((iid) => /** @type {any} */ (s.view).players[s.seat].hand.includes(iid));
  const ready = chosen.length === need;
  const names = chosen.map((iid) => nameOf(s, iid)).join(s.lang === "ja" ? "、" : ", ");
  return h("section#discard-panel.card-panel", { "aria-live": "polite" },
    h("p.cp-text", {}, t(s.lang, "discard_pick", { n: need, k: chosen.length })),
    h("button#discard-chosen.action", { type: "button", disabled: !ready,
      onclick: () => act(s, { type: "discard", player: owed.player, cards: chosen }) },
      ready ? t(s.lang, "discard_these", { cards: names }) : t(s.lang, "discard_choose", { n: need - chosen.length })));
}

/** A game's end: its result, New game (not beside a match's choice of who plays first), this game's replay
 *  (hot-seat), and the match's next game. @param {Session} s */
function gameOver(s, view) {
  const result = view.result ? t(s.lang, "winner", { name: s.names[view.result.winner], reason: t(s.lang, `reasons.${view.result.reason}`) }) : "";
  const choice = nextGameChoice(view, { private: s.mode === "private", seat: s.seat, computer: s.computer,
    holds: (p) => !!seatOf(s, p) });
  const parts = [h("div.game-over", {},
    h("p.over-text", {}, t(s.lang, "game_over_note", { result })),
    offersNewGame(choice) ? h("button#new-game.primary", { type: "button", onclick: () => newGame(s) }, t(s.lang, "new_game")) : null,
    s.mode === "hot" && s.moves.game ? h("button#replay-this.tool", { type: "button",
      onclick: () => loadReplay(s, JSON.stringify({ game: s.moves.game, actions: s.moves.played })) }, t(s.lang, "replay_this")) : null)];
  if (choice.kind === "wait") parts.push(h("p#next-wait.note", {}, t(s.lang, "next_wait", { name: s.names[choice.loser] })));
  if (choice.kind === "computer") setTimeout(() => nextMatchGame(s, choice.loser), 0);
  if (choice.kind === "choose") {
    parts.push(h("section#next-game.card-panel", {}, h("p.cp-text", {}, t(s.lang, "next_game")),
      ...choice.order.map((p) => h(`button#next-first-${p}.action`, { type: "button", onclick: () => nextMatchGame(s, /** @type {0|1} */ (p)) },
        t(s.lang, "next_first", { name: s.names[p] })))));
  }
  return parts;
}

/** @param {Session} s */
export function drawActions(s) {
  const box = $("actions");
  const view = s.view;
  if (!view) return;
  if (mode(s).showsOnly) {
    $("actions-title").hidden = true;
    box.classList.add("replaying");
    box.replaceChildren(...(s.selected && view.cards[s.selected] ? [cardPanel(s, s.selected, false)] : []));
    return;
  }
  box.classList.remove("replaying");
  $("actions-title").hidden = !mode(s).acts;
  $("selection").hidden = true;
  const parts = [];
  if (s.note) parts.push(h("p.note", { role: "status" }, s.note));
  if (view.phase === "over") {
    box.replaceChildren(...parts, ...gameOver(s, view));
    return;
  }
  const owed = s.actions.find((a) => a.type === "discard");
  if (owed) parts.push(discardPanel(s, owed));
  else if (s.selected) parts.push(cardPanel(s, s.selected));
  const waiting = !s.actions.some((a) => a.type !== "concede"); // conceding is open to both, always (11.2)
  if (!mode(s).acts) parts.push(h("p.empty", {}, t(s.lang, "follow_note")));
  else if (s.computer && actor(view) === s.computer.player) {
    parts.push(h("p.empty.thinking", { role: "status" }, t(s.lang, "thinking", { name: s.names[s.computer.player] })));
  } else if (waiting) parts.push(h("p.empty", {}, t(s.lang, "no_actions", { name: s.names[actor(view)] })));
  for (const [g, list] of grouped(s.actions)) {
    parts.push(h("section.group", { dataset: { group: g }, "aria-label": t(s.lang, `groups.${g}`) },
      h("h3.group-title", {}, `${t(s.lang, `groups.${g}`)} (${list.length})`), ...list.map((a) => actionButton(s, a))));
  }
  parts.push(...distinct(s.actions.filter((a) => a.type === "concede")).map((a) => actionButton(s, a)));
  box.replaceChildren(...parts);
}

/** @param {Session} s */
export function drawLog(s) {
  const view = s.view;
  if (!view) return;
  const who = (p) => s.names[p] ?? String(p);
  const name = (iid, cid) => nameOf(s, iid, cid);
  const items = s.events.map((ev, i) => h("li", { dataset: ev.seen ? { type: ev.type, seen: "1" } : { type: ev.type },
    title: ev.seen ? t(s.lang, "seen_hint") : undefined },
    h("span.n", { "aria-hidden": "true" }, `${i + 1}.`), " ",
    h("span.ev", {}, eventText(s.lang, ev, name, who, (type) => actionName(s.lang, type), (iid) => !!view.cards[iid]))));
  const log = $("log");
  log.replaceChildren(...items);
  log.scrollTop = log.scrollHeight;
}

/** Highlight what can be clicked now, or the cards of a hovered action. @param {Session} s */
export function markCards(s, hovered) {
  const sources = new Set(s.actions.map(primary).filter(Boolean));
  const targets = new Set(s.selected ? s.actions.filter((a) => primary(a) === s.selected)
    .flatMap((a) => involved(a).slice(1)) : []);
  const lit = new Set(hovered ? involved(hovered) : []);
  for (const el of $("board").querySelectorAll(".card[data-iid]")) {
    const iid = /** @type {HTMLElement} */ (el).dataset.iid || "";
    el.classList.toggle("selectable", !s.selected && sources.has(iid));
    el.classList.toggle("selected", s.selected === iid);
    el.classList.toggle("targetable", targets.has(iid));
    el.classList.toggle("lit", lit.has(iid));
    el.classList.toggle("chosen", s.discarding.includes(iid));
  }
}

/** @param {Session} s */
function openTrash(s, p) {
  const view = s.view;
  if (!view) return;
  $("trash-title").textContent = t(s.lang, "of_trash", { name: s.names[p] });
  const trash = view.players[p].trash;
  $("trash-cards").replaceChildren(...(trash.length ? trash.map((iid) =>
    cardFrame(iid, s.catalog.get(view.cards[iid]) || null, s.lang)) : [h("p.trash-empty", {}, t(s.lang, "trash_empty"))]));
  /** @type {HTMLDialogElement} */ ($("trash-dialog")).showModal();
}
