// Map geometry: project the cities' latitude/longitude, relax the layout a little so that every
// route has room for its train spaces, and describe each route lane as a curve that can be cut
// into spaces. Pure functions (no DOM), deterministic for a given map.

export const SPACE = 32; // world units per train space (the SVG viewBox scales it to the screen)

/** Mercator projection in radians (y grows southwards, like SVG). */
export function mercator(lat, lon) {
  const phi = (lat * Math.PI) / 180;
  return [(lon * Math.PI) / 180, -Math.log(Math.tan(Math.PI / 4 + phi / 2))];
}

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : 1;
}

/** Distance from point p to segment ab, and the parameter of the nearest point. */
export function pointSegment(p, a, b) {
  const dx = b[0] - a[0], dy = b[1] - a[1];
  const len2 = dx * dx + dy * dy || 1e-9;
  let t = ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / len2;
  t = Math.max(0, Math.min(1, t));
  const x = a[0] + t * dx, y = a[1] + t * dy;
  return [Math.hypot(p[0] - x, p[1] - y), t];
}

/**
 * Relaxation steps moving `pos` in place: each connection pulls towards its length in spaces (a connection
 * longer than that pulls with `slack` times the force), each city is held by a spring to `homeAt(step)`, and
 * cities too close to each other (or lying on someone else's route) are pushed apart.
 *
 * Written for speed (it is most of a board's first render): flat Float64Arrays, no allocation per step, and the
 * exact distance (Math.hypot) is only taken for pairs whose squared distance may be under the threshold. The
 * arithmetic and its order are those of the plain version, so the layout is the same to the last bit.
 */
function relax(pos, edges, homeAt, { steps, anchor, slack = 1, gap, minSep, clear }) {
  const n = pos.length;
  const X = new Float64Array(n), Y = new Float64Array(n), FX = new Float64Array(n), FY = new Float64Array(n);
  for (let i = 0; i < n; i++) { X[i] = pos[i][0]; Y[i] = pos[i][1]; }
  const m = edges.length;
  const EI = new Int32Array(m), EJ = new Int32Array(m), WANT = new Float64Array(m);
  edges.forEach((e, k) => { EI[k] = e.i; EJ[k] = e.j; WANT[k] = e.len + gap; });
  const sep2 = minSep * minSep * 1.0001, clear2 = clear * clear * 1.0001; // squared, with room for rounding
  for (let s = 0; s < steps; s++) {
    const heat = 1 - s / steps;
    const home = homeAt(s);
    FX.fill(0); FY.fill(0);
    for (let k = 0; k < m; k++) {
      const i = EI[k], j = EJ[k];
      const dx = X[j] - X[i], dy = Y[j] - Y[i];
      const d = Math.hypot(dx, dy) || 1e-6;
      const want = WANT[k];
      const f = (0.25 * (d > want ? slack : 1) * (d - want)) / d;
      FX[i] += f * dx; FY[i] += f * dy;
      FX[j] -= f * dx; FY[j] -= f * dy;
    }
    for (let i = 0; i < n; i++) {
      FX[i] += anchor * (home[i][0] - X[i]);
      FY[i] += anchor * (home[i][1] - Y[i]);
      const xi = X[i], yi = Y[i];
      for (let j = i + 1; j < n; j++) {
        const dx = X[j] - xi, dy = Y[j] - yi;
        if (dx * dx + dy * dy > sep2) continue;
        const d = Math.hypot(dx, dy) || 1e-6;
        if (d < minSep) {
          const f = (0.5 * (minSep - d)) / d;
          FX[i] -= f * dx; FY[i] -= f * dy;
          FX[j] += f * dx; FY[j] += f * dy;
        }
      }
    }
    for (let k = 0; k < m; k++) { // keep other cities off this route's line (pointSegment, inlined)
      const i = EI[k], j = EJ[k];
      const ax = X[i], ay = Y[i];
      const dx = X[j] - ax, dy = Y[j] - ay;
      const len2 = dx * dx + dy * dy || 1e-9;
      for (let c = 0; c < n; c++) {
        if (c === i || c === j) continue;
        const t = ((X[c] - ax) * dx + (Y[c] - ay) * dy) / len2; // (inside 0.05..0.95 clamping to 0..1 changes nothing)
        if (!(t > 0.05 && t < 0.95)) continue;
        const x = ax + t * dx, y = ay + t * dy;
        const ex = X[c] - x, ey = Y[c] - y;
        if (ex * ex + ey * ey > clear2) continue;
        const d = Math.hypot(ex, ey);
        if (d < clear) {
          const px = ax + t * (X[j] - ax), py = ay + t * (Y[j] - ay);
          const ux = (X[c] - px) / (d || 1e-6), uy = (Y[c] - py) / (d || 1e-6);
          const f = 0.3 * (clear - d);
          FX[c] += f * ux; FY[c] += f * uy;
          FX[i] -= 0.5 * f * ux; FY[i] -= 0.5 * f * uy;
          FX[j] -= 0.5 * f * ux; FY[j] -= 0.5 * f * uy;
        }
      }
    }
    const step = 0.2 + 0.6 * heat;
    for (let i = 0; i < n; i++) {
      X[i] += step * Math.max(-0.5, Math.min(0.5, FX[i]));
      Y[i] += step * Math.max(-0.5, Math.min(0.5, FY[i]));
    }
  }
  for (let i = 0; i < n; i++) { pos[i][0] = X[i]; pos[i][1] = Y[i]; }
}

function bounds(pos) {
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const [x, y] of pos) {
    minX = Math.min(minX, x); minY = Math.min(minY, y); maxX = Math.max(maxX, x); maxY = Math.max(maxY, y);
  }
  return { minX, minY, maxX, maxY };
}

/** How many pairs of connections (straight, between distinct cities) cross each other. */
export function crossings(edges, pos) {
  const ccw = (a, b, c) => Math.sign((c[1] - a[1]) * (b[0] - a[0]) - (b[1] - a[1]) * (c[0] - a[0]));
  let count = 0;
  for (let x = 0; x < edges.length; x++) {
    for (let y = x + 1; y < edges.length; y++) {
      const e = edges[x], f = edges[y];
      if (e.i === f.i || e.i === f.j || e.j === f.i || e.j === f.j) continue;
      const [A, B, C, D] = [pos[e.i], pos[e.j], pos[f.i], pos[f.j]];
      if (ccw(A, B, C) * ccw(A, B, D) < 0 && ccw(C, D, A) * ccw(C, D, B) < 0) count++;
    }
  }
  return count;
}

/**
 * City positions in world units. Starts from the Mercator projection scaled so that a typical
 * route is as long as its spaces, then runs a few hundred deterministic relaxation steps (relax()).
 * The map stays recognisable while a 1-space route and a 6-space route both get readable spaces.
 *
 * opts.aspect: a board narrower than this (width / height; Nordic, Märklin) is then widened east–west, as the
 * printed boards are: for 300 more steps the cities are held to their relaxed places stretched east–west (up to
 * opts.maxStretch = 2 times, reaching the aspect) and squeezed north–south (opts.squeeze = 0.75), gradually, while
 * connections may grow longer than their spaces (pulling back with a tenth of the force). If that made two
 * connections cross that did not before, the plain affine stretch of the relaxed layout is used instead.
 */
export function layoutCities(map, opts = {}) {
  const ids = map.cities.map((c) => c.id);
  const index = new Map(ids.map((id, i) => [id, i]));
  const proj = map.cities.map((c) => mercator(c.lat, c.lon));
  const pairs = new Map();
  for (const r of map.routes) {
    const i = index.get(r.a), j = index.get(r.b);
    const key = i < j ? `${i}:${j}` : `${j}:${i}`;
    const old = pairs.get(key);
    pairs.set(key, { i: Math.min(i, j), j: Math.max(i, j), len: Math.max(old ? old.len : 0, r.length) });
  }
  const edges = [...pairs.values()];
  const unit = median(edges.map((e) => Math.hypot(proj[e.i][0] - proj[e.j][0], proj[e.i][1] - proj[e.j][1]) / e.len)) || 1;
  const home = proj.map(([x, y]) => [x / unit, y / unit]);
  let pos = home.map((p) => [p[0], p[1]]);
  const params = { gap: opts.gap ?? 0.9, minSep: opts.minSep ?? 2.4, clear: opts.clear ?? 1.3 };
  relax(pos, edges, () => home, { ...params, steps: opts.steps ?? 800, anchor: opts.anchor ?? 0.01 });
  let { minX, minY, maxX, maxY } = bounds(pos);
  const stretch = opts.aspect ? Math.min(opts.maxStretch ?? 2, (opts.aspect * (maxY - minY)) / (maxX - minX || 1)) : 1;
  if (stretch > 1.02) {
    const base = pos.map((p) => [p[0], p[1]]);
    const before = crossings(edges, base);
    const ramp = opts.stretchSteps ?? 300;
    const squeeze = opts.squeeze ?? 0.75;
    const widened = (k, q = 1) => base.map(([x, y]) => [minX + (x - minX) * k, minY + (y - minY) * q]);
    relax(pos, edges, (s) => { const f = Math.min(1, s / (0.6 * ramp)); return widened(1 + (stretch - 1) * f, 1 - (1 - squeeze) * f); }, {
      ...params, steps: ramp, anchor: opts.stretchAnchor ?? 0.05, slack: opts.slack ?? 0.1,
    });
    if (crossings(edges, pos) > before) pos = widened(stretch);
    ({ minX, minY, maxX, maxY } = bounds(pos));
  }
  const margin = 2.2;
  const out = new Map();
  ids.forEach((id, i) => out.set(id, [(pos[i][0] - minX + margin) * SPACE, (pos[i][1] - minY + margin) * SPACE]));
  return { pos: out, width: (maxX - minX + 2 * margin) * SPACE, height: (maxY - minY + 2 * margin) * SPACE };
}

/** A quadratic Bézier from a to b bent by `bend` (fraction of its length, sideways). */
export function makeCurve(a, b, bend) {
  const mx = (a[0] + b[0]) / 2, my = (a[1] + b[1]) / 2;
  const dx = b[0] - a[0], dy = b[1] - a[1];
  const c = [mx - dy * bend, my + dx * bend];
  return { a, b, c };
}

export function curvePoint(cv, t) {
  const u = 1 - t;
  return [u * u * cv.a[0] + 2 * u * t * cv.c[0] + t * t * cv.b[0], u * u * cv.a[1] + 2 * u * t * cv.c[1] + t * t * cv.b[1]];
}

export function curveTangent(cv, t) {
  const dx = 2 * (1 - t) * (cv.c[0] - cv.a[0]) + 2 * t * (cv.b[0] - cv.c[0]);
  const dy = 2 * (1 - t) * (cv.c[1] - cv.a[1]) + 2 * t * (cv.b[1] - cv.c[1]);
  const d = Math.hypot(dx, dy) || 1e-9;
  return [dx / d, dy / d];
}

/** Sample a curve by arc length: returns {points:[[x,y,angle,normal]...], length}. */
export function sampleCurve(cv, offset, samples = 64) {
  const pts = [];
  for (let k = 0; k <= samples; k++) {
    const t = k / samples;
    const p = curvePoint(cv, t);
    const tg = curveTangent(cv, t);
    const nx = -tg[1], ny = tg[0];
    pts.push([p[0] + nx * offset, p[1] + ny * offset, Math.atan2(tg[1], tg[0])]);
  }
  const acc = [0];
  for (let k = 1; k < pts.length; k++) acc.push(acc[k - 1] + Math.hypot(pts[k][0] - pts[k - 1][0], pts[k][1] - pts[k - 1][1]));
  return { pts, acc, length: acc[acc.length - 1] };
}

/** Point and direction (degrees) at arc length s along a sampled curve. */
export function atLength(sampled, s) {
  const { pts, acc } = sampled;
  let k = 1;
  while (k < acc.length - 1 && acc[k] < s) k++;
  const span = acc[k] - acc[k - 1] || 1e-9;
  const f = Math.max(0, Math.min(1, (s - acc[k - 1]) / span));
  const x = pts[k - 1][0] + f * (pts[k][0] - pts[k - 1][0]);
  const y = pts[k - 1][1] + f * (pts[k][1] - pts[k - 1][1]);
  const ang = Math.atan2(pts[k][1] - pts[k - 1][1], pts[k][0] - pts[k - 1][0]);
  return [x, y, (ang * 180) / Math.PI];
}

/**
 * Lanes: for every pair of cities, the routes joining them side by side, and a bend for the pair
 * when its straight line would pass over another city. Returns Map(routeId -> {curve, offset}).
 */
export function routeLanes(map, pos, laneGap) {
  const byPair = new Map();
  for (const r of map.routes) {
    const key = r.a < r.b ? `${r.a}|${r.b}` : `${r.b}|${r.a}`;
    if (!byPair.has(key)) byPair.set(key, []);
    byPair.get(key).push(r);
  }
  const cityPts = map.cities.map((c) => [c.id, pos.get(c.id)]);
  const out = new Map();
  for (const [key, routes] of byPair) {
    const [ca, cb] = key.split("|");
    const a = pos.get(ca), b = pos.get(cb);
    const len = Math.hypot(b[0] - a[0], b[1] - a[1]);
    const width = ((routes.length - 1) / 2) * laneGap + laneGap;
    let bend = 0;
    for (const candidate of [0, 0.12, -0.12, 0.22, -0.22, 0.32, -0.32]) {
      const cv = makeCurve(a, b, candidate);
      const sm = sampleCurve(cv, 0, 24);
      let clear = true;
      for (const [id, p] of cityPts) {
        if (id === ca || id === cb) continue;
        for (let k = 1; k < sm.pts.length && clear; k++) {
          const [d] = pointSegment(p, sm.pts[k - 1], sm.pts[k]);
          if (d < width + SPACE * 0.3) clear = false;
        }
        if (!clear) break;
      }
      if (clear) { bend = candidate; break; }
      if (len < SPACE * 1.2) break;
    }
    const curve = makeCurve(a, b, bend);
    routes.sort((x, y) => (x.id < y.id ? -1 : 1));
    routes.forEach((r, i) => {
      const offset = (i - (routes.length - 1) / 2) * laneGap;
      out.set(r.id, { curve, offset, from: ca, to: cb });
    });
  }
  return out;
}

/**
 * A short key naming a layout's input: the cities (ids and coordinates, in order), the connections (ends and
 * lengths) and the options, hashed (FNV-1a, 2 × 32 bits). The same map and options give the same key in any
 * browser and in Node, so a layout computed once can be looked up by it.
 */
export function layoutKey(map, opts = {}) {
  const text = JSON.stringify([
    map.cities.map((c) => [c.id, c.lat, c.lon]),
    map.routes.map((r) => [r.a, r.b, r.length]),
    Object.keys(opts).sort().map((k) => [k, opts[k] ?? null]),
  ]);
  let h1 = 0x811c9dc5, h2 = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193) >>> 0;
    h2 = Math.imul(h2 ^ c, 0x5bd1e995) >>> 0;
  }
  return `${h1.toString(16).padStart(8, "0")}${h2.toString(16).padStart(8, "0")}`;
}

/** A layout as JSON ({pos: [[id, x, y]…], width, height}) and back: numbers round-trip exactly. */
export function storedLayout({ pos, width, height }) {
  return { pos: [...pos].map(([id, [x, y]]) => [id, x, y]), width, height };
}

function fromStored(s) {
  return { pos: new Map(s.pos.map(([id, x, y]) => [id, [x, y]])), width: s.width, height: s.height };
}

/**
 * layoutCities(map, opts), without computing it again when it is known: the layouts the server sends with a
 * built-in map (`map.layouts`, keyed by layoutKey, made by tools/board_layouts.py from this very code; a test
 * checks they are what layoutCities gives), then this browser's earlier results (localStorage), else computed
 * (a few hundred ms on a slow machine) and kept. `source` says which.
 */
export function layoutCached(map, opts = {}) {
  const key = layoutKey(map, opts);
  const pre = map.layouts && map.layouts[key];
  if (pre) return { ...fromStored(pre), key, source: "precomputed" };
  const slot = `ttr.layout.${key}`;
  try {
    const kept = typeof localStorage !== "undefined" ? localStorage.getItem(slot) : null;
    if (kept) return { ...fromStored(JSON.parse(kept)), key, source: "stored" };
  } catch { /* storage disabled or damaged: compute */ }
  const out = layoutCities(map, opts);
  try { // the 8 most recent are kept (the map editor makes a new layout at every edit)
    if (typeof localStorage !== "undefined") {
      const recent = (JSON.parse(localStorage.getItem("ttr.layouts") || "[]") || []).filter((k) => k !== key);
      recent.push(key);
      while (recent.length > 8) localStorage.removeItem(`ttr.layout.${recent.shift()}`);
      localStorage.setItem(slot, JSON.stringify(storedLayout(out)));
      localStorage.setItem("ttr.layouts", JSON.stringify(recent));
    }
  } catch { /* full, disabled or damaged: fine */ }
  return { ...out, key, source: "computed" };
}
