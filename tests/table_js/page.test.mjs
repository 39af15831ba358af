// The page's other decisions that need no browser: modes, links, storage, decks, a replayed line.
import assert from "node:assert/strict";
import { test } from "node:test";
import { deckFromText, formatFromChoice, problemsByLine, refusalLines, samplesFor } from "../../referee/service/table/deckcheck.js";
import { decodeJoin, encodeJoin, linkTo, ownKeys, parseLink } from "../../referee/service/table/links.js";
import { MODES, knowsEveryMove, ledgerKeepsTheGame, offered } from "../../referee/service/table/modes.js";
import { nearestMade, replayLog } from "../../referee/service/table/replayline.js";
import { createSession } from "../../referee/service/table/session.js";
import { HOT_KEY, loadHot, loadLog, loadMoves, saveHot, saveLog, saveMoves } from "../../referee/service/table/store.js";

/** A storage like the browser's, in memory; `quota` characters at most. */
function memory(quota = Infinity) {
  const m = new Map();
  return { m, getItem: (k) => m.get(k) ?? null, removeItem: (k) => m.delete(k),
    setItem: (k, v) => { if (v.length > quota) throw new Error("QuotaExceededError"); m.set(k, v); } };
}

test("hot-seat offers the seat drawn its own actions; a private seat all it is listed", () => {
  const listed = [{ type: "keep", player: 0 }, { type: "keep", player: 1 }];
  const s = createSession("en", /** @type {any} */ (null));
  s.seat = 1;
  assert.deepEqual(offered(s, listed), [listed[1]]);
  s.mode = "private";
  assert.deepEqual(offered(s, listed), listed);
});

test("only hot-seat undoes; only a replay shows without acting", () => {
  assert.deepEqual(Object.entries(MODES).filter(([, m]) => m.undoes).map(([k]) => k), ["hot"]);
  assert.deepEqual(Object.entries(MODES).filter(([, m]) => m.showsOnly).map(([k]) => k), ["replay"]);
});

test("the page writes the record only where it knows every move; else the ledger's", () => {
  const s = createSession("en", /** @type {any} */ (null));
  s.moves.game = { decks: [] };
  assert.equal(knowsEveryMove(s), true);
  s.mode = "private";
  s.net = { seats: ["a", "b"], gameId: "g", gameKey: "k", ledger: true, watch: null };
  assert.equal(knowsEveryMove(s), false);
  assert.equal(ledgerKeepsTheGame(s), true);
  s.computer = { player: 1, bot: "greedy", budget: 100 };
  s.moves.dealt = "token";
  assert.equal(knowsEveryMove(s), true);
  assert.equal(ledgerKeepsTheGame(s), false);
});

test("a seat's link against the computer carries the computer's seat and settings", () => {
  const keys = ownKeys("s0", { player: 1, bot: "mcts", budget: 2000 }, "s1");
  assert.deepEqual(parseLink(linkTo("http://x", "g1", keys).slice("http://x/table".length)),
    { gameId: "g1", seat: "s0", watch: null, computer: { seat: "s1", bot: "mcts", budget: 2000 } });
});

test("a watch link opens a spectator; a link without a key opens nothing", () => {
  assert.deepEqual(parseLink("#game=g&watch=w"), { gameId: "g", seat: null, watch: "w", computer: null });
  assert.equal(parseLink("#game=g"), null);
  assert.equal(parseLink(""), null);
});

test("the one-browser invite carries any text there and back", () => {
  const join = { state: "tok+/=", seat: "k", names: ["葵", "蓮"], key: "af-table:x" };
  assert.deepEqual(parseLink(`#join=${encodeJoin(join)}`), { join });
  assert.deepEqual(decodeJoin(encodeJoin(join)), join);
});

test("a hot-seat game is kept for a reload, with less undo history when the storage is full", () => {
  const s = createSession("en", /** @type {any} */ (null));
  s.moves.game = { seed: "x" };
  s.state = { seq: 3 };
  s.history = Array.from({ length: 50 }, (_, i) => ({ state: { pad: "p".repeat(200), i }, events: 0, seat: 0 }));
  const store = memory(3000);
  saveHot(store, s);
  const kept = loadHot(store);
  assert.ok(kept && kept.state.seq === 3);
  assert.ok(kept.history.length < 50);
});

test("an unreadable hot-seat game is forgotten", () => {
  const store = memory();
  store.setItem(HOT_KEY, "{not json");
  assert.equal(loadHot(store), null);
  assert.equal(store.getItem(HOT_KEY), null);
});

test("a private seat's log and moves come back from storage by game and seat", () => {
  const s = createSession("en", /** @type {any} */ (null));
  const store = memory();
  s.mode = "private";
  s.net.gameKey = "af-table:g";
  s.seat = 1;
  s.events = [{ type: "draw" }];
  s.moves = { game: null, dealt: "t0", dealtAt: 5, played: [{ type: "keep" }], times: [7] };
  saveLog(store, s);
  saveMoves(store, s);
  assert.deepEqual(loadLog(store, s), [{ type: "draw" }]);
  assert.deepEqual(loadMoves(store, s), s.moves);
  s.seat = 0;
  assert.deepEqual(loadLog(store, s), []);
});

test("a deck box's text: JSON when it reads as JSON, else the list itself", () => {
  assert.deepEqual(deckFromText(' ["AF-001"]'), ["AF-001"]);
  assert.equal(deckFromText("  3 Magnifying Glass\n"), "3 Magnifying Glass");
  assert.throws(() => deckFromText("[nope"));
});

test("a format chosen by id or by a revision's date", () => {
  assert.equal(formatFromChoice(""), null);
  assert.equal(formatFromChoice("af99"), "af99");
  assert.deepEqual(formatFromChoice("af99@2026-01-01"), { id: "af99", date: "2026-01-01" });
});

test("a deck's problems are listed in line order, those of no line last", () => {
  const v = [{ line: 12, rule: "a" }, { rule: "b" }, { line: 6, rule: "c" }, { line: 6, rule: "d" }];
  assert.deepEqual(problemsByLine(v).map((x) => x.rule), ["c", "d", "a", "b"]);
});

test("a refused deck's bad lines, of one player, in line order", () => {
  const errors = { "decks.1.line.12": ["x"], "decks.0.line.3": ["y"], "decks.1.line.2": "z" };
  assert.deepEqual(refusalLines(errors, "decks.1."), [[2, "z"], [12, "x"]]);
});

test("the picker offers the sample decks legal in the format chosen", () => {
  const decks = [{ name: "a", formats: ["af99"] }, { name: "b", formats: [] }, { name: "c" }];
  assert.deepEqual(samplesFor(decks, "af99").map((d) => d.name), ["a", "c"]);
  assert.deepEqual(samplesFor(decks, null).map((d) => d.name), ["a", "b", "c"]);
});

test("a jump starts from the nearest position made", () => {
  assert.equal(nearestMade(["s0", undefined, "s2", undefined, undefined], 4), 2);
  assert.equal(nearestMade(["s0", undefined], 1), 0);
});

test("the replay's log: the events told, one line for each stretch jumped over", () => {
  const R = { events: [[{ type: "deal" }], [{ type: "a" }], undefined, undefined, [{ type: "b" }]] };
  assert.deepEqual(replayLog(R, 4).map((e) => e.type === "jumped" ? `${e.first}-${e.last}` : e.type), ["deal", "a", "2-3", "b"]);
});

test("a page that joins a game it did not deal logs the deal's lines, and one line for the moves before it", async () => {
  const { joinedLines } = await import("../../referee/service/table/changes.js");
  const at0 = joinedLines({ seq: 0, first_player: 1, commitment: "sha256:ab" });
  assert.deepEqual(at0.map((e) => e.type), ["game_started", "draw", "draw"]);
  assert.equal(at0[0].first_player, 1);
  assert.deepEqual(joinedLines({ seq: 3, first_player: 0, commitment: "c" }).at(-1), { type: "before_join", first: 1, last: 3 });
});

test("a followed move that changes nothing the viewer sees but the step is named by the step", async () => {
  const { changesBetween } = await import("../../referee/service/table/changes.js");
  const base = { name: "", file: 30, hand: [], trash: [], cases: [], fairies: [], evidence: [], kept: true };
  const view = (seq, step) => ({ seq, turn: 3, phase: "turn", step, active: 1, pending: null, result: null, cards: {},
    players: [base, base] });
  assert.deepEqual(changesBetween(view(5, "main"), view(6, "end")), [{ type: "moved_on", step: "end", player: 1, seen: true }]);
  assert.deepEqual(changesBetween(view(5, "main"), view(6, "main")).map((e) => e.type), ["moved"]);
});

test("a power given to a card is told from the views, once", async () => {
  const { changesBetween } = await import("../../referee/service/table/changes.js");
  const base = { name: "", file: 30, hand: [], trash: [], cases: [], fairies: [], evidence: [], kept: true };
  const view = (seq, modifiers) => ({ seq, turn: 3, phase: "turn", step: "main", active: 0, pending: null, result: null,
    cards: {}, modifiers, players: [base, base] });
  const was = [{ card: "f1", power: 1, until: "end_of_turn" }];
  const now = [...was, { card: "f2", power: 2, until: "end_of_turn" }];
  assert.deepEqual(changesBetween(view(5, was), view(6, now)), [{ type: "power", card: "f2", amount: 2, seen: true }]);
  assert.equal(changesBetween(view(5, was), view(6, [...was, ...was])).length, 1, "the same power again is told again");
});
