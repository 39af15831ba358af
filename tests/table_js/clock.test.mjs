// The clock's count-down on the page (docs/api.md §15).
import assert from "node:assert/strict";
import { test } from "node:test";
import { claimWorthAsking, clockState, clockText, clocksLive, timeLeft } from "../../referee/service/table/clock.js";

const since = "2026-12-01T10:00:00Z";
const at = (ms) => Date.parse(since) + ms;
const clock = { running: 1, since, remaining: [60_000, 30_000] };

test("the running player's time counts down from `since`", () => {
  assert.equal(timeLeft(clock, 1, true, at(4_000)), 26_000);
});

test("the other player's time stands still", () => {
  assert.equal(timeLeft(clock, 0, true, at(4_000)), 60_000);
});

test("a clock not live (a replay, a finished game) shows the view's time", () => {
  assert.equal(timeLeft(clock, 1, false, at(4_000)), 30_000);
});

test("time left never goes below zero", () => {
  assert.equal(timeLeft(clock, 1, true, at(90_000)), 0);
});

test("a clock shows whole seconds rounded up, hours when there are any", () => {
  assert.equal(clockText(65_001), "1:06");
  assert.equal(clockText(0), "0:00");
  assert.equal(clockText(3_600_000), "1:00:00");
  assert.equal(clockText(3_661_000), "1:01:01");
});

test("a clock is low under ten seconds, out at zero", () => {
  assert.deepEqual(clockState(9_999), { out: false, low: true });
  assert.deepEqual(clockState(10_000), { out: false, low: false });
  assert.deepEqual(clockState(0), { out: true, low: false });
});

test("clocks run only in a live game not over", () => {
  assert.equal(clocksLive(true, { phase: "turn" }), true);
  assert.equal(clocksLive(true, { phase: "over" }), false);
  assert.equal(clocksLive(false, { phase: "turn" }), false);
});

test("the actions are asked again when the opponent's time is out and no claim is listed", () => {
  const base = { clock, seat: 0, actions: [], busy: false, lastAsk: 0, now: at(31_000) };
  assert.equal(claimWorthAsking(base), true);
  assert.equal(claimWorthAsking({ ...base, now: at(29_000) }), false, "time not out yet");
  assert.equal(claimWorthAsking({ ...base, actions: [{ type: "claim_time" }] }), false, "claim listed already");
  assert.equal(claimWorthAsking({ ...base, busy: true }), false, "a move under way");
  assert.equal(claimWorthAsking({ ...base, lastAsk: at(30_500) }), false, "asked under a second ago");
  assert.equal(claimWorthAsking({ ...base, seat: 1 }), false, "it is our own time that runs");
});
