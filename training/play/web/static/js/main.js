// The page: a new-game form, the game view (play, watch, replay), and the tournament view. Every board is drawn
// from the JSON the server sends for this viewer; every move the page can send is one the server listed as legal.
import { html } from "./svg.js";
import { drawTournament } from "./tournament.js";
import * as generic from "./boards/generic.js";

// Each game's drawing, by game id: the module the catalogue names for it (boards/<drawing>.js), or the generic
// drawing for a game that has none of its own. All are loaded once, before the page shows anything (route waits),
// so that a position is always drawn in the same turn as its status is shown.
const BOARDS = {};
let drawingsLoaded = null;
function loadDrawings() {
  if (!drawingsLoaded) {
    drawingsLoaded = request("GET", "/api/catalogue").then(async (cat) => {
      for (const g of cat.games) {
        BOARDS[g.game] = /^[A-Za-z_][A-Za-z0-9_]*$/.test(g.drawing || "") ? await import(`./boards/${g.drawing}.js`) : generic;
      }
    });
    drawingsLoaded.catch(() => { drawingsLoaded = null; });  // asked again at the next route
  }
  return drawingsLoaded;
}
const drawingOf = (game) => BOARDS[game] || generic;
const $ = (id) => document.getElementById(id);
const PAGES = ["page-new", "page-game", "page-replay", "page-tournament"];

let catalogue = null;
let live = null;          // the game or replay on screen
const settings = { delay: 400 };
const declaredSearch = new Set();  // agent:PATH seats whose checkpoint declares a guided search (the catalogue)
let searchReady = null;   // the catalogue's search_ready: false while the server compiles the searches (null: not asked)
let searchPoll = null;

// ----- talking to the server -----------------------------------------------------------------------------------
// This tab's name for the server (no secret): a random id drawn once and kept for the tab, sent with every
// request, so that when the server makes room it drops the games of the tab that created the most, not this one's.
function tabId() {
  let id = sessionStorage.getItem("barnyard-tab");
  if (!id) {
    const bytes = crypto.getRandomValues(new Uint8Array(12));
    id = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    sessionStorage.setItem("barnyard-tab", id);
  }
  return id;
}

async function request(method, url, body, token) {
  const options = { method, headers: { "X-Barnyard-Tab": tabId() } };
  if (token) options.headers["X-Seat-Token"] = token;
  if (body !== undefined) {
    options.body = typeof body === "string" ? body : JSON.stringify(body);
    options.headers["Content-Type"] = "application/json";
  }
  const response = await fetch(url, options);
  let data = null;
  try { data = await response.json(); } catch (err) { data = null; }
  if (!response.ok) throw new Error((data && data.error) || `${response.status} ${response.statusText}`);
  return data;
}

function banner(message) {
  $("banner").textContent = message || "";
  $("banner").hidden = !message;
}

function showPage(id) {
  for (const p of PAGES) $(p).hidden = p !== id;
}

// ----- routing -----------------------------------------------------------------------------------------------------
function route() {
  stopLive();
  banner("");
  const parts = (location.hash || "#/").replace(/^#\/?/, "").split("/");
  const drawn = (parts[0] === "game" || parts[0] === "replay") && parts[1];  // a view that draws a board
  const ready = loadDrawings();
  if (drawn) ready.then(() => showRoute(parts), (err) => banner(err.message));
  else showRoute(parts);
}

function showRoute(parts) {
  if (parts[0] === "game" && parts[1] && parts[3]) {
    // a seat link, #/game/ID/SEAT/TOKEN: keep the token for this tab, and take it out of the address bar
    saveTokens(parts[1], { [parts[2]]: parts[3] });
    history.replaceState(null, "", `#/game/${parts[1]}`);
    openGame(parts[1]);
  } else if (parts[0] === "game" && parts[1]) openGame(parts[1]);
  else if (parts[0] === "replay" && parts[1]) openReplay(parts[1], Number(parts[2] || 0));
  else if (parts[0] === "replay") showPage("page-replay");
  else if (parts[0] === "tournament") showPage("page-tournament");
  else showNewGame();
}

// Each human seat's secret token, by game id, for this tab only (sessionStorage): the page that creates a game
// gets every human seat's token; a seat link (#/game/ID/SEAT/TOKEN) brings one.
function storedTokens(id) {
  try { return JSON.parse(sessionStorage.getItem(`barnyard-tokens-${id}`) || "{}"); } catch (err) { return {}; }
}

function saveTokens(id, tokens) {
  sessionStorage.setItem(`barnyard-tokens-${id}`, JSON.stringify({ ...storedTokens(id), ...tokens }));
}

function tokenOf(mine) {
  const held = Object.keys(mine.tokens).map(Number).sort((a, b) => a - b);
  if (!held.length) return null;
  return mine.tokens[mine.seat === null ? held[0] : mine.seat] || null;
}

function stopLive() {
  if (live && live.timer) clearTimeout(live.timer);
  live = null;
  // the view keeps nothing of the game it showed: until the next one has loaded, its data-* attributes are empty,
  // as on a fresh page, instead of describing the old one
  for (const key of Object.keys($("game").dataset)) $("game").dataset[key] = "";
}

// ----- new game ------------------------------------------------------------------------------------------------------
async function showNewGame() {
  showPage("page-new");
  if (!catalogue) {
    try { catalogue = await request("GET", "/api/catalogue"); } catch (err) { banner(err.message); return; }
    noteSearchReady(catalogue.search_ready !== false);
    const select = $("game-select");
    select.replaceChildren();
    for (const g of catalogue.games) html("option", { value: g.game }, select, g.title);
    select.addEventListener("change", buildOptions);
    buildOptions();
  }
}

function currentGame() { return catalogue.games.find(g => g.game === $("game-select").value); }

function buildOptions() {
  const g = currentGame();
  const box = $("options");
  box.replaceChildren(html("legend", {}, null, "Options"));
  for (const field of g.options) {
    const label = html("label", {}, box, field.label + " ");
    const select = html("select", { name: field.name, id: `opt-${field.name}` }, label);
    field.choices.forEach((c, i) => html("option", { value: i, selected: c === field.default ? "selected" : null }, select, String(c)));
    if (field.name === "num_players") select.addEventListener("change", buildSeats);
  }
  buildSeats();
}

function chosenOptions() {
  const out = {};
  for (const field of currentGame().options) out[field.name] = field.choices[Number($(`opt-${field.name}`).value)];
  return out;
}

function buildSeats() {
  const g = currentGame();
  const n = chosenOptions().num_players || 2;
  const box = $("seats");
  const before = [...box.querySelectorAll("select")].map(s => s.value);
  box.replaceChildren(html("legend", {}, null, "Seats (player_0 moves first)"));
  for (let i = 0; i < n; i++) {
    const row = html("div", { class: "seat-row" }, box);
    html("span", {}, row, `player_${i}`);
    const select = html("select", { id: `seat-${i}`, name: `seat-${i}` }, row);
    html("option", { value: "human" }, select, "human (you)");
    for (const p of g.policies) html("option", { value: p }, select, p);
    html("option", { value: "search:200" }, select, "search:200");
    for (const c of g.checkpoints) {
      if (c.play) {  // the checkpoint as it declares it is played (e.g. sampled), listed before its network alone
        const declared = `${c.path} as ${c.play} ${JSON.stringify(c.options)}`;
        if (c.play.startsWith("guided")) declaredSearch.add(`agent:${c.path}`);
        html("option", { value: `agent:${c.path}`, title: declared }, select, declared);
      }
      const text = `${c.path} ${JSON.stringify(c.options)}`;
      html("option", { value: c.path, title: text }, select, text);
    }
    html("option", { value: "__path__" }, select, "checkpoint path…");
    const path = html("input", { id: `seat-path-${i}`, type: "text", placeholder: "runs/x/policy.pt", hidden: "hidden" }, row);
    select.value = before[i] || (i === 0 ? "human" : "greedy");
    // a long checkpoint name is cut (style.css): the select's title keeps the chosen one whole
    const sync = () => {
      path.hidden = select.value !== "__path__";
      select.title = select.selectedOptions.length ? select.selectedOptions[0].textContent : "";
      syncSeed();
      syncSearchNote();
    };
    select.addEventListener("change", sync);
    path.addEventListener("input", syncSearchNote);
    sync();
  }
}

// ----- the searches' warm-up ------------------------------------------------------------------------------------------
// The server compiles the searches (numba) in the background at start-up, 26-32 s a game on a fresh install; a
// search move asked for meanwhile waits for it. While the catalogue says so, the page says so too, and asks again.
const SEARCH_POLL_MS = 3000;
const isSearch = (spec) => /^(search|guided:)/.test(spec || "") || declaredSearch.has(spec);

function noteSearchReady(ready) {
  searchReady = ready;
  syncSearchNote();
  if (ready || searchPoll) return;
  searchPoll = setTimeout(async () => {
    searchPoll = null;
    try {
      noteSearchReady((await request("GET", "/api/catalogue")).search_ready !== false);
    } catch (err) {
      searchReady = null;  // unknown: say nothing rather than something stale
      syncSearchNote();
    }
  }, SEARCH_POLL_MS);
}

function syncSearchNote() {
  const seats = [...$("seats").querySelectorAll("select")].map((s, i) =>
    s.value === "__path__" ? $(`seat-path-${i}`).value : s.value);
  $("search-note").hidden = !(searchReady === false && seats.some(isSearch));
}

// A game with a human seat is dealt by the server (a seed would tell the hidden cards); its seed shows at the end.
function syncSeed() {
  const human = [...$("seats").querySelectorAll("select")].some(s => s.value === "human");
  $("seed").disabled = human;
  $("seed").placeholder = human ? "drawn by the server (a human plays)" : "random";
  if (human) $("seed").value = "";
}

async function startGame(event) {
  event.preventDefault();
  banner("");
  const g = currentGame();
  const n = chosenOptions().num_players || 2;
  const seats = [];
  for (let i = 0; i < n; i++) {
    const v = $(`seat-${i}`).value;
    seats.push(v === "__path__" ? $(`seat-path-${i}`).value.trim() : v);
  }
  const body = { game: g.game, options: chosenOptions(), seats };
  if (!$("seed").disabled && $("seed").value !== "") body.seed = Number($("seed").value);
  settings.delay = Math.max(0, Number($("new-delay").value) || 0);
  $("start").disabled = true;
  try {
    const p = await request("POST", "/api/games", body);
    saveTokens(p.id, p.tokens || {});
    location.hash = `#/game/${p.id}`;
  } catch (err) {
    banner(err.message);
  } finally {
    $("start").disabled = false;
  }
}

// ----- a live game ---------------------------------------------------------------------------------------------------
function openGame(id) {
  showPage("page-game");
  live = { kind: "game", id, seat: null, payload: null, timer: null, paused: false, busy: false, sel: {}, ply: -1,
           tokens: storedTokens(id) };
  $("speed").value = settings.delay;
  showSpeed();
  $("cover").hidden = true;
  if (searchReady === null) {  // a game opened by its address: ask whether the searches are compiled yet
    request("GET", "/api/catalogue").then(c => noteSearchReady(c.search_ready !== false), () => {});
  }
  load(live);
}

async function load(mine) {
  try {
    const p = await request("GET", `/api/games/${mine.id}`, undefined, tokenOf(mine));
    if (live !== mine) return;
    render(p);
  } catch (err) {
    if (live === mine) banner(err.message);
    return;
  }
  schedule(mine);
}

function schedule(mine) {
  if (live !== mine || !mine.payload) return;
  clearTimeout(mine.timer);
  const p = mine.payload;
  if (p.status === "bot" && !(p.mode === "watch" && mine.paused)) {
    mine.timer = setTimeout(() => step(mine), settings.delay);
  } else if (p.status === "other_human") {
    handOver(mine, p.to_move);
  }
}

function handOver(mine, seat) {
  if (!mine.tokens[seat]) {  // another person's seat (they have its link): look again in a moment
    mine.timer = setTimeout(() => { if (live === mine) load(mine); }, 1000);
    return;
  }
  if (!mine.payload.hidden_information) { mine.seat = seat; load(mine); return; }
  $("cover-btn").textContent = `player_${seat}'s turn: hand the screen over, then click to show their view`;
  $("cover").hidden = false;
  $("cover-btn").onclick = () => { $("cover").hidden = true; mine.seat = seat; load(mine); };
}

function setBusy(mine, busy) {
  mine.busy = busy;
  $("game").dataset.busy = busy ? "1" : "";
}

async function step(mine) {
  if (live !== mine || mine.busy) return;
  setBusy(mine, true);
  const p0 = mine.payload;
  const policy = p0.seats[p0.to_move].policy;
  $("status").textContent = `player_${p0.to_move} (${policy}) is thinking…` + (searchReady === false && isSearch(policy) ?
    " The server is still compiling the searches: a first search move may take half a minute." : "");
  try {
    const p = await request("POST", `/api/games/${mine.id}/step`, undefined, tokenOf(mine));
    if (live === mine) render(p);
  } catch (err) {
    if (live === mine) showError(err.message);
  } finally {
    setBusy(mine, false);
  }
  schedule(mine);
}

async function sendMove(mine, action) {
  if (live !== mine || mine.busy) return;
  setBusy(mine, true);
  try {
    const p = await request("POST", `/api/games/${mine.id}/move`, { seat: mine.seat, action }, tokenOf(mine));
    if (live === mine) render(p);
  } catch (err) {
    if (live === mine) showError(err.message);
  } finally {
    setBusy(mine, false);
  }
  schedule(mine);
}

function showError(message) {
  $("error").textContent = message;
  $("error").hidden = !message;
}

// ----- a replay ------------------------------------------------------------------------------------------------------
function openReplay(id, index) {
  showPage("page-game");
  live = { kind: "replay", id, index, ply: 0, plies: 0, payload: null, sel: {}, busy: false };
  $("cover").hidden = true;
  loadReplay(live, 0);
}

async function loadReplay(mine, ply) {
  try {
    const p = await request("GET", `/api/replays/${mine.id}/${mine.index}/${ply}`);
    if (live !== mine) return;
    mine.plies = p.plies;
    render(p);
  } catch (err) {
    if (live === mine) banner(err.message);
  }
}

function replayGo(target) {
  if (!live || live.kind !== "replay" || !live.payload) return;  // not loaded yet: nothing to move from
  const ply = Math.max(0, Math.min(live.plies, target));
  if (ply !== live.payload.ply) loadReplay(live, ply);
}

function replayStep(delta) {
  if (live && live.payload) replayGo(live.payload.ply + delta);
}

// ----- drawing -------------------------------------------------------------------------------------------------------
function render(p) {
  const mine = live;
  if (p.ply !== mine.ply) { mine.sel = {}; mine.ply = p.ply; }
  mine.payload = p;
  if (p.viewer !== undefined) mine.seat = p.viewer;
  const root = $("game");
  root.dataset.status = p.status;
  root.dataset.ply = p.ply;
  root.dataset.mode = p.mode;
  root.dataset.game = p.game;
  root.dataset.viewer = p.viewer === null ? "spectator" : p.viewer;
  const opts = Object.entries(p.options).map(([k, v]) => `${k}=${v}`).join(", ");
  $("game-title").textContent = `${p.title} (${opts})`;
  $("view-label").textContent = p.view_label;
  $("view-label").classList.toggle("spectator", p.viewer === null);
  $("status").textContent = statusText(p);
  $("result").hidden = !p.result;
  if (p.result) {
    $("result").textContent = p.result.text + "  Scores: " + p.result.scores.map((s, i) => `player_${i} ${s}`).join(", ");
  }
  // the seed, once the game is over (the server sends none before while a human plays: it would tell the deal)
  const seedShown = p.status === "over" && p.seed !== null && p.seed !== undefined;
  $("game-seed").hidden = !seedShown;
  $("game-seed").textContent = seedShown ? `Seed ${p.seed}` : "";
  showError(p.error || "");
  drawPlayers(p);
  drawLog(p);
  drawTranscripts(p);
  $("watch-controls").hidden = p.mode === "replay" || p.status === "over";
  $("btn-play").hidden = $("btn-step").hidden = p.mode !== "watch" || p.status === "over";
  $("btn-play").textContent = mine.paused ? "Play" : "Pause";
  $("replay-controls").hidden = p.mode !== "replay";
  if (p.mode === "replay") {
    $("ply-slider").max = p.plies;
    $("ply-slider").value = p.ply;
    $("ply-label").textContent = `ply ${p.ply} / ${p.plies}`;
  }
  const link = $("download-record");
  link.hidden = !(p.kind === "game" && p.status === "over");
  if (!link.hidden) {
    const token = tokenOf(mine);
    link.href = `/api/games/${p.id}/record` + (token ? `?token=${encodeURIComponent(token)}` : "");
    link.download = `${p.game}-${p.seed}.json`;
  }
  $("rules-link").href = `/rules/${p.game}`;
  $("rematch").hidden = !(p.kind === "game" && p.status === "over" && p.settings);
  drawSeatLinks(p);
  drawBoard();
}

function drawBoard() {
  const mine = live, p = mine.payload;
  const svg = $("board");
  svg.replaceChildren();
  $("move-buttons").replaceChildren();
  $("board-info").replaceChildren();
  const ctx = {
    sel: mine.sel,
    buttons: $("move-buttons"),
    info: $("board-info"),
    move: (action) => sendMove(mine, action),
    redraw: () => { if (live === mine) drawBoard(); },
    prompt: (text) => html("span", { class: "prompt" }, $("move-buttons"), text),
  };
  drawingOf(p.game).draw(svg, p, ctx);
}

function statusText(p) {
  const who = (s) => `player_${s} (${p.seats[s].name}, ${p.seats[s].policy})`;
  switch (p.status) {
    case "your_turn": return `Your move, player_${p.viewer} (${p.seats[p.viewer].name})`;
    case "bot": return `${who(p.to_move)} to move`;
    case "other_human": return `${who(p.to_move)} to move`;
    case "halted": return "Stopped: a policy failed";
    case "over": return p.mode === "replay" ? `Game over (ply ${p.ply})` : "Game over";
    case "replay": return `${who(p.to_move)} to move (ply ${p.ply} of ${p.plies})`;
    default: return p.status;
  }
}

function drawPlayers(p) {
  const table = $("players");
  table.replaceChildren();
  const head = html("tr", {}, table);
  for (const h of ["", "seat", "who", "score"]) html("th", {}, head, h);
  const colour = drawingOf(p.game).seatColour;
  for (const s of p.seats) {
    const row = html("tr", { class: s.seat === p.to_move ? "to-move" : null }, table);
    const c = html("td", {}, row);
    html("span", { class: "swatch" }, c).style.background = colour(s.seat);  // CSSOM: the CSP refuses style attributes
    html("td", {}, row, `player_${s.seat} (${s.name})`);
    const who = s.human ? (s.seat === p.viewer ? "you" : "human") : s.policy;
    html("td", { title: who }, row, who);
    html("td", {}, row, String(p.scores[s.seat]));
  }
}

// The links of the human seats this tab holds, when it holds more than one: send one to each other player.
function drawSeatLinks(p) {
  const box = $("seat-links");
  box.replaceChildren();
  const held = p.kind === "game" ? Object.keys(live.tokens || {}).map(Number).sort((a, b) => a - b) : [];
  box.hidden = held.length < 2 || p.status === "over";
  if (box.hidden) return;
  html("span", {}, box, "Seat links (each opens one seat's view: give each player only their own):");
  for (const seat of held) {
    const url = `${location.origin}${location.pathname}#/game/${p.id}/${seat}/${live.tokens[seat]}`;
    const row = html("div", { class: "seat-link" }, box);
    html("a", { href: url, class: "seat-link-url", "data-seat": seat }, row, `player_${seat} (${p.seats[seat].name})`);
  }
}

function drawLog(p) {
  const log = $("log");
  log.replaceChildren();
  for (const entry of p.log) {
    if (entry.ply === null) html("li", { class: "event" }, log, entry.text);
    else html("li", { value: entry.ply + 1, class: "move" }, log, `player_${entry.seat} (${p.seats[entry.seat].name}): ${entry.text}`);
  }
  log.scrollTop = log.scrollHeight;
}

// A language-model seat's transcript of the move that led to this position (and of a forfeit at the end), as
// the record holds it: the prompt, each ask's reply and what became of it. Text only (textContent), never markup.
function drawTranscripts(p) {
  const box = $("transcripts");
  box.replaceChildren();
  const entries = p.transcripts || [];
  box.hidden = entries.length === 0;
  for (const t of entries) {
    const div = html("div", { class: "transcript", "data-ply": t.ply }, box);
    const seat = p.seats[t.seat];
    const outcome = t.fallback === "forfeit" ? "forfeited" : t.fallback === "random" ? `random move ${t.move} (fallback)` : t.move;
    html("h3", {}, div, `Ply ${t.ply + 1}, player_${t.seat}${seat ? ` (${seat.name})` : ""}: ${t.model || t.policy || "model"}: ${outcome}`);
    const prompt = html("details", {}, div);
    html("summary", {}, prompt, "Prompt");
    html("pre", { class: "prompt-text" }, prompt, [t.system, t.prompt].filter(Boolean).join("\n\n"));
    for (const a of t.attempts || []) {
      const tokens = a.tokens && a.tokens.total !== null ? `, ${a.tokens.total} tokens` : "";
      const latency = a.latency_s !== null ? `, ${a.latency_s} s` : "";
      html("div", { class: "ask-head" }, div, `Ask ${a.attempt}${latency}${tokens}`);
      if (a.feedback) {
        const fb = html("details", {}, div);
        html("summary", {}, fb, "Feedback sent");
        html("pre", {}, fb, a.feedback);
      }
      if (a.reply !== null) html("pre", { class: "reply" }, div, a.reply);
      if (a.move !== null) html("div", { class: "parsed" }, div, `read as: ${a.move}`);
      if (a.refusal !== null) html("div", { class: "refusal" }, div, `refused: ${a.refusal}`);
      if (a.error !== null) html("div", { class: "no-reply" }, div, `no reply: ${a.error}`);
    }
  }
}

// ----- files: replays and tournaments --------------------------------------------------------------------------------
async function openReplayFile() {
  const file = $("replay-file").files[0];
  if (!file) return;
  banner("");
  const list = $("replay-games");
  list.replaceChildren();
  try {
    const summary = await request("POST", `/api/replays?name=${encodeURIComponent(file.name)}`, await file.text());
    for (const g of summary.games) {
      const li = html("li", {}, list);
      const seats = (g.seats || []).join(" vs ");
      const text = `game ${g.index}: ${g.game}, ${seats}, ${g.plies} moves, returns ${JSON.stringify(g.returns)}`;
      html("a", { href: `#/replay/${summary.id}/${g.index}`, class: "replay-link", title: text }, li, text);
    }
    if (summary.games.length === 1) location.hash = `#/replay/${summary.id}/0`;
  } catch (err) {
    banner(err.message);
  }
}

async function openTournamentFile() {
  const file = $("tournament-file").files[0];
  if (!file) return;
  banner("");
  try {
    drawTournament($("tournament"), await request("POST", "/api/tournaments", await file.text()));
  } catch (err) {
    $("tournament").replaceChildren();
    banner(err.message);
  }
}

// ----- wiring ----------------------------------------------------------------------------------------------------------
$("new-form").addEventListener("submit", startGame);
// a new game with this one's game, options and seats (a fresh deal: the server draws the seed)
$("rematch").addEventListener("click", async () => {
  if (!live || live.kind !== "game" || !live.payload.settings) return;
  $("rematch").disabled = true;
  try {
    const p = await request("POST", "/api/games", live.payload.settings);
    saveTokens(p.id, p.tokens || {});
    location.hash = `#/game/${p.id}`;
  } catch (err) {
    banner(err.message);
  } finally {
    $("rematch").disabled = false;
  }
});
$("replay-file").addEventListener("change", openReplayFile);
$("tournament-file").addEventListener("change", openTournamentFile);
$("board").addEventListener("click", () => {
  if (live && Object.keys(live.sel).length) { live.sel = {}; drawBoard(); }
});
$("btn-play").addEventListener("click", () => {
  if (!live || live.kind !== "game") return;
  live.paused = !live.paused;
  $("btn-play").textContent = live.paused ? "Play" : "Pause";
  if (!live.paused) schedule(live);
  else clearTimeout(live.timer);
});
$("btn-step").addEventListener("click", () => {
  if (live && live.kind === "game" && live.paused && live.payload.status === "bot") step(live);
});
const showSpeed = () => { $("speed-label").textContent = `${settings.delay} ms`; };
$("speed").addEventListener("input", () => { settings.delay = Number($("speed").value); showSpeed(); });
$("btn-first").addEventListener("click", () => replayGo(0));
$("btn-back").addEventListener("click", () => replayStep(-1));
$("btn-fwd").addEventListener("click", () => replayStep(1));
$("btn-last").addEventListener("click", () => live && replayGo(live.plies));
$("ply-slider").addEventListener("change", () => replayGo(Number($("ply-slider").value)));
document.addEventListener("keydown", (ev) => {
  if (!live || live.kind !== "replay" || ev.target.tagName === "INPUT") return;
  if (ev.key === "ArrowRight") replayStep(1);
  if (ev.key === "ArrowLeft") replayStep(-1);
});
window.addEventListener("hashchange", route);
showSpeed();
route();
