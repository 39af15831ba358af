// A match's flow between its games (RULES 14.2, docs/api.md §15).
import assert from "node:assert/strict";
import { test } from "node:test";
import { matchGoesOn, matchScore, nextGameChoice, offersNewGame } from "../../referee/service/table/match.js";

const over = (winner, match) => ({ phase: "over", result: { winner, reason: "cases" }, match });
const going = { game: 1, best_of: 3, wins: [1, 0], winner: null };
const page = (seat, extra = {}) => ({ private: true, seat, computer: null, holds: (p) => p === seat, ...extra });

test("a match goes on until it has a winner", () => {
  assert.equal(matchGoesOn(over(0, going)), true);
  assert.equal(matchGoesOn(over(0, { ...going, winner: 0 })), false);
  assert.equal(matchGoesOn(over(0, undefined)), false);
});

test("the loser's page chooses who plays first, its own name first", () => {
  assert.deepEqual(nextGameChoice(over(0, going), page(1)), { kind: "choose", loser: 1, order: [1, 0] });
});

test("the winner's page waits for the loser's choice", () => {
  assert.deepEqual(nextGameChoice(over(0, going), page(0)), { kind: "wait", loser: 1 });
});

test("the computer, when it lost, chooses itself", () => {
  const p = page(0, { computer: { player: 1 }, holds: () => true });
  assert.deepEqual(nextGameChoice(over(0, going), p), { kind: "computer", loser: 1 });
});

test("a won match, a game not in a match or a hot-seat page ask nothing", () => {
  assert.equal(nextGameChoice(over(0, { ...going, winner: 0 }), page(1)).kind, "none");
  assert.equal(nextGameChoice(over(0, undefined), page(1)).kind, "none");
  assert.equal(nextGameChoice(over(0, going), page(1, { private: false })).kind, "none");
});

test("New game is not offered beside the loser's choice of who plays first", () => {
  assert.equal(offersNewGame(nextGameChoice(over(0, going), page(1))), false);
  assert.equal(offersNewGame(nextGameChoice(over(0, going), page(0))), true);
  assert.equal(offersNewGame(nextGameChoice(over(0, undefined), page(1))), true);
});

test("the match line's words", () => {
  assert.deepEqual(matchScore({ game: 2, best_of: 3, wins: [1, 0] }, ["Aoi", "Ren"]),
    { game: 2, best_of: 3, a: "Aoi", b: "Ren", wa: 1, wb: 0 });
});
