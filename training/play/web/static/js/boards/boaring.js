// Boaring: the table (animal and food card), every player's savanna and graveyard, committed cards, the last
// reveal, and your hand. Click a card of your hand to bid it; after a living hyena or lion, click what it eats.
import { el, fitView, clickable, button, html, SEAT_COLOURS } from "../svg.js";

const ANIMALS = ["boar", "hyena", "lion"];
const ANIMAL_FILL = ["#8d6e63", "#c9a227", "#e67e22"];
const PANEL_W = 176, PANEL_H = 150, PER_ROW = 5;

function card(layer, x, y, value, attrs = {}) {
  const g = el("g", attrs, layer);
  el("rect", { x, y, width: 34, height: 48, rx: 4, fill: value === null ? "#a33" : "#fffdf5", stroke: "#555" }, g);
  if (value === null) el("path", { d: `M ${x + 6} ${y + 6} l 22 36 M ${x + 28} ${y + 6} l -22 36`, stroke: "#d77", "stroke-width": 1.5 }, g);
  else el("text", { x: x + 17, y: y + 30, "text-anchor": "middle", "font-size": 17, "font-weight": 700 }, g, String(value));
  return g;
}

function animal(layer, x, y, type, count, attrs = {}) {
  const g = el("g", attrs, layer);
  el("circle", { cx: x + 11, cy: y + 11, r: 11, fill: ANIMAL_FILL[type], stroke: "#333", opacity: count ? 1 : 0.25 }, g);
  el("text", { x: x + 11, y: y + 15, "text-anchor": "middle", "font-size": 11, "font-weight": 700, fill: "#fff" }, g,
    ANIMALS[type][0].toUpperCase());
  el("text", { x: x + 25, y: y + 15, "font-size": 12 }, g, `${count}`);
  return g;
}

export function draw(svg, p, ctx) {
  const b = p.board;
  const n = b.num_players;
  const mine = p.status === "your_turn";
  const moves = mine ? p.moves : [];
  const rowsOfPanels = Math.ceil(n / PER_ROW);
  const W = Math.max(Math.min(n, PER_ROW) * (PANEL_W + 8) - 8, 600);
  const tableH = 96;
  const handY = tableH + rowsOfPanels * (PANEL_H + 8) + 10;
  fitView(svg, [[0, 0], [W, handY + 90]], 8);
  const layer = el("g", {}, svg);

  // the table
  el("rect", { x: 0, y: 0, width: W, height: tableH - 8, rx: 8, fill: "#f4ecd6", stroke: "#c8b88a" }, layer);
  if (b.animal) {
    const t = ANIMALS.indexOf(b.animal);
    el("rect", { x: 12, y: 10, width: 62, height: 68, rx: 6, fill: ANIMAL_FILL[t], stroke: "#333" }, layer);
    el("text", { x: 43, y: 50, "text-anchor": "middle", "font-size": 14, "font-weight": 700, fill: "#fff", class: "bo-animal" }, layer, b.animal);
    card(layer, 86, 18, b.requirement);
    el("text", { x: 132, y: 40, "font-size": 14 }, layer, `needs ${b.requirement} × ${n} = ${b.needed} food`);
    const what = b.phase === "eat" ? `the ${b.animal} lives: p${b.eater} decides what it eats` :
      `bid: p${b.current} to play a card (p${b.active} started)`;
    el("text", { x: 132, y: 60, "font-size": 13, fill: "#555", class: "bo-what" }, layer, what);
  } else {
    el("text", { x: 14, y: 40, "font-size": 15 }, layer, "All animals are gone.");
  }
  el("text", { x: W - 10, y: 24, "text-anchor": "end", "font-size": 12 }, layer,
    `animal deck: ${b.animals_left[0]} boars, ${b.animals_left[1]} hyenas, ${b.animals_left[2]} lions`);
  el("text", { x: W - 10, y: 42, "text-anchor": "end", "font-size": 12 }, layer,
    `food pile ${b.food_pile} cards; eaten: ${b.eaten.join(" / ")}`);
  if (b.last) {
    const l = b.last;
    // its own line under the phase text (both were at y = 62 and overlapped)
    el("text", { x: 132, y: 80, "font-size": 12, class: "bo-last" }, layer,
      `last reveal: ${l.played.map((v, s) => `p${s} ${v}`).join(", ")} → ${l.fed} of ${l.needed}: ${l.animal} ${l.outcome} (p${l.receiver})`);
  }

  // the players
  for (let s = 0; s < n; s++) {
    const pl = b.players[s];
    const x = (s % PER_ROW) * (PANEL_W + 8), y = tableH + Math.floor(s / PER_ROW) * (PANEL_H + 8);
    const g = el("g", { class: "bo-player", "data-seat": s }, layer);
    const turn = (b.phase === "bid" && b.current === s) || (b.phase === "eat" && b.eater === s);
    el("rect", { x, y, width: PANEL_W, height: PANEL_H, rx: 6, fill: s === p.viewer ? "#eef6ea" : "#fff",
      stroke: turn ? "#f2b705" : "#bbb", "stroke-width": turn ? 3 : 1 }, g);
    el("circle", { cx: x + 12, cy: y + 14, r: 6, fill: SEAT_COLOURS[s] }, g);
    el("text", { x: x + 22, y: y + 18, "font-size": 13, "font-weight": 700 }, g,
      `p${s}${s === p.viewer ? " (you)" : ""} · ${pl.score} pts`);
    el("text", { x: x + 8, y: y + 36, "font-size": 11, fill: "#555" }, g, `hand: ${pl.hand_size} cards`);
    // committed / revealed card
    if (pl.committed) card(g, x + PANEL_W - 42, y + 24, pl.pending, { class: "bo-committed" });
    else if (b.last && b.phase !== "over") {
      el("text", { x: x + PANEL_W - 8, y: y + 36, "text-anchor": "end", "font-size": 11, fill: "#777" }, g, `last: ${b.last.played[s]}`);
    }
    el("text", { x: x + 8, y: y + 60, "font-size": 11 }, g, "savanna");
    el("text", { x: x + 8, y: y + 98, "font-size": 11 }, g, "graveyard");
    for (let t = 0; t < 3; t++) {
      for (const [where, row, counts] of [["savanna", 66, pl.savanna], ["graveyard", 104, pl.graveyard]]) {
        const m = moves.find(m => m.kind === "eat" && m.where === where && m.owner === s && m.type === t);
        const a = animal(g, x + 8 + t * 54, y + row, t, counts[t], { class: "bo-" + where + (m ? " bo-eat legal" : ""),
          "data-type": ANIMALS[t] });
        if (m) {
          el("circle", { cx: x + 19 + t * 54, cy: y + row + 11, r: 14, fill: "none", stroke: "#00b8d9", "stroke-width": 3 }, a);
          clickable(a, m.text, () => ctx.move(m.id));
        }
      }
    }
    if (pl.hand && s !== p.viewer) {  // spectator: every hand is shown
      const cards = pl.hand.flatMap((c, v) => Array(c).fill(v + 1));
      el("text", { x: x + 8, y: y + PANEL_H - 8, "font-size": 10, fill: "#555" }, g, cards.join(" "));
    }
  }

  // your hand
  const me = p.viewer === null ? null : b.players[p.viewer];
  if (me && me.hand) {
    el("text", { x: 0, y: handY + 12, "font-size": 13, "font-weight": 700 }, layer, "Your hand");
    let x = 0;
    me.hand.forEach((count, i) => {
      if (!count) return;
      const value = i + 1;
      const m = moves.find(m => m.kind === "play" && m.value === value);
      const g = card(layer, x, handY + 20, value, { class: "bo-card" + (m ? " legal" : ""), "data-value": value });
      if (count > 1) el("text", { x: x + 30, y: handY + 64, "text-anchor": "end", "font-size": 10 }, g, `×${count}`);
      if (m) {
        g.querySelector("rect").setAttribute("stroke", "#00b8d9");
        g.querySelector("rect").setAttribute("stroke-width", "3");
        clickable(g, m.text, () => ctx.move(m.id));
      }
      x += 42;
    });
  }
  if (mine) {
    const noEat = moves.find(m => m.kind === "no_eat");
    if (noEat) {
      ctx.prompt(`Your ${b.animal} lives: click what it eats (highlighted), or`);
      button("no eat", { class: "move-btn", "data-kind": "no_eat" }, () => ctx.move(noEat.id), ctx.buttons);
    } else ctx.prompt("Click a card of your hand to play it face down");
  }
  html("p", { class: "hint" }, ctx.info,
    "Savanna animals score 2, graveyard animals −1. B boar, H hyena, L lion. Face-down cards are turned when every player has bid.");
}

export function seatColour(seat) { return SEAT_COLOURS[seat]; }
