"""The rules engine (standard library only, no I/O)."""

from ..errors import IllegalAction, MalformedAction, PositionError, SetupError
from .actions import Action
from .events import Event
from .game import OVER, PHASES, Game, edition_with_options
from .outcome import EndReason, Outcome
from .view import PlayerView

__all__ = [
    "OVER",
    "PHASES",
    "Action",
    "EndReason",
    "Event",
    "Game",
    "IllegalAction",
    "MalformedAction",
    "Outcome",
    "PlayerView",
    "PositionError",
    "SetupError",
    "edition_with_options",
]
