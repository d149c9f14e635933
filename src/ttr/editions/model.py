"""An edition = a map (cities, routes, tickets, deck, merchandise) + rule options, loaded and validated.

Everything the engine needs is precomputed here as integer-indexed tuples so the hot path never
looks anything up by name. The file format is documented in docs/map-format.md.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from ..cards import CARD_INDEX, CARD_NAMES, COLOURS, GRAY, NCARDS
from ..errors import EditionError

FORMAT_VERSION = 1
TIEBREAKERS = ("tickets_completed", "longest_path_bonus", "longest_path_length", "fewest_stations")
RETURN_POLICIES = ("bottom", "remove", "bottom_then_shuffle")
MAX_ROUTE_LENGTH = 20  # spaces; route_points keys and route lengths stay below this
MAX_SUBSTITUTE = 10  # "any N cards replace one" (routes' substitute, ferry_substitute_cards)
MAX_DECK_COUNT = 200  # train cards of one kind
MAX_TICKET_POINTS = 100
MAX_MERCHANDISE = 20  # tokens in one city's stack, each worth 1 to MAX_TICKET_POINTS


class _ByFields:
    """Base of the frozen dataclasses below: ``__reduce__`` rebuilds one through its constructor from every field.
    The default reduction sets the fields one by one after creating the object, which a frozen class compiled
    with mypyc refuses (the optional compiled build, setup.py), so copying or pickling an edition would fail
    there."""

    __slots__ = ()

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return type(self), tuple(getattr(self, f.name) for f in fields(self))  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class Route(_ByFields):
    index: int
    id: str
    a: int  # node index
    b: int
    length: int
    colour: int  # 0..7, or GRAY
    tunnel: bool
    ferry: int  # locomotive icons (0 = not a ferry)
    group: int  # parallel-lane group index, or -1
    substitute: int  # >0: any N cards replace one card of the chosen colour (Murmansk–Lieksa: 4)
    points: int


@dataclass(frozen=True, slots=True)
class Ticket(_ByFields):
    index: int
    id: str
    a: str  # city or area id as printed
    b: str
    a_nodes: tuple[int, ...]  # every node that satisfies end a (a country area has several)
    b_nodes: tuple[int, ...]
    points: int
    deck: str


@dataclass(frozen=True, slots=True)
class TicketPolicy(_ByFields):
    """How tickets are dealt at setup or drawn during play."""

    deal: tuple[tuple[str, int], ...]  # fixed deal: (deck, count) pairs, in deal order
    choose_mix: bool  # the player names how many come from each deck (Märklin)
    count: int  # with choose_mix: cards drawn in total
    decks: tuple[str, ...]  # with choose_mix: the decks to choose from
    keep_min: int
    returned: str  # bottom | remove | bottom_then_shuffle


@dataclass(frozen=True, slots=True)
class Rules(_ByFields):
    players: tuple[int, int]
    trains: int
    end_trigger_trains: int
    starting_hand: int
    market_size: int
    locomotive_flush: int  # 0 = never flush on locomotives
    passenger_flush: int  # 0 = never flush on passenger cards
    max_consecutive_flushes: int
    faceup_locomotive_single: bool  # a face-up locomotive is the whole draw and never a second card
    locomotives_wild: str  # "all" | "ferries_and_tunnels"
    plus4_min_length: int
    ferry_substitute_cards: int  # 0 = no substitution; N = any N cards replace one ferry locomotive
    all_lanes_min_players: int  # with fewer players only one lane of a double/triple is usable
    stations: int
    station_costs: tuple[int, ...]
    unused_station_points: int
    passengers: int
    passenger_one_token_per_city: bool
    initial_tickets: TicketPolicy
    draw_tickets: TicketPolicy
    longest_path_bonus: int
    most_tickets_bonus: int
    tiebreakers: tuple[str, ...]
    route_points: dict[int, int]


@dataclass(frozen=True)
class Edition(_ByFields):
    id: str
    name: str
    title: str
    notes: tuple[str, ...]
    credit: str
    rules: Rules
    deck: tuple[int, ...]  # counts per card kind
    city_ids: tuple[str, ...]  # node ids
    city_names: tuple[str, ...]
    city_area: tuple[str | None, ...]  # area id of a country endpoint, else None
    lat: tuple[float, ...]
    lon: tuple[float, ...]
    routes: tuple[Route, ...]
    tickets: tuple[Ticket, ...]
    merchandise: tuple[tuple[int, ...], ...]  # per node, top of stack first
    source_path: str = ""
    # derived
    city_index: dict[str, int] = field(default_factory=dict)
    route_index: dict[str, int] = field(default_factory=dict)
    ticket_index: dict[str, int] = field(default_factory=dict)
    group_routes: tuple[tuple[int, ...], ...] = ()
    adjacency: tuple[tuple[tuple[int, int], ...], ...] = ()  # per node: (route, other node)
    ticket_decks: tuple[str, ...] = ()
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def ncities(self) -> int:
        return len(self.city_ids)

    def place_name(self, place: str) -> str:
        """Display name of a city id or a country-area id (as tickets name them)."""
        if place in self.city_index:
            return self.city_names[self.city_index[place]]
        for area, name in zip(self.city_area, self.city_names, strict=True):
            if area == place:
                return name
        return place

    def describe(self) -> str:
        r = self.rules
        lo, hi = r.players
        tunnels = sum(1 for x in self.routes if x.tunnel)
        ferries = sum(1 for x in self.routes if x.ferry)
        parts = [
            f"{self.name}: {lo}-{hi} players, {len(self.city_ids)} nodes, {len(self.routes)} routes",
            f"({tunnels} tunnels, {ferries} ferries), {len(self.tickets)} tickets, {sum(self.deck)} cards",
        ]
        return " ".join(parts)


# ---------------------------------------------------------------------- rule options: types and ranges
# Every rule option has a type and a range, checked whenever an edition is built (a map file, or a game's
# house rules through ``with_options``), so that no caller can make the engine loop or store without bound:
# the values below drive deals, loops and the size of every stored position. docs/map-format.md lists them.


def show(value: Any, limit: int = 40) -> str:
    """A short rendering of any value for an error message: never a huge number, a long text or a deep structure."""

    def small(x: Any) -> bool:
        if isinstance(x, int) and not isinstance(x, bool):
            return x.bit_length() <= 340  # about 100 digits
        return x is None or isinstance(x, bool | float) or (isinstance(x, str) and len(x) <= limit)

    if isinstance(value, int) and not isinstance(value, bool) and not small(value):
        return f"an integer of about {int(value.bit_length() * 0.30103) + 1} digits"  # str() would be slow, or refused
    if isinstance(value, str):
        return repr(value if len(value) <= limit else value[:limit] + "...")
    if small(value):
        return json.dumps(value)
    if isinstance(value, dict | list | tuple):
        flat = len(value) <= 8 and all(
            small(k) and small(v) for k, v in (value.items() if isinstance(value, dict) else ((0, x) for x in value))
        )
        if flat:
            with contextlib.suppress(TypeError, ValueError):
                return json.dumps(value if isinstance(value, dict) else list(value))
        kind = "an object" if isinstance(value, dict) else "a list"
        return f"{kind} of {len(value)} item{'' if len(value) == 1 else 's'}"
    return f"a {type(value).__name__}"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _choices(names: tuple[str, ...]) -> str:
    quoted = [repr(n) for n in names]
    return " or ".join(quoted) if len(quoted) == 2 else "one of " + ", ".join(quoted)


class OptionSpec:
    """The type and range of one rule option. ``problem(value)`` is None when the value is allowed, else the
    reason (naming the value and the allowed range); it is cheap whatever the value, however large or deep."""

    def describe(self) -> str:
        raise NotImplementedError

    def problem(self, value: Any) -> str | None:
        raise NotImplementedError

    def refuse(self, value: Any) -> str:
        return f"must be {self.describe()}, got {show(value)}"

    def json_schema(self) -> dict[str, Any]:
        """The same type and range as JSON Schema (the server's OpenAPI description of `options`)."""
        raise NotImplementedError


@dataclass(frozen=True)
class IntOption(OptionSpec):
    lo: int
    hi: int
    off: bool = False  # 0 is also allowed (meaning "off"), below `lo`

    def describe(self) -> str:
        text = f"an integer from {self.lo} to {self.hi}"
        return f"0 (off) or {text}" if self.off else text

    def problem(self, value: Any) -> str | None:
        if _is_int(value) and (self.lo <= value <= self.hi or (self.off and value == 0)):
            return None
        return self.refuse(value)

    def json_schema(self) -> dict[str, Any]:
        schema = {"type": "integer", "minimum": self.lo, "maximum": self.hi}
        return {"anyOf": [{"const": 0}, schema]} if self.off else schema


@dataclass(frozen=True)
class BoolOption(OptionSpec):
    def describe(self) -> str:
        return "true or false"

    def problem(self, value: Any) -> str | None:
        return None if isinstance(value, bool) else self.refuse(value)

    def json_schema(self) -> dict[str, Any]:
        return {"type": "boolean"}


@dataclass(frozen=True)
class ChoiceOption(OptionSpec):
    choices: tuple[str, ...]

    def describe(self) -> str:
        return _choices(self.choices)

    def problem(self, value: Any) -> str | None:
        return None if isinstance(value, str) and value in self.choices else self.refuse(value)

    def json_schema(self) -> dict[str, Any]:
        return {"enum": list(self.choices)}


@dataclass(frozen=True)
class PlayersOption(OptionSpec):
    lo: int
    hi: int

    def describe(self) -> str:
        return f"[min, max]: two integers with {self.lo} <= min <= max <= {self.hi}"

    def problem(self, value: Any) -> str | None:
        ok = isinstance(value, list) and len(value) == 2 and all(_is_int(p) for p in value)
        return None if ok and self.lo <= value[0] <= value[1] <= self.hi else self.refuse(value)

    def json_schema(self) -> dict[str, Any]:
        item = {"type": "integer", "minimum": self.lo, "maximum": self.hi}
        return {"type": "array", "items": item, "minItems": 2, "maxItems": 2, "description": "[min, max], min <= max"}


@dataclass(frozen=True)
class IntListOption(OptionSpec):
    max_len: int
    lo: int
    hi: int

    def describe(self) -> str:
        return f"a list of at most {self.max_len} integers, each from {self.lo} to {self.hi}"

    def problem(self, value: Any) -> str | None:
        ok = isinstance(value, list) and len(value) <= self.max_len
        return None if ok and all(_is_int(x) and self.lo <= x <= self.hi for x in value) else self.refuse(value)

    def json_schema(self) -> dict[str, Any]:
        return {"type": "array", "items": {"type": "integer", "minimum": self.lo, "maximum": self.hi}, "maxItems": self.max_len}


@dataclass(frozen=True)
class NameListOption(OptionSpec):
    choices: tuple[str, ...]

    def describe(self) -> str:
        return f"a list of distinct names, each {_choices(self.choices)}"

    def problem(self, value: Any) -> str | None:
        ok = isinstance(value, list) and len(value) <= len(self.choices)
        ok = ok and all(isinstance(x, str) and x in self.choices for x in value) and len(set(value)) == len(value)
        return None if ok else self.refuse(value)

    def json_schema(self) -> dict[str, Any]:
        return {"type": "array", "items": {"enum": list(self.choices)}, "uniqueItems": True, "maxItems": len(self.choices)}


@dataclass(frozen=True)
class PointsOption(OptionSpec):
    """{route length: points}; keys are JSON strings ("1") or, from Python, ints."""

    max_length: int
    lo: int
    hi: int

    def describe(self) -> str:
        return f'an object {{"length": points}} with lengths from 1 to {self.max_length} and points from {self.lo} to {self.hi}'

    def problem(self, value: Any) -> str | None:
        if not isinstance(value, dict) or len(value) > self.max_length:
            return self.refuse(value)
        seen: set[int] = set()
        for k, v in value.items():
            length = self.length(k)
            if length is None or length in seen or not (_is_int(v) and self.lo <= v <= self.hi):
                return self.refuse(value) if length is None or length in seen else f"length {length}: {self.refuse(v)}"
            seen.add(length)
        return None

    def length(self, key: Any) -> int | None:
        if _is_int(key):
            n = key
        elif isinstance(key, str) and 1 <= len(key) <= 3 and key.isascii() and key.isdigit() and key[0] != "0":
            n = int(key)
        else:
            return None
        return n if 1 <= n <= self.max_length else None

    def json_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "propertyNames": {"pattern": "^(" + "|".join(str(n) for n in range(1, self.max_length + 1)) + ")$"},
            "additionalProperties": {"type": "integer", "minimum": self.lo, "maximum": self.hi},
            "description": "route length -> points; every route length of the map needs an entry",
        }


MAX_TICKETS_DEALT = 10  # per deck in a fixed deal, and in total for a chosen mix
MAX_MIX_DECKS = 4  # decks to choose from in a mix: the mixes offered grow as count ** (decks - 1)
POLICY_FIELDS = ("deal", "choose_mix", "count", "decks", "keep_min", "returned")


@dataclass(frozen=True)
class PolicyOption(OptionSpec):
    """A ticket policy: its fields' types and ranges. That deck names exist and that keep_min fits the tickets
    dealt are checked with the rest of the map (``_policy``)."""

    def describe(self) -> str:
        return (
            'a ticket policy object: {"deal", "keep_min", "returned"} or '
            '{"choose_mix": true, "count", "decks", "keep_min", "returned"}'
        )

    def problem(self, value: Any) -> str | None:
        if not isinstance(value, dict):
            return self.refuse(value)
        for key in value:
            if key not in POLICY_FIELDS:
                return f"unknown field {show(key)} (known: {', '.join(POLICY_FIELDS)})"
        fields: list[tuple[str, OptionSpec, bool]] = [
            ("choose_mix", BoolOption(), False),
            ("keep_min", IntOption(0, MAX_TICKETS_DEALT), True),
            ("returned", ChoiceOption(RETURN_POLICIES), False),
        ]
        if value.get("choose_mix") is True:
            fields += [("count", IntOption(1, MAX_TICKETS_DEALT), True), ("decks", _MixDecks(), True)]
        else:
            fields.append(("deal", _Deal(), True))
        for name, spec, required in fields:
            if name not in value:
                if required:
                    return f"missing field {name!r}"
                continue
            if problem := spec.problem(value[name]):
                return f"{name}: {problem}"
        return None

    def json_schema(self) -> dict[str, Any]:
        count = {"type": "integer", "minimum": 1, "maximum": MAX_TICKETS_DEALT}
        return {
            "type": "object",
            "properties": {
                "deal": _Deal().json_schema(),
                "choose_mix": {"type": "boolean"},
                "count": count,
                "decks": _MixDecks().json_schema(),
                "keep_min": {"type": "integer", "minimum": 0, "maximum": MAX_TICKETS_DEALT},
                "returned": {"enum": list(RETURN_POLICIES)},
            },
            "required": ["keep_min"],
            "additionalProperties": False,
            "description": 'a fixed "deal", or with "choose_mix": true a "count" from "decks"; keep_min at most those dealt',
        }


@dataclass(frozen=True)
class _Deal(OptionSpec):
    def describe(self) -> str:
        return f"an object {{deck: count}} with at most {MAX_MIX_DECKS} decks, each count from 0 to {MAX_TICKETS_DEALT}"

    def problem(self, value: Any) -> str | None:
        ok = isinstance(value, dict) and len(value) <= MAX_MIX_DECKS
        ok = ok and all(
            isinstance(k, str) and len(k) <= 40 and _is_int(v) and 0 <= v <= MAX_TICKETS_DEALT for k, v in value.items()
        )
        return None if ok else self.refuse(value)

    def json_schema(self) -> dict[str, Any]:
        count = {"type": "integer", "minimum": 0, "maximum": MAX_TICKETS_DEALT}
        return {
            "type": "object",
            "additionalProperties": count,
            "maxProperties": MAX_MIX_DECKS,
            "propertyNames": {"maxLength": 40},
        }


@dataclass(frozen=True)
class _MixDecks(OptionSpec):
    def describe(self) -> str:
        return f"a list of 1 to {MAX_MIX_DECKS} distinct deck names"

    def problem(self, value: Any) -> str | None:
        ok = isinstance(value, list) and 1 <= len(value) <= MAX_MIX_DECKS
        ok = ok and all(isinstance(d, str) and len(d) <= 40 for d in value) and len(set(value)) == len(value)
        return None if ok else self.refuse(value)

    def json_schema(self) -> dict[str, Any]:
        return {
            "type": "array",
            "items": {"type": "string", "maxLength": 40},
            "minItems": 1,
            "maxItems": MAX_MIX_DECKS,
            "uniqueItems": True,
        }


ROUTE_POINTS = PointsOption(MAX_ROUTE_LENGTH, 0, 100)
REQUIRED = object()  # no default: a map file must give it

# name -> (type and range, default when a map file leaves it out)
RULE_OPTIONS: dict[str, tuple[OptionSpec, Any]] = {
    "players": (PlayersOption(1, 8), REQUIRED),
    "trains": (IntOption(1, 100), REQUIRED),
    "end_trigger_trains": (IntOption(0, 100), 2),
    "starting_hand": (IntOption(0, 20), 4),
    "market_size": (IntOption(1, 10), 5),
    "locomotive_flush": (IntOption(0, 10), 3),
    "passenger_flush": (IntOption(0, 10), 0),
    "max_consecutive_flushes": (IntOption(0, 10), 3),
    "faceup_locomotive_single": (BoolOption(), True),
    "locomotives_wild": (ChoiceOption(("all", "ferries_and_tunnels")), "all"),
    "plus4_min_length": (IntOption(0, MAX_ROUTE_LENGTH), 4),
    "ferry_substitute_cards": (IntOption(2, MAX_SUBSTITUTE, off=True), 0),
    "all_lanes_min_players": (IntOption(0, 9), 4),
    "stations": (IntOption(0, 10), 0),
    "station_costs": (IntListOption(10, 0, 10), [1, 2, 3]),
    "unused_station_points": (IntOption(0, 100), 4),
    "passengers": (IntOption(0, 10), 0),
    "passenger_one_token_per_city": (BoolOption(), True),
    "initial_tickets": (PolicyOption(), REQUIRED),
    "draw_tickets": (PolicyOption(), REQUIRED),
    "longest_path_bonus": (IntOption(0, 100), 0),
    "most_tickets_bonus": (IntOption(0, 100), 0),
    "tiebreakers": (NameListOption(TIEBREAKERS), []),
    "route_points": (ROUTE_POINTS, REQUIRED),
}


def options_json_schema() -> dict[str, Any]:
    """JSON Schema of a game's rule options: each option's type and range, no other names."""
    return {
        "type": "object",
        "properties": {name: spec.json_schema() for name, (spec, _default) in RULE_OPTIONS.items()},
        "additionalProperties": False,
    }


def option_problem(name: Any, value: Any) -> str | None:
    """Why `value` is not allowed for rule option `name` ("rules.<name>: ..."), or None. Cheap for any input."""
    entry = RULE_OPTIONS.get(name) if isinstance(name, str) else None
    if entry is None:
        return f"unknown rule option {show(name)} (known: {', '.join(RULE_OPTIONS)})"
    problem = entry[0].problem(value)
    return None if problem is None else f"rules.{name}: {problem}"


def check_options(edition: Edition, options: Any) -> None:
    """Refuse unknown rule options and values of the wrong type or out of range, naming the option, the value and
    the allowed range. Cheap whatever `options` holds, so call it before anything else looks at them."""
    label = f"{edition.id} with options"
    if not isinstance(options, dict):
        raise EditionError(f"{label}: rule options must be an object {{name: value}}, got {show(options)}")
    unknown = [k for k in options if not isinstance(k, str) or k not in RULE_OPTIONS]
    if unknown:
        names = ", ".join(k if isinstance(k, str) and len(k) <= 40 else show(k) for k in unknown[:5])
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        raise EditionError(f"{label}: unknown rule option(s) {names}{more} (known: {', '.join(RULE_OPTIONS)})")
    for name, value in options.items():
        if problem := option_problem(name, value):
            raise EditionError(f"{label}: {problem}")


def with_options(edition: Edition, options: dict[str, Any]) -> Edition:
    """The edition with rule options (house rules) applied, validated like a map file. Error messages name the
    edition by id, never by the file it was read from."""
    check_options(edition, options)
    raw = dict(edition.raw)
    raw["rules"] = {**edition.raw["rules"], **options}
    stored = f"{edition.source_path or edition.id} with options {json.dumps(options, sort_keys=True)}"
    return parse_edition(raw, f"{edition.id} with options", source_path=stored)


class _Checker:
    """Small helper that turns a bad value into an EditionError naming the file and entry."""

    def __init__(self, path: str) -> None:
        self.path = path

    def fail(self, where: str, problem: str) -> EditionError:
        return EditionError(f"{self.path}: {where}: {problem}")

    def get(self, obj: Any, key: str, kind: type | tuple[type, ...], where: str, default: Any = ...) -> Any:
        if not isinstance(obj, dict):
            raise self.fail(where, f"expected an object, got {type(obj).__name__}")
        if key not in obj:
            if default is ...:
                raise self.fail(where, f"missing field {key!r}")
            return default
        value = obj[key]
        bad_bool = isinstance(value, bool) and kind in (int, (int, float))
        if not isinstance(value, kind) or bad_bool:
            names = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
            raise self.fail(where, f"field {key!r} must be {names}, got {show(value)}")
        return value


def _policy(c: _Checker, raw: dict[str, Any], where: str, deck_names: set[str]) -> TicketPolicy:
    """A ticket policy whose fields' types and ranges PolicyOption has checked: here, against the map's decks."""
    choose_mix = raw.get("choose_mix", False)
    keep_min = raw["keep_min"]
    returned = raw.get("returned", "bottom")
    if choose_mix:
        count = raw["count"]
        decks = tuple(raw["decks"])
        deal: tuple[tuple[str, int], ...] = ()
        for d in decks:
            if d not in deck_names:
                raise c.fail(where, f"unknown ticket deck {d!r}")
        total = count
    else:
        deal = tuple(raw["deal"].items())
        for d, _n in deal:
            if d not in deck_names:
                raise c.fail(where, f"unknown ticket deck {d!r} (tickets use {sorted(deck_names)})")
        count, decks, total = 0, (), sum(n for _, n in deal)
    if not 0 <= keep_min <= total:
        raise c.fail(where, f"keep_min {keep_min} must be between 0 and the {total} tickets dealt")
    return TicketPolicy(deal, choose_mix, count, decks, keep_min, returned)


def _rule_values(c: _Checker, rr: dict[str, Any]) -> dict[str, Any]:
    """Every rule option of a map's `rules`, checked for type and range (RULE_OPTIONS), defaults filled in."""
    for name in rr:
        if not isinstance(name, str) or name not in RULE_OPTIONS:
            raise c.fail("rules", f"unknown rule option {show(name)} (known: {', '.join(RULE_OPTIONS)})")
    values: dict[str, Any] = {}
    for name, (spec, default) in RULE_OPTIONS.items():
        if name not in rr:
            if default is REQUIRED:
                raise c.fail("rules", f"missing field {name!r}")
            values[name] = default
            continue
        if problem := spec.problem(rr[name]):
            raise c.fail(f"rules.{name}", problem)
        values[name] = rr[name]
    return values


def parse_edition(raw: Any, path: str = "<edition>", *, source_path: str | None = None) -> Edition:
    """Validate a decoded map file and build the Edition. Raises EditionError naming `path`, the entry and the
    problem. `source_path` (default `path`) is what the edition records as its origin."""
    c = _Checker(path)
    if not isinstance(raw, dict):
        raise c.fail("top level", "expected a JSON object")
    fmt = c.get(raw, "format", int, "top level")
    if fmt != FORMAT_VERSION:
        raise c.fail("format", f"unsupported format {fmt} (this ttr reads format {FORMAT_VERSION})")
    eid = c.get(raw, "id", str, "top level")
    name = c.get(raw, "name", str, "top level")

    # deck
    deck_raw = c.get(raw, "deck", dict, "top level")
    deck = [0] * NCARDS
    for k, v in deck_raw.items():
        if k not in CARD_INDEX:
            raise c.fail(f"deck.{k}", f"unknown card kind (known: {', '.join(CARD_NAMES)})")
        if not _is_int(v) or not 0 <= v <= MAX_DECK_COUNT:
            raise c.fail(f"deck.{k}", f"count must be an integer from 0 to {MAX_DECK_COUNT}, got {show(v)}")
        deck[CARD_INDEX[k]] = v

    # cities
    cities_raw = c.get(raw, "cities", list, "top level")
    ids: list[str] = []
    names: list[str] = []
    areas: list[str | None] = []
    lats: list[float] = []
    lons: list[float] = []
    city_index: dict[str, int] = {}
    for i, cr in enumerate(cities_raw):
        where = f"cities[{i}]"
        cid = c.get(cr, "id", str, where)
        where = f"cities[{i}] ({cid!r})"
        if cid in city_index:
            raise c.fail(where, "duplicate city id")
        lat = c.get(cr, "lat", (int, float), where)
        lon = c.get(cr, "lon", (int, float), where)
        if not (-90 <= lat <= 90 and -180 <= lon <= 180):
            raise c.fail(where, f"latitude/longitude out of range: {lat}, {lon}")
        city_index[cid] = i
        ids.append(cid)
        names.append(c.get(cr, "name", str, where, cid))
        areas.append(c.get(cr, "area", str, where, None))
        lats.append(float(lat))
        lons.append(float(lon))
    area_nodes: dict[str, list[int]] = {}
    for i, a in enumerate(areas):
        if a is not None:
            if a in city_index:
                raise c.fail(f"cities[{i}] ({ids[i]!r})", f"area {a!r} clashes with a city id")
            area_nodes.setdefault(a, []).append(i)

    # rules: each option's type and range (RULE_OPTIONS), then what depends on the rest of the map
    rr = c.get(raw, "rules", dict, "top level")
    v = _rule_values(c, rr)
    route_points: dict[int, int] = {}
    for k, n in v["route_points"].items():  # keys were checked with the option's range above
        length = ROUTE_POINTS.length(k)
        if length is not None:
            route_points[length] = n

    # tickets (needed for deck names before policies)
    tickets_raw = c.get(raw, "tickets", list, "top level")
    deck_names = {c.get(t, "deck", str, f"tickets[{i}]", "regular") for i, t in enumerate(tickets_raw)}
    deck_names |= {"regular"}

    if v["stations"] > len(v["station_costs"]):
        raise c.fail("rules.station_costs", f"needs a cost for each of the {v['stations']} stations")
    rules = Rules(
        players=(v["players"][0], v["players"][1]),
        trains=v["trains"],
        end_trigger_trains=v["end_trigger_trains"],
        starting_hand=v["starting_hand"],
        market_size=v["market_size"],
        locomotive_flush=v["locomotive_flush"],
        passenger_flush=v["passenger_flush"],
        max_consecutive_flushes=v["max_consecutive_flushes"],
        faceup_locomotive_single=v["faceup_locomotive_single"],
        locomotives_wild=v["locomotives_wild"],
        plus4_min_length=v["plus4_min_length"],
        ferry_substitute_cards=v["ferry_substitute_cards"],
        all_lanes_min_players=v["all_lanes_min_players"],
        stations=v["stations"],
        station_costs=tuple(v["station_costs"]),
        unused_station_points=v["unused_station_points"],
        passengers=v["passengers"],
        passenger_one_token_per_city=v["passenger_one_token_per_city"],
        initial_tickets=_policy(c, v["initial_tickets"], "rules.initial_tickets", deck_names),
        draw_tickets=_policy(c, v["draw_tickets"], "rules.draw_tickets", deck_names),
        longest_path_bonus=v["longest_path_bonus"],
        most_tickets_bonus=v["most_tickets_bonus"],
        tiebreakers=tuple(v["tiebreakers"]),
        route_points=route_points,
    )

    # routes
    routes_raw = c.get(raw, "routes", list, "top level")
    routes: list[Route] = []
    route_index: dict[str, int] = {}
    group_ids: dict[str, int] = {}
    group_members: list[list[int]] = []
    for i, rraw in enumerate(routes_raw):
        where = f"routes[{i}]"
        rid = c.get(rraw, "id", str, where)
        where = f"routes[{i}] ({rid!r})"
        if rid in route_index:
            raise c.fail(where, "duplicate route id")
        a = c.get(rraw, "a", str, where)
        b = c.get(rraw, "b", str, where)
        for end in (a, b):
            if end not in city_index:
                raise c.fail(where, f"unknown city {end!r}")
        if a == b:
            raise c.fail(where, "a route must join two different cities")
        length = c.get(rraw, "length", int, where)
        if not 1 <= length <= MAX_ROUTE_LENGTH:
            raise c.fail(where, f"length must be an integer from 1 to {MAX_ROUTE_LENGTH}, got {show(length)}")
        if length not in route_points:
            raise c.fail(where, f"length {length} has no entry in rules.route_points")
        colour_name = c.get(rraw, "color", str, where)
        if colour_name == "gray":
            colour = GRAY
        elif colour_name in COLOURS:
            colour = COLOURS.index(colour_name)
        else:
            raise c.fail(where, f"unknown colour {colour_name!r} (gray or one of {', '.join(COLOURS)})")
        ferry = c.get(rraw, "ferry", int, where, 0)
        if not 0 <= ferry <= length:
            raise c.fail(where, f"ferry icons must be between 0 and the length, got {show(ferry)}")
        group_name = c.get(rraw, "group", str, where, None)
        group = -1
        if group_name is not None:
            if group_name not in group_ids:
                group_ids[group_name] = len(group_members)
                group_members.append([])
            group = group_ids[group_name]
            group_members[group].append(i)
        substitute = c.get(rraw, "substitute", int, where, 0)
        if not (substitute == 0 or 2 <= substitute <= MAX_SUBSTITUTE):
            raise c.fail(where, f"substitute must be 0 (none) or an integer from 2 to {MAX_SUBSTITUTE}, got {show(substitute)}")
        route_index[rid] = i
        routes.append(
            Route(
                i,
                rid,
                city_index[a],
                city_index[b],
                length,
                colour,
                c.get(rraw, "tunnel", bool, where, False),
                ferry,
                group,
                substitute,
                route_points[length],
            )
        )
    for g, members in enumerate(group_members):
        lane_ends = {frozenset((routes[m].a, routes[m].b)) for m in members}
        if len(lane_ends) != 1:
            name_g = next(k for k, v in group_ids.items() if v == g)
            raise c.fail(f"routes group {name_g!r}", "parallel lanes must join the same two cities")

    # tickets
    tickets: list[Ticket] = []
    ticket_index: dict[str, int] = {}

    def ends(label: str, where: str) -> tuple[int, ...]:
        if label in city_index:
            return (city_index[label],)
        if label in area_nodes:
            return tuple(area_nodes[label])
        raise c.fail(where, f"unknown city or area {label!r}")

    for i, traw in enumerate(tickets_raw):
        where = f"tickets[{i}]"
        tid = c.get(traw, "id", str, where)
        where = f"tickets[{i}] ({tid!r})"
        if tid in ticket_index:
            raise c.fail(where, "duplicate ticket id")
        a = c.get(traw, "a", str, where)
        b = c.get(traw, "b", str, where)
        points = c.get(traw, "points", int, where)
        if not 1 <= points <= MAX_TICKET_POINTS:
            raise c.fail(where, f"points must be an integer from 1 to {MAX_TICKET_POINTS}, got {show(points)}")
        ticket_index[tid] = i
        tickets.append(Ticket(i, tid, a, b, ends(a, where), ends(b, where), points, c.get(traw, "deck", str, where, "regular")))

    merch: list[tuple[int, ...]] = [() for _ in ids]
    for cid, stack in c.get(raw, "merchandise", dict, "top level", {}).items():
        if cid not in city_index:
            raise c.fail(f"merchandise.{cid}", "unknown city")
        if areas[city_index[cid]] is not None:
            raise c.fail(f"merchandise.{cid}", "country areas carry no merchandise")
        ok = isinstance(stack, list) and len(stack) <= MAX_MERCHANDISE
        if not ok or not all(_is_int(v) and 1 <= v <= MAX_TICKET_POINTS for v in stack):
            raise c.fail(
                f"merchandise.{cid}",
                f"must be a list of at most {MAX_MERCHANDISE} token values from 1 to {MAX_TICKET_POINTS}, top first",
            )
        merch[city_index[cid]] = tuple(stack)

    adjacency: list[list[tuple[int, int]]] = [[] for _ in ids]
    for r in routes:
        adjacency[r.a].append((r.index, r.b))
        adjacency[r.b].append((r.index, r.a))

    if sum(deck) < rules.market_size:
        raise c.fail("deck", "fewer cards than market slots")

    return Edition(
        id=eid,
        name=name,
        title=c.get(raw, "title", str, "top level", name),
        notes=tuple(c.get(raw, "notes", list, "top level", [])),
        credit=c.get(raw, "coordinates_credit", str, "top level", ""),
        rules=rules,
        deck=tuple(deck),
        city_ids=tuple(ids),
        city_names=tuple(names),
        city_area=tuple(areas),
        lat=tuple(lats),
        lon=tuple(lons),
        routes=tuple(routes),
        tickets=tuple(tickets),
        merchandise=tuple(merch),
        source_path=path if source_path is None else source_path,
        city_index=city_index,
        route_index=route_index,
        ticket_index=ticket_index,
        group_routes=tuple(tuple(m) for m in group_members),
        adjacency=tuple(tuple(a) for a in adjacency),
        ticket_decks=tuple(sorted({t.deck for t in tickets})),
        raw=raw,
    )


def load_edition_file(path: str | Path) -> Edition:
    p = Path(path)
    try:
        raw = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise EditionError(f"{p}: cannot read: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise EditionError(f"{p}: not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    return parse_edition(raw, str(p))
