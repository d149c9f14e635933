"""ttr gauntlet: the matches it plays, the table it prints, and the same results for the same seed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ttr.bots import GAUNTLET
from ttr.cli import main
from ttr.sim import gauntlet
from ttr.sim.runner import GameSpec, play_game
from ttr.sim.stats import paired_comparison, sign_test, wilson


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


def test_sign_test_is_the_exact_two_sided_binomial() -> None:
    assert sign_test(0, 0) == 1.0
    assert sign_test(3, 3) == 1.0  # an even split is capped at 1
    assert sign_test(5, 0) == sign_test(0, 5) == 2 / 32
    assert sign_test(1, 6) == 2 * (1 + 7) / 128
    assert sign_test(13, 28) == pytest.approx(0.0275, abs=5e-4)  # 2 P(X <= 13), X ~ Bin(41, 1/2)


def test_paired_comparison_counts_the_games_only_one_side_won() -> None:
    a = [(1.0, 10.0), (0.0, -5.0), (1.0, 3.0), (0.5, 0.0)]
    b = [(1.0, 4.0), (1.0, 2.0), (0.0, -1.0), (0.5, 0.0)]
    pr = paired_comparison(a, b)
    assert (pr["games"], pr["a_only"], pr["b_only"]) == (4, 1, 1)
    assert pr["a_win_rate"] == 2.5 / 4 and pr["b_win_rate"] == 2.5 / 4 and pr["p_sign"] == 1.0
    assert pr["score"]["diff"] == pytest.approx((6 - 7 + 4 + 0) / 4)
    lo, hi = pr["score"]["ci95"]
    assert lo < pr["score"]["diff"] < hi
    with pytest.raises(ValueError, match="length"):
        paired_comparison(a, b[:3])


def test_a_baseline_plays_the_same_deals_and_seats() -> None:
    """`medium` is `route_focus`: on the same deals, seats and opponents they play the very same games, so the
    paired comparison finds no game won by only one of them (a misaligned pairing would)."""
    match_list, notes = gauntlet.matches("route_focus", ["usa"], [2, 3], ["racer", "medium"], baseline="medium")
    assert [m.opponent for m in match_list] == ["racer", "racer"] and any("baseline" in n for n in notes)
    rows, total = gauntlet.run("route_focus", match_list, 4, seed=5, baseline="medium")
    for row in rows:
        pr = row["paired"]
        assert (pr["games"], pr["a_only"], pr["b_only"], pr["p_sign"]) == (4, 0, 0, 1.0)
        assert pr["a_win_rate"] == pr["b_win_rate"] == row["win_rate"] == row["baseline"]["win_rate"]
        assert pr["score"]["diff"] == 0.0
        assert row["baseline"]["score"] == row["score"]
    assert total["paired"]["games"] == 8 and total["games"] == 8 and total["baseline"]["decisions"] > 0


def test_a_baseline_shows_a_real_difference() -> None:
    match_list, _ = gauntlet.matches("hard", ["usa"], [2], ["long_route"], baseline="random")
    rows, _ = gauntlet.run("hard", match_list, 6, seed=1, baseline="random")
    pr = rows[0]["paired"]
    assert pr["a_win_rate"] == 1.0 and pr["b_win_rate"] == 0.0  # random never beats long_route; hard always does here
    assert (pr["a_only"], pr["b_only"]) == (6, 0) and pr["p_sign"] == 2 / 64
    assert pr["score"]["diff"] > 0 and pr["score"]["ci95"][0] > 0


def test_cli_baseline_table_records_and_refusals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "games.jsonl"
    args = ["gauntlet", "--bot", "hard", "--baseline", "random", "--games", "2", "--players", "2"]
    assert main([*args, "--opponents", "long_route", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "paired: hard (A) against the baseline random (B)" in text and "exact sign test p = 0.5" in text
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["bots"].count("hard") for r in records] == [1, 0, 1, 0]  # each game of the bot, then the baseline's
    assert [(r["seed"], r["bots"].index("hard")) for r in records[::2]] == [
        (r["seed"], r["bots"].index("random")) for r in records[1::2]
    ]
    assert main([*args, "--opponents", "long_route", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["config"]["baseline"] == "random" and data["matches"][0]["paired"]["a_only"] == 2
    assert main(["gauntlet", "--bot", "hard", "--baseline", "hard", "--games", "2"]) == 2
    assert "must differ" in capsys.readouterr().err
    assert main(["gauntlet", "--bot", "hard", "--baseline", "nobody", "--games", "2"]) == 2
    assert main([*args, "--opponents", "long_route", "--out", str(tmp_path / "no" / "such" / "dir.jsonl")]) == 2
    assert "cannot write" in capsys.readouterr().err


def test_from_file_summarises_a_whole_or_cut_short_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "games.jsonl"
    args = ["gauntlet", "--bot", "hard", "--baseline", "random", "--players", "2", "--opponents", "long_route,racer"]
    assert main([*args, "--games", "2", "--out", str(out), "--json"]) == 0
    played = json.loads(capsys.readouterr().out)
    assert main([*args, "--from", str(out), "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["matches"] == played["matches"] and again["total"] == played["total"] and again["notes"] == []
    lines = out.read_text().splitlines()
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[:-1]) + "\n")  # the last baseline game is missing: its pair is left out
    assert main([*args, "--from", str(cut)]) == 0
    text = capsys.readouterr().out
    assert "1 record(s) left out" in text and "from " in text
    assert main(["gauntlet", "--bot", "hard", "--from", str(cut), "--json"]) == 0  # the bot's games alone
    alone = json.loads(capsys.readouterr().out)
    assert [m["games"] for m in alone["matches"]] == [2, 2] and alone["notes"] == [
        "3 record(s) left out (other bots' games, or without their pair)"
    ]
    assert main(["gauntlet", "--bot", "planner", "--from", str(out)]) == 2  # no game of this bot
    assert "no games" in capsys.readouterr().err
    (tmp_path / "four.jsonl").write_text(json.dumps({"bots": ["hard", "racer", "blocker"]}) + "\n")
    assert main(["gauntlet", "--bot", "hard", "--from", str(tmp_path / "four.jsonl")]) == 2
    assert "not a game of hard against one style" in capsys.readouterr().err
    (tmp_path / "bad.jsonl").write_text("{not json\n")
    assert main(["gauntlet", "--bot", "hard", "--from", str(tmp_path / "bad.jsonl")]) == 2
    assert main(["gauntlet", "--bot", "hard", "--from", str(tmp_path / "missing.jsonl")]) == 2
    (tmp_path / "empty.jsonl").write_text("")
    assert main(["gauntlet", "--bot", "hard", "--from", str(tmp_path / "empty.jsonl")]) == 2
    assert "no games" in capsys.readouterr().err
