#!/usr/bin/env node
// A complete bot for `referee arena` (docs/bots.md, "Bots in any language"), in Node with no packages.
// It reads the referee's JSON lines on stdin and answers each "act" with {"index": i} on stdout:
// a legal action drawn at random, never a concession while anything else is legal, and a mulligan
// only one time in four. Its randomness comes from the game's name in "start", so a game replays.
import { createInterface } from "node:readline";

let state = 1;
function seed(text) {
  state = 2166136261;
  for (const ch of text) state = Math.imul(state ^ ch.codePointAt(0), 16777619) >>> 0;
  state ||= 1;
}
function below(n) {
  // xorshift32: small and the same on every machine
  state ^= state << 13; state >>>= 0;
  state ^= state >>> 17;
  state ^= state << 5; state >>>= 0;
  return state % n;
}

function choose(legal) {
  const keep = legal.find((entry) => entry.action.type === "keep");
  if (keep && below(4) !== 0) return keep.index;
  const playable = legal.filter((entry) => entry.action.type !== "concede");
  const pool = playable.length > 0 ? playable : legal;
  return pool[below(pool.length)].index;
}

const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const message = JSON.parse(line);
  if (message.type === "start") seed(message.game);
  else if (message.type === "act") process.stdout.write(JSON.stringify({ index: choose(message.legal) }) + "\n");
  else if (message.type === "end") lines.close();
});
