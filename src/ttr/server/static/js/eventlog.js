// The game log in words: one sentence per event, in the current language.

import { t } from "./i18n.js";
import { cardName, paymentText } from "./cards.js";
import { cityName, findTicket, routeName, seatName, ticketLabel } from "./names.js";

function ticketName(map, id) {
  const tk = findTicket(map, id);
  return tk ? `${ticketLabel(map, tk)} (${tk.points})` : id;
}

/** Why the server closed a game (the `reason` of its game_closed event, the summary's closed_reason). */
export function closedText(reason) {
  return t(reason === "rematch_expired" ? "closed.rematch_expired" : "closed.abandoned");
}

/**
 * One event (public form, or this seat's form with its secrets) as a sentence; null to skip it.
 * showSecrets: false on a shared (hot-seat) screen, where the log must not tell one player another's cards.
 */
export function describeEvent(ev, map, summary, showSecrets = true) {
  const who = ev.player !== null && ev.player !== undefined ? seatName(summary, ev.player) : "";
  const p = { player: who };
  switch (ev.type) {
    case "game_started": return t("log.game_started");
    case "player_joined": return t("log.player_joined", { player: ev.name || who });
    case "setup_done": return t("log.setup_done", { player: seatName(summary, ev.first_player) });
    case "draw_blind": return ev.card && showSecrets ? t("log.draw_blind_mine", { ...p, card: cardName(ev.card) }) : t("log.draw_blind", p);
    case "draw_faceup": return t("log.draw_faceup", { ...p, card: cardName(ev.card) });
    case "market_flush": return t("log.market_flush");
    case "draw_tickets": return t("log.draw_tickets", { ...p, count: ev.count });
    case "keep_tickets": return ev.tickets && showSecrets && ev.tickets.length
      ? t("log.keep_tickets_mine", { ...p, count: ev.kept, returned: ev.returned, tickets: ev.tickets.map((id) => ticketName(map, id)).join(", ") })
      : t("log.keep_tickets", { ...p, count: ev.kept, returned: ev.returned });
    case "claim": return t("log.claim", { ...p, route: routeName(map, ev.route), count: ev.points, cards: paymentText(ev.cards) });
    case "tunnel_reveal": return t("log.tunnel_reveal", { ...p, route: routeName(map, ev.route), cards: (ev.revealed || []).map(cardName).join(", ") || "—", count: ev.extra });
    case "tunnel_pay": return t("log.tunnel_pay", { ...p, route: routeName(map, ev.route), cards: paymentText(ev.cards) });
    case "tunnel_decline": return t("log.tunnel_decline", { ...p, route: routeName(map, ev.route) });
    case "build_station": return t("log.build_station", { ...p, city: cityName(map, ev.city) });
    case "place_passenger": return ev.city ? t("log.place_passenger", { ...p, city: cityName(map, ev.city) }) : t("log.place_none", p);
    case "move_passenger": return t("log.move_passenger", {
      ...p, city: cityName(map, ev.city), count: ev.points,
      tokens: (ev.tokens || []).map((k) => `${cityName(map, k.city)} ${k.value}`).join(", ") || "—",
    });
    case "final_round": return t("log.final_round", { ...p, count: ev.trains });
    case "pass": return t("log.pass", p);
    case "undo": return t("log.undo", { ...p, count: ev.actions });
    case "game_over": return t("log.game_over");
    case "game_closed": return closedText(ev.reason);
    case "timeout": return ev.mode === "drop" ? t("log.timeout_dropped", p)
      : t("log.timeout_bot", { ...p, level: t(`level.${ev.level || "medium"}`) });
    case "seat_returned": return t("log.seat_returned", p);
    default: return null;
  }
}
