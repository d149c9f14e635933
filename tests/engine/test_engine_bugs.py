"""Regression tests for the engine bugs found in the engine-v2 review (issue 13, section 5)."""

from __future__ import annotations

import copy

import pytest

from ttr.bots.ismcts import ISMCTSBot
from ttr.bots.rollout import RolloutPolicy, play_out
from ttr.editions import get_edition, parse_edition
from ttr.editions.derived import PER_EDITION_MAX
from ttr.engine import Action, Game, IllegalAction
from ttr.engine.claims import _claim_tables
from ttr.engine.game import _with_options, edition_with_options


def _map_with_trains(trains: int) -> dict:
    raw = copy.deepcopy(get_edition("usa").raw)
    raw["rules"]["trains"] = trains
    return raw


def test_two_editions_built_from_dicts_with_the_same_options_stay_distinct() -> None:
    # Both are "<edition>" with id "usa": the options cache used to key on that and return map A for map B.
    a = parse_edition(_map_with_trains(45))
    b = parse_edition(_map_with_trains(30))
    options = {"longest_path_bonus": 12}
    ga = Game(a, 2, seed=1, options=options)
    gb = Game(b, 2, seed=1, options=options)
    assert ga.trains == [45, 45]
    assert gb.trains == [30, 30]
    assert edition_with_options(a, options) is ga.edition  # still memoised per base edition
    assert edition_with_options(b, options) is not ga.edition


def test_option_caches_are_bounded() -> None:
    base = get_edition("usa")
    for bonus in range(PER_EDITION_MAX * 3):
        game = Game(base, 2, seed=0, options={"longest_path_bonus": bonus})
        game.legal_actions()  # fills the per-edition claim tables too
    assert len(_with_options) <= PER_EDITION_MAX
    assert len(_claim_tables.cache) <= PER_EDITION_MAX  # type: ignore[attr-defined]


def test_legal_actions_cannot_be_changed_by_a_caller() -> None:
    game = Game("usa", 2, seed=4)
    legal = game.legal_actions()
    assert isinstance(legal, tuple)
    with pytest.raises((TypeError, AttributeError)):
        legal.append(Action("pass"))  # type: ignore[attr-defined]
    assert game.legal_actions() == legal
    assert game.legal_actions() is legal  # computed once per position


class IllegalPolicy(RolloutPolicy):
    """A broken policy: always plays an action that is never legal in a turn."""

    def act(self, g: Game) -> Action:
        return Action("tunnel_decline")


def test_playout_refuses_an_illegal_move_instead_of_substituting_one() -> None:
    game = Game("usa", 2, seed=11)
    for _ in range(2):
        game.step(game.legal_actions()[0])  # both players keep initial tickets
    with pytest.raises(IllegalAction):
        play_out(game, IllegalPolicy(game))


def test_search_refuses_an_illegal_playout_move(monkeypatch: pytest.MonkeyPatch) -> None:
    game = Game("usa", 2, seed=11)
    for _ in range(2):
        game.step(game.legal_actions()[0])
    monkeypatch.setattr(RolloutPolicy, "act", IllegalPolicy.act)
    bot = ISMCTSBot(seed=0, iterations=8)
    p = game.current
    legal = game.legal_actions()
    with pytest.raises(IllegalAction):
        bot.act(game.view(p), legal)


def test_engine_errors_are_value_errors_and_setup_errors_are_not_illegal_actions() -> None:
    from ttr.errors import EditionError, PositionError, SetupError

    for cls in (IllegalAction, SetupError, EditionError, PositionError):
        assert issubclass(cls, ValueError)
    with pytest.raises(SetupError) as info:
        Game("usa", 9, seed=0)
    assert not isinstance(info.value, IllegalAction)
    assert info.value.code == "player_count"
    with pytest.raises(SetupError, match="seed"):
        Game("usa", 2, seed="x")  # type: ignore[arg-type]


def test_outcome_of_random_games_matches_the_game_over_event() -> None:
    import random

    from ttr.engine import EndReason

    for edition, seed in [("usa", 1), ("europe", 2), ("nordic", 3), ("marklin", 4)]:
        game, rng = Game(edition, 2, seed), random.Random(seed)
        events: list = []
        while not game.is_over:
            events = game.apply(rng.choice(game.legal_actions()))
        reason = events[-1].data["reason"]
        assert game.outcome is not None
        assert game.outcome.reason == (EndReason.TRAINS if reason == "final round complete" else EndReason.STALEMATE)
