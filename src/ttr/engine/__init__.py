"""The rules engine (standard library only, no I/O)."""

from ..errors import IllegalAction, MalformedAction, PositionError
from .actions import Action
from .events import Event
from .game import OVER, PHASES, Game, edition_with_options
from .view import PlayerView

__all__ = [
    "OVER",
    "PHASES",
    "Action",
    "Event",
    "Game",
    "IllegalAction",
    "MalformedAction",
    "PlayerView",
    "PositionError",
    "edition_with_options",
]
