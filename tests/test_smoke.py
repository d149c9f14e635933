import random

import pytest

from ttr.engine import Game


@pytest.mark.parametrize("edition,players", [("usa", 4), ("europe", 3), ("nordic", 2), ("marklin", 5)])
def test_random_game_completes_and_replays(edition: str, players: int) -> None:
    game = Game(edition, players, seed=11)
    rng = random.Random(3)
    while not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
    assert Game.replay(game.record()).result() == game.result()
    assert Game.from_dict(game.to_dict()) == game
