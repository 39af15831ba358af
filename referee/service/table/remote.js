// @ts-check
// A private game on two devices (remote.html), through the referee's ledger (docs/api.md §11):
// a player's link carries only the game id and their seat; the page polls POST /v1/latest, so
// each device draws the other's moves within a poll, and acts with its own seat. A move on a
// token that is no longer the latest (409 stale_state) is answered by fetching the latest.

const POLL_MS = 700;
const params = new URLSearchParams(location.hash.slice(1));
/** @type {Record<string, string>} */
let names = {};
/** @type {{token: string, seq: number, view: any} | null} */
let current = null;
let busy = false;

/** @param {string} id */
const el = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
/** @param {string} text */
const status = (text) => { el("remote-status").textContent = text; };

/** @param {string} path @param {object} body */
async function post(path, body) {
  const resp = await fetch(path, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
  return { ok: resp.ok, status: resp.status, data: await resp.json() };
}

async function loadNames() {
  try {
    const catalog = await (await fetch("/v1/cards")).json();
    names = Object.fromEntries(catalog.cards.map((/** @type {any} */ c) => [c.id, c.name_en || c.name]));
  } catch (err) {
    names = {};
  }
}

/** @param {Record<string, string>} cards @param {string} iid */
const cardName = (cards, iid) => (cards[iid] ? names[cards[iid]] || cards[iid] : "face down");

// -- dealing: one link per seat, and a watch link ------------------------------------------

async function dealPage() {
  el("remote-deal").hidden = false;
  el("remote-deal-button").addEventListener("click", async () => {
    const decks = (await (await fetch("/table/decks.json")).json()).decks;
    const { ok, data } = await post("/v1/games", { decks: [decks[0].deck, decks[1].deck], players: ["Aoi", "Ren"] });
    const list = el("remote-links");
    if (!ok) {
      list.replaceChildren(Object.assign(document.createElement("li"), { textContent: data.detail }));
      return;
    }
    const view = (await post("/v1/view", { state: data.state, seat: data.seats[0] })).data.view;
    const gameId = view.game_id;
    const probe = await post("/v1/latest", { game_id: gameId, seat: data.seats[0] });
    if (!probe.ok && probe.data.code === "no_ledger") {
      list.replaceChildren(Object.assign(document.createElement("li"), {
        textContent: "This referee keeps no ledger (REFEREE_LEDGER), so a game cannot be shared between "
          + "devices by its id: play it on one browser at /table.",
      }));
      return;
    }
    const base = `${location.origin}/table/remote.html`;
    const links = [0, 1].map((p) => [`${view.players[p].name}'s link`, `${base}#game=${gameId}&seat=${data.seats[p]}`, `seat-link-${p}`]);
    links.push(["Watch link", `${location.origin}/table/watch.html#game=${gameId}&watch=${data.watch}`, "watch-link"]);
    list.replaceChildren(...links.map(([label, href, id]) => {
      const item = document.createElement("li");
      const a = Object.assign(document.createElement("a"), { href, id, textContent: label, target: "_blank", rel: "noopener" });
      item.append(a);
      return item;
    }));
  });
}

// -- playing one seat ------------------------------------------------------------------------

/** @param {any} view */
function drawBoard(view) {
  el("remote-seq").textContent = String(view.seq);
  el("remote-me").textContent = view.players[view.viewer].name || `Player ${view.viewer + 1}`;
  el("remote-phase").textContent = view.result
    ? `over: ${view.players[view.result.winner].name || `player ${view.result.winner + 1}`} won (${view.result.reason})`
    : `${view.phase}, ${view.players[view.active].name || `player ${view.active + 1}`} to act`;
  const blocks = view.players.map((/** @type {any} */ pl, /** @type {number} */ p) => {
    const block = document.createElement("div");
    block.className = "remote-player";
    const rows = [
      ["file", [`${pl.file} cards`]],
      ["hand", pl.hand.map((/** @type {string} */ iid) => cardName(view.cards, iid))],
      ["cases", pl.cases.map((/** @type {any} */ c) => cardName(view.cards, c.card))],
      ["fairies", pl.fairies.map((/** @type {any} */ f) => cardName(view.cards, f.card))],
      ["evidence", pl.evidence.map((/** @type {any} */ e) => cardName(view.cards, e.card))],
      ["trash", pl.trash.map((/** @type {string} */ iid) => cardName(view.cards, iid))],
    ];
    const title = Object.assign(document.createElement("h2"), { textContent: pl.name || `Player ${p + 1}` });
    block.append(title, ...rows.map(([label, items]) => Object.assign(document.createElement("p"), {
      textContent: `${label}: ${/** @type {string[]} */ (items).join(", ") || "—"}`,
    })));
    return block;
  });
  el("remote-board").replaceChildren(...blocks);
}

/** @param {string} seat */
async function drawActions(seat) {
  if (!current) return;
  const token = current.token;
  const { ok, data } = await post("/v1/legal-actions", { state: token, seat, labels: true });
  if (!ok || !current || current.token !== token) return;
  const buttons = data.actions.map((/** @type {any} */ action, /** @type {number} */ i) => {
    const { label, ...plain } = action;
    const button = Object.assign(document.createElement("button"), {
      className: "remote-action", textContent: label || action.type, onclick: () => act(seat, token, plain),
    });
    button.dataset.index = String(i);
    button.dataset.type = action.type;
    return button;
  });
  el("remote-actions").replaceChildren(...buttons);
}

/** @param {string} seat @param {string} token @param {object} action */
async function act(seat, token, action) {
  if (busy) return;
  busy = true;
  try {
    const { ok, data } = await post("/v1/apply", { state: token, action, seat });
    if (ok) {
      take({ token: data.state, seq: data.view.seq, view: data.view }, seat);
      status("Your move is made.");
    } else if (data.code === "stale_state") {
      status("The game moved on (another device): here is the latest state.");
      await refresh(seat);
    } else {
      status(data.detail || `HTTP ${data.status}`);
    }
  } finally {
    busy = false;
  }
}

/** @param {{token: string, seq: number, view: any}} latest @param {string} seat */
function take(latest, seat) {
  if (current && latest.seq < current.seq) return; // never go back
  const changed = !current || latest.token !== current.token;
  current = latest;
  if (changed) {
    drawBoard(latest.view);
    drawActions(seat);
  }
}

/** @param {string} seat */
async function refresh(seat) {
  const gameId = params.get("game") || "";
  const { ok, data } = await post("/v1/latest", { game_id: gameId, seat });
  if (ok) {
    take({ token: data.state, seq: data.seq, view: data.view }, seat);
    return true;
  }
  if (data.code === "no_ledger") {
    status("This referee keeps no ledger (REFEREE_LEDGER): a game cannot follow another device. Play it at /table.");
    return false;
  }
  status(data.code === "ledger_unavailable" ? "The referee's ledger is unreachable; trying again…" : data.detail);
  return data.code === "ledger_unavailable";
}

/** @param {string} seat */
async function playPage(seat) {
  el("remote-play").hidden = false;
  status("Playing: the board follows the other device.");
  const loop = async () => {
    let again = true;
    try {
      if (!busy) again = await refresh(seat);
    } catch (err) {
      status("The referee cannot be reached; trying again…");
    }
    if (again && !(current && current.view.phase === "over")) setTimeout(loop, POLL_MS);
  };
  loop();
}

await loadNames();
const seat = params.get("seat");
if (params.get("game") && seat) playPage(seat);
else dealPage();
