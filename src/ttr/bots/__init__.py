"""Bots, from random to strong. ``make_bot(name)`` accepts a bot name, a difficulty level, or a bot
spec with options such as ``"ismcts:iterations=200"`` (``name:key=value:key=value``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from .base import Bot, RandomBot
from .ismcts import ISMCTSBot
from .learned import LearnedBot
from .personas import DestinationHungryBot, LongRouteExploiterBot, OneStepThinkingBot, RouteFocusBot
from .planner import PlannerBot
from .styles import BlockerBot, HoarderBot, RacerBot

BOTS: dict[str, Callable[..., Bot]] = {
    "random": RandomBot,
    "destination_hungry": DestinationHungryBot,
    "route_focus": RouteFocusBot,
    "one_step": OneStepThinkingBot,
    "long_route": LongRouteExploiterBot,
    "racer": RacerBot,
    "blocker": BlockerBot,
    "hoarder": HoarderBot,
    "planner": PlannerBot,
    "ismcts": ISMCTSBot,
    "learned": LearnedBot,
}

PERSONAS = ("destination_hungry", "route_focus", "one_step", "long_route")
# The sparring bots of `ttr gauntlet`: the styles a strong bot must beat.
GAUNTLET = ("racer", "blocker", "hoarder", *PERSONAS)

# Difficulty levels offered to players; each maps to a bot name plus options.
LEVELS: dict[str, tuple[str, dict[str, Any]]] = {
    "easy": ("one_step", {}),
    "medium": ("route_focus", {}),
    # hard: the planner, its ticket choices and its last turns (by its clock) checked by a short search
    # (2-player USA against the racer 75.0% -> 83.8%, 400 games; docs/tournaments.md, third round).
    "hard": ("planner", {"keep_search": 200, "end_search": 100}),
    # max: the advisor is today's `hard` (its weights and blocks on each edition), the playouts plan
    # with hard's tempo weights except on PLAIN_EDITIONS, and a ticket draw the advisor did not ask
    # for is a root move only while the clock allows (docs/tournaments.md, `max` against `hard`).
    "max": ("ismcts", {"iterations": 400, "tempo_advisor": True, "tempo_playouts": True, "ticket_clock": 2}),
}

# One line on each level's style, for players choosing a bot: served as `GET /api/levels` and shown
# in the lobby under a bot seat. The lobby's translations (static/i18n/*.json, `level_style.<level>`)
# translate these lines; tests/browser/test_static_files.py checks en.json says exactly this.
LEVEL_STYLES: dict[str, str] = {
    "easy": "Greedy: plays whatever scores most right now, with no plan",
    "medium": "Methodical: completes its tickets one at a time",
    "hard": "Planner: plans one network for its tickets, looks ahead at key moments",
    "max": "Searcher: plays out many possible futures before each move (slower)",
}


def level_list() -> list[dict[str, str]]:
    """The levels in order of strength, each with its bot spec and its style line (`GET /api/levels`)."""
    out = []
    for level, (base, opts) in LEVELS.items():
        spec = ":".join([base, *(f"{k}={json.dumps(v)}" for k, v in opts.items())])
        out.append({"level": level, "bot": spec, "style": LEVEL_STYLES[level]})
    return out


def bot_names() -> list[str]:
    return sorted(BOTS) + list(LEVELS)


def parse_bot_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """'ismcts:iterations=200:time_per_move=0.5' -> ('ismcts', {'iterations': 200, 'time_per_move': 0.5})."""
    name, *parts = spec.strip().split(":")
    options: dict[str, Any] = {}
    for part in parts:
        key, sep, value = part.partition("=")
        if not sep or not key:
            raise ValueError(f"bad bot option {part!r} in {spec!r} (expected key=value)")
        try:
            options[key] = json.loads(value)
        except json.JSONDecodeError:
            options[key] = value
    return name, options


def make_bot(name: str, seed: int | None = None, **options: Any) -> Bot:
    """A bot by name ('random', 'planner', ...), level ('easy', 'medium', 'hard', 'max') or spec ('name:key=value')."""
    base_name, spec_options = parse_bot_spec(name)
    options = {**spec_options, **options}
    if base_name in LEVELS:
        base, opts = LEVELS[base_name]
        return BOTS[base](seed=seed, **{**opts, **options})
    if base_name not in BOTS:
        raise ValueError(f"unknown bot {base_name!r} (known: {', '.join(bot_names())})")
    return BOTS[base_name](seed=seed, **options)


__all__ = [
    "BOTS",
    "GAUNTLET",
    "LEVELS",
    "LEVEL_STYLES",
    "PERSONAS",
    "Bot",
    "RandomBot",
    "bot_names",
    "level_list",
    "make_bot",
    "parse_bot_spec",
]
