// @ts-check
// What changed between two views of one game, as events in the referee's own vocabulary
// (the types of /v1/apply's events), for the event log of moves this page did not make:
// the other player's moves a private seat or a spectator follows (POST /v1/latest answers a
// view, not events) and the positions of the replay viewer (POST /v1/replay answers a state).
// It reads views only, so it can say no more than the viewer may see; each event it makes
// carries `seen: true` (the log marks it) because it is read from the positions, not told.

/** @typedef {import("./api.js").View} View */

/** @param {View} v */
const actorOf = (v) => (v.pending ? v.pending.responder : v.active);

/** Events that lead from `before` to `after` (the same game, `after` later), as far as the views tell. */
export function changesBetween(before, after) {
  /** @type {any[][]} */
  const stages = [[], [], [], [], [], [], []]; // the order a move tells: keep, field, trash, window, turn, draw, end
  const [KEEP, FIELD, TRASH, WINDOW, TURN, DRAW, END] = [0, 1, 2, 3, 4, 5, 6];
  const add = (stage, ev) => stages[stage].push({ ...ev, seen: true });
  for (const p of [0, 1]) {
    const was = before.players[p];
    const now = after.players[p];
    if (!was.kept && now.kept) add(KEEP, { type: "keep", player: p });
    else if (after.phase === "mulligan" && was.hand.join() !== now.hand.join()) {
      add(KEEP, { type: "mulligan", player: p, cards: now.hand.length });
    }
    const oldCases = new Map(was.cases.map((c) => [c.card, c]));
    for (const c of now.cases) {
      const old = oldCases.get(c.card);
      if (!old) add(FIELD, { type: "case_played", player: p, case: c.card });
      else if (!old.face_up && c.face_up && after.cards[c.card]) add(FIELD, { type: "reveal", case: c.card, card: after.cards[c.card] });
    }
    const oldFairies = new Map(was.fairies.map((f) => [f.card, f.case]));
    for (const f of now.fairies) {
      if (!oldFairies.has(f.card)) {
        add(FIELD, { type: "fairy_played", player: p, fairy: f.card });
        if (f.case) add(FIELD, { type: "dispatch", player: p, fairy: f.card, case: f.case });
      } else if (oldFairies.get(f.card) !== f.case) {
        if (f.case === null) add(FIELD, { type: "recall", player: p, fairy: f.card });
        else add(FIELD, { type: oldFairies.get(f.card) ? "redispatch" : "dispatch", player: p, fairy: f.card, case: f.case });
      }
    }
    const oldEvidence = new Set(was.evidence.map((e) => e.card));
    for (const e of now.evidence) {
      if (!oldEvidence.has(e.card)) add(FIELD, { type: "evidence_played", player: p, evidence: e.card, case: e.case });
    }
    const oldTrash = new Set(was.trash);
    for (const iid of now.trash) if (!oldTrash.has(iid)) add(TRASH, { type: "trash", card: iid, player: p });
    if (after.phase !== "mulligan") {
      const inHand = new Set(was.hand);
      const drawn = now.hand.filter((iid) => !inHand.has(iid));
      // Cards this viewer may not see are counted, as the referee tells an opponent's draw.
      const shown = drawn.every((iid) => after.cards[iid]);
      if (drawn.length && now.file < was.file) add(DRAW, { type: "draw", player: p, cards: shown ? drawn : drawn.length });
    }
  }
  // A power given until the end of the turn (a spell, an ability): the modifiers made since (kept in the
  // order made, so the new ones are those past the ones before; a new turn starts the list again).
  const kept = (before.modifiers || []).length;
  const made = after.turn === before.turn ? (after.modifiers || []).slice(kept) : after.modifiers || [];
  for (const m of made) {
    if (typeof m.card === "string" && typeof m.power === "number") add(FIELD, { type: "power", card: m.card, amount: m.power });
  }
  const a = after.pending;
  if (a && JSON.stringify(a.action) !== JSON.stringify(before.pending?.action)) {
    add(WINDOW, { type: "window_opened", responder: a.responder, action: a.action.type });
  }
  if (before.pending && !a) add(WINDOW, { type: "window_closed", negated: before.pending.negated });
  const mover = actorOf(before);
  if (before.step === "case" && after.step === "main" && before.turn === after.turn && !stages[FIELD].length) {
    add(FIELD, { type: "skip_case", player: mover });
  }
  if (before.turn !== after.turn && after.turn > 0) add(TURN, { type: "turn_started", turn: after.turn, player: after.active });
  if (!before.result && after.result) add(END, { type: "game_over", ...after.result });
  const out = stages.flat();
  if (!out.length && after.seq !== before.seq) { // nothing the viewer sees changed but the step: named by it
    const step = after.step !== before.step ? { type: "moved_on", step: after.step } : { type: "moved" };
    out.push({ ...step, player: mover, seen: true });
  }
  return out;
}

const DEALT = 7; // the cards each player is dealt (RULES 5.3)

/** A page that joins a game it did not deal (an invitee, a spectator, a reload without its log): the deal's
 *  lines as the dealer's log tells them (who plays first, the commitment, each player's seven cards, counted),
 *  then, if moves came before, one line for them (they are in the positions, not told). @param {View} view */
export function joinedLines(view) {
  const deal = [{ type: "game_started", first_player: view.first_player, commitment: view.commitment },
    { type: "draw", player: 0, cards: DEALT }, { type: "draw", player: 1, cards: DEALT }];
  const seq = view.seq ?? 0;
  return seq > 0 ? [...deal, { type: "before_join", first: 1, last: seq }] : deal;
}
