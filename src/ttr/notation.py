"""Move notation: a short, human-readable text form of every action, parseable back exactly.

    blind                                 draw the top card of the deck
    draw 3                                take face-up card 3 (market slots 1-5, left to right)
    tickets                               draw destination tickets
    tickets long=1,short=3                ... naming the short/long mix (Märklin)
    keep boston-miami,denver-el-paso      keep these of the tickets offered
    claim denver-omaha 3red+1L            claim a route, paying 3 red cards and 1 locomotive
    pay 1blue+1L                          pay a tunnel's extra cards
    decline                               give up the tunnel
    station berlin 2black                 build a station (Europe)
    place hamburg / place none            place a passenger after a claim, or not (Märklin)
    move hamburg>bremen>hannover +1P      move a passenger along those cities, 1 passenger card (Märklin)
    pass                                  when nothing else is legal

Cards are ``<count><kind>`` joined by ``+``: the colour names, ``L`` a locomotive, ``L4`` a +4 locomotive
(Märklin), ``P`` a passenger card (Märklin); full card names are accepted too. In ``move``, a hop over
one of several parallel lanes names the lane (``bremen/2``, the route id's suffix) or, on a custom map
whose ids carry none, the route (``bremen@route-id``). See docs/notation.md.

``format_move(game, action)`` and ``parse_move(game, text)`` round-trip exactly for every legal action;
the game is needed for the map (which cities a route joins). Parsing checks form, not legality: apply
the action to learn whether it is legal now. Errors are ``NotationError`` (a ``MalformedAction``),
naming what did not match.
"""

from __future__ import annotations

import difflib
import re

from .cards import CARD_INDEX, CARD_NAMES, NCARDS, Cards
from .editions import Edition
from .engine import Action, Game
from .engine.actions import (
    BUILD_STATION,
    CLAIM,
    DRAW_BLIND,
    DRAW_FACEUP,
    DRAW_TICKETS,
    KEEP_TICKETS,
    MOVE_PASSENGER,
    PASS,
    PLACE_PASSENGER,
    TUNNEL_DECLINE,
    TUNNEL_PAY,
    normalise_mix,
)
from .errors import MalformedAction

SHORT_CARD: dict[str, str] = {"locomotive": "L", "locomotive_plus4": "L4", "passenger": "P"}
_CARD_CODE: dict[str, int] = {**CARD_INDEX, **{short.lower(): CARD_INDEX[name] for name, short in SHORT_CARD.items()}}
_CARD_TOKEN = re.compile(r"(\d+)([A-Za-z_0-9]+?)")
MAX_TEXT = 2000  # longer input is refused before any work


class NotationError(MalformedAction):
    """Text that is not a move in the notation; the message says what did not match."""


# ---------------------------------------------------------------------- formatting
def format_cards(cards: Cards) -> str:
    """(3 red, 1 locomotive) -> '3red+1L'; no cards -> '0'."""
    parts = [f"{n}{SHORT_CARD.get(CARD_NAMES[i], CARD_NAMES[i])}" for i, n in enumerate(cards) if n]
    return "+".join(parts) or "0"


def format_move(game: Game, action: Action) -> str:
    """The notation of `action` in `game` (its map names the cities a passenger's route passes)."""
    kind = action.type
    if kind == DRAW_BLIND:
        return "blind"
    if kind == DRAW_FACEUP:
        assert action.slot is not None
        return f"draw {action.slot + 1}"
    if kind == DRAW_TICKETS:
        if action.mix:
            return "tickets " + ",".join(f"{deck}={n}" for deck, n in action.mix)
        return "tickets"
    if kind == KEEP_TICKETS:
        return "keep " + ",".join(action.tickets or ())
    if kind == CLAIM:
        assert action.cards is not None
        return f"claim {action.route} {format_cards(action.cards)}"
    if kind == TUNNEL_PAY:
        assert action.cards is not None
        return f"pay {format_cards(action.cards)}"
    if kind == TUNNEL_DECLINE:
        return "decline"
    if kind == BUILD_STATION:
        assert action.cards is not None
        return f"station {action.city} {format_cards(action.cards)}"
    if kind == PLACE_PASSENGER:
        return f"place {action.city if action.city is not None else 'none'}"
    if kind == MOVE_PASSENGER:
        assert action.city is not None and action.path is not None
        text = f"move {_format_path(game.edition, action.city, action.path)}"
        if action.cards and any(action.cards):
            text += f" +{format_cards(action.cards)}"
        return text
    if kind == PASS:
        return "pass"
    raise NotationError(f"no notation for action type {kind!r}")


def _format_path(ed: Edition, start: str, path: tuple[str, ...]) -> str:
    index = {r.id: r for r in ed.routes}
    here = ed.city_index[start]
    hops = [start]
    for rid in path:
        route = index.get(rid)
        if route is None or here not in (route.a, route.b):
            raise NotationError(f"route {rid!r} does not leave {ed.city_ids[here]!r}")
        there = route.b if route.a == here else route.a
        token = ed.city_ids[there]
        if len(_between(ed, here, there)) > 1:
            lane = rid.rpartition("/")[2] if "/" in rid else ""
            token += f"/{lane}" if lane and _lane(ed, here, there, lane) is route else f"@{rid}"
        hops.append(token)
        here = there
    return ">".join(hops)


def _between(ed: Edition, a: int, b: int) -> list:  # routes joining two cities
    return [r for r in ed.routes if {r.a, r.b} == {a, b}]


def _lane(ed: Edition, a: int, b: int, lane: str) -> object:
    found = [r for r in _between(ed, a, b) if r.id.rpartition("/")[2] == lane and "/" in r.id]
    return found[0] if len(found) == 1 else None


# ---------------------------------------------------------------------- parsing
def parse_cards(text: str) -> Cards:
    """'3red+1L' -> counts tuple (see the module docstring for the card codes)."""
    counts = [0] * NCARDS
    if text == "0":
        return tuple(counts)
    for token in text.split("+"):
        m = _CARD_TOKEN.fullmatch(token)
        if not m:
            raise NotationError(f"cards: {token!r} is not <count><card>, e.g. 3red or 1L")
        n, code = int(m.group(1)), m.group(2).lower()
        idx = _CARD_CODE.get(code)
        if idx is None:
            raise NotationError(f"cards: unknown card {m.group(2)!r} (colours, L, L4, P, or a full card name)")
        if counts[idx]:
            raise NotationError(f"cards: {m.group(2)!r} is named twice")
        if n == 0:
            raise NotationError(f"cards: {token!r} has a count of 0")
        counts[idx] = n
    return tuple(counts)


def _known(kind: str, value: str, known: list[str] | tuple[str, ...]) -> str:
    if value in known:
        return value
    near = difflib.get_close_matches(value, known, n=1)
    hint = f" (did you mean {near[0]!r}?)" if near else ""
    raise NotationError(f"unknown {kind} {value!r}{hint}")


def parse_move(game: Game, text: str) -> Action:
    """The action written as `text` (see the module docstring). Raises NotationError."""
    if not isinstance(text, str):
        raise NotationError(f"a move is text, got {type(text).__name__}")
    if len(text) > MAX_TEXT:
        raise NotationError(f"a move is at most {MAX_TEXT} characters")
    words = text.split()
    if not words:
        raise NotationError("empty move")
    verb, args = words[0].lower(), words[1:]
    ed = game.edition

    def arity(*allowed: int) -> None:
        if len(args) not in allowed:
            want = " or ".join(str(n) for n in allowed)
            raise NotationError(f"{verb!r} takes {want} argument(s), got {len(args)}: {text!r}")

    if verb == "blind":
        arity(0)
        return Action(DRAW_BLIND)
    if verb == "draw":
        arity(1)
        if not args[0].isdigit() or not 1 <= int(args[0]) <= len(game.market):
            raise NotationError(f"draw: slot must be 1-{len(game.market)}, got {args[0]!r}")
        return Action(DRAW_FACEUP, slot=int(args[0]) - 1)
    if verb == "tickets":
        arity(0, 1)
        if not args:
            return Action(DRAW_TICKETS)
        mix: dict[str, int] = {}
        for part in args[0].split(","):
            deck, eq, n = part.partition("=")
            if not eq or not n.isdigit() or not deck:
                raise NotationError(f"tickets: {part!r} is not <deck>=<count>, e.g. short=3")
            if deck in mix:
                raise NotationError(f"tickets: deck {deck!r} is named twice")
            mix[deck] = int(n)
        return Action(DRAW_TICKETS, mix=normalise_mix(mix))
    if verb == "keep":
        arity(1)
        ids = args[0].split(",")
        known = [t.id for t in ed.tickets]
        for tid in ids:
            _known("ticket", tid, known)
        if len(set(ids)) != len(ids):
            raise NotationError("keep: a ticket is named twice")
        return Action(KEEP_TICKETS, tickets=tuple(sorted(ids)))
    if verb == "claim":
        arity(2)
        route = _known("route", args[0], [r.id for r in ed.routes])
        return Action(CLAIM, route=route, cards=parse_cards(args[1]))
    if verb == "pay":
        arity(1)
        return Action(TUNNEL_PAY, cards=parse_cards(args[0]))
    if verb == "decline":
        arity(0)
        return Action(TUNNEL_DECLINE)
    if verb == "station":
        arity(2)
        city = _known("city", args[0], ed.city_ids)
        return Action(BUILD_STATION, city=city, cards=parse_cards(args[1]))
    if verb == "place":
        arity(1)
        if args[0].lower() == "none":
            return Action(PLACE_PASSENGER)
        return Action(PLACE_PASSENGER, city=_known("city", args[0], ed.city_ids))
    if verb == "move":
        arity(1, 2)
        cards = parse_cards(args[1][1:]) if len(args) == 2 and args[1].startswith("+") else None
        if len(args) == 2 and cards is None:
            raise NotationError(f"move: the cards come after a '+', e.g. +1P, got {args[1]!r}")
        start, path = _parse_path(ed, args[0])
        return Action(MOVE_PASSENGER, city=start, path=path, cards=cards or tuple([0] * NCARDS))
    if verb == "pass":
        arity(0)
        return Action(PASS)
    raise NotationError(
        f"unknown move {words[0]!r} (blind, draw, tickets, keep, claim, pay, decline, station, place, move, pass)"
    )


def _parse_path(ed: Edition, text: str) -> tuple[str, tuple[str, ...]]:
    hops = text.split(">")
    if len(hops) < 2:
        raise NotationError(f"move: give the cities as start>next>..., got {text!r}")
    start = _known("city", hops[0], ed.city_ids)
    here = ed.city_index[start]
    path: list[str] = []
    for hop in hops[1:]:
        name, sep, rid = hop.partition("@")
        lane = ""
        if not sep:
            name, _, lane = hop.partition("/")
        there = ed.city_index[_known("city", name, ed.city_ids)]
        between = _between(ed, here, there)
        if not between:
            raise NotationError(f"move: no route joins {ed.city_ids[here]!r} and {name!r}")
        if sep:
            chosen = [r for r in between if r.id == rid]
        elif lane:
            chosen = [r for r in between if "/" in r.id and r.id.rpartition("/")[2] == lane]
        else:
            chosen = between
        if len(chosen) != 1:
            lanes = ", ".join(r.id for r in between)
            raise NotationError(f"move: name the lane between {ed.city_ids[here]!r} and {name!r} (routes: {lanes})")
        path.append(chosen[0].id)
        here = there
    return start, tuple(path)
