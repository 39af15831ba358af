// @ts-check
// What this browser keeps (localStorage, passed in as `store`): the hot-seat game so that a reload brings it
// back, a private game's token (a referee without a ledger), its log and, against the computer, its moves.

/** @typedef {import("./session.js").Session} Session */
/** @typedef {Pick<Storage, "getItem" | "setItem" | "removeItem">} Store */

export const HOT_KEY = "af-table-hot"; // the hot-seat game in this browser's storage: it survives a reload
export const PRIVATE_KEY = "af-table-private"; // the private game this browser last played: its link (fragment)
export const HISTORY_KEPT = 60; // positions kept for undo across a reload (storage is a few MiB)
export const LOG_KEPT = 600; // events kept with a private game in this browser (a whole game is a few hundred)

/** The hot-seat game, with as much undo history as the storage takes. @param {Store} store @param {Session} s */
export function saveHot(store, s) {
  if (s.mode !== "hot" || !s.moves.game) return;
  const keep = (n) => ({ game: s.moves.game, names: s.names, played: s.moves.played, state: s.state, events: s.events,
    history: n ? s.history.slice(-n) : [], follow: s.follow, computer: s.computer });
  for (const n of [HISTORY_KEPT, 10, 0]) {
    try {
      store.setItem(HOT_KEY, JSON.stringify(keep(n)));
      return;
    } catch { /* over the storage quota: keep fewer positions for undo */ }
  }
}

/** The hot-seat game `saveHot` kept, or null (none, or unreadable: then forgotten). @param {Store} store */
export function loadHot(store) {
  const text = store.getItem(HOT_KEY);
  if (!text) return null;
  let saved;
  try {
    saved = JSON.parse(text);
  } catch {
    store.removeItem(HOT_KEY);
    return null;
  }
  return saved && saved.state && saved.game ? saved : null;
}

/** A private game's latest token, and the seat's log with it. @param {Store} store @param {Session} s */
export function keepPrivate(store, s, state) {
  if (s.mode !== "private" || !s.net.gameKey) return;
  store.setItem(s.net.gameKey, JSON.stringify({ state, at: Date.now() })); // the token, for a referee without a ledger
  saveLog(store, s);
}

/** A private seat's event log, kept with the game in this browser (a reload loses nothing). */
export function saveLog(store, s) {
  if (s.mode !== "private" || !s.net.gameKey) return;
  try {
    store.setItem(`${s.net.gameKey}:log:${s.seat}`, JSON.stringify(s.events.slice(-LOG_KEPT)));
  } catch { /* over quota: the log is a convenience, the game is on the referee */ }
}

export function loadLog(store, s) {
  try {
    return JSON.parse(store.getItem(`${s.net.gameKey}:log:${s.seat}`) || "[]");
  } catch {
    return [];
  }
}

/** Private mode against the computer: the deal's token and the moves, kept for the record across a reload. */
export function saveMoves(store, s) {
  const m = s.moves;
  if (s.mode !== "private" || !s.net.gameKey || !m.dealt) return;
  try {
    store.setItem(`${s.net.gameKey}:moves`, JSON.stringify({ dealt: m.dealt, played: m.played, times: m.times, dealtAt: m.dealtAt }));
  } catch { /* over quota: the record is then not offered after a reload */ }
}

/** @returns {import("./session.js").Moves} */
export function loadMoves(store, s) {
  try {
    const kept = JSON.parse(store.getItem(`${s.net.gameKey}:moves`) || "null");
    if (kept) return { game: null, dealt: kept.dealt, played: kept.played, times: kept.times || [], dealtAt: kept.dealtAt ?? null };
  } catch { /* unreadable: no record offered */ }
  return { game: null, dealt: null, played: [], times: [], dealtAt: null };
}

export const EVENT_KEY = "af-table-event"; // the event document the Event tab keeps (the referee keeps none)

/** The event document, kept whole. @param {Store} store @param {object | null} doc */
export function saveEvent(store, doc) {
  if (doc) store.setItem(EVENT_KEY, JSON.stringify(doc));
  else store.removeItem(EVENT_KEY);
}

/** The event document `saveEvent` kept, or null (none, or unreadable: then forgotten). @param {Store} store */
export function loadEvent(store) {
  try {
    const doc = JSON.parse(store.getItem(EVENT_KEY) || "null");
    if (doc && Array.isArray(doc.players) && Array.isArray(doc.rounds)) return doc;
  } catch { /* unreadable */ }
  store.removeItem(EVENT_KEY);
  return null;
}
