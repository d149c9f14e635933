"""Position I/O: the full position as JSON (`to_dict`) and back (`from_dict`), checked for consistency
(every card accounted for, owners and passengers valid)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..cards import CARD_INDEX, CARD_NAMES, COLOURS, NCARDS, NO_CARD
from ..editions import Edition
from ..errors import PositionError
from . import drawing
from .actions import (
    Action,
)
from .drawing import cards_json
from .passengers import PASSENGER_GONE, PASSENGER_UNPLACED
from .phases import PHASES, Phase

if TYPE_CHECKING:
    from .game import Game


POSITION_FORMAT = 2  # 2: simultaneous setup (setup_waiting, setup_returned, history_seats replace setup_left)
READABLE_FORMATS = (1, 2)  # format 1 positions (setup one seat after the other) are read too


def _passenger_from(x: Any, city: Callable[[Any], int]) -> int:
    if x is None:
        return PASSENGER_UNPLACED
    if x == "gone":
        return PASSENGER_GONE
    return city(x)


def _passenger_json(ed: Edition, c: int) -> str | None:
    if c == PASSENGER_UNPLACED:
        return None
    if c == PASSENGER_GONE:
        return "gone"
    return ed.city_ids[c]


def _n_list(x: Any, n: int, name: str) -> list[Any]:
    if not isinstance(x, list) or len(x) != n:
        raise PositionError(f"{name!r} must be a list with one entry per player ({n})")
    return x


def _check_card_census(g: Game) -> None:
    """A position must hold exactly the edition's cards (deck, discard, market, hands, a pending tunnel)."""
    counts = [0] * NCARDS
    for p, h in enumerate(g.hands):
        for i, k in enumerate(h):
            if k < 0:
                raise PositionError(f"player {p} holds a negative number of {CARD_NAMES[i]} cards ({k})")
            counts[i] += k
    held = [*g.deck, *g.discard, *(c for c in g.market if c != NO_CARD)]
    if g.tunnel is not None:
        held += g.tunnel[2]
        held += [i for i, k in enumerate(g.tunnel[1]) for _ in range(k)]
    for c in held:
        counts[c] += 1
    for i, k in enumerate(counts):
        if k != g.edition.deck[i]:
            raise PositionError(f"the position holds {k} {CARD_NAMES[i]} cards; the edition has {g.edition.deck[i]}")


def _player(x: Any, n: int) -> int:
    if not isinstance(x, int) or not 0 <= x < n:
        raise PositionError(f"bad player index {x!r}")
    return x


def _replayed_seats(cls: type[Game], g: Game, d: dict[str, Any]) -> list[int]:
    record = {"edition": g.base_edition.id, "options": g.options, "players": g.n, "seed": g.seed, "actions": d["history"]}
    return cls.replay(record, g.base_edition).history_seats if g.history else []


# ------------------------------------------------------------------ positions
def to_dict(g: Game) -> dict[str, Any]:
    ed = g.edition
    names = CARD_NAMES
    state = g.rng.getstate()
    tunnel = None
    if g.tunnel is not None:
        ri, paid, revealed, extra, colour = g.tunnel
        tunnel = {
            "route": ed.routes[ri].id,
            "paid": cards_json(paid),
            "revealed": [names[c] for c in revealed],
            "extra": extra,
            "colour": COLOURS[colour] if colour >= 0 else None,
        }
    return {
        "format": POSITION_FORMAT,
        "edition": g.base_edition.id,
        "options": g.options,
        "players": g.n,
        "seed": g.seed,
        "rng": [state[0], list(state[1]), state[2]],
        "phase": g.phase,
        "current": g.current,
        "first_player": g.first_player,
        "setup_waiting": g.setup_waiting[:],
        "setup_returned": [[ed.tickets[t].id for t in ts] for ts in g.setup_returned],
        "final_turns": g.final_turns,
        "pass_streak": g.pass_streak,
        "turn": g.turn,
        "deck": [names[c] for c in g.deck],
        "discard": [names[c] for c in g.discard],
        "market": drawing.market_names(g),
        "hands": [cards_json(h) for h in g.hands],
        "trains": g.trains[:],
        "scores": g.scores[:],
        "routes": {ed.routes[i].id: o for i, o in enumerate(g.route_owner) if o >= 0},
        "tickets": [[ed.tickets[t].id for t in ts] for ts in g.tickets],
        "offered": [[ed.tickets[t].id for t in ts] for ts in g.offered],
        "ticket_decks": {d: [ed.tickets[t].id for t in ts] for d, ts in g.ticket_decks.items()},
        "removed_tickets": [ed.tickets[t].id for t in g.removed_tickets],
        "stations_left": g.stations_left[:],
        "stations": {ed.city_ids[c]: o for c, o in enumerate(g.station_owner) if o >= 0},
        "passengers": [[_passenger_json(ed, c) for c in ps] for ps in g.passengers],
        "merchandise": {ed.city_ids[c]: list(reversed(s)) for c, s in enumerate(g.merch) if ed.merchandise[c]},
        "tokens": [t[:] for t in g.tokens],
        "tunnel": tunnel,
        "last_claimed": ed.routes[g.last_claimed].id if g.last_claimed >= 0 else None,
        "history": [a.to_json() for a in g.history],
        "history_seats": g.history_seats[:],
    }


def from_dict(cls: type[Game], d: Any, edition: Edition | None) -> Game:
    """The game of a position written by ``to_dict`` (``Game.from_dict`` turns failures into PositionError)."""
    if not isinstance(d, dict):
        raise PositionError("a position must be a JSON object")
    fmt = d.get("format")
    if fmt not in READABLE_FORMATS:
        raise PositionError(f"unsupported position format {fmt!r} (this engine reads {', '.join(map(str, READABLE_FORMATS))})")
    g = cls(edition or d["edition"], 2, 0, d.get("options") or None, _blank=True)
    ed = g.edition
    n = d["players"]
    if not isinstance(n, int) or not 1 <= n <= 8:
        raise PositionError(f"bad player count {n!r}")
    g.n = n
    g.seed = d["seed"]
    st = d["rng"]
    g.rng = random.Random()
    g.rng.setstate((st[0], tuple(st[1]), st[2]))
    if d["phase"] not in PHASES:
        raise PositionError(f"unknown phase {d['phase']!r}")
    g.phase = Phase(d["phase"])
    g.current, g.first_player = _player(d["current"], n), _player(d["first_player"], n)
    g.final_turns, g.pass_streak, g.turn = int(d["final_turns"]), int(d["pass_streak"]), int(d["turn"])
    if fmt == 1:  # the seats still to choose were current and the ones after it; returns went back at once
        g.setup_waiting = [(g.current + i) % n for i in range(int(d["setup_left"]))] if g.phase == Phase.SETUP else []
    else:
        g.setup_waiting = [_player(x, n) for x in d["setup_waiting"]]
        if len(set(g.setup_waiting)) != len(g.setup_waiting):
            raise PositionError("'setup_waiting' names a seat twice")
    if (g.phase == Phase.SETUP) != bool(g.setup_waiting) or (g.setup_waiting and g.current != g.setup_waiting[0]):
        raise PositionError("in setup, 'current' is the first seat of 'setup_waiting' (and only then is it non-empty)")

    def card(name: str) -> int:
        if name not in CARD_INDEX:
            raise PositionError(f"unknown card {name!r}")
        return CARD_INDEX[name]

    def ticket(tid: str) -> int:
        if tid not in ed.ticket_index:
            raise PositionError(f"unknown ticket {tid!r}")
        return ed.ticket_index[tid]

    def route(rid: str) -> int:
        if rid not in ed.route_index:
            raise PositionError(f"unknown route {rid!r}")
        return ed.route_index[rid]

    def city(cid: str) -> int:
        if cid not in ed.city_index:
            raise PositionError(f"unknown city {cid!r}")
        return ed.city_index[cid]

    def hand(h: dict[str, int]) -> list[int]:
        out = [0] * NCARDS
        for k, v in h.items():
            out[card(k)] = int(v)
        return out

    g.deck = [card(c) for c in d["deck"]]
    g.discard = [card(c) for c in d["discard"]]
    g.market = [NO_CARD if c is None else card(c) for c in d["market"]]
    g.hands = [hand(h) for h in _n_list(d["hands"], n, "hands")]
    g.trains = [int(x) for x in _n_list(d["trains"], n, "trains")]
    g.scores = [int(x) for x in _n_list(d["scores"], n, "scores")]
    g.route_owner = [-1] * len(ed.routes)
    for rid, o in d["routes"].items():
        g.route_owner[route(rid)] = _player(o, n)
    g.tickets = [[ticket(t) for t in ts] for ts in _n_list(d["tickets"], n, "tickets")]
    g.offered = [[ticket(t) for t in ts] for ts in _n_list(d["offered"], n, "offered")]
    g.ticket_decks = {k: [ticket(t) for t in v] for k, v in d["ticket_decks"].items()}
    g.removed_tickets = [ticket(t) for t in d["removed_tickets"]]
    returned = d["setup_returned"] if fmt != 1 else [[] for _ in range(n)]
    g.setup_returned = [[ticket(t) for t in ts] for ts in _n_list(returned, n, "setup_returned")]
    g.stations_left = [int(x) for x in _n_list(d["stations_left"], n, "stations_left")]
    g.station_owner = [-1] * ed.ncities
    for cid, o in d["stations"].items():
        g.station_owner[city(cid)] = _player(o, n)
    g.passengers = [[_passenger_from(c, city) for c in ps] for ps in _n_list(d["passengers"], n, "passengers")]
    g.passenger_at = [-1] * ed.ncities
    for p, ps in enumerate(g.passengers):
        for c in ps:
            if c >= 0:
                g.passenger_at[c] = p
    g.merch = [[] for _ in range(ed.ncities)]
    for cid, stack in d["merchandise"].items():
        g.merch[city(cid)] = [int(v) for v in reversed(stack)]
    g.tokens = [[int(v) for v in t] for t in _n_list(d["tokens"], n, "tokens")]
    t = d["tunnel"]
    g.tunnel = None
    if t is not None:
        colour = COLOURS.index(t["colour"]) if t["colour"] is not None else -1
        paid = tuple(hand(t["paid"]))
        g.tunnel = (route(t["route"]), paid, [card(c) for c in t["revealed"]], int(t["extra"]), colour)
    _check_card_census(g)
    g.last_claimed = route(d["last_claimed"]) if d["last_claimed"] is not None else -1
    g.history = [Action.from_json(a) for a in d["history"]]
    if fmt == 1:  # one seat after the other: the seats follow from replaying the history
        g.history_seats = _replayed_seats(cls, g, d)
    else:
        seats = d["history_seats"]
        if not isinstance(seats, list) or len(seats) != len(g.history):
            raise PositionError("'history_seats' must name one seat per action of 'history'")
        g.history_seats = [_player(x, n) for x in seats]
    g._final_result = None
    g.reset_caches()
    return g
