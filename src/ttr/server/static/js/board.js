// The board: an SVG map drawn from the map JSON (cities' coordinates, routes), with claimed routes,
// stations, passengers and merchandise on top, highlights for what the player can do, and zoom/pan
// with the mouse wheel, drag and pinch. No board art: everything is drawn from data.

import { atLength, layoutCached, routeLanes, sampleCurve, SPACE } from "./geometry.js";
import { LETTER, PLAYER_COLOURS, PLAYER_INK, PLAYER_SHAPES, SLOT_EDGE, SLOT_FILL, patternDefs } from "./colours.js";

const NS = "http://www.w3.org/2000/svg";
const LANE = 11; // thickness of a space
const LANE_GAP = 13; // distance between parallel lanes
const CITY_R = 7.5;
// Boards narrower than this (Nordic, Märklin) are widened east–west to it, as the printed boards are, so that
// they fill a landscape panel (geometry.js: layoutCities `aspect`). Not on narrow screens, where the panel takes
// the board's shape and a tall board uses a phone's height.
const BOARD_ASPECT = 1.3;
// City labels are at least this many screen pixels high when the board is fitted to its panel (their size in
// board units follows the panel, within LABEL_MIN..LABEL_MAX units).
const LABEL_PX = 11.5;
const LABEL_MIN = 11;
const LABEL_MAX = 19;

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (parent) parent.appendChild(node);
  return node;
}

function iconDefs(defs) {
  // A small locomotive seen from the side (ferry spaces, locomotive cards).
  const loco = el("symbol", { id: "icon-loco", viewBox: "0 0 24 16" }, defs);
  el("path", { d: "M2 11 V5 H9 V2 H14 V5 H20 L22 8 V11 Z", fill: "#222", stroke: "#fff", "stroke-width": 1.2 }, loco);
  el("circle", { cx: 6, cy: 13, r: 2.2, fill: "#222", stroke: "#fff", "stroke-width": 1 }, loco);
  el("circle", { cx: 16, cy: 13, r: 2.2, fill: "#222", stroke: "#fff", "stroke-width": 1 }, loco);
  // A station: a little house with a flag.
  const st = el("symbol", { id: "icon-station", viewBox: "0 0 20 20" }, defs);
  el("path", { d: "M3 18 V9 L10 3 L17 9 V18 Z", stroke: "#111", "stroke-width": 1.6, fill: "currentColor" }, st);
  el("rect", { x: 8, y: 12, width: 4, height: 6, fill: "#111" }, st);
  // A passenger: a meeple-like figure.
  const ps = el("symbol", { id: "icon-passenger", viewBox: "0 0 20 24" }, defs);
  el("circle", { cx: 10, cy: 6, r: 4.5, fill: "currentColor", stroke: "#111", "stroke-width": 1.5 }, ps);
  el("path", { d: "M3 23 C3 14 6 11 10 11 C14 11 17 14 17 23 Z", fill: "currentColor", stroke: "#111", "stroke-width": 1.5 }, ps);
  // "No entry": the closed twin of a double route.
  const nf = el("symbol", { id: "icon-forbidden", viewBox: "0 0 20 20" }, defs);
  el("circle", { cx: 10, cy: 10, r: 8.2, fill: "#fff", stroke: "#c4161c", "stroke-width": 3 }, nf);
  el("path", { d: "M4.4 15.6 L15.6 4.4", stroke: "#c4161c", "stroke-width": 3 }, nf);
}

export class Board {
  /**
   * host: element to fill; map: the /api/editions/{id}/map JSON; handlers: {onRoute(id), onCity(id),
   * describeRoute(route) -> text, describeCity(city) -> text}.
   */
  constructor(host, map, handlers = {}, layoutOptions = {}) {
    this.host = host;
    this.map = map;
    this.handlers = handlers;
    this.routes = new Map(map.routes.map((r) => [r.id, r]));
    this.cities = new Map(map.cities.map((c) => [c.id, c]));
    // Narrow screens give the panel the board's own shape (board.css), so a tall board stays tall there.
    const narrow = typeof matchMedia === "function" && matchMedia("(max-width: 900px)").matches;
    const layout = layoutCached(map, { aspect: narrow ? null : BOARD_ASPECT, ...layoutOptions }); // precomputed for built-in maps
    const { pos, width, height } = layout;
    this.layoutSource = layout.source;
    this.pos = pos;
    this.world = { width, height };
    this.lanes = routeLanes(map, pos, LANE_GAP);
    this.routeEls = new Map();
    this.cityEls = new Map();
    this.sampled = new Map();
    this.state = { owners: {}, stations: {}, passengers: [], merchandise: {} };
    this.tickets = new Map(); // the player's own tickets: id -> {cities, done, routes}
    this.hover = null; // cities (and ticket) lit up while a ticket is hovered
    this.pinned = null; // a ticket tapped/clicked: its path stays lit
    this.fontSize = LABEL_MIN * 1.3;
    performance.mark("ttr-board-geometry");
    this.build();
    performance.mark("ttr-board-svg");
    this.fit(); // before the board joins the page: measuring the labels then lays out a small probe, not the whole board
    this.host.replaceChildren(this.svg, this.tooltip);
    if (typeof ResizeObserver !== "undefined") {
      let last = "";
      this.resizer = new ResizeObserver(() => {
        const b = this.host.getBoundingClientRect();
        const key = `${Math.round(b.width)}x${Math.round(b.height)}`;
        if (key === last || !b.width || !b.height) return;
        last = key;
        if (this.fitted && !this.beforeReveal) requestAnimationFrame(() => this.fit()); // the player's own zoom is kept
      });
      this.resizer.observe(this.host);
    }
  }

  build() {
    // a group (not an image: its routes and cities are buttons when they can be clicked), named after the map
    const svg = el("svg", { class: "board-svg", xmlns: NS, role: "group" }); // aria-label: GameClient
    this.svg = svg;
    const defs = patternDefs(NS);
    iconDefs(defs);
    svg.appendChild(defs);
    el("rect", { class: "sea", x: -5000, y: -5000, width: 10000 + this.world.width, height: 10000 + this.world.height }, svg);
    this.layerTicket = el("g", { class: "layer-ticket" }, svg);
    this.layerRoutes = el("g", { class: "layer-routes" }, svg);
    this.layerOverlay = el("g", { class: "layer-overlay" }, svg);
    this.layerMarks = el("g", { class: "layer-marks" }, svg);
    this.layerCities = el("g", { class: "layer-cities" }, svg);
    this.layerTokens = el("g", { class: "layer-tokens" }, svg);
    this.layerLabels = el("g", { class: "layer-labels" }, svg);
    for (const r of this.map.routes) this.buildRoute(r);
    for (const c of this.map.cities) this.buildCity(c);
    this.tooltip = document.createElement("div");
    this.tooltip.className = "board-tooltip";
    this.tooltip.hidden = true;
    this.installPanZoom(); // the constructor puts svg and tooltip into the host once the board is fitted
  }

  /** The spaces of one route lane, as {x, y, angle, w} in world units. */
  spacesOf(route) {
    const lane = this.lanes.get(route.id);
    const sm = sampleCurve(lane.curve, lane.offset);
    this.sampled.set(route.id, sm);
    const margin = CITY_R + 3;
    const room = Math.max(sm.length - 2 * margin, route.length * 6);
    const slot = Math.min(room / route.length, SPACE * 0.95); // long connections keep normal-sized spaces
    const start = (sm.length - slot * route.length) / 2;
    const gap = Math.min(3, slot * 0.14);
    const out = [];
    for (let k = 0; k < route.length; k++) {
      const [x, y, raw] = atLength(sm, start + slot * (k + 0.5));
      const angle = raw > 90 ? raw - 180 : raw < -90 ? raw + 180 : raw; // keep letters upright
      out.push({ x, y, angle, w: slot - gap });
    }
    return out;
  }

  buildRoute(r) {
    const g = el("g", { class: "route", "data-route": r.id, "data-color": r.color }, this.layerRoutes);
    if (r.tunnel) g.classList.add("tunnel");
    if (r.ferry) g.classList.add("ferry");
    const spaces = this.spacesOf(r);
    const sm = this.sampled.get(r.id);
    const lane = this.lanes.get(r.id);
    const straight = lane.curve.c[0] === (lane.curve.a[0] + lane.curve.b[0]) / 2 && lane.curve.c[1] === (lane.curve.a[1] + lane.curve.b[1]) / 2;
    const line = straight ? [sm.pts[0], sm.pts[sm.pts.length - 1]] : sm.pts; // a straight lane needs 2 points, not 65
    const d = line.map((p, i) => `${i ? "L" : "M"}${p[0].toFixed(1)} ${p[1].toFixed(1)}`).join(" ");
    el("path", { class: "route-hit", d }, g);
    el("path", { class: "route-link", d }, g);
    el("path", { class: "route-glow", d }, g);
    const colour = r.color || "gray";
    spaces.forEach((s, k) => {
      const sg = el("g", { class: "space", transform: `translate(${s.x.toFixed(1)} ${s.y.toFixed(1)}) rotate(${s.angle.toFixed(1)})` }, g);
      // Unclaimed: a flat pale slot outlined in the printed colour (colours.js SLOT_FILL / SLOT_EDGE).
      el("rect", { class: "space-fill", x: -s.w / 2, y: -LANE / 2, width: s.w, height: LANE, rx: 2, fill: SLOT_FILL[colour], stroke: SLOT_EDGE[colour] }, sg);
      if (colour !== "gray") el("rect", { class: "cb-mark cb-pattern", x: -s.w / 2, y: -LANE / 2, width: s.w, height: LANE, rx: 2, fill: `url(#cb-${colour})` }, sg);
      if (r.ferry && k < r.ferry) el("use", { class: "ferry-icon", href: "#icon-loco", x: -7, y: -5, width: 14, height: 10 }, sg);
      if (colour !== "gray" && k === Math.floor((r.length - 1) / 2) && !(r.ferry && k < r.ferry)) {
        const txt = el("text", { class: "cb-mark cb-letter", x: 0, y: 0.5, fill: colour === "black" ? "#fff" : "#111" }, sg);
        txt.textContent = LETTER[colour];
      }
      // Claimed: a raised carriage in the owner's colour, dark outline, a window band and the owner's shape.
      const car = el("g", { class: "car" }, sg);
      el("rect", { class: "car-shadow", x: -s.w / 2 + 0.8, y: -LANE / 2 + 1.8, width: s.w, height: LANE, rx: 3 }, car);
      el("rect", { class: "car-body", x: -s.w / 2, y: -LANE / 2 - 0.6, width: s.w, height: LANE, rx: 3 }, car);
      el("rect", { class: "car-window", x: -s.w / 2 + 2.5, y: -LANE / 2 + 1.2, width: Math.max(1, s.w - 5), height: 2, rx: 1 }, car);
      const mark = el("text", { class: "car-mark", x: 0, y: 1.4 }, car);
      mark.textContent = "";
    });
    // The "no entry" mark of a closed twin lane (shown by the .closed class).
    const mid = atLength(sm, sm.length / 2);
    el("use", { class: "forbidden-mark", href: "#icon-forbidden", x: (mid[0] - 9).toFixed(1), y: (mid[1] - 9).toFixed(1), width: 18, height: 18, "data-route": r.id }, this.layerMarks);
    if (r.substitute) {
      const mid = spaces[Math.floor(spaces.length / 2)];
      const tx = el("text", { class: "substitute-label", x: mid.x, y: mid.y - LANE }, g);
      tx.textContent = `${r.substitute}:1`;
    }
    g.addEventListener("click", (ev) => {
      if (this.suppressClick) return;
      ev.stopPropagation();
      this.handlers.onRoute?.(r.id);
    });
    g.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); this.handlers.onRoute?.(r.id); }
    });
    this.hoverTip(g, () => this.handlers.describeRoute?.(r));
    this.routeEls.set(r.id, g);
  }

  buildCity(c) {
    const [x, y] = this.pos.get(c.id);
    const g = el("g", { class: "city", "data-city": c.id, transform: `translate(${x.toFixed(1)} ${y.toFixed(1)})` }, this.layerCities);
    const d = CITY_R + 4.5; // the ring marking one of the player's destinations (shown by .destination)
    if (c.area) el("rect", { class: "dest-ring", x: -d, y: -d, width: 2 * d, height: 2 * d, rx: 4 }, g);
    else el("circle", { class: "dest-ring", r: d }, g);
    if (c.area) {
      g.classList.add("area");
      el("rect", { class: "city-dot", x: -CITY_R, y: -CITY_R, width: 2 * CITY_R, height: 2 * CITY_R, rx: 2 }, g);
    } else {
      el("circle", { class: "city-ring", r: CITY_R + 4 }, g);
      el("circle", { class: "city-dot", r: CITY_R }, g);
    }
    g.addEventListener("click", (ev) => {
      if (this.suppressClick) return;
      ev.stopPropagation();
      this.handlers.onCity?.(c.id);
    });
    g.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); this.handlers.onCity?.(c.id); }
    });
    this.hoverTip(g, () => this.handlers.describeCity?.(c));
    this.cityEls.set(c.id, g);
  }

  /** Label texts, created once and measured once at a reference size (widths scale with the font size). */
  makeLabels() {
    const REF = 20;
    // Before the board is on the page, the texts are measured in a small hidden SVG of the same class in the host:
    // the measurement then lays out a few dozen texts, not the thousands of elements of the board.
    const probe = this.svg.isConnected || !this.host.isConnected ? null : el("svg", { class: "board-svg label-probe", "aria-hidden": "true" });
    if (probe) {
      probe.style.cssText = "position:absolute;left:0;top:0;width:10px;height:10px;visibility:hidden;overflow:hidden";
      this.host.append(probe);
    }
    const texts = this.map.cities.map((c) => {
      const text = el("text", { class: c.area ? "city-label area-label" : "city-label", x: 0, y: 0, "data-city": c.id }, probe || this.layerLabels);
      text.textContent = c.name;
      text.style.fontSize = `${(c.area ? 0.94 : 1) * REF}px`;
      return text;
    });
    let measured = true;
    this.labelRef = texts.map((text, i) => { // all created first: one layout for all the measurements
      const c = this.map.cities[i];
      let bb = null;
      try { bb = text.getBBox(); } catch { bb = null; }
      if (!bb || !bb.width) { // not laid out (hidden host): an estimate, measured again next time
        measured = false;
        bb = { x: 0, y: -0.92 * REF, width: c.name.length * REF * 0.58, height: 1.17 * REF };
      }
      const at = (c.area ? 0.94 : 1) * REF; // per unit of font size
      return { c, text, x: bb.x / at, y: bb.y / at, w: bb.width / at, h: bb.height / at, scale: c.area ? 0.94 : 1 };
    });
    if (probe) {
      this.layerLabels.append(...texts);
      probe.remove();
    }
    this.labelsMeasured = measured;
  }

  /**
   * Place every city label (font size `fs` in board units) where it overlaps no other label and as few cities
   * and route spaces as possible: 36 candidate spots around the city (near ones preferred), chosen greedily,
   * then a few passes that move any label still touching another one. Boxes are the texts' measured boxes.
   */
  placeLabels(fs) {
    this.fontSize = fs;
    if (!this.labelRef || !this.labelsMeasured) {
      this.layerLabels.replaceChildren();
      this.makeLabels();
    }
    if (!this.obstacles) { // cities and route spaces, bucketed by the cell of their centre
      const CELL = 48, grid = new Map();
      const put = (box) => {
        const key = `${Math.floor((box[0] + box[2]) / 2 / CELL)},${Math.floor((box[1] + box[3]) / 2 / CELL)}`;
        if (!grid.has(key)) grid.set(key, []);
        grid.get(key).push(box);
      };
      for (const [id, p] of this.pos) put([p[0] - CITY_R - 1, p[1] - CITY_R - 1, p[0] + CITY_R + 1, p[1] + CITY_R + 1, 8, id]);
      for (const sm of this.sampled.values()) {
        for (let k = 2; k < sm.pts.length - 2; k += 3) {
          const [x, y] = sm.pts[k];
          put([x - 4.5, y - 4.5, x + 4.5, y + 4.5, 1, null]);
        }
      }
      const reach = CITY_R + 1; // the largest half-size of an obstacle
      this.obstacles = (box, visit) => {
        for (let i = Math.floor((box[0] - reach) / CELL); i <= Math.floor((box[2] + reach) / CELL); i++) {
          for (let j = Math.floor((box[1] - reach) / CELL); j <= Math.floor((box[3] + reach) / CELL); j++) {
            for (const o of grid.get(`${i},${j}`) || []) visit(o);
          }
        }
      };
    }
    const overlap = (a, b) => Math.max(0, Math.min(a[2], b[2]) - Math.max(a[0], b[0])) * Math.max(0, Math.min(a[3], b[3]) - Math.max(a[1], b[1]));
    const { width: W, height: H } = this.world;
    const outside = (box) => box[2] - box[0] - (Math.min(box[2], W) - Math.max(box[0], 0)) + (box[3] - box[1] - (Math.min(box[3], H) - Math.max(box[1], 0)));
    const items = this.labelRef.map((ref) => {
      const { c, text } = ref;
      const size = ref.scale * fs;
      text.style.fontSize = `${size}px`;
      const bb = { x: ref.x * size, y: ref.y * size, width: ref.w * size, height: ref.h * size };
      const [x, y] = this.pos.get(c.id);
      const w = bb.width + 2, h = bb.height + 2; // 1 unit of air all round
      const cands = [];
      [[CITY_R + 2.5, 0], [CITY_R + 2.5 + 0.9 * fs, 0.06], [CITY_R + 2.5 + 1.9 * fs, 0.15]].forEach(([ring, penalty]) => {
        const dx = ring, dy = ring * 0.72;
        cands.push(
          [x + dx, y - h / 2, penalty], [x - dx - w, y - h / 2, penalty],
          [x - w / 2, y - dy - h, penalty + 0.01], [x - w / 2, y + dy, penalty + 0.01],
          [x + dx * 0.75, y - dy - h + 2, penalty + 0.02], [x - dx * 0.75 - w, y - dy - h + 2, penalty + 0.02],
          [x + dx * 0.75, y + dy - 2, penalty + 0.02], [x - dx * 0.75 - w, y + dy - 2, penalty + 0.02],
          [x - w * 0.15, y - dy - h, penalty + 0.03], [x - w * 0.85, y - dy - h, penalty + 0.03],
          [x - w * 0.15, y + dy, penalty + 0.03], [x - w * 0.85, y + dy, penalty + 0.03],
        );
      });
      return { c, text, bb, w, h, cands: cands.map(([bx, by, pen]) => ({ box: [bx, by, bx + w, by + h], pen, fixed: null })), at: null };
    });
    const gapTo = (box, p) => Math.hypot(Math.max(box[0] - p[0], 0, p[0] - box[2]), Math.max(box[1] - p[1], 0, p[1] - box[3]));
    const fixedCost = (it, cand) => { // what does not depend on the other labels, computed once per spot
      if (cand.fixed === null) {
        const box = cand.box;
        let v = cand.pen * it.w * it.h + 4 * it.h * outside(box);
        this.obstacles(box, (o) => { if (o[5] !== it.c.id) v += o[4] * overlap(box, o); });
        // A label must be nearer its own city than any other: else it reads as the other city's name.
        const own = gapTo(box, this.pos.get(it.c.id)) + 3;
        const [x0, y0, x1, y1] = box;
        this.obstacles([x0 - own, y0 - own, x1 + own, y1 + own], (o) => {
          if (o[5] && o[5] !== it.c.id && gapTo(box, this.pos.get(o[5])) < own) v += 50 * it.w * it.h;
        });
        cand.fixed = v;
      }
      return cand.fixed;
    };
    const cost = (it, cand) => {
      let v = fixedCost(it, cand);
      for (const o of items) if (o !== it && o.at) v += 1000 * overlap(cand.box, o.at.box); // labels never on labels
      return v;
    };
    const choose = (it) => {
      let best = null, bestCost = Infinity;
      for (const cand of it.cands) {
        const v = cost(it, cand);
        if (v < bestCost - 0.01) { bestCost = v; best = cand; }
      }
      it.at = best;
    };
    // The most crowded cities first; then move whatever still collides.
    const crowd = (it) => { let n = 0; this.obstacles([it.cands[0].box[0] - 2 * it.w, it.cands[0].box[1] - 3 * it.h, it.cands[0].box[2] + 2 * it.w, it.cands[0].box[3] + 3 * it.h], (o) => { if (o[5]) n++; }); return n; };
    [...items].sort((p, q) => crowd(q) - crowd(p) || (p.c.area ? 1 : 0) - (q.c.area ? 1 : 0)).forEach(choose);
    for (let pass = 0; pass < 10; pass++) {
      const clashing = items.filter((it) => items.some((o) => o !== it && overlap(it.at.box, o.at.box) > 0));
      if (!clashing.length) break;
      clashing.forEach(choose);
    }
    this.labelBoxes = new Map();
    for (const it of items) {
      const [bx, by] = it.at.box;
      it.text.setAttribute("x", (bx + 1 - it.bb.x).toFixed(1));
      it.text.setAttribute("y", (by + 1 - it.bb.y).toFixed(1));
      this.labelBoxes.set(it.c.id, it.at.box);
    }
    this.drawFocus();
  }

  hoverTip(node, text) {
    node.addEventListener("pointerenter", (ev) => {
      if (ev.pointerType === "touch") return;
      const s = text();
      if (!s) return;
      this.tooltip.textContent = s;
      this.tooltip.hidden = false;
      this.moveTip(ev);
    });
    node.addEventListener("pointermove", (ev) => this.moveTip(ev));
    node.addEventListener("pointerleave", () => { this.tooltip.hidden = true; });
  }

  moveTip(ev) {
    if (this.tooltip.hidden) return;
    const box = this.host.getBoundingClientRect();
    this.tooltip.style.left = `${ev.clientX - box.left + 14}px`;
    this.tooltip.style.top = `${ev.clientY - box.top + 14}px`;
    const avoid = this.handlers.tipAvoid?.(); // an element the tooltip must never cover (an open dialog)
    if (avoid) {
      const a = avoid.getBoundingClientRect(), r = this.tooltip.getBoundingClientRect();
      const hit = () => { const q = this.tooltip.getBoundingClientRect(); return q.left < a.right && a.left < q.right && q.top < a.bottom && a.top < q.bottom; };
      if (hit()) this.tooltip.style.left = `${ev.clientX - box.left - r.width - 14}px`; // left of the pointer instead
      if (hit()) this.tooltip.style.top = `${ev.clientY - box.top - r.height - 10}px`; // or above it
      if (hit()) this.tooltip.hidden = true;
    }
  }

  // ---------------------------------------------------------------- dynamic state
  /**
   * owners: {routeId: seat}; stations: {city: seat}; passengers: per seat list of city|null|"gone"; merchandise: {city: [top first]};
   * closed: ids of unclaimed lanes nobody may claim any more (the server's `closed_routes`).
   */
  setState({ owners = {}, stations = {}, passengers = [], merchandise = {}, closed = [] }) {
    this.state = { owners, stations, passengers, merchandise };
    const shut = new Set(closed || []);
    for (const m of this.layerMarks.children) m.classList.toggle("on", shut.has(m.dataset.route));
    for (const [id, g] of this.routeEls) {
      const seat = owners[id];
      const claimed = seat !== undefined && seat !== null;
      g.classList.toggle("claimed", claimed);
      g.classList.toggle("closed", !claimed && shut.has(id));
      if (claimed) {
        g.style.setProperty("--owner", PLAYER_COLOURS[seat % PLAYER_COLOURS.length]);
        g.style.setProperty("--owner-ink", PLAYER_INK[seat % PLAYER_INK.length]);
        g.dataset.owner = String(seat);
        for (const m of g.querySelectorAll(".car-mark")) m.textContent = PLAYER_SHAPES[seat % PLAYER_SHAPES.length];
      } else {
        delete g.dataset.owner;
      }
    }
    this.drawTokens();
  }

  drawTokens() {
    const layer = this.layerTokens;
    layer.replaceChildren();
    const { stations, passengers, merchandise } = this.state;
    for (const [city, stack] of Object.entries(merchandise)) {
      if (!stack.length || !this.pos.has(city)) continue;
      const [x, y] = this.pos.get(city);
      const g = el("g", { class: "merch", "data-city": city, transform: `translate(${x - 15} ${y + 9})` }, layer);
      stack.slice(0, 4).reverse().forEach((_, i, arr) => {
        el("rect", { class: "merch-chip", x: -6, y: -6 - (arr.length - 1 - i) * 2.2, width: 12, height: 9, rx: 2 }, g);
      });
      const tx = el("text", { class: "merch-value", x: 0, y: 0.5 - (Math.min(stack.length, 4) - 1) * 2.2 }, g);
      tx.textContent = String(stack[0]);
    }
    for (const [city, seat] of Object.entries(stations)) {
      if (!this.pos.has(city)) continue;
      const [x, y] = this.pos.get(city);
      const use = el("use", { class: "station", href: "#icon-station", x: x + 1, y: y - 25, width: 22, height: 22, "data-city": city, "data-owner": seat }, layer);
      use.style.color = PLAYER_COLOURS[seat % PLAYER_COLOURS.length];
    }
    passengers.forEach((list, seat) => {
      (list || []).forEach((city) => {
        if (!city || city === "gone" || !this.pos.has(city)) return;
        const [x, y] = this.pos.get(city);
        const use = el("use", { class: "passenger", href: "#icon-passenger", x: x - 22, y: y - 26, width: 17, height: 21, "data-city": city, "data-owner": seat }, layer);
        use.style.color = PLAYER_COLOURS[seat % PLAYER_COLOURS.length];
      });
    });
  }

  /** claimable: Set of route ids; pickCities: Set of city ids the player may click now. */
  setPlayable({ claimable = new Set(), pickCities = new Set() } = {}) {
    const focusable = (g, on, label) => { // what can be clicked can also be reached with the keyboard
      g.classList.toggle(g.dataset.route ? "claimable" : "pickable", on);
      if (on) {
        g.setAttribute("tabindex", "0");
        g.setAttribute("role", "button");
        g.setAttribute("aria-label", label());
      } else {
        g.removeAttribute("tabindex");
        g.removeAttribute("role");
        g.removeAttribute("aria-label"); // a label without a role is not allowed (axe: aria-prohibited-attr)
      }
    };
    for (const [id, g] of this.routeEls) focusable(g, claimable.has(id), () => this.handlers.describeRoute?.(this.routes.get(id)) || id);
    for (const [id, g] of this.cityEls) focusable(g, pickCities.has(id), () => this.cities.get(id).name);
  }

  /** Briefly mark a route that was just claimed, so moves by others are noticed. */
  flash(routeId) {
    const g = this.routeEls.get(routeId);
    if (!g) return;
    g.classList.remove("flash");
    void g.getBoundingClientRect();
    g.classList.add("flash");
    setTimeout(() => g.classList.remove("flash"), 2600);
  }

  select(routeId) {
    for (const [id, g] of this.routeEls) g.classList.toggle("selected", id === routeId);
  }

  /**
   * The player's own tickets: [{id, cities: [end city ids], done, routes: [route ids of a completed path]}].
   * Their cities get a destination ring (solid while a ticket to it is open, dashed when all are done).
   */
  setTickets(tickets) {
    this.tickets = new Map((tickets || []).map((tk) => [tk.id, tk]));
    const dest = new Map();
    for (const tk of this.tickets.values()) {
      for (const c of tk.cities) if (!dest.has(c) || !tk.done) dest.set(c, tk.done ? "done" : "open");
    }
    for (const [id, g] of this.cityEls) {
      g.classList.toggle("destination", dest.has(id));
      if (dest.has(id)) g.dataset.dest = dest.get(id);
      else delete g.dataset.dest;
    }
    if (this.pinned !== null && !this.tickets.has(this.pinned)) this.pinned = null;
    this.drawFocus();
  }

  /** Highlight some cities (a ticket's ends) and dim the rest of the board while it lasts; with one of the
   * player's tickets, its completed path is drawn too. Empty: back to the pinned ticket, if any. */
  highlightCities(ids, ticketId = null) {
    this.hover = ids && ids.length ? { cities: ids, ticket: ticketId } : null;
    this.drawFocus();
  }

  /** Tap/click on one of the player's tickets: keep it lit (again: let go). Returns the pinned id or null. */
  pinTicket(id) {
    this.pinned = this.pinned === id || !this.tickets.has(id) ? null : id;
    this.drawFocus();
    return this.pinned;
  }

  drawFocus() {
    if (!this.layerTicket) return;
    const pin = this.pinned !== null ? this.tickets.get(this.pinned) : null;
    const focus = this.hover || (pin ? { cities: pin.cities, ticket: pin.id } : null);
    const set = new Set(focus ? focus.cities : []);
    this.svg.classList.toggle("focus-cities", set.size > 0);
    for (const [id, g] of this.cityEls) g.classList.toggle("highlight", set.has(id));
    for (const t of this.layerLabels.children) t.classList.toggle("highlight", set.has(t.dataset.city));
    this.layerTicket.replaceChildren();
    const tk = focus && focus.ticket !== null ? this.tickets.get(focus.ticket) : null;
    if (tk) this.svg.dataset.focusTicket = tk.id;
    else delete this.svg.dataset.focusTicket;
    const onPath = new Set(tk ? tk.routes || [] : []);
    for (const [id, g] of this.routeEls) g.classList.toggle("on-path", onPath.has(id));
    for (const id of onPath) {
      const sm = this.sampled.get(id);
      if (!sm) continue;
      const d = sm.pts.map((p, i) => `${i ? "L" : "M"}${p[0].toFixed(1)} ${p[1].toFixed(1)}`).join(" ");
      el("path", { class: "ticket-path-casing", d }, this.layerTicket);
      el("path", { class: "ticket-path", d, "data-route": id }, this.layerTicket);
    }
  }

  /** Draw a path of routes over the board (longest path, passenger trail). kind: css class. */
  showPaths(paths) {
    this.layerOverlay.replaceChildren();
    for (const { routes, kind, colour } of paths) {
      for (const id of routes) {
        const sm = this.sampled.get(id);
        if (!sm) continue;
        const d = sm.pts.map((p, i) => `${i ? "L" : "M"}${p[0].toFixed(1)} ${p[1].toFixed(1)}`).join(" ");
        const path = el("path", { class: `overlay-path ${kind}`, d, "data-route": id }, this.layerOverlay);
        if (colour) path.style.stroke = colour;
      }
    }
  }

  // ---------------------------------------------------------------- zoom and pan
  /**
   * Pan (and zoom out if needed) so that these cities and routes are visible in the part of the board that
   * `cover` (an open dialog) leaves free, and below `topCover` (the tutorial's guide over the top of the board on a
   * phone) if given. Nothing moves when they are already in sight.
   */
  reveal({ cities = [], routes = [] }, cover = null, topCover = null) {
    const pts = cities.filter((c) => this.pos.has(c)).map((c) => this.pos.get(c));
    for (const r of routes) {
      const sm = this.sampled.get(r);
      if (sm) pts.push(sm.pts[0], sm.pts[sm.pts.length - 1]);
    }
    const box = this.svg.getBoundingClientRect();
    if (!pts.length || !box.width || !box.height) return;
    const pad = SPACE * 1.2;
    const x0 = Math.min(...pts.map((p) => p[0])) - pad, x1 = Math.max(...pts.map((p) => p[0])) + pad;
    const y0 = Math.min(...pts.map((p) => p[1])) - pad, y1 = Math.max(...pts.map((p) => p[1])) + pad;
    let free = { left: box.left, top: box.top, width: box.width, height: box.height };
    if (cover && !cover.hidden && cover.getClientRects().length) {
      const c = cover.getBoundingClientRect();
      const above = c.top - box.top, right = box.right - c.right;
      free = above * box.width >= right * box.height
        ? { left: box.left, top: box.top, width: box.width, height: Math.max(80, above) }
        : { left: Math.max(box.left, c.right), top: box.top, width: Math.max(80, right), height: box.height };
    }
    if (topCover && !topCover.hidden && topCover.getClientRects().length) { // a panel over the top of the board too
      const c = topCover.getBoundingClientRect();
      const cut = Math.min(c.bottom, free.top + free.height) - free.top;
      if (c.top < free.top + free.height / 2 && cut > 0) free = { ...free, top: free.top + cut, height: Math.max(80, free.height - cut) };
    }
    const [, , scale] = this.toWorld(box.left, box.top);
    const offX = (box.width - this.vb.w * scale) / 2, offY = (box.height - this.vb.h * scale) / 2;
    const cx = (wx) => box.left + offX + (wx - this.vb.x) * scale, cy = (wy) => box.top + offY + (wy - this.vb.y) * scale;
    if (cx(x0) >= free.left && cx(x1) <= free.left + free.width && cy(y0) >= free.top && cy(y1) <= free.top + free.height) return;
    const s = Math.min(scale, free.width / (x1 - x0), free.height / (y1 - y0));
    if (!this.beforeReveal) this.beforeReveal = { ...this.vb };
    this.vb = {
      x: (x0 + x1) / 2 - (free.left - box.left + free.width / 2) / s,
      y: (y0 + y1) / 2 - (free.top - box.top + free.height / 2) / s,
      w: box.width / s,
      h: box.height / s,
    };
    this.applyViewBox();
  }

  /** Back to the view from before reveal() moved it, unless the player has zoomed or panned since. */
  restore() {
    if (!this.beforeReveal) return;
    this.vb = this.beforeReveal;
    this.beforeReveal = null;
    this.applyViewBox();
  }

  /** The drawn board (cities, spaces, labels) in board units. */
  contentBox() {
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    const add = (ax, ay, bx, by) => { x0 = Math.min(x0, ax); y0 = Math.min(y0, ay); x1 = Math.max(x1, bx); y1 = Math.max(y1, by); };
    for (const [x, y] of this.pos.values()) add(x - CITY_R - 5, y - CITY_R - 5, x + CITY_R + 5, y + CITY_R + 5);
    for (const sm of this.sampled.values()) for (const [x, y] of sm.pts) add(x - LANE, y - LANE, x + LANE, y + LANE);
    for (const b of (this.labelBoxes || new Map()).values()) add(b[0], b[1], b[2], b[3]);
    return { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
  }

  /**
   * Show the whole board, as large as the panel allows. Labels are re-placed when the panel's size calls for
   * another font size (LABEL_PX on screen), which also changes the drawn box: two rounds settle it.
   */
  fit() {
    this.beforeReveal = null;
    const box = this.host.getBoundingClientRect();
    const pad = SPACE * 0.15;
    // Zoom buttons floating over the board's right edge (wide screens): the board is fitted beside them.
    const ctl = this.host.parentElement ? this.host.parentElement.querySelector(".zoom-controls") : null;
    const cr = ctl ? ctl.getBoundingClientRect() : null;
    const reserve = cr && cr.width && cr.left < box.right && cr.right > box.left && cr.top < box.bottom && cr.bottom > box.top
      ? Math.max(0, box.right - cr.left + 4) : 0;
    let content = null;
    for (let round = 0; round < 3; round++) {
      const c = this.contentBox(); // the first round: cities and spaces only, the labels are not placed yet
      content = { x: c.x - pad, y: c.y - pad, w: c.w + 2 * pad, h: c.h + 2 * pad };
      this.vb = content;
      if (!box.width || !box.height) {
        if (this.labelBoxes) break;
        this.placeLabels(LABEL_MIN * 1.3);
        continue;
      }
      const free = Math.max(box.width / 2, box.width - reserve);
      const scale = Math.min(free / content.w, box.height / content.h);
      this.vb = { // the host's own shape, the content centred in the part the buttons leave free
        x: content.x + content.w / 2 - free / 2 / scale,
        y: content.y + content.h / 2 - box.height / 2 / scale,
        w: box.width / scale,
        h: box.height / scale,
      };
      const fs = Math.max(LABEL_MIN, Math.min(LABEL_MAX, LABEL_PX / scale));
      if (this.labelBoxes && Math.abs(fs - this.fontSize) / this.fontSize < 0.04) break;
      this.placeLabels(fs);
    }
    this.fitted = true;
    this.host.style.setProperty("--board-aspect", (content.w / content.h).toFixed(3)); // narrow screens: the panel's shape
    this.applyViewBox();
  }

  applyViewBox() {
    const { x, y, w, h } = this.vb;
    this.svg.setAttribute("viewBox", `${x.toFixed(1)} ${y.toFixed(1)} ${w.toFixed(1)} ${h.toFixed(1)}`);
  }

  /** The world point under a client (screen) point, honouring preserveAspectRatio="xMidYMid meet". */
  toWorld(clientX, clientY) {
    const box = this.svg.getBoundingClientRect();
    const scale = Math.min(box.width / this.vb.w, box.height / this.vb.h) || 1;
    const offX = (box.width - this.vb.w * scale) / 2, offY = (box.height - this.vb.h * scale) / 2;
    return [this.vb.x + (clientX - box.left - offX) / scale, this.vb.y + (clientY - box.top - offY) / scale, scale];
  }

  zoomBy(factor, clientX, clientY) {
    this.beforeReveal = null;
    this.fitted = false;
    const box = this.svg.getBoundingClientRect();
    if (clientX === undefined) { clientX = box.left + box.width / 2; clientY = box.top + box.height / 2; }
    const [wx, wy] = this.toWorld(clientX, clientY);
    const maxW = this.world.width * 1.5, minW = SPACE * 6;
    const w = Math.max(minW, Math.min(maxW, this.vb.w / factor));
    const f = w / this.vb.w;
    this.vb = { x: wx - (wx - this.vb.x) * f, y: wy - (wy - this.vb.y) * f, w, h: this.vb.h * f };
    this.applyViewBox();
  }

  installPanZoom() {
    const svg = this.svg;
    svg.addEventListener("wheel", (ev) => {
      ev.preventDefault();
      this.zoomBy(Math.exp(-ev.deltaY * (ev.deltaMode === 1 ? 0.05 : 0.0015)), ev.clientX, ev.clientY);
    }, { passive: false });
    const pointers = new Map();
    let start = null;
    svg.addEventListener("pointerdown", (ev) => {
      pointers.set(ev.pointerId, [ev.clientX, ev.clientY]);
      this.suppressClick = false;
      start = { vb: { ...this.vb }, pts: new Map(pointers), moved: 0 };
    });
    svg.addEventListener("pointermove", (ev) => {
      if (!pointers.has(ev.pointerId) || !start) return;
      pointers.set(ev.pointerId, [ev.clientX, ev.clientY]);
      const [, , scale] = this.toWorld(ev.clientX, ev.clientY);
      if (pointers.size === 1) {
        const [sx, sy] = start.pts.get(ev.pointerId) || [ev.clientX, ev.clientY];
        const dx = ev.clientX - sx, dy = ev.clientY - sy;
        start.moved = Math.max(start.moved, Math.hypot(dx, dy));
        if (start.moved > 6) {
          this.suppressClick = true;
          this.beforeReveal = null;
          this.fitted = false;
          if (!svg.hasPointerCapture(ev.pointerId)) svg.setPointerCapture(ev.pointerId);
          const s = Math.min(this.svg.getBoundingClientRect().width / start.vb.w, this.svg.getBoundingClientRect().height / start.vb.h) || scale;
          this.vb = { ...start.vb, x: start.vb.x - dx / s, y: start.vb.y - dy / s };
          this.applyViewBox();
        }
      } else if (pointers.size === 2) {
        const [a, b] = [...pointers.values()];
        const [a0, b0] = [...start.pts.values()];
        if (!a0 || !b0) return;
        const d0 = Math.hypot(a0[0] - b0[0], a0[1] - b0[1]), d1 = Math.hypot(a[0] - b[0], a[1] - b[1]);
        if (d0 > 10) {
          this.suppressClick = true;
          this.vb = { ...start.vb };
          this.zoomBy(d1 / d0, (a[0] + b[0]) / 2, (a[1] + b[1]) / 2);
        }
      }
    });
    const end = (ev) => {
      pointers.delete(ev.pointerId);
      start = pointers.size ? { vb: { ...this.vb }, pts: new Map(pointers), moved: 99 } : null;
    };
    svg.addEventListener("pointerup", end);
    svg.addEventListener("pointercancel", end);
  }
}
