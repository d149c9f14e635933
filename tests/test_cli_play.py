"""`ttr play` in the terminal: a human seat answering from stdin against a bot."""

import io
import sys

from ttr.cli import main


def test_play_terminal_game_to_the_end(monkeypatch, capsys) -> None:
    # Always the same few short commands (keep the first choice, claim the first route, draw blind, draw tickets):
    # the game must still reach the final scoring.
    monkeypatch.setattr(sys, "stdin", io.StringIO("0\nc1 1\nb\nt\n" * 3000))
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


def test_moves_grouped_with_short_commands() -> None:
    """A turn with 299 legal actions fits in about 40 lines: draws (f1-f5, b, t), claims by route (the two lanes of a
    double told apart by their suffix, colour and length), the rest numbered; each short command is that action."""
    import random

    from ttr.cli.play import Menu, choose
    from ttr.engine import Game

    g = Game("usa", 2, 5)
    rng = random.Random(1)
    while g.phase != "turn" or g.current != 0:
        g.step(rng.choice(g.legal_actions()))
    for _ in range(20):  # blind draws until seat 0 holds many cards
        g.step(next(a for a in g.legal_actions() if a.type == "draw_blind"))
    while g.phase != "turn" or g.current != 0:
        g.step(next(a for a in g.legal_actions() if a.type == "draw_blind"))
    legal = g.legal_actions()
    menu = Menu(g, legal)
    lines = menu.lines(g)
    assert len(legal) > 200 and len(lines) <= len(menu.route_ids) // 2 + 4
    assert lines[0].startswith("draw:") and " b deck (" in lines[0] and " t tickets" in lines[0]
    text = "\n".join(lines)
    assert "new-york-washington/1 2 black" in text and "new-york-washington/2 2 orange" in text
    assert choose(g, legal, "b").type == "draw_blind" and choose(g, legal, "t").type == "draw_tickets"
    for k in range(5):
        if any(a.type == "draw_faceup" and a.slot == k for a in legal):
            assert choose(g, legal, f"f{k + 1}").slot == k
    first = menu.route_ids[0]
    pays = [a for a in legal if a.type == "claim" and a.route == first]
    assert len(pays) > 1
    assert "several payments" in choose(g, legal, "c1")
    picked = choose(g, legal, "c1 1")
    assert picked in pays and picked.route == first
    wild = [sum(v for k, v in a.to_json()["cards"].items() if k.startswith("locomotive")) for a in pays]
    assert wild[[a is picked for a in pays].index(True)] == min(wild)  # payment 1 spends the fewest locomotives
    assert choose(g, legal, f"c {first} 2") in pays
    assert choose(g, legal, "c999").startswith("no route c999")
    assert "no numbered move now" in choose(g, legal, "0")
    single = next(r for r in menu.route_ids if len(menu.routes[r]) == 1)
    assert choose(g, legal, f"c {single}") == menu.routes[single][0]
    assert choose(g, legal, "claim " + single) == menu.routes[single][0]  # the notation is read as before
