// Listed actions as the page offers them, and refusals in words.
import assert from "node:assert/strict";
import { test } from "node:test";
import { computerLine, describeAction, distinct, grouped, involved, primary, refusalText, sameAction, targeting }
  from "../../referee/service/table/labels.js";

test("listed actions with one label are one button", () => {
  const a = [{ type: "discard", label: "Discard 2" }, { type: "discard", label: "Discard 2", cards: ["x"] }, { type: "pass", label: "Pass" }];
  assert.deepEqual(distinct(a).map((x) => x.label), ["Discard 2", "Pass"]);
});

test("the groups follow a turn's order; conceding and the claim stand apart", () => {
  const a = [{ type: "end_turn", label: "End" }, { type: "play_case", label: "Case" }, { type: "concede", label: "Concede" },
    { type: "claim_time", label: "Claim" }, { type: "weird", label: "W" }];
  assert.deepEqual(grouped(a).map(([g, list]) => [g, list.length]), [["case", 1], ["turn", 1], ["other", 1]]);
});

test("an action is about its first card; its targets follow", () => {
  const a = { type: "dispatch", fairy: "f1", case: "c1" };
  assert.deepEqual(involved(a), ["f1", "c1"]);
  assert.equal(primary(a), "f1");
  assert.deepEqual(involved({ type: "counter", card: "k", targets: ["k", "t"] }), ["k", "t"]);
});

test("a click on a target means the selected card's move naming it", () => {
  const listed = [{ type: "dispatch", fairy: "f1", case: "c1", label: "to c1" }, { type: "dispatch", fairy: "f1", case: "c2", label: "to c2" },
    { type: "dispatch", fairy: "f2", case: "c1", label: "f2 to c1" }];
  assert.deepEqual(targeting(listed, "f1", "c1").map((a) => a.label), ["to c1"]);
  assert.deepEqual(targeting(listed, "f1", "f2"), []);
});

test("an unlisted action is said with card names, never an instance id", () => {
  const said = describeAction({ type: "dispatch", player: 1, fairy: "a89f2fc", case: "b000001" }, ["Aoi", "Ren"],
    (iid) => ({ a89f2fc: "Magnifying Glass", b000001: "a hidden card" })[iid]);
  assert.equal(said, "Ren: dispatch (Magnifying Glass, a hidden card)");
  assert.ok(!said.includes("a89f2fc"));
});

test("a recorded action is the listed one whatever the listing fills in", () => {
  assert.equal(sameAction({ type: "draw", player: 0, label: "Draw" }, { type: "draw", player: 0 }), true);
  assert.equal(sameAction({ type: "cast_spell", player: 0, card: "x", targets: undefined, label: "Cast" },
    { type: "cast_spell", player: 0, card: "x", pay: ["y"] }), true);
  assert.equal(sameAction({ type: "draw", player: 1, label: "Draw" }, { type: "draw", player: 0 }), false);
});

test("the computer's line names its strength", () => {
  assert.match(computerLine("en", { player: 1, bot: "greedy", budget: 500 }), /greedy/);
  assert.match(computerLine("en", { player: 1, bot: "mcts", budget: 750 }), /750 ms/);
  assert.equal(computerLine("en", null), "");
});

test("a refused deal says each message once", () => {
  const problem = { code: "deck_illegal", rule: "3.6", detail: "Card AF-009 is of the series millennium.",
    violations: [{ rule: "3.6", detail: "Card AF-009 is of the series millennium." }, { rule: "3.7", detail: "Too many copies." },
      { rule: "3.7", detail: "Too many copies." }] };
  const text = refusalText("en", problem);
  assert.equal(text.split("AF-009").length - 1, 1);
  assert.equal(text.split("Too many copies").length - 1, 1);
  assert.match(text, /^Rule 3\.6 deck_illegal: /);
});

test("a spectator's view held moves behind says how many; none says nothing", async () => {
  const { watchDelayText } = await import("../../referee/service/table/labels.js");
  assert.match(watchDelayText("en", { watch_delay: 3 }), /3 move\(s\) behind/);
  assert.equal(watchDelayText("en", { watch_delay: 0 }), "");
  assert.equal(watchDelayText("en", {}), "");
});
