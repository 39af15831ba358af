// @ts-check
// The page's fixed places: an element by id, the problem box, the tabs, the page's words in its language,
// a refused request in words, a file saved from the page.

import { RefereeError } from "./api.js";
import { h } from "./board.js";
import { t } from "./i18n.js";

export const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

export function showProblem(lang, text, rule) {
  const box = $("problem");
  box.replaceChildren(...(rule ? [h("strong.rule", {}, `${t(lang, "rule")} ${rule}`), " "] : []), text);
  box.hidden = false;
}

/** @param {{problem: any}} s */
export function clearProblem(s) {
  s.problem = null;
  $("problem").hidden = true;
}

/** A refused request in words: rule and detail for a 422, code and detail otherwise. */
export function describeError(err) {
  if (err instanceof RefereeError) {
    const p = err.problem;
    return { rule: p.rule, text: `${p.code ? `${p.code}: ` : ""}${p.detail || ""}` };
  }
  return { rule: undefined, text: String(err && err.message ? err.message : err) };
}

/** The problem a refused request carries (its `errors`, `line`, `violations`), or null. */
export const problemOf = (err) => (err instanceof RefereeError ? /** @type {any} */ (err.problem) : null);

export function translatePage(lang) {
  document.documentElement.lang = lang;
  for (const el of document.querySelectorAll("[data-t]")) {
    el.textContent = t(lang, /** @type {HTMLElement} */ (el).dataset.t || "");
  }
  for (const b of document.querySelectorAll("[data-lang]")) {
    b.classList.toggle("active", /** @type {HTMLElement} */ (b).dataset.lang === lang);
  }
}

export function showTab(name) {
  for (const tab of ["deal", "play", "replay", "event"]) {
    $(tab).hidden = tab !== name && !(name === "replay-board" && tab === "play");
    $(`tab-${tab}`).classList.toggle("active", tab === name || (name === "replay-board" && tab === "replay"));
  }
  if (name === "replay-board") $("replay").hidden = true;
}

/** Offer `text` as a download named `filename`. */
export function saveFile(filename, text, type = "application/json") {
  const url = URL.createObjectURL(new Blob([text], { type: `${type};charset=utf-8` }));
  const a = h("a", { href: url, download: filename, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** Copy `text` where the browser lets the page (a secure context); else select it in `field` for the
 *  user to copy. Says which: true when copied. */
export async function copyOrSelect(text, field) {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch { /* refused (no permission): select it instead */ }
  field.hidden = false;
  field.focus();
  field.select();
  return false;
}
