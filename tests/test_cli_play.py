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
    assert "please type one of the numbers" in out
    assert "record so far: seed 1" in out
