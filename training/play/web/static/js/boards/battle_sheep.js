// Battle Sheep: hex pastures with stacks. Build: click cells until one legal tile fits them all. Place: click a
// highlighted border cell. Move: click one of your stacks, then where it slides (a direction), then a count.
import { el, hexCentre, hexPoints, fitView, clickable, SEAT_COLOURS, button, html } from "../svg.js";

const SIZE = 20;
// A stack sits a little below its cell's centre and the cell's coordinate label above it, in the top of the hex,
// so that the label never lies on the stack.
const DROP = SIZE * 0.2, STACK_R = SIZE * 0.6, LABEL_Y = -SIZE * 0.52;
const key = (c) => `${c[0]},${c[1]}`;

export function draw(svg, p, ctx) {
  const b = p.board;
  const mine = p.status === "your_turn";
  const moves = mine ? p.moves : [];
  const sel = ctx.sel;
  const tiles = moves.filter(m => m.kind === "tile");
  const ghosts = new Map();
  for (const t of tiles) for (const c of t.cells) ghosts.set(key(c), c);
  const pts = b.cells.map(c => hexCentre(c[0], c[1], SIZE));
  for (const c of ghosts.values()) pts.push(hexCentre(c[0], c[1], SIZE));
  if (!pts.length) pts.push([0, 0]);
  // at least a few hexes around the pasture, so that a small pasture is not blown up
  const cx = pts.reduce((a, q) => a + q[0], 0) / pts.length, cy = pts.reduce((a, q) => a + q[1], 0) / pts.length;
  pts.push([cx - SIZE * 7, cy - SIZE * 5], [cx + SIZE * 7, cy + SIZE * 5]);
  fitView(svg, pts, SIZE * 1.8);

  // pasture
  const layer = el("g", {}, svg);
  for (const [q, r, owner, height] of b.cells) {
    const [x, y] = hexCentre(q, r, SIZE);
    el("polygon", { points: hexPoints(x, y, SIZE * 0.97), fill: "#8cc56b", stroke: "#5b8f3e", "stroke-width": 1,
      class: "bs-cell", "data-q": q, "data-r": r }, layer);
  }

  // build phase: ghost cells of the legal tiles, narrowed by the cells clicked so far
  if (tiles.length) {
    const chosen = sel.cells || [];
    const has = (t, c) => t.cells.some(d => d[0] === c[0] && d[1] === c[1]);
    const fits = (cells) => tiles.filter(t => cells.every(c => has(t, c)));
    const cands = fits(chosen);
    const union = new Set(), counts = new Map();
    if (chosen.length) for (const t of cands) for (const c of t.cells) {
      union.add(key(c));
      counts.set(key(c), (counts.get(key(c)) || 0) + 1);
    }
    const pick = (c) => {
      let cells = chosen.some(d => key(d) === key(c)) ? chosen : [...chosen, c];
      let found = fits(cells);
      if (!found.length) { cells = [c]; found = fits(cells); }
      if (found.length === 1) ctx.move(found[0].id);
      else { sel.cells = cells; ctx.redraw(); }
    };
    for (const c of ghosts.values()) {
      const [x, y] = hexCentre(c[0], c[1], SIZE);
      const k = key(c);
      let cls = "bs-ghost";
      let fill = "rgba(140,197,107,0.18)";
      if (union.has(k)) {
        const all = counts.get(k) === cands.length;
        cls += all ? " bs-fixed" : " narrow";
        fill = all ? "rgba(0,0,0,0.45)" : "rgba(0,184,217,0.4)";
      }
      const node = el("polygon", { points: hexPoints(x, y, SIZE * 0.93), fill, stroke: "#9bb98a",
        "stroke-dasharray": "3 2", class: cls, "data-q": c[0], "data-r": c[1] }, layer);
      clickable(node, `${c[0]},${c[1]}`, () => pick(c));
    }
    ctx.prompt(chosen.length ? `${cands.length} tiles fit: click another cell of yours` :
      "Place a tile: click a cell it should cover");
    if (chosen.length && cands.length <= 6) {
      for (const t of cands) button(t.text, { class: "move-btn", "data-kind": "tile" }, () => ctx.move(t.id), ctx.buttons);
    }
  }

  // stack placement targets
  for (const m of moves.filter(m => m.kind === "stack")) {
    const [x, y] = hexCentre(m.cell[0], m.cell[1], SIZE);
    const node = el("polygon", { points: hexPoints(x, y, SIZE * 0.8), fill: "rgba(0,184,217,0.3)",
      class: "bs-target legal", "data-q": m.cell[0], "data-r": m.cell[1] }, layer);
    clickable(node, m.text, () => ctx.move(m.id));
  }
  if (moves.some(m => m.kind === "stack")) ctx.prompt("Place your 16 sheep on a highlighted border pasture");

  const under = el("g", {}, svg);  // slide lines, below the stacks
  const layerTop = el("g", {}, svg);

  // stacks
  const slides = moves.filter(m => m.kind === "move");
  const movable = new Set(slides.map(m => key(m.from)));
  for (const [q, r, owner, height] of b.cells) {
    if (owner < 0) continue;
    const [x, y0] = hexCentre(q, r, SIZE);
    const y = y0 + DROP;
    const g = el("g", { class: "bs-stack", "data-q": q, "data-r": r, "data-owner": owner }, layerTop);
    const selected = sel.from && key(sel.from) === key([q, r]);
    el("circle", { cx: x, cy: y, r: STACK_R, fill: SEAT_COLOURS[owner], stroke: "#222",
      "stroke-width": 1.2, class: selected ? "selected" : (movable.has(key([q, r])) ? "legal" : null) }, g);
    el("text", { x, y: y + 4.5, "text-anchor": "middle", "font-size": 12.5, "font-weight": 700, fill: "#fff" }, g,
      String(height));
    if (movable.has(key([q, r]))) {
      g.classList.add("selectable");
      clickable(g, `your stack of ${height} at ${q},${r}`, () => { ctx.sel.from = [q, r]; ctx.sel.dir = null; ctx.redraw(); });
    }
  }

  // the selected stack: where each direction slides to, then the counts
  if (sel.from && slides.length) {
    const from = slides.filter(m => key(m.from) === key(sel.from));
    const dirs = new Map();
    for (const m of from) if (!dirs.has(m.dir)) dirs.set(m.dir, m);
    const [x0, c0] = hexCentre(sel.from[0], sel.from[1], SIZE);
    const y0 = c0 + DROP;
    for (const [d, m] of dirs) {
      const [x1, c1] = hexCentre(m.to[0], m.to[1], SIZE);
      const y1 = c1 + DROP;
      el("line", { x1: x0, y1: y0, x2: x1, y2: y1, stroke: "#333", "stroke-width": 2, "stroke-dasharray": "4 3" }, under);
      const chosen = sel.dir === d;
      const node = el("rect", { x: x1 - SIZE * 0.6, y: y1 - SIZE * 0.4, width: SIZE * 1.2, height: SIZE * 0.8, rx: 4,
        fill: chosen ? "#222" : "#fff", stroke: "#222", "stroke-width": 1.5, class: "bs-dest", "data-dir": b.directions[d] }, layerTop);
      clickable(node, `slide ${b.directions[d]} to ${m.to[0]},${m.to[1]}`, () => { ctx.sel.dir = d; ctx.redraw(); });
      el("text", { x: x1, y: y1 + 4, "text-anchor": "middle", "font-size": 11, "font-weight": 700,
        fill: chosen ? "#fff" : "#222" }, layerTop, b.directions[d]);
    }
    if (sel.dir !== null && sel.dir !== undefined) {
      ctx.prompt(`How many sheep go ${b.directions[sel.dir]}?`);
      for (const m of from.filter(m => m.dir === sel.dir)) {
        button(String(m.count), { class: "move-btn bs-count", "data-count": m.count, title: m.text }, () => ctx.move(m.id),
          ctx.buttons);
      }
    } else ctx.prompt("Click where the sheep should slide to");
  } else if (slides.length) ctx.prompt("Click one of your stacks to split it");

  // coordinates, as the log writes them (axial "q,r": "t q,r/o", "s q,r", "q,r NE 3"): small, in the top of
  // each cell, above its stack (never on it); on every pasture cell and every cell a tile could cover
  const labels = el("g", { class: "coords" }, svg);
  const pasture = new Set(b.cells.map(key));
  for (const c of [...b.cells, ...[...ghosts.values()].filter(g => !pasture.has(key(g)))]) {
    const [x, y] = hexCentre(c[0], c[1], SIZE);
    el("text", { x, y: y + LABEL_Y, "text-anchor": "middle", "font-size": 6.5, class: "coord",
      fill: pasture.has(key(c)) ? "#2d5a1b" : "#6b8a5a", "data-q": c[0], "data-r": c[1] }, labels, `${c[0]},${c[1]}`);
  }

  // info: pastures and herds
  const t = html("table", {}, ctx.info);
  const head = html("tr", {}, t);
  for (const h of ["", "pastures", "largest herd", "tiles left", "can move"]) html("th", {}, head, h);
  b.pastures.forEach((n, s) => {
    const row = html("tr", {}, t);
    const c = html("td", {}, row);
    html("span", { class: "swatch" }, c).style.background = SEAT_COLOURS[s];
    c.append(p.seats[s].name);
    html("td", {}, row, String(n));
    html("td", {}, row, String(b.herds[s]));
    html("td", {}, row, String(b.tiles_left[s]));
    html("td", {}, row, b.can_move[s] ? "yes" : "no");
  });
}

export function seatColour(seat) { return SEAT_COLOURS[seat]; }
