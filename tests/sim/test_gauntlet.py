"""ttr gauntlet: the matches it plays, the table it prints, and the same results for the same seed."""

from __future__ import annotations

import json

import pytest

from ttr.bots import GAUNTLET
from ttr.cli import main
from ttr.sim import gauntlet
from ttr.sim.runner import GameSpec, play_game
from ttr.sim.stats import wilson


def test_matches_cover_every_opponent_within_each_editions_limits() -> None:
    found, notes = gauntlet.matches("planner", ["usa", "nordic"], [2, 4])
    assert [(m.edition, m.players) for m in found[:1]] == [("usa", 2)]
    assert {m.opponent for m in found} == set(GAUNTLET)
    assert len(found) == 3 * len(GAUNTLET)  # nordic is a 2-3 player map: no 4-player matches
    assert any("nordic" in n and "4 players" in n for n in notes)
    assert found[-1].lineup("planner") == ("planner", "long_route")
    four = next(m for m in found if m.players == 4)
    assert four.lineup("planner") == ("planner", four.opponent, four.opponent, four.opponent)
    mine, notes = gauntlet.matches("racer", ["usa"], [2])
    assert "racer" not in {m.opponent for m in mine} and any("itself" in n for n in notes)


def test_percentile_nearest_rank() -> None:
    xs = [float(x) for x in range(1, 101)]
    assert gauntlet.percentile(xs, 0.99) == 99.0
    assert gauntlet.percentile(xs, 0.5) == 50.0
    assert gauntlet.percentile([3.0], 0.99) == 3.0
    assert gauntlet.percentile([], 0.99) == 0.0


def test_timed_records_carry_decision_times_and_the_same_game() -> None:
    plain = play_game(GameSpec("usa", 2, 3, ("planner", "racer")))
    timed = play_game(GameSpec("usa", 2, 3, ("planner", "racer"), timed=True))
    ms = timed.pop("decision_ms")
    assert "decision_ms" not in plain
    assert json.dumps(plain, sort_keys=True) == json.dumps(timed, sort_keys=True)
    assert len(ms) == 2 and sum(len(x) for x in ms) == plain["stats"]["decisions"]
    assert all(t >= 0 for x in ms for t in x)


def test_run_rows_use_wilson_and_fixed_seeds() -> None:
    match_list, _ = gauntlet.matches("route_focus", ["usa"], [2], ["long_route", "racer"])
    rows, total = gauntlet.run("route_focus", match_list, 2, seed=2)
    assert [r["opponent"] for r in rows] == ["long_route", "racer"]
    for r in rows:
        assert r["games"] == 2 and 0 <= r["wins"] <= 2
        assert r["win_rate_ci95"] == list(wilson(r["wins"], 2))
        assert r["decisions"] > 0 and 0 <= r["ms_median"] <= r["ms_p99"]
    assert total["games"] == 4 and total["wins"] == sum(r["wins"] for r in rows)
    again, _ = gauntlet.run("route_focus", match_list, 2, seed=2)
    assert [r["wins"] for r in again] == [r["wins"] for r in rows]  # fixed seeds: the same games
    assert [(r["score"], r["opponent_score"]) for r in again] == [(r["score"], r["opponent_score"]) for r in rows]


def test_cli_prints_one_table_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gauntlet", "--bot", "racer", "--games", "2", "--players", "2", "--opponents", "long_route,racer"]) == 0
    out = capsys.readouterr().out
    assert "long_route" in out and "95% CI" in out and "ms p99" in out and "racer is not played against itself" in out
    assert main(["gauntlet", "--bot", "racer", "--games", "1", "--players", "2,4", "--opponents", "long_route", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [(m["players"], m["opponent"], m["games"]) for m in data["matches"]] == [(2, "long_route", 1), (4, "long_route", 1)]
    assert data["total"]["games"] == 2


def test_cli_refuses_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gauntlet", "--bot", "no_such_bot", "--games", "2"]) == 2
    assert "unknown bot" in capsys.readouterr().err
    assert main(["gauntlet", "--bot", "racer", "--games", "0"]) == 2
    assert main(["gauntlet", "--bot", "racer", "--editions", "nordic", "--players", "5", "--games", "1"]) == 2
    assert "nothing to play" in capsys.readouterr().err
