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

  // heat map
  const k = t.policies.length, cell = 64, left = 150, top = 30;
  const width = Math.max(left + k * cell + 20, 460);
  const svg = el("svg", { class: "heatmap", id: "tournament-heatmap", width, height: top + k * cell + 56,
    viewBox: `0 0 ${width} ${top + k * cell + 56}` });
  root.appendChild(svg);
  const parity = t.pairs.length ? t.pairs[0].parity : 0.5;
  el("text", { x: 4, y: 18, "font-size": 13 }, svg, "win share of the row policy (one seat) against the column policy");
  // the legend: red below parity, yellow at parity, green above
  const legendY = top + k * cell + 30;
  [[0, "0"], [parity, `parity ${parity.toFixed(2)}`], [1, "1"]].forEach(([v, label], i) => {
    const x = left + i * 110;
    el("rect", { x, y: legendY, width: 14, height: 14, fill: shareColour(v, parity), class: "heat-legend" }, svg);
    el("text", { x: x + 18, y: legendY + 12, "font-size": 12 }, svg, label);
  });
  t.policies.forEach((name, i) => {
    // names cut to fit the map; the whole name is the label's tooltip
    const cut = (n) => name.length > n ? name.slice(0, n - 1) + "…" : name;
    el("title", {}, el("text", { x: left - 6, y: top + i * cell + cell / 2 + 4, "text-anchor": "end", class: "heat-name" }, svg,
      cut(22)), name);
    el("title", {}, el("text", { x: left + i * cell + cell / 2, y: top + k * cell + 16, "text-anchor": "middle",
      class: "heat-name" }, svg, cut(10)), name);
    t.policies.forEach((_, j) => {
      const v = t.matrix[i][j];
      el("rect", { x: left + j * cell, y: top + i * cell, width: cell - 2, height: cell - 2,
        fill: v === null ? "#e6e6e6" : shareColour(v, parity), class: "heat-cell", "data-row": i, "data-col": j }, svg);
      if (v !== null) {
        el("text", { x: left + j * cell + cell / 2, y: top + i * cell + cell / 2 + 4, "text-anchor": "middle" }, svg, v.toFixed(2));
      }
    });
  });
}
