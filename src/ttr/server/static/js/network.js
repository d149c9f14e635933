// Live ticket status: is a ticket's pair of cities joined by the player's own routes (plus, where
// the edition has stations, one opponent route borrowed per station)? Same rule as the engine's
// final scoring, computed in the browser from the public board so the player sees it as they play.

function components(cityIds, edges) {
  const parent = new Map(cityIds.map((c) => [c, c]));
  const find = (x) => {
    while (parent.get(x) !== x) {
      parent.set(x, parent.get(parent.get(x)));
      x = parent.get(x);
    }
    return x;
  };
  for (const [a, b] of edges) {
    const ra = find(a), rb = find(b);
    if (ra !== rb) parent.set(ra, rb);
  }
  return (c) => find(c);
}

/** Node ids that satisfy a ticket end: the city itself, or every border point of a country area. */
export function endNodes(map, end) {
  if (map.cities.some((c) => c.id === end)) return [end];
  return map.cities.filter((c) => c.area === end).map((c) => c.id);
}

function done(map, label, ticket) {
  const bs = new Set(endNodes(map, ticket.b).map(label));
  return endNodes(map, ticket.a).some((n) => bs.has(label(n)));
}

/**
 * For each ticket: "done" (own routes), "station" (done only with a borrowed route), or "open".
 * owners: {routeId: seat}; stations: {city: seat}.
 */
export function ticketStatus(map, seat, owners, stations, tickets) {
  const ids = map.cities.map((c) => c.id);
  const byId = new Map(map.routes.map((r) => [r.id, r]));
  const own = Object.entries(owners).filter(([, o]) => o === seat).map(([id]) => byId.get(id)).filter(Boolean);
  const base = components(ids, own.map((r) => [r.a, r.b]));
  const result = tickets.map((tk) => (done(map, base, tk) ? "done" : "open"));
  result.borrowed = [];
  const myStations = Object.entries(stations).filter(([, o]) => o === seat).map(([c]) => c);
  if (!myStations.length || result.every((s) => s === "done")) return result;
  const options = myStations.map((city) => [null, ...map.routes.filter((r) => (r.a === city || r.b === city)
    && owners[r.id] !== undefined && owners[r.id] !== seat)]);
  let best = result.slice();
  best.borrowed = [];
  let bestScore = -Infinity;
  const score = (st) => st.reduce((s, x, i) => s + (x === "open" ? -tickets[i].points : tickets[i].points), 0);
  const combo = [];
  const walk = (i) => {
    if (i === options.length) {
      const extra = combo.filter(Boolean).map((r) => [r.a, r.b]);
      if (!extra.length) return;
      const label = components(ids, [...own.map((r) => [r.a, r.b]), ...extra]);
      const st = tickets.map((tk, k) => (result[k] === "done" ? "done" : done(map, label, tk) ? "station" : "open"));
      const s = score(st);
      if (s > bestScore) { bestScore = s; best = st; best.borrowed = combo.filter(Boolean).map((r) => r.id); }
      return;
    }
    for (const r of options[i]) { combo.push(r); walk(i + 1); combo.pop(); }
  };
  walk(0);
  return best;
}

/**
 * The routes of one completed path for each ticket (fewest routes, breadth first) over the player's own routes
 * and the ones their stations borrow; [] for a ticket not yet connected. status: ticketStatus()'s answer.
 */
export function ticketPaths(map, seat, owners, status, tickets) {
  const usable = new Set([...Object.entries(owners).filter(([, o]) => o === seat).map(([id]) => id), ...(status.borrowed || [])]);
  const adj = new Map();
  for (const r of map.routes) {
    if (!usable.has(r.id)) continue;
    for (const [x, y] of [[r.a, r.b], [r.b, r.a]]) {
      if (!adj.has(x)) adj.set(x, []);
      adj.get(x).push([y, r.id]);
    }
  }
  return tickets.map((tk, i) => {
    if (status[i] === "open" || status[i] === "failed") return [];
    const goal = new Set(endNodes(map, tk.b));
    const prev = new Map(endNodes(map, tk.a).map((c) => [c, null]));
    const queue = [...prev.keys()];
    while (queue.length) {
      const c = queue.shift();
      if (goal.has(c)) {
        const out = [];
        for (let at = c; prev.get(at); at = prev.get(at)[0]) out.push(prev.get(at)[1]);
        return out.reverse();
      }
      for (const [next, route] of adj.get(c) || []) {
        if (!prev.has(next)) { prev.set(next, [c, route]); queue.push(next); }
      }
    }
    return [];
  });
}
