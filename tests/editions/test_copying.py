"""Editions and their parts survive pickling and deep copies (anything that copies or pickles an object
holding an edition needs this), in the pure-Python package and in the optional compiled build alike
(tools/compiled_check.sh runs these tests against it)."""

from __future__ import annotations

import copy
import pickle

import pytest

from ttr.editions import BUILTIN, get_edition
from ttr.engine import Game


@pytest.mark.parametrize("name", sorted(BUILTIN))
def test_an_edition_pickles_and_copies_to_an_equal_edition(name: str) -> None:
    ed = get_edition(name)
    for clone in (pickle.loads(pickle.dumps(ed)), copy.deepcopy(ed)):
        assert clone == ed
        assert clone is not ed
        assert clone.routes == ed.routes and clone.rules == ed.rules and clone.tickets == ed.tickets
        assert clone.route_index == ed.route_index and clone.adjacency == ed.adjacency


def test_a_game_on_an_unpickled_edition_plays_like_the_original() -> None:
    ed = get_edition("nordic")
    clone = pickle.loads(pickle.dumps(ed))
    a, b = Game(ed, 3, 7), Game(clone, 3, 7)
    for _ in range(60):
        assert a.legal_actions() == b.legal_actions()
        a.step(a.legal_actions()[0])
        b.step(b.legal_actions()[0])
    assert a.to_dict() == b.to_dict()
