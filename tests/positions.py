"""Helpers for the rule tests of every edition. Positions come from ``ttr.scenario``: a test states only
the part of the position it cares about, as text (``scenario``) or arguments (``arrange``), and every card
it was not told about goes somewhere definite, so the edition's deck is always fully accounted for.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from typing import Any

import pytest

from ttr.cards import CARD_INDEX, CARD_NAMES, NCARDS, Cards
from ttr.editions import Edition, Route
from ttr.engine import Action, Game, IllegalAction
from ttr.engine.payments import route_payment_problem
from ttr.scenario import arrange, scenario, started

__all__ = ["arrange", "scenario", "started"]  # re-exported for the tests

BLIND = Action("draw_blind")
PASS = Action("pass")
DRAW_TICKETS = Action("draw_tickets")


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


def keep(*ticket_ids: str) -> Action:
    return Action("keep_tickets", tickets=tuple(sorted(ticket_ids)))


def tunnel_pay(**counts: int) -> Action:
    return Action("tunnel_pay", cards=cards(**counts))


def station(city: str, **counts: int) -> Action:
    return Action("build_station", city=city, cards=cards(**counts))


def place(city: str | None) -> Action:
    return Action("place_passenger", city=city)


def move(city: str, *path: str, passenger_cards: int = 0) -> Action:
    return Action("move_passenger", city=city, path=path, cards=cards(passenger=passenger_cards))


def mix(short: int = 0, long: int = 0) -> Action:
    return Action("draw_tickets", mix=tuple(sorted((k, v) for k, v in (("short", short), ("long", long)) if v)))


def full_deck(ed: Edition) -> Counter[str]:
    """The edition's train cards by name."""
    return Counter({CARD_NAMES[i]: k for i, k in enumerate(ed.deck) if k})


def card_total(g: Game) -> list[int]:
    """Every card of `g` per kind: deck, discard, market, hands and cards held by a pending tunnel."""
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


def card_census(g: Game) -> Counter[str]:
    """``card_total`` by card name, to compare with ``full_deck``."""
    return Counter({CARD_NAMES[i]: k for i, k in enumerate(card_total(g)) if k})


def hand_of(g: Game, p: int) -> dict[str, int]:
    return {CARD_NAMES[i]: k for i, k in enumerate(g.hands[p]) if k}


def refused(
    g: Game, action: Action | dict[str, Any], code: str, match: str | None = None, player: int | None = None
) -> IllegalAction:
    """Assert `action` raises IllegalAction with `code` (and a reason matching `match`), is not offered,
    and changes nothing."""
    before = g.to_dict()
    legal_before = g.legal_actions()
    with pytest.raises(IllegalAction, match=match) as info:
        g.apply(action, player)
    assert info.value.code == code, info.value.reason
    if player is None:  # another player's action may well be legal for the player to move
        assert not g.is_legal(action)
        assert action not in g.legal_actions()
    assert g.to_dict() == before
    assert g.legal_actions() == legal_before
    return info.value


def route_ids(actions: Iterable[Action], kind: str = "claim") -> set[str]:
    return {a.route for a in actions if a.type == kind and a.route is not None}


def ticket_total(g: Game) -> int:
    """Tickets held, offered, in the decks and out of the game: always the edition's whole set."""
    return (
        sum(len(t) for t in g.tickets)
        + sum(len(t) for t in g.offered)
        + sum(len(d) for d in g.ticket_decks.values())
        + len(g.removed_tickets)
        + sum(len(t) for t in g.setup_returned)  # returned in setup, put back when every seat has chosen
    )


def view_strings(data: Any) -> set[str]:
    """Every string value in a view's JSON (to check that no secret id appears in it)."""
    if isinstance(data, str):
        return {data}
    if isinstance(data, dict):
        return set().union(*(view_strings(v) for v in data.values())) if data else set()
    if isinstance(data, list | tuple):
        return set().union(*(view_strings(v) for v in data)) if data else set()
    return set()


def assert_views_hide_tickets(g: Game) -> None:
    """No player's view (as JSON) names a ticket another player holds or is choosing from."""
    for viewer in range(g.n):
        others = {g.edition.tickets[t].id for p in range(g.n) if p != viewer for t in g.tickets[p] + g.offered[p]}
        assert not view_strings(g.view(viewer).to_dict()) & others


def assert_claims_pay_validly(g: Game, legal: Iterable[Action]) -> list[tuple[Action, Route]]:
    """Every claim in `legal` passes the rules' own payment check; returns those claims with their routes."""
    checked = []
    for a in legal:
        if a.type == "claim":
            route = g.edition.routes[g.edition.route_index[a.route]]
            assert route_payment_problem(route, a.cards, g.rules) is None
            checked.append((a, route))
    return checked


def assert_round_trips(g: Game) -> None:
    """The record replays, and the position rebuilds, to the same game, both through JSON."""
    assert Game.replay(json.loads(json.dumps(g.record()))) == g
    assert Game.from_dict(json.loads(json.dumps(g.to_dict()))) == g
