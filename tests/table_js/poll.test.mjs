// What a poll of the ledger takes (docs/table.md "what a poll drops"), and how often it asks.
import assert from "node:assert/strict";
import { test } from "node:test";
import { POLL_IDLE_MS, POLL_MS, keepsPolling, pollDelay, pollKey, pollTakes, storageTakes } from "../../referee/service/table/poll.js";

test("a poll takes a state later than the one shown", () => {
  assert.equal(pollTakes({ seq: 8 }, { busy: false, shownSeq: 7 }), "take");
});

test("a poll never takes back the state a move just passed: the same seq is dropped", () => {
  // The move adopted seq 8 from its own answer; the ledger's answer for seq 8 may carry a token a step behind.
  assert.equal(pollTakes({ seq: 8 }, { busy: false, shownSeq: 8 }), "drop");
});

test("a poll drops an earlier state", () => {
  assert.equal(pollTakes({ seq: 6 }, { busy: false, shownSeq: 8 }), "drop");
});

test("a poll answered while a move of this page is in flight is dropped: the move adopts its own answer", () => {
  assert.equal(pollTakes({ seq: 9 }, { busy: true, shownSeq: 8 }), "drop");
});

test("a poll with nothing shown yet takes what it gets", () => {
  assert.equal(pollTakes({ seq: 0 }, { busy: false, shownSeq: null }), "take");
});

test("a finished match game naming its next game opens it, even while busy", () => {
  assert.equal(pollTakes({ seq: 3, next: { game_id: "g2", seat: "k" } }, { busy: true, shownSeq: 9 }), "next");
});

test("another tab's stored state is taken only when later", () => {
  assert.equal(storageTakes({ seq: 5 }, { seq: 4 }), true);
  assert.equal(storageTakes({ seq: 5 }, { seq: 5 }), false);
  assert.equal(storageTakes({ seq: 3 }, null), true);
});

test("polls are quick while the game moves, slow when idle or hidden", () => {
  const now = 1_000_000;
  assert.equal(pollDelay({ hidden: false, lastChange: now - 1000, now }), POLL_MS);
  assert.equal(pollDelay({ hidden: true, lastChange: now - 1000, now }), POLL_IDLE_MS);
  assert.equal(pollDelay({ hidden: false, lastChange: now - 61_000, now }), POLL_IDLE_MS);
});

test("polling stops at a game's end unless its match goes on", () => {
  assert.equal(keepsPolling({ phase: "turn" }), true);
  assert.equal(keepsPolling({ phase: "over" }), false);
  assert.equal(keepsPolling({ phase: "over", match: { winner: null } }), true);
  assert.equal(keepsPolling({ phase: "over", match: { winner: 1 } }), false);
});

test("a spectator polls with the watch key, a seat with its own", () => {
  const net = { seats: ["s0", "s1"], watch: "w" };
  assert.equal(pollKey({ mode: "watch", seat: 0, net }), "w");
  assert.equal(pollKey({ mode: "private", seat: 1, net }), "s1");
  assert.equal(pollKey({ mode: "private", seat: 0, net: { seats: null, watch: null } }), null);
});
