"""CLI polish: every option of every command has help and shows its default; `ttr score` reads game
records and positions, fits the terminal, and answers anything else with one line and exit code 2."""

from __future__ import annotations

import argparse
import functools
import json
from pathlib import Path

import pytest

from ttr.cli import build_parser, main
from ttr.engine import Game
from ttr.sim.runner import GameSpec, play_game


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_every_option_of_every_command_has_help_and_shows_its_default() -> None:
    subs = _subparsers()
    assert {"simulate", "tournament", "play", "score", "compare", "serve"} <= set(subs)
    for name, sub in subs.items():
        text = " ".join(sub.format_help().split())
        for action in sub._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            assert action.help, f"ttr {name} {action.option_strings or action.dest} has no help"
            if action.option_strings:
                shown = sub._get_formatter()._expand_help(action)
                assert "default" in shown.lower(), f"ttr {name} {action.option_strings[0]}: no default shown"
                assert " ".join(shown.split()) in text


def test_simulate_and_play_help_show_defaults(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "--players PLAYERS players per game" in out and "(default: 2)" in out and "(default: 100)" in out
    with pytest.raises(SystemExit):
        main(["play", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "--edition EDITION" in out and "default usa" in out


@functools.cache
def _finished_record(edition: str = "europe", players: int = 4, seed: int = 3) -> dict:
    rec = play_game(GameSpec(edition, players, seed, ("racer",) * players))
    return {k: rec[k] for k in ("format", "edition", "options", "players", "seed", "actions", "result")}


def test_score_reads_a_record_and_scores_its_final_position(tmp_path: Path, capsys, monkeypatch) -> None:
    rec = _finished_record()
    path = tmp_path / "rec.json"
    path.write_text(json.dumps(rec))
    assert main(["score", str(path), "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert [x["total"] for x in res["players"]] == rec["result"]["scores"]
    assert res["winners"] == rec["result"]["winners"]
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["score", str(path)]) == 0
    out = capsys.readouterr().out
    assert "final position of the record" in out and f"{rec['result']['scores'][0]}" in out


@pytest.mark.parametrize("columns", [200, 100, 80, 60, 44])
def test_score_table_fits_the_terminal_and_keeps_whole_headers(tmp_path: Path, capsys, monkeypatch, columns: int) -> None:
    path = tmp_path / "rec.json"
    path.write_text(json.dumps(_finished_record(players=5, seed=4)))
    monkeypatch.setenv("COLUMNS", str(columns))
    assert main(["score", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in lines) <= columns
    table = "\n".join(lines)
    for header in ("routes", "tickets", "longest", "stations", "merch.", "total", "rank"):
        assert header in table, (columns, header)


def test_score_reads_a_position_too(tmp_path: Path, capsys) -> None:
    g = Game("usa", 2, 5)
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(g.to_dict()))
    assert main(["score", str(path), "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["players"]) == 2


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('{"a": 1}', "neither a game record nor a position"),
        ("[1, 2]", "expected a JSON object"),
        ("not json", "not valid JSON"),
        ('{"edition": "usa", "players": 2, "seed": 1, "actions": [{"type": "fly"}]}', "does not replay"),
        ('{"edition": "usa", "players": 2, "actions": []}', "a game record needs seed"),
        ('{"edition": "atlantis", "players": 2, "seed": 1, "actions": []}', "does not replay: unknown edition"),
        ('{"edition": "usa", "players": "two", "seed": 1, "actions": []}', "does not replay"),
        ('{"edition": "usa", "players": 2, "seed": 1, "actions": {}}', "actions are not a list"),
        ('{"format": 1, "edition": "usa", "players": 2}', "missing or bad field"),
        ('{"edition": 1}\n{"edition": 2}\n', "holds 2 JSON lines"),
    ],
)
def test_score_anything_else_is_one_line_and_exit_2(tmp_path: Path, capsys, content: str, expected: str) -> None:
    path = tmp_path / "x.json"
    path.write_text(content)
    assert main(["score", str(path)]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert captured.out == ""
    assert len(err.splitlines()) == 1 and err.startswith("ttr score: ") and expected in err, err
    assert "Traceback" not in err and "Error:" not in err and "KeyError" not in err


def test_score_missing_file_and_binary_file(tmp_path: Path, capsys) -> None:
    assert main(["score", str(tmp_path / "nope.json")]) == 2
    assert "cannot read: No such file" in capsys.readouterr().err
    binary = tmp_path / "b.json"
    binary.write_bytes(b"\xff\xfe\x00\x81")
    assert main(["score", str(binary)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "not a text file" in err
