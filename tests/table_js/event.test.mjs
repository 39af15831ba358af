// The Event tab's decisions (docs/api.md §17, RULES 15.2): the document from names, results, standings rows.
import assert from "node:assert/strict";
import { test } from "node:test";
import { isMatchScore, matchScores, newEvent, readNames, resultFromKey, resultKey, resultText, roundComplete,
  standingCells, withDrop, withResult } from "../../referee/service/table/event.js";
import { EVENT_KEY, loadEvent, saveEvent } from "../../referee/service/table/store.js";

const paired = () => ({
  ...newEvent({ names: ["Aoi", "Ren", "Mio", "Kai", "Sora"], seed: "s", bestOf: 3, cut: 0 }),
  rounds: [{ pairings: [{ table: 1, players: ["Ren", "Aoi"] }, { table: 2, players: ["Kai", "Mio"] }, { bye: "Sora" }] }],
});

test("names: one a line, trimmed, blank lines dropped, the repeated and the too long named", () => {
  assert.deepEqual(readNames(" Aoi \n\nRen\r\nAoi\n"), { names: ["Aoi", "Ren"], repeated: ["Aoi"], tooLong: [] });
  assert.deepEqual(readNames("x".repeat(65)).tooLong, ["x".repeat(65)]);
});

test("a new event is what `referee event new` writes: each name a player id, no round, options only when set", () => {
  assert.deepEqual(newEvent({ names: ["Aoi", "Ren"], seed: "f", bestOf: 3, cut: 0 }),
    { seed: "f", best_of: 3, cut: 0, players: [{ id: "Aoi" }, { id: "Ren" }], rounds: [] });
  const named = newEvent({ names: ["Aoi", "Ren"], seed: "f", bestOf: 5, cut: 2, swissRounds: 4, name: "Friday" });
  assert.equal(named.swiss_rounds, 4);
  assert.equal(named.name, "Friday");
});

test("RULES 15.2: a match score has the winner at the games the best-of needs, the loser fewer", () => {
  assert.ok(isMatchScore([2, 1], 3));
  assert.ok(isMatchScore([0, 1], 1));
  assert.ok(!isMatchScore([2, 2], 3));
  assert.ok(!isMatchScore([1, 0], 3));
  assert.ok(!isMatchScore([3, 1], 3));
  assert.deepEqual(matchScores(3), [[2, 0], [2, 1], [1, 2], [0, 2]]);
  assert.deepEqual(matchScores(1), [[1, 0], [0, 1]]);
  assert.equal(matchScores(5).length, 6);
  assert.ok(matchScores(5).every((g) => isMatchScore(g, 5)));
});

test("a result goes to its match of the last round; the document given is not changed", () => {
  const doc = paired();
  const after = withResult(doc, 1, { games: [2, 1] });
  assert.deepEqual(after.rounds[0].pairings[1].result, { games: [2, 1] });
  assert.equal(doc.rounds[0].pairings[1].result, undefined);
  assert.equal(withResult(after, 1, null).rounds[0].pairings[1].result, undefined);
  assert.throws(() => withResult(doc, 0, { games: [2, 2] }), /not a match score/);
  assert.throws(() => withResult(doc, 2, { games: [2, 0] }), /no match/); // the bye takes no result
});

test("the result menu's values read back, a forfeit naming its player; a bad score is refused", () => {
  for (const r of [{ games: [1, 2] }, { forfeit: "Mio" }]) assert.deepEqual(resultFromKey(resultKey(r), 3), r);
  assert.equal(resultFromKey("", 3), null);
  assert.throws(() => resultFromKey("2-2", 3), RangeError);
  assert.equal(resultText({ games: [2, 1] }, (n) => n), "2–1");
  assert.equal(resultText({ forfeit: "Mio" }, (n) => `${n} forfeits`), "Mio forfeits");
});

test("a round is complete once every match has its result (a bye needs none)", () => {
  let doc = paired();
  assert.ok(!roundComplete(doc));
  doc = withResult(withResult(doc, 0, { games: [2, 0] }), 1, { forfeit: "Kai" });
  assert.ok(roundComplete(doc));
  assert.ok(roundComplete(newEvent({ names: ["a", "b"], seed: "s", bestOf: 1, cut: 0 })));
});

test("a drop is listed once in the last round, and taken back leaves no empty list", () => {
  const dropped = withDrop(withDrop(paired(), "Mio", true), "Mio", true);
  assert.deepEqual(dropped.rounds[0].drops, ["Mio"]);
  assert.equal("drops" in withDrop(dropped, "Mio", false).rounds[0], false);
});

test("a standings row: points, record, the rates as percentages, the rating with its deviation, dropped", () => {
  const row = { rank: 1, player: "Sora", match_points: 3, record: "1-0", mw: "1.0000", omw: "0.3333", gw: "1.0000",
    ogw: "0.3333", dropped: false };
  assert.deepEqual(standingCells(row, { rating: 1662.31, rd: 290.32, volatility: 0.06 }, "dropped"),
    ["1", "Sora", "3", "1-0", "33.33%", "100.00%", "33.33%", "1662 ±290", ""]);
  assert.equal(standingCells({ ...row, dropped: true }, undefined, "dropped").at(-1), "dropped");
});

test("the event document is kept whole in the browser's storage; an unreadable one is forgotten", () => {
  const m = new Map();
  const store = { getItem: (k) => m.get(k) ?? null, setItem: (k, v) => m.set(k, v), removeItem: (k) => m.delete(k) };
  saveEvent(store, paired());
  assert.deepEqual(loadEvent(store), paired());
  m.set(EVENT_KEY, "{not json");
  assert.equal(loadEvent(store), null);
  assert.equal(m.has(EVENT_KEY), false);
});
