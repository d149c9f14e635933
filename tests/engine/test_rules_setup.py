"""RULES.md §1 "Components and setup" (USA)."""

from __future__ import annotations

import pytest

from positions import card_total, keep, refused
from ttr.cards import CARD_INDEX
from ttr.engine import Game, SetupError
from ttr.engine.actions import KEEP_TICKETS


def test_deck_has_110_cards_12_per_colour_and_14_locomotives() -> None:
    g = Game("usa", 3, seed=1)
    deck = g.edition.deck
    assert sum(deck) == 110
    assert deck[CARD_INDEX["locomotive"]] == 14
    assert all(deck[CARD_INDEX[c]] == 12 for c in ("purple", "blue", "orange", "white", "green", "yellow", "black", "red"))
    assert card_total(g) == list(deck)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_setup_deals_4_cards_each_5_face_up_3_tickets_45_trains(players: int) -> None:
    g = Game("usa", players, seed=players)
    assert g.phase == "setup"
    assert [sum(h) for h in g.hands] == [4] * players
    assert len([c for c in g.market if c >= 0]) == 5
    assert [len(o) for o in g.offered] == [3] * players
    assert g.trains == [45] * players
    assert g.scores == [0] * players
    assert len(g.ticket_decks["regular"]) == 30 - 3 * players


@pytest.mark.parametrize("players", [1, 6])
def test_player_count_outside_2_to_5_is_refused(players: int) -> None:
    with pytest.raises(SetupError, match="USA is for 2-5 players") as info:
        Game("usa", players, seed=0)
    assert info.value.code == "player_count"


def test_first_player_is_seeded_and_every_seat_can_start() -> None:
    firsts = {Game("usa", 4, seed=s).first_player for s in range(60)}
    assert firsts == {0, 1, 2, 3}
    assert all(Game("usa", 4, seed=s).first_player == Game("usa", 4, seed=s).first_player for s in range(20))


def test_setup_starts_with_the_first_player_and_play_starts_with_them_too() -> None:
    g = Game("usa", 3, seed=4)
    first = g.first_player
    order = []
    while g.phase == "setup":
        order.append(g.current)
        g.apply(keep(*(g.edition.tickets[t].id for t in g.offered[g.current])))
    assert order == [(first + i) % 3 for i in range(3)]
    assert g.phase == "turn" and g.current == first


def test_initial_tickets_keep_at_least_two_of_three() -> None:
    g = Game("usa", 2, seed=7)
    p = g.current
    ids = sorted(g.edition.tickets[t].id for t in g.offered[p])
    keeps = [a.tickets for a in g.legal_actions() if a.type == KEEP_TICKETS]
    assert sorted(keeps) == sorted([(ids[0], ids[1]), (ids[0], ids[2]), (ids[1], ids[2]), tuple(ids)])
    refused(g, keep(ids[0]), "keep_too_few", "keep at least 2")
    refused(g, keep("not-a-ticket", ids[0]), "unknown_ticket", "not among those drawn")


def test_initial_tickets_returned_go_to_the_bottom_of_the_ticket_deck() -> None:
    g = Game("usa", 2, seed=7)
    p = g.current
    offered = [g.edition.tickets[t].id for t in g.offered[p]]
    deck_before = g.to_dict()["ticket_decks"]["regular"]
    g.apply(keep(*offered[:2]))
    assert g.to_dict()["ticket_decks"]["regular"] == deck_before  # put back when every seat has chosen
    g.apply(g.legal_actions()[-1])  # the other player keeps all three
    deck_after = g.to_dict()["ticket_decks"]["regular"]
    assert deck_after == [offered[2], *deck_before]  # list index 0 is the bottom
    assert sorted(g.to_dict()["tickets"][p]) == sorted(offered[:2])


def test_setup_offers_only_ticket_choices() -> None:
    g = Game("usa", 2, seed=3)
    assert {a.type for a in g.legal_actions()} == {KEEP_TICKETS}
    refused(g, {"type": "draw_blind"}, "wrong_phase", "cannot draw train cards now")
    refused(
        g,
        {"type": "claim", "route": "atlanta-nashville", "cards": {"locomotive": 1}},
        "wrong_phase",
        "first choose your destination tickets",
    )
