"""Move notation (ttr.notation): every legal action of every edition round-trips exactly, and bad text
is refused with a reason naming what did not match."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ttr.engine import Action, Game
from ttr.notation import NotationError, format_cards, parse_cards, parse_move
from ttr.sim.notation_check import round_trip_game

EDITIONS = [("usa", 2), ("usa", 5), ("europe", 3), ("europe", 5), ("nordic", 2), ("nordic", 3), ("marklin", 2), ("marklin", 4)]


@settings(max_examples=12, deadline=None)
@given(which=st.sampled_from(EDITIONS), seed=st.integers(0, 2**31 - 1))
def test_every_legal_action_round_trips(which: tuple[str, int], seed: int) -> None:
    edition, players = which
    steps, actions = round_trip_game(edition, players, seed)
    assert steps > 0 and actions >= steps


def test_examples_read_as_documented() -> None:
    usa = Game("usa", 2, 1)
    assert parse_move(usa, "claim denver-omaha 3red+1L") == Action(
        "claim", route="denver-omaha", cards=parse_cards("3red+1locomotive")
    )
    assert parse_move(usa, "draw 2") == Action("draw_faceup", slot=1)
    assert parse_move(usa, "keep denver-el-paso,boston-miami").tickets == ("boston-miami", "denver-el-paso")
    assert format_cards(parse_cards("1L4+2black+1P")) == "2black+1L4+1P"
    marklin = Game("marklin", 2, 1)
    move = parse_move(marklin, "move koln>dusseldorf/2 +1P")
    assert move.path == ("dusseldorf-koln/2",) and move.city == "koln"
    assert parse_move(marklin, "place none") == Action("place_passenger")
    assert parse_move(marklin, "tickets short=3,long=1").mix == (("long", 1), ("short", 3))


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty move"),
        ("fly boston", "unknown move 'fly'"),
        ("claim denvr-omaha 2red", "did you mean 'denver-omaha'"),
        ("claim denver-omaha", "takes 2 argument"),
        ("claim denver-omaha 2pink", "unknown card 'pink'"),
        ("claim denver-omaha red2", "not <count><card>"),
        ("claim denver-omaha 2red+1red", "named twice"),
        ("draw 9", "slot must be 1-5"),
        ("keep boston-miami,boston-miami", "named twice"),
        ("station nowhere 1red", "unknown city 'nowhere'"),
        ("x" * 3000, "at most 2000 characters"),
    ],
)
def test_bad_text_is_refused_with_a_reason(text: str, reason: str) -> None:
    with pytest.raises(NotationError, match=reason.replace("(", r"\(")):
        parse_move(Game("usa", 2, 1), text)


def test_parallel_lanes_must_be_named_in_a_passenger_move() -> None:
    marklin = Game("marklin", 2, 1)
    with pytest.raises(NotationError, match="name the lane"):
        parse_move(marklin, "move koln>dusseldorf")
    with pytest.raises(NotationError, match="no route joins"):
        parse_move(marklin, "move koln>berlin")


def test_notation_errors_are_value_errors() -> None:
    with pytest.raises(ValueError):
        parse_move(Game("usa", 2, 1), "blind now")
