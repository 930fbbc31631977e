// Bestiarium: the hexhex board with its creatures. Click a highlighted cell to place (or to grow the eater).
import { el, hexCentre, hexPoints, fitView, clickable, button, html } from "../svg.js";

const SIZE = 20;
const STONE = ["#1d1d1d", "#f7f7f2"];
// A stone sits a little below its cell's centre and the cell's name above it, in the top of the hex, so that the
// name never lies on the stone.
const DROP = SIZE * 0.2, STONE_R = SIZE * 0.6, LABEL_Y = -SIZE * 0.52;

export function draw(svg, p, ctx) {
  const b = p.board;
  const mine = p.status === "your_turn";
  const legal = new Map();
  if (mine) for (const m of p.moves) if (m.kind === "cell") legal.set(m.cell, m);
  fitView(svg, b.cells.map(c => hexCentre(c.q, c.r, SIZE)), SIZE * 1.6);
  const layer = el("g", {}, svg);
  b.cells.forEach((c, i) => {
    const [x, y] = hexCentre(c.q, c.r, SIZE);
    const m = legal.get(i);
    const poly = el("polygon", { points: hexPoints(x, y, SIZE * 0.97), fill: m ? "#fff6cf" : "#e9dcc0",
      stroke: "#b9a77f", "stroke-width": 1, class: "bx-cell" + (m ? " legal" : ""), "data-cell": c.name }, layer);
    if (m) clickable(poly, m.text, () => ctx.move(m.id));
    else el("title", {}, poly, c.name);
    if (c.stone >= 0) {
      el("circle", { cx: x, cy: y + DROP, r: STONE_R, fill: STONE[c.stone], stroke: c.chain ? "#c0392b" : "#555",
        "stroke-width": c.chain ? 3 : 1, class: "bx-stone" }, layer);
      el("text", { x, y: y + DROP + 4.2, "text-anchor": "middle", "font-size": 11.5, "font-weight": 600,
        fill: c.stone === 0 ? "#eee" : "#222", class: "bx-size" }, layer, String(c.size));
    } else if (m && b.phase === "grow") {
      el("text", { x, y: y + DROP + 5, "text-anchor": "middle", "font-size": 16, fill: "#c0392b" }, layer, "+");
    }
  });
  // creature outlines: an edge between two stones of different creatures, or a stone and anything else
  const at = new Map(b.cells.map(c => [`${c.q},${c.r}`, c]));
  const dirs = [[1, 0], [1, -1], [0, -1], [-1, 0], [-1, 1], [0, 1]];
  const corner = (x, y, k) => { const a = Math.PI / 180 * (60 * k - 30); return [x + SIZE * Math.cos(a), y + SIZE * Math.sin(a)]; };
  // corners of the edge towards direction d (E=0 lies between corners 0 and 1, ...): edge d spans corners (1-d) mod 6 .. (0-d)
  const edgeCorners = [[0, 1], [5, 0], [4, 5], [3, 4], [2, 3], [1, 2]];
  for (const c of b.cells) {
    if (c.stone < 0) continue;
    const [x, y] = hexCentre(c.q, c.r, SIZE);
    dirs.forEach(([dq, dr], d) => {
      const o = at.get(`${c.q + dq},${c.r + dr}`);
      if (o && o.creature === c.creature) return;
      const [a, z] = edgeCorners[d].map(k => corner(x, y, k));
      el("line", { x1: a[0], y1: a[1], x2: z[0], y2: z[1], stroke: c.stone === 0 ? "#000" : "#777", "stroke-width": 2.2 }, layer);
    });
  }
  // coordinates, as the log writes them (row letter + place in the row: "c4", "grow c4"): small, in the top of
  // each cell, above its stone (never on it)
  const labels = el("g", { class: "coords" }, svg);
  for (const c of b.cells) {
    const [x, y] = hexCentre(c.q, c.r, SIZE);
    el("text", { x, y: y + LABEL_Y, "text-anchor": "middle", "font-size": 6.5, class: "coord", "data-cell": c.name,
      fill: "#7a6a45" }, labels, c.name);
  }
  if (mine) {
    const pass = p.moves.find(m => m.kind === "pass");
    if (pass) {
      ctx.prompt("No placement is legal:");
      button("pass", { class: "move-btn", "data-kind": "pass" }, () => ctx.move(pass.id), ctx.buttons);
    } else ctx.prompt(b.phase === "grow" ? "Your creature ate: click a + cell to grow it" : "Click a highlighted cell to place a stone");
  }
  if (b.passes === 1 && !b.over) html("p", {}, ctx.info, `${p.seats[b.first_passer].name} passed: another pass ends the game.`);
  if (b.cascade.length) {
    const t = html("table", {}, ctx.info);
    const head = html("tr", {}, t);
    for (const h of ["size", "Black", "White"]) html("th", {}, head, h);
    for (const [size, black, white] of b.cascade) {
      const row = html("tr", {}, t);
      html("td", {}, row, String(size));
      html("td", {}, row, String(black));
      html("td", {}, row, String(white));
    }
    html("p", { class: "hint" }, ctx.info, "Scoring cascade: fauna +k·s², species −n·s²; the largest size where the values differ decides.");
  }
}

export function seatColour(seat) { return STONE[seat]; }
