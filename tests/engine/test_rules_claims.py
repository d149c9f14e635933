"""RULES.md §1 action 2, "Claim a route" (USA): payments, trains, points, double routes."""

from __future__ import annotations

import pytest

from positions import cards, claim, hand_of, refused, route_ids, scenario
from ttr.engine import Game
from ttr.engine.actions import CLAIM

ROUTE_POINTS = {1: 1, 2: 2, 3: 4, 4: 7, 5: 10, 6: 15, 7: 18, 8: 21, 9: 27}


def board(lines: str) -> Game:
    """A started 2-player game with a fixed market, empty hands and player 0 to move, then the scenario `lines`."""
    return scenario("usa 2p seed 5\nhands none\nmarket red, blue, green, white, black\ncurrent 0\n" + lines)


def payments(g: Game, route: str) -> set[tuple[int, ...]]:
    return {a.cards for a in g.legal_actions() if a.type == CLAIM and a.route == route and a.cards is not None}


def test_claim_places_trains_discards_the_cards_scores_at_once_and_ends_the_turn() -> None:
    g = board("p0 hand 4red+1L")
    events = g.apply(claim("chicago-duluth", red=2, locomotive=1))
    assert g.to_dict()["routes"] == {"chicago-duluth": 0}
    assert g.trains[0] == 42
    assert g.scores[0] == 4
    assert hand_of(g, 0) == {"red": 2}
    assert sorted(g.to_dict()["discard"]) == ["locomotive", "red", "red"]
    assert g.current == 1 and g.phase == "turn"
    assert [e.type for e in events] == ["claim"]


def test_route_points_follow_the_scoring_table() -> None:
    g = Game("usa", 2, seed=0)
    assert {r.length for r in g.edition.routes} == {1, 2, 3, 4, 5, 6}
    assert all(r.points == ROUTE_POINTS[r.length] for r in g.edition.routes)
    assert {int(k): v for k, v in g.edition.raw["rules"]["route_points"].items()} == {k: ROUTE_POINTS[k] for k in range(1, 7)}


@pytest.mark.parametrize(
    ("route", "length"),
    [
        ("atlanta-nashville", 1),
        ("atlanta-charleston", 2),
        ("calgary-vancouver", 3),
        ("calgary-helena", 4),
        ("atlanta-miami", 5),
        ("calgary-winnipeg", 6),
    ],
)
def test_each_route_length_scores_its_table_value(route: str, length: int) -> None:
    g = board("p0 hand 6L")
    g.apply(claim(route, locomotive=length))
    assert g.scores[0] == ROUTE_POINTS[length]
    assert g.trains[0] == 45 - length


@pytest.mark.parametrize("pay", [{"red": 2}, {"red": 4}, {"red": 2, "locomotive": 2}])
def test_claim_needs_exactly_as_many_cards_as_spaces(pay: dict[str, int]) -> None:
    g = board("p0 hand 4red+2L")
    refused(g, claim("chicago-duluth", **pay), "bad_payment", f"has 3 spaces; {sum(pay.values())} cards were offered")


def test_route_colour_must_match() -> None:
    g = board("p0 hand 2red+3blue")
    refused(g, claim("chicago-duluth", blue=3), "bad_payment", "chicago-duluth is red; blue cards cannot pay for it")
    assert payments(g, "chicago-duluth") == set()


def test_cards_must_be_of_one_colour() -> None:
    g = board("p0 hand 3red+3blue")
    refused(g, claim("atlanta-charleston", blue=1, red=1), "bad_payment", "one colour")
    refused(g, claim("chicago-duluth", red=2, blue=1), "bad_payment", "one colour")


def test_gray_route_takes_any_single_colour() -> None:
    g = board("p0 hand 1red+2yellow+2black")
    assert payments(g, "atlanta-charleston") == {cards(yellow=2), cards(black=2)}
    g1, g2 = g.clone(), g.clone()
    g1.apply(claim("atlanta-charleston", yellow=2))
    g2.apply(claim("atlanta-charleston", black=2))
    assert g1.route_owner == g2.route_owner and g1.scores == g2.scores == [2, 0]


def test_locomotives_are_wild_and_an_all_locomotive_payment_is_legal() -> None:
    g = board("p0 hand 1red+3L")
    assert payments(g, "chicago-duluth") == {cards(red=1, locomotive=2), cards(locomotive=3)}
    g.apply(claim("chicago-duluth", locomotive=3))
    assert g.route_owner[g.edition.route_index["chicago-duluth"]] == 0
    assert hand_of(g, 0) == {"red": 1}


def test_all_locomotive_payment_is_offered_once_for_a_gray_route() -> None:
    g = board("p0 hand 1red+1blue+2L")
    assert payments(g, "atlanta-charleston") == {cards(locomotive=2), cards(red=1, locomotive=1), cards(blue=1, locomotive=1)}


def test_claim_needs_enough_trains() -> None:
    g = board(
        """
        p0 hand 3red
        trains 2, 45
        """
    )
    assert "chicago-duluth" not in route_ids(g.legal_actions())
    refused(g, claim("chicago-duluth", red=3), "route_unavailable", "needs 3 trains; you have 2")


def test_claimed_route_cannot_be_claimed_again() -> None:
    g = board(
        """
        p1 hand 3red
        p0 routes chicago-duluth
        current 1
        """
    )
    assert "chicago-duluth" not in route_ids(g.legal_actions())
    refused(g, claim("chicago-duluth", red=3), "route_unavailable", "already claimed by player 0")


def test_only_one_route_per_turn_and_routes_need_not_connect() -> None:
    g = board(
        """
        p0 hand 4L
        p1 hand 2white
        """
    )
    g.apply(claim("atlanta-nashville", locomotive=1))
    assert g.current == 1 and g.phase == "turn"
    refused(g, claim("calgary-vancouver", locomotive=3), "not_your_turn", "it is player 1's turn", player=0)
    g.apply(claim("denver-santa-fe", white=2))
    g.apply(claim("calgary-vancouver", locomotive=3))  # far from Atlanta: no connection needed
    assert g.to_dict()["routes"] == {"atlanta-nashville": 0, "denver-santa-fe": 1, "calgary-vancouver": 0}
    assert g.scores == [1 + 4, 2]


def test_cards_not_in_hand_are_refused() -> None:
    g = board("p0 hand 2red")
    refused(g, claim("chicago-duluth", red=3), "cards_not_in_hand", "you have 2 red card")


# ---------------------------------------------------------------- double routes


def red_hands(players: int) -> Game:
    """USA with `players`: the first two hold 4 red each, the market is all blue, player 0 to move."""
    return scenario(
        f"""
        usa {players}p seed 2
        p0 hand 4red
        p1 hand 4red
        market blue, blue, blue, blue, blue
        current 0
        """
    )


@pytest.mark.parametrize("players", [2, 3])
def test_with_2_or_3_players_a_claimed_lane_closes_the_double_to_everyone(players: int) -> None:
    g = red_hands(players)
    g.apply(claim("atlanta-raleigh/1", red=2))
    assert g.current == 1
    assert "atlanta-raleigh/2" not in route_ids(g.legal_actions())
    refused(g, claim("atlanta-raleigh/2", red=2), "route_unavailable", f"with {players} players only one lane")
    g0 = scenario(
        """
        current 0
        """,
        g,
    )
    assert "atlanta-raleigh/2" not in route_ids(g0.legal_actions())
    refused(g0, claim("atlanta-raleigh/2", red=2), "route_unavailable", "closed to you")


@pytest.mark.parametrize("players", [4, 5])
def test_with_4_or_5_players_both_lanes_open_but_never_both_to_one_player(players: int) -> None:
    g = red_hands(players)
    g.apply(claim("atlanta-raleigh/1", red=2))
    g0 = scenario(
        """
        current 0
        """,
        g,
    )
    assert "atlanta-raleigh/2" not in route_ids(g0.legal_actions())
    refused(g0, claim("atlanta-raleigh/2", red=2), "route_unavailable", "you already own a lane between these cities")
    assert g.current == 1
    assert "atlanta-raleigh/2" in route_ids(g.legal_actions())
    g.apply(claim("atlanta-raleigh/2", red=2))
    assert g.to_dict()["routes"] == {"atlanta-raleigh/1": 0, "atlanta-raleigh/2": 1}


def test_doubles_threshold_is_a_rule_option() -> None:
    g = Game("usa", 3, seed=2, options={"all_lanes_min_players": 3})
    while g.phase == "setup":
        g.apply(next(a for a in g.legal_actions()))
    g = scenario(
        """
        p0 hand 2red
        p1 hand 2red
        market blue, blue, blue, blue, blue
        current 0
        """,
        g,
    )
    g.apply(claim("atlanta-raleigh/1", red=2))
    assert "atlanta-raleigh/2" in route_ids(g.legal_actions())
