// The final scoring screen: every part of every player's score, each ticket won or lost, bonuses,
// stations and the routes they borrowed, merchandise, and how ties were broken.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { PLAYER_COLOURS, PLAYER_SHAPES } from "./colours.js";
import { icon } from "./icons.js";
import { cityName, findTicket, routeName, seatName, ticketLabel } from "./names.js";

function signed(n) {
  return n > 0 ? `+${n}` : String(n);
}

/** Why the players tied on points are ranked as they are, in words: the engine's explanation (`tie_breaks`
 * in the game state: each tie, the tie-breakers it looked at with every tied player's value), worded here. */
export function tieBreakNotes(ties, summary) {
  return (ties || []).map((tie) => {
    const names = tie.players.map((p) => seatName(summary, p)).join(", ");
    if (tie.shared) return t("final.tie_shared", { players: names, count: tie.total });
    const how = tie.steps.map((step) => t(`tiebreak.${step.tiebreaker}`) + ": "
      + tie.players.map((p) => `${seatName(summary, p)} ${step.values[String(p)]}`).join(", ")).join("; ");
    return t("final.tie_broken", { players: names, count: tie.total, how });
  });
}

export function finalSheet(game) {
  const v = game.view;
  const res = v.result;
  const map = game.map;
  const rules = map.rules || {};
  const players = [...res.players].sort((a, b) => a.rank - b.rank || a.player - b.player);
  const col = (p) => ({ "--player": PLAYER_COLOURS[p.player % PLAYER_COLOURS.length] });
  const row = (label, fn, cls = "") => h("tr", { class: cls }, h("th", { scope: "row" }, label), players.map((p) => h("td", {}, fn(p))));
  const rows = [
    row(t("final.routes"), (p) => String(p.route_points)),
    row(t("final.tickets"), (p) => h("div", {},
      h("div", { class: "sub-total" }, signed(p.ticket_points)),
      h("ul", { class: "final-tickets" }, (p.tickets || []).map((tk) => {
        const full = findTicket(map, tk.id) || { a: tk.id, b: "" };
        return h("li", { class: tk.completed ? "won" : "lost", dataset: { ticket: tk.id } },
          h("span", { class: "mark" }, tk.completed ? "✔" : "✘"), " ", ticketLabel(map, full), " ",
          h("b", {}, signed(tk.completed ? tk.points : -tk.points)));
      })))),
  ];
  if (rules.passengers) rows.push(row(t("final.merchandise"), (p) => String(p.merchandise)));
  rows.push(row(t("final.longest"), (p) => t("final.spaces", { count: p.longest_path })));
  if (rules.longest_path_bonus) rows.push(row(t("final.longest_bonus"), (p) => (p.longest_path_bonus ? signed(p.longest_path_bonus) : "0")));
  if (rules.most_tickets_bonus) {
    rows.push(row(t("final.completed"), (p) => String(p.tickets_completed)));
    rows.push(row(t("final.most_tickets_bonus"), (p) => (p.most_tickets_bonus ? signed(p.most_tickets_bonus) : "0")));
  } else {
    rows.push(row(t("final.completed"), (p) => String(p.tickets_completed)));
  }
  if (rules.stations) {
    rows.push(row(t("final.stations_unused"), (p) => String(p.unused_station_points)));
    rows.push(row(t("final.stations_built"), (p) => {
      const entries = Object.entries(p.station_routes || {});
      if (!entries.length) return "—";
      return h("ul", { class: "final-stations" }, entries.map(([city, route]) => h("li", {},
        cityName(map, city), ": ", route ? t("final.borrowed", { route: routeName(map, route) }) : t("final.not_used"))));
    }));
  }
  rows.push(row(t("final.total"), (p) => h("b", {}, String(p.total)), "total"));
  rows.push(row(t("final.rank"), (p) => (p.rank === 1 ? h("span", { class: "winner-rank" }, icon("trophy"), String(p.rank)) : String(p.rank)), "rank"));
  const winners = res.winners || [];
  const headline = winners.length > 1
    ? t("final.winners", { players: winners.map((w) => seatName(game.summary, w)).join(", ") })
    : t("final.winner", { player: seatName(game.summary, winners[0] ?? 0) });
  const notes = tieBreakNotes(game.state && game.state.tie_breaks, game.summary);
  const pathButtons = players.map((p) => h("button", {
    type: "button", class: `button small${game.pathOwner === p.player ? " chosen" : ""}`, style: col(p),
    onclick: () => { game.pathOwner = p.player; game.render(); },
  }, PLAYER_SHAPES[p.player % PLAYER_SHAPES.length], " ", seatName(game.summary, p.player)));
  return h("div", { class: "final-box", id: "final-scores", role: "dialog", "aria-label": t("final.title") },
    h("h2", {}, t("final.title")),
    h("p", { class: "headline", id: "final-headline" }, headline),
    h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-label": t("final.title") }, h("table", { class: "score-table" },
      h("thead", {}, h("tr", {}, h("th", {}, ""), players.map((p) => h("th", { scope: "col", style: col(p), class: "player-col" },
        h("span", { class: "player-chip" }, PLAYER_SHAPES[p.player % PLAYER_SHAPES.length]), " ", seatName(game.summary, p.player))))),
      h("tbody", {}, rows))),
    notes.length ? h("ul", { class: "tie-notes", id: "tie-notes" }, notes.map((n) => h("li", {}, n))) : null,
    h("div", { class: "path-picker" }, h("span", {}, t("final.show_path")), pathButtons),
    h("div", { class: "sheet-buttons" },
      h("button", { type: "button", class: "button", id: "final-close", onclick: () => { game.finalDismissed = true; game.render(); } }, t("final.view_board")),
      // a seat of the game (not a spectator, not the replay viewer) offers or accepts the rematch
      game.token ? h("button", { type: "button", class: "button", id: "final-rematch", title: t("final.rematch_help"), onclick: () => game.rematch() }, t("final.rematch")) : null,
      h("a", { class: "button", href: `/replay/${encodeURIComponent(game.id)}`, id: "final-replay" }, t("final.replay")),
      h("a", { class: "button", href: `/api/games/${encodeURIComponent(game.id)}/record.json`, download: `ttr-${game.id}.json` }, t("final.download")),
      h("a", { class: "button primary", href: "/" }, t("nav.lobby"))));
}
