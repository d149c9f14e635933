"""RULES.md §1 action 1, "Draw train cards" (USA), with the flush and empty-deck Rulings."""

from __future__ import annotations

import copy

import pytest

from positions import BLIND, card_total, faceup, hand_of, refused, scenario
from ttr.cards import LOCOMOTIVE
from ttr.editions import get_edition, parse_edition
from ttr.engine import Game
from ttr.engine.actions import DRAW_BLIND, DRAW_FACEUP

LOCO = "locomotive"


def draws(g: Game) -> set[tuple[str, int | None]]:
    return {(a.type, a.slot) for a in g.legal_actions() if a.type in (DRAW_BLIND, DRAW_FACEUP)}


def test_a_draw_is_two_cards_blind_or_face_up_and_the_slot_is_refilled_at_once() -> None:
    g = scenario(
        """
        usa 2p seed 1
        hands none
        market red, blue, green, white, black
        deck yellow, orange, purple
        """
    )
    p = g.current
    g.apply(faceup(1))
    assert g.phase == "second_card" and g.current == p
    assert g.to_dict()["market"] == ["red", "yellow", "green", "white", "black"]
    g.apply(BLIND)
    assert hand_of(g, p) == {"blue": 1, "orange": 1}
    assert g.phase == "turn" and g.current != p


def test_face_up_locomotive_as_first_card_is_the_whole_draw() -> None:
    g = scenario(
        """
        usa 2p seed 1
        hands none
        market L, blue, green, white, black
        deck red
        """
    )
    p = g.current
    g.apply(faceup(0))
    assert hand_of(g, p) == {LOCO: 1}
    assert g.phase == "turn" and g.current == 1 - p
    assert g.to_dict()["market"][0] == "red"


def test_face_up_locomotive_is_never_the_second_card() -> None:
    g = scenario(
        """
        usa 2p seed 1
        hands none
        market L, blue, green, white, black
        deck red, red
        """
    )
    g.apply(BLIND)
    assert g.phase == "second_card"
    assert ("draw_faceup", 0) not in draws(g)
    assert draws(g) == {("draw_blind", None), ("draw_faceup", 1), ("draw_faceup", 2), ("draw_faceup", 3), ("draw_faceup", 4)}
    refused(g, faceup(0), "second_locomotive", "cannot be taken as the second card")


def test_freshly_turned_replacement_locomotive_is_not_a_second_card_either() -> None:
    g = scenario(
        """
        usa 2p seed 1
        hands none
        market red, blue, green, white, black
        deck L, red
        """
    )
    p = g.current
    g.apply(faceup(0))
    assert g.to_dict()["market"][0] == LOCO
    assert g.phase == "second_card"
    refused(g, faceup(0), "second_locomotive", "second card")
    g.apply(faceup(1))
    assert hand_of(g, p) == {"red": 1, "blue": 1}


def test_blind_locomotive_counts_as_a_normal_card() -> None:
    g = scenario(
        """
        usa 2p seed 1
        hands none
        market red, blue, green, white, black
        deck L, L
        """
    )
    p = g.current
    g.apply(BLIND)
    assert g.phase == "second_card" and g.current == p
    g.apply(BLIND)
    assert hand_of(g, p) == {LOCO: 2}
    assert g.current != p


def test_three_face_up_locomotives_flush_the_market() -> None:
    g = scenario(
        """
        usa 2p seed 1
        hands none
        market L, L, red, white, black
        deck L, green, green, blue, blue, yellow
        """
    )
    events = g.apply(faceup(2))  # the replacement is the third locomotive
    assert [e.type for e in events][:1] == ["market_flush"]
    assert g.to_dict()["market"] == ["green", "green", "blue", "blue", "yellow"]
    assert sorted(g.to_dict()["discard"]) == sorted([LOCO, LOCO, LOCO, "white", "black"])


def test_flush_repeats_while_three_locomotives_show() -> None:
    g = scenario(
        """
        usa 2p seed 1
        hands none
        market L, L, red, white, black
        deck L, L, L, L, green, green, green, blue, blue, yellow, orange
        """
    )
    events = g.apply(faceup(2))  # flush 1 turns up 3 locomotives again; flush 2 ends it
    assert [e.type for e in events].count("market_flush") == 2
    assert g.to_dict()["market"] == ["green", "blue", "blue", "yellow", "orange"]


def test_flush_stops_after_three_consecutive_flushes() -> None:
    g = scenario(
        """
        usa 2p seed 1
        hands none
        market L, L, red, white, black
        deck L, L, L, L, red, red, L, L, L, red, red, L, L, L, red, red, green, green, green, green, green
        """
    )  # the refill (a third locomotive), then three flushes that each turn up 3 locomotives again
    events = g.apply(faceup(2))
    assert [e.type for e in events].count("market_flush") == 3
    assert g.to_dict()["market"] == [LOCO, LOCO, LOCO, "red", "red"]  # left as it is after the third flush
    assert g.to_dict()["deck"][-5:] == ["green"] * 5
    events = g.apply(faceup(3))  # the next refill checks again (the cap counts the flushes of one refill)
    assert [e.type for e in events].count("market_flush") == 1


def test_flush_stops_when_deck_and_discard_cannot_supply_five_fresh_cards() -> None:
    g = scenario(
        """
        usa 2p seed 1
        hands none
        market L, L, red, white, black
        deck L, green, green, blue
        rest p0
        """
    )
    events = g.apply(faceup(2))
    assert "market_flush" not in [e.type for e in events]
    assert g.to_dict()["market"] == [LOCO, LOCO, LOCO, "white", "black"]
    assert len(g.deck) == 3 and not g.discard


def test_flush_counts_the_discard_pile_as_a_source() -> None:
    g = scenario(
        """
        usa 2p seed 1
        hands none
        market L, L, red, white, black
        deck L, green, green
        discard blue, blue, yellow
        rest p0
        """
    )
    events = g.apply(faceup(2))  # 2 cards in the deck + 3 in the discard pile = 5 fresh cards
    assert "market_flush" in [e.type for e in events]
    assert sorted(g.to_dict()["market"]) == sorted(["green", "green", "blue", "blue", "yellow"])
    assert sorted(g.to_dict()["discard"]) == sorted([LOCO, LOCO, LOCO, "white", "black"])


def _edition_with_deck(deck: dict[str, int]) -> Game:
    raw = copy.deepcopy(get_edition("usa").raw)
    raw["deck"] = deck
    return Game(parse_edition(raw, "usa-small-deck.json"), 2, seed=0)


def test_flush_at_setup_is_capped_at_three_flushes() -> None:
    g = _edition_with_deck({LOCO: 40})  # every market is all locomotives
    assert g.market.count(LOCOMOTIVE) == 5
    assert len(g.discard) == 15  # three flushes of five cards, then the cards stay
    assert card_total(g)[LOCOMOTIVE] == 40


def test_no_flush_at_setup_when_the_deck_cannot_supply_five_fresh_cards() -> None:
    g = _edition_with_deck({LOCO: 17})  # 8 dealt, 5 face up, 4 left
    assert g.market.count(LOCOMOTIVE) == 5
    assert not g.discard and len(g.deck) == 4


def test_flush_happens_at_setup_in_the_real_deck() -> None:
    flushed = [s for s in range(120) if Game("usa", 2, seed=s).discard]
    assert flushed, "some seed must show a setup flush"
    for s in flushed:
        g = Game("usa", 2, seed=s)
        assert len(g.discard) % 5 == 0
        assert g.market.count(LOCOMOTIVE) < 3 or len(g.discard) == 15
    for s in range(120):
        g = Game("usa", 2, seed=s)
        assert g.market.count(LOCOMOTIVE) < 3 or len(g.discard) == 15


def test_empty_deck_is_rebuilt_from_the_shuffled_discard_pile() -> None:
    g = scenario(
        """
        usa 2p seed 1
        hands none
        market red, blue, green, white, black
        rest discard
        """
    )
    assert not g.deck
    discard_before = sorted(g.to_dict()["discard"])
    p = g.current
    g.apply(BLIND)
    drawn = next(iter(hand_of(g, p)))
    assert not g.discard
    assert sorted([*g.to_dict()["deck"], drawn]) == discard_before


def test_market_is_refilled_from_the_discard_pile_when_the_deck_is_empty() -> None:
    g = scenario(
        """
        usa 2p seed 1
        hands none
        market red, blue, green, white, black
        discard yellow
        rest p0
        """
    )
    g.apply(faceup(0))
    assert g.to_dict()["market"][0] == "yellow"
    assert not g.deck and not g.discard


def test_deck_and_discard_empty_market_not_refilled_and_no_blind_draw() -> None:
    g = scenario(
        """
        usa 2p seed 1
        hands none
        market red, blue, green, white, black
        rest p0
        """
    )
    assert ("draw_blind", None) not in draws(g)
    refused(g, BLIND, "deck_empty", "deck and the discard pile are empty")
    g.apply(faceup(0))
    assert g.to_dict()["market"] == [None, "blue", "green", "white", "black"]
    assert g.phase == "second_card"
    assert draws(g) == {("draw_faceup", i) for i in range(1, 5)}
    refused(g, faceup(0), "empty_slot", "slot 0 is empty")


@pytest.mark.parametrize(
    "market",
    [
        "-, -, -, -, red",  # the only card is taken: nothing left
        "L, -, L, -, red",  # only face-up locomotives left: none can be the second card
    ],
)
def test_draw_ends_after_one_card_when_no_second_card_can_be_taken(market: str) -> None:
    g = scenario(
        f"""
        usa 2p seed 1
        hands none
        market {market}
        rest p0
        """
    )
    p = g.current
    g.apply(faceup(4))
    assert hand_of(g, p)["red"] == 1
    assert g.phase == "turn" and g.current == 1 - p


def test_drawing_is_not_allowed_when_no_card_can_be_taken() -> None:
    g = scenario(
        """
        usa 2p seed 1
        hands none
        market -, -, -, -, -
        rest p0
        """
    )
    assert not draws(g)
    refused(g, BLIND, "deck_empty", "empty")
    refused(g, faceup(2), "empty_slot", "empty")


def test_lone_face_up_locomotive_can_still_be_the_first_card() -> None:
    g = scenario(
        """
        usa 2p seed 1
        hands none
        market -, -, L, -, -
        rest p0
        """
    )
    assert draws(g) == {("draw_faceup", 2)}
    p = g.current
    g.apply(faceup(2))
    assert hand_of(g, p)[LOCO] == 1 and g.current == 1 - p


def test_hand_size_is_unlimited() -> None:
    g = scenario(
        """
        usa 2p seed 1
        p0 hand 12red+12green+12blue
        p1 hand 0
        market white, black, yellow, orange, purple
        current 0
        """
    )
    g.apply(BLIND)
    g.apply(BLIND)
    assert sum(g.hands[0]) == 38
    assert card_total(g) == list(g.edition.deck)
