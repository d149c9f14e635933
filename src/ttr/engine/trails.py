"""Passenger trips (Märklin): the best trail from a passenger's city for each number of opponent routes.

A trip is a trail (no route twice; cities may repeat) over claimed routes, never entering a country
area; each opponent route costs one passenger card. Finding the best trip is a prize-collecting
trail problem with no known fast exact method, so the search is exact while it is small and
heuristic past a fixed budget of expanded states (see docs/marklin.md, "Which trips are offered"):

1. Exact levels: for 0, 1, 2, ... opponent routes (below the player's passenger cards) an exhaustive
   search, while it fits in half the budget. These results never depend on how many passenger
   cards the player holds beyond that level.
2. One search with every passenger card usable, on the rest of the budget, greedy first (the
   richest next city, then own routes first), so a cut-off search has still tried the best lines.

States are (city, routes used): two orders of the same routes ending in the same city have the same
value (tokens taken per city follow from the routes used) and the same future, so one is pruned.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..editions import Edition

Trip = tuple[int, list[int]]  # (token points, route indices in travel order)


def best_trails(edition: Edition, route_owner: Sequence[int], merch: Sequence[Sequence[int]], player: int,
                start: int, max_foreign: int, one_token_per_city: bool, limit: int) -> dict[int, Trip]:
    """{opponent routes used: best trip found} for trips worth more than every cheaper one.

    `merch[c]` is city c's stack with the top token last; `limit` bounds the states expanded.
    A trip using more opponent routes is kept only if it scores more than all trips using fewer
    (spending a passenger card for nothing more is never better: cards in hand cost nothing).
    """
    adjacency = edition.adjacency
    area = edition.city_area
    once = one_token_per_city
    best: dict[int, Trip] = {}
    taken: dict[int, int] = {}  # city -> tokens taken there on the current trail
    path: list[int] = []

    def gain(city: int) -> int:
        k = taken.get(city, 0)
        if once and (k or city == start):
            return 0
        stack = merch[city]
        return stack[-1 - k] if k < len(stack) else 0

    def search(cap: int, budget: int) -> tuple[int, bool]:
        """Depth-first over trips with at most `cap` opponent routes; (states expanded, finished)."""
        seen: set[tuple[int, int]] = set()
        left = budget

        def dfs(city: int, used: int, foreign: int, value: int) -> None:
            nonlocal left
            if left <= 0:
                return
            key = (city, used)
            if key in seen:
                return
            seen.add(key)
            left -= 1
            if path and value > best.get(foreign, (0,))[0]:
                best[foreign] = (value, path.copy())
            steps = []
            for ri, other in adjacency[city]:
                o = route_owner[ri]
                if o < 0 or used >> ri & 1 or area[other] is not None:
                    continue
                f = foreign + (o != player)
                if f <= cap:
                    steps.append((gain(other), -f, ri, other))
            steps.sort(reverse=True)
            for g, minus_f, ri, other in steps:
                count = 1 if g or not once else 0
                taken[other] = taken.get(other, 0) + count
                path.append(ri)
                dfs(other, used | 1 << ri, -minus_f, value + g)
                path.pop()
                taken[other] -= count

        dfs(start, 0, 0, 0)
        return budget - left, left > 0

    exact_budget = limit // 2
    for cap in range(max_foreign):
        spent, finished = search(cap, exact_budget)
        exact_budget -= spent
        if not finished:
            break
    search(max_foreign, limit // 2 + exact_budget)

    out: dict[int, Trip] = {}
    top = 0
    for f in sorted(best):
        if best[f][0] > top:
            out[f] = best[f]
            top = best[f][0]
    return out
