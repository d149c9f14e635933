"""Exact positions for the Europe and Nordic rule tests, built by editing ``Game.to_dict()``.

A test names only what it cares about (hands, the top of the deck, route and station owners,
tickets); every other card of the edition goes somewhere definite so the deck stays complete.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from ttr.cards import CARD_INDEX, CARD_NAMES, NCARDS, Cards
from ttr.editions import Edition
from ttr.engine import Action, Game, IllegalAction


def cards(**counts: int) -> Cards:
    """``cards(red=2, locomotive=1)`` as the engine's counts tuple."""
    out = [0] * NCARDS
    for name, k in counts.items():
        out[CARD_INDEX[name]] = k
    return tuple(out)


def claim(route: str, **counts: int) -> Action:
    return Action("claim", route=route, cards=cards(**counts))


def tunnel_pay(**counts: int) -> Action:
    return Action("tunnel_pay", cards=cards(**counts))


def station(city: str, **counts: int) -> Action:
    return Action("build_station", city=city, cards=cards(**counts))


def keep(*ticket_ids: str) -> Action:
    return Action("keep_tickets", tickets=tuple(sorted(ticket_ids)))


def started(edition: str | Edition, players: int = 2, seed: int = 0) -> Game:
    """A game just past setup, every player keeping everything dealt."""
    g = Game(edition, players, seed)
    while g.phase == "setup":
        g.apply(keep(*(g.edition.tickets[t].id for t in g.offered[g.current])))
    return g


def arrange(
    g: Game,
    *,
    hands: Mapping[int, Mapping[str, int]] | None = None,
    deck_top: Sequence[str] = (),
    discard: Sequence[str] = (),
    market: Sequence[str | None] | None = None,
    rest: str | int = "deck",
    routes: Mapping[str, int] | None = None,
    stations: Mapping[str, int] | None = None,
    tickets: Mapping[int, Sequence[str]] | None = None,
    **fields: Any,
) -> Game:
    """`g`'s position with the named parts replaced; the unnamed cards go to `rest`: "deck" (under
    `deck_top`), "discard", or a player index (into that hand).

    hands: player -> counts (unnamed players get empty hands). deck_top: next cards, first drawn
    first. discard: the discard pile (before `rest`). routes: route id -> owner (scores and trains
    follow). stations: city -> owner (stock follows). tickets: player -> ticket ids held (tickets
    held before go out of the game). fields: any other ``to_dict()`` key, set as is.
    """
    d = g.to_dict()
    ed = g.edition
    if hands is not None:
        d["hands"] = [dict(hands.get(p, {})) for p in range(g.n)]
    if market is not None:
        d["market"] = list(market)
    d["deck"] = list(reversed(deck_top))
    d["discard"] = list(discard)
    used: Counter[str] = Counter()
    for h in d["hands"]:
        used.update(h)
    used.update(c for c in d["market"] if c is not None)
    used.update(d["deck"])
    used.update(d["discard"])
    left: list[str] = []
    for i, name in enumerate(CARD_NAMES):
        extra = ed.deck[i] - used[name]
        if extra < 0:
            raise ValueError(f"the arrangement uses {used[name]} {name} cards; the edition has {ed.deck[i]}")
        left += [name] * extra
    if rest == "deck":
        d["deck"] = left + d["deck"]
    elif rest == "discard":
        d["discard"] += left
    else:
        hand = Counter(d["hands"][int(rest)])
        hand.update(left)
        d["hands"][int(rest)] = dict(hand)
    if routes is not None:
        d["routes"] = dict(routes)
        d["scores"] = [sum(ed.routes[ed.route_index[r]].points for r, o in routes.items() if o == p) for p in range(g.n)]
        d["trains"] = [g.rules.trains - sum(ed.routes[ed.route_index[r]].length for r, o in routes.items() if o == p)
                       for p in range(g.n)]
    if stations is not None:
        d["stations"] = dict(stations)
        d["stations_left"] = [g.rules.stations - sum(1 for o in stations.values() if o == p) for p in range(g.n)]
    if tickets is not None:
        held = [list(tickets.get(p, [])) for p in range(g.n)]
        named = {t for ts in held for t in ts}
        dropped = [t for ts in d["tickets"] for t in ts if t not in named]  # out of the game, still counted
        d["tickets"] = held
        d["ticket_decks"] = {k: [t for t in v if t not in named] for k, v in d["ticket_decks"].items()}
        d["removed_tickets"] = [t for t in d["removed_tickets"] if t not in named] + dropped
    d.update(fields)
    return Game.from_dict(d, g.base_edition)


def card_total(g: Game) -> list[int]:
    """Every card per kind: deck, discard, market, hands, and the cards of a pending tunnel."""
    total = [0] * NCARDS
    for c in [*g.deck, *g.discard, *(c for c in g.market if c >= 0)]:
        total[c] += 1
    for h in g.hands:
        for i, k in enumerate(h):
            total[i] += k
    if g.tunnel is not None:
        _, paid, revealed, _, _ = g.tunnel
        for i, k in enumerate(paid):
            total[i] += k
        for c in revealed:
            total[c] += 1
    return total


def hand_of(g: Game, p: int) -> dict[str, int]:
    return {CARD_NAMES[i]: k for i, k in enumerate(g.hands[p]) if k}


def refused(g: Game, action: Action, code: str, match: str) -> IllegalAction:
    """`action` raises IllegalAction with `code` and a reason matching `match`, and changes nothing."""
    before = g.to_dict()
    with pytest.raises(IllegalAction, match=match) as info:
        g.apply(action)
    assert info.value.code == code, info.value.reason
    assert not g.is_legal(action)
    assert g.to_dict() == before
    return info.value


def ticket_total(g: Game) -> int:
    """Tickets held, offered, in the decks and out of the game: always the edition's whole set."""
    return (sum(len(t) for t in g.tickets) + sum(len(t) for t in g.offered)
            + sum(len(d) for d in g.ticket_decks.values()) + len(g.removed_tickets))


def view_strings(data: Any) -> set[str]:
    """Every string value in a view's JSON (to check that no secret id appears in it)."""
    if isinstance(data, str):
        return {data}
    if isinstance(data, dict):
        return set().union(*(view_strings(v) for v in data.values())) if data else set()
    if isinstance(data, list | tuple):
        return set().union(*(view_strings(v) for v in data)) if data else set()
    return set()
