// The first-game tutorial (docs/client.md, Tutorial): a real game against an easy bot (POST /api/games with
// "tutorial": true, dealt from a fixed seed), with a guide that says what to do next, marks the element to act on
// (a market card, the deck, a route, the ticket dialog…) and goes on when the game's state shows it was done: an
// event of ours in the log since the step began, or our tickets chosen. Every step can be skipped; "Rules" opens
// the edition's rules sheet. The guide never covers what it points at: it takes the first free place among a few
// (the left column or a corner of the board on a wide screen, the bottom or the top on a phone), and when none is
// free it pans the map with the dialogs' own helper (Board.reveal with the guide as the cover).

import { h } from "./dom.js";
import { editionName, t } from "./i18n.js";
import { routeName } from "./names.js";
import { tTouch } from "./sheets.js";

const STORE = "ttr.tutorial.";
const MARK = "tutorial-target";

/** The area two client rectangles share, in px². */
export function overlapArea(a, b) {
  const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
  const hh = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
  return w > 0 && hh > 0 ? w * hh : 0;
}

/** Has our seat played one of these event types since log sequence `since`? */
function didSince(game, since, ...types) {
  return game.log.some((e) => e.seq > since && types.includes(e.ev.type) && e.ev.player === game.mySeat);
}

const sheetEl = (game, ...ids) => (!game.els.sheet.hidden && ids.some((id) => game.els.sheet.querySelector(`#${id}`)) ? game.els.sheet : null);

/** The route of `routes` (ids) to show as the example: the longest, then the first by id. */
function exampleRoute(game, ids) {
  const routes = ids.map((id) => game.map.routes.find((r) => r.id === id)).filter(Boolean);
  routes.sort((a, b) => b.length - a.length || a.id.localeCompare(b.id));
  return routes[0] || null;
}

/** Unclaimed routes with a feature (tunnel, ferry), claimable ones first. */
function featureRoute(game, test) {
  const owned = game.view.routes || {};
  const closed = new Set(game.state.closed_routes || []);
  const free = game.map.routes.filter((r) => test(r) && owned[r.id] === undefined && !closed.has(r.id));
  const claimable = free.filter((r) => game.legal.claims.has(r.id));
  return exampleRoute(game, (claimable.length ? claimable : free).map((r) => r.id));
}

/** The steps of an edition's tutorial, in order. Each: id, action (the player must do something) or not (Next),
 * target(game) → {els, routes, cities} to mark, done(game, since) → bool, text(game) → the guide's words. */
export function tutorialSteps(map) {
  const r = map.rules || {};
  const has = (f) => map.routes.some(f);
  const steps = [];
  steps.push({
    id: "welcome", action: false,
    text: (g) => t("tutorial.welcome", { edition: editionName(g.summary.edition, g.summary.edition_name) }),
    target: () => ({}),
  });
  steps.push({
    id: "keep_first", action: true,
    text: (g) => (g.legal.ticketDraws.length ? t("tutorial.choose_mix") : tTouch("tutorial.keep_first", { count: g.legal.keepMin || r.initial_tickets?.keep_min || 2 })),
    target: (g) => ({ els: [sheetEl(g, "keep-sheet", "mix-sheet")] }),
    done: (g) => (g.view.tickets || []).length > 0,
  });
  steps.push({
    id: "market", action: true,
    text: () => tTouch("tutorial.market"),
    target: (g) => {
      const cards = [...g.els.market.querySelectorAll(".card.playable")];
      return { els: [cards.find((c) => c.dataset.kind !== "locomotive") || cards[0]] };
    },
    done: (g, since) => didSince(g, since, "draw_faceup"),
  });
  steps.push({
    id: "deck", action: true,
    text: () => tTouch("tutorial.deck"),
    target: (g) => ({ els: [g.els.deck.querySelector("#deck")] }),
    done: (g, since) => didSince(g, since, "draw_blind"),
  });
  if (r.locomotives_wild === "ferries_and_tunnels") {
    steps.push({ id: "nordic_locos", action: false, text: () => t("tutorial.nordic_locos"), target: (g) => ({ els: [g.els.hand] }) });
  }
  if (r.passengers) { // Märklin: +4 locomotives and passenger cards are in the deck
    steps.push({
      id: "plus4", action: false, text: () => t("tutorial.plus4", { count: r.plus4_min_length }),
      target: (g) => ({ els: [g.els.market.querySelector('.card[data-kind="locomotive_plus4"]') || g.els.hand.querySelector('.card[data-kind="locomotive_plus4"]')] }),
    });
  }
  steps.push({
    id: "claim", action: true,
    text: (g) => {
      if (g.isMyTurn() && g.view.phase === "second_card") return t("tutorial.second_card");
      const ex = exampleRoute(g, [...g.legal.claims.keys()]);
      if (!g.isMyTurn() || ex) return tTouch("tutorial.claim", { route: ex ? routeName(g.map, ex.id) : "" });
      return tTouch("tutorial.claim_none");
    },
    target: (g) => {
      const open = sheetEl(g, "claim-sheet", "tunnel-sheet");
      if (open) {
        const id = g.sheet && g.sheet.route || (g.view.tunnel && g.view.tunnel.route);
        const route = g.map.routes.find((x) => x.id === id);
        return { els: [open], routes: route ? [route.id] : [], cities: route ? [route.a, route.b] : [] };
      }
      if (!g.isMyTurn()) return {};
      if (g.view.phase === "second_card") return { els: [g.els.deck.querySelector("#deck")] };
      const ex = exampleRoute(g, [...g.legal.claims.keys()]);
      return ex ? { routes: [ex.id], cities: [ex.a, ex.b] } : { els: [g.els.deck.querySelector("#deck")] };
    },
    done: (g, since) => didSince(g, since, "claim", "tunnel_decline"),
  });
  if (r.passengers) {
    steps.push({
      id: "passenger", action: true, text: () => tTouch("tutorial.passenger", { count: r.passengers }),
      target: (g) => ({ els: [sheetEl(g, "place-sheet")], cities: g.view.phase === "place_passenger" && g.isMyTurn() ? g.legal.place.filter(Boolean) : [] }),
      done: (g, since) => didSince(g, since, "place_passenger"),
    });
    steps.push({ id: "move_passenger", action: false, text: () => t("tutorial.move_passenger"), target: (g) => ({ els: [g.els.actions.querySelector("#move-passenger")] }) });
  }
  if (r.stations) {
    steps.push({
      id: "station", action: true, text: () => tTouch("tutorial.station", { count: r.stations, points: r.unused_station_points }),
      target: (g) => {
        const open = sheetEl(g, "station-pick-sheet", "station-sheet");
        if (open) return { els: [open], cities: g.sheet && g.sheet.city ? [g.sheet.city] : [] };
        return g.isMyTurn() ? { els: [g.els.actions.querySelector("#build-station")] } : {};
      },
      done: (g, since) => didSince(g, since, "build_station"),
    });
  }
  if (has((x) => x.tunnel)) {
    steps.push({
      id: "tunnel", action: false, text: () => t("tutorial.tunnel"),
      target: (g) => { const x = featureRoute(g, (rt) => rt.tunnel); return x ? { routes: [x.id], cities: [x.a, x.b] } : {}; },
    });
  }
  if (has((x) => x.ferry)) {
    steps.push({
      id: "ferry", action: false,
      text: () => (r.ferry_substitute_cards ? t("tutorial.ferry_substitute", { count: r.ferry_substitute_cards }) : t("tutorial.ferry")),
      target: (g) => { const x = featureRoute(g, (rt) => rt.ferry); return x ? { routes: [x.id], cities: [x.a, x.b] } : {}; },
    });
  }
  steps.push({
    id: "draw_tickets", action: true, text: () => tTouch("tutorial.draw_tickets"),
    target: (g) => ({ els: [sheetEl(g, "mix-sheet") || g.els.deck.querySelector("#draw-tickets")] }),
    done: (g, since) => didSince(g, since, "draw_tickets"),
  });
  steps.push({
    id: "keep_more", action: true, text: () => tTouch("tutorial.keep_more"),
    target: (g) => ({ els: [sheetEl(g, "keep-sheet")] }),
    done: (g, since) => didSince(g, since, "keep_tickets"),
  });
  steps.push({ id: "finish", action: false, text: () => t("tutorial.finish"), target: () => ({}) });
  return steps;
}

export class Tutorial {
  constructor(game) {
    this.game = game;
    this.steps = tutorialSteps(game.map);
    this.key = `${STORE}${game.id}`;
    let saved = null;
    try { saved = JSON.parse(localStorage.getItem(this.key) || "null"); } catch { saved = null; }
    this.at = saved && Number.isInteger(saved.at) ? Math.min(saved.at, this.steps.length - 1) : 0;
    this.since = saved && Number.isInteger(saved.since) ? saved.since : game.logSeq;
    this.off = !!(saved && saved.off);
    this.marked = [];
    this.shownFor = null; // the step whose target was last scrolled into view
    this.node = h("aside", { class: "tutorial-guide", id: "tutorial-guide", "aria-labelledby": "tutorial-title" });
    document.body.append(this.node);
    const again = () => this.place();
    window.addEventListener("resize", again);
    window.addEventListener("scroll", again, { passive: true });
  }

  get step() { return this.steps[this.at]; }

  save() {
    localStorage.setItem(this.key, JSON.stringify({ at: this.at, since: this.since, off: this.off }));
  }

  go(at) {
    this.at = Math.max(0, Math.min(at, this.steps.length - 1));
    this.since = this.game.logSeq;
    this.shownFor = null;
    this.save();
    this.update();
  }

  end() {
    this.off = true;
    this.save();
    this.update();
  }

  /** Called after every render of the game: advance when the step's action is done, then draw and place the guide. */
  update() {
    const g = this.game;
    if (!g.state || !g.els) return;
    if (this.off || g.mySeat === null || g.view.phase === "over") { // ended, a spectator, or the score sheet's turn
      this.unmark();
      this.node.hidden = true;
      return;
    }
    while (this.step.action && this.step.done(g, this.since) && this.at < this.steps.length - 1) {
      this.at += 1;
      this.since = g.logSeq; // an action counts for the step that asked for it only
      this.shownFor = null;
      this.save();
    }
    this.render();
    this.mark();
    requestAnimationFrame(() => this.place());
  }

  render() {
    const g = this.game, s = this.step;
    const waiting = s.action && !g.isMyTurn() && g.view.phase !== "over";
    const last = this.at === this.steps.length - 1;
    this.node.hidden = false;
    this.node.dataset.step = s.id;
    const rules = h("button", { type: "button", class: "button small", id: "tutorial-rules", onclick: () => showRules(g) }, t("tutorial.rules"));
    const next = s.action
      ? h("button", { type: "button", class: "button small", id: "tutorial-skip", onclick: () => this.go(this.at + 1) }, t("tutorial.skip_step"))
      : h("button", { type: "button", class: "button small primary", id: "tutorial-next", onclick: () => (last ? this.end() : this.go(this.at + 1)) }, t(last ? "tutorial.close" : "tutorial.next"));
    this.node.replaceChildren(...[
      h("div", { class: "tutorial-head" },
        h("h2", { id: "tutorial-title" }, t("tutorial.title")),
        h("span", { class: "tutorial-count" }, t("tutorial.step_of", { n: this.at + 1, total: this.steps.length })),
        last ? null : h("button", { type: "button", class: "tutorial-end", id: "tutorial-end", title: t("tutorial.end"), "aria-label": t("tutorial.end"), onclick: () => this.end() }, "×")),
      h("p", { class: "tutorial-text", id: "tutorial-text", "aria-live": "polite" }, s.text(g)),
      waiting ? h("p", { class: "tutorial-wait", id: "tutorial-wait" }, t("tutorial.wait")) : null,
      h("div", { class: "tutorial-buttons" },
        this.at > 0 ? h("button", { type: "button", class: "button small", id: "tutorial-back", onclick: () => this.go(this.at - 1) }, t("tutorial.back")) : null,
        rules, next)].filter(Boolean));
  }

  /** What the current step points at: elements, and routes and cities of the board. */
  target() {
    const g = this.game;
    if (!g.state || !g.els) return { els: [], routes: [], cities: [] };
    const x = this.step.target(g) || {};
    return { els: (x.els || []).filter(Boolean), routes: x.routes || [], cities: x.cities || [] };
  }

  unmark() {
    for (const el of this.marked) el.classList.remove(MARK);
    this.marked = [];
  }

  mark() {
    this.unmark();
    const { els, routes, cities } = this.target();
    const board = this.game.board;
    this.marked = [...els, ...routes.map((id) => board.routeEls.get(id)), ...cities.map((id) => board.cityEls.get(id))].filter(Boolean);
    for (const el of this.marked) el.classList.add(MARK);
  }

  /** The screen boxes the guide must leave free: the marked elements, their labels, and an open dialog. */
  avoidRects() {
    const boxes = this.marked.map((el) => el.getBoundingClientRect());
    const { cities } = this.target();
    for (const id of cities) {
      const label = this.game.board.host.querySelector(`text.city-label[data-city="${id}"]`);
      if (label) boxes.push(label.getBoundingClientRect());
    }
    if (!this.game.els.sheet.hidden) boxes.push(this.game.els.sheet.getBoundingClientRect());
    return boxes.filter((b) => b.width > 0 && b.height > 0);
  }

  /** Put the guide in the first of its places that covers nothing it must leave free. */
  place() {
    const g = this.game, node = this.node;
    if (node.hidden || !g.els) return;
    const wide = window.innerWidth > 900;
    const bar = document.querySelector(".topbar");
    const top = bar ? bar.getBoundingClientRect().bottom : 0;
    const { els, routes, cities } = this.target();
    const onBoard = routes.length + cities.length > 0;
    if (this.shownFor !== this.step.id) { // a new step: bring what it points at into sight, once
      this.shownFor = this.step.id;
      if (!wide && onBoard && g.els.sheet.hidden) {
        const dy = g.board.host.getBoundingClientRect().top - top;
        if (Math.abs(dy) > 2) window.scrollBy(0, dy);
      } else if (els.length && !els.some((el) => el === g.els.sheet)) {
        const b = els[0].getBoundingClientRect();
        if (b.top < top || b.bottom > window.innerHeight) els[0].scrollIntoView({ block: "center" });
      }
    }
    const left = g.root.querySelector(".area-left"), boardArea = g.root.querySelector(".area-board");
    const L = left.getBoundingClientRect(), B = boardArea.getBoundingClientRect();
    node.style.width = wide ? `${Math.round(Math.max(240, L.width))}px` : ""; // as wide as the left column
    const w = node.offsetWidth, ht = node.offsetHeight, vh = window.innerHeight, m = 8;
    const spots = [];
    if (wide) {
      spots.push({ x: L.left, y: Math.min(L.bottom, vh) - ht }, { x: B.left + m, y: B.bottom - ht - m }, { x: B.left + m, y: B.top + m },
        { x: B.right - w - 56, y: B.bottom - ht - m }, { x: B.right - w - 56, y: B.top + m });
    } else { // a phone: the bottom of the screen; with a bottom sheet, between the board and the sheet, else the top
      const S = g.els.sheet.hidden ? null : g.els.sheet.getBoundingClientRect();
      spots.push({ x: m, y: vh - ht - m });
      if (S) spots.push({ x: m, y: B.bottom + m }, { x: m, y: S.top - ht - m });
      spots.push({ x: m, y: top + m });
    }
    const rectAt = (p) => ({ left: p.x, top: p.y, right: p.x + w, bottom: p.y + ht });
    const cost = (p) => this.avoidRects().reduce((s, b) => s + overlapArea(rectAt(p), b), 0);
    let best = spots.find((p) => cost(p) === 0);
    if (!best) { // pan the map out from under the guide, as dialogs do (on a phone with a bottom sheet: between both)
      const sheetOpen = !g.els.sheet.hidden;
      best = wide ? spots[1] : spots[sheetOpen ? spots.length - 1 : 0];
      this.put(best);
      if (onBoard && !wide && sheetOpen) g.board.reveal({ routes, cities }, g.els.sheet, node);
      else if (onBoard) g.board.reveal({ routes, cities }, node);
      if (cost(best) === 0) return;
      best = spots.reduce((a, p) => (cost(p) < cost(a) ? p : a), spots[0]);
    }
    this.put(best);
  }

  put(p) {
    this.node.style.left = `${Math.round(Math.max(0, p.x))}px`;
    this.node.style.top = `${Math.round(Math.max(0, p.y))}px`;
  }
}

// ---------------------------------------------------------------- rules sheet
/** The edition's rules on one sheet (docs/rules.md in short), in the page's language. */
export function rulesLines(map) {
  const r = map.rules || {};
  const ini = r.initial_tickets || {}, more = r.draw_tickets || {};
  const count = (pol) => (pol.count ?? Object.values(pol.deal || {}).reduce((a, b) => a + b, 0)) || 3;
  const sections = [];
  sections.push({ id: "goal", lines: [t("help.goal")] });
  sections.push({ id: "setup", lines: [
    t("rules.setup", { trains: r.trains ?? 45, cards: r.starting_hand ?? 4, count: count(ini), keep: ini.keep_min ?? 2 }),
    r.stations ? t("rules.setup_stations", { count: r.stations }) : null,
    r.passengers ? t("rules.setup_passengers", { count: r.passengers }) : null,
  ] });
  sections.push({ id: "turn", lines: [
    t("help.turn"),
    t("rules.turn_draw", { count: r.market_size ?? 5 }),
    t("rules.turn_claim"),
    t("rules.turn_tickets", { count: count(more), keep: more.keep_min ?? 1 }),
    r.stations ? t("rules.turn_station") : null,
    r.locomotive_flush ? t("rules.flush", { count: r.locomotive_flush }) : null,
  ] });
  const pts = Object.entries(r.route_points || {}).sort((a, b) => Number(a[0]) - Number(b[0]));
  sections.push({ id: "points", lines: [], table: pts });
  const ed = [];
  if (r.locomotives_wild === "ferries_and_tunnels") ed.push(t("help.nordic_locos"));
  if (map.routes.some((x) => x.tunnel)) ed.push(t("help.tunnels"));
  if (map.routes.some((x) => x.ferry)) ed.push(t(r.ferry_substitute_cards ? "help.ferries_substitute" : "help.ferries", { count: r.ferry_substitute_cards }));
  if (map.routes.some((x) => x.substitute)) ed.push(t("rules.substitute"));
  if (r.stations) ed.push(t("rules.stations", { count: r.stations, points: r.unused_station_points }));
  if (r.passengers) ed.push(t("help.passengers", { count: r.passengers }), t("help.plus4", { count: r.plus4_min_length }));
  if ((map.cities || []).some((c) => c.area)) ed.push(t("help.areas"));
  if (ed.length) sections.push({ id: "edition", lines: ed });
  sections.push({ id: "end", lines: [
    t("help.end", { count: r.end_trigger_trains ?? 2 }),
    t("rules.tickets_score"),
    r.longest_path_bonus ? t("help.longest", { count: r.longest_path_bonus }) : null,
    r.most_tickets_bonus ? t("help.most_tickets", { count: r.most_tickets_bonus }) : null,
  ] });
  for (const s of sections) s.lines = s.lines.filter(Boolean);
  return sections;
}

export function showRules(game) {
  document.querySelector(".modal")?.remove();
  const sections = rulesLines(game.map);
  const overlay = h("div", { class: "modal", id: "rules", role: "dialog", "aria-labelledby": "rules-title", onclick: (ev) => { if (ev.target === overlay) overlay.remove(); } },
    h("div", { class: "modal-box rules-box" },
      h("h2", { id: "rules-title" }, t("rules.title", { edition: editionName(game.summary.edition, game.summary.edition_name) })),
      sections.map((s) => h("section", { class: "rules-section", dataset: { section: s.id } },
        h("h3", {}, t(`rules.section_${s.id}`)),
        s.lines.length ? h("ul", { class: "help-list" }, s.lines.map((x) => h("li", {}, x))) : null,
        s.table ? h("table", { class: "rules-points" },
          h("tr", {}, h("th", { scope: "row" }, t("rules.length")), s.table.map(([n]) => h("td", {}, n))),
          h("tr", {}, h("th", { scope: "row" }, t("rules.points")), s.table.map(([, p]) => h("td", {}, String(p))))) : null)),
      h("div", { class: "sheet-buttons" }, h("button", { type: "button", class: "button primary", id: "rules-close", onclick: () => overlay.remove() }, t("common.close")))));
  document.body.append(overlay);
  overlay.querySelector("#rules-close").focus({ preventScroll: true }); // Enter or Escape closes it (GameClient.onKey); read from the top
}
