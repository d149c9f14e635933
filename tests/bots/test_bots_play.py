"""Every bot finishes whole games on every edition with legal actions only, and uses each edition's
special rules (tunnels, stations, ferries, passengers, ticket mixes)."""

from __future__ import annotations

from collections import Counter

import pytest

from ttr.bots import BOTS, LEVELS, PERSONAS, make_bot, parse_bot_spec
from ttr.bots.base import Bot
from ttr.engine import Game
from ttr.sim.runner import GameSpec, play_game

EDITIONS = [("usa", 4), ("europe", 4), ("nordic", 3), ("marklin", 4)]
SCRIPTED = ["destination_hungry", "route_focus", "one_step", "long_route", "racer", "planner", "blocker", "hoarder"]


def play_checked(edition: str, bots: list[str], seed: int) -> tuple[Game, Counter[str]]:
    """Play a game, asserting before each move that the bot's action is in the legal list."""
    game = Game(edition, len(bots), seed)
    players = [make_bot(b, seed=seed * 10 + i) for i, b in enumerate(bots)]
    kinds: Counter[str] = Counter()
    while not game.is_over:
        p = game.current
        legal = game.legal_actions()
        action = players[p].act(game.view(p), legal)
        assert action in legal or game.is_legal(action), (edition, bots[p], str(action))
        kinds[action.type] += 1
        for event in game.apply(action):
            for seat, bot in enumerate(players):
                bot.observe(event.for_player(seat))
        assert game.turn < 1000, "game does not end"
    return game, kinds


@pytest.mark.parametrize(("edition", "players"), EDITIONS)
def test_scripted_bots_finish_every_edition(edition: str, players: int) -> None:
    for seed in range(2):
        lineup = [SCRIPTED[(seed * players + i) % len(SCRIPTED)] for i in range(players)]
        game, _ = play_checked(edition, lineup, seed)
        assert game.is_over
        assert all(t >= 0 for t in game.trains)


@pytest.mark.parametrize(("edition", "players"), [("usa", 2), ("europe", 3), ("nordic", 2), ("marklin", 2)])
def test_search_bot_finishes_every_edition(edition: str, players: int) -> None:
    lineup = ["ismcts:iterations=4:depth=2"] + ["planner"] * (players - 1)
    game, _ = play_checked(edition, lineup, 3)
    assert game.is_over


def test_random_bot_finishes() -> None:
    game, kinds = play_checked("marklin", ["random", "random", "random"], 5)
    assert game.is_over and kinds["claim"] > 0


def test_planner_uses_edition_rules() -> None:
    """Across a few games the planner pays tunnels, builds stations, places and moves passengers."""
    seen: Counter[str] = Counter()
    for seed in range(6):
        seen.update(play_checked("europe", ["planner", "planner", "racer"], seed)[1])
        seen.update(play_checked("marklin", ["planner", "racer", "planner"], seed)[1])
    assert seen["tunnel_pay"] > 0
    assert seen["build_station"] > 0
    assert seen["place_passenger"] > 0
    assert seen["move_passenger"] > 0


def test_planner_names_ticket_mixes_on_marklin() -> None:
    _, kinds = play_checked("marklin", ["planner", "planner"], 2)
    assert kinds["draw_tickets"] >= 2  # at least the two setup mixes


def test_planner_decides_fast() -> None:
    """Not a benchmark: a loose bound that catches an accidental blow-up in the planner's cost."""
    import time

    game = Game("europe", 4, 1)
    bots = [make_bot("planner", seed=i) for i in range(4)]
    spent = 0.0
    decisions = 0
    while not game.is_over:
        p = game.current
        view, legal = game.view(p), game.legal_actions()
        t = time.perf_counter()
        action = bots[p].act(view, legal)
        spent += time.perf_counter() - t
        decisions += 1
        game.step(action)
    assert spent / decisions < 0.05


def test_make_bot_names_levels_and_specs() -> None:
    for name in BOTS:
        assert isinstance(make_bot(name, seed=1), Bot)
    for level, (base, _) in LEVELS.items():
        assert base in BOTS
        assert isinstance(make_bot(level, seed=1), BOTS[base])  # type: ignore[arg-type]
    assert set(PERSONAS) <= set(BOTS)
    assert parse_bot_spec("ismcts:iterations=50:time_per_move=0.5") == ("ismcts", {"iterations": 50, "time_per_move": 0.5})
    bot = make_bot("ismcts:iterations=7", seed=1)
    assert bot.iterations == 7  # type: ignore[attr-defined]
    with pytest.raises(ValueError):
        make_bot("no_such_bot")
    with pytest.raises(ValueError):
        parse_bot_spec("planner:block")


def test_play_game_records_bots_and_final_routes() -> None:
    rec = play_game(GameSpec("usa", 2, 4, ("planner", "racer")))
    assert rec["bots"] == ["planner", "racer"]
    assert rec["routes"] and set(rec["routes"].values()) <= {0, 1}
    assert rec["first_player"] in (0, 1)
    assert Game.replay(rec).result()["winners"] == rec["result"]["winners"]
