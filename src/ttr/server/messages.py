"""What clients send and what errors look like: one set of pydantic schemas for HTTP bodies and WebSocket
messages alike, and the one strict JSON decoder both go through before any schema sees the data.

The decoder refuses, quickly and without a traceback, what could hurt the server: nesting deeper than
``MAX_JSON_DEPTH``, integer literals longer than ``MAX_INT_DIGITS`` digits (Python refuses past 4,300 and is
slow well before that), ``NaN``/``Infinity`` and numbers that overflow to infinity, invalid UTF-8. Sizes are
limited before decoding (``Settings.max_body_bytes``: the HTTP body, one WebSocket message). docs/api.md lists
the limits and codes.
"""

from __future__ import annotations

import json
import math
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, TypeAdapter, ValidationError

from ..bots import LEVELS
from ..editions import BUILTIN
from ..editions.model import options_json_schema, show
from ..engine.actions import ACTION_TYPES
from .errors import ApiError, ErrorBody

MAX_JSON_DEPTH = 32  # the deepest legitimate message (rule options with a ticket policy) is 4 levels
MAX_INT_DIGITS = 100
MAX_SEQ = 2**53  # sequence numbers stay exact in JavaScript


class MalformedJson(ValueError):
    """The data is not JSON this server accepts; the message says why (the code is ``malformed_json``)."""


def _int(literal: str) -> int:
    if len(literal) > MAX_INT_DIGITS + 1:  # + a sign
        raise MalformedJson(f"a number has more than {MAX_INT_DIGITS} digits")
    return int(literal)


def _float(literal: str) -> float:
    value = float(literal)
    if not math.isfinite(value):
        raise MalformedJson(f"the number {literal[:20]}{'...' if len(literal) > 20 else ''} is out of range")
    return value


def _constant(name: str) -> Any:
    raise MalformedJson(f"{name} is not a JSON value")


def _depth(value: Any) -> int:
    """Nesting depth of decoded JSON (a scalar is 0), without recursion."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            node = node.values()
        elif not isinstance(node, list):
            continue
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in node if isinstance(child, dict | list))
    return deepest


def decode_json(data: bytes | str) -> Any:
    """Decode one JSON document under the limits above. Raises MalformedJson with the reason."""
    try:
        value = json.loads(data, parse_int=_int, parse_float=_float, parse_constant=_constant)
    except MalformedJson:
        raise
    except RecursionError:
        raise MalformedJson(f"nested deeper than {MAX_JSON_DEPTH} levels") from None
    except json.JSONDecodeError as exc:
        raise MalformedJson(f"not valid JSON: {exc.msg} at position {exc.pos}") from None
    except UnicodeDecodeError:
        raise MalformedJson("not valid UTF-8") from None
    except ValueError as exc:  # e.g. a number the int parser refuses
        raise MalformedJson(f"not valid JSON: {str(exc)[:100]}") from None
    if _depth(value) > MAX_JSON_DEPTH:
        raise MalformedJson(f"nested deeper than {MAX_JSON_DEPTH} levels")
    return value


# ---------------------------------------------------------------------- requests (HTTP bodies and WebSocket messages)
class Strict(BaseModel):
    """Unknown fields are errors, and values are never coerced (``"1"`` is not a seat number)."""

    model_config = ConfigDict(extra="forbid", strict=True)


def _json_integer(value: Any) -> Any:
    """JSON Schema's integer: 2 and 2.0 are the same number (``true`` and ``"2"`` are not numbers at all)."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


Seat = Annotated[int, Field(ge=0, le=7), BeforeValidator(_json_integer)]
PlayerCount = Annotated[int, Field(ge=1, le=8), BeforeValidator(_json_integer)]
Seq = Annotated[int, Field(ge=0, le=MAX_SEQ), BeforeValidator(_json_integer)]


class SeatSpec(Strict):
    type: Literal["human", "bot"]
    level: str | None = Field(
        None, description="bot level (default medium)", json_schema_extra={"anyOf": [{"enum": list(LEVELS)}, {"type": "null"}]}
    )
    name: str | None = Field(None, max_length=200, description="display name for a human seat (hot-seat games)")
    open: bool = Field(False, description="a human seat anyone may take from the lobby (else reserved for its invitation link)")


class ClockSpec(Strict):
    """A time control (docs/api.md, Clocks)."""

    kind: Literal["none", "realtime", "turnbased"] = Field("none", description="none: no clock (the default)")
    seconds: Annotated[int, Field(ge=1, le=3600)] | None = Field(None, description="realtime: seconds per move")
    hours: Annotated[int, Field(ge=1, le=168)] | None = Field(None, description="turnbased: hours per move")
    on_timeout: Literal["bot", "drop"] = Field(
        "bot", description="bot: a bot plays the seat until its player returns; drop: the bot plays it to the end"
    )
    bot_level: str = Field("medium", description="the level of the bot that takes over", json_schema_extra={"enum": list(LEVELS)})


class CreateGame(Strict):
    edition: str = Field(
        "usa",
        max_length=200,
        description="the map: a built-in edition, or the key of a `ttr serve --maps` map (GET /api/editions)",
        json_schema_extra={"anyOf": [{"enum": list(BUILTIN)}, {"type": "string", "pattern": "^map-[0-9a-f]{16}$"}]},
    )
    players: PlayerCount | None = Field(None, description="number of players (default: the number of seats, else 2)")
    options: dict[str, Any] = Field(
        default_factory=dict,
        description="rule overrides (defaults: GET /api/editions; types and ranges: docs/map-format.md)",
        json_schema_extra=options_json_schema(),
    )
    seats: list[SeatSpec] | None = Field(None, max_length=8, description="one per player (default: you + medium bots)")
    hotseat: bool = Field(False, description="one token controls every human seat (several people at one screen)")
    public: bool = Field(True, description="listed in the lobby, free seats can be joined by anyone")
    name: str | None = Field(None, max_length=200, description="a title for the lobby")
    map: dict[str, Any] | None = Field(
        None,
        description="a custom map (a map file's JSON, docs/map-format.md) to play instead of `edition`, stored with "
        "the game; 422 bad_map with the reason when it is not a valid map (POST /api/maps checks one first)",
    )
    clock: ClockSpec | None = Field(None, description="time control (default: none)")
    tutorial: bool = Field(
        False,
        description="a first-game tutorial: you against an easy bot on a built-in edition, dealt from a fixed seed, "
        "private and unrated; give no seats, players (other than 2), options, map, clock or hot-seat with it "
        "(422 bad_tutorial)",
    )


class JoinBody(Strict):
    name: str = Field(..., min_length=1, max_length=200, description="display name, 1-32 characters")
    seat: Seat | None = None


class ActionFields(Strict):
    seat: Seat | None = Field(None, description="which of your seats acts (hot-seat); default the one to move")
    action: dict[str, Any] = Field(
        ...,
        description='the action JSON, e.g. {"type": "draw_blind"}: take it from `legal` in the state',
        json_schema_extra={"properties": {"type": {"enum": list(ACTION_TYPES)}}, "required": ["type"]},
    )
    expected_seq: Seq | None = Field(None, description="the seq your decision was based on: 409 state_changed if stale")


class ActionBody(ActionFields):
    """POST /api/games/{id}/actions."""


class UndoBody(Strict):
    seat: Seat | None = None


class ActionMessage(ActionFields):
    """WebSocket: play an action (the same fields as POST /actions)."""

    type: Literal["action"]


class PingMessage(Strict):
    """WebSocket: answered with ``{"type": "pong"}``."""

    type: Literal["ping"]


ClientMessage = Annotated[ActionMessage | PingMessage, Field(discriminator="type")]
_client_message: TypeAdapter[ActionMessage | PingMessage] = TypeAdapter(ClientMessage)
MESSAGE_TYPES = ("action", "ping")


def parse_client_message(data: Any) -> ActionMessage | PingMessage:
    """A decoded WebSocket message, validated. Raises ApiError 400 with the code the API documents
    (``malformed``, ``unknown_message``, ``unknown_field``)."""
    if not isinstance(data, dict):
        raise ApiError(400, "malformed", "a message must be a JSON object")
    try:
        return _client_message.validate_python(data)
    except ValidationError as exc:
        raise _message_error(data, exc) from None


def _message_error(data: dict[str, Any], exc: ValidationError) -> ApiError:
    errors = exc.errors(include_url=False, include_input=False)
    kinds = {e["type"] for e in errors}
    if kinds & {"union_tag_invalid", "union_tag_not_found"}:
        return ApiError(
            400, "unknown_message", f"unknown message type {show(data.get('type'))} (known: {', '.join(MESSAGE_TYPES)})"
        )
    extra = [str(e["loc"][-1]) for e in errors if e["type"] == "extra_forbidden"]
    if extra:
        names = ", ".join(sorted(show(n) if len(n) > 40 else n for n in extra)[:5])
        return ApiError(400, "unknown_field", f"unknown field(s) {names}")
    parts = []
    for e in errors[:3]:
        loc = [str(x) for x in e["loc"][1:]]  # the first element is the message type
        parts.append(f"{'.'.join(loc) or 'message'}: {e['msg']}")
    return ApiError(400, "malformed", "; ".join(parts))


__all__ = [
    "MAX_INT_DIGITS",
    "MAX_JSON_DEPTH",
    "ActionBody",
    "ActionMessage",
    "CreateGame",
    "ErrorBody",
    "JoinBody",
    "MalformedJson",
    "PingMessage",
    "SeatSpec",
    "UndoBody",
    "decode_json",
    "parse_client_message",
]


# ---------------------------------------------------------------------- accounts (docs/api.md, Accounts)
class Credentials(Strict):
    name: str = Field(..., max_length=64, description="username: 3-24 letters, digits, '_' or '-' (case-insensitive)")
    password: str = Field(..., max_length=256, description="8-256 characters")


class PasswordChange(Strict):
    old_password: str = Field(..., max_length=256)
    new_password: str = Field(..., max_length=256, description="8-256 characters")


class ChatBody(Strict):
    channel: Literal["players", "spectators"] = Field("players", description="players: a seat token; spectators: signed in")
    text: str = Field(..., max_length=1000, description="plain text, 1-300 characters after cleaning")


class ClaimBody(Strict):
    game_id: str = Field(..., max_length=64)
    token: str = Field(..., max_length=200, description="the seat token this browser holds for that game")
