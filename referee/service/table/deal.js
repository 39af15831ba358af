// @ts-check
// The Deal tab: the sample decks and the deck box (every problem of a deck, by line, in the format chosen,
// docs/api.md §13), the formats, the opponent, the clock and match, and the deal that starts a game.

import { h } from "./board.js";
import { deckFromText, formatFromChoice, problemsByLine, refusalLines, samplesFor } from "./deckcheck.js";
import { hasLedger, remember, startFollowing, stopFollowing } from "./follow.js";
import { t } from "./i18n.js";
import { refusalText } from "./labels.js";
import { adopt, refresh } from "./play.js";
import { emptyMoves, seatKey } from "./session.js";
import { saveMoves } from "./store.js";
import { $, clearProblem, describeError, problemOf, showTab } from "./ui.js";

/** @typedef {import("./session.js").Session} Session */

const select = (id) => /** @type {HTMLSelectElement} */ ($(id));
const input = (id) => /** @type {HTMLInputElement} */ ($(id));

/** The sample decks (GET /table/decks.json) in each player's picker, those legal in the format chosen
 *  (each sample says which formats it is legal in), and the deck box. @param {Session} s */
export async function loadDecks(s) {
  s.sampleDecks = (await s.api.sampleDecks()).decks;
  fillDeckPickers(s);
}

/** @param {Session} s */
function fillDeckPickers(s) {
  const format = formatFromChoice(select("format").value);
  const fit = new Set(samplesFor(s.sampleDecks, typeof format === "string" ? format : format?.id));
  for (const p of [0, 1]) {
    const sel = select(`deck-${p}`);
    const current = sel.value;
    const options = s.sampleDecks.map((d, i) => [d, i]).filter(([d]) => fit.has(d))
      .map(([d, i]) => h("option", { value: String(i) }, s.lang === "ja" ? d.name_ja : d.name));
    sel.replaceChildren(...options, h("option", { value: "paste" }, t(s.lang, "paste")));
    const values = options.map((o) => /** @type {HTMLOptionElement} */ (o).value);
    sel.value = values.includes(current) || current === "paste" ? current : values[Math.min(p, values.length - 1)] ?? "paste";
    $(`paste-${p}`).hidden = sel.value !== "paste";
    sel.onchange = () => {
      $(`paste-${p}`).hidden = sel.value !== "paste";
      checkDeckSoon(s, p);
    };
    $(`paste-${p}`).oninput = () => checkDeckSoon(s, p);
  }
}

/** A player's deck as the deal sends it: a sample's, or the deck box's text. @param {Session} s */
function deckOf(s, p) {
  const value = select(`deck-${p}`).value;
  if (value !== "paste") return s.sampleDecks[Number(value)].deck;
  try {
    return deckFromText(/** @type {HTMLTextAreaElement} */ ($(`paste-${p}`)).value);
  } catch {
    throw new Error(`${t(s.lang, p ? "player_2" : "player_1")}: ${t(s.lang, "deck_not_json")}`);
  }
}

/** The catalog's formats (GET /v1/formats) in the deal form: each at its latest revision, and each
 *  earlier revision by its date. @param {Session} s */
export async function loadFormats(s) {
  try {
    s.formats = (await s.api.formats()).formats;
  } catch {
    s.formats = [];
  }
  const sel = select("format");
  const current = sel.value;
  const options = [h("option", { value: "" }, t(s.lang, "no_format"))];
  for (const f of s.formats) {
    const dates = f.revisions.map((r) => r.from);
    const latest = dates[dates.length - 1];
    options.push(h("option", { value: f.id }, t(s.lang, "format_latest", { name: f.name, from: latest })));
    for (const from of dates.slice(0, -1).reverse()) {
      options.push(h("option", { value: `${f.id}@${from}` }, t(s.lang, "format_as_of", { name: f.name, from })));
    }
  }
  sel.replaceChildren(...options);
  sel.value = current;
  sel.onchange = () => {
    fillDeckPickers(s);
    checkDeckSoon(s, 0);
    checkDeckSoon(s, 1);
  };
  $("format-label").hidden = !s.formats.length;
}

const CHECK_DELAY_MS = 300; // the deck box asks once typing pauses, not on every key
const checkTimers = [0, 0];
const checkAsked = [0, 0]; // the latest ask per box: an older answer arriving late is dropped

/** @param {Session} s */
export function checkDeckSoon(s, p) {
  $(`deck-check-${p}`).dataset.checking = "1"; // what it says is of the text before: dimmed until the answer
  window.clearTimeout(checkTimers[p]);
  checkTimers[p] = window.setTimeout(() => checkDeck(s, p), CHECK_DELAY_MS);
}

/** Ask POST /v1/decks/validate about one player's deck and list what it says, each problem by its line. @param {Session} s */
async function checkDeck(s, p) {
  const box = $(`deck-check-${p}`);
  const asked = ++checkAsked[p];
  const done = () => { if (asked === checkAsked[p]) delete box.dataset.checking; };
  let deck;
  try {
    deck = deckOf(s, p);
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
  const format = formatFromChoice(select("format").value);
  let answer;
  try {
    answer = await s.api.validateDeck(/** @type {any} */ (format ? { deck, format } : { deck }));
  } catch (err) {
    if (asked === checkAsked[p]) box.replaceChildren(...deckRefusal(s, err));
    done();
    return;
  }
  if (asked !== checkAsked[p]) return;
  done();
  const fmt = s.formats.find((f) => f.id === (typeof format === "string" ? format : format?.id));
  const n = answer.deck ? Object.values(answer.deck.counts).reduce((a, b) => a + b, 0) : 0;
  if (answer.legal) {
    const inFormat = fmt ? t(s.lang, "deck_in_format", { name: fmt.name }) : "";
    const code = answer.deck?.code;
    box.replaceChildren(h("p.deck-ok", {}, `✓ ${t(s.lang, "deck_legal", { format: inFormat, n })}`),
      ...(code ? [h("p.deck-code", {}, `${t(s.lang, "deck_code")}: `, h("code", {}, code))] : []));
    return;
  }
  box.replaceChildren(h("p.deck-bad", {}, `✗ ${t(s.lang, "deck_problems", { n: answer.violations.length })}`),
    h("ul.deck-problems", {}, ...problemsByLine(answer.violations).map((v) => h("li", { dataset: v.line ? { line: String(v.line) } : {} },
      v.line ? h("strong.line", {}, t(s.lang, "line", { n: v.line })) : null, v.line ? " " : null,
      h("span.rule", {}, `${t(s.lang, "rule")} ${v.rule}`), ` ${v.detail}`))));
}

/** A deck the referee could not read: each bad line by its number, else the detail. @param {Session} s */
function deckRefusal(s, err, prefix = "") {
  const lines = refusalLines(problemOf(err)?.errors, prefix);
  if (!lines.length) return [h("p.deck-bad", {}, `✗ ${describeError(err).text}`)];
  return [h("p.deck-bad", {}, `✗ ${t(s.lang, "deck_problems", { n: lines.length })}`),
    h("ul.deck-problems", {}, ...lines.map(([n, message]) =>
      h("li", { dataset: { line: String(n) } }, h("strong.line", {}, t(s.lang, "line", { n })), ` ${message}`)))];
}

/** The Deal button. @param {Session} s */
export async function deal(s, event) {
  event.preventDefault();
  const errorBox = $("deal-error");
  errorBox.hidden = true;
  try {
    const names = [0, 1].map((p) => input(`name-${p}`).value.trim() || t(s.lang, p ? "player_2" : "player_1"));
    const seed = input("seed").value.trim();
    const first = select("first-player").value;
    const format = formatFromChoice(select("format").value);
    const game = {
      decks: [deckOf(s, 0), deckOf(s, 1)], players: names,
      options: { response_windows: select("windows").value },
      ...(seed ? { seed } : {}), ...(first !== "" ? { first_player: Number(first) } : {}),
      ...input("no-shuffle").checked ? { shuffle: false } : {},
      ...(format ? { format } : {}),
      ...clockAndMatch(),
    };
    const computer = readComputer();
    const step = await s.api.newGame(/** @type {any} */ (game));
    const dealt = step.seats ? null : { ...game, seed: typeof step.state === "object" ? step.state.seed : undefined };
    await startGame(s, step, names, computer, null, dealt);
  } catch (err) {
    const problem = problemOf(err);
    for (const p of [0, 1]) { // a list's bad lines in its own box, by line (decks.P.line.N)
      if (Object.keys(problem?.errors || {}).some((k) => k.startsWith(`decks.${p}.`))) {
        $(`deck-check-${p}`).replaceChildren(...deckRefusal(s, err, `decks.${p}.`));
      }
    }
    errorBox.textContent = problem ? refusalText(s.lang, problem) : describeError(err).text;
    errorBox.hidden = false;
  }
}

/** The deal form's opponent: null for a person, else the computer's seat, bot and budget. */
function readComputer() {
  if (select("opponent").value !== "computer") return null;
  return {
    player: /** @type {0|1} */ (Number(select("computer-seat").value)),
    bot: select("bot").value,
    budget: Number(select("strength").value),
  };
}

/** The deal form's clock and match (docs/api.md §15), where the referee can keep a clock (else hidden). */
function clockAndMatch() {
  if ($("deal-clock").hidden) return {};
  const chosen = select("clock").value;
  const [initial, increment] = chosen === "custom"
    ? [Number(input("clock-initial").value), Number(input("clock-increment").value)]
    : chosen.split("+").map(Number);
  const bestOf = Number(select("match").value);
  return { ...(chosen ? { clock: { initial, increment } } : {}), ...(bestOf > 1 ? { match: { best_of: bestOf } } : {}) };
}

/** Begin playing a dealt game: hot-seat (plain mode, `game` the NewGame dealt), or private, where this page
 *  holds the dealer's seat (player 1's, or the one the computer does not play) and, against the computer,
 *  the computer's. @param {Session} s */
export async function startGame(s, step, names, computer, me = null, game = null) {
  stopFollowing(); // a game followed before this one
  s.mode = step.seats ? "private" : "hot";
  s.names = names;
  s.state = null;
  s.events = [];
  s.replay = null;
  s.curtain = null;
  s.selected = null;
  s.history = [];
  s.note = null;
  s.computer = computer;
  clearProblem(s);
  $("replay-bar").hidden = true;
  s.net.ledger = null;
  s.net.watch = step.watch || null;
  s.seat = computer ? 1 - computer.player : (me ?? 0);
  s.moves = { ...emptyMoves(), game, dealt: s.mode === "private" && computer ? step.state : null };
  if (s.mode === "private") {
    s.net.seats = [step.seats[0], step.seats[1]];
    const view = await s.api.view(step.state, /** @type {0|1} */ (s.seat), seatKey(s));
    s.net.gameId = /** @type {any} */ (view).game_id;
    s.moves.dealtAt = view.clock ? Date.parse(/** @type {any} */ (view.clock).since) : null;
    s.net.gameKey = `af-table:${s.net.gameId}`;
    s.net.ledger = await hasLedger(s);
    if (s.net.ledger) {
      // The dealer's own seat goes in this page's address (the fragment) and the browser's storage:
      // a reload or a browser restart finds the game again. The other seat leaves by its link only.
      // The other seat's and the watch links stay on this device too, to hand out after a reload.
      localStorage.setItem(`${s.net.gameKey}:keys`, JSON.stringify({ seats: s.net.seats, watch: s.net.watch }));
      saveMoves(localStorage, s);
      remember(s);
    }
  } else {
    s.net.seats = null;
    s.net.gameId = null;
  }
  adopt(s, step.state, step.events);
  $("tab-play").removeAttribute("disabled");
  showTab("play");
  await refresh(s);
  if (s.mode === "private" && s.net.ledger) startFollowing(s);
}

/** The deal form's clock and match, shown only where the referee can keep a clock: private mode with a
 *  ledger (`/readyz` says `ledger: true`; a ledger is kept only in private mode); its hint says which
 *  kind of game the Deal button makes here. @param {Session} s */
export async function offerClocks(s) {
  const ledger = await hasLedger(s);
  $("deal-clock").hidden = ledger !== true;
  const hint = document.querySelector("[data-t='deal_hint'], [data-t='deal_hint_private']");
  if (hint && ledger === true) /** @type {HTMLElement} */ (hint).dataset.t = "deal_hint_private";
  const sel = select("clock");
  const custom = () => {
    for (const el of document.querySelectorAll("label.clock-custom")) /** @type {HTMLElement} */ (el).hidden = sel.value !== "custom";
  };
  sel.onchange = custom;
  custom();
}
