"""Helpers that build exact game situations for the rule tests.

A test states only the part of the position it cares about (a hand, the market, the top of the
deck, who owns which route); ``arrange`` edits ``Game.to_dict()`` and rebuilds the game with
``Game.from_dict``, putting every card it was not told about somewhere definite so that the
edition's deck is always fully accounted for.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pytest

from ttr.cards import CARD_INDEX, CARD_NAMES, NCARDS, Cards
from ttr.engine import Action, Game, IllegalAction


def cards(**counts: int) -> Cards:
    """Card counts as the engine's tuple: ``cards(red=2, locomotive=1)``."""
    out = [0] * NCARDS
    for name, k in counts.items():
        out[CARD_INDEX[name]] = k
    return tuple(out)


def claim(route: str, **counts: int) -> Action:
    return Action("claim", route=route, cards=cards(**counts))


def faceup(slot: int) -> Action:
    return Action("draw_faceup", slot=slot)


BLIND = Action("draw_blind")
PASS = Action("pass")
DRAW_TICKETS = Action("draw_tickets")


def keep(*ticket_ids: str) -> Action:
    return Action("keep_tickets", tickets=tuple(sorted(ticket_ids)))


def started(players: int = 2, seed: int = 0, edition: str = "usa") -> Game:
    """A game just past setup (every player kept all the tickets dealt)."""
    g = Game(edition, players, seed)
    while g.phase == "setup":
        offered = g.view(g.current).offered
        g.apply(keep(*(g.edition.tickets[t].id for t in offered)))
    return g


def arrange(
    g: Game,
    *,
    hands: Mapping[int, Mapping[str, int]] | None = None,
    market: Sequence[str | None] | None = None,
    deck_top: Sequence[str] = (),
    discard: Sequence[str] = (),
    rest: str | int = "deck",
    routes: Mapping[str, int] | None = None,
    ticket_deck: Sequence[str] | None = None,
    **fields: Any,
) -> Game:
    """A new game: `g`'s position with the given parts replaced.

    hands: player -> card counts (players not named get an empty hand; None keeps every hand).
    market: the face-up slots (None = empty slot; default keeps the market).
    deck_top: the next cards of the deck, the first one drawn first.
    discard: the discard pile.
    rest: where every remaining card of the edition goes: "deck" (under deck_top), "discard",
      or a player index (into that hand), so the card totals always match the edition.
    routes: route id -> owner; scores and trains are recomputed from it unless given in `fields`.
    ticket_deck: the regular ticket deck, top first.
    fields: any other key of ``to_dict()`` (phase, current, trains, tickets, ...), set as is.
    """
    d = g.to_dict()
    n = g.n
    if hands is not None:
        d["hands"] = [dict(hands.get(p, {})) for p in range(n)]
    if market is not None:
        d["market"] = list(market)
    d["discard"] = list(discard)
    d["deck"] = list(reversed(deck_top))
    used: Counter[str] = Counter()
    for h in d["hands"]:
        used.update(h)
    used.update(c for c in d["market"] if c is not None)
    used.update(d["discard"])
    used.update(d["deck"])
    left: list[str] = []
    for i, name in enumerate(CARD_NAMES):
        extra = g.edition.deck[i] - used[name]
        if extra < 0:
            raise ValueError(f"the arrangement uses {used[name]} {name} cards; the edition has {g.edition.deck[i]}")
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
        ed = g.edition
        d["scores"] = [sum(ed.routes[ed.route_index[r]].points for r, o in routes.items() if o == p) for p in range(n)]
        d["trains"] = [g.rules.trains - sum(ed.routes[ed.route_index[r]].length for r, o in routes.items() if o == p)
                       for p in range(n)]
    if ticket_deck is not None:
        d["ticket_decks"] = {**d["ticket_decks"], "regular": list(reversed(ticket_deck))}
    d.update(fields)
    return Game.from_dict(d)


def card_total(g: Game) -> list[int]:
    """Every card of `g` per kind: deck, discard, market, hands and cards held by a pending tunnel."""
    total = [0] * NCARDS
    for c in g.deck:
        total[c] += 1
    for c in g.discard:
        total[c] += 1
    for c in g.market:
        if c >= 0:
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


def refused(g: Game, action: Action | dict[str, Any], code: str, match: str, player: int | None = None) -> IllegalAction:
    """Assert `action` raises IllegalAction with `code` and a reason matching `match`, changing nothing."""
    before = g.to_dict()
    legal_before = list(g.legal_actions())
    with pytest.raises(IllegalAction, match=match) as info:
        g.apply(action, player)
    assert info.value.code == code, info.value.reason
    assert not g.is_legal(action) or player is not None
    assert g.to_dict() == before
    assert g.legal_actions() == legal_before
    return info.value


def route_ids(actions: Iterable[Action], kind: str = "claim") -> set[str]:
    return {a.route for a in actions if a.type == kind and a.route is not None}
