"""RULES.md §1 action 3, "Draw destination tickets" (USA)."""

from __future__ import annotations

from positions import BLIND, DRAW_TICKETS, claim, keep, refused, scenario
from ttr.engine import Game
from ttr.engine.actions import DRAW_TICKETS as DRAW_TICKETS_TYPE
from ttr.engine.actions import KEEP_TICKETS

FIVE = ["boston-miami", "calgary-phoenix", "denver-el-paso", "duluth-houston", "toronto-miami"]


def table(ticket_deck: list[str]) -> Game:
    """Player 0 to move, holding the tickets dealt at setup, with these tickets (top first) left to draw."""
    return scenario(
        f"""
        usa 2p seed 9
        p0 hand 3red
        market blue, blue, blue, blue, blue
        ticket deck {", ".join(ticket_deck)}
        current 0
        """
    )


def test_draw_three_tickets_then_keep_at_least_one() -> None:
    g = table(FIVE)
    g.apply(DRAW_TICKETS)
    assert g.phase == "keep_tickets" and g.current == 0
    assert g.to_dict()["offered"][0] == FIVE[:3]
    keeps = {a.tickets for a in g.legal_actions()}
    assert all(a.type == KEEP_TICKETS for a in g.legal_actions())
    assert len(keeps) == 7 and all(1 <= len(k) <= 3 for k in keeps)  # every non-empty subset of 3
    refused(g, keep(), "keep_too_few", "keep at least 1 of the 3 tickets drawn")
    refused(g, keep(FIVE[3]), "unknown_ticket", "not among those drawn")


def test_kept_tickets_join_the_hand_and_returned_ones_go_to_the_bottom() -> None:
    g = table(FIVE)
    held_before = g.to_dict()["tickets"][0]
    g.apply(DRAW_TICKETS)
    g.apply(keep(FIVE[1]))
    d = g.to_dict()
    assert d["tickets"][0] == [*held_before, FIVE[1]]
    assert d["offered"][0] == []
    assert sorted(d["ticket_decks"]["regular"][:2]) == sorted([FIVE[0], FIVE[2]])  # index 0 = bottom
    assert d["ticket_decks"]["regular"][2:] == [FIVE[4], FIVE[3]]  # the rest keeps its order, top last
    assert g.current == 1 and g.phase == "turn"


def test_nothing_else_can_be_done_while_choosing_tickets() -> None:
    g = table(FIVE)
    g.apply(DRAW_TICKETS)
    refused(g, BLIND, "wrong_phase", "cannot draw train cards now")
    refused(g, claim("chicago-duluth", red=3), "wrong_phase", "cannot claim a route now")
    refused(g, DRAW_TICKETS, "wrong_phase", "cannot draw tickets now")


def test_fewer_than_three_tickets_left_draws_those_that_remain() -> None:
    g = table(FIVE[:2])
    g.apply(DRAW_TICKETS)
    assert g.to_dict()["offered"][0] == FIVE[:2]
    assert {a.tickets for a in g.legal_actions()} == {(FIVE[0],), (FIVE[1],), tuple(sorted(FIVE[:2]))}
    g.apply(keep(FIVE[0]))
    assert g.to_dict()["ticket_decks"]["regular"] == [FIVE[1]]


def test_drawing_tickets_is_not_allowed_when_none_remain() -> None:
    g = table([])
    assert DRAW_TICKETS_TYPE not in {a.type for a in g.legal_actions()}
    refused(g, DRAW_TICKETS, "tickets_empty", "no destination tickets are left")


def test_kept_tickets_are_never_discarded() -> None:
    g = table(FIVE)
    held_before = g.to_dict()["tickets"][0]
    g.apply(DRAW_TICKETS)
    g.apply(keep(*FIVE[:3]))
    g.apply(BLIND)
    g.apply(BLIND)
    g.apply(DRAW_TICKETS)  # player 0 again
    g.apply(keep(FIVE[3]))
    assert g.to_dict()["tickets"][0] == [*held_before, *FIVE[:3], FIVE[3]]
