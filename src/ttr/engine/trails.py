"""Passenger trips (Märklin): the best trail from a passenger's city for each number of opponent routes.

A trip is a trail (no route twice; cities may repeat) over claimed routes, never entering a country
area; each opponent route costs one passenger card. Finding the best trip is a prize-collecting
trail problem with no known fast exact method, so the search is exact while it is small and
heuristic past a fixed budget of expanded states (see docs/marklin.md, "Which trips are offered"):

1. One search with every passenger card usable, on half the budget, greedy first (the richest next
   city, then own routes first). If it finishes, every result is exact (the usual case in play).
2. Otherwise exact levels: for 0, 1, 2, ... opponent routes (below the player's passenger cards) an
   exhaustive search, while it fits in the other half. These results never depend on how many
   passenger cards the player holds beyond that level.

States are the sets of routes used (the city a trail ends in follows from them: see ``search``): two
orders of the same routes have the same value (tokens taken per city follow from the routes used) and
the same future, so one is pruned before it is entered.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..editions import Edition

Trip = tuple[int, list[int]]  # (token points, route indices in travel order)


def best_trails(
    edition: Edition,
    route_owner: Sequence[int],
    merch: Sequence[Sequence[int]],
    player: int,
    start: int,
    max_foreign: int,
    one_token_per_city: bool,
    limit: int,
    read: set[int] | None = None,
    spare: set[int] | None = None,
    every_cap: list[bool] | None = None,
) -> dict[int, Trip]:
    """{opponent routes used: best trip found} for trips worth more than every cheaper one.

    `merch[c]` is city c's stack with the top token last; `limit` bounds the states expanded.
    A trip using more opponent routes is kept only if it scores more than all trips using fewer
    (spending a passenger card for nothing more is never better: cards in hand cost nothing).
    `read`, if given, receives every city whose routes' owners or merchandise the search looked at: the
    answer stays the same until a route at one of them is claimed or one of their stacks changes. When
    every search finished within its budget these are exactly the cities expanded (a step's stack is read
    only just before stepping there); otherwise also their neighbours over claimed routes.
    `spare`, if given, receives the cities of `read` where the search could have taken an opponent's route
    (it was expanded there with fewer opponent routes than it allowed, or it ran out of budget): a route
    claimed by an opponent at the other cities of `read` is never stepped on, so the answer stays the same.
    `every_cap`, if given, receives whether the answer is the same for every `max_foreign`: the search
    finished within its budget and no opponent's route leaves a city it expanded (so it never met the cap).
    """
    adjacency = edition.adjacency
    area = edition.city_area
    once = one_token_per_city
    ncities = edition.ncities
    best: dict[int, Trip] = {}
    best_value = [0] * (max_foreign + 1)  # best[f][0] (0 while there is none)
    taken = [0] * ncities  # times the current trail entered each city
    path: list[int] = []
    # city -> (route, other city, 1 if an opponent's, the route's bit in `used`, the other city's stack),
    # over claimed routes that do not enter a country area
    moves: list[list[tuple[int, int, int, int, Sequence[int]]] | None] = [None] * ncities
    open_ = [False] * ncities  # expanded with an opponent's route still allowed
    if once:
        taken[start] = 1  # never gains: with one token per city the start counts as entered

    # each route's bit in `used`, given in the order the search meets routes (so that `used` stays a small
    # integer: any numbering gives the same sets)
    bits: dict[int, int] = {}

    def links(city: int) -> list[tuple[int, int, int, int, Sequence[int]]]:
        here = []
        for ri, other in adjacency[city]:
            if route_owner[ri] >= 0 and area[other] is None:
                bit = bits.get(ri)
                if bit is None:
                    bit = bits[ri] = 1 << len(bits)
                here.append((ri, other, int(route_owner[ri] != player), bit, merch[other]))
        moves[city] = here
        return here

    def search(cap: int, budget: int) -> tuple[int, bool]:
        """Depth-first over trips with at most `cap` opponent routes; (states expanded, finished).

        A state is the set of routes used: a trail from `start` over a given set of routes ends in the
        one city other than `start` where an odd number of them meet (at `start` if there is none), so
        two orders of the same routes always end in the same city."""
        seen = {0}
        left = budget

        def dfs(city: int, used: int, foreign: int, value: int) -> None:
            nonlocal left
            left -= 1
            if foreign < cap:
                open_[city] = True
            if value > best_value[foreign]:  # never at the start (value 0)
                best_value[foreign] = value
                best[foreign] = (value, path.copy())
            here = moves[city]
            if here is None:
                here = links(city)
            steps = []
            for ri, other, f, bit, stack in here:
                if not used & bit and foreign + f <= cap:
                    k = taken[other]
                    if once:
                        gain = 0 if k or not stack else stack[-1]
                    elif k < len(stack):
                        gain = stack[-1 - k]
                    else:
                        gain = 0
                    steps.append((gain, -f, ri, other, bit))  # ri differs in every step
            if len(steps) > 1:
                steps.sort(reverse=True)
            for gain, minus_f, ri, other, bit in steps:
                if left <= 0:
                    return
                step = used | bit
                if step in seen:
                    continue
                seen.add(step)
                taken[other] += 1
                path.append(ri)
                dfs(other, step, foreign - minus_f, value + gain)
                path.pop()
                taken[other] -= 1

        if budget > 0:
            dfs(start, 0, 0, 0)
        return budget - left, left > 0

    _, finished = search(max_foreign, limit - limit // 2)
    cut = not finished
    if cut:
        exact_budget = limit // 2
        for cap in range(max_foreign):
            spent, finished = search(cap, exact_budget)
            exact_budget -= spent
            if not finished:
                break

    if read is not None:
        # Every city a search stepped to was expanded (its routes' owners read) unless the search ran out
        # of budget on arriving there, after reading its stack: only then are neighbours added.
        for city, here in enumerate(moves):
            if here is not None:
                read.add(city)
                if cut:
                    read.update([other for _, other, _, _, _ in here])
    if every_cap is not None:
        every_cap.append(not cut and not any(f for here in moves if here is not None for _, _, f, _, _ in here))
    if spare is not None:
        if cut:
            spare.update(read if read is not None else range(edition.ncities))
        else:
            spare.update([city for city, o in enumerate(open_) if o])

    out: dict[int, Trip] = {}
    top = 0
    for f in sorted(best):
        if best[f][0] > top:
            out[f] = best[f]
            top = best[f][0]
    return out
