"""Tournaments: seat-rotated schedules, identical results for the same seed on any backend and
number of processes, statistics with Wilson intervals, and the HTML report."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ttr.cli import main
from ttr.sim.stats import tournament_summary, wilson
from ttr.sim.tournament import lineups, run, schedule


def test_schedule_rotates_seats_on_the_same_deal() -> None:
    specs = schedule("usa", 3, ["planner", "racer", "random"], 9, seed=5)
    assert [s.seed for s in specs] == [5, 5, 5, 6, 6, 6, 7, 7, 7]
    for block in range(3):
        seatings = [s.bots for s in specs[block * 3 : block * 3 + 3]]
        for seat in range(3):
            assert sorted(b[seat] for b in seatings) == ["planner", "racer", "random"]


def test_lineups_for_more_or_fewer_bots_than_seats() -> None:
    assert lineups(["a", "b", "c"], 2) == [("a", "b"), ("a", "c"), ("b", "c")]
    assert lineups(["a", "b"], 4) == [("a", "b", "a", "b")]
    assert lineups(["a"], 3) == [("a", "a", "a")]
    specs = schedule("usa", 2, ["a", "b", "c"], 6)
    assert {s.bots for s in specs} == {("a", "b"), ("b", "a"), ("a", "c"), ("c", "a"), ("b", "c"), ("c", "b")}
    with pytest.raises(ValueError):
        lineups([], 2)


def test_same_seed_same_records_on_one_or_two_processes() -> None:
    specs = schedule("europe", 2, ["planner", "route_focus"], 6, seed=3)
    one = run(specs, "local", 1)
    two = run(specs, "local", 2)
    assert json.dumps(one, sort_keys=True) == json.dumps(two, sort_keys=True)
    assert [r["seed"] for r in one] == [3, 3, 4, 4, 5, 5]
    assert [r["game"] for r in one] == list(range(6))


def test_ray_backend_matches_local() -> None:
    ray = pytest.importorskip("ray")
    specs = schedule("usa", 2, ["planner", "racer"], 4, seed=2)
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        remote = run(specs, "ray", 1)
    finally:
        ray.shutdown()
    assert json.dumps(remote, sort_keys=True) == json.dumps(run(specs, "local", 1), sort_keys=True)


def test_cli_same_seed_same_json_lines(tmp_path: Path) -> None:
    outs = []
    for name in ("a", "b"):
        out = tmp_path / f"{name}.jsonl"
        code = main(
            [
                "tournament",
                "--edition",
                "nordic",
                "--players",
                "2",
                "--bots",
                "planner,one_step",
                "--games",
                "4",
                "--seed",
                "9",
                "--jobs",
                "1",
                "--out",
                str(out),
                "--summary",
                str(tmp_path / f"{name}.json"),
            ]
        )
        assert code == 0
        outs.append(out.read_text(encoding="utf-8"))
    assert outs[0] == outs[1]
    lines = [json.loads(x) for x in outs[0].splitlines()]
    assert len(lines) == 4 and {tuple(x["bots"]) for x in lines} == {("planner", "one_step"), ("one_step", "planner")}
    summary = json.loads((tmp_path / "a.json").read_text(encoding="utf-8"))["summary"]
    assert summary["games"] == 4 and set(summary["bots"]) == {"planner", "one_step"}


def test_cli_rejects_unknown_bots(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament", "--bots", "planner,nobody", "--games", "1", "--jobs", "1"]) == 2
    assert "nobody" in capsys.readouterr().err


def test_report_files(tmp_path: Path) -> None:
    report = tmp_path / "report"
    code = main(
        [
            "tournament",
            "--edition",
            "marklin",
            "--players",
            "3",
            "--bots",
            "planner,racer,long_route",
            "--games",
            "3",
            "--jobs",
            "1",
            "--report",
            str(report),
        ]
    )
    assert code == 0
    for name in ("index.html", "scores.png", "seats.png", "routes.png", "cities.png", "summary.json"):
        assert (report / name).stat().st_size > 0, name
    html = (report / "index.html").read_text(encoding="utf-8")
    assert "routes.png" in html and "Wilson" in html and "planner" in html
    for title in ("Game length and how games end", "Tickets", "Routes", "Mechanisms", "Mean score and where it comes from"):
        assert f"<h2>{title}" in html, title
    assert "passenger moves" in html  # Märklin's mechanism
    head = html[html.index("<h2>Head to head") : html.index("<h2>Scores")]
    assert head.count("<tr>") == 1 + 3  # the header and each of the 3 pairs once
    assert "planner vs racer" in head and "racer vs planner" not in head
    lab = json.loads((report / "summary.json").read_text())["lab"]
    assert sum(lab["length_histogram"].values()) == 3
    assert (report / "routes.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_wilson_interval_known_values() -> None:
    lo, hi = wilson(50, 100)
    assert math.isclose(lo, 0.4038, abs_tol=1e-3) and math.isclose(hi, 0.5962, abs_tol=1e-3)
    lo, hi = wilson(0, 10)
    assert lo == 0.0 and math.isclose(hi, 0.2775, abs_tol=1e-3)
    assert wilson(0, 0) == (0.0, 1.0)


@given(st.integers(1, 2000), st.floats(0, 1))
def test_wilson_interval_contains_the_rate(n: int, share: float) -> None:
    wins = share * n
    lo, hi = wilson(wins, n)
    assert 0.0 <= lo <= wins / n + 1e-12 and wins / n - 1e-12 <= hi <= 1.0
    lo4, hi4 = wilson(4 * wins, 4 * n)
    assert hi4 - lo4 <= hi - lo + 1e-12  # the same rate over more games: a tighter interval


def synthetic(bots: list[str], scores: list[int], first: int, passes: int = 0, stalemate: bool = False) -> dict:
    best = max(scores)
    return {
        "players": len(bots),
        "bots": bots,
        "first_player": first,
        "result": {"scores": scores, "winners": [i for i, s in enumerate(scores) if s == best]},
        "stats": {"turns": 50, "decisions": 90, "passes": passes, "stalemate": stalemate},
        "breakdown": [
            {
                "total": s,
                "tickets_completed": 1,
                "ticket_points": 3,
                "route_points": s - 3,
                "tickets": [{"id": "x", "completed": True}, {"id": "y", "completed": False}],
            }
            for s in scores
        ],
    }


def test_summary_counts_wins_ties_seats_and_rule_gaps() -> None:
    records = [
        synthetic(["a", "b"], [100, 90], first=0),
        synthetic(["b", "a"], [80, 80], first=1, passes=3, stalemate=True),  # a tie: half a win each
        synthetic(["a", "b"], [70, 95], first=1),
    ]
    s = tournament_summary(records)
    assert s["bots"]["a"]["wins"] == 1.5 and s["bots"]["b"]["wins"] == 1.5
    assert s["bots"]["a"]["tickets_failed"] == 1.0
    assert s["stalemates"] == 1 and s["games_with_pass"] == 1 and s["passes"] == 3
    # turn position 0 = the first player: game 1 seat 0, game 2 seat 1, game 3 seat 1
    assert s["seats"][0]["win_rate"] == pytest.approx((1 + 0.5 + 1) / 3)
    assert s["matchups"]["a vs b"]["score_wins"] == pytest.approx(0.5)
    assert list(s["matchups"]) == ["a vs b"]  # each pair once
    assert s["matchups"]["a vs b"] | {"score_wins": 0} == {
        "games": 3,
        "first_ahead": 1,
        "second_ahead": 1,
        "level": 1,
        "score_wins": 0,
    }


def test_cli_timed_adds_decision_times_and_plays_the_same_games(tmp_path: Path) -> None:
    records = []
    for timed in (False, True):
        out, summary = tmp_path / f"{timed}.jsonl", tmp_path / f"{timed}.json"
        args = ["tournament", "--players", "2", "--bots", "hard,medium", "--games", "4", "--seed", "3", "--jobs", "1"]
        assert main([*args, "--out", str(out), "--summary", str(summary), *(["--timed"] if timed else [])]) == 0
        records.append([json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()])
        times = json.loads(summary.read_text(encoding="utf-8"))["summary"].get("decision_ms")
        if timed:
            assert set(times) == {"hard", "medium"}
            for d in times.values():
                assert d["decisions"] > 0 and 0 < d["ms_median"] <= d["ms_p99"]
        else:
            assert times is None
    for plain, timed_rec in zip(*records, strict=True):
        assert len(timed_rec.pop("decision_ms")) == 2
        assert plain == timed_rec  # timing changes nothing else


def test_a_game_that_does_not_end_is_stopped_with_a_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot game past MAX_DECISIONS raises GameDidNotEnd naming the deal, instead of hanging a tournament."""
    from ttr.sim import runner

    spec = runner.GameSpec("usa", 2, 3, ("random", "random"))
    assert runner.play_game(spec)["stats"]["decisions"] < runner.MAX_DECISIONS
    monkeypatch.setattr(runner, "MAX_DECISIONS", 50)
    with pytest.raises(runner.GameDidNotEnd, match=r"usa 2p seed 3 \(random, random\): not over after 50 decisions"):
        runner.play_game(spec)
