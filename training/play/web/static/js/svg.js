// Small helpers for drawing boards as SVG and building HTML controls.

const NS = "http://www.w3.org/2000/svg";

export const SEAT_COLOURS = ["#d9412b", "#2b6cd9", "#e3b505", "#8e44ad", "#16a085", "#e67e22", "#2c3e50",
  "#c2185b", "#7cb342", "#6d4c41"];

/** An SVG element with attributes (class via "class"), appended to parent; text content optional. */
export function el(tag, attrs = {}, parent = null, text = null) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v !== null && v !== undefined && v !== false) node.setAttribute(k, v);
  }
  if (text !== null) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

/** An HTML element. */
export function html(tag, attrs = {}, parent = null, text = null) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "dataset") Object.assign(node.dataset, v);
    else node.setAttribute(k, v);
  }
  if (text !== null) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

/** A button that calls onClick; extra attributes (class, data-*) as for html(). */
export function button(label, attrs, onClick, parent) {
  const b = html("button", { type: "button", ...attrs }, parent, label);
  b.addEventListener("click", onClick);
  return b;
}

/** Pixel centre of axial hex (q, r), pointy-top hexes of circumradius size. */
export function hexCentre(q, r, size) {
  return [size * Math.sqrt(3) * (q + r / 2), size * 1.5 * r];
}

/** The "points" attribute of a pointy-top hexagon. */
export function hexPoints(cx, cy, size) {
  const pts = [];
  for (let k = 0; k < 6; k++) {
    const a = Math.PI / 180 * (60 * k - 30);
    pts.push(`${(cx + size * Math.cos(a)).toFixed(2)},${(cy + size * Math.sin(a)).toFixed(2)}`);
  }
  return pts.join(" ");
}

/** Set the viewBox to the bounding box of points [[x, y], ...] with a margin. */
export function fitView(svg, points, margin, extra = {}) {
  const xs = points.map(p => p[0]), ys = points.map(p => p[1]);
  const x0 = Math.min(...xs) - margin, y0 = Math.min(...ys) - margin - (extra.top || 0);
  const w = Math.max(...xs) - Math.min(...xs) + 2 * margin;
  const h = Math.max(...ys) - Math.min(...ys) + 2 * margin + (extra.top || 0) + (extra.bottom || 0);
  svg.setAttribute("viewBox", `${x0} ${y0} ${w} ${h}`);
  return { x0, y0, w, h };
}

/** Make an SVG node clickable: class, title tooltip, click handler. */
export function clickable(node, title, onClick) {
  node.classList.add("clickable");
  if (title) el("title", {}, node, title);
  node.addEventListener("click", (ev) => { ev.stopPropagation(); onClick(ev); });
  return node;
}
