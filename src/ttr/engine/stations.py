"""Stations (Europe): the stations offered (any free city, paid per the station cost table) and building one.
Which opponent route each station borrows is chosen at scoring (scoring.best_station_routes)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..cards import Cards
from ..editions import Edition, per_edition
from ..errors import IllegalAction
from . import claims, drawing, ending
from . import payments as pay
from .actions import (
    BUILD_STATION,
    Action,
)
from .drawing import cards_json
from .events import Event
from .phases import TURN

if TYPE_CHECKING:
    from .game import Game


STATION_MEMO_MAX = 20_000  # (cost, hand)s and payment lists kept per edition (each cleared when full)


@per_edition
def _station_memos(
    ed: Edition,
) -> tuple[dict[tuple[int, ...], tuple[Cards, ...]], dict[tuple[Cards, ...], list[list[Action]]]]:
    """Per edition: the station payments per (cost, hand) (``payments.station_payments``; hands recur a
    lot), and for a list of payments the moves per city (empty for country areas), built once. The moves
    offered are those of the free cities (Actions are immutable, so they are shared)."""
    return {}, {}


def station_actions(g: Game, p: int) -> list[Action]:
    cost = g.rules.station_costs[g.rules.stations - g.stations_left[p]]
    ed = g.edition
    by_hand, by_payments = _station_memos(ed)
    hand = g.hands[p]
    hand_key = (cost, *hand)
    payments = by_hand.get(hand_key)
    if payments is None:
        if len(by_hand) >= STATION_MEMO_MAX:
            by_hand.clear()
        payments = by_hand[hand_key] = tuple(pay.station_payments(cost, hand))
    if not payments:
        return []
    per_city = by_payments.get(payments)
    if per_city is None:
        if len(by_payments) >= STATION_MEMO_MAX:
            by_payments.clear()
        per_city = by_payments[payments] = [
            [] if ed.city_area[c] is not None else [Action(BUILD_STATION, city=cid, cards=cards) for cards in payments]
            for c, cid in enumerate(ed.city_ids)
        ]
    out: list[Action] = []
    for c, owner in enumerate(g.station_owner):
        if owner < 0:
            out.extend(per_city[c])
    return out


def build_station(g: Game, p: int, city: int, cards: Cards, ev: list[Event] | None) -> None:
    hand = g.hands[p]
    for i, k in enumerate(cards):
        hand[i] -= k
    claims.discard_cards(g, cards)
    g.station_owner[city] = p
    g.stations_left[p] -= 1
    if ev is not None:
        ev.append(Event("build_station", p, {"city": g.edition.city_ids[city], "cards": cards_json(cards)}))
    ending.end_turn(g, ev)


def check_station(g: Game, a: Action, p: int) -> int:
    """Building a station: returns the city."""
    if g.phase != TURN:
        raise IllegalAction(f"cannot build a station now (phase: {g.phase})", "wrong_phase")
    if not g.stations_left[p]:
        raise IllegalAction("you have no stations left" if g.rules.stations else "this edition has no stations", "no_stations")
    ed = g.edition
    c = ed.city_index.get(a.city)  # type: ignore[arg-type]
    if c is None or ed.city_area[c] is not None:
        raise IllegalAction(f"unknown city {a.city!r}", "unknown_city")
    if g.station_owner[c] >= 0:
        raise IllegalAction(f"{ed.city_names[c]} already has a station", "city_taken")
    drawing.check_hand(a.cards, g.hands[p])  # type: ignore[arg-type]
    cost = g.rules.station_costs[g.rules.stations - g.stations_left[p]]
    problem = pay.station_payment_problem(cost, a.cards)  # type: ignore[arg-type]
    if problem:
        raise IllegalAction(problem, "bad_payment")
    return c
