"""Cost of end-of-game scoring with train stations (Europe): ``Game.result()`` in the worst cases
we can build, and on ordinary finished games.

    python benchmarks/bench_stations.py [--repeat 20] [--json]

The station search tries every combination of one borrowed route (or none) per station, after
merging routes that join the same two parts of the owner's network. The number of combinations is
largest when the owner's network does not merge any neighbours of the station cities, so:

1. "one player, 3 hub stations, 46 tickets": player 0 owns no route and holds every ticket; its 3
   stations stand on the 3 cities with the most distinct neighbours (chosen by search); every
   route is owned by one of 4 opponents (both lanes of doubles by different opponents).
2. "five players, 3 stations each": every route owned round-robin, 15 stations on the 15 cities
   with the most neighbours, the 46 tickets dealt round-robin.
3. "finished random games": result() at the end of random-play games, 2–5 players.
Times are CPU time (``time.process_time``).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from itertools import combinations
from typing import Any

from ttr.engine import Game
from ttr.engine.scoring import best_station_routes


def distinct_neighbours(g: Game, city: int) -> int:
    return len({other for _, other in g.edition.adjacency[city]})


def worst_triple(g: Game) -> tuple[int, int, int]:
    """The 3 cities whose (1 + distinct neighbours) product is largest: the most combinations."""
    ncity = g.edition.ncities
    degree = [distinct_neighbours(g, c) for c in range(ncity)]
    return max(combinations(range(ncity), 3), key=lambda t: (1 + degree[t[0]]) * (1 + degree[t[1]]) * (1 + degree[t[2]]))


def base(players: int) -> dict[str, Any]:
    g = Game("europe", players, 3)
    while g.phase == "setup":
        g.apply(g.legal_actions()[0])
    return g.to_dict()


def position(players: int, routes: dict[str, int], stations: dict[str, int], tickets: list[list[str]]) -> Game:
    d = base(players)
    d["routes"] = routes
    d["stations"] = stations
    d["stations_left"] = [3 - sum(1 for o in stations.values() if o == p) for p in range(players)]
    held = {t for ts in tickets for t in ts}
    everything = [t for ts in d["tickets"] for t in ts] + [t for ts in d["offered"] for t in ts]
    everything += [t for deck in d["ticket_decks"].values() for t in deck] + d["removed_tickets"]
    d["tickets"] = tickets
    d["offered"] = [[] for _ in range(players)]
    d["ticket_decks"] = {k: [] for k in d["ticket_decks"]}
    d["removed_tickets"] = [t for t in everything if t not in held]
    return Game.from_dict(d)


def one_player_worst() -> tuple[Game, dict[str, Any]]:
    g = Game("europe", 5, 0)
    ed = g.edition
    hubs = worst_triple(g)
    routes: dict[str, int] = {}
    lane: dict[int, int] = {}
    for r in ed.routes:  # opponents 1-4; lanes of one double go to different opponents
        k = lane.get(r.group, 0) if r.group >= 0 else 0
        routes[r.id] = 1 + (r.index + k) % 4
        if r.group >= 0:
            lane[r.group] = k + 1
    stations = {ed.city_ids[c]: 0 for c in hubs}
    tickets = [[t.id for t in ed.tickets], [], [], [], []]
    g = position(5, routes, stations, tickets)
    combos = 1
    for c in hubs:
        combos *= 1 + distinct_neighbours(g, c)
    return g, {"stations": list(stations), "combinations": combos, "tickets": len(tickets[0])}


def five_players_worst() -> tuple[Game, dict[str, Any]]:
    g = Game("europe", 5, 0)
    ed = g.edition
    routes = {r.id: r.index % 5 for r in ed.routes}
    by_degree = sorted(range(ed.ncities), key=lambda c: -distinct_neighbours(g, c))[:15]
    stations = {ed.city_ids[c]: i % 5 for i, c in enumerate(by_degree)}
    tickets = [[t.id for t in ed.tickets[p::5]] for p in range(5)]
    return position(5, routes, stations, tickets), {"stations": len(stations), "tickets_each": [len(t) for t in tickets]}


def cpu_ms(fn: Any, repeat: int) -> dict[str, float]:
    times = []
    for _ in range(repeat):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return {"median_ms": statistics.median(times) * 1e3, "max_ms": max(times) * 1e3}


def finished_games(count: int) -> list[Game]:
    rng = random.Random(5)
    out = []
    for i in range(count):
        g = Game("europe", 2 + i % 4, 1000 + i)
        while not g.is_over:
            g.step(rng.choice(g.legal_actions()))
        out.append(g)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--games", type=int, default=100, help="finished random games to score")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows: list[dict[str, Any]] = []

    g, info = one_player_worst()
    ed = g.edition
    own = [i for i, o in enumerate(g.route_owner) if o == 0]
    cities = [c for c, o in enumerate(g.station_owner) if o == 0]
    tickets = [ed.tickets[t] for t in g.tickets[0]]
    row = {
        "case": "one player, 3 hub stations, 46 tickets",
        **info,
        "result": cpu_ms(g.result, args.repeat),
        "station_search_player0": cpu_ms(lambda: best_station_routes(ed, own, cities, g.route_owner, 0, tickets), args.repeat),
        "borrowed": g.result()["players"][0]["station_routes"],
    }
    rows.append(row)

    g, info = five_players_worst()
    rows.append({"case": "five players, 3 stations each", **info, "result": cpu_ms(g.result, args.repeat)})

    done = finished_games(args.games)
    each = []
    for game in done:  # best of 3 per game, so a garbage-collector pause is not counted as scoring
        best = float("inf")
        for _ in range(3):
            t = time.process_time()
            game.result()
            best = min(best, time.process_time() - t)
        each.append(best)
    rows.append(
        {
            "case": f"finished random games ({args.games}, 2-5 players)",
            "result": {"median_ms": statistics.median(each) * 1e3, "max_ms": max(each) * 1e3},
            "stations_built_mean": statistics.fmean(sum(1 for o in game.station_owner if o >= 0) for game in done),
        }
    )
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    for row in rows:
        extra = {k: v for k, v in row.items() if k not in ("case", "result", "station_search_player0")}
        print(f"{row['case']}: result() median {row['result']['median_ms']:.2f} ms, max {row['result']['max_ms']:.2f} ms")
        if "station_search_player0" in row:
            s = row["station_search_player0"]
            print(f"  station search alone (player 0): median {s['median_ms']:.2f} ms, max {s['max_ms']:.2f} ms")
        print(f"  {extra}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
