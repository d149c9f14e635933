"""Scenarios: an exact game position written as a few lines of text, for tests and docs.

    europe 2p seed 0                     the base game, just past setup (every seat kept the tickets dealt)
    p0 hand 3red+1L                      a hand, in the move notation's cards (players not named: empty)
    hands none                           every hand empty (also routes none, tickets none, stations none)
    p0 routes essen-frankfurt, essen-kobenhavn/1   routes owned (trains and scores follow)
    p0 tickets frankfurt-kobenhavn       tickets held (players not named: none)
    p0 stations roma                     stations built (stations left follow)
    p1 passengers hamburg, none, gone    Märklin passengers
    market red, red, blue, L, -          the face-up slots (- empty)
    deck red, blue                       the next cards of the deck, first drawn first
    discard red                          the discard pile
    rest deck                            where every card not named goes: deck, discard, or a player (p1)
    ticket deck a-b, c-d                 the regular ticket deck, top first
    ticket deck long a-b, c-d            a named ticket deck (Europe's long, Märklin's short and long)
    merchandise hamburg 2, 1             a city's merchandise stack, top first
    current 1                            any other field of the position: an integer, integers, or a word

``scenario(text)`` builds the game (``scenario(text, game)`` starts from `game` instead of a first line);
``arrange(game, ...)`` is the same with Python arguments. Every card of the edition is placed somewhere
definite (``rest``), so a scenario is always a complete position, read back through ``Game.from_dict``
and its checks. Errors are ``ScenarioError`` (a ``ValueError``) naming the line. See docs/notation.md.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from .cards import CARD_NAMES
from .editions import Edition
from .engine import Action, Game
from .errors import TTRError
from .notation import _CARD_CODE, NotationError, parse_cards

__all__ = ["ScenarioError", "arrange", "scenario", "started"]


class ScenarioError(TTRError):
    """A scenario that does not describe a position; the message names the line or the part."""


def started(edition: str | Edition, players: int = 2, seed: int = 0, options: dict[str, Any] | None = None) -> Game:
    """A game just past setup: every player kept all the tickets dealt (Märklin: after naming 2 short + 2 long)."""
    g = Game(edition, players, seed, options)
    while g.phase == "setup":
        if not g.offered[g.current]:  # Märklin deals only once the player has named a mix
            g.apply(Action("draw_tickets", mix=(("long", 2), ("short", 2))))
        g.apply(Action("keep_tickets", tickets=tuple(sorted(g.edition.tickets[t].id for t in g.offered[g.current]))))
    return g


def _full_deck(ed: Edition) -> Counter[str]:
    return Counter({CARD_NAMES[i]: k for i, k in enumerate(ed.deck) if k})


def arrange(
    g: Game,
    *,
    hands: Mapping[int, Mapping[str, int]] | None = None,
    market: Sequence[str | None] | None = None,
    deck_top: Sequence[str] = (),
    discard: Sequence[str] = (),
    rest: str | int = "deck",
    routes: Mapping[str, int] | None = None,
    stations: Mapping[str, int] | None = None,
    tickets: Mapping[int, Sequence[str]] | Sequence[Sequence[str]] | None = None,
    ticket_deck: Sequence[str] | Mapping[str, Sequence[str]] | None = None,
    passengers: Sequence[Sequence[str | None]] | None = None,
    merchandise: Mapping[str, Sequence[int]] | None = None,
    **fields: Any,
) -> Game:
    """A new game: `g`'s position with the given parts replaced.

    hands: player -> card counts (players not named get an empty hand; None keeps every hand).
    market: the face-up slots (None = empty slot). By default the market is kept, or, if the cards
      named elsewhere leave too few of its colours, filled with the most plentiful colour.
    deck_top: the next cards of the deck, the first one drawn first. discard: the discard pile.
    rest: where every remaining card of the edition goes: "deck" (under deck_top), "discard",
      or a player index (into that hand), so the card totals always match the edition.
    routes: route id -> owner; trains and scores (routes plus merchandise tokens) follow.
    stations: city -> owner (stations left follow).
    tickets: per player (mapping or list), the ticket ids held; they leave the ticket decks, and the
      tickets held before that are not named go out of the game (still counted).
    ticket_deck: the regular ticket deck, top first; or deck name -> that deck, top first (the decks not
      named keep theirs).
    passengers: per player, city ids / None / "gone". merchandise: city -> stack, top first (cities not
      named keep theirs).
    fields: any other key of ``to_dict()`` (phase, current, trains, tokens, ...), set as is.
    """
    d = g.to_dict()
    ed = g.edition
    n = g.n
    if hands is not None:
        d["hands"] = [dict(hands.get(p, {})) for p in range(n)]
    d["discard"] = list(discard)
    d["deck"] = list(reversed(deck_top))
    have = _full_deck(ed)
    left = have.copy()
    for h in d["hands"]:
        left.subtract(h)
    left.subtract(d["discard"])
    left.subtract(d["deck"])
    if market is None:
        market = d["market"]
        if any(left[c] < k for c, k in Counter(c for c in market if c is not None).items()):
            market = [max(CARD_NAMES[:8], key=lambda c: left[c])] * len(market)
    d["market"] = list(market)
    left.subtract(c for c in market if c is not None)
    for name, extra in left.items():
        if extra < 0:
            raise ScenarioError(f"the arrangement uses {have[name] - extra} {name} cards; the edition has {have[name]}")
    spare = list(left.elements())
    if rest == "deck":
        d["deck"] = spare + d["deck"]
    elif rest == "discard":
        d["discard"] += spare
    else:
        hand = Counter(d["hands"][int(rest)])
        hand.update(spare)
        d["hands"][int(rest)] = dict(hand)
    if routes is not None:
        d["routes"] = dict(routes)
        owned = [[ed.routes[ed.route_index[r]] for r, o in routes.items() if o == p] for p in range(n)]
        d["trains"] = [g.rules.trains - sum(r.length for r in owned[p]) for p in range(n)]
        d["scores"] = [sum(r.points for r in owned[p]) + sum(d["tokens"][p]) for p in range(n)]
    if stations is not None:
        d["stations"] = dict(stations)
        d["stations_left"] = [g.rules.stations - sum(1 for o in stations.values() if o == p) for p in range(n)]
    if tickets is not None:
        by_player = tickets if isinstance(tickets, Mapping) else dict(enumerate(tickets))
        held = [list(by_player.get(p, [])) for p in range(n)]
        named = {t for ts in held for t in ts}
        dropped = [t for ts in d["tickets"] for t in ts if t not in named]
        d["tickets"] = held
        d["ticket_decks"] = {k: [t for t in v if t not in named] for k, v in d["ticket_decks"].items()}
        d["removed_tickets"] = [t for t in d["removed_tickets"] if t not in named] + dropped
    if ticket_deck is not None:
        named_decks = ticket_deck if isinstance(ticket_deck, Mapping) else {"regular": ticket_deck}
        d["ticket_decks"] = {**d["ticket_decks"], **{k: list(reversed(v)) for k, v in named_decks.items()}}
    if passengers is not None:
        d["passengers"] = [list(ps) for ps in passengers]
    if merchandise is not None:
        d["merchandise"].update({c: list(s) for c, s in merchandise.items()})
    d.update(fields)
    return Game.from_dict(d, g.base_edition)


# ------------------------------------------------------------------ text
_HEADER = re.compile(r"(?P<edition>[a-z][a-z0-9_-]*)\s+(?P<players>\d+)p(?:\s+seed\s+(?P<seed>-?\d+))?")
_PLAYER = re.compile(r"p(?P<p>\d+)\s+(?P<what>hand|routes|tickets|stations|passengers)\b\s*(?P<rest>.*)")


_NONE = {"hands": "hands", "routes": "routes", "tickets": "tickets", "stations": "stations"}


# position keys written with their own lines above (or not at all)
_NOT_FIELDS = frozenset(
    {"format", "edition", "options", "players", "hands", "routes", "tickets", "stations", "passengers", "market", "deck"}
    | {"discard", "merchandise", "ticket_decks", "history", "history_seats", "rng", "tunnel"}
)


def _items(text: str) -> list[str]:
    return [x for x in re.split(r"[,\s]+", text.strip()) if x]


def _card(token: str) -> str | None:
    if token == "-":
        return None
    idx = _CARD_CODE.get(token.lower())
    if idx is None:
        raise ScenarioError(f"unknown card {token!r} (colours, L, L4, P, or a full card name; - an empty slot)")
    return CARD_NAMES[idx]


def _value(text: str) -> Any:
    items = _items(text)
    if all(re.fullmatch(r"-?\d+", x) for x in items) and items:
        return int(items[0]) if len(items) == 1 and "," not in text else [int(x) for x in items]
    return text.strip()


def _known(ids: Mapping[str, int], kind: str, value: str) -> str:
    if value not in ids:
        raise ScenarioError(f"unknown {kind} {value!r}")
    return value


def scenario(text: str, game: Game | None = None) -> Game:
    """The position `text` describes (see the module docstring), from `game` or the first line's base game."""
    lines = [(i, raw.split("#", 1)[0].strip()) for i, raw in enumerate(text.splitlines(), 1)]
    lines = [(i, line) for i, line in lines if line]
    if game is None:
        if not lines or not (m := _HEADER.fullmatch(lines[0][1])):
            raise ScenarioError("a scenario starts with its base game, e.g. 'usa 2p' or 'europe 3p seed 7'")
        game = started(m["edition"], int(m["players"]), int(m["seed"] or 0))
        lines = lines[1:]
    ed, n = game.edition, game.n
    parts: dict[str, Any] = {}
    for i, line in lines:
        try:
            _line(game, ed, n, line, parts)
        except (ScenarioError, NotationError) as exc:
            raise ScenarioError(f"scenario line {i} ({line!r}): {exc}") from None
    return arrange(game, **parts)


def _line(game: Game, ed: Edition, n: int, line: str, parts: dict[str, Any]) -> None:
    m = _PLAYER.fullmatch(line)
    if m:
        p, what, rest = int(m["p"]), m["what"], m["rest"]
        if not 0 <= p < n:
            raise ScenarioError(f"there is no player {p} in a {n}-player game")
        if what == "hand":
            counts = parse_cards(rest.strip() or "0")
            parts.setdefault("hands", {})[p] = {CARD_NAMES[c]: k for c, k in enumerate(counts) if k}
        elif what == "routes":
            owners = parts.setdefault("routes", {})
            for r in _items(rest):
                owners[_known(ed.route_index, "route", r)] = p
        elif what == "tickets":
            held = parts.setdefault("tickets", {})
            held[p] = [_known(ed.ticket_index, "ticket", t) for t in _items(rest)]
        elif what == "stations":
            built = parts.setdefault("stations", {})
            for c in _items(rest):
                built[_known(ed.city_index, "city", c)] = p
        else:  # passengers
            kept = parts.setdefault("passengers", [game.to_dict()["passengers"][q][:] for q in range(n)])
            kept[p] = [None if c == "none" else c if c == "gone" else _known(ed.city_index, "city", c) for c in _items(rest)]
        return
    word, _, rest = line.partition(" ")
    if word in _NONE and rest.strip() == "none":  # hands none, routes none, ...: every player's is empty
        parts[_NONE[word]] = {}
    elif word == "market":
        parts["market"] = [_card(c) for c in _items(rest)]
    elif word == "deck":
        parts["deck_top"] = [_card(c) for c in _items(rest)]
    elif word == "discard":
        parts["discard"] = [_card(c) for c in _items(rest)]
    elif word == "rest":
        where = rest.strip()
        if where in ("deck", "discard"):
            parts["rest"] = where
        elif re.fullmatch(r"p\d+", where) and int(where[1:]) < n:
            parts["rest"] = int(where[1:])
        else:
            raise ScenarioError(f"rest goes to deck, discard or a player (p0..p{n - 1}), not {where!r}")
    elif word == "ticket" and rest.startswith("deck"):
        items = _items(rest[4:])
        deck = items.pop(0) if items and items[0] in ed.ticket_decks else "regular"  # ticket ids are never deck names
        if deck not in ed.ticket_decks:
            raise ScenarioError(f"name the ticket deck: {', '.join(ed.ticket_decks)}")
        parts.setdefault("ticket_deck", {})[deck] = [_known(ed.ticket_index, "ticket", t) for t in items]
    elif word == "merchandise":
        city, _, stack = rest.strip().partition(" ")
        parts.setdefault("merchandise", {})[_known(ed.city_index, "city", city)] = [int(x) for x in _items(stack)]
    elif word in game.to_dict() and word not in _NOT_FIELDS:
        parts[word] = _value(rest)
    else:
        raise ScenarioError(f"unknown part {word!r}")
