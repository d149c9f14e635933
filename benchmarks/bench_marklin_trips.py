"""Worst-case cost of offering Märklin passenger trips (see docs/marklin.md, "Which trips are offered").

    python benchmarks/bench_marklin_trips.py [--players 5] [--repeat 3]

Every route is claimed: the mover owns the shortest routes its 45 trains allow (29 routes, the
densest own network possible), the other players own the rest at random. The mover has three
passengers on the best-connected German cities and k passenger cards, so every claimed route of the
board is usable. Prints the CPU time of one ``legal_actions()`` call (min of --repeat, on a fresh copy)
and what the offered trips are worth (each one costs more passenger cards than the one before).
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter

from ttr.cards import CARD_NAMES, PASSENGER
from ttr.engine import Game
from ttr.engine.game import TRAIL_SEARCH_LIMIT


def crowded(players: int, passenger_cards: int, seed: int = 0) -> Game:
    g = Game("marklin", players, seed)
    ed = g.edition
    d = g.to_dict()
    rng = random.Random(seed)
    owners: dict[str, int] = {}
    trains = ed.rules.trains
    for r in sorted(ed.routes, key=lambda r: (r.length, r.index)):
        siblings = ed.group_routes[r.group] if r.group >= 0 else ()
        if r.length <= trains and not any(owners.get(ed.routes[o].id) == 0 for o in siblings):
            owners[r.id] = 0
            trains -= r.length
    for r in ed.routes:
        owners.setdefault(r.id, rng.randrange(1, players))
    rest = Counter({CARD_NAMES[i]: k for i, k in enumerate(ed.deck)})
    rest.subtract({"passenger": passenger_cards, "white": 5})
    cities = sorted((c for c in range(ed.ncities) if ed.city_area[c] is None), key=lambda c: -len(ed.adjacency[c]))
    d.update(
        routes=owners,
        phase="turn",
        current=0,
        offered=[[] for _ in range(players)],
        hands=[{"passenger": passenger_cards}] + [{} for _ in range(players - 1)],
        market=["white"] * 5,
        deck=list(rest.elements()),
        discard=[],
        passengers=[[ed.city_ids[c] for c in cities[:3]]] + [[None] * 3 for _ in range(players - 1)],
    )
    return Game.from_dict(d)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"TRAIL_SEARCH_LIMIT = {TRAIL_SEARCH_LIMIT} states per passenger")
    for k in (0, 1, 2, 3, 5, 10):
        g = crowded(args.players, k)
        times = []
        for _ in range(args.repeat):
            h = g.clone()
            start = time.process_time()
            actions = h.legal_actions()
            times.append(time.process_time() - start)
        trips = [a for a in actions if a.type == "move_passenger"]
        worth: dict[str, list[int]] = {}
        for a in trips:
            h = g.clone()
            h.apply(a)
            worth.setdefault(a.city or "", []).append(sum(h.tokens[0]))
        print(
            f"{k:2d} passenger cards: legal_actions {min(times) * 1000:6.1f} ms, {len(trips):2d} trips offered "
            f"(points, cheapest first: {'; '.join(f'{c} {v}' for c, v in worth.items())})"
        )
        assert all(a.cards[PASSENGER] <= k for a in trips)


if __name__ == "__main__":
    main()
