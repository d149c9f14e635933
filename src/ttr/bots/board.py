"""Map analysis for bots: route availability, shortest paths and a Steiner-style network plan.

Everything here works on plain lists (route owners, trains, tickets) so that the scripted bots can
feed it from a ``PlayerView`` and the search bot from its own sampled positions. Per-edition
tables are built once and cached.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from ..editions import Edition, Ticket, per_edition

INF = float("inf")
ROUTE_OVERHEAD = 0.6  # planning weight of one claim turn, in train-equivalents (favours fewer, longer routes)


class MapInfo:
    """Integer tables of one edition, precomputed for the bots' hot loops."""

    def __init__(self, edition: Edition) -> None:
        self.edition = edition
        routes = edition.routes
        self.nroutes = len(routes)
        self.ncities = edition.ncities
        self.route_a = [r.a for r in routes]
        self.route_b = [r.b for r in routes]
        self.length = [r.length for r in routes]
        self.colour = [r.colour for r in routes]
        self.tunnel = [r.tunnel for r in routes]
        self.ferry = [r.ferry for r in routes]
        self.group = [r.group for r in routes]
        self.points = [r.points for r in routes]
        self.adjacency = edition.adjacency
        self.group_routes = edition.group_routes
        self.is_area = [a is not None for a in edition.city_area]
        rules = edition.rules
        self.all_lanes_min_players = rules.all_lanes_min_players
        # Routes ordered by points (longest first), for point-hungry bots.
        self.by_length = sorted(range(self.nroutes), key=lambda r: (-routes[r].length, r))


@per_edition
def map_info(edition: Edition) -> MapInfo:
    """The shared ``MapInfo`` of an edition (editions are immutable)."""
    return MapInfo(edition)


def closed_groups(info: MapInfo, owner: Sequence[int], players: int, me: int) -> Iterator[tuple[int, ...]]:
    """The double routes whose lanes are closed to `me`: it owns one of them, or, below the player count
    that opens all lanes, someone does."""
    all_lanes = players >= info.all_lanes_min_players
    for members in info.group_routes:
        owners = [owner[r] for r in members]
        if me in owners or (not all_lanes and any(o >= 0 for o in owners)):
            yield members


def usable_for(info: MapInfo, owner: Sequence[int], players: int, me: int) -> list[bool]:
    """Per route: could `me` still claim it (unowned and not closed by a double-route rule)?"""
    out = [o < 0 for o in owner]
    for members in closed_groups(info, owner, players, me):
        for r in members:
            out[r] = False
    return out


def route_weights(
    info: MapInfo, owner: Sequence[int], players: int, me: int, trains: int, open_weight: Sequence[float] | None = None
) -> list[float]:
    """Planning weight per route for `me`: 0 if owned, INF if unusable (``usable_for``) or longer than
    `trains`, else its weight while open: `open_weight[r]` if given (e.g. the tempo weights of
    ``rollout.open_weights``), length + overhead otherwise."""
    length = info.length
    if open_weight is None:
        open_weight = [n + ROUTE_OVERHEAD for n in length]
    out = [INF] * info.nroutes
    for r, o in enumerate(owner):
        if o == me:
            out[r] = 0.0
        elif o < 0 and length[r] <= trains:
            out[r] = open_weight[r]
    for members in closed_groups(info, owner, players, me):
        for r in members:
            if owner[r] != me:
                out[r] = INF
    return out


def shortest_path(
    info: MapInfo,
    weights: Sequence[float],
    sources: Sequence[int],
    targets: Sequence[int],
    borrow: Sequence[float] | None = None,
    track: set[int] | None = None,
) -> tuple[float, list[int], list[int]]:
    """Cheapest path from any source to any target: (cost, routes to claim, borrowed routes).

    Routes to claim are those with weight > 0, plus zero-weight routes listed in `track` (routes
    already planned for another ticket). `borrow` optionally gives a (finite) weight for using a
    route owned by someone else through a station; such routes come back in the third list.
    Country areas are never passed through.
    """
    target_set = set(targets)
    if target_set.intersection(sources):
        return 0.0, [], []
    dist = [INF] * info.ncities
    back: list[tuple[int, int]] = [(-1, -1)] * info.ncities  # (route, previous city)
    heap: list[tuple[float, int]] = []
    for s in sources:
        dist[s] = 0.0
        heap.append((0.0, s))
    heapq.heapify(heap)
    heappop, heappush = heapq.heappop, heapq.heappush
    adjacency = info.adjacency
    is_area = info.is_area
    found = -1
    while heap:
        d, city = heappop(heap)
        if d > dist[city]:
            continue
        if city in target_set:
            found = city
            break
        if is_area[city] and d > 0:
            continue  # an area endpoint is a destination, not a through-node
        for r, other in adjacency[city]:
            w = weights[r]
            if w == INF:
                if borrow is None:
                    continue  # unusable: it could not shorten any distance
                w = borrow[r]
            nd = d + w
            if nd < dist[other]:
                dist[other] = nd
                back[other] = (r, city)
                heappush(heap, (nd, other))
    if found < 0:
        return INF, [], []
    claim: list[int] = []
    borrowed: list[int] = []
    city = found
    while back[city][0] >= 0:
        r, prev = back[city]
        if weights[r] == INF:
            borrowed.append(r)
        elif weights[r] > 0 or (track is not None and r in track):
            claim.append(r)
        city = prev
    return dist[found], claim, borrowed


@dataclass
class Plan:
    """A network over some tickets: the routes still to claim and the stations it relies on."""

    routes: list[int] = field(default_factory=list)  # unclaimed routes to claim, in ticket order
    borrowed: list[int] = field(default_factory=list)  # opponents' routes used through a station
    trains: int = 0  # trains the unclaimed routes need
    weight: float = 0.0
    done: list[int] = field(default_factory=list)  # ticket indices already connected
    open: list[int] = field(default_factory=list)  # tickets the plan serves
    dropped: list[int] = field(default_factory=list)  # tickets it cannot serve
    ticket_routes: dict[int, list[int]] = field(default_factory=dict)  # ticket -> its remaining routes
    ticket_borrowed: dict[int, list[int]] = field(default_factory=dict)


def plan_network(
    info: MapInfo,
    weights: Sequence[float],
    tickets: Sequence[Ticket],
    trains: int,
    borrow: Sequence[float] | None = None,
    stations: int = 0,
    tries: int = 3,
) -> Plan:
    """A cheap network joining every ticket (greedy Steiner tree over shortest paths).

    Tickets are connected one after another; routes already planned cost nothing for the next
    ones, so the paths share track. Several ticket orders are tried and the cheapest plan that
    serves the most ticket points within the trains available is kept.
    """
    orders: list[list[Ticket]] = [sorted(tickets, key=lambda t: -t.points)]
    if tries > 1 and len(tickets) > 1:
        solo = {t.index: shortest_path(info, weights, t.a_nodes, t.b_nodes)[0] for t in tickets}
        orders.append(sorted(tickets, key=lambda t: -solo[t.index]))
        if tries > 2 and len(tickets) > 2:
            orders.append(sorted(tickets, key=lambda t: (solo[t.index] / t.points, t.index)))
    best: Plan | None = None
    best_key: tuple[float, float] = (INF, INF)
    for order in orders:
        plan = _plan_in_order(info, weights, order, trains, borrow, stations)
        key = (-sum(info.edition.tickets[t].points for t in plan.open + plan.done), plan.weight)
        if best is None or key < best_key:
            best, best_key = plan, key
    assert best is not None
    return best


def _plan_in_order(
    info: MapInfo, weights: Sequence[float], order: Sequence[Ticket], trains: int, borrow: Sequence[float] | None, stations: int
) -> Plan:
    w = list(weights)
    lend = list(borrow) if borrow is not None else None
    plan = Plan()
    length = info.length
    planned: set[int] = set()
    borrowed_set: set[int] = set()
    for t in order:
        usable_borrow = lend if lend is not None and stations > len(borrowed_set) else None
        cost, claim, borrowed = shortest_path(info, w, t.a_nodes, t.b_nodes, usable_borrow, planned)
        if cost == INF:
            plan.dropped.append(t.index)
            continue
        if not claim and not borrowed:
            plan.done.append(t.index)  # joined by our own routes already
            continue
        need = sum(length[r] for r in claim if r not in planned)
        new_borrow = [r for r in borrowed if r not in borrowed_set]
        if plan.trains + need > trains or len(borrowed_set) + len(new_borrow) > stations:
            plan.dropped.append(t.index)
            continue
        plan.open.append(t.index)
        plan.ticket_routes[t.index] = claim
        plan.ticket_borrowed[t.index] = borrowed
        plan.weight += cost
        for r in claim:
            if r not in planned:
                planned.add(r)
                plan.routes.append(r)
                plan.trains += length[r]
                w[r] = 0.0
        for r in new_borrow:
            borrowed_set.add(r)
            plan.borrowed.append(r)
            if lend is not None:
                lend[r] = 0.0  # once a station borrows it, later tickets may share it
    return plan


def components(info: MapInfo, owner: Sequence[int], player: int) -> list[int]:
    """Component label per city over `player`'s own routes (union–find)."""
    parent = list(range(info.ncities))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    a, b = info.route_a, info.route_b
    for r, o in enumerate(owner):
        if o == player:
            ra, rb = find(a[r]), find(b[r])
            if ra != rb:
                parent[ra] = rb
    return [find(x) for x in range(info.ncities)]


def ticket_connected(labels: Sequence[int], ticket: Ticket) -> bool:
    ends = {labels[n] for n in ticket.b_nodes}
    return any(labels[n] in ends for n in ticket.a_nodes)


def completion_chance(slack_trains: float, slack_turns: float, work: float = 0.0) -> float:
    """Rough chance of finishing a plan given spare trains, spare turns and the turns of work left.

    A logistic step whose width grows with the work still to do: a long plan meets more blocked
    routes and unlucky draws, so the same slack is worth less.
    """
    slack = min(slack_trains + 1.0, slack_turns)
    z = max(-30.0, min(30.0, slack / (1.0 + 0.25 * max(0.0, work))))
    return min(0.999, max(0.001, 1.0 / (1.0 + math.exp(-1.7 * z))))
