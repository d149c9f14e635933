// Map helpers for the client. Ticket status and completed paths are not computed here: the engine sends them
// in the game state (`ticket_report`, docs/api.md), so the browser never re-implements a scoring rule.

/** Node ids that satisfy a ticket end: the city itself, or every border point of a country area. */
export function endNodes(map, end) {
  if (map.cities.some((c) => c.id === end)) return [end];
  return map.cities.filter((c) => c.area === end).map((c) => c.id);
}
