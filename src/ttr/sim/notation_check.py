"""The move notation's round trip over whole random games: the check behind ``tests/engine/test_notation.py``
(a few games a CI run) and ``python tools/notation_roundtrip.py`` (thousands).

At every step of a seeded game of uniform random play, every legal action is written with
``format_move``, read back with ``parse_move`` and must give the same action, and that action written
again must give the same text.
"""

from __future__ import annotations

import random

from ..engine import Game
from ..notation import format_move, parse_move


def round_trip_game(edition: str, players: int, seed: int) -> tuple[int, int]:
    """(steps, legal actions round-tripped) of one random game; AssertionError, naming the game, step and
    text, at the first action that does not come back the same."""
    game, rng = Game(edition, players, seed), random.Random(seed)
    steps = actions = 0
    while not game.is_over:
        legal = game.legal_actions()
        for action in legal:
            text = format_move(game, action)
            back = parse_move(game, text)
            assert back == action, f"{edition} {players}p seed {seed} step {steps}: {text!r} reads as {back}, not {action}"
            again = format_move(game, back)
            assert again == text, f"{edition} {players}p seed {seed} step {steps}: {text!r} is written again as {again!r}"
        actions += len(legal)
        game.step(rng.choice(legal))
        steps += 1
    return steps, actions
