"""RULES.md §1 "Final scoring" (USA): tickets ±, longest-path bonus, winner and tie-breakers."""

from __future__ import annotations

import random
from typing import Any

import pytest

from positions import scenario
from ttr.engine import Game


def scored(lines: str, players: int = 2) -> dict[str, Any]:
    """The result of a game (seed 6) where the players own the routes and hold the tickets the scenario `lines` name."""
    return scenario(f"usa {players}p seed 6\nroutes none\ntickets none\n{lines}").result()


def test_route_points_are_scored_during_play_and_counted_again_only_once() -> None:
    res = scored(
        """
        p0 routes calgary-winnipeg
        p1 routes atlanta-nashville
        """
    )
    p0, p1 = res["players"]
    assert p0["route_points"] == 15 and p1["route_points"] == 1
    assert p0["total"] == 15 + 10  # + the longest path bonus (6 spaces against 1)
    assert p1["total"] == 1


def test_completed_ticket_adds_its_value_and_an_unfinished_one_subtracts_it() -> None:
    res = scored(
        """
        p0 routes denver-santa-fe, el-paso-santa-fe    # Denver - Santa Fe - El Paso
        p0 tickets denver-el-paso, boston-miami
        """
    )
    p0 = res["players"][0]
    assert {t["id"]: (t["points"], t["completed"]) for t in p0["tickets"]} == {
        "denver-el-paso": (4, True),
        "boston-miami": (12, False),
    }
    assert p0["ticket_points"] == 4 - 12
    assert p0["tickets_completed"] == 1
    assert p0["total"] == 4 + 4 - 12 + 10


def test_ticket_needs_the_players_own_routes_not_an_opponents() -> None:
    res = scored(
        """
        p0 routes denver-santa-fe
        p1 routes el-paso-santa-fe
        p0 tickets denver-el-paso
        p1 tickets denver-el-paso
        """
    )
    assert [p["tickets_completed"] for p in res["players"]] == [0, 0]
    assert [p["ticket_points"] for p in res["players"]] == [-4, -4]


def test_ticket_over_a_long_chain_of_routes() -> None:
    chain = "seattle-vancouver/1, calgary-vancouver, calgary-winnipeg, duluth-winnipeg, chicago-duluth"
    res = scored(f"p0 routes {chain}\np0 tickets seattle-new-york, vancouver-montreal")
    assert [t["completed"] for t in res["players"][0]["tickets"]] == [False, False]
    chain += ", chicago-toronto, montreal-toronto, montreal-new-york"
    res = scored(f"p0 routes {chain}\np0 tickets seattle-new-york, vancouver-montreal")
    assert [t["completed"] for t in res["players"][0]["tickets"]] == [True, True]
    assert res["players"][0]["ticket_points"] == 22 + 20


def test_longest_path_bonus_goes_to_every_tied_player() -> None:
    res = scored(
        """
        p0 routes calgary-helena
        p1 routes chicago-omaha
        p2 routes atlanta-nashville
        """,
        players=3,
    )
    assert [p["longest_path"] for p in res["players"]] == [4, 4, 1]
    assert [p["longest_path_bonus"] for p in res["players"]] == [10, 10, 0]


def test_no_bonus_without_routes() -> None:
    res = scored("")
    assert [p["longest_path_bonus"] for p in res["players"]] == [0, 0]
    assert res["winners"] == [0, 1]


def test_most_points_wins() -> None:
    res = scored(
        """
        p0 routes calgary-helena
        p1 routes atlanta-nashville
        """
    )
    assert res["winners"] == [0]
    assert [p["rank"] for p in res["players"]] == [1, 2]


def test_tie_broken_by_most_completed_tickets() -> None:
    # p0: 2+2 route points, ticket +4, bonus 10 = 18; p1: 7+1 route points, bonus 10 (tied 4 spaces) = 18
    res = scored(
        """
        p0 routes denver-santa-fe, el-paso-santa-fe
        p0 tickets denver-el-paso
        p1 routes calgary-helena, atlanta-nashville
        """
    )
    assert [p["total"] for p in res["players"]] == [18, 18]
    assert [p["tickets_completed"] for p in res["players"]] == [1, 0]
    assert res["winners"] == [0]
    assert [p["rank"] for p in res["players"]] == [1, 2]


def test_then_by_the_longest_path_bonus() -> None:
    # p0: 10 route points + bonus (5 spaces) = 20; p1: 7+7+2+2+2 = 20 in parts of at most 4 spaces
    res = scored(
        """
        p0 routes atlanta-miami
        p1 routes calgary-helena, chicago-omaha, denver-santa-fe, dallas-little-rock, atlanta-charleston
        """
    )
    assert [p["total"] for p in res["players"]] == [20, 20]
    assert [p["longest_path_bonus"] for p in res["players"]] == [10, 0]
    assert res["winners"] == [0]


def test_still_tied_players_share_the_win() -> None:
    res = scored(
        """
        p0 routes calgary-helena
        p1 routes chicago-omaha
        p2 routes atlanta-nashville
        """,
        players=3,
    )
    assert [p["total"] for p in res["players"]] == [17, 17, 1]
    assert res["winners"] == [0, 1]
    assert [p["rank"] for p in res["players"]] == [1, 1, 3]


def test_tiebreakers_are_edition_data() -> None:
    assert Game("usa", 2, seed=0).result()["tiebreakers"] == ["tickets_completed", "longest_path_bonus"]


def test_result_of_a_finished_game_is_announced_and_shown_to_everyone() -> None:
    g = Game("usa", 3, seed=12)
    rng = random.Random(12)
    while not g.is_over:
        events = g.apply(rng.choice(g.legal_actions()))
    res = g.result()
    assert res["over"]
    assert events[-1].type == "game_over" and events[-1].public()["result"] == res
    assert all(g.view(p).to_dict()["result"] == res for p in (0, 1, 2, None))
    for x in res["players"]:
        assert x["total"] == x["route_points"] + x["ticket_points"] + x["longest_path_bonus"]
        assert x["route_points"] == g.scores[x["player"]]


@pytest.mark.parametrize("edition", ["usa", "europe", "nordic", "marklin"])
def test_totals_are_the_results_totals(edition: str) -> None:
    """``Game.totals()`` equals the totals of ``result()`` at every tenth move of random games at every
    player count, stations, merchandise and shared bonuses included."""
    rng = random.Random(edition)
    low, high = Game(edition, 2, 0).rules.players
    checked = stations = 0
    for players in range(low, high + 1):
        for seed in range(6):
            game = Game(edition, players, seed)
            moves = 0
            while True:
                if moves % 10 == 0 or game.is_over:
                    assert game.totals() == [x["total"] for x in game.result()["players"]]
                    checked += 1
                    stations += any(o >= 0 for o in game.station_owner)
                if game.is_over:
                    break
                game.step(rng.choice(game.legal_actions()))
                moves += 1
    assert checked > 100
    assert (stations > 0) == (edition == "europe")
