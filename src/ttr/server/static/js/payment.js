// The payment chooser of the claim, tunnel and station dialogs. It offers exactly the payments the
// server listed as legal actions (never one of its own): grouped by colour, then adjusted with
// steppers (locomotives, Nordic's 3-for-1 ferry sets, Murmansk–Lieksa's 4-for-1 sets), every option
// readable as text ("3 blue + 1 locomotive"). The payment chosen first is the one that keeps the most
// valuable cards (see rankPayments and docs/client.md, "Paying").

import { h } from "./dom.js";
import { cardName } from "./cards.js";
import { CARD_COLOURS } from "./colours.js";
import { t } from "./i18n.js";
import { endNodes } from "./network.js";

const QUICK_KEY = "ttr.quickClaim";
const WILD = "locomotive";

/** The preference "claim without confirming when there is a single payment" (off by default). */
export function quickClaim() {
  return localStorage.getItem(QUICK_KEY) === "1";
}

export function setQuickClaim(on) {
  localStorage.setItem(QUICK_KEY, on ? "1" : "0");
}

export function quickClaimToggle(onchange = null) {
  return h("label", { class: "pay-quick" },
    h("input", {
      type: "checkbox", id: "quick-claim", checked: quickClaim(),
      onchange: (ev) => { setQuickClaim(ev.target.checked); if (onchange) onchange(); },
    }),
    h("span", {}, t("pay.quick")));
}

const count = (cards, k) => (cards && cards[k]) || 0;
const total = (cards) => Object.values(cards || {}).reduce((a, b) => a + b, 0);
const colourParts = (cards) => CARD_COLOURS.filter((k) => count(cards, k) > 0);

/** "3 blue + 1 locomotive": colours (most cards first), then +4 locomotives, then locomotives. */
export function describePayment(cards) {
  const colours = colourParts(cards).sort((a, b) => count(cards, b) - count(cards, a));
  const kinds = [...colours, "locomotive_plus4", "locomotive", "passenger"].filter((k) => count(cards, k) > 0);
  return kinds.map((k) => t(`pay.n.${k}`, { count: cards[k] })).join(" + ");
}

/**
 * Cards of each colour that the player's unfinished tickets still need: for every ticket not yet
 * connected, the cheapest path over routes nobody else owns (own routes are free), and the printed
 * colour of each unclaimed route on it (gray routes need no particular colour).
 */
export function ticketNeeds(map, view, seat) {
  const need = {};
  if (!view || seat === null || seat === undefined) return need;
  const owners = view.routes || {};
  const adj = new Map(map.cities.map((c) => [c.id, []]));
  for (const r of map.routes) {
    const owner = owners[r.id];
    if (owner !== undefined && owner !== seat) continue;
    const w = owner === seat ? 0 : r.length;
    adj.get(r.a)?.push([r.b, w, r]);
    adj.get(r.b)?.push([r.a, w, r]);
  }
  for (const tk of view.tickets || []) {
    const from = endNodes(map, tk.a), to = new Set(endNodes(map, tk.b));
    const dist = new Map(from.map((c) => [c, 0]));
    const via = new Map();
    const todo = new Set(from);
    let end = null;
    while (todo.size) {
      let here = null;
      for (const c of todo) if (here === null || dist.get(c) < dist.get(here)) here = c;
      todo.delete(here);
      if (to.has(here)) { end = here; break; }
      for (const [next, w, r] of adj.get(here) || []) {
        const d = dist.get(here) + w;
        if (!dist.has(next) || d < dist.get(next)) { dist.set(next, d); via.set(next, [here, r]); todo.add(next); }
      }
    }
    if (end === null || dist.get(end) === 0) continue; // impossible, or already connected
    for (let c = end; via.has(c); c = via.get(c)[0]) {
      const r = via.get(c)[1];
      if (owners[r.id] === undefined && r.color && r.color !== "gray") need[r.color] = (need[r.color] || 0) + r.length;
    }
  }
  return need;
}

/**
 * The payments best first. A payment is better when it keeps more valuable cards; compared in this order:
 * 1. fewer cards in all (a Nordic 3-for-1 set spends three cards where a locomotive is worth about two draws),
 * 2. fewer locomotives (wild on every route), 3. fewer +4 locomotives (wild only on long routes),
 * 4. fewer cards that the player's unfinished tickets need (see ticketNeeds),
 * 5. cards taken from the colours held most (the colours held fewer of are kept),
 * 6. the server's order.
 * Returns the indexes into `options`.
 */
export function rankPayments(options, hand, needs = {}) {
  const held = (k) => count(hand, k);
  const cost = (cards) => {
    let shortfall = 0, spread = 0;
    for (const k of CARD_COLOURS) {
      const paid = count(cards, k);
      if (!paid) continue;
      const need = needs[k] || 0;
      shortfall += Math.max(0, need - (held(k) - paid)) - Math.max(0, need - held(k));
      spread -= paid * held(k);
    }
    return [total(cards), count(cards, WILD), count(cards, "locomotive_plus4"), shortfall, spread];
  };
  const costs = options.map(cost);
  const order = options.map((_, i) => i);
  order.sort((a, b) => {
    for (let k = 0; k < costs[a].length; k++) if (costs[a][k] !== costs[b][k]) return costs[a][k] - costs[b][k];
    return a - b;
  });
  return order;
}

/** The colour a payment is grouped under: its colour (the one with most cards), or null for wild cards only. */
function groupOf(cards) {
  const colours = colourParts(cards);
  if (!colours.length) return null;
  return colours.reduce((best, k) => (count(cards, k) > count(cards, best) ? k : best), colours[0]);
}

/**
 * The structure of the chooser for one list of payments. ctx: {hand, needs, route, rules}; route and
 * rules tell how many cards a substitution set has (to count sets: extra cards / (set size − 1)).
 */
export function chooserModel(options, ctx = {}) {
  const setSize = ctx.route ? (ctx.route.substitute || (ctx.route.ferry && ctx.rules && ctx.rules.ferry_substitute_cards) || 0) : 0;
  const length = ctx.route ? ctx.route.length : 0;
  const info = options.map((cards) => ({
    cards,
    group: groupOf(cards),
    wild: count(cards, WILD) + count(cards, "locomotive_plus4"),
    plus4: count(cards, "locomotive_plus4"),
    sets: setSize > 1 ? Math.max(0, Math.round((total(cards) - length) / (setSize - 1))) : 0,
  }));
  const rank = rankPayments(options, ctx.hand || {}, ctx.needs || {});
  const rankOf = new Map(rank.map((i, r) => [i, r]));
  const printed = ctx.route && ctx.route.color && ctx.route.color !== "gray" ? ctx.route.color : null;
  if (printed) info.forEach((x) => { x.group = printed; }); // a coloured route: one colour, whatever fills the "any" cards
  const colours = CARD_COLOURS.filter((k) => info.some((x) => x.group === k));
  const wildOnly = info.map((x, i) => (x.group === null ? i : -1)).filter((i) => i >= 0);
  // The all-locomotive payment belongs to every colour: it is where "more locomotives" ends.
  const groups = colours.length
    ? colours.map((k) => ({ key: k, items: info.map((x, i) => (x.group === k ? i : -1)).filter((i) => i >= 0).concat(wildOnly) }))
    : [{ key: null, items: wildOnly }];
  for (const g of groups) {
    g.items.sort((a, b) => rankOf.get(a) - rankOf.get(b));
    const seen = new Set(g.items.map((i) => `${info[i].wild}:${info[i].sets}`));
    g.list = seen.size < g.items.length; // two payments the steppers cannot tell apart: list them instead
    g.axes = g.list ? [] : ["wild", "sets"].filter((axis) => new Set(g.items.map((i) => info[i][axis])).size > 1);
  }
  return { info, groups, best: rank[0], rankOf, setSize };
}

/**
 * The option reached from `current` by one step along `axis` (+1 / −1) inside group `g`, or -1.
 * "Locomotives ±" keeps the number of sets when it can (the nearest locomotive count in the same row);
 * "sets ±" goes to the next number of sets, and there to the payment that keeps the most valuable cards
 * (so one more set of 3 cards gives back the locomotive it replaces).
 */
export function stepTo(model, g, current, axis, dir) {
  const other = axis === "wild" ? "sets" : "wild";
  const here = model.info[current];
  const beyond = g.items.filter((i) => (dir > 0 ? model.info[i][axis] > here[axis] : model.info[i][axis] < here[axis]));
  if (!beyond.length) return -1;
  const dist = (i) => Math.abs(model.info[i][axis] - here[axis]);
  const off = (i) => Math.abs(model.info[i][other] - here[other]);
  const sameRow = axis === "wild" ? beyond.filter((i) => off(i) === 0) : [];
  const pool = sameRow.length ? sameRow : beyond;
  const nearest = Math.min(...pool.map(dist));
  const candidates = pool.filter((i) => dist(i) === nearest);
  candidates.sort((a, b) => (axis === "wild" ? off(a) - off(b) : 0) || model.rankOf.get(a) - model.rankOf.get(b));
  return candidates[0];
}

/**
 * The chooser. state: {options, choice, group} (choice: index into options, kept by the dialog between
 * renders; group: the colour picked); ctx: see chooserModel; rerender(): redraw after a change.
 * Returns {controls, summary}: the dialog puts the summary ("Pay with 3 blue + 1 locomotive") next to its
 * buttons, which never scroll out of sight.
 */
export function paymentChooser(state, ctx, rerender) {
  const options = state.options;
  const model = chooserModel(options, ctx);
  if (state.choice === undefined || state.choice === null || !options[state.choice]) state.choice = model.best;
  let g = model.groups.find((x) => x.key === state.group && x.items.includes(state.choice));
  if (!g) g = model.groups.find((x) => x.items.includes(state.choice)) || model.groups[0];
  state.group = g.key;
  const chosen = options[state.choice];
  const pick = (i, group = state.group) => { state.choice = i; state.group = group; rerender(); };
  const parts = [];
  if (model.groups.length > 1) {
    parts.push(h("div", { class: "pay-colours", role: "group", "aria-label": t("pay.colour") },
      model.groups.map((x) => h("button", {
        type: "button", class: `pay-colour${x === g ? " chosen" : ""}`, dataset: { colour: x.key },
        "aria-pressed": x === g ? "true" : "false",
        onclick: () => pick(x.items[0], x.key),
      }, h("span", { class: `pay-swatch card-${x.key}`, "aria-hidden": "true" }), h("span", {}, cardName(x.key)),
      count(ctx.hand, x.key) ? h("span", { class: "pay-held", title: t("pay.held") }, `×${count(ctx.hand, x.key)}`) : null))));
  }
  const stepLabel = (axis) => {
    if (axis === "sets") {
      return t(ctx.route && ctx.route.substitute ? "pay.sets_substitute" : "pay.sets_ferry", { n: model.setSize });
    }
    return t(g.items.some((i) => model.info[i].plus4) ? "pay.wild_plus4" : "pay.wild");
  };
  for (const axis of g.axes) {
    const down = stepTo(model, g, state.choice, axis, -1), up = stepTo(model, g, state.choice, axis, +1);
    parts.push(h("div", { class: "pay-stepper", dataset: { axis } },
      h("span", { class: "pay-label" }, stepLabel(axis)),
      h("button", { type: "button", class: "button small pay-less", disabled: down < 0, "aria-label": `${stepLabel(axis)} −`, onclick: () => pick(down) }, "−"),
      h("output", { class: "pay-value" }, String(model.info[state.choice][axis])),
      h("button", { type: "button", class: "button small pay-more", disabled: up < 0, "aria-label": `${stepLabel(axis)} +`, onclick: () => pick(up) }, "+")));
  }
  if (g.list) {
    parts.push(h("div", { class: "pay-list", role: "radiogroup", "aria-label": t("pay.choose") }, g.items.map((i) => h("label", { class: `pay-list-item${i === state.choice ? " chosen" : ""}` },
      h("input", { type: "radio", name: "pay-list", checked: i === state.choice, onchange: () => pick(i) }),
      h("span", {}, describePayment(options[i]))))));
  }
  const plus4 = count(chosen, "locomotive_plus4");
  let note = null;
  if (plus4 >= 2) {
    const all = plus4 >= count(ctx.hand, "locomotive_plus4");
    note = h("p", { class: "sheet-note warn pay-plus4", id: "pay-plus4-note" }, plus4 === 2 && all ? t("pay.plus4_both") : t("pay.plus4_many", { count: plus4 }));
  }
  const summary = h("div", { class: "pay-summary", id: "pay-summary", dataset: { payment: JSON.stringify(chosen), options: String(options.length) }, "aria-live": "polite" },
    h("p", {}, h("span", { class: "pay-label" }, t(options.length === 1 ? "pay.only" : "pay.with")), " ", h("b", { class: "pay-text" }, describePayment(chosen))), note);
  const controls = parts.length ? h("div", { class: "pay-chooser", dataset: { options: String(options.length) } }, parts) : null;
  return { controls, summary };
}
