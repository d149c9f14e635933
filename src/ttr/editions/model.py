"""An edition = a map (cities, routes, tickets, deck, merchandise) + rule options, loaded and validated.

Everything the engine needs is precomputed here as integer-indexed tuples so the hot path never
looks anything up by name. The file format is documented in docs/map-format.md.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..cards import CARD_INDEX, CARD_NAMES, COLOURS, GRAY, NCARDS
from ..errors import EditionError

FORMAT_VERSION = 1
TIEBREAKERS = ("tickets_completed", "longest_path_bonus", "longest_path_length", "fewest_stations")
RETURN_POLICIES = ("bottom", "remove", "bottom_then_shuffle")


@dataclass(frozen=True, slots=True)
class Route:
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
class Ticket:
    index: int
    id: str
    a: str  # city or area id as printed
    b: str
    a_nodes: tuple[int, ...]  # every node that satisfies end a (a country area has several)
    b_nodes: tuple[int, ...]
    points: int
    deck: str


@dataclass(frozen=True, slots=True)
class TicketPolicy:
    """How tickets are dealt at setup or drawn during play."""

    deal: tuple[tuple[str, int], ...]  # fixed deal: (deck, count) pairs, in deal order
    choose_mix: bool  # the player names how many come from each deck (Märklin)
    count: int  # with choose_mix: cards drawn in total
    decks: tuple[str, ...]  # with choose_mix: the decks to choose from
    keep_min: int
    returned: str  # bottom | remove | bottom_then_shuffle


@dataclass(frozen=True, slots=True)
class Rules:
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
class Edition:
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
            raise self.fail(where, f"field {key!r} must be {names}, got {value!r}")
        return value


def _policy(c: _Checker, raw: Any, where: str, deck_names: set[str]) -> TicketPolicy:
    choose_mix = c.get(raw, "choose_mix", bool, where, False)
    keep_min = c.get(raw, "keep_min", int, where)
    returned = c.get(raw, "returned", str, where, "bottom")
    if returned not in RETURN_POLICIES:
        raise c.fail(where, f"'returned' must be one of {RETURN_POLICIES}, got {returned!r}")
    if choose_mix:
        count = c.get(raw, "count", int, where)
        decks = tuple(c.get(raw, "decks", list, where))
        deal: tuple[tuple[str, int], ...] = ()
        for d in decks:
            if d not in deck_names:
                raise c.fail(where, f"unknown ticket deck {d!r}")
        total = count
    else:
        deal_raw = c.get(raw, "deal", dict, where)
        deal = tuple((str(k), int(v)) for k, v in deal_raw.items())
        for d, n in deal:
            if d not in deck_names:
                raise c.fail(where, f"unknown ticket deck {d!r} (tickets use {sorted(deck_names)})")
            if n < 0:
                raise c.fail(where, f"negative deal for deck {d!r}")
        count, decks, total = 0, (), sum(n for _, n in deal)
    if not 0 <= keep_min <= total:
        raise c.fail(where, f"keep_min {keep_min} must be between 0 and the {total} tickets dealt")
    return TicketPolicy(deal, choose_mix, count, decks, keep_min, returned)


def parse_edition(raw: Any, path: str = "<edition>") -> Edition:
    """Validate a decoded map file and build the Edition. Raises EditionError naming the problem."""
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
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise c.fail(f"deck.{k}", f"count must be a non-negative integer, got {v!r}")
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

    # rules
    rr = c.get(raw, "rules", dict, "top level")
    route_points_raw = c.get(rr, "route_points", dict, "rules")
    try:
        route_points = {int(k): int(v) for k, v in route_points_raw.items()}
    except (TypeError, ValueError) as exc:
        raise c.fail("rules.route_points", f"keys and values must be integers ({exc})") from None

    # tickets (needed for deck names before policies)
    tickets_raw = c.get(raw, "tickets", list, "top level")
    deck_names = {c.get(t, "deck", str, f"tickets[{i}]", "regular") for i, t in enumerate(tickets_raw)}
    deck_names |= {"regular"}

    players = c.get(rr, "players", list, "rules")
    if len(players) != 2 or not all(isinstance(p, int) for p in players) or not 1 <= players[0] <= players[1] <= 8:
        raise c.fail("rules.players", f"must be [min, max] player counts, got {players!r}")
    wild = c.get(rr, "locomotives_wild", str, "rules", "all")
    if wild not in ("all", "ferries_and_tunnels"):
        raise c.fail("rules.locomotives_wild", f"must be 'all' or 'ferries_and_tunnels', got {wild!r}")
    tiebreakers = tuple(c.get(rr, "tiebreakers", list, "rules", []))
    for t in tiebreakers:
        if t not in TIEBREAKERS:
            raise c.fail("rules.tiebreakers", f"unknown tie-breaker {t!r} (known: {', '.join(TIEBREAKERS)})")
    station_costs = tuple(c.get(rr, "station_costs", list, "rules", [1, 2, 3]))
    stations = c.get(rr, "stations", int, "rules", 0)
    if stations > len(station_costs):
        raise c.fail("rules.station_costs", f"needs a cost for each of the {stations} stations")
    rules = Rules(
        players=(players[0], players[1]),
        trains=c.get(rr, "trains", int, "rules"),
        end_trigger_trains=c.get(rr, "end_trigger_trains", int, "rules", 2),
        starting_hand=c.get(rr, "starting_hand", int, "rules", 4),
        market_size=c.get(rr, "market_size", int, "rules", 5),
        locomotive_flush=c.get(rr, "locomotive_flush", int, "rules", 3),
        passenger_flush=c.get(rr, "passenger_flush", int, "rules", 0),
        max_consecutive_flushes=c.get(rr, "max_consecutive_flushes", int, "rules", 3),
        faceup_locomotive_single=c.get(rr, "faceup_locomotive_single", bool, "rules", True),
        locomotives_wild=wild,
        plus4_min_length=c.get(rr, "plus4_min_length", int, "rules", 4),
        ferry_substitute_cards=c.get(rr, "ferry_substitute_cards", int, "rules", 0),
        all_lanes_min_players=c.get(rr, "all_lanes_min_players", int, "rules", 4),
        stations=stations,
        station_costs=station_costs,
        unused_station_points=c.get(rr, "unused_station_points", int, "rules", 4),
        passengers=c.get(rr, "passengers", int, "rules", 0),
        passenger_one_token_per_city=c.get(rr, "passenger_one_token_per_city", bool, "rules", True),
        initial_tickets=_policy(c, c.get(rr, "initial_tickets", dict, "rules"), "rules.initial_tickets", deck_names),
        draw_tickets=_policy(c, c.get(rr, "draw_tickets", dict, "rules"), "rules.draw_tickets", deck_names),
        longest_path_bonus=c.get(rr, "longest_path_bonus", int, "rules", 0),
        most_tickets_bonus=c.get(rr, "most_tickets_bonus", int, "rules", 0),
        tiebreakers=tiebreakers,
        route_points=route_points,
    )
    if rules.market_size < 1 or rules.trains < 1:
        raise c.fail("rules", "market_size and trains must be positive")

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
        if length < 1:
            raise c.fail(where, f"length must be at least 1, got {length}")
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
            raise c.fail(where, f"ferry icons must be between 0 and the length, got {ferry}")
        group_name = c.get(rraw, "group", str, where, None)
        group = -1
        if group_name is not None:
            if group_name not in group_ids:
                group_ids[group_name] = len(group_members)
                group_members.append([])
            group = group_ids[group_name]
            group_members[group].append(i)
        substitute = c.get(rraw, "substitute", int, where, 0)
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
        if points <= 0:
            raise c.fail(where, f"points must be positive, got {points}")
        ticket_index[tid] = i
        tickets.append(Ticket(i, tid, a, b, ends(a, where), ends(b, where), points, c.get(traw, "deck", str, where, "regular")))

    merch: list[tuple[int, ...]] = [() for _ in ids]
    for cid, stack in c.get(raw, "merchandise", dict, "top level", {}).items():
        if cid not in city_index:
            raise c.fail(f"merchandise.{cid}", "unknown city")
        if areas[city_index[cid]] is not None:
            raise c.fail(f"merchandise.{cid}", "country areas carry no merchandise")
        if not isinstance(stack, list) or not all(isinstance(v, int) and v > 0 for v in stack):
            raise c.fail(f"merchandise.{cid}", "must be a list of positive token values, top first")
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
        source_path=path,
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
