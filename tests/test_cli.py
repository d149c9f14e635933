"""The command line: editions, simulate, replay, score, bench."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from ttr.cli import build_parser, main
from ttr.engine import Game


def test_help_lists_every_command(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for cmd in ("editions", "simulate", "replay", "score", "bench", "play"):
        assert cmd in out


def test_editions_lists_all_four_and_marklin_notes(capsys) -> None:
    assert main(["editions"]) == 0
    out = capsys.readouterr().out
    for name in ("usa", "europe", "nordic", "marklin"):
        assert name in out
    assert "STAND-IN TICKETS" in out and "PROVISIONAL MERCHANDISE" in out


def test_editions_unknown_is_a_clear_error(capsys) -> None:
    assert main(["editions", "atlantis"]) == 2
    assert "unknown edition 'atlantis'" in capsys.readouterr().err


def test_simulate_writes_records_that_replay(tmp_path: Path, capsys) -> None:
    out = tmp_path / "games.jsonl"
    assert (
        main(["simulate", "--edition", "usa", "--players", "4", "--games", "12", "--seed", "1", "--jobs", "2", "--out", str(out)])
        == 0
    )
    table = capsys.readouterr().out
    assert "win rate" in table and "wins by seat" in table
    lines = out.read_text().splitlines()
    assert len(lines) == 12
    records = [json.loads(x) for x in lines]
    assert [r["seed"] for r in records] == list(range(1, 13))
    assert main(["replay", str(out)]) == 0
    assert "12 record(s) replayed and checked, 0 failed" in capsys.readouterr().out


def test_simulate_is_deterministic_across_job_counts(tmp_path: Path) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    main(["simulate", "--games", "6", "--players", "3", "--jobs", "1", "--out", str(a)])
    main(["simulate", "--games", "6", "--players", "3", "--jobs", "2", "--out", str(b)])
    assert a.read_text() == b.read_text()


def test_simulate_json_summary(capsys) -> None:
    assert main(["simulate", "--games", "5", "--players", "2", "--jobs", "1", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["games"] == 5
    assert abs(sum(summary["seat_win_rate"]) - 1.0) < 1e-9


def test_simulate_rejects_bad_player_count(capsys) -> None:
    assert main(["simulate", "--edition", "nordic", "--players", "5", "--games", "1"]) == 2
    assert "2-3 players" in capsys.readouterr().err


def test_replay_detects_a_tampered_result(tmp_path: Path, capsys) -> None:
    g = Game("usa", 2, 3)
    rng = random.Random(0)
    while not g.is_over:
        g.step(rng.choice(g.legal_actions()))
    rec = g.record()
    rec["result"]["scores"][0] += 1
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(rec))
    assert main(["replay", str(path)]) == 1
    assert "MISMATCH" in capsys.readouterr().err


def test_replay_reports_an_illegal_action(tmp_path: Path, capsys) -> None:
    rec = Game("usa", 2, 3).record()
    rec["actions"] = [{"type": "claim", "route": "nowhere", "cards": {"red": 1}}]
    rec["actors"] = [0]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(rec))
    assert main(["replay", str(path)]) == 1
    assert "record action #0" in capsys.readouterr().err


def test_score_prints_breakdown(tmp_path: Path, capsys) -> None:
    g = Game("europe", 3, 8)
    rng = random.Random(1)
    while not g.is_over:
        g.step(rng.choice(g.legal_actions()))
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(g.to_dict()))
    assert main(["score", str(path), "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res == json.loads(json.dumps(g.result()))
    assert main(["score", str(path)]) == 0
    assert "winner(s)" in capsys.readouterr().out


def test_score_rejects_a_malformed_position(tmp_path: Path, capsys) -> None:
    path = tmp_path / "pos.json"
    path.write_text(json.dumps({"format": 1, "edition": "usa"}))
    assert main(["score", str(path)]) == 2
    assert "neither a game record nor a position: missing or bad field" in capsys.readouterr().err


def test_bench_runs_and_reports_rates(capsys) -> None:
    assert main(["bench", "--seconds", "0.2", "--editions", "usa", "--players", "2", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert (row["edition"], row["players"]) == ("usa", 2) and row["games"] >= 1
    # the rates agree with each other (speed itself is the benchmark's business, not a test's: it depends on the load)
    assert row["decisions_per_s"] == pytest.approx(row["games_per_s"] * row["decisions_per_game"], rel=1e-6)
    assert 50 < row["decisions_per_game"] < 1000 and row["decisions_per_s"] > 0


def test_parser_builds() -> None:
    assert build_parser().prog == "ttr"


@pytest.mark.parametrize("command", [["simulate"], ["tournament"], ["compare", "usa", "usa"]])
def test_an_unknown_bot_is_refused_in_one_line(command, capsys) -> None:
    assert main([*command, "--bots", "planner,nosuch", "--games", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"ttr {command[0]}: unknown bot 'nosuch'") and err.count("\n") == 1
