// A saved tournament: the pair table, the ratings and a heat map of win shares (row against column).
import { el, html } from "./svg.js";

const fmt = (x, d = 3) => (x === null || x === undefined ? "" : Number(x).toFixed(d));

/** Colour of a win share, centred on parity (the share of an equal player, 1 / players) as in the PNG heat map of
 * `python -m training evaluate`: red below parity, yellow at it, green above. */
export function shareColour(v, parity = 0.5) {
  const t = v <= parity ? 0.5 * v / parity : 0.5 + 0.5 * (v - parity) / (1 - parity);
  const clamp = Math.max(0, Math.min(1, t));
  return `rgb(${Math.round(clamp < 0.5 ? 215 : 215 - 2 * (clamp - 0.5) * 189)},${Math.round(clamp < 0.5 ? 48 + 2 * clamp * 167 : 215 - 2 * (clamp - 0.5) * 65)},${Math.round(clamp < 0.5 ? 39 + 2 * clamp * 41 : 80)})`;
}

export function drawTournament(root, t) {
  root.replaceChildren();
  html("h3", {}, root, `${t.game} ${Object.keys(t.options || {}).length ? JSON.stringify(t.options) : ""}: ` +
    `${t.games_per_pair} games per pair, seed ${t.seed}`);
  const table = html("table", { class: "tournament", id: "tournament-pairs" }, root);
  const head = html("tr", {}, table);
  for (const h of ["A", "B", "games", "A wins", "draws", "A losses", "A win share", "95% interval", "parity", "margin"]) {
    html("th", {}, head, h);
  }
  for (const p of t.pairs) {
    const row = html("tr", {}, table);
    for (const v of [p.a, p.b, p.games, p.wins, p.draws, p.losses, fmt(p.win_share),
      `[${fmt(p.interval[0])}, ${fmt(p.interval[1])}]`, fmt(p.parity), (p.mean_margin >= 0 ? "+" : "") + fmt(p.mean_margin)]) {
      html("td", { title: String(v) }, row, String(v));
    }
  }
  const ratings = html("table", { class: "tournament", id: "tournament-ratings" }, root);
  const rh = html("tr", {}, ratings);
  for (const h of ["policy", "Elo (Bradley-Terry)", "± 1.96 se", "s / move"]) html("th", {}, rh, h);
  t.policies.map((name, i) => [name, t.elo[i], t.elo_se[i]]).sort((a, b) => b[1] - a[1]).forEach(([name, elo, se]) => {
    const row = html("tr", {}, ratings);
    html("td", { title: name, class: "policy-name" }, row, name);
    html("td", {}, row, (elo >= 0 ? "+" : "") + elo.toFixed(0));
    html("td", {}, row, (1.96 * se).toFixed(0));
    html("td", {}, row, fmt((t.seconds_per_move || {})[name], 4));
  });

  heatMap(root, t);
}

/** Cut ``node``'s text (``name``) in the middle, "head…tail", until it is at most ``max`` px wide: run names differ
 * in the middle (seed1 / seed2) as often as at the end. The node must be in the page (it is measured). */
function fitName(node, prefix, name, max) {
  node.firstChild.nodeValue = prefix + name;
  if (node.getComputedTextLength() <= max) return;
  let keep = name.length - 1;
  const cut = (n) => prefix + name.slice(0, Math.ceil(n / 2)) + "…" + name.slice(name.length - Math.floor(n / 2));
  while (keep > 2) {
    node.firstChild.nodeValue = cut(keep);
    if (node.getComputedTextLength() <= max) return;
    keep -= 1;
  }
}

/** The heat map of win shares, row policy against column policy, as a crosstable: each row is labelled with its
 * number and name (cut in the middle to at most NAME_MAX px; the whole name is its tooltip), each column with the
 * number of the row of the same policy, so that long checkpoint names never run together. The map is measured
 * after its labels are drawn: they decide the left margin, so none is cut off at the edge. */
function heatMap(root, t) {
  const k = t.policies.length, cell = 64, top = 58, pad = 6, NAME_MAX = 420;
  const svg = el("svg", { class: "heatmap", id: "tournament-heatmap" });
  root.appendChild(svg);
  const parity = t.pairs.length ? t.pairs[0].parity : 0.5;
  const title = el("text", { x: pad, y: 18 }, svg, "win share of the row policy (one seat) against the column policy");
  el("text", { x: pad, y: 34, fill: "#666" }, svg, "columns: the policy of that row number");
  const rows = t.policies.map((name, i) => {
    const node = el("text", { x: pad, y: top + i * cell + cell / 2 + 4, class: "heat-name heat-row",
      "data-row": i }, svg, "");
    node.appendChild(document.createTextNode(""));
    fitName(node, `${i + 1}. `, name, NAME_MAX);
    el("title", {}, node, name);
    return node;
  });
  const left = pad + Math.max(0, ...rows.map(n => n.getComputedTextLength())) + 12;
  t.policies.forEach((name, i) => {
    el("title", {}, el("text", { x: left + i * cell + cell / 2 - 1, y: top - 6, "text-anchor": "middle",
      class: "heat-name heat-col", "data-col": i }, svg, String(i + 1)), name);
    t.policies.forEach((_, j) => {
      const v = t.matrix[i][j];
      el("rect", { x: left + j * cell, y: top + i * cell, width: cell - 2, height: cell - 2,
        fill: v === null ? "#e6e6e6" : shareColour(v, parity), class: "heat-cell", "data-row": i, "data-col": j }, svg);
      if (v !== null) {
        el("text", { x: left + j * cell + cell / 2 - 1, y: top + i * cell + cell / 2 + 3, "text-anchor": "middle",
          class: "heat-value" }, svg, v.toFixed(2));
      }
    });
  });
  // the legend: red below parity, yellow at parity, green above
  const legendY = top + k * cell + 12;
  [[0, "0"], [parity, `parity ${parity.toFixed(2)}`], [1, "1"]].forEach(([v, label], i) => {
    const x = left + i * 110;
    el("rect", { x, y: legendY, width: 14, height: 14, fill: shareColour(v, parity), class: "heat-legend" }, svg);
    el("text", { x: x + 18, y: legendY + 12 }, svg, label);
  });
  const width = Math.ceil(Math.max(left + k * cell + pad, left + 2 * 110 + 40, pad + title.getComputedTextLength() + pad));
  const height = legendY + 14 + pad;
  svg.setAttribute("width", width);
  svg.setAttribute("height", height);
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
}
