// The end-of-game scoring walk-through: before the score sheet, each player's score marker starts at their route
// points and moves as every ticket is counted (the ticket's cities and, when completed, the path that joins them lit
// on the map, "+n" or "−n" counted up), then the longest-path bonus (that path drawn), the most-tickets bonus
// (Globetrotter), unused stations and merchandise, as the map's rules have them. Every number is the server's
// (`view.result`, the engine's final scoring; paths from `final_report`): nothing is scored here, only added up in
// the order shown. Skip (the button or Escape) ends it at once; with reduced motion it is not played at all.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { PLAYER_COLOURS, PLAYER_SHAPES } from "./colours.js";
import { findTicket, seatName, ticketLabel } from "./names.js";
import { endNodes } from "./network.js";
import * as motion from "./motion.js";

const SVG = "http://www.w3.org/2000/svg";

function signed(n) {
  return n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "0";
}

/**
 * The steps of the walk, from the server's result: [{player, kind, points, label, cities, routes, ticket?, completed?}].
 * kind: "ticket", "longest", "most_tickets", "stations", "merchandise". The scores start at each player's route points.
 */
export function walkSteps(map, result, report) {
  const rules = map.rules || {};
  const steps = [];
  const paths = (p) => new Map(((report || [])[p] || []).map((x) => [x.id, x.path || []]));
  for (const res of result.players) {
    const own = paths(res.player);
    for (const tk of res.tickets || []) {
      const full = findTicket(map, tk.id) || { a: tk.id, b: "" };
      steps.push({
        player: res.player, kind: "ticket", ticket: tk.id, completed: !!tk.completed,
        points: tk.completed ? tk.points : -tk.points,
        label: `${ticketLabel(map, full)} ${tk.completed ? "✔" : "✘"}`,
        cities: [...endNodes(map, full.a), ...(full.b ? endNodes(map, full.b) : [])],
        routes: tk.completed ? own.get(tk.id) || [] : [],
      });
    }
  }
  for (const res of result.players) {
    if (rules.longest_path_bonus && res.longest_path_bonus) {
      steps.push({ player: res.player, kind: "longest", points: res.longest_path_bonus, cities: [], routes: res.longest_path_routes || [],
        label: `${t("final.longest_bonus")} (${t("final.spaces", { count: res.longest_path })})` });
    }
  }
  for (const res of result.players) {
    if (rules.most_tickets_bonus && res.most_tickets_bonus) {
      steps.push({ player: res.player, kind: "most_tickets", points: res.most_tickets_bonus, cities: [], routes: [],
        label: `${t("final.most_tickets_bonus")} (${t("final.completed")}: ${res.tickets_completed})` });
    }
  }
  for (const res of result.players) {
    if (rules.stations && res.unused_station_points) {
      steps.push({ player: res.player, kind: "stations", points: res.unused_station_points, cities: [], routes: [], label: t("final.stations_unused") });
    }
  }
  for (const res of result.players) {
    if (rules.passengers && res.merchandise) {
      steps.push({ player: res.player, kind: "merchandise", points: res.merchandise, cities: [], routes: [], label: t("final.merchandise") });
    }
  }
  return steps;
}

export class ScoreWalk {
  /** game: the GameClient (its board, map, summary and view.result); host: the element the panel goes in. */
  constructor(game, host, { stepMs = 1100 } = {}) {
    this.game = game;
    this.host = host;
    this.stepMs = stepMs;
    const res = game.view.result;
    this.result = res;
    this.steps = walkSteps(game.map, res, game.state.final_report);
    this.scores = new Map(res.players.map((p) => [p.player, p.route_points]));
    this.shown = []; // what each step showed (the browser tests compare it with the result)
    this.timer = null;
    this.anims = [];
    this.paths = [];
    this.active = true;
    this.done = new Promise((resolve) => { this.finish = resolve; });
    // the track's scale: every total and every score on the way fits on it
    let top = 1, low = 0;
    for (const p of res.players) {
      let s = p.route_points;
      top = Math.max(top, s, p.total);
      for (const st of this.steps.filter((x) => x.player === p.player)) { s += st.points; top = Math.max(top, s); low = Math.min(low, s); }
    }
    this.top = top;
    this.low = low;
    this.build();
  }

  build() {
    const summary = this.game.summary;
    this.caption = h("p", { class: "walk-caption", id: "walk-caption", role: "status", "aria-live": "polite" }, t("final.routes"));
    this.rows = new Map();
    const players = this.result.players.map((p) => {
      const marker = h("span", { class: "walk-marker", "aria-hidden": "true" }, PLAYER_SHAPES[p.player % PLAYER_SHAPES.length]);
      const score = h("b", { class: "walk-score" }, String(p.route_points));
      const delta = h("span", { class: "walk-delta" }, "");
      const row = h("li", { class: "walk-player", dataset: { seat: String(p.player) }, style: { "--player": PLAYER_COLOURS[p.player % PLAYER_COLOURS.length] } },
        h("span", { class: "walk-name" }, seatName(summary, p.player)), score, delta,
        h("span", { class: "walk-track" }, marker));
      this.rows.set(p.player, { row, marker, score, delta });
      return row;
    });
    this.list = h("ol", { class: "walk-steps", id: "walk-steps" });
    this.node = h("div", { class: "score-walk", id: "score-walk", role: "dialog", "aria-label": t("walk.title") },
      h("div", { class: "walk-head" }, h("h2", {}, t("walk.title")),
        h("button", { type: "button", class: "button primary", id: "walk-skip", onclick: () => this.skip() }, t("walk.skip"))),
      this.caption,
      h("ol", { class: "walk-players" }, players),
      this.list);
    this.host.replaceChildren(this.node);
    this.host.hidden = false;
  }

  /** Where a score puts the marker: px from the track's left edge. */
  place(score) {
    const width = this.trackWidth || 0;
    return ((score - this.low) / (this.top - this.low || 1)) * width;
  }

  start() {
    const first = this.rows.values().next().value;
    this.trackWidth = first ? Math.max(0, first.row.querySelector(".walk-track").getBoundingClientRect().width - 22) : 0;
    for (const [seat, r] of this.rows) r.marker.style.transform = `translateX(${this.place(this.scores.get(seat)).toFixed(1)}px)`;
    this.node.querySelector("#walk-skip").focus({ preventScroll: true });
    this.index = 0;
    this.timer = setTimeout(() => this.next(), Math.min(500, this.stepMs / 2));
    return this;
  }

  next() {
    if (!this.active) return;
    if (this.index >= this.steps.length) { this.end(); return; }
    const st = this.steps[this.index++];
    const r = this.rows.get(st.player);
    const from = this.scores.get(st.player);
    const to = from + st.points;
    this.scores.set(st.player, to);
    this.shown.push({ player: st.player, kind: st.kind, ticket: st.ticket ?? null, completed: st.completed ?? null, points: st.points,
      routes: [...st.routes], score: to });
    const name = seatName(this.game.summary, st.player);
    this.caption.textContent = `${name}: ${st.label} ${signed(st.points)}`;
    for (const [, x] of this.rows) x.row.classList.toggle("walking", x === r);
    const li = h("li", { class: `walk-step ${st.points < 0 ? "lost" : "won"}`, dataset: { player: String(st.player), kind: st.kind, ticket: st.ticket || "", points: String(st.points) },
      style: { "--player": PLAYER_COLOURS[st.player % PLAYER_COLOURS.length] } },
    h("span", { class: "player-chip", "aria-hidden": "true" }, PLAYER_SHAPES[st.player % PLAYER_SHAPES.length]), ` ${name}: ${st.label} `, h("b", {}, signed(st.points)));
    this.list.append(li);
    this.list.scrollTop = this.list.scrollHeight;
    // the map: the ticket's cities, the path that completed it (or the longest path), in the player's colour
    const colour = PLAYER_COLOURS[st.player % PLAYER_COLOURS.length];
    if (st.cities.length || st.routes.length) this.game.board.reveal({ cities: st.cities, routes: st.routes }, this.game.walkCover());
    this.drawOnMap(st, colour);
    // the marker moves and the number counts up (or down)
    const dur = Math.round(this.stepMs * 0.55);
    r.delta.textContent = signed(st.points);
    r.delta.classList.toggle("lost", st.points < 0);
    this.anims.push(motion.animate(r.marker, [
      { transform: `translateX(${this.place(from).toFixed(1)}px)` },
      { transform: `translateX(${this.place(to).toFixed(1)}px)` },
    ], { duration: dur, easing: "ease-in-out", fill: "forwards" }, "walk-marker"));
    this.anims.push(motion.animate(r.delta, [
      { transform: "translateY(4px)", opacity: 0 }, { transform: "translateY(0)", opacity: 1, offset: 0.3 }, { transform: "translateY(-6px)", opacity: 0 },
    ], { duration: this.stepMs, easing: "ease-out" }, "walk-delta"));
    const t0 = performance.now();
    const count = (now) => { // counted up (or down) one point at a time: the text changes only when the number does
      if (!this.active) return;
      const f = Math.min(1, (now - t0) / dur);
      const text = String(Math.round(from + (to - from) * f));
      if (r.score.textContent !== text) r.score.textContent = text;
      if (f < 1) requestAnimationFrame(count);
    };
    requestAnimationFrame(count);
    this.anims = this.anims.filter((a) => a && a.playState !== "finished");
    this.timer = setTimeout(() => this.next(), this.stepMs);
  }

  /**
   * The step's cities (a ring each, marked data-city) and path (data-route) in the player's colour, drawn in an SVG
   * of its own laid over the board with the board's viewBox: changing it repaints that layer only, not the board's
   * thousands of elements (which, on a busy machine, made every step a long task).
   */
  drawOnMap(st, colour) {
    const board = this.game.board;
    if (!this.layer) {
      this.layer = document.createElementNS(SVG, "svg");
      this.layer.setAttribute("class", "walk-layer");
      this.layer.setAttribute("aria-hidden", "true");
      board.host.append(this.layer);
    }
    this.layer.setAttribute("viewBox", board.svg.getAttribute("viewBox"));
    const parts = [];
    for (const id of st.routes) {
      const sm = board.sampled.get(id);
      if (!sm) continue;
      const d = sm.pts.map((p, i) => `${i ? "L" : "M"}${p[0].toFixed(1)} ${p[1].toFixed(1)}`).join(" ");
      const path = document.createElementNS(SVG, "path");
      path.setAttribute("d", d);
      path.setAttribute("class", `walk-path${st.kind === "longest" ? " longest" : ""}`);
      path.dataset.route = id;
      if (st.kind !== "longest") path.style.stroke = colour;
      parts.push(path);
    }
    for (const c of st.cities) {
      const p = board.pos.get(c);
      if (!p) continue;
      const ring = document.createElementNS(SVG, "circle");
      ring.setAttribute("cx", p[0].toFixed(1));
      ring.setAttribute("cy", p[1].toFixed(1));
      ring.setAttribute("r", "14");
      ring.setAttribute("class", "walk-city");
      ring.style.stroke = colour;
      ring.dataset.city = c;
      parts.push(ring);
    }
    this.layer.replaceChildren(...parts);
  }

  /** Skip (button, Escape): stop at once, the score sheet comes. */
  skip() {
    if (!this.active) return;
    this.end(true);
  }

  end(skipped = false) {
    if (!this.active) return;
    this.active = false;
    this.skipped = skipped;
    clearTimeout(this.timer);
    for (const a of this.anims) { try { a.cancel(); } catch { /* gone */ } }
    this.anims = [];
    this.paths = [];
    if (this.layer) this.layer.remove();
    this.host.replaceChildren();
    this.host.hidden = true;
    this.finish(this);
    this.game.walkEnded(this);
  }
}
