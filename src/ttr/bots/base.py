"""The bot contract: a bot sees only a player's view (plus what it remembers) and names an action."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from ..engine.actions import Action
from ..engine.view import PlayerView


class Bot:
    """Base class. Subclasses implement ``act``; ``observe`` lets a bot remember public events."""

    name = "bot"

    def __init__(self, seed: int | None = None, **options: Any) -> None:
        self.rng = random.Random(seed)
        self.options = options

    def act(self, view: PlayerView, legal: Sequence[Action]) -> Action:  # pragma: no cover - interface
        raise NotImplementedError

    def observe(self, event: dict[str, Any]) -> None:
        """Called with every event this bot's player may see (its ``for_player`` form). Optional."""

    @property
    def wants_events(self) -> bool:
        """Whether ``observe`` does anything (callers skip making events for bots that ignore them)."""
        return type(self).observe is not Bot.observe

    def reset(self) -> None:
        """Forget everything about the previous game."""


class RandomBot(Bot):
    """Uniform over the legal actions."""

    name = "random"

    def act(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        return legal[self.rng.randrange(len(legal))]
