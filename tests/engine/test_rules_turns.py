"""RULES.md §1: the Rulings "no legal action" (pass) and "stalemate", and the end-of-game trigger (USA)."""

from __future__ import annotations

import pytest

from positions import BLIND, PASS, claim, faceup, refused, scenario, started
from ttr.editions import get_edition
from ttr.engine import EndReason, Game


def blocked(players: int = 3, lines: str = "", free: tuple[str, ...] = ()) -> Game:
    """Every route of 3 or fewer spaces owned, 3 trains each, no cards to draw, no tickets left.

    Player 0 holds every card not placed elsewhere, but nobody can claim (a free route needs more
    trains than anyone has): a position where passing is the only action. `free` routes stay unowned;
    the scenario `lines` change the rest.
    """
    owned: list[list[str]] = [[] for _ in range(players)]
    short = [r.id for r in get_edition("usa").routes if r.length <= 3 and r.id not in free]
    for i, r in enumerate(short):  # lanes of a double are listed together, so they get different owners
        owned[i % players].append(r)
    routes = "\n".join(f"p{p} routes {', '.join(ids)}" for p, ids in enumerate(owned))
    three = ", ".join(["3"] * players)
    return scenario(
        f"""
        usa {players}p seed 3
        hands none
        market -, -, -, -, -
        rest p0                 # every card not named
        ticket deck             # empty
        trains {three}
        current 0
        {routes}
        {lines}
        """
    )


def test_pass_is_the_only_action_when_nothing_else_is_legal() -> None:
    g = blocked()
    assert g.legal_actions() == (PASS,)
    events = g.apply(PASS)
    assert [e.type for e in events] == ["pass"]
    assert g.current == 1 and not g.is_over


def test_pass_is_refused_while_any_other_action_is_possible() -> None:
    g = started("usa", 2, seed=1)
    assert PASS not in g.legal_actions()
    refused(g, PASS, "pass_not_allowed", "only when no other action is possible")
    one_card = blocked(lines="market -, -, red, -, -")  # a single face-up card is enough to forbid passing
    assert one_card.legal_actions() == (faceup(2),)
    refused(one_card, PASS, "pass_not_allowed", "no other action")


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_stalemate_every_player_passes_in_one_full_round_ends_the_game(players: int) -> None:
    g = blocked(players)
    for i in range(players):
        assert not g.is_over
        assert g.current == i
        events = g.apply(PASS)
    assert g.is_over
    assert events[-1].type == "game_over"
    assert events[-1].data["reason"].startswith("stalemate")
    assert g.result()["over"]


def test_stalemate_needs_consecutive_passes_by_every_player() -> None:
    g = blocked(  # only player 1 can act (a 4-space route)
        3,
        """
        p1 hand 4red
        trains 3, 7, 3
        current 2
        """,
    )
    g.apply(PASS)  # player 2
    g.apply(PASS)  # player 0
    assert g.current == 1 and PASS not in g.legal_actions()
    g.apply(claim("calgary-helena", red=4))  # breaks the streak; the 4 red cards go to the discard pile
    g.apply(BLIND)  # player 2 draws them
    g.apply(BLIND)
    g.apply(BLIND)  # player 0
    g.apply(BLIND)
    assert g.legal_actions() == (PASS,)
    g.apply(PASS)  # player 1
    g.apply(PASS)  # player 2: four passes in the game so far, two in a row
    assert not g.is_over
    assert g.outcome is None
    g.apply(PASS)  # player 0 completes a full round of passes
    assert g.is_over
    assert g.outcome is not None and g.outcome.reason == EndReason.STALEMATE
    assert list(g.outcome.winners) == g.result()["winners"]


def _end_table(trains: str) -> Game:
    return scenario(
        f"""
        usa 3p seed 8
        p0 hand 6red+2L
        p1 hand 3blue
        p2 hand 2green
        market white, black, yellow, orange, purple
        trains {trains}
        current 0
        """
    )


def test_end_trigger_gives_every_player_one_more_turn_including_the_trigger_player() -> None:
    g = _end_table("4, 45, 45")
    events = g.apply(claim("atlanta-charleston", red=2))  # player 0 ends the turn with 2 trains
    assert "final_round" in [e.type for e in events]
    turns = []
    while not g.is_over:
        turns.append(g.current)
        g.apply(BLIND)
        g.apply(BLIND)
    assert turns == [1, 2, 0]


def test_ending_a_turn_with_three_trains_does_not_trigger_the_end() -> None:
    g = _end_table("5, 45, 45")
    events = g.apply(claim("atlanta-charleston", red=2))
    assert "final_round" not in [e.type for e in events]
    assert g.final_turns == -1


@pytest.mark.parametrize("trains_before", [2, 1])
def test_end_triggers_at_one_or_zero_trains(trains_before: int) -> None:
    g = _end_table(f"{trains_before}, 45, 45")
    g.apply(claim("atlanta-nashville", red=1))
    assert g.trains[0] == trains_before - 1
    assert g.final_turns == 3


def test_a_player_already_at_two_trains_triggers_by_ending_any_turn() -> None:
    g = _end_table("2, 45, 45")
    g.apply(BLIND)
    g.apply(BLIND)
    assert g.final_turns == 3 and g.current == 1


def test_end_trigger_happens_once() -> None:
    g = _end_table("4, 3, 45")
    g.apply(claim("atlanta-charleston", red=2))
    g.apply(claim("calgary-vancouver", blue=3))  # player 1 also drops to 0 trains in the final round
    assert g.final_turns == 2  # turns left: player 2, then player 0
    assert not g.is_over
    g.apply(BLIND)
    g.apply(BLIND)
    assert not g.is_over and g.current == 0
    g.apply(BLIND)
    g.apply(BLIND)
    assert g.is_over


def test_a_pass_uses_up_a_final_round_turn() -> None:
    g = blocked(3, "trains 2, 3, 3\nmarket -, -, red, -, -", free=("atlanta-nashville",))
    assert faceup(2) in g.legal_actions()
    g.apply(faceup(2))  # player 0 ends a turn with 2 trains: the final round starts
    assert g.final_turns == 3
    g.apply(PASS)  # player 1 (no cards)
    g.apply(PASS)  # player 2
    assert not g.is_over
    events = g.apply(claim("atlanta-nashville", locomotive=1))  # player 0's last turn
    assert g.is_over and events[-1].data["reason"] == "final round complete"
    assert g.outcome is not None and g.outcome.reason == EndReason.TRAINS  # though both others passed
    assert g.outcome.scores == tuple(x["total"] for x in g.result()["players"])


def test_no_action_is_legal_after_the_game_ends() -> None:
    g = blocked(2)
    g.apply(PASS)
    g.apply(PASS)
    assert g.is_over and g.legal_actions() == ()
    refused(g, PASS, "game_over", "the game is over")
