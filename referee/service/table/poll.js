// @ts-check
// Following a private game: what a poll of the ledger (POST /v1/latest) takes, and how often it asks.
// docs/table.md "what a poll drops": a poll never takes back a state a move of this page has just passed.

import { matchGoesOn } from "./match.js";

export const POLL_MS = 500; // how often to ask for the latest state while someone plays
export const POLL_IDLE_MS = 3000; // ... after a minute without a move, or while the page is hidden
export const IDLE_AFTER_MS = 60_000;

/**
 * What a poll's answer is to this page: the match's `next` game (open it), a later state (take it), or
 * nothing new: dropped while a move of this page is in flight (the move adopts its own answer), and
 * when its `seq` is not past the one shown (its token may be a step behind the one a move just adopted).
 * @param {{seq: number, next?: any}} latest
 * @param {{busy: boolean, shownSeq: number | null | undefined}} page
 * @returns {"next" | "take" | "drop"}
 */
export function pollTakes(latest, page) {
  if (latest.next) return "next";
  if (page.busy) return "drop";
  if (page.shownSeq !== null && page.shownSeq !== undefined && latest.seq <= page.shownSeq) return "drop";
  return "take";
}

/** Another tab of this game in this browser moved (no ledger): its state is taken only when later. */
export function storageTakes(view, shown) {
  return !(shown && typeof view.seq === "number" && typeof shown.seq === "number" && view.seq <= shown.seq);
}

/** The wait before the next poll: short while the game moves, long when idle or hidden. */
export function pollDelay({ hidden, lastChange, now = Date.now() }) {
  return hidden || now - lastChange > IDLE_AFTER_MS ? POLL_IDLE_MS : POLL_MS;
}

/** Whether to keep polling after `view`: until the game is over, unless its match goes on. */
export const keepsPolling = (view) => !(view && view.phase === "over" && !matchGoesOn(view));

/** The key a poll asks with: a spectator's watch key, else the seat drawn's. */
export const pollKey = (s) => (s.mode === "watch" ? s.net.watch : (s.net.seats ? s.net.seats[s.seat] || null : null));
