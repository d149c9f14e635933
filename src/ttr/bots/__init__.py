"""Bots, from random to strong. ``make_bot(name)`` accepts a bot name or a difficulty level."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .base import Bot, RandomBot

BOTS: dict[str, Callable[..., Bot]] = {
    "random": RandomBot,
}

# Difficulty levels offered to players; each maps to a bot name plus options.
LEVELS: dict[str, tuple[str, dict[str, Any]]] = {
    "easy": ("random", {}),
    "medium": ("random", {}),
    "hard": ("random", {}),
    "max": ("random", {}),
}


def bot_names() -> list[str]:
    return sorted(BOTS) + list(LEVELS)


def make_bot(name: str, seed: int | None = None, **options: Any) -> Bot:
    """A bot by name ('random', ...) or level ('easy', 'medium', 'hard', 'max')."""
    if name in LEVELS:
        base, opts = LEVELS[name]
        return BOTS[base](seed=seed, **{**opts, **options})
    if name not in BOTS:
        raise ValueError(f"unknown bot {name!r} (known: {', '.join(bot_names())})")
    return BOTS[name](seed=seed, **options)


__all__ = ["BOTS", "LEVELS", "Bot", "RandomBot", "bot_names", "make_bot"]
