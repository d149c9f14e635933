// The server's list of legal actions, sorted by what the interface needs to know.

function locos(cards) {
  return (cards.locomotive || 0) + (cards.locomotive_plus4 || 0);
}

/** Payments with the fewest locomotives first, then by colour name (a stable, sensible order). */
function byLocomotives(a, b) {
  return locos(a) - locos(b) || Object.keys(a).join().localeCompare(Object.keys(b).join());
}

export function analyseLegal(legal) {
  const out = {
    any: legal.length > 0,
    blind: false,
    faceup: new Set(),
    ticketDraws: [], // draw_tickets actions (one, or one per mix)
    keep: [], // keep_tickets actions
    claims: new Map(), // route -> [cards]
    stations: new Map(), // city -> [cards]
    moves: [], // move_passenger actions
    tunnelPay: [],
    tunnelDecline: false,
    place: [], // place_passenger actions (city or null)
    pass: false,
  };
  for (const a of legal) {
    switch (a.type) {
      case "draw_blind": out.blind = true; break;
      case "draw_faceup": out.faceup.add(a.slot); break;
      case "draw_tickets": out.ticketDraws.push(a); break;
      case "keep_tickets": out.keep.push(a); break;
      case "claim":
        if (!out.claims.has(a.route)) out.claims.set(a.route, []);
        out.claims.get(a.route).push(a.cards);
        break;
      case "build_station":
        if (!out.stations.has(a.city)) out.stations.set(a.city, []);
        out.stations.get(a.city).push(a.cards);
        break;
      case "move_passenger": out.moves.push(a); break;
      case "tunnel_pay": out.tunnelPay.push(a.cards); break;
      case "tunnel_decline": out.tunnelDecline = true; break;
      case "place_passenger": out.place.push(a.city); break;
      case "pass": out.pass = true; break;
      default: break;
    }
  }
  for (const list of out.claims.values()) list.sort(byLocomotives);
  for (const list of out.stations.values()) list.sort(byLocomotives);
  out.tunnelPay.sort(byLocomotives);
  out.keepMin = out.keep.length ? Math.min(...out.keep.map((a) => a.tickets.length)) : 0;
  return out;
}
