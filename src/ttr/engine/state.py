"""The game's state, declared once.

``FIELDS`` lists every attribute of a ``Game``, each once, with

* how ``clone`` copies it (``SHARE``: the same object, immutable or shared; ``LIST``: a flat copy;
  ``NESTED``: a list of lists; ``DECKS``: a dict of lists; ``COPY``: its own ``.copy()``; ``DROP``: not
  copied, it starts again as None; ``RNG`` and ``TUNNEL``: their own copies),
* the value a new game starts from before the deal (``new``),
* its key in the position JSON with how it is written (``dump``) and read back (``load``), or no key for
  what is rebuilt rather than saved (``derive``: the passenger at each city; caches).

``Game.__slots__``, ``Game.__init__`` (the blank state), ``Game.clone``, ``position.to_dict``,
``position.from_dict`` and ``position.assemble`` (a position from its parts, as ``determinize`` builds
one) are all driven by this table; ``Game`` itself only annotates each attribute's type (for mypy and
mypyc), and ``tests/engine/test_state_fields.py`` checks that the annotations and the table agree.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple

from ..cards import CARD_INDEX, CARD_NAMES, COLOURS, NCARDS, NO_CARD
from ..errors import PositionError
from .actions import Action
from .drawing import cards_json
from .passengers import PASSENGER_GONE, PASSENGER_UNPLACED
from .phases import PHASES, SETUP, Phase

if TYPE_CHECKING:
    from ..editions import Edition
    from .game import Game

# how clone() copies a field
SHARE, LIST, NESTED, DECKS, COPY, DROP, RNG, TUNNEL = range(8)


class Reader:
    """What a field's ``load`` needs: the edition, the player count, the format and the fields read so far."""

    __slots__ = ("data", "ed", "fmt", "n", "values")

    def __init__(self, ed: Edition, n: int, fmt: int, data: dict[str, Any]) -> None:
        self.ed = ed
        self.n = n
        self.fmt = fmt
        self.data = data
        self.values: dict[str, Any] = {}

    def card(self, name: Any) -> int:
        if name not in CARD_INDEX:
            raise PositionError(f"unknown card {name!r}")
        return CARD_INDEX[name]

    def ticket(self, tid: Any) -> int:
        if tid not in self.ed.ticket_index:
            raise PositionError(f"unknown ticket {tid!r}")
        return self.ed.ticket_index[tid]

    def route(self, rid: Any) -> int:
        if rid not in self.ed.route_index:
            raise PositionError(f"unknown route {rid!r}")
        return self.ed.route_index[rid]

    def city(self, cid: Any) -> int:
        if cid not in self.ed.city_index:
            raise PositionError(f"unknown city {cid!r}")
        return self.ed.city_index[cid]

    def player(self, x: Any) -> int:
        if not isinstance(x, int) or not 0 <= x < self.n:
            raise PositionError(f"bad player index {x!r}")
        return x

    def hand(self, h: dict[str, Any]) -> list[int]:
        out = [0] * NCARDS
        for k, v in h.items():
            out[self.card(k)] = int(v)
        return out

    def per_player(self, x: Any, name: str) -> list[Any]:
        if not isinstance(x, list) or len(x) != self.n:
            raise PositionError(f"{name!r} must be a list with one entry per player ({self.n})")
        return x


Dump = Callable[["Game", Any], Any]
Load = Callable[[Reader, Any], Any]


class Field(NamedTuple):
    name: str  # the Game attribute
    copy: int  # how clone() copies it
    new: Callable[[Game], Any] | None  # its value in a new game, before the deal (None: the constructor's argument)
    key: str | None = None  # its key in the position JSON (None: not saved)
    dump: Dump | None = None  # value -> JSON (None: the value as is)
    load: Load | None = None  # JSON -> value (None: the JSON as is)
    derive: Callable[[Game], Any] | None = None  # rebuilt from the other fields when a position is read


# ------------------------------------------------------------------ codecs
def _cards_dump(g: Game, v: list[int]) -> list[str]:
    return [CARD_NAMES[c] for c in v]


def _cards_load(r: Reader, v: Any) -> list[int]:
    return [r.card(c) for c in v]


def _market_dump(g: Game, v: list[int]) -> list[str | None]:
    return [CARD_NAMES[c] if c != NO_CARD else None for c in v]


def _market_load(r: Reader, v: Any) -> list[int]:
    return [NO_CARD if c is None else r.card(c) for c in v]


def _ints_dump(g: Game, v: list[int]) -> list[int]:
    return v[:]


def _per_player_ints(key: str) -> Load:
    def load(r: Reader, v: Any) -> list[int]:
        return [int(x) for x in r.per_player(v, key)]

    return load


def _nested_dump(g: Game, v: list[list[int]]) -> list[list[int]]:
    return [x[:] for x in v]


def _tokens_load(r: Reader, v: Any) -> list[list[int]]:
    return [[int(x) for x in t] for t in r.per_player(v, "tokens")]


def _hands_dump(g: Game, v: list[list[int]]) -> list[dict[str, int]]:
    return [cards_json(h) for h in v]


def _hands_load(r: Reader, v: Any) -> list[list[int]]:
    return [r.hand(h) for h in r.per_player(v, "hands")]


def _tickets_dump(g: Game, v: list[int]) -> list[str]:
    return [g.edition.tickets[t].id for t in v]


def _tickets_load(r: Reader, v: Any) -> list[int]:
    return [r.ticket(t) for t in v]


def _ticket_lists_dump(g: Game, v: list[list[int]]) -> list[list[str]]:
    ts = g.edition.tickets
    return [[ts[t].id for t in x] for x in v]


def _ticket_lists(key: str) -> Load:
    def load(r: Reader, v: Any) -> list[list[int]]:
        if v is None and key == "setup_returned" and r.fmt == 1:  # format 1 returned them at once
            return [[] for _ in range(r.n)]
        return [[r.ticket(t) for t in x] for x in r.per_player(v, key)]

    return load


def _decks_dump(g: Game, v: dict[str, list[int]]) -> dict[str, list[str]]:
    ts = g.edition.tickets
    return {d: [ts[t].id for t in x] for d, x in v.items()}


def _decks_load(r: Reader, v: Any) -> dict[str, list[int]]:
    return {k: [r.ticket(t) for t in x] for k, x in v.items()}


def _owners_dump(g: Game, v: list[int]) -> dict[str, int]:
    ids = g.edition.routes
    return {ids[i].id: o for i, o in enumerate(v) if o >= 0}


def _owners_load(r: Reader, v: Any) -> list[int]:
    out = [-1] * len(r.ed.routes)
    for rid, o in v.items():
        out[r.route(rid)] = r.player(o)
    return out


def _stations_dump(g: Game, v: list[int]) -> dict[str, int]:
    ids = g.edition.city_ids
    return {ids[c]: o for c, o in enumerate(v) if o >= 0}


def _stations_load(r: Reader, v: Any) -> list[int]:
    out = [-1] * r.ed.ncities
    for cid, o in v.items():
        out[r.city(cid)] = r.player(o)
    return out


def passenger_json(ed: Edition, c: int) -> str | None:
    if c == PASSENGER_UNPLACED:
        return None
    if c == PASSENGER_GONE:
        return "gone"
    return ed.city_ids[c]


def _passengers_dump(g: Game, v: list[list[int]]) -> list[list[str | None]]:
    return [[passenger_json(g.edition, c) for c in ps] for ps in v]


def _passengers_load(r: Reader, v: Any) -> list[list[int]]:
    def one(x: Any) -> int:
        if x is None:
            return PASSENGER_UNPLACED
        if x == "gone":
            return PASSENGER_GONE
        return r.city(x)

    return [[one(c) for c in ps] for ps in r.per_player(v, "passengers")]


def _passenger_at(g: Game) -> list[int]:
    at = [-1] * g.edition.ncities
    for p, ps in enumerate(g.passengers):
        for c in ps:
            if c >= 0:
                at[c] = p
    return at


def _merch_dump(g: Game, v: list[list[int]]) -> dict[str, list[int]]:
    ed = g.edition
    return {ed.city_ids[c]: list(reversed(s)) for c, s in enumerate(v) if ed.merchandise[c]}


def _merch_load(r: Reader, v: Any) -> list[list[int]]:
    out: list[list[int]] = [[] for _ in range(r.ed.ncities)]
    for cid, stack in v.items():
        out[r.city(cid)] = [int(x) for x in reversed(stack)]
    return out


Tunnel = tuple[int, tuple[int, ...], list[int], int, int]  # route, paid, revealed, extra, colour (-1: none)


def tunnel_json(ed: Edition, t: Tunnel | None, no_colour: str | None = None) -> dict[str, Any] | None:
    """A pending tunnel as JSON (`no_colour` names the colour of a gray tunnel paid in locomotives)."""
    if t is None:
        return None
    ri, paid, revealed, extra, colour = t
    return {
        "route": ed.routes[ri].id,
        "paid": cards_json(paid),
        "revealed": [CARD_NAMES[c] for c in revealed],
        "extra": extra,
        "colour": COLOURS[colour] if colour >= 0 else no_colour,
    }


def _tunnel_dump(g: Game, v: Tunnel | None) -> dict[str, Any] | None:
    return tunnel_json(g.edition, v)


def _tunnel_load(r: Reader, t: Any) -> Tunnel | None:
    if t is None:
        return None
    colour = COLOURS.index(t["colour"]) if t["colour"] is not None else -1
    return (r.route(t["route"]), tuple(r.hand(t["paid"])), [r.card(c) for c in t["revealed"]], int(t["extra"]), colour)


def _route_dump(g: Game, v: int) -> str | None:
    return g.edition.routes[v].id if v >= 0 else None


def _route_load(r: Reader, v: Any) -> int:
    return r.route(v) if v is not None else -1


def _rng_dump(g: Game, v: random.Random) -> list[Any]:
    state = v.getstate()
    return [state[0], list(state[1]), state[2]]


def _rng_load(r: Reader, st: Any) -> random.Random:
    rng = random.Random()
    rng.setstate((st[0], tuple(st[1]), st[2]))
    return rng


def _phase_load(r: Reader, v: Any) -> Phase:
    if v not in PHASES:
        raise PositionError(f"unknown phase {v!r}")
    return Phase(v)


def _player_load(r: Reader, v: Any) -> int:
    return r.player(v)


def _int_load(r: Reader, v: Any) -> int:
    return int(v)


def _waiting_load(r: Reader, v: Any) -> list[int]:
    if r.fmt == 1:  # the seats still to choose were current and the ones after it
        phase, current = r.values["phase"], r.values["current"]
        return [(current + i) % r.n for i in range(int(r.data["setup_left"]))] if phase == SETUP else []
    return [r.player(x) for x in v]


def _history_dump(g: Game, v: list[Action]) -> list[dict[str, Any]]:
    return [a.to_json() for a in v]


def _history_load(r: Reader, v: Any) -> list[Action]:
    return [Action.from_json(a) for a in v]


NOT_RECORDED = -1  # a seat of `history_seats` not in the position (format 1): position.assemble replays it


def _seats_load(r: Reader, v: Any) -> list[int]:
    if r.fmt == 1:  # one seat after the other: the seats follow from replaying the history (position.assemble)
        return [NOT_RECORDED] * len(r.values["history"])
    if not isinstance(v, list) or len(v) != len(r.values["history"]):
        raise PositionError("'history_seats' must name one seat per action of 'history'")
    return [r.player(x) for x in v]


def _per_player(value: Callable[[], Any]) -> Callable[[Game], list[Any]]:
    return lambda g: [value() for _ in range(g.n)]


def _unplaced(g: Game) -> list[list[int]]:
    return [[PASSENGER_UNPLACED] * g.rules.passengers for _ in range(g.n)]


def _none(g: Game) -> None:
    return None


def _empty(g: Game) -> list[Any]:
    return []


def _zero(g: Game) -> int:
    return 0


def _minus_one(g: Game) -> int:
    return -1


# ------------------------------------------------------------------ the table
# The order is the order of the position JSON and of reading it (a field's load may use the fields before it).
# The identity of the game (edition, options, players) is read first, by position.from_dict, to build the
# blank game the rest is read into.
FIELDS: tuple[Field, ...] = (
    # identity: shared by every copy
    Field("edition", SHARE, None),
    Field("base_edition", SHARE, None),
    Field("options", SHARE, None),
    Field("rules", SHARE, None),
    Field("n", SHARE, None),
    Field("seed", SHARE, None, "seed"),
    # turn structure
    Field("rng", RNG, lambda g: random.Random(g.seed), "rng", _rng_dump, _rng_load),
    Field("phase", SHARE, lambda g: SETUP, "phase", None, _phase_load),
    Field("current", SHARE, _zero, "current", None, _player_load),
    Field("first_player", SHARE, _zero, "first_player", None, _player_load),
    Field("setup_waiting", LIST, _empty, "setup_waiting", _ints_dump, _waiting_load),
    Field("setup_returned", NESTED, _per_player(list), "setup_returned", _ticket_lists_dump, _ticket_lists("setup_returned")),
    Field("final_turns", SHARE, _minus_one, "final_turns", None, _int_load),
    Field("pass_streak", SHARE, _zero, "pass_streak", None, _int_load),
    Field("turn", SHARE, _zero, "turn", None, _int_load),
    # train cards (drawing.py)
    Field("deck", LIST, _empty, "deck", _cards_dump, _cards_load),
    Field("discard", LIST, _empty, "discard", _cards_dump, _cards_load),
    Field("market", LIST, lambda g: [NO_CARD] * g.rules.market_size, "market", _market_dump, _market_load),
    Field("hands", NESTED, _per_player(lambda: [0] * NCARDS), "hands", _hands_dump, _hands_load),
    # claims (claims.py) and scores
    Field("trains", LIST, lambda g: [g.rules.trains] * g.n, "trains", _ints_dump, _per_player_ints("trains")),
    Field("scores", LIST, lambda g: [0] * g.n, "scores", _ints_dump, _per_player_ints("scores")),
    Field("route_owner", LIST, lambda g: [-1] * len(g.edition.routes), "routes", _owners_dump, _owners_load),
    # destination tickets (tickets.py)
    Field("tickets", NESTED, _per_player(list), "tickets", _ticket_lists_dump, _ticket_lists("tickets")),
    Field("offered", NESTED, _per_player(list), "offered", _ticket_lists_dump, _ticket_lists("offered")),
    Field("ticket_decks", DECKS, lambda g: {}, "ticket_decks", _decks_dump, _decks_load),
    Field("removed_tickets", LIST, _empty, "removed_tickets", _tickets_dump, _tickets_load),
    # stations (stations.py)
    Field(
        "stations_left", LIST, lambda g: [g.rules.stations] * g.n, "stations_left", _ints_dump, _per_player_ints("stations_left")
    ),
    Field("station_owner", LIST, lambda g: [-1] * g.edition.ncities, "stations", _stations_dump, _stations_load),
    # passengers and merchandise (passengers.py); merchandise stacks have their top at the end of the list
    Field("passengers", NESTED, _unplaced, "passengers", _passengers_dump, _passengers_load),
    Field("passenger_at", LIST, lambda g: [-1] * g.edition.ncities, derive=_passenger_at),
    Field("merch", NESTED, lambda g: [list(reversed(s)) for s in g.edition.merchandise], "merchandise", _merch_dump, _merch_load),
    Field("tokens", NESTED, _per_player(list), "tokens", _nested_dump, _tokens_load),
    # a claim in progress (claims.py)
    Field("tunnel", TUNNEL, _none, "tunnel", _tunnel_dump, _tunnel_load),
    Field("last_claimed", SHARE, _minus_one, "last_claimed", _route_dump, _route_load),
    # the moves so far, and who played each
    Field("history", LIST, _empty, "history", _history_dump, _history_load),
    Field("history_seats", LIST, _empty, "history_seats", _ints_dump, _seats_load),
    # derived answers kept between moves (never saved; Game.reset_caches builds the last three, typed, as a
    # compiled build checks every assignment)
    Field("_legal_cache", DROP, _none),
    Field("_final_result", SHARE, _none),  # the finished game's result: never changed once built
    Field("_labels", LIST, None),  # entries are replaced, never changed in place
    Field("_claim_cache", COPY, None),
    Field("_trail_cache", COPY, None),
)

SLOTS: tuple[str, ...] = tuple(sorted(f.name for f in FIELDS))
SAVED: tuple[tuple[str, Field], ...] = tuple((f.key, f) for f in FIELDS if f.key is not None)  # (key, field)
POSITION_NAMES: frozenset[str] = frozenset(f.name for _, f in SAVED)
_BY_COPY: dict[int, tuple[str, ...]] = {k: tuple(f.name for f in FIELDS if f.copy == k) for k in range(8)}
_SHARED, _LISTS, _NESTED, _DECKS, _COPIED, _DROPPED = (_BY_COPY[k] for k in (SHARE, LIST, NESTED, DECKS, COPY, DROP))
_DERIVED: tuple[Field, ...] = tuple(f for f in FIELDS if f.derive is not None)
_NEW: tuple[tuple[str, Callable[[Game], Any]], ...] = tuple((f.name, f.new) for f in FIELDS if f.new is not None)


def start(g: Game) -> None:
    """Give `g` (its edition, options, rules, n and seed set) every field of a new game before the deal."""
    for name, new in _NEW:
        setattr(g, name, new(g))


_COPY_EXPR = {
    SHARE: "src.{0}",
    LIST: "src.{0}[:]",
    NESTED: "[x[:] for x in src.{0}]",
    DECKS: "{{k: v[:] for k, v in src.{0}.items()}}",
    COPY: "src.{0}.copy()",
    DROP: "None",
    RNG: "_new_rng()",
    TUNNEL: "None if (t := src.{0}) is None else (t[0], t[1], t[2][:], t[3], t[4])",
}


def _copier() -> Callable[[Game, Game], None]:
    """``copy_state``, written out from ``FIELDS`` once at import: one plain assignment per field, so a copy
    costs what hand-written code costs (a loop over the names with getattr/setattr was 10-20% slower)."""
    lines = ["def copy_state(src, dst):"]
    for f in FIELDS:
        lines.append(f"    dst.{f.name} = {_COPY_EXPR[f.copy].format(f.name)}")
        if f.copy == RNG:
            lines.append(f"    dst.{f.name}.setstate(src.{f.name}.getstate())")
    # a blank generator that setstate fills: Random() would first seed itself from os.urandom (about half the cost
    # of a whole clone, measured with timeit: 33 -> 12 us for the generator's copy)
    namespace: dict[str, Any] = {"_new_rng": partial(random.Random.__new__, random.Random)}
    exec("\n".join(lines), namespace)  # the source is built above from the constant table only
    fn: Callable[[Game, Game], None] = namespace["copy_state"]
    fn.__doc__ = "Copy every field of `src` into the blank `dst` (``Game.clone``), as ``FIELDS`` says."
    return fn


copy_state = _copier()


def dump(g: Game) -> dict[str, Any]:
    """The saved fields of `g` as JSON, keyed as in the position."""
    out: dict[str, Any] = {}
    for key, f in SAVED:
        v = getattr(g, f.name)
        out[key] = v if f.dump is None else f.dump(g, v)
    return out


def load(r: Reader) -> dict[str, Any]:
    """The saved fields read from a position's JSON (``r.data``), by attribute name."""
    values = r.values
    data = r.data
    for key, f in SAVED:
        raw = data.get(key) if r.fmt == 1 else data[key]  # format 1 positions lack a few
        values[f.name] = raw if f.load is None else f.load(r, raw)
    return values


def set_fields(g: Game, values: dict[str, Any]) -> None:
    """Set every saved field of `g` from `values` (exactly the saved fields), then the derived ones."""
    missing: set[str] = {name for name in POSITION_NAMES if name not in values}
    unknown: set[str] = {name for name in values if name not in POSITION_NAMES}
    if missing or unknown:
        raise PositionError(f"a position needs exactly its fields: missing {sorted(missing)}, unknown {sorted(unknown)}")
    for name, v in values.items():
        setattr(g, name, v)
    for f in _DERIVED:
        setattr(g, f.name, f.derive(g))  # type: ignore[misc]
