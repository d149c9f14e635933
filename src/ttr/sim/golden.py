"""Golden playthroughs: one seeded game per edition and player count, pinned step by step.

Like OpenSpiel's playthroughs or python-chess's perft files: every step records the phase, the player
to act, the number of legal actions and a hash of their ordered list, the action played, a hash of the
events it produced, a hash of every seat's view and of the public view, and a hash of the full
position; the last line is the final result. ``tests/golden/test_golden.py`` replays the committed
files and compares them line by line; ``python tools/golden.py`` regenerates them, deliberately, when a
rule change is meant to alter play (say so in the commit message).

The moves are chosen uniformly at random among ``legal_actions()`` by a ``random.Random`` seeded from
the file's own seed, so the files also pin the order of the legal-action list.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterator
from typing import Any

from ..engine import Game
from ..engine.game import POSITION_FORMAT

GOLDEN_FORMAT = 2  # 2: setup lines name every seat that may act (to_act); position format 2
# (edition, player counts) covered by the committed files; seeds are fixed per file.
GOLDEN_GAMES: tuple[tuple[str, int], ...] = (
    *(("usa", n) for n in (2, 3, 4, 5)),
    *(("europe", n) for n in (2, 3, 4, 5)),
    *(("nordic", n) for n in (2, 3)),
    *(("marklin", n) for n in (2, 3, 4, 5)),
)


def golden_seed(edition: str, players: int) -> int:
    """A fixed seed per (edition, player count), independent of Python's hash randomisation."""
    return int.from_bytes(hashlib.sha256(f"golden:{edition}:{players}".encode()).digest()[:4], "big")


def digest(obj: Any) -> str:
    """A short, stable hash of a JSON-able value (keys sorted, compact separators)."""
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def file_name(edition: str, players: int) -> str:
    return f"{edition}-{players}p.jsonl"


def playthrough(edition: str, players: int, seed: int | None = None) -> Iterator[dict[str, Any]]:
    """The lines of one golden file: a header, one line per decision, then the final result."""
    seed = golden_seed(edition, players) if seed is None else seed
    game = Game(edition, players=players, seed=seed)
    chooser = random.Random(seed)
    yield {
        "golden_format": GOLDEN_FORMAT,
        "position_format": POSITION_FORMAT,
        "edition": edition,
        "players": players,
        "seed": seed,
        "policy": "uniform random over legal_actions(), random.Random(seed)",
    }
    step = 0
    while not game.is_over:
        legal = game.legal_actions()
        action = legal[chooser.randrange(len(legal))]
        line: dict[str, Any] = {
            "step": step,
            "phase": game.phase,
            "player": game.current,
            "legal": len(legal),
            "legal_hash": digest([a.to_json() for a in legal]),
            "action": action.to_json(),
        }
        if game.phase == "setup":  # every seat still choosing may act; the golden policy lets `current` act
            line["to_act"] = list(game.to_act())
        views = [digest(game.view(p).to_dict()) for p in range(players)]
        public = digest(game.view(None).to_dict())
        position = digest(game.to_dict())
        events = game.apply(action)
        line.update(
            views=views,
            public=public,
            position=position,
            events=digest([[e.for_player(p) for p in range(players)] + [e.public()] for e in events]),
        )
        yield line
        step += 1
    yield {"result": game.result(), "record": digest(game.record()), "position": digest(game.to_dict())}


def dumps(line: dict[str, Any]) -> str:
    return json.dumps(line, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
