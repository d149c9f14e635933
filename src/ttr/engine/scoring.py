"""Graph questions asked at scoring time: connectivity, the longest trail, stations' borrowed routes."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import product

from ..editions import Edition, Ticket


def components(ncities: int, edges: Iterable[tuple[int, int]]) -> list[int]:
    """Component label per city (union–find over the given edges)."""
    parent = list(range(ncities))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in edges:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb
    return [find(x) for x in range(ncities)]


def ticket_done(labels: Sequence[int], ticket: Ticket) -> bool:
    ends_b = {labels[n] for n in ticket.b_nodes}
    return any(labels[n] in ends_b for n in ticket.a_nodes)


def longest_trail(edition: Edition, owned: Sequence[int]) -> tuple[int, list[int]]:
    """Longest trail (no route used twice; cities may repeat) over the given routes, in train spaces.

    Returns (length, route indices in travel order). Exhaustive depth-first search from every city;
    the networks a player can build (≤ 45 trains) keep this in the low milliseconds.
    """
    if not owned:
        return 0, []
    routes = edition.routes
    adj: dict[int, list[tuple[int, int, int, int]]] = {}  # city -> (bit, route, other city, length)
    for bit, r in enumerate(owned):
        route = routes[r]
        adj.setdefault(route.a, []).append((1 << bit, r, route.b, route.length))
        adj.setdefault(route.b, []).append((1 << bit, r, route.a, route.length))
    best_len = 0
    best_path: list[int] = []
    path: list[int] = []

    def dfs(city: int, used: int, length: int) -> None:
        nonlocal best_len, best_path
        if length > best_len:
            best_len = length
            best_path = path.copy()
        for bit, r, other, ln in adj[city]:
            if not used & bit:
                path.append(r)
                dfs(other, used | bit, length + ln)
                path.pop()

    # Within one connected part of the network, a longest trail starts at an odd-degree city when the
    # part has one; a part with none (all even) may hold the longest trail, so all its cities are tried.
    labels = components(edition.ncities, ((routes[r].a, routes[r].b) for r in owned))
    odd_parts = {labels[c] for c, edges in adj.items() if len(edges) % 2}
    starts = [c for c, edges in adj.items() if len(edges) % 2 or labels[c] not in odd_parts]
    for city in starts:
        dfs(city, 0, 0)
    return best_len, best_path


def best_station_routes(
    edition: Edition,
    own_routes: Sequence[int],
    station_cities: Sequence[int],
    route_owner: Sequence[int],
    player: int,
    tickets: Sequence[Ticket],
) -> tuple[int, dict[int, int | None], list[bool]]:
    """Choose for each station one opponent route into its city (or none) maximising ticket points.

    Every combination is tried, after merging candidates that join the same two components of the
    player's own network (they are interchangeable). Returns (ticket points, station city ->
    borrowed route or None, completed flag per ticket).
    """
    routes = edition.routes
    n = edition.ncities
    base = components(n, ((routes[r].a, routes[r].b) for r in own_routes))

    def score_with(extra: Iterable[tuple[int, int]]) -> tuple[int, list[bool]]:
        labels = components(n, [(base[a], base[b]) for a, b in extra] + [(x, base[x]) for x in range(n)])
        done = [ticket_done(labels, t) for t in tickets]
        return sum(t.points if d else -t.points for t, d in zip(tickets, done, strict=True)), done

    best_points, best_done = score_with(())
    best: dict[int, int | None] = {c: None for c in station_cities}
    if not station_cities or not tickets:
        return best_points, best, best_done
    options: list[list[int | None]] = []
    for city in station_cities:
        seen: set[frozenset[int]] = set()
        opts: list[int | None] = [None]
        for r, _other in edition.adjacency[city]:
            owner = route_owner[r]
            if owner < 0 or owner == player:
                continue
            key = frozenset((base[routes[r].a], base[routes[r].b]))
            if len(key) == 1 or key in seen:
                continue
            seen.add(key)
            opts.append(r)
        options.append(opts)
    for combo in product(*options):
        if all(r is None for r in combo):
            continue
        pts, done = score_with((routes[r].a, routes[r].b) for r in combo if r is not None)
        # equal ticket points: the choice completing more tickets is the player's (a tie-breaker)
        if pts > best_points or (pts == best_points and sum(done) > sum(best_done)):
            best_points, best_done = pts, done
            best = dict(zip(station_cities, combo, strict=True))
    return best_points, best, best_done
