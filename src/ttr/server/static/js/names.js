// Names shown for players, cities, routes and tickets, in the current language.

import { t } from "./i18n.js";

/** A seat's display name: its chosen name, else "Player 2" / "Bot (hard)". */
export function seatName(summary, seat) {
  const s = summary && summary.seats ? summary.seats[seat] : null;
  if (s && s.name) return s.name;
  if (s && s.type === "bot") return t("seat.bot_named", { n: seat + 1, level: t(`level.${s.level || "medium"}`) });
  return t("seat.player_n", { n: seat + 1 });
}

export function cityName(map, id) {
  const c = map.cities.find((x) => x.id === id);
  if (c) return c.name;
  const area = map.cities.find((x) => x.area === id);
  return area ? area.name : id;
}

export function routeName(map, routeId) {
  const r = map.routes.find((x) => x.id === routeId);
  if (!r) return routeId;
  return `${cityName(map, r.a)} – ${cityName(map, r.b)}`;
}

/** "Denver – Kansas City: 4 orange spaces, tunnel" */
export function describeRoute(map, r) {
  const parts = [t("route.spaces", { count: r.length, colour: t(`colour.${r.color || "gray"}`) })];
  if (r.tunnel) parts.push(t("route.tunnel"));
  if (r.ferry) parts.push(t("route.ferry", { count: r.ferry }));
  if (r.substitute) parts.push(t("route.substitute", { n: r.substitute }));
  const pts = map.rules && map.rules.route_points ? map.rules.route_points[String(r.length)] : null;
  if (pts !== null && pts !== undefined) parts.push(t("route.points", { count: pts }));
  return `${routeName(map, r.id)}: ${parts.join(", ")}`;
}

export function ticketLabel(map, tk) {
  return `${cityName(map, tk.a)} – ${cityName(map, tk.b)}`;
}

export function findTicket(map, id) {
  return map.tickets.find((x) => x.id === id) || null;
}
