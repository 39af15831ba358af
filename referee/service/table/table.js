// @ts-check
// The table page: deal, play (hot-seat, a private seat, against the computer), watch and replay, all
// through the API, on one board for everyone. The page never reads a plain state: every picture is drawn
// from a view for one seat (/v1/view, or /v1/latest's view when following a private game), and the actions
// offered are /v1/legal-actions for that seat, labelled by the referee.
//
// This module only starts the page: it makes the session (session.js) and wires the page's fixed buttons
// to the controllers: deal.js (the Deal tab), play.js (a move, undo, download), follow.js (a private game
// followed through the ledger), replay.js (the Replay tab), eventpage.js (the Event tab), draw.js (the board and what stands beside it).

import { createClient } from "./api.js";
import { checkDeckSoon, deal, loadDecks, loadFormats, offerClocks } from "./deal.js";
import { draw, tickClockBox } from "./draw.js";
import { wireEvent } from "./eventpage.js";
import { joinFromHash, resumeFollowing, takeFromStorage } from "./follow.js";
import { askForClaim, attempt, refresh, restoreHot } from "./play.js";
import { checkLine, loadReplay, showReplayStep, stepReplay } from "./replay.js";
import { createSession } from "./session.js";
import { PRIVATE_KEY } from "./store.js";
import { $, showTab, translatePage } from "./ui.js";

/** @typedef {import("./session.js").Session} Session */

const LANG_KEY = "af-table-lang";

/** The language buttons: the page, the deal form and the game in the other language. @param {Session} s */
function wireLanguage(s) {
  for (const b of document.querySelectorAll("[data-lang]")) {
    b.addEventListener("click", async () => {
      s.lang = /** @type {HTMLElement} */ (b).dataset.lang === "ja" ? "ja" : "en";
      localStorage.setItem(LANG_KEY, s.lang);
      translatePage(s.lang);
      await Promise.all([loadDecks(s), loadFormats(s)]);
      for (const p of [0, 1]) checkDeckSoon(s, p);
      if (s.state === null) return;
      if (s.mode === "replay" && s.replay) {
        if (s.replay.failAt !== null) await checkLine(s, s.replay); // the refusal in this language
        await showReplayStep(s);
      } else await refresh(s);
      if (s.problem && s.problem.state === s.state) await attempt(s, s.problem.action);
    });
  }
}

/** The Replay tab: a file chosen or dropped, a text pasted; the steps by button and by keyboard. @param {Session} s */
function wireReplay(s) {
  $("replay-load").addEventListener("click", () => loadReplay(s, /** @type {HTMLTextAreaElement} */ ($("replay-text")).value));
  const openFile = async (/** @type {File | undefined} */ file) => {
    if (!file) return;
    const text = await file.text();
    /** @type {HTMLTextAreaElement} */ ($("replay-text")).value = text;
    await loadReplay(s, text);
  };
  $("replay-file").addEventListener("change", (e) => openFile(/** @type {HTMLInputElement} */ (e.target).files?.[0]));
  const drop = $("replay-drop"); // a record or replay file dropped anywhere on the Replay tab's box
  drop.addEventListener("dragover", (e) => {
    e.preventDefault();
    drop.classList.add("dragging");
  });
  drop.addEventListener("dragleave", () => drop.classList.remove("dragging"));
  drop.addEventListener("drop", (e) => {
    e.preventDefault();
    drop.classList.remove("dragging");
    openFile(/** @type {DragEvent} */ (e).dataTransfer?.files?.[0]);
  });
  const index = () => (s.replay ? s.replay.index : 0);
  $("rp-first").addEventListener("click", () => stepReplay(s, 0));
  $("rp-prev").addEventListener("click", () => stepReplay(s, index() - 1));
  $("rp-next").addEventListener("click", () => stepReplay(s, index() + 1));
  $("rp-last").addEventListener("click", () => stepReplay(s, s.replay ? s.replay.end : 0));
  $("rp-fail").addEventListener("click", () => stepReplay(s, s.replay ? s.replay.failAt ?? s.replay.focus ?? 0 : 0));
  // Replay with the keyboard, as in a chess viewer: ← → step, Home / End jump; Escape unselects a card.
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && s.selected) {
      s.selected = null;
      draw(s);
      return;
    }
    if (s.mode !== "replay" || !s.replay || /** @type {HTMLElement} */ (e.target).closest("textarea, input")) return;
    const moves = { ArrowLeft: -1, ArrowRight: 1, Home: -Infinity, End: Infinity };
    if (!(e.key in moves)) return;
    e.preventDefault();
    stepReplay(s, s.replay.index + moves[e.key]);
  });
}

/** The deal form's opponent: the computer's settings shown only when it plays. */
function wireOpponent() {
  const opponent = /** @type {HTMLSelectElement} */ ($("opponent"));
  const showComputer = () => {
    for (const el of document.querySelectorAll("label.cpu")) /** @type {HTMLElement} */ (el).hidden = opponent.value !== "computer";
  };
  opponent.addEventListener("change", showComputer);
  showComputer();
}

async function main() {
  /** @type {"en" | "ja"} */
  const lang = localStorage.getItem(LANG_KEY) === "ja" ? "ja" : "en";
  const s = createSession(lang, createClient({ language: () => s.lang }));
  translatePage(s.lang);
  wireLanguage(s);
  for (const b of document.querySelectorAll("[data-tab]")) {
    b.addEventListener("click", () => {
      const tab = /** @type {HTMLElement} */ (b).dataset.tab;
      if (tab === "play" && s.mode === "replay") return;
      showTab(tab || "deal");
    });
  }
  $("deal-form").addEventListener("submit", (e) => deal(s, e));
  $("curtain-go").addEventListener("click", () => { s.curtain = null; refresh(s); });
  wireReplay(s);
  wireEvent(s);
  const cards = await s.api.cards();
  for (const c of cards.cards) s.catalog.set(c.id, c);
  await Promise.all([loadDecks(s), loadFormats(s), offerClocks(s)]);
  translatePage(s.lang);
  for (const p of [0, 1]) checkDeckSoon(s, p);
  window.setInterval(() => { tickClockBox(s); askForClaim(s); }, 250);
  wireOpponent();
  window.addEventListener("storage", (e) => { takeFromStorage(s, e); });
  document.addEventListener("visibilitychange", () => resumeFollowing(s));
  // A private game this browser plays (its link kept in storage) comes back after a browser restart.
  const kept = localStorage.getItem(PRIVATE_KEY);
  if (!location.hash && kept) history.replaceState(null, "", `/table${kept}`);
  if (!(await joinFromHash(s)) && !(await restoreHot(s))) showTab("deal");
  window.addEventListener("hashchange", () => { joinFromHash(s); }); // another game's link pasted into this tab
  document.body.dataset.ready = "1";
}

main().catch((err) => {
  const box = $("deal-error");
  box.textContent = String(err && err.message ? err.message : err);
  box.hidden = false;
});
