"""Stations (Europe): the stations offered (any free city, paid per the station cost table) and building one.
Which opponent route each station borrows is chosen at scoring (scoring.best_station_routes)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..cards import Cards
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


def station_actions(g: Game, p: int) -> list[Action]:
    cost = g.rules.station_costs[g.rules.stations - g.stations_left[p]]
    payments = pay.station_payments(cost, g.hands[p])
    if not payments:
        return []
    ed = g.edition
    out: list[Action] = []
    for c, owner in enumerate(g.station_owner):
        if owner < 0 and ed.city_area[c] is None:
            cid = ed.city_ids[c]
            out.extend(Action(BUILD_STATION, city=cid, cards=cards) for cards in payments)
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
