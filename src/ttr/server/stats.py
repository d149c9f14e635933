"""Per-player statistics of a finished game, from its record: the engine replays it and the counts come from the
engine's own events (draws, claims, tunnels, stations, passengers), the points from its final scoring
(``Game.result()``). Nothing of the rules or the scoring is re-implemented here.

``player_stats(record)`` returns one dict per seat; ``STAT_KEYS`` are the counters summed over a player's games
on the profile (averages are computed from the sums there).
"""

from __future__ import annotations

from typing import Any

from .maps import game_from_record

# counted from events, for every edition
EVENT_KEYS = (
    "turns",
    "cards_blind",
    "cards_face_up",
    "face_up_locomotives",
    "ticket_draws",
    "tickets_kept_setup",
    "tickets_kept_later",
    "routes_claimed",
    "trains_played",
    "market_resets",
)
# only on editions that have the mechanism
TUNNEL_KEYS = ("tunnels_attempted", "tunnels_failed", "tunnels_claimed")
FERRY_KEYS = ("ferries_claimed",)
STATION_KEYS = ("stations_built",)
PASSENGER_KEYS = ("passenger_moves", "merchandise_points")
# from the engine's final scoring
RESULT_KEYS = (
    "total",
    "route_points",
    "ticket_points",
    "tickets_completed",
    "tickets_failed",
    "ticket_points_won",
    "ticket_points_lost",
    "longest_path",
    "longest_path_bonus",
    "most_tickets_bonus",
)
STAT_KEYS = EVENT_KEYS + TUNNEL_KEYS + FERRY_KEYS + STATION_KEYS + PASSENGER_KEYS + RESULT_KEYS + ("won",)


def player_stats(record: dict[str, Any]) -> list[dict[str, Any]]:
    """One dict per seat: the counters above (those of mechanisms the edition lacks left out), ``rank`` and ``won``."""
    g = game_from_record(record)  # on its own map, if it carries one
    ed = g.edition
    routes = {r.id: r for r in ed.routes}
    has_tunnels = any(r.tunnel for r in ed.routes)
    has_ferries = any(r.ferry for r in ed.routes)
    has_stations = g.rules.stations > 0
    has_passengers = g.rules.passengers > 0
    keys = list(EVENT_KEYS)
    keys += TUNNEL_KEYS if has_tunnels else ()
    keys += FERRY_KEYS if has_ferries else ()
    keys += STATION_KEYS if has_stations else ()
    keys += PASSENGER_KEYS if has_passengers else ()
    out: list[dict[str, Any]] = [dict.fromkeys(keys, 0) for _ in range(g.n)]
    setup = True
    previous: int | None = None
    actors = record.get("actors") or [None] * len(record["actions"])  # who played each (setup: seats in any order)
    for action, actor in zip(record["actions"], actors, strict=True):
        p = g.current if actor is None else actor
        if not setup and p != previous:
            out[p]["turns"] += 1
        for e in g.apply(action, actor):
            d = e.public()
            kind = e.type
            who = e.player if e.player is not None else p
            s = out[who]
            if kind == "setup_done":
                setup = False
            elif kind == "draw_blind":
                s["cards_blind"] += 1
            elif kind == "draw_faceup":
                s["cards_face_up"] += 1
                if d.get("card") == "locomotive":
                    s["face_up_locomotives"] += 1
            elif kind == "market_flush":
                s["market_resets"] += 1
            elif kind == "draw_tickets":
                s["ticket_draws"] += 1
            elif kind == "keep_tickets":
                s["tickets_kept_setup" if setup else "tickets_kept_later"] += d.get("kept", 0)
            elif kind == "claim":
                route = routes[d["route"]]
                s["routes_claimed"] += 1
                s["trains_played"] += route.length
                if has_tunnels and route.tunnel:
                    s["tunnels_claimed"] += 1
                if has_ferries and route.ferry:
                    s["ferries_claimed"] += 1
            elif kind == "tunnel_reveal" and has_tunnels:
                s["tunnels_attempted"] += 1
            elif kind == "tunnel_decline" and has_tunnels:
                s["tunnels_failed"] += 1
            elif kind == "build_station" and has_stations:
                s["stations_built"] += 1
            elif kind in ("place_passenger", "move_passenger") and has_passengers and d.get("city"):
                s["passenger_moves"] += 1
        if not setup:
            previous = p
    res = g.result()
    winners = set(res.get("winners", ()))
    for p, x in enumerate(res["players"]):
        s = out[p]
        done = [t for t in x["tickets"] if t["completed"]]
        failed = [t for t in x["tickets"] if not t["completed"]]
        s.update(
            total=x["total"],
            route_points=x["route_points"],
            ticket_points=x["ticket_points"],
            tickets_completed=len(done),
            tickets_failed=len(failed),
            ticket_points_won=sum(t["points"] for t in done),
            ticket_points_lost=sum(t["points"] for t in failed),
            longest_path=x["longest_path"],
            longest_path_bonus=x["longest_path_bonus"],
            most_tickets_bonus=x["most_tickets_bonus"],
            rank=x["rank"],
            won=1 if p in winners else 0,
        )
        if has_passengers:
            s["merchandise_points"] = x["merchandise"]
    return out
