"""The scenario notation (ttr.scenario): a position as a few lines of text, the same as arrange()."""

from __future__ import annotations

import pytest

from ttr.cards import CARD_INDEX
from ttr.scenario import ScenarioError, arrange, scenario, started


def test_a_scenario_is_the_arrangement_it_names() -> None:
    text = """
        europe 2p seed 3          # just past setup
        p0 hand 3red+1L
        p0 routes essen-frankfurt, essen-kobenhavn/1
        p0 tickets frankfurt-kobenhavn
        p0 stations roma
        p1 hand 2black
        p1 routes budapest-sarajevo
        market red, red, blue, L, -
        deck blue, green          # first drawn first
        discard white
        ticket deck sofia-smyrna
        current 1
    """
    g = scenario(text)
    same = arrange(
        started("europe", 2, 3),
        hands={0: {"red": 3, "locomotive": 1}, 1: {"black": 2}},
        routes={"essen-frankfurt": 0, "essen-kobenhavn/1": 0, "budapest-sarajevo": 1},
        tickets={0: ["frankfurt-kobenhavn"]},
        stations={"roma": 0},
        market=["red", "red", "blue", "locomotive", None],
        deck_top=["blue", "green"],
        discard=["white"],
        ticket_deck=["sofia-smyrna"],
        current=1,
    )
    assert g == same
    assert g.current == 1 and g.trains[0] == 45 - 2 - 3 and g.stations_left == [2, 3]
    assert [g.edition.tickets[t].id for t in g.tickets[1]] == []  # players not named hold no tickets
    assert g.deck[-2:] == [CARD_INDEX["green"], CARD_INDEX["blue"]]  # the top of the deck is the end of the list


def test_a_scenario_can_start_from_a_game_and_put_the_rest_in_a_hand() -> None:
    g = scenario("p1 hand 2red\nrest p0\nfinal_turns 2\ntrains 2, 40", started("usa", 2, 1))
    assert sum(g.hands[0]) == sum(g.edition.deck) - 2 - 5  # everything but p1's two cards and the market
    assert g.final_turns == 2 and g.trains == [2, 40]


def test_a_ticket_deck_line_may_name_its_deck() -> None:
    g = scenario(
        """
        marklin 2p
        tickets none
        ticket deck short berlin-erfurt, berlin-leipzig      # top first
        ticket deck long berlin-koln
        """
    )
    same = arrange(
        started("marklin"),
        tickets={},
        ticket_deck={"short": ["berlin-erfurt", "berlin-leipzig"], "long": ["berlin-koln"]},
    )
    assert g == same
    assert [g.edition.tickets[t].id for t in g.ticket_decks["short"]] == ["berlin-leipzig", "berlin-erfurt"]  # top last
    europe = started("europe", 2, 3)
    g = scenario("ticket deck long palermo-moskva", europe)
    assert g.to_dict()["ticket_decks"] == {**europe.to_dict()["ticket_decks"], "long": ["palermo-moskva"]}  # regular kept


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("usa 2p\np0 routes denver-omaha-x", "line 2 .*unknown route 'denver-omaha-x'"),
        ("usa 2p\np3 hand 1red", "no player 3"),
        ("usa 2p\np0 hand 3redd", "unknown card 'redd'"),
        ("usa 2p\nmarket red, purplish", "unknown card 'purplish'"),
        ("usa 2p\nwhatever 1", "unknown part 'whatever'"),
        ("p0 hand 1red", "starts with its base game"),
        ("usa 2p\nhands nothing", "unknown part .hands."),
        ("usa 2p\np0 hand 15locomotive", "locomotive cards; the edition has 14"),
        ("marklin 2p\nticket deck berlin-erfurt", "name the ticket deck: long, short"),
    ],
)
def test_a_bad_scenario_says_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(ScenarioError, match=message):
        scenario(text)
