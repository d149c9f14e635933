"""`ttr play` in the terminal: a human seat answering from stdin against a bot."""

import io
import sys

from ttr.cli import main


def test_play_terminal_game_to_the_end(monkeypatch, capsys) -> None:
    # Always pick option 0: the game must still reach the final scoring.
    monkeypatch.setattr(sys, "stdin", io.StringIO("0\n" * 2000))
    assert main(["play", "--edition", "usa", "--seats", "human,random", "--seed", "5"]) == 0
    out = capsys.readouterr().out
    assert "winner(s):" in out
    assert "player 0:" in out and "points" in out


def test_play_quit(monkeypatch, capsys) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("x\nq\n"))
    assert main(["play", "--seats", "human,random", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "unknown move 'x'" in out
    assert "record so far: seed 1" in out


def test_play_by_notation(monkeypatch, capsys) -> None:
    """Moves typed in notation: a misspelt route is explained, a claim without cards takes the single payment."""
    moves = ["0", "claim denvr-omaha 2red", "tickets", "keep nowhere", "0", "q"]
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(moves) + "\n"))
    assert main(["play", "--seats", "human,random", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "unknown route 'denvr-omaha' (did you mean 'denver-omaha'?)" in out
    assert "unknown ticket 'nowhere'" in out
    assert "record so far: seed 1" in out
