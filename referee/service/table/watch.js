// @ts-check
// The spectator's table (watch.html): polls the ledger's latest state with the game's watch key
// (POST /v1/latest, docs/api.md §11-§12) and draws the spectator view. Nothing here can act.

const POLL_MS = 1000;
const params = new URLSearchParams(location.hash.slice(1));
const gameId = params.get("game") || "";
const watchKey = params.get("watch") || "";
/** @type {Record<string, string>} */
let names = {};
let seq = -1;

/** @param {string} id */
const el = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

/** @param {string} text */
function status(text) {
  el("watch-status").textContent = text;
}

/** @param {Record<string, string>} cards @param {string} iid */
function cardName(cards, iid) {
  const cid = cards[iid];
  return cid ? `${names[cid] || cid}` : "face down";
}

/** @param {string} label @param {string[]} items */
function zone(label, items) {
  const row = document.createElement("p");
  row.className = "watch-zone";
  row.textContent = `${label}: ${items.length ? items.join(", ") : "—"}`;
  return row;
}

/** @param {any} view */
function draw(view) {
  el("watch-seq").textContent = String(view.seq);
  el("watch-turn").textContent = String(view.turn);
  el("watch-phase").textContent = view.result ? `over: player ${view.result.winner + 1} won (${view.result.reason})` : view.phase;
  el("watch-active").textContent = view.phase === "over" ? "" : `${view.players[view.active].name || `Player ${view.active + 1}`} to act`;
  const blocks = view.players.map((/** @type {any} */ pl, /** @type {number} */ p) => {
    const block = document.createElement("div");
    block.className = "watch-player";
    block.dataset.player = String(p);
    const title = document.createElement("h2");
    title.textContent = pl.name || `Player ${p + 1}`;
    block.append(
      title,
      zone("file", [`${pl.file} cards`]),
      zone("hand", [`${pl.hand.length} cards`]),
      zone("cases", pl.cases.map((/** @type {any} */ c) => cardName(view.cards, c.card))),
      zone("fairies", pl.fairies.map((/** @type {any} */ f) => cardName(view.cards, f.card))),
      zone("evidence", pl.evidence.map((/** @type {any} */ e) => cardName(view.cards, e.card))),
      zone("trash", pl.trash.map((/** @type {string} */ iid) => cardName(view.cards, iid))),
    );
    return block;
  });
  el("watch-players").replaceChildren(...blocks);
}

async function poll() {
  try {
    const resp = await fetch("/v1/latest", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ game_id: gameId, seat: watchKey }),
    });
    const data = await resp.json();
    if (resp.ok) {
      if (data.seq >= seq) {
        seq = data.seq;
        draw(data.view);
      }
      status(data.view.phase === "over" ? "The game is over." : "Watching: the board follows the game.");
      if (data.view.phase === "over") return;
    } else if (data.code === "no_ledger") {
      status("This referee keeps no ledger (REFEREE_LEDGER), so it cannot show a game's latest state: "
        + "games here are watched in the players' own browser only.");
      return;
    } else if (data.code === "ledger_unavailable") {
      status("The referee's ledger is unreachable; trying again…");
    } else {
      status(`Cannot watch this game: ${data.detail || resp.status}`);
      return;
    }
  } catch (err) {
    status("The referee cannot be reached; trying again…");
  }
  setTimeout(poll, POLL_MS);
}

async function start() {
  if (!gameId || !watchKey) {
    status("This link has no game to watch (#game=…&watch=…).");
    return;
  }
  try {
    const catalog = await (await fetch("/v1/cards")).json();
    names = Object.fromEntries(catalog.cards.map((/** @type {any} */ c) => [c.id, c.name_en || c.name]));
  } catch (err) {
    names = {};
  }
  poll();
}

start();
