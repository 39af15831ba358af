// What a move changes on the page: the moves kept for the record, undo, the discard chosen.
import assert from "node:assert/strict";
import { test } from "node:test";
import { clearChoices, keepMove, toggleDiscard, undoTo } from "../../referee/service/table/moves.js";
import { emptyMoves } from "../../referee/service/table/session.js";

test("a move is kept by its seq: the next one goes after the last", () => {
  const m = emptyMoves();
  keepMove(m, { state: "t1", view: { seq: 1 } }, { type: "keep", player: 0 });
  keepMove(m, { state: "t2", view: { seq: 2 } }, { type: "keep", player: 1 });
  assert.deepEqual(m.played.map((a) => a.player), [0, 1]);
});

test("a move answered as already recorded takes its own place, never a second one", () => {
  const m = emptyMoves();
  keepMove(m, { state: "t1", view: { seq: 1 } }, { type: "keep", player: 0 });
  keepMove(m, { state: "t2", view: { seq: 2 } }, { type: "draw", player: 1 });
  keepMove(m, { state: "t2", view: { seq: 2 } }, { type: "draw", player: 1 }); // the same move sent again
  assert.equal(m.played.length, 2);
});

test("a plain state's seq keeps the move where the answer carries no view", () => {
  const m = emptyMoves();
  keepMove(m, { state: { seq: 1 } }, { type: "keep", player: 0 });
  keepMove(m, { state: { seq: 2 } }, { type: "keep", player: 1 });
  assert.equal(m.played.length, 2);
});

test("a clocked game keeps each move's time since the deal, by seq", () => {
  const m = { ...emptyMoves(), dealtAt: Date.parse("2026-12-01T10:00:00Z") };
  keepMove(m, { state: "t", view: { seq: 1, clock: { since: "2026-12-01T10:00:02.500Z" } } }, { type: "keep" });
  keepMove(m, { state: "t", view: { seq: 1, clock: { since: "2026-12-01T10:00:02.500Z" } } }, { type: "keep" });
  assert.deepEqual(m.times, [2500]);
});

test("a move clears the card chosen and the cards chosen to discard", () => {
  const s = { selected: "a1", discarding: ["b1"] };
  clearChoices(/** @type {any} */ (s));
  assert.deepEqual(s, { selected: null, discarding: [] });
});

test("undo goes back one move hot-seat", () => {
  const history = [{ state: "s0", events: 0, seat: 0, by: 0 }, { state: "s1", events: 2, seat: 1, by: 1 }];
  const played = [{ n: 1 }, { n: 2 }];
  assert.equal(undoTo(history, played, null)?.state, "s1");
  assert.deepEqual(played, [{ n: 1 }]);
});

test("undo against the computer goes back past its replies to the player's own move", () => {
  const history = [{ state: "s0", events: 0, seat: 0, by: 0 }, { state: "s1", events: 1, seat: 0, by: 1 },
    { state: "s2", events: 2, seat: 0, by: 1 }];
  const played = [1, 2, 3];
  assert.equal(undoTo(history, played, { player: 1 })?.state, "s0");
  assert.deepEqual(played, []);
});

test("undo with nothing to undo changes nothing", () => {
  const played = [1];
  assert.equal(undoTo([], played, null), null);
  assert.deepEqual(played, [1]);
});

test("the end step: a tap chooses a card, a second tap unchooses it, the last chosen count", () => {
  assert.deepEqual(toggleDiscard([], "a", 2), ["a"]);
  assert.deepEqual(toggleDiscard(["a"], "a", 2), []);
  assert.deepEqual(toggleDiscard(["a", "b"], "c", 2), ["b", "c"]);
});
