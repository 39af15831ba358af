// @ts-check
// The clocks of a clocked game (docs/api.md §15) as the page counts them down between positions.
// The referee's own clock decides; the page only shows the time running and asks again when it is out.

/** A player's time left: the view's `remaining`, less the time since `since` for the player whose time
 *  runs (counted here, between positions, without asking the referee). */
export function timeLeft(clock, p, live, now = Date.now()) {
  const running = live && clock.running === p ? Math.max(0, now - Date.parse(clock.since)) : 0;
  return Math.max(0, clock.remaining[p] - running);
}

/** "4:05", "1:00:00": whole seconds, rounded up (a clock shows 0:00 only when the time is out). */
export function clockText(ms) {
  const s = Math.ceil(ms / 1000);
  const hms = [Math.floor(s / 3600), Math.floor(s / 60) % 60, s % 60];
  return hms[0] ? `${hms[0]}:${String(hms[1]).padStart(2, "0")}:${String(hms[2]).padStart(2, "0")}`
    : `${hms[1]}:${String(hms[2]).padStart(2, "0")}`;
}

export const LOW_MS = 10_000; // a clock under ten seconds is marked low

/** How a clock is marked: out of time, low, or neither. */
export const clockState = (ms) => ({ out: ms <= 0, low: ms > 0 && ms < LOW_MS });

/** Whether the clocks run on the page: a live game (a seat's or a spectator's) not over. */
export const clocksLive = (live, view) => live && !!view && view.phase !== "over";

export const CLAIM_ASK_MS = 1000; // when the opponent's time is out, the actions are asked again once a second at most

/** Whether to ask for the legal actions again now: the opponent's time is out on the page, the claim is
 *  not listed yet (the referee lists it exactly while it is legal), nothing is under way, and the last
 *  ask was over a second ago. */
export function claimWorthAsking({ clock, seat, actions, busy, lastAsk, now = Date.now() }) {
  const opponent = 1 - seat;
  return clock.running === opponent && timeLeft(clock, opponent, true, now) <= 0
    && !actions.some((a) => a.type === "claim_time") && !busy && now - lastAsk > CLAIM_ASK_MS;
}
