"""The rules engine (standard library only, no I/O)."""

from ..errors import IllegalAction, MalformedAction, PositionError, SetupError
from .actions import Action
from .events import Event
from .game import OVER, PHASE_ACTIONS, PHASES, Game, Phase, edition_with_options
from .outcome import EndReason, Outcome
from .view import PlayerView

__all__ = [
    "OVER",
    "PHASES",
    "PHASE_ACTIONS",
    "Action",
    "EndReason",
    "Event",
    "Game",
    "IllegalAction",
    "MalformedAction",
    "Outcome",
    "Phase",
    "PlayerView",
    "PositionError",
    "SetupError",
    "edition_with_options",
]
