// @ts-check
// Drawing the table from one player's view (docs/api.md §5): card frames, zones, status.
// Everything drawn comes from the view and the catalog; a card the view does not
// name is drawn as a card back, so the page can show nothing a player may not see.

import { KIND, actionName, t } from "./i18n.js";

/** @typedef {import("./api.js").View} View */
/** @typedef {import("./api.js").Card} Card */

/** Create an element: h("div#id.card.kind-fairy", {title: "..."}, child, ...). */
export function h(tag, attrs = {}, ...children) {
  const [head, ...classes] = tag.split(".");
  const [name, id] = head.split("#");
  const el = document.createElement(name || "div");
  if (id) el.id = id;
  if (classes.length) el.className = classes.join(" ");
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "dataset") Object.assign(el.dataset, v);
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** The card's stats line: power, level and hit, or cost. */
function stats(card, lang, bonus) {
  const parts = [];
  if (card.kind === "fairy" || card.kind === "evidence") {
    parts.push(`${t(lang, "power")} ${card.power}${bonus ? (bonus > 0 ? `+${bonus}` : `${bonus}`) : ""}`);
  }
  if (card.kind === "case") parts.push(`${t(lang, "level")} ${card.level}`, `${t(lang, "hit")} ${card.hit}`);
  if (card.kind === "spell" || card.kind === "counter") parts.push(`${t(lang, "cost")} ${card.cost}`);
  return parts.join(" · ");
}

/**
 * A card frame. `iid` the instance, `card` its catalog entry or null (unknown: a card back).
 * Options: faceDown (an own face-down case: drawn, marked), actioned, owner, bonus (power modifier).
 */
export function cardFrame(iid, card, lang, opts = {}) {
  const classes = ["card"];
  if (opts.actioned) classes.push("actioned");
  if (opts.owner !== undefined) classes.push(`owner-${opts.owner}`);
  if (!card) {
    // A card back has no visible words ("AF" is drawn by CSS), so its label is the whole name.
    const operable = iid ? { tabindex: "0", role: "button", "aria-label": t(lang, "face_down") } : { role: "img", "aria-label": t(lang, "face_down") };
    return h(`div.${[...classes, "back"].join(".")}`, { dataset: { iid: iid || "" }, title: t(lang, "face_down"), ...operable },
      h("div.back-mark", { "aria-hidden": "true" }));
  }
  classes.push(`kind-${card.kind}`);
  if (opts.faceDown) classes.push("face-down");
  const [main, other] = cardNames(card, lang);
  const title = [main, other, stats(card, lang, opts.bonus), card.text].filter(Boolean).join("\n");
  // A card on the table is a button: reachable with Tab, operated with Enter or Space (table.js). Its
  // accessible name is its visible text (no aria-label: a label unlike the words shown fails WCAG 2.5.3);
  // what is shown only by drawing (turned sideways) is said in words a screen reader reads.
  const operable = iid ? { tabindex: "0", role: "button" } : {};
  return h(`div.${classes.join(".")}`, { dataset: { iid: iid || "", cid: card.id }, title, ...operable },
    h("div.c-head", {}, h("span.c-kind", {}, KIND[lang]?.[card.kind] || card.kind),
      opts.faceDown ? h("span.c-flag", {}, t(lang, "face_down")) : null,
      opts.actioned ? h("span.sr-only", {}, t(lang, "actioned")) : null),
    h(`div.c-name${longWord(main) ? ".long" : ""}`, { lang: lang === "ja" ? "ja" : (card.name_en ? "en" : "ja") }, main),
    other ? h("div.c-alt", { lang: lang === "ja" ? "en" : "ja" }, other) : null,
    h("div.c-stats", {}, stats(card, lang, opts.bonus)),
    card.text ? h("div.c-text", { lang: "en" }, card.text) : null);
}

/** Whether a name holds a word too long for a card's width at the usual size ("Interference"): drawn
 *  smaller, so that it is not broken in the middle. */
const longWord = (name) => name.split(/\s+/).some((w) => w.length > 10);

/** A card's names in the page's language first: [main, the other language's or null]. The catalog's
 *  `name` is Japanese and `name_en` English; the rules text is English only. */
export function cardNames(card, lang) {
  const en = card.name_en || null;
  if (lang === "ja" || !en) return [card.name, en && en !== card.name ? en : null];
  return [en, card.name !== en ? card.name : null];
}

/** A card in words, for a screen reader and the card panel: kind, names, stats, state and text. */
export function cardWords(card, lang, opts = {}) {
  const [main, other] = cardNames(card, lang);
  const flags = [opts.faceDown ? t(lang, "face_down") : null, opts.actioned ? t(lang, "actioned") : null].filter(Boolean);
  return [`${KIND[lang]?.[card.kind] || card.kind}: ${main}${other ? ` (${other})` : ""}`, stats(card, lang, opts.bonus),
    ...flags, card.text].filter(Boolean).join(lang === "ja" ? "。" : ". ");
}

/** 1st, 2nd, 3rd, 4th... 11th, 12th, 13th, 21st. */
export function ordinal(n) {
  const suffix = n % 100 >= 10 && n % 100 <= 20 ? "th" : { 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th";
  return `${n}${suffix}`;
}

/** The display name of an instance for `view` (a hidden card: "a card"). */
export function cardName(view, catalog, iid, lang, cid) {
  const id = cid || (iid ? view.cards[iid] : undefined);
  const card = id ? catalog.get(id) : undefined;
  if (!card) {
    // An opponent's face-down case by its place, as the referee's labels name it.
    for (const [p, pl] of view.players.entries()) {
      const n = iid ? pl.cases.findIndex((c) => c.card === iid) + 1 : 0;
      if (n > 0 && view.viewer !== null && p !== view.viewer) return t(lang, "place_face_down", { n, nth: ordinal(n) });
      if (n > 0) return lang === "ja" ? "裏向きの事件" : "a face-down case";
    }
    return lang === "ja" ? "非公開のカード" : "a hidden card";
  }
  const en = card.name_en || card.name;
  return lang === "ja" ? `「${card.name}」` : en;
}

function bonusOf(view, iid) {
  return (view.modifiers || []).filter((m) => m.card === iid).reduce((n, m) => n + m.power, 0);
}

/** One player's half of the table. */
function playerZone(view, catalog, p, lang, names, onTrash) {
  const me = view.viewer === p;
  const pl = view.players[p];
  const frame = (iid, opts = {}) => cardFrame(iid, catalog.get(view.cards[iid]) || null, lang, opts);
  const acting = (view.pending ? view.pending.responder : view.active) === p && view.phase !== "over";
  const head = h("div.zone-head", {},
    h("span.pname", {}, names[p]), acting ? h("span.to-act", {}, `▶ ${t(lang, "active")}`) : null,
    h("span.count.file-count", { dataset: { player: String(p) } }, `${t(lang, "file")} ${pl.file}`),
    h("button.count.trash-count", { dataset: { player: String(p) }, onclick: () => onTrash(p) },
      `${t(lang, "trash")} ${pl.trash.length}`),
    h("span.count.hand-count", { dataset: { player: String(p) } }, `${t(lang, "hand")} ${pl.hand.length}`));

  const slots = pl.cases.map((entry) => {
    const known = !!view.cards[entry.card];
    const attached = [];
    for (const q of [0, 1]) {
      for (const f of view.players[q].fairies) {
        if (f.case === entry.card) attached.push(frame(f.card, { owner: q, bonus: bonusOf(view, f.card) }));
      }
      for (const e of view.players[q].evidence) {
        if (e.case === entry.card) attached.push(frame(e.card, { owner: q, bonus: bonusOf(view, e.card) }));
      }
    }
    return h("div.case-slot", { dataset: { case: entry.card } },
      h("div.case-wrap" + (entry.actioned ? ".sideways" : ""), {},
        cardFrame(entry.card, known ? catalog.get(view.cards[entry.card]) : null, lang,
          { actioned: entry.actioned, faceDown: !entry.face_up && known, owner: p })),
      h("div.attached", {}, attached));
  });
  const standby = pl.fairies.filter((f) => f.case === null)
    .map((f) => frame(f.card, { owner: p, bonus: bonusOf(view, f.card) }));
  const hand = pl.hand.map((iid) => (me ? frame(iid) : cardFrame(null, null, lang)));

  const field = h("div.field", {},
    h("div.cases", {}, slots.length ? slots : h("p.empty", {}, t(lang, "no_cases"))),
    standby.length ? h("div.standby", {}, h("span.zone-label", {}, t(lang, "standby")), standby) : null);
  const handRow = h("div.hand" + (me ? ".mine" : ".theirs"),
    { dataset: { player: String(p) }, role: "group", "aria-label": t(lang, "your_hand", { name: names[p] }) }, hand);
  // The viewer's own half is "me"; a spectator (viewer null) sees player 1 above and player 0 below.
  const place = me ? "me" : (view.viewer === null && p === 0 ? "near" : "opp");
  return h(`section.player-zone.${place}`, { dataset: { player: String(p) }, "aria-label": names[p] },
    place === "opp" ? [head, handRow, field] : [head, field, handRow]);
}

/** The whole board for `view`: the opponent above, the viewer below. */
export function drawBoard(container, view, catalog, lang, names, onTrash) {
  const me = view.viewer ?? 0; // a spectator's view has no viewer
  container.replaceChildren(
    playerZone(view, catalog, 1 - me, lang, names, onTrash),
    playerZone(view, catalog, me, lang, names, onTrash));
}

/** The status line: turn, step, who acts, pending action, result. */
export function drawStatus(container, view, catalog, lang, names) {
  const parts = [];
  if (view.phase === "over" && view.result) {
    parts.push(h("span.result", {}, t(lang, "winner",
      { name: names[view.result.winner], reason: t(lang, `reasons.${view.result.reason}`) })));
  } else {
    parts.push(h("span.turn", {}, `${t(lang, "turn")} ${view.turn}`));
    parts.push(h("span.step", {}, t(lang, `steps.${view.step}`)));
    const actor = view.pending ? view.pending.responder : view.active;
    parts.push(h("span.actor", {}, `${t(lang, "active")}: ${names[actor]}`));
  }
  if (view.pending) {
    const a = view.pending.action;
    const what = a.card ? cardName(view, catalog, a.card, lang) : (a.case ? cardName(view, catalog, a.case, lang) : "");
    parts.push(h("span.pending", {}, `${t(lang, "pending")}: ${names[a.player]} — ${actionName(lang, a.type)}`
      + `${what ? ` (${what})` : ""} · ${t(lang, "responds", { name: names[view.pending.responder] })}`));
  }
  if (typeof view.seq === "number") parts.push(h("span.seq", {}, `${t(lang, "seq")} ${view.seq}`));
  container.replaceChildren(...parts);
}
