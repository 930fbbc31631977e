// The drawing of a game that has none of its own (its descriptor names no web_board): the board's text picture
// (board_data's "text", else one line per field of its JSON) drawn in the board's place, and each legal move as a button with its notation.
import { button, el, fitView, SEAT_COLOURS } from "../svg.js";

const LINE = 18, CHAR = 8.4;

export function draw(svg, p, ctx) {
  const b = p.board || {};
  const lines = typeof b.text === "string" ? b.text.split("\n")
    : Object.entries(b).map(([key, value]) => `${key}: ${JSON.stringify(value)}`);
  const width = Math.max(...lines.map((l) => l.length), 20) * CHAR;
  fitView(svg, [[0, 0], [width, lines.length * LINE]], 8);
  const picture = el("g", { class: "generic-board" }, svg);
  lines.forEach((line, k) => {
    el("text", { x: 0, y: (k + 1) * LINE - 4, "font-family": "monospace", "font-size": 14 },
      picture, line);
  });
  if (p.status !== "your_turn") return;
  for (const m of p.moves) {
    button(m.text, { class: "move-btn generic-move", "data-kind": m.kind || "move", "data-action": m.id },
      () => ctx.move(m.id), ctx.buttons);
  }
}

export function seatColour(seat) { return SEAT_COLOURS[seat % SEAT_COLOURS.length]; }
