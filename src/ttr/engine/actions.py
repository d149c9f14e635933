"""Actions: small immutable values with a stable JSON form.

An ``Action`` is a NamedTuple so that creating thousands of them per second (legal-move generation,
tree search) stays cheap, and so that two equal actions compare and hash equal. Card payments are
a counts tuple indexed like ``ttr.cards.CARD_NAMES``; in JSON they are ``{"red": 3, "locomotive": 1}``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..cards import Cards, cards_from_dict, cards_to_dict
from ..errors import MalformedAction

DRAW_BLIND = "draw_blind"  # top card of the deck
DRAW_FACEUP = "draw_faceup"  # market slot `slot`
DRAW_TICKETS = "draw_tickets"  # `mix` only when the edition lets the player name a short/long mix
KEEP_TICKETS = "keep_tickets"  # `tickets`: the ids kept from those offered
CLAIM = "claim"  # `route`, `cards`
TUNNEL_PAY = "tunnel_pay"  # `cards`: the extra cards for the revealed matches
TUNNEL_DECLINE = "tunnel_decline"
BUILD_STATION = "build_station"  # `city`, `cards`
PLACE_PASSENGER = "place_passenger"  # `city` (an end of the route just claimed) or None to place none
MOVE_PASSENGER = "move_passenger"  # `city` (passenger's start), `path` (route ids in order), `cards`
PASS = "pass"  # only when nothing else is legal

ACTION_TYPES = (
    DRAW_BLIND,
    DRAW_FACEUP,
    DRAW_TICKETS,
    KEEP_TICKETS,
    CLAIM,
    TUNNEL_PAY,
    TUNNEL_DECLINE,
    BUILD_STATION,
    PLACE_PASSENGER,
    MOVE_PASSENGER,
    PASS,
)

_FIELDS: dict[str, tuple[set[str], set[str]]] = {  # type -> (required, optional) JSON fields
    DRAW_BLIND: (set(), set()),
    DRAW_FACEUP: ({"slot"}, set()),
    DRAW_TICKETS: (set(), {"mix"}),
    KEEP_TICKETS: ({"tickets"}, set()),
    CLAIM: ({"route", "cards"}, set()),
    TUNNEL_PAY: ({"cards"}, set()),
    TUNNEL_DECLINE: (set(), set()),
    BUILD_STATION: ({"city", "cards"}, set()),
    PLACE_PASSENGER: ({"city"}, set()),
    MOVE_PASSENGER: ({"city", "path"}, {"cards"}),
    PASS: (set(), set()),
}


class Action(NamedTuple):
    type: str
    route: str | None = None
    cards: Cards | None = None
    slot: int | None = None
    tickets: tuple[str, ...] | None = None
    city: str | None = None
    mix: tuple[tuple[str, int], ...] | None = None
    path: tuple[str, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        if self.route is not None:
            out["route"] = self.route
        if self.cards is not None:
            out["cards"] = cards_to_dict(self.cards)
        if self.slot is not None:
            out["slot"] = self.slot
        if self.tickets is not None:
            out["tickets"] = list(self.tickets)
        if self.type == PLACE_PASSENGER or self.city is not None:
            out["city"] = self.city
        if self.mix is not None:
            out["mix"] = dict(self.mix)
        if self.path is not None:
            out["path"] = list(self.path)
        return out

    def __str__(self) -> str:  # compact, for logs and error messages
        parts = [self.type]
        for key, value in self.to_json().items():
            if key != "type":
                parts.append(f"{key}={value}")
        return " ".join(parts)

    @staticmethod
    def from_json(data: Any) -> Action:
        """Parse and normalise the JSON form; raises MalformedAction with the reason."""
        if isinstance(data, Action):
            return data
        if not isinstance(data, dict):
            raise MalformedAction(f"an action must be a JSON object, got {type(data).__name__}")
        kind = data.get("type")
        if not isinstance(kind, str) or kind not in _FIELDS:  # a list or an object is no type (and is unhashable)
            raise MalformedAction(f"unknown action type {kind!r:.60} (known: {', '.join(ACTION_TYPES)})")
        required, optional = _FIELDS[kind]
        keys = set(data) - {"type"}
        if missing := required - keys:
            raise MalformedAction(f"{kind}: missing field(s) {', '.join(sorted(missing))}")
        if extra := keys - required - optional:
            raise MalformedAction(f"{kind}: unexpected field(s) {', '.join(sorted(extra))}")
        kw: dict[str, Any] = {}
        if "slot" in data:
            slot = data["slot"]
            if not isinstance(slot, int) or isinstance(slot, bool):
                raise MalformedAction(f"{kind}: 'slot' must be an integer, got {slot!r}")
            kw["slot"] = slot
        if "route" in data:
            if not isinstance(data["route"], str):
                raise MalformedAction(f"{kind}: 'route' must be a route id string")
            kw["route"] = data["route"]
        if "cards" in data:
            if not isinstance(data["cards"], dict):
                raise MalformedAction(f"{kind}: 'cards' must be an object like {{\"red\": 2}}")
            try:
                kw["cards"] = cards_from_dict(data["cards"])
            except ValueError as exc:
                raise MalformedAction(f"{kind}: {exc}") from None
        elif kind == MOVE_PASSENGER:
            kw["cards"] = cards_from_dict({})
        if "tickets" in data:
            t = data["tickets"]
            if not isinstance(t, list) or not all(isinstance(x, str) for x in t):
                raise MalformedAction(f"{kind}: 'tickets' must be a list of ticket ids")
            if len(set(t)) != len(t):
                raise MalformedAction(f"{kind}: a ticket is named twice")
            kw["tickets"] = tuple(sorted(t))
        if "city" in data:
            city = data["city"]
            if city is not None and not isinstance(city, str):
                raise MalformedAction(f"{kind}: 'city' must be a city id or null")
            if city is None and kind != PLACE_PASSENGER:
                raise MalformedAction(f"{kind}: 'city' is required")
            kw["city"] = city
        if "mix" in data:
            m = data["mix"]
            if not isinstance(m, dict) or not all(
                isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) and v >= 0 for k, v in m.items()
            ):
                raise MalformedAction(f'{kind}: \'mix\' must map ticket decks to counts, e.g. {{"short": 2, "long": 2}}')
            kw["mix"] = normalise_mix(m)
        if "path" in data:
            p = data["path"]
            if not isinstance(p, list) or not p or not all(isinstance(x, str) for x in p):
                raise MalformedAction(f"{kind}: 'path' must be a non-empty list of route ids")
            kw["path"] = tuple(p)
        return Action(kind, **kw)


def normalise_mix(mix: dict[str, int]) -> tuple[tuple[str, int], ...]:
    return tuple(sorted((k, v) for k, v in mix.items() if v))


# Shared singletons for the argument-free actions (no allocation on the hot path).
A_DRAW_BLIND = Action(DRAW_BLIND)
A_DRAW_TICKETS = Action(DRAW_TICKETS)
A_TUNNEL_DECLINE = Action(TUNNEL_DECLINE)
A_PASS = Action(PASS)
A_PLACE_NONE = Action(PLACE_PASSENGER)
A_DRAW_FACEUP = tuple(Action(DRAW_FACEUP, slot=i) for i in range(16))
