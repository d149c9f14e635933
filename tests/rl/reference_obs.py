"""A straightforward reference encoder: the observation of docs/rl.md written out entry by entry from a
``PlayerView``, with no caching or diffing. The environments' incremental encoder must equal it."""

from __future__ import annotations

import numpy as np

from ttr.cards import COLOURS
from ttr.engine import PHASES, PlayerView
from ttr.engine.phases import Phase
from ttr.rl.observation import ObservationLayout


def reference_encode(lay: ObservationLayout, view: PlayerView) -> np.ndarray:
    ed = lay.edition
    out = np.zeros(lay.size, dtype=np.float32)
    me = view.me
    assert me is not None
    n = view.players
    s = lay.seats
    nk = len(lay.kinds)

    def at(name: str) -> int:
        return lay.blocks[name].start

    def rel(p: int) -> int:
        return (p - me) % n

    out[at("phase") + PHASES.index(view.phase)] = 1
    if view.phase != Phase.OVER:
        out[at("to_move") + rel(view.current)] = 1
    for r in range(n):
        out[at("seats") + r] = 1
    e = at("end")
    if view.final_turns >= 0:
        out[e] = 1
        out[e + 1] = view.final_turns
    out[e + 2] = view.pass_streak
    nf = len(lay.public_fields)
    for p in range(n):
        row = at("public") + rel(p) * nf
        values = {
            "score": view.scores[p],
            "trains": view.trains[p],
            "cards": view.hand_sizes[p],
            "tickets": view.ticket_counts[p],
            "tickets_offered": view.offered_counts[p],
        }
        if lay.has_stations:
            values["stations_left"] = view.stations_left[p]
        if lay.passengers:
            ps = view.passengers[p]
            values["passengers_waiting"] = sum(1 for c in ps if c == -1)
            values["passengers_done"] = sum(1 for c in ps if c == -2)
            values["passengers_placed"] = sum(1 for c in ps if c >= 0)
        for i, f in enumerate(lay.public_fields):
            out[row + i] = values[f]
    assert view.hand is not None
    for i, k in enumerate(lay.kinds):
        out[at("hand") + i] = view.hand[k]
    piles = at("piles")
    out[piles] = view.deck_size
    for i, k in enumerate(lay.kinds):
        out[piles + 1 + i] = view.discard[k]
    for j, d in enumerate(ed.ticket_decks):
        out[piles + 1 + nk + j] = view.ticket_deck_sizes.get(d, 0)
    for slot, c in enumerate(view.market):
        if c >= 0:
            out[at("market") + slot * nk + lay.kinds.index(c)] = 1
    for r, o in enumerate(view.route_owner):
        if o >= 0:
            out[at("routes") + r * s + rel(o)] = 1
    # tickets: held, and connected by my own routes (a fresh search over my routes)
    adj: dict[int, set[int]] = {}
    for r, o in enumerate(view.route_owner):
        if o == me:
            route = ed.routes[r]
            adj.setdefault(route.a, set()).add(route.b)
            adj.setdefault(route.b, set()).add(route.a)

    def reach(starts: tuple[int, ...]) -> set[int]:
        seen = set(starts)
        todo = list(starts)
        while todo:
            for nb in adj.get(todo.pop(), ()):
                if nb not in seen:
                    seen.add(nb)
                    todo.append(nb)
        return seen

    for t in view.tickets:
        ticket = ed.tickets[t]
        out[at("tickets") + 2 * t] = 1
        if reach(tuple(ticket.a_nodes)) & set(ticket.b_nodes):
            out[at("tickets") + 2 * t + 1] = 1
    for j, t in enumerate(view.offered):
        out[at("offered") + j * lay.ntickets + t] = 1
    if lay.has_tunnels and view.tunnel is not None:
        _, paid, revealed, extra, colour = view.tunnel
        b = at("tunnel")
        out[b] = extra
        out[b + 1 + (colour if colour >= 0 else len(COLOURS))] = 1
        o = b + 2 + len(COLOURS)
        for c in revealed:
            out[o + lay.kinds.index(c)] += 1
        for i, k in enumerate(lay.kinds):
            out[o + nk + i] = paid[k]
    if "pending_route" in lay.blocks:
        pending = view.tunnel[0] if view.tunnel is not None else view.last_claimed
        if pending >= 0:
            out[at("pending_route") + pending] = 1
    if lay.has_stations:
        for c, o in enumerate(view.station_owner):
            if o >= 0:
                out[at("stations") + c * s + rel(o)] = 1
    if lay.passengers:
        for p in range(n):
            for c in view.passengers[p]:
                if c >= 0:
                    out[at("passengers") + c * s + rel(p)] = 1
        width = lay.ncities + 2
        for slot, c in enumerate(view.passengers[me]):
            col = c if c >= 0 else (lay.ncities if c == -1 else lay.ncities + 1)
            out[at("my_passengers") + slot * width + col] = 1
        for c, stack in enumerate(view.merch):
            for i, v in enumerate(reversed(stack)):
                out[at("merchandise") + c * lay.merch_depth + i] = v
    return out
