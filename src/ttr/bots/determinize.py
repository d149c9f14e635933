"""Determinization: turn one player's view (plus its memory) into a complete, plausible position.

The hidden part is sampled consistently with what this player saw:
* opponents' hands contain the cards they are known to hold (taken face up, shown on a tunnel,
  minus what they spent since), topped up from the unseen cards to their public hand size;
* opponents hold their public number of tickets, drawn from the tickets this player has not seen,
  weighted toward tickets whose cities their claimed routes already serve;
* the ticket decks keep their public sizes (this player's returned tickets at the bottom);
* the train deck is the rest of the unseen cards, shuffled.

The result is a ``Game`` built with ``Game.from_parts`` (the same checks as any position read back), so a
search can play it forward exactly.
"""

from __future__ import annotations

import math
import random
from typing import Any

from ..cards import NCARDS, NO_CARD
from ..editions import Edition, per_edition
from ..engine import Game
from ..engine.phases import Phase
from ..engine.view import PlayerView
from .board import map_info, route_weights, shortest_path
from .memory import Memory

TICKET_BIAS = 3.0  # weight exp(bias * share of the ticket's shortest path the opponent already owns)


@per_edition
def ticket_paths(edition: Edition) -> list[frozenset[int]]:
    """Per ticket, the routes of its shortest path on the empty map (cached per edition)."""
    info = map_info(edition)
    weights = route_weights(info, [-1] * info.nroutes, 2, 0, 10**6)
    return [frozenset(shortest_path(info, weights, t.a_nodes, t.b_nodes)[1]) for t in edition.tickets]


def _weighted_sample(items: list[int], weights: list[float], k: int, rng: random.Random) -> list[int]:
    """k distinct items, each draw proportional to weight (Efraimidis–Spirakis keys)."""
    keyed = sorted(((rng.random() ** (1.0 / w), x) for x, w in zip(items, weights, strict=True)), reverse=True)
    return [x for _, x in keyed[:k]]


def determinize(view: PlayerView, memory: Memory, rng: random.Random) -> Game:
    """A complete position consistent with `view` and `memory` (see module docstring)."""
    ed = view.edition
    me = view.me
    assert me is not None and view.hand is not None
    n = view.players

    # ---- train cards
    unseen = list(ed.deck)
    for i, k in enumerate(view.hand):
        unseen[i] -= k
    for c in view.market:
        if c != NO_CARD:
            unseen[c] -= 1
    for i, k in enumerate(view.discard):
        unseen[i] -= k
    if view.tunnel is not None:
        _, paid, revealed, _, _ = view.tunnel
        for i, k in enumerate(paid):
            unseen[i] -= k
        for c in revealed:
            unseen[c] -= 1
    hands: list[list[int]] = []
    for q in range(n):
        if q == me:
            hands.append(list(view.hand))
            continue
        known = list(memory.known.get(q, [0] * NCARDS))
        size = view.hand_sizes[q]
        for i in range(NCARDS):  # never more than the unseen cards allow
            known[i] = max(0, min(known[i], unseen[i]))
        while sum(known) > size:  # stale knowledge: drop the excess
            known[max(range(NCARDS), key=lambda i: known[i])] -= 1
        for i in range(NCARDS):
            unseen[i] -= known[i]
        hands.append(known)
    pool = [i for i in range(NCARDS) for _ in range(max(0, unseen[i]))]
    rng.shuffle(pool)
    for q in range(n):
        if q != me:
            for _ in range(view.hand_sizes[q] - sum(hands[q])):
                if pool:
                    hands[q][pool.pop()] += 1
    deck = pool  # every unseen card not in a hand: equals the public deck size whenever the view is consistent

    # ---- tickets
    mine = set(view.tickets) | set(view.offered)
    returned = [ed.ticket_index[t] for t in memory.returned if t in ed.ticket_index]
    hidden = [t.index for t in ed.tickets if t.index not in mine and t.index not in set(returned)]
    deck_sizes = dict(view.ticket_deck_sizes)
    bottom: dict[str, list[int]] = {}
    for t in returned:
        d = ed.tickets[t].deck
        if len(bottom.get(d, ())) < deck_sizes.get(d, 0) and ed.rules.draw_tickets.returned != "remove":
            bottom.setdefault(d, []).append(t)
    free = {d: deck_sizes.get(d, 0) - len(bottom.get(d, ())) for d in ed.ticket_decks}
    spare = {d: sum(1 for t in hidden if ed.tickets[t].deck == d) - free[d] for d in ed.ticket_decks}
    paths = ticket_paths(ed)
    owner = view.route_owner
    opp_tickets: list[list[int]] = [[] for _ in range(n)]
    opp_offered: list[list[int]] = [[] for _ in range(n)]
    left = list(hidden)
    for q in range(n):
        if q == me:
            continue
        want = view.ticket_counts[q] + view.offered_counts[q]
        if not want:
            continue
        weight = {}
        for t in left:
            path = paths[t]
            share = sum(1 for r in path if owner[r] == q) / len(path) if path else 0.0
            weight[t] = math.exp(TICKET_BIAS * share)
        chosen: list[int] = []
        for _ in range(want):  # one at a time, so no deck gives up more tickets than it can spare
            candidates = [t for t in left if spare[ed.tickets[t].deck] > 0 and t not in chosen]
            if not candidates:
                break
            t = _weighted_sample(candidates, [weight[x] for x in candidates], 1, rng)[0]
            chosen.append(t)
            spare[ed.tickets[t].deck] -= 1
        chosen_set = set(chosen)
        left = [t for t in left if t not in chosen_set]
        opp_tickets[q] = chosen[: view.ticket_counts[q]]
        opp_offered[q] = chosen[view.ticket_counts[q] :]
    rng.shuffle(left)
    ticket_decks: dict[str, list[int]] = {}
    for d in ed.ticket_decks:
        fill = [t for t in left if ed.tickets[t].deck == d][: free[d]]
        ticket_decks[d] = list(reversed(bottom.get(d, []))) + fill  # index 0 is the bottom
    used = {t for ts in ticket_decks.values() for t in ts}
    removed = [t for t in left if t not in used] + [t for t in returned if t not in used]

    # ---- position: the sampled parts and the view's public ones, checked like any position (position.assemble)
    values: dict[str, Any] = {
        "seed": 0,
        "rng": random.Random(rng.getrandbits(64)),
        "phase": view.phase,
        "current": view.current,
        "first_player": view.first_player,
        "setup_waiting": list(view.to_act) if view.phase == Phase.SETUP else [],
        "setup_returned": [[] for _ in range(n)],  # returned tickets still hidden are in the pool like the rest
        "final_turns": view.final_turns,
        "pass_streak": view.pass_streak,
        "turn": view.turn,
        "deck": deck,
        "discard": [i for i, k in enumerate(view.discard) for _ in range(k)],
        "market": list(view.market),
        "hands": hands,
        "trains": list(view.trains),
        "scores": list(view.scores),
        "route_owner": list(owner),
        "tickets": [list(view.tickets) if q == me else opp_tickets[q] for q in range(n)],
        "offered": [list(view.offered) if q == me else opp_offered[q] for q in range(n)],
        "ticket_decks": ticket_decks,
        "removed_tickets": removed,
        "stations_left": list(view.stations_left),
        "station_owner": list(view.station_owner),
        "passengers": [list(ps) for ps in view.passengers],
        "merch": [list(m) for m in view.merch],
        "tokens": [list(t) for t in view.tokens],
        "tunnel": None if view.tunnel is None else (*view.tunnel[:2], list(view.tunnel[2]), *view.tunnel[3:]),
        "last_claimed": view.last_claimed,
        "history": [],
        "history_seats": [],
    }
    return Game.from_parts(ed, n, values)
