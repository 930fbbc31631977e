// Beasty Borders: the landscape of 2 x 3 tiles, the steps-marker, the die, the supplies (and the bidding row of
// the 'Without Luck' variant). Click one of your animal types (or a figure in the row) to place it, or pass.
import { el, fitView, clickable, button, html } from "../svg.js";

const CELL = 44;
const SIDE = ["#b5651d", "#3f7f3f"];   // farm, wild
const SIDE_LIGHT = ["#f3dcc2", "#d3ead0"];

export function draw(svg, p, ctx) {
  const b = p.board;
  const rows = b.rows.length, cols = b.rows[0].length;
  const mine = p.status === "your_turn";
  const moves = mine ? p.moves : [];
  const W = cols * CELL, H = rows * CELL;
  const rowH = b.row ? 70 : 0;
  const supplyTop = H + 44 + rowH;  // below the die (H + 4 to H + 38), which the supplies used to cover
  fitView(svg, [[0, 0], [W, supplyTop + 2 * 58]], 12, { top: 0 });
  const layer = el("g", {}, svg);
  const letters = b.letters;
  const owner = (ch) => letters[0].includes(ch) ? 0 : (letters[1].includes(ch) ? 1 : -1);
  const reach = new Map(b.reach.map(([r, c], i) => [`${r},${c}`, i + 1]));
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const ch = b.rows[r][c];
      const x = c * CELL, y = r * CELL;
      const fill = ch === "~" ? "#9fd0f0" : "#9ccc65";
      el("rect", { x, y, width: CELL, height: CELL, fill, stroke: "#6f9a45", "stroke-width": 0.8,
        class: "bb-space", "data-cell": `${"abcdef"[r]}${c + 1}` }, layer);
      if (ch === "~") el("text", { x: x + CELL / 2, y: y + CELL / 2 + 6, "text-anchor": "middle", "font-size": 18, fill: "#3b7fb0" }, layer, "≈");
      else if (ch === "#") el("circle", { cx: x + CELL / 2, cy: y + CELL / 2, r: CELL * 0.3, fill: "#222" }, layer);
      else if (ch !== ".") {
        const s = owner(ch);
        el("rect", { x: x + 6, y: y + 6, width: CELL - 12, height: CELL - 12, rx: 8, fill: SIDE[s], stroke: "#222",
          class: "bb-animal", "data-cell": `${"abcdef"[r]}${c + 1}` }, layer);
        el("text", { x: x + CELL / 2, y: y + CELL / 2 + 6, "text-anchor": "middle", "font-size": 18, "font-weight": 700, fill: "#fff" }, layer, ch);
      } else if (reach.has(`${r},${c}`)) {
        el("text", { x: x + CELL - 5, y: y + 13, "text-anchor": "end", "font-size": 10, fill: "#2e5e1e" }, layer,
          String(reach.get(`${r},${c}`)));
      }
    }
  }
  // coordinates, as the log writes them (row letter + column: "the steps-marker moves to c4"): row letters left of
  // the landscape, column numbers above it, in the margin, so that they cover no space
  const labels = el("g", { class: "coords" }, svg);
  for (let r = 0; r < rows; r++) {
    el("text", { x: -6, y: r * CELL + CELL / 2 + 3.5, "text-anchor": "middle", "font-size": 10, fill: "#555",
      class: "coord coord-row", "data-row": "abcdef"[r] }, labels, "abcdef"[r]);
  }
  for (let c = 0; c < cols; c++) {
    el("text", { x: c * CELL + CELL / 2, y: -3, "text-anchor": "middle", "font-size": 10, fill: "#555",
      class: "coord coord-col", "data-col": c + 1 }, labels, String(c + 1));
  }
  // tile borders
  const [th, tw] = b.tile_size;
  for (let r = 0; r <= rows; r += th) el("line", { x1: 0, y1: r * CELL, x2: W, y2: r * CELL, stroke: "#3d5a22", "stroke-width": 3 }, layer);
  for (let c = 0; c <= cols; c += tw) el("line", { x1: c * CELL, y1: 0, x2: c * CELL, y2: H, stroke: "#3d5a22", "stroke-width": 3 }, layer);
  // the steps-marker and the die
  if (b.marker) {
    const [mr, mc] = b.marker;
    const cx = mc * CELL + CELL / 2, cy = mr * CELL + CELL / 2;
    el("rect", { x: mc * CELL + 2, y: mr * CELL + 2, width: CELL - 4, height: CELL - 4, fill: "none", stroke: "#111",
      "stroke-width": 3, class: "bb-marker" }, layer);
    el("ellipse", { cx: cx + CELL * 0.28, cy: cy + CELL * 0.26, rx: 7, ry: 4, fill: "#111" }, layer);
    el("rect", { x: W - 40, y: H + 4, width: 34, height: 34, rx: 6, fill: "#fff", stroke: "#222", "stroke-width": 2,
      class: "bb-die-box" }, layer);
    el("text", { x: W - 23, y: H + 28, "text-anchor": "middle", "font-size": 20, "font-weight": 700, class: "bb-die" }, layer, String(b.roll));
    el("text", { x: W - 46, y: H + 26, "text-anchor": "end", "font-size": 12 }, layer,
      `${p.seats[b.roller].name} rolled (D8); ${b.phase === "roller" ? "roller" : "responder"} chooses`);
  }
  // the signpost (always the top-left space of a tile), pointing east: on that space's top edge, a tile border, half
  // in the margin of the space (or the column numbers' strip) above, so that it covers no animal; over the marker
  const [sr, sc] = b.signpost;
  el("path", { d: `M ${sc * CELL + 1} ${sr * CELL - 5} h 11 l 5 5 l -5 5 h -11 z`,
    fill: "#f5e6a8", stroke: "#6b5a1e", class: "bb-signpost", "data-cell": `${"abcdef"[sr]}${sc + 1}` }, layer);
  // the bidding row (variant)
  if (b.row) {
    const y = H + 48;
    const fw = W / b.row.length;
    el("text", { x: 0, y: y - 6, "font-size": 11 }, layer, "bidding row (values 1–28)");
    for (const f of b.row) {
      const x = (f.value - 1) * fw;
      const m = moves.find(m => m.kind === "figure" && m.value === f.value);
      const chosen = b.choice === f.value;
      const node = el("rect", { x: x + 1, y, width: fw - 2, height: 28, rx: 3,
        fill: f.present ? SIDE[f.owner] : "#eee", stroke: chosen ? "#c0392b" : "#555", "stroke-width": chosen ? 3 : 0.6,
        class: "bb-figure" + (m ? " legal" : ""), "data-value": f.value }, layer);
      el("text", { x: x + fw / 2, y: y + 12, "text-anchor": "middle", "font-size": 9, fill: f.present ? "#fff" : "#aaa" }, layer, f.letter);
      el("text", { x: x + fw / 2, y: y + 24, "text-anchor": "middle", "font-size": 9, fill: f.present ? "#fff" : "#aaa" }, layer, String(f.value));
      if (m) clickable(node, m.text, () => ctx.move(m.id));
    }
  }
  // supplies
  for (let s = 0; s < 2; s++) {
    const y = supplyTop + s * 58;
    el("rect", { x: 0, y, width: W, height: 50, rx: 6, fill: SIDE_LIGHT[s], stroke: "#aaa", class: "bb-supply" }, layer);
    el("text", { x: 8, y: y + 20, "font-size": 13, "font-weight": 700 }, layer, `${p.seats[s].agent} (${p.seats[s].name})`);
    el("text", { x: 8, y: y + 40, "font-size": 12 }, layer, `${b.vp[s]} vp, ${b.placed[s]} placed`);
    letters[s].split("").forEach((ch, t) => {
      const x = 170 + t * 70;
      const m = !b.row && s === p.to_move ? moves.find(m => m.kind === "type" && m.type === t) : null;
      const node = el("rect", { x, y: y + 8, width: 34, height: 34, rx: 8, fill: SIDE[s], stroke: "#222",
        class: "bb-type" + (m ? " legal" : ""), "data-letter": ch }, layer);
      el("text", { x: x + 17, y: y + 31, "text-anchor": "middle", "font-size": 18, "font-weight": 700, fill: "#fff" }, layer, ch);
      el("text", { x: x + 40, y: y + 31, "font-size": 13 }, layer, `×${b.remaining[s][t]}`);
      if (m) clickable(node, `place ${ch} on the steps-marker`, () => ctx.move(m.id));
    });
  }
  if (mine) {
    const pass = moves.find(m => m.kind === "pass");
    ctx.prompt(b.row ? "Point at one of your figures in the row, or" : "Place one of your animals on the marked space, or");
    if (pass) button("pass", { class: "move-btn", "data-kind": "pass" }, () => ctx.move(pass.id), ctx.buttons);
  }
  html("p", { class: "hint" }, ctx.info,
    "Groups of 2–8 identical animals (orthogonally adjacent) score 1, 3, 5, 7, 8, 9, 10 vp. Small numbers: the spaces the next roll of 1–8 reaches.");
}

export function seatColour(seat) { return SIDE[seat]; }
