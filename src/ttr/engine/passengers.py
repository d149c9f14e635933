"""Passengers and merchandise (Märklin): placing a passenger after a claim, the trips offered (the best
trail per number of passenger cards, trails.best_trails), checking a trip and moving along it, taking
the top merchandise token of every city passed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..cards import NCARDS, PASSENGER, Cards
from ..errors import IllegalAction
from . import ending
from .actions import (
    MOVE_PASSENGER,
    Action,
)
from .events import Event
from .phases import PLACE, TURN
from .trails import best_trails

if TYPE_CHECKING:
    from .game import Game


PASSENGER_UNPLACED = -1
PASSENGER_GONE = -2
NO_CARDS: Cards = (0,) * NCARDS  # a trip whose Action gives no cards spends none
TRAIL_SEARCH_LIMIT = 20000  # states expanded per passenger when offering trips (trails.best_trails)


# ------------------------------------------------------------------ passengers (Märklin)
def can_place(g: Game, city: int) -> bool:
    return g.edition.city_area[city] is None and g.passenger_at[city] < 0


def place(g: Game, p: int, city: int, ev: list[Event] | None) -> None:
    if city >= 0:
        slot = g.passengers[p].index(PASSENGER_UNPLACED)
        g.passengers[p][slot] = city
        g.passenger_at[city] = p
        if ev is not None:
            ev.append(Event("place_passenger", p, {"city": g.edition.city_ids[city]}))
    g.last_claimed = -1
    ending.end_turn(g, ev)


def check_trail(g: Game, p: int, a: Action) -> tuple[int, list[int], list[int]]:
    """Validate a passenger trip; returns (start city, route indices, cities entered)."""
    ed = g.edition
    start = ed.city_index.get(a.city, -1)  # type: ignore[arg-type]
    if start < 0 or start not in g.passengers[p]:
        raise IllegalAction(f"you have no passenger on {a.city!r}", "no_passenger")
    cards = a.cards or NO_CARDS
    if any(k for i, k in enumerate(cards) if i != PASSENGER):
        raise IllegalAction("only passenger cards are discarded to move a passenger", "bad_payment")
    if not a.path:
        raise IllegalAction("a trip travels along at least one route", "empty_trip")
    here = start
    used: set[int] = set()
    entered: list[int] = []
    foreign = 0
    for rid in a.path or ():
        ri = ed.route_index.get(rid)
        if ri is None:
            raise IllegalAction(f"unknown route {rid!r}", "unknown_route")
        if ri in used:
            raise IllegalAction(f"the trip uses {rid} twice; a route is used at most once per trip", "route_reused")
        route = ed.routes[ri]
        if here not in (route.a, route.b):
            raise IllegalAction(f"{rid} does not leave from {ed.city_ids[here]}", "not_a_trail")
        owner = g.route_owner[ri]
        if owner < 0:
            raise IllegalAction(f"{rid} is unclaimed; passengers travel only on claimed routes", "unclaimed_route")
        if owner != p:
            foreign += 1
        here = route.b if route.a == here else route.a
        if ed.city_area[here] is not None:
            raise IllegalAction(f"passengers never enter country areas ({ed.city_names[here]})", "country_area")
        used.add(ri)
        entered.append(here)
    if foreign != cards[PASSENGER]:
        raise IllegalAction(
            f"the trip uses {foreign} opponent route(s): discard exactly that many passenger cards (offered {cards[PASSENGER]})",
            "bad_payment",
        )
    if cards[PASSENGER] > g.hands[p][PASSENGER]:
        raise IllegalAction(f"you have {g.hands[p][PASSENGER]} passenger card(s)", "cards_not_in_hand")
    return start, [ed.route_index[r] for r in a.path or ()], entered


def move_passenger(g: Game, p: int, checked: tuple[int, list[int], list[int]], cards: Cards, ev: list[Event] | None) -> None:
    start, _, entered = checked
    spent = cards[PASSENGER]
    g.hands[p][PASSENGER] -= spent
    g.discard.extend([PASSENGER] * spent)
    once = g.rules.passenger_one_token_per_city
    visited = {start}
    taken = []
    for city in entered:
        if once and city in visited:
            continue
        visited.add(city)
        stack = g.merch[city]
        if stack:
            value = stack.pop()
            taken.append((city, value))
            g.tokens[p].append(value)
            g.scores[p] += value
    forget_trails(g, tuple([city for city, _ in taken]))
    slot = g.passengers[p].index(start)
    g.passengers[p][slot] = PASSENGER_GONE
    g.passenger_at[start] = -1
    if ev is not None:
        ed = g.edition
        ev.append(
            Event(
                "move_passenger",
                p,
                {
                    "city": ed.city_ids[start],
                    "path": [ed.routes[r].id for r in checked[1]],
                    "tokens": [{"city": ed.city_ids[c], "value": v} for c, v in taken],
                    "points": sum(v for _, v in taken),
                    "passenger_cards": cards[PASSENGER],
                },
            )
        )
    ending.end_turn(g, ev)


TrailEntry = tuple[int, frozenset[int], frozenset[int], dict[int, tuple[int, list[int]]], list[Action], bool]


def passenger_trails(g: Game, p: int, start: int, max_foreign: int) -> dict[int, tuple[int, list[int]]]:
    """Best trip found from `start` per number of opponent routes used (0..max_foreign), dominated ones
    dropped: {opponent routes: (token points, route indices)}. See trails.best_trails.

    Cached per (player, start) until the network around the cities the search looked at changes
    (``forget_trails``): it reads only the owners of the routes at the cities it expanded and their
    merchandise (``best_trails``' `read`); an opponent's claim there matters only at the cities where the
    search could still have taken an opponent's route (`spare`).
    The answer is shared with the cache: read it, do not change it."""
    return _trails(g, p, start, max_foreign)[3]


def _trails(g: Game, p: int, start: int, max_foreign: int) -> TrailEntry:
    """The cache entry for p's passenger at `start`: (passenger cards, cities the search looked at, those
    where it could have taken an opponent's route, the trips, the trips as moves, whether they are the same
    for every number of passenger cards), searched again if missing or for another number of passenger
    cards, unless they are the same for every number (``best_trails``' `every_cap`): then the entry is
    kept for the new number, with every city looked at as one where an opponent's route could be taken if
    the number grew."""
    entry = g._trail_cache.get((p, start))
    if entry is not None:
        if entry[0] == max_foreign:
            return entry
        if entry[5]:
            held, near, spare_near, found_any, moves_any, _ = entry
            entry = (max_foreign, near, spare_near if max_foreign <= held else near, found_any, moves_any, True)
            g._trail_cache[(p, start)] = entry
            return entry
    read: set[int] = set()
    spare: set[int] = set()
    every_cap: list[bool] = []
    found = best_trails(
        g.edition,
        g.route_owner,
        g.merch,
        p,
        start,
        max_foreign,
        g.rules.passenger_one_token_per_city,
        TRAIL_SEARCH_LIMIT,
        read,
        spare,
        every_cap,
    )
    ed = g.edition
    moves: list[Action] = []
    for foreign, (_, path) in sorted(found.items()):
        cards = [0] * NCARDS
        cards[PASSENGER] = foreign
        moves.append(
            Action(MOVE_PASSENGER, city=ed.city_ids[start], path=tuple(ed.routes[r].id for r in path), cards=tuple(cards))
        )
    entry = g._trail_cache[(p, start)] = (max_foreign, frozenset(read), frozenset(spare), found, moves, every_cap[0])
    return entry


def forget_trails(g: Game, cities: tuple[int, ...], claimer: int = -1) -> None:
    """The network at `cities` changed (a route between them was claimed by `claimer`, or a passenger took
    their top tokens: `claimer` -1): drop the cached trips whose search looked at one of them, except, for
    an opponent's claim, those that could not have taken an opponent's route at any of them; those keep
    their trips for their number of passenger cards only (an opponent's route now leaves a city the search
    expanded, so more cards could reach further: no longer `every_cap`)."""
    cache = g._trail_cache
    if cache:
        drop = []
        narrowed = []
        for key, entry in cache.items():
            if any(c in entry[1] for c in cities):
                if claimer < 0 or claimer == key[0] or any(c in entry[2] for c in cities):
                    drop.append(key)
                elif entry[5]:
                    narrowed.append(key)
        for key in drop:
            del cache[key]
        for key in narrowed:
            held, near, spare, found, moves, _ = cache[key]
            cache[key] = (held, near, spare, found, moves, False)


def passenger_moves(g: Game, p: int) -> list[Action]:
    """p's passenger trips as moves, per passenger (in seat order) fewest passenger cards first (cached with
    the trips: ``_trails``)."""
    out: list[Action] = []
    cards_in_hand = g.hands[p][PASSENGER]
    for city in g.passengers[p]:
        if city >= 0:
            out.extend(_trails(g, p, city, cards_in_hand)[4])
    return out


def check_place(g: Game, a: Action, p: int) -> int:
    """Placing a passenger after a claim (or none: -1). Returns the city."""
    if g.phase != PLACE:
        raise IllegalAction("a passenger can be placed only right after claiming a route", "wrong_phase")
    if a.city is None:
        return -1
    ed = g.edition
    c = ed.city_index.get(a.city, -1)
    route = ed.routes[g.last_claimed]
    if c not in (route.a, route.b):
        raise IllegalAction(
            f"place the passenger on {ed.city_ids[route.a]} or {ed.city_ids[route.b]}, the ends of the route just claimed",
            "bad_city",
        )
    if not can_place(g, c):
        raise IllegalAction(f"a passenger already stands on {ed.city_names[c]}", "city_taken")
    return c


def check_move(g: Game, a: Action, p: int) -> tuple[int, list[int], list[int]]:
    """A passenger's trip: see check_trail."""
    if g.phase != TURN:
        raise IllegalAction(f"cannot move a passenger now (phase: {g.phase})", "wrong_phase")
    return check_trail(g, p, a)
