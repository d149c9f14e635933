// The board: an SVG map drawn from the map JSON (cities' coordinates, routes), with claimed routes,
// stations, passengers and merchandise on top, highlights for what the player can do, and zoom/pan
// with the mouse wheel, drag and pinch. No board art: everything is drawn from data.

import { atLength, layoutCities, routeLanes, sampleCurve, SPACE } from "./geometry.js";
import { FILL, LETTER, PLAYER_COLOURS, PLAYER_INK, PLAYER_SHAPES, patternDefs } from "./colours.js";

const NS = "http://www.w3.org/2000/svg";
const LANE = 11; // thickness of a space
const LANE_GAP = 13; // distance between parallel lanes
const CITY_R = 7.5;

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
    const { pos, width, height } = layoutCities(map, layoutOptions);
    this.pos = pos;
    this.world = { width, height };
    this.lanes = routeLanes(map, pos, LANE_GAP);
    this.routeEls = new Map();
    this.cityEls = new Map();
    this.sampled = new Map();
    this.state = { owners: {}, stations: {}, passengers: [], merchandise: {} };
    this.build();
    this.fit();
  }

  build() {
    const svg = el("svg", { class: "board-svg", xmlns: NS, role: "img" });
    this.svg = svg;
    const defs = patternDefs(NS);
    iconDefs(defs);
    svg.appendChild(defs);
    el("rect", { class: "sea", x: -5000, y: -5000, width: 10000 + this.world.width, height: 10000 + this.world.height }, svg);
    this.layerRoutes = el("g", { class: "layer-routes" }, svg);
    this.layerOverlay = el("g", { class: "layer-overlay" }, svg);
    this.layerCities = el("g", { class: "layer-cities" }, svg);
    this.layerTokens = el("g", { class: "layer-tokens" }, svg);
    this.layerLabels = el("g", { class: "layer-labels" }, svg);
    for (const r of this.map.routes) this.buildRoute(r);
    for (const c of this.map.cities) this.buildCity(c);
    this.placeLabels();
    this.host.replaceChildren(svg);
    this.tooltip = document.createElement("div");
    this.tooltip.className = "board-tooltip";
    this.tooltip.hidden = true;
    this.host.appendChild(this.tooltip);
    this.installPanZoom();
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
    const d = sm.pts.map((p, i) => `${i ? "L" : "M"}${p[0].toFixed(1)} ${p[1].toFixed(1)}`).join(" ");
    el("path", { class: "route-hit", d }, g);
    el("path", { class: "route-link", d }, g);
    el("path", { class: "route-glow", d }, g);
    const colour = r.color || "gray";
    spaces.forEach((s, k) => {
      const sg = el("g", { class: "space", transform: `translate(${s.x.toFixed(1)} ${s.y.toFixed(1)}) rotate(${s.angle.toFixed(1)})` }, g);
      el("rect", { class: "space-fill", x: -s.w / 2, y: -LANE / 2, width: s.w, height: LANE, rx: 2, fill: FILL[colour] }, sg);
      if (colour !== "gray") el("rect", { class: "cb-mark cb-pattern", x: -s.w / 2, y: -LANE / 2, width: s.w, height: LANE, rx: 2, fill: `url(#cb-${colour})` }, sg);
      if (r.ferry && k < r.ferry) el("use", { class: "ferry-icon", href: "#icon-loco", x: -7, y: -5, width: 14, height: 10 }, sg);
      if (colour !== "gray" && k === Math.floor((r.length - 1) / 2) && !(r.ferry && k < r.ferry)) {
        const txt = el("text", { class: "cb-mark cb-letter", x: 0, y: 0.5, fill: colour === "white" || colour === "yellow" || colour === "orange" ? "#111" : "#fff" }, sg);
        txt.textContent = LETTER[colour];
      }
      const car = el("g", { class: "car" }, sg);
      el("rect", { class: "car-shadow", x: -s.w / 2 - 1.8, y: -LANE / 2 - 1.8, width: s.w + 3.6, height: LANE + 3.6, rx: 4 }, car);
      el("rect", { class: "car-body", x: -s.w / 2, y: -LANE / 2, width: s.w, height: LANE, rx: 3 }, car);
      el("rect", { class: "car-window", x: -s.w / 2 + 3, y: -LANE / 2 + 2.2, width: Math.max(1, s.w - 6), height: 2.4, rx: 1 }, car);
      const mark = el("text", { class: "car-mark", x: 0, y: 0.6 }, car);
      mark.textContent = "";
    });
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

  /** Put each label where it overlaps the fewest other labels, cities and route spaces. */
  placeLabels() {
    const obstacles = [];
    for (const p of this.pos.values()) obstacles.push([p[0] - CITY_R, p[1] - CITY_R, p[0] + CITY_R, p[1] + CITY_R]);
    for (const sm of this.sampled.values()) {
      for (let k = 4; k < sm.pts.length - 4; k += 4) {
        const [x, y] = sm.pts[k];
        obstacles.push([x - 4, y - 4, x + 4, y + 4]);
      }
    }
    const overlap = (a, b) => Math.max(0, Math.min(a[2], b[2]) - Math.max(a[0], b[0])) * Math.max(0, Math.min(a[3], b[3]) - Math.max(a[1], b[1]));
    const placed = [];
    const order = [...this.map.cities].sort((a, b) => (a.area ? 1 : 0) - (b.area ? 1 : 0));
    const fs = 11;
    for (const c of order) {
      const [x, y] = this.pos.get(c.id);
      const w = c.name.length * fs * 0.56 + 4, h = fs + 2;
      const gapR = CITY_R + 3;
      const candidates = [
        [x + gapR, y - h / 2 - 2, "start"], [x - gapR - w, y - h / 2 - 2, "end"],
        [x - w / 2, y - gapR - h, "middle"], [x - w / 2, y + gapR, "middle"],
        [x + gapR * 0.7, y - gapR - h + 3, "start"], [x - gapR * 0.7 - w, y - gapR - h + 3, "end"],
        [x + gapR * 0.7, y + gapR - 3, "start"], [x - gapR * 0.7 - w, y + gapR - 3, "end"],
      ];
      let best = null;
      for (const [bx, by, anchor] of candidates) {
        const box = [bx, by, bx + w, by + h];
        let cost = 0;
        for (const o of obstacles) cost += overlap(box, o);
        for (const o of placed) cost += 3 * overlap(box, o);
        if (!best || cost < best.cost - 0.5) best = { cost, box, anchor };
      }
      placed.push(best.box);
      const [bx, by, bx2] = best.box;
      const tx = best.anchor === "start" ? bx + 2 : best.anchor === "end" ? bx2 - 2 : (bx + bx2) / 2;
      const text = el("text", { class: c.area ? "city-label area-label" : "city-label", x: tx.toFixed(1), y: (by + h - 3).toFixed(1), "text-anchor": best.anchor, "data-city": c.id }, this.layerLabels);
      text.textContent = c.name;
    }
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
  }

  // ---------------------------------------------------------------- dynamic state
  /** owners: {routeId: seat}; stations: {city: seat}; passengers: per seat list of city|null|"gone"; merchandise: {city: [top first]}. */
  setState({ owners = {}, stations = {}, passengers = [], merchandise = {} }) {
    this.state = { owners, stations, passengers, merchandise };
    for (const [id, g] of this.routeEls) {
      const seat = owners[id];
      const claimed = seat !== undefined && seat !== null;
      g.classList.toggle("claimed", claimed);
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

  /** Highlight some cities (a ticket's two ends) and dim the rest of the board while it lasts. */
  highlightCities(ids) {
    const set = new Set(ids || []);
    this.svg.classList.toggle("focus-cities", set.size > 0);
    for (const [id, g] of this.cityEls) g.classList.toggle("highlight", set.has(id));
    for (const t of this.layerLabels.children) t.classList.toggle("highlight", set.has(t.dataset.city));
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
   * `cover` (an open dialog) leaves free. Nothing moves when they are already in sight.
   */
  reveal({ cities = [], routes = [] }, cover = null) {
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

  fit() {
    this.beforeReveal = null;
    const pad = SPACE * 0.2;
    this.vb = { x: -pad, y: -pad, w: this.world.width + 2 * pad, h: this.world.height + 2 * pad };
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
