"""Every field of a Game is declared once (``ttr.engine.state.FIELDS``): the class annotations, the slots,
``clone``, the position JSON and ``Game.from_parts`` all follow that table."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

import ttr.engine.game
from ttr.engine import Game, state
from ttr.errors import PositionError


def played(edition: str, players: int, steps: int, seed: int = 3) -> Game:
    g, rng = Game(edition, players, seed), random.Random(seed)
    for _ in range(steps):
        if g.is_over:
            break
        g.step(rng.choice(g.legal_actions()))
    return g


def annotated_fields() -> set[str]:
    """The names annotated in ``class Game``'s body, read from the source (a mypyc-compiled class keeps
    no ``__annotations__``, so the check reads what the programmer wrote in both builds)."""
    source = Path(ttr.engine.game.__file__).with_name("game.py").read_text(encoding="utf-8")
    cls = next(n for n in ast.parse(source).body if isinstance(n, ast.ClassDef) and n.name == "Game")
    return {n.target.id for n in cls.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}


def test_the_table_and_the_class_name_the_same_fields() -> None:
    names = [f.name for f in state.FIELDS]
    assert len(names) == len(set(names))
    assert annotated_fields() == set(names) == set(state.SLOTS)
    assert getattr(Game, "__slots__", state.SLOTS) == state.SLOTS  # a mypyc-compiled class has no __slots__
    keys = [f.key for f in state.FIELDS if f.key is not None]
    assert len(keys) == len(set(keys))
    assert set(Game("usa", 2, 0).to_dict()) == {"format", "edition", "options", "players", *keys}


@pytest.mark.parametrize(("edition", "players"), [("usa", 3), ("europe", 2), ("marklin", 2)])
def test_clone_copies_every_field_apart(edition: str, players: int) -> None:
    g = played(edition, players, 80)
    c = g.clone()
    assert c == g
    for f in state.FIELDS:
        mine, theirs = getattr(g, f.name), getattr(c, f.name)
        if f.copy in (state.LIST, state.NESTED, state.DECKS, state.COPY, state.RNG) and f.name != "_labels":
            assert mine is not theirs, f.name
        if f.copy == state.NESTED:
            assert all(a is not b for a, b in zip(mine, theirs, strict=True)), f.name
    c.step(c.legal_actions()[0])
    assert Game.from_dict(g.to_dict()) == g  # the original did not move


def parts(g: Game) -> dict[str, object]:
    return {f.name: getattr(g, f.name) for _, f in state.SAVED}


def test_from_parts_builds_the_same_position_and_checks_it() -> None:
    g = played("europe", 3, 60)
    assert Game.from_parts(g.edition, g.n, parts(g)) == g
    values = parts(g)
    del values["hands"]
    with pytest.raises(PositionError, match="missing \\['hands'\\]"):
        Game.from_parts(g.edition, g.n, values)
    values = parts(g)
    values["deck"] = values["deck"][1:]  # a card lost: the census refuses it
    with pytest.raises(PositionError, match="cards; the edition has"):
        Game.from_parts(g.edition, g.n, values)
