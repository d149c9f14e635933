// The dialogs of the game page. On a wide screen they are docked over the right-hand column (the
// market and the log, which cannot be used during a decision), so they never cover the map; on a
// narrow screen they are a bottom sheet and the map is panned to show what the decision is about
// above it (GameClient.focusBoard). They are rebuilt from the game state on every render, so they
// always match the server. Their body scrolls; their buttons never do.

import { copyText, h, toast } from "./dom.js";
import { cardTile } from "./cards.js";
import { editionName, has, t } from "./i18n.js";
import { cityName, describeRoute, routeName, seatName, ticketLabel } from "./names.js";
import { chooserModel, paymentChooser, quickClaimToggle, ticketNeeds } from "./payment.js";

let collapsed = null; // id of the dialog the player folded away to look at the map

/** A touch screen without hover: help says "tap", never "hover", and taps stand in for hovering. */
export function touchUi() {
  return window.matchMedia("(hover: none), (pointer: coarse)").matches; // a phone or tablet, even with a stylus or a mouse too
}

/** t(key), or its "_touch" wording on touch screens when there is one. */
export function tTouch(key, params = {}) {
  const alt = `${key}_touch`;
  return touchUi() && (has(alt) || has(`${alt}_other`)) ? t(alt, params) : t(key, params);
}

function sheetBox(id, title, body, footer = null) {
  const folded = collapsed === id;
  const toggle = h("button", {
    type: "button", class: "sheet-fold", id: "sheet-fold", "aria-expanded": folded ? "false" : "true",
    title: t(folded ? "sheet.show" : "sheet.hide"), "aria-label": t(folded ? "sheet.show" : "sheet.hide"),
    onclick: (ev) => {
      collapsed = folded ? null : id;
      const box = ev.target.closest(".sheet-box");
      box.replaceWith(sheetBox(id, title, body, footer));
    },
  }, folded ? "▴" : "▾");
  return h("div", { class: `sheet-box${folded ? " folded" : ""}`, id, role: "dialog", "aria-label": title, tabindex: "-1" },
    h("div", { class: "sheet-head" }, h("h3", {}, title), toggle),
    folded ? null : h("div", { class: "sheet-body" }, body),
    folded || !footer ? null : h("div", { class: "sheet-foot" }, footer));
}

/** What the payment chooser needs to know beside the payments: the hand, ticket needs, the route. */
export function payContext(game, route = null) {
  const v = game.view;
  return { hand: (v && v.hand) || {}, needs: ticketNeeds(game.map, v, game.mySeat), route, rules: game.map.rules || {} };
}

/** The payment shown first: the one that keeps the most valuable cards. */
export function bestPayment(game, options, route = null) {
  return options.length ? chooserModel(options, payContext(game, route)).best : 0;
}

/** The map elements a dialog is about (they must stay in sight): {cities, routes}. */
export function sheetTargets(game, node) {
  const v = game.view;
  const route = (id) => game.map.routes.find((r) => r.id === id);
  const ends = (id) => { const r = route(id); return r ? [r.a, r.b] : []; };
  switch (node && node.id) {
    case "claim-sheet": return { routes: [game.sheet.route], cities: ends(game.sheet.route) };
    case "tunnel-sheet": return { routes: [v.tunnel.route], cities: ends(v.tunnel.route) };
    case "station-sheet": return { routes: [], cities: [game.sheet.city] };
    case "station-pick-sheet": return { routes: [], cities: [...game.legal.stations.keys()] };
    case "place-sheet": return { routes: v.last_claimed ? [v.last_claimed] : [], cities: game.legal.place.filter(Boolean) };
    case "moves-sheet": return { routes: [], cities: [...new Set(game.legal.moves.map((m) => m.city))] };
    case "keep-sheet": return { routes: [], cities: (v.offered || []).flatMap((tk) => game.ticketCities(tk)) };
    default: return { routes: [], cities: [] };
  }
}

function buttons(...items) {
  return h("div", { class: "sheet-buttons" }, ...items);
}

/** The sheet for the current moment, or null: mandatory steps first, then what the player opened. */
export function currentSheet(game) {
  const v = game.view;
  if (!game.isMyTurn()) {
    game.sheet = null;
    return null;
  }
  switch (v.phase) {
    case "setup":
    case "keep_tickets":
      return game.legal.ticketDraws.length ? mixSheet(game, true) : keepSheet(game);
    case "tunnel": return tunnelSheet(game);
    case "place_passenger": return placeSheet(game);
    case "turn": break;
    default: return null;
  }
  const s = game.sheet;
  if (!s) return null;
  if (s.kind === "claim") return claimSheet(game, s);
  if (s.kind === "station-pick") return stationPickSheet(game);
  if (s.kind === "station") return stationSheet(game, s);
  if (s.kind === "moves") return movesSheet(game, s);
  if (s.kind === "mix") return mixSheet(game, false);
  return null;
}

function cancelButton(game) {
  return h("button", { type: "button", class: "button", id: "sheet-cancel", onclick: () => { game.sheet = null; game.render(); } }, t("common.cancel"));
}

function claimSheet(game, s) {
  const route = game.map.routes.find((r) => r.id === s.route);
  const name = routeName(game.map, s.route);
  const facts = describeRoute(game.map, route);
  const pay = paymentChooser(s, payContext(game, route), () => game.render());
  return sheetBox("claim-sheet", t("claim.title", { route: name }),
    [h("p", { class: "sheet-note route-facts" }, facts.startsWith(`${name}: `) ? facts.slice(name.length + 2) : facts),
      route.tunnel ? h("p", { class: "sheet-note warn small" }, t("claim.tunnel_warning")) : null,
      pay.controls],
    [pay.summary, buttons(
      h("button", {
        type: "button", class: "button primary", id: "confirm-claim",
        onclick: () => game.send({ type: "claim", route: s.route, cards: s.options[s.choice] }),
      }, t("claim.confirm")),
      cancelButton(game)),
    quickClaimToggle()]);
}

function stationPickSheet(game) {
  const cities = [...game.legal.stations.keys()];
  const cost = cities.length ? Object.values(game.legal.stations.get(cities[0])[0]).reduce((a, b) => a + b, 0) : 0;
  return sheetBox("station-pick-sheet", t("station.pick_title"),
    [h("p", { class: "sheet-note" }, tTouch("station.pick_help", { count: cost }))],
    [buttons(cancelButton(game))]);
}

function stationSheet(game, s) {
  const pay = paymentChooser(s, payContext(game), () => game.render());
  return sheetBox("station-sheet", t("station.title", { city: cityName(game.map, s.city) }),
    [h("p", { class: "sheet-note small" }, t("station.help")), pay.controls],
    [pay.summary, buttons(
      h("button", {
        type: "button", class: "button primary", id: "confirm-station",
        onclick: () => game.send({ type: "build_station", city: s.city, cards: s.options[s.choice] }),
      }, t("station.confirm")),
      cancelButton(game))]);
}

function keepSheet(game) {
  const v = game.view;
  const offered = v.offered || [];
  const key = offered.map((x) => x.id).join(",");
  if (!game.keep || game.keep.key !== key) game.keep = { key, chosen: new Set() };
  const chosen = game.keep.chosen;
  const min = game.legal.keepMin;
  const list = h("ul", { class: "offer-list" }, offered.map((tk) => {
    const item = h("li", { class: `offer${chosen.has(tk.id) ? " chosen" : ""}`, dataset: { ticket: tk.id } },
      h("label", {},
        h("input", {
          type: "checkbox", checked: chosen.has(tk.id), value: tk.id,
          onchange: (ev) => { if (ev.target.checked) chosen.add(tk.id); else chosen.delete(tk.id); game.render(); },
        }),
        h("span", { class: "ticket-name" }, ticketLabel(game.map, tk)),
        tk.deck && tk.deck !== "regular" ? h("span", { class: "tag" }, t(`deck.${tk.deck}`)) : null,
        h("span", { class: "ticket-points" }, String(tk.points))));
    game.hoverCities(item, tk);
    return item;
  }));
  const enough = chosen.size >= min;
  return sheetBox("keep-sheet", t("keep.title"),
    [h("p", { class: "sheet-note" }, tTouch("keep.help", { count: min })),
      list],
    [buttons(
      h("button", {
        type: "button", class: "button", id: "keep-all",
        onclick: () => { offered.forEach((tk) => chosen.add(tk.id)); game.render(); },
      }, t("keep.all")),
      h("button", {
        type: "button", class: "button primary", id: "confirm-keep", disabled: !enough,
        onclick: () => game.send({ type: "keep_tickets", tickets: offered.map((x) => x.id).filter((id) => chosen.has(id)).sort() }),
      }, enough ? t("keep.confirm", { count: chosen.size }) : t("keep.need", { count: min })))]);
}

function mixSheet(game, mandatory) {
  const draws = game.legal.ticketDraws;
  const label = (mix) => Object.entries(mix || {}).filter(([, n]) => n).map(([d, n]) => t("mix.part", { count: n, deck: t(`deck.${d}`) })).join(" + ");
  return sheetBox("mix-sheet", t("mix.title"),
    [h("p", { class: "sheet-note" }, t("mix.help")),
      h("div", { class: "mix-options" }, draws.map((a) => h("button", {
        type: "button", class: "button", dataset: { mix: JSON.stringify(a.mix || {}) },
        onclick: () => game.send(a),
      }, label(a.mix))))],
    mandatory ? null : [buttons(cancelButton(game))]);
}

function tunnelSheet(game) {
  const v = game.view;
  const tn = v.tunnel;
  const L = game.legal;
  const key = `${tn.route}:${JSON.stringify(L.tunnelPay)}`;
  if (!game.tunnelChoice || game.tunnelChoice.key !== key) {
    game.tunnelChoice = { key, options: L.tunnelPay, choice: bestPayment(game, L.tunnelPay), group: null };
  }
  const s = game.tunnelChoice;
  const pay = s.options.length ? paymentChooser(s, payContext(game), () => game.render()) : null;
  const byColour = tn.colour && tn.colour !== "locomotive";
  return sheetBox("tunnel-sheet", t("tunnel.title", { route: routeName(game.map, tn.route) }),
    [h("div", { class: "revealed" }, h("span", {}, t("tunnel.revealed")), (tn.revealed || []).map((k) => cardTile(k, { small: true }))),
      h("p", { class: "sheet-note" }, byColour ? t("tunnel.extra", { count: tn.extra, colour: t(`colour.${tn.colour}`) }) : t("tunnel.extra_locomotives", { count: tn.extra })),
      pay ? pay.controls : h("p", { class: "sheet-note warn" }, t("tunnel.cannot_pay"))],
    [pay ? pay.summary : null, buttons(
      s.options.length ? h("button", {
        type: "button", class: "button primary", id: "tunnel-pay",
        onclick: () => game.send({ type: "tunnel_pay", cards: s.options[s.choice] }),
      }, t("tunnel.pay")) : null,
      h("button", { type: "button", class: "button", id: "tunnel-decline", onclick: () => game.send({ type: "tunnel_decline" }) }, t("tunnel.decline")))]);
}

function placeSheet(game) {
  const cities = game.legal.place.filter(Boolean);
  return sheetBox("place-sheet", t("place.title"),
    [h("p", { class: "sheet-note" }, tTouch("place.help"))],
    [buttons(
      ...cities.map((c) => h("button", { type: "button", class: "button primary", dataset: { city: c }, onclick: () => game.send({ type: "place_passenger", city: c }) },
        t("place.at", { city: cityName(game.map, c) }))),
      h("button", { type: "button", class: "button", id: "place-none", onclick: () => game.send({ type: "place_passenger", city: null }) }, t("place.none")))]);
}

/** Tokens a passenger trip would collect, by the same rule as the engine (top of each stack; once per city by default). */
export function tripTokens(map, view, move) {
  const once = !map.rules || map.rules.passenger_one_token_per_city !== false;
  const taken = new Map();
  const visited = new Set([move.city]);
  const out = [];
  let here = move.city;
  for (const rid of move.path) {
    const r = map.routes.find((x) => x.id === rid);
    if (!r) break;
    here = r.a === here ? r.b : r.a;
    if (once && visited.has(here)) continue;
    visited.add(here);
    const stack = (view.merchandise || {})[here] || [];
    const k = taken.get(here) || 0;
    if (k < stack.length) {
      out.push({ city: here, value: stack[k] });
      taken.set(here, k + 1);
    }
  }
  return out;
}

function movesSheet(game, s) {
  const v = game.view;
  const moves = s.from ? game.legal.moves.filter((m) => m.city === s.from) : game.legal.moves;
  const items = moves.map((m, i) => {
    const tokens = tripTokens(game.map, v, m);
    const total = tokens.reduce((a, x) => a + x.value, 0);
    const stops = [m.city];
    let here = m.city;
    for (const rid of m.path) {
      const r = game.map.routes.find((x) => x.id === rid);
      here = r.a === here ? r.b : r.a;
      stops.push(here);
    }
    const foreign = (m.cards && m.cards.passenger) || 0;
    const li = h("li", { class: "move-option", dataset: { index: String(i) } },
      h("div", { class: "move-path" }, stops.map((c) => cityName(game.map, c)).join(" → ")),
      h("div", { class: "move-info" },
        t("passenger.tokens", { tokens: tokens.map((x) => `${cityName(game.map, x.city)} ${x.value}`).join(", ") || "—", count: total }),
        foreign ? ` · ${t("passenger.foreign", { count: foreign })}` : ""),
      h("button", { type: "button", class: "button primary", onclick: () => game.send(m) }, t("passenger.go", { count: total })));
    const on = () => { s.hover = m; game.renderBoard(); game.board.reveal({ routes: m.path }, game.sheetCover()); };
    const off = () => { if (s.hover === m && !s.pinned) { s.hover = null; game.renderBoard(); } };
    li.addEventListener("pointerenter", (ev) => { if (ev.pointerType !== "touch") on(); });
    li.addEventListener("pointerleave", (ev) => { if (ev.pointerType !== "touch") off(); });
    li.addEventListener("focusin", on);
    li.addEventListener("click", (ev) => { // a tap shows the trip and keeps it shown (touch screens have no hover)
      if (ev.target.closest("button")) return;
      s.pinned = !(s.pinned && s.hover === m);
      if (s.pinned) on(); else { s.hover = null; game.renderBoard(); }
      for (const x of li.parentNode.children) x.classList.toggle("shown", x === li && s.pinned);
    });
    if (s.pinned && s.hover === m) li.classList.add("shown");
    return li;
  });
  return sheetBox("moves-sheet", t("passenger.title"),
    [h("p", { class: "sheet-note" }, tTouch("passenger.help")),
      h("ul", { class: "move-list" }, items)],
    [buttons(cancelButton(game))]);
}

// ---------------------------------------------------------------- waiting room (game not started)
export function waitingRoom(game) {
  const sum = game.summary;
  const invites = (JSON.parse(localStorage.getItem("ttr.invites") || "{}") || {})[game.id] || [];
  const mySeatJoined = game.mySeat !== null && sum.seats[game.mySeat] && sum.seats[game.mySeat].joined;
  const box = h("div", { class: "waiting-box", id: "waiting-room" }, h("h2", {}, t("waiting.title")),
    h("ul", { class: "seat-status" }, sum.seats.map((s) => h("li", {},
      h("span", { class: "player-name" }, seatName(sum, s.seat)),
      h("span", { class: `tag ${s.joined ? "ok" : ""}` }, s.type === "bot" ? t("player.bot") : s.joined ? t("waiting.joined") : t("waiting.free"))))));
  const freeSeat = sum.public && sum.seats.some((s) => s.type === "human" && !s.joined);
  if ((game.token && game.mySeat !== null && !mySeatJoined) || (!game.token && freeSeat)) {
    const input = h("input", { type: "text", id: "join-name", maxlength: "32", placeholder: t("lobby.your_name"), value: localStorage.getItem("ttr.name") || "" });
    box.append(h("form", {
      class: "join-form", onsubmit: (ev) => {
        ev.preventDefault();
        const name = input.value.trim();
        if (!name) { toast(t("lobby.name_needed"), "error"); return; }
        localStorage.setItem("ttr.name", name);
        game.join(name);
      },
    }, h("label", {}, t("waiting.your_name"), input), h("button", { type: "submit", class: "button primary", id: "join-button" }, t("waiting.join"))));
  }
  if (invites.length) {
    box.append(h("h3", {}, t("lobby.invites")), h("ul", { class: "invite-list" }, invites.map((inv) => {
      const url = new URL(inv.join_url, location.href).href;
      return h("li", {}, h("span", {}, t("lobby.seat_n", { n: inv.seat + 1 })), h("input", { type: "text", readonly: true, value: url }),
        h("button", { type: "button", class: "button", onclick: async () => toast(await copyText(url) ? t("common.copied") : url, "ok") }, t("common.copy")));
    })));
  }
  box.append(h("p", { class: "sheet-note" }, t("waiting.help")));
  return box;
}

// ---------------------------------------------------------------- help
export function showHelp(game) {
  const r = game.map.rules || {};
  const lines = [t("help.goal"), t("help.turn"), tTouch("help.draw"), tTouch("help.claim"), tTouch("help.tickets")];
  if (r.locomotives_wild === "ferries_and_tunnels") lines.push(t("help.nordic_locos"));
  if (game.map.routes.some((x) => x.tunnel)) lines.push(t("help.tunnels"));
  if (game.map.routes.some((x) => x.ferry)) lines.push(t(r.ferry_substitute_cards ? "help.ferries_substitute" : "help.ferries", { count: r.ferry_substitute_cards }));
  if (r.stations) lines.push(tTouch("help.stations", { count: r.stations, points: r.unused_station_points }));
  if (r.passengers) lines.push(t("help.passengers", { count: r.passengers }));
  const v = game.view;
  const seen = (kind) => !!(v && ((v.hand && v.hand[kind]) || (v.market || []).includes(kind) || (v.discard && v.discard[kind])));
  if (seen("locomotive_plus4")) lines.push(t("help.plus4", { count: r.plus4_min_length }));
  if ((game.map.cities || []).some((c) => c.area)) lines.push(t("help.areas"));
  lines.push(t("help.end", { count: r.end_trigger_trains ?? 2 }));
  if (r.longest_path_bonus) lines.push(t("help.longest", { count: r.longest_path_bonus }));
  if (r.most_tickets_bonus) lines.push(t("help.most_tickets", { count: r.most_tickets_bonus }));
  lines.push(tTouch("help.board"), t("help.colourblind"));
  if (!touchUi()) lines.push(t("help.keys"));
  const overlay = h("div", { class: "modal", id: "help", role: "dialog", "aria-label": t("game.help"), onclick: (ev) => { if (ev.target === overlay) overlay.remove(); } },
    h("div", { class: "modal-box" },
      h("h2", {}, t("help.title", { edition: editionName(game.summary.edition, game.summary.edition_name) })),
      h("ul", { class: "help-list" }, lines.map((x) => h("li", {}, x))),
      quickClaimToggle(),
      buttons(h("button", { type: "button", class: "button primary", onclick: () => overlay.remove() }, t("common.close")))));
  document.body.append(overlay);
  overlay.querySelector(".modal-box .button.primary").focus(); // Enter or Escape closes it
}

