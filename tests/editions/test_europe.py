"""Ticket to Ride: Europe, rule by rule (RULES.md §2): setup, ferries, tunnels, stations, scoring."""

from __future__ import annotations

import json
import random
from collections import Counter
from math import comb
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from positions import (
    assert_claims_pay_validly,
    assert_round_trips,
    assert_views_hide_tickets,
    card_total,
    cards,
    claim,
    hand_of,
    keep,
    refused,
    scenario,
    started,
    station,
    ticket_total,
    tunnel_pay,
)
from ttr.cards import CARD_INDEX as CARD
from ttr.cli import main as cli_main
from ttr.engine import Action, Game

DECLINE = Action("tunnel_decline")
TUNNEL = "munchen-venezia"  # blue tunnel of 2 spaces


def eu(players: int = 2, seed: int = 0) -> Game:
    return started("europe", players, seed)


def ids(g: Game, tickets: list[int]) -> list[str]:
    return [g.edition.tickets[t].id for t in tickets]


def deck_of(g: Game, ticket_id: str) -> str:
    return g.edition.tickets[g.edition.ticket_index[ticket_id]].deck


def claims(g: Game, route: str) -> set[tuple[tuple[str, int], ...]]:
    """The payments offered for `route` as sorted (card, count) pairs."""
    return {tuple(sorted(a.to_json()["cards"].items())) for a in g.legal_actions() if a.type == "claim" and a.route == route}


def player_result(g: Game, p: int = 0) -> dict[str, Any]:
    return g.result()["players"][p]


# ---------------------------------------------------------------- setup and tickets


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_setup_deals_one_long_and_three_regular_tickets(players: int) -> None:
    g = Game("europe", players, seed=players)
    assert sum(g.edition.deck) == 110
    assert g.trains == [45] * players and g.stations_left == [3] * players
    assert Counter(t.deck for t in g.edition.tickets) == {"regular": 40, "long": 6}
    for p in range(players):
        assert Counter(g.edition.tickets[t].deck for t in g.offered[p]) == {"long": 1, "regular": 3}
    # the long tickets not dealt are never drawn: later draws come from the regular deck only
    assert len(g.ticket_decks["long"]) == 6 - players
    assert g.rules.draw_tickets.deal == (("regular", 3),)


def test_setup_keep_at_least_two_of_the_four() -> None:
    g = Game("europe", 2, seed=3)
    offered = ids(g, g.offered[g.current])
    keeps = g.legal_actions()
    assert {a.type for a in keeps} == {"keep_tickets"}
    assert len(keeps) == comb(4, 2) + comb(4, 3) + comb(4, 4)
    refused(g, keep(offered[0]), "keep_too_few", "keep at least 2")
    g.apply(keep(*offered[:2]))
    assert ids(g, g.tickets[g.first_player]) == offered[:2]


def test_setup_returns_leave_the_game_and_long_tickets_never_come_back() -> None:
    g = Game("europe", 3, seed=8)
    undealt_long = ids(g, g.ticket_decks["long"])
    returned: list[str] = []
    while g.phase == "setup":
        offered = ids(g, g.offered[g.current])
        kept = [t for t in offered if deck_of(g, t) == "regular"][:2]  # return the long one and a regular one
        returned += [t for t in offered if t not in kept]
        g.apply(keep(*kept))
    # the returned tickets and the long tickets nobody was dealt leave the game together
    assert sorted(ids(g, g.removed_tickets)) == sorted(returned + undealt_long)
    assert g.ticket_decks["long"] == [] and g.view(0).to_dict()["ticket_decks"]["long"] == 0
    assert not {t for d in g.ticket_decks.values() for t in ids(g, d)} & set(returned)
    seen: list[str] = []
    while any(a.type == "draw_tickets" for a in g.legal_actions()):
        g.apply(Action("draw_tickets"))
        offered = ids(g, g.offered[g.current])
        assert len(offered) == 3 or not g.ticket_decks["regular"]
        seen += offered
        g.apply(keep(*offered))
    assert len(seen) == 40 - 3 * 3  # every regular ticket not dealt at setup, and nothing else
    assert not set(seen) & set(returned)
    assert {deck_of(g, t) for t in seen} == {"regular"}
    assert not set(seen) & set(undealt_long)  # the 3 undealt long tickets were never offered
    assert ticket_total(g) == 46


def test_later_draw_three_keep_one_returned_to_the_bottom() -> None:
    g = eu(2, seed=4)
    top3 = ids(g, g.ticket_decks["regular"][-3:][::-1])
    g.apply(Action("draw_tickets"))
    assert sorted(ids(g, g.offered[g.current])) == sorted(top3)
    refused(g, keep(), "keep_too_few", "keep at least 1")
    removed = list(g.removed_tickets)
    g.apply(keep(top3[0]))
    assert sorted(ids(g, g.ticket_decks["regular"][:2])) == sorted(top3[1:])  # index 0 is the bottom
    assert g.removed_tickets == removed


# ---------------------------------------------------------------- ferries


def test_ferry_with_two_icons_needs_two_locomotives() -> None:
    g = scenario(
        """
        europe 2p
        p0 hand 4red+2L
        current 0
        """
    )
    assert claims(g, "amsterdam-london") == {(("locomotive", 2),)}
    refused(g, claim("amsterdam-london", red=1, locomotive=1), "bad_payment", "needs 2 locomotive")
    refused(g, claim("amsterdam-london", red=2), "bad_payment", "needs 2 locomotive")
    g.apply(claim("amsterdam-london", locomotive=2))
    assert g.route_owner[g.edition.route_index["amsterdam-london"]] == 0
    assert hand_of(g, 0) == {"red": 4} and g.scores[0] == 2


def test_ferry_with_one_icon_one_locomotive_and_one_colour() -> None:
    g = scenario(
        """
        europe 2p
        p0 hand 3red+1blue+2L
        current 0
        """
    )
    assert claims(g, "dieppe-london/1") == {
        (("locomotive", 1), ("red", 1)),
        (("blue", 1), ("locomotive", 1)),
        (("locomotive", 2),),
    }
    refused(g, claim("dieppe-london/1", red=2), "bad_payment", "needs 1 locomotive")
    refused(g, claim("dieppe-london/1", red=1, blue=1), "bad_payment", "one colour")
    g.apply(claim("dieppe-london/1", red=1, locomotive=1))
    assert hand_of(g, 0) == {"red": 2, "blue": 1, "locomotive": 1}


def test_long_ferry_two_icons_rest_one_colour_locomotives_wild() -> None:
    g = scenario(
        """
        europe 2p
        p0 hand 4red+2green+3L
        current 0
        """
    )
    # green would need 4 locomotives with its 2 cards: only red payments exist
    assert claims(g, "palermo-smyrna") == {(("locomotive", 2), ("red", 4)), (("locomotive", 3), ("red", 3))}
    refused(g, claim("palermo-smyrna", red=3, green=1, locomotive=2), "bad_payment", "one colour")
    refused(g, claim("palermo-smyrna", red=4, locomotive=1), "bad_payment", "6 spaces")
    refused(g, claim("palermo-smyrna", red=4, green=1, locomotive=1), "bad_payment", "one colour")
    g.apply(claim("palermo-smyrna", red=3, locomotive=3))
    assert g.scores[0] == 15 and g.trains[0] == 39


# ---------------------------------------------------------------- tunnels


@pytest.mark.parametrize(
    ("revealed", "extra"),
    [
        (["red", "green", "yellow"], 0),
        (["blue", "red", "green"], 1),
        (["blue", "locomotive", "red"], 2),
        (["blue", "blue", "locomotive"], 3),
    ],
)
def test_tunnel_extra_cost_counts_the_played_colour_and_locomotives(revealed: list[str], extra: int) -> None:
    g = scenario(
        f"""
        europe 2p
        p0 hand 5blue+3L
        deck {", ".join(revealed)}
        current 0
        """
    )
    events = g.apply(claim(TUNNEL, blue=2))
    reveal = next(e.public() for e in events if e.type == "tunnel_reveal")
    assert reveal["revealed"] == revealed and reveal["extra"] == extra
    if extra == 0:  # nothing matched: the route is claimed at once
        assert g.route_owner[g.edition.route_index[TUNNEL]] == 0 and g.current == 1
        assert Counter(g.discard) == Counter([CARD["blue"]] * 2 + [CARD[c] for c in revealed])
        return
    assert g.phase == "tunnel" and g.current == 0
    assert hand_of(g, 0) == {"blue": 3, "locomotive": 3}  # the two blue cards lie on the table
    pays = {tuple(sorted(a.to_json()["cards"].items())) for a in g.legal_actions() if a.type == "tunnel_pay"}
    assert pays == {
        tuple(sorted({k: v for k, v in (("blue", extra - w), ("locomotive", w)) if v}.items())) for w in range(extra + 1)
    }
    assert DECLINE in g.legal_actions()
    refused(g, tunnel_pay(blue=extra, locomotive=1), "bad_payment", f"asks for {extra} more")
    refused(g, tunnel_pay(red=extra), "cards_not_in_hand", "you have 0 red")
    g.apply(tunnel_pay(blue=extra - 1, locomotive=1))
    assert g.route_owner[g.edition.route_index[TUNNEL]] == 0 and g.phase == "turn" and g.current == 1
    assert hand_of(g, 0) == {k: v for k, v in (("blue", 3 - extra + 1), ("locomotive", 2)) if v}
    assert g.scores[0] == 2 and g.trains[0] == 43
    assert Counter(g.discard) == Counter([CARD["blue"]] * (2 + extra - 1) + [CARD["locomotive"]] + [CARD[c] for c in revealed])
    assert card_total(g) == list(g.edition.deck)


def test_gray_tunnel_matches_the_colour_played_and_the_eight_route_scores_21() -> None:
    g = scenario(
        """
        europe 2p
        p0 hand 9red+3green+1L
        deck red, green, L
        current 0
        """
    )
    g.apply(claim("petrograd-stockholm", red=8))
    assert g.tunnel is not None and g.tunnel[3] == 2  # red and the locomotive match; green does not
    refused(g, tunnel_pay(green=2), "bad_payment", "must be red or locomotives")
    g.apply(tunnel_pay(red=1, locomotive=1))
    assert g.scores[0] == 21 and g.trains[0] == 37


def test_locomotive_only_tunnel_counts_only_revealed_locomotives_and_is_paid_in_locomotives() -> None:
    g = scenario(
        """
        europe 2p
        p0 hand 3blue+4L
        deck blue, blue, red
        current 0
        """
    )
    g.apply(claim(TUNNEL, locomotive=2))
    assert g.route_owner[g.edition.route_index[TUNNEL]] == 0  # coloured cards never match an all-locomotive set

    g = scenario(
        """
        europe 2p
        p0 hand 3blue+4L
        deck L, blue, L
        current 0
        """
    )
    g.apply(claim(TUNNEL, locomotive=2))
    assert g.tunnel is not None and g.tunnel[3] == 2 and g.tunnel[4] == -1
    assert [a for a in g.legal_actions() if a.type == "tunnel_pay"] == [tunnel_pay(locomotive=2)]
    refused(g, tunnel_pay(blue=1, locomotive=1), "bad_payment", "must be locomotives")
    assert g.view(1).to_dict()["tunnel"]["colour"] == "locomotive"
    g.apply(tunnel_pay(locomotive=2))
    assert hand_of(g, 0) == {"blue": 3}


def test_declining_a_tunnel_returns_the_cards_and_ends_the_turn() -> None:
    g = scenario(
        """
        europe 2p
        p0 hand 2blue+1L
        deck blue, blue, L
        current 0
        """
    )
    before = hand_of(g, 0)
    g.apply(claim(TUNNEL, blue=2))
    assert g.tunnel is not None and g.tunnel[3] == 3
    assert g.legal_actions() == (DECLINE,)  # 3 extra cards asked, 1 in hand: only declining is possible
    refused(g, tunnel_pay(locomotive=1), "bad_payment", "asks for 3 more")
    events = g.apply(DECLINE)
    assert [e.type for e in events] == ["tunnel_decline"]
    assert hand_of(g, 0) == before and g.route_owner[g.edition.route_index[TUNNEL]] == -1
    assert g.phase == "turn" and g.current == 1 and g.tunnel is None
    assert sorted(g.discard) == sorted([CARD["blue"], CARD["blue"], CARD["locomotive"]])  # revealed cards discarded
    assert g.scores[0] == 0 and g.trains[0] == 45
    assert card_total(g) == list(g.edition.deck)


def test_decline_is_offered_even_when_paying_is_possible() -> None:
    g = scenario(
        """
        europe 2p
        p0 hand 4blue
        deck blue, red, red
        current 0
        """
    )
    g.apply(claim(TUNNEL, blue=2))
    assert set(g.legal_actions()) == {tunnel_pay(blue=1), DECLINE}
    g.apply(DECLINE)
    assert hand_of(g, 0) == {"blue": 4}


def test_tunnel_reveal_reshuffles_the_discards_when_the_deck_runs_short() -> None:
    g = scenario(
        """
        europe 2p
        p0 hand 2blue
        deck blue
        rest discard
        current 0
        """
    )
    assert len(g.deck) == 1
    g.apply(claim(TUNNEL, blue=2))
    assert g.tunnel is not None  # the deck's blue card always matches
    revealed = g.tunnel[2]
    assert len(revealed) == 3 and revealed[0] == CARD["blue"]
    assert g.tunnel[3] == sum(1 for c in revealed if c in (CARD["blue"], CARD["locomotive"]))
    assert len(g.deck) == 110 - 2 - 5 - 3  # the rest of the discards became the deck
    assert card_total(g) == list(g.edition.deck)


def test_tunnel_reveals_only_the_cards_that_exist() -> None:
    # deck 1 card, discard 1 card, every other card in player 1's hand: two cards are revealed
    g = scenario(
        """
        europe 2p
        p0 hand 3blue
        deck red
        discard L
        rest p1
        current 0
        """
    )
    events = g.apply(claim(TUNNEL, blue=2))
    reveal = next(e.public() for e in events if e.type == "tunnel_reveal")
    assert reveal["revealed"] == ["red", "locomotive"] and reveal["extra"] == 1
    g.apply(tunnel_pay(blue=1))
    assert g.route_owner[g.edition.route_index[TUNNEL]] == 0


def test_tunnel_with_no_card_to_reveal_costs_nothing_extra() -> None:
    g = scenario(
        """
        europe 2p
        p0 hand 2blue
        rest p1
        current 0
        """
    )
    assert not g.deck and not g.discard
    events = g.apply(claim(TUNNEL, blue=2))
    reveal = next(e.public() for e in events if e.type == "tunnel_reveal")
    assert reveal["revealed"] == [] and reveal["extra"] == 0
    assert g.route_owner[g.edition.route_index[TUNNEL]] == 0 and g.current == 1


def test_revealed_tunnel_cards_are_shown_to_everyone_and_the_position_round_trips() -> None:
    g = scenario(
        """
        europe 3p
        p0 hand 3blue+1L
        deck blue, green, L
        current 0
        """
    )
    events = g.apply(claim(TUNNEL, blue=2))
    for viewer in (None, 0, 1, 2):
        assert events[0].for_player(viewer)["revealed"] == ["blue", "green", "locomotive"]
        tunnel = g.view(viewer).to_dict()["tunnel"]
        assert tunnel == {
            "route": TUNNEL,
            "paid": {"blue": 2},
            "revealed": ["blue", "green", "locomotive"],
            "extra": 2,
            "colour": "blue",
        }
    assert g.view(1).to_dict()["hand"] == hand_of(g, 1)
    copy = Game.from_dict(json.loads(json.dumps(g.to_dict())))
    assert copy == g and copy.legal_actions() == g.legal_actions()
    copy.apply(tunnel_pay(blue=1, locomotive=1))
    assert card_total(copy) == list(copy.edition.deck)


# ---------------------------------------------------------------- stations: building


def test_station_costs_one_then_two_then_three_cards_of_one_colour() -> None:
    g = scenario(
        """
        europe 2p
        p0 hand 4red+2blue+3L
        p1 hand 9green
        current 0
        """
    )
    first = {a.cards for a in g.legal_actions() if a.type == "build_station" and a.city == "paris"}
    assert first == {cards(red=1), cards(blue=1), cards(locomotive=1)}
    refused(g, station("paris", red=2), "bad_payment", "costs 1 card")
    g.apply(station("paris", blue=1))
    assert g.station_owner[g.edition.city_index["paris"]] == 0 and g.stations_left[0] == 2
    assert g.current == 1  # building a station is the whole turn
    g.apply(Action("draw_blind"))
    g.apply(Action("draw_blind"))
    assert hand_of(g, 0) == {"red": 4, "blue": 1, "locomotive": 3}
    second = {a.cards for a in g.legal_actions() if a.type == "build_station" and a.city == "wien"}
    assert second == {cards(red=2), cards(red=1, locomotive=1), cards(blue=1, locomotive=1), cards(locomotive=2)}
    refused(g, station("wien", red=1, blue=1), "bad_payment", "one colour")
    g.apply(station("wien", red=1, locomotive=1))
    g.apply(Action("draw_blind"))
    g.apply(Action("draw_blind"))
    third = {a.cards for a in g.legal_actions() if a.type == "build_station" and a.city == "roma"}
    assert third == {cards(red=3), cards(red=2, locomotive=1), cards(red=1, locomotive=2), cards(blue=1, locomotive=2)}
    refused(g, station("roma", red=2), "bad_payment", "costs 3 card")
    g.apply(station("roma", red=3))
    g.apply(Action("draw_blind"))
    g.apply(Action("draw_blind"))
    assert not any(a.type == "build_station" for a in g.legal_actions())
    refused(g, station("berlin", locomotive=1), "no_stations", "no stations left")
    assert sorted(c for c, o in g.to_dict()["stations"].items() if o == 0) == ["paris", "roma", "wien"]


def test_one_station_per_city_for_all_players() -> None:
    g = scenario(
        """
        europe 2p
        p0 hand 2red
        p1 hand 2red
        p1 stations paris
        current 0
        """
    )
    built = {a.city for a in g.legal_actions() if a.type == "build_station"}
    assert "paris" not in built and len(built) == len(g.edition.city_ids) - 1
    refused(g, station("paris", red=1), "city_taken", "already has a station")


def test_station_cards_are_discarded_and_unbuilt_stations_score_four() -> None:
    g = scenario(
        """
        europe 2p
        p0 hand 2red
        current 0
        """
    )
    g.apply(station("paris", red=1))
    assert g.discard == [CARD["red"]]
    res = g.result()["players"]
    assert res[0]["stations_built"] == 1 and res[0]["unused_station_points"] == 8
    assert res[1]["stations_built"] == 0 and res[1]["unused_station_points"] == 12


# ---------------------------------------------------------------- stations: borrowing at the end

EAST = "frankfurt-munchen, munchen-wien"  # Frankfurt–München–Wien
WEST = "dieppe-london/1, edinburgh-london/1"  # Dieppe–London–Edinburgh


@pytest.mark.parametrize("city", ["paris", "frankfurt"])
def test_a_station_saves_a_ticket_by_borrowing_an_opponent_route(city: str) -> None:
    g = scenario(
        f"""
        europe 2p
        p0 routes {EAST}
        p1 routes frankfurt-paris/1
        p0 stations {city}
        p0 tickets paris-wien
        """
    )
    row = player_result(g)
    assert row["station_routes"] == {city: "frankfurt-paris/1"}
    assert row["tickets"] == [{"id": "paris-wien", "points": 8, "completed": True}]
    assert row["ticket_points"] == 8 and row["unused_station_points"] == 8
    without = scenario(
        """
        stations none
        """,
        g,
    )
    assert player_result(without)["ticket_points"] == -8


def test_a_station_borrows_one_route_for_all_tickets_the_best_one() -> None:
    g = scenario(
        f"""
        europe 2p
        p0 routes {EAST}, {WEST}
        p1 routes frankfurt-paris/1, dieppe-paris
        p0 stations paris
        p0 tickets paris-wien, edinburgh-paris
        """
    )
    row = player_result(g)
    # Frankfurt–Paris completes the 8-point ticket, Dieppe–Paris the 7-point one: never both
    assert row["station_routes"] == {"paris": "frankfurt-paris/1"}
    assert [t["completed"] for t in row["tickets"]] == [True, False]
    assert row["ticket_points"] == 8 - 7
    # with Frankfurt–Paris unclaimed, the station takes the other route and the other ticket
    row = player_result(scenario(f"p0 routes {EAST}, {WEST}\np1 routes dieppe-paris", g))
    assert row["station_routes"] == {"paris": "dieppe-paris"}
    assert [t["completed"] for t in row["tickets"]] == [False, True]


def test_two_stations_chained_complete_one_ticket() -> None:
    g = scenario(
        """
        europe 2p
        p0 routes munchen-wien
        p1 routes frankfurt-munchen, frankfurt-paris/1
        p0 stations frankfurt, munchen
        p0 tickets paris-wien
        """
    )
    row = player_result(g)
    assert row["station_routes"] == {"frankfurt": "frankfurt-paris/1", "munchen": "frankfurt-munchen"}
    assert row["tickets_completed"] == 1 and row["ticket_points"] == 8
    one = player_result(
        scenario(
            """
        p0 stations frankfurt
        """,
            g,
        )
    )
    assert one["tickets_completed"] == 0 and one["ticket_points"] == -8


def test_a_station_beside_unclaimed_own_or_useless_routes_borrows_nothing() -> None:
    g = scenario(
        f"""
        europe 2p
        p0 routes {EAST}, dieppe-paris
        p1 routes brest-paris      # an opponent's, but it leads nowhere useful
        p0 stations paris
        p0 tickets paris-wien
        """
    )
    row = player_result(g)
    assert row["station_routes"] == {"paris": None}
    assert row["tickets_completed"] == 0 and row["ticket_points"] == -8


def test_equal_ticket_points_prefer_the_route_completing_more_tickets() -> None:
    # Sofia station: Bucuresti–Sofia completes Angora–Kharkov (10); Sarajevo–Sofia completes
    # Budapest–Sofia and Athina–Angora (5 + 5). Both give 0 ticket points; two completed tickets win ties.
    g = scenario(
        """
        europe 2p
        p0 routes constantinople-sofia, angora-constantinople, budapest-sarajevo, athina-sarajevo
        p0 routes bucuresti-kyiv, kharkov-kyiv
        p1 routes bucuresti-sofia, sarajevo-sofia
        p0 stations sofia
        p0 tickets angora-kharkov, budapest-sofia, athina-angora
        """
    )
    row = player_result(g)
    assert row["station_routes"] == {"sofia": "sarajevo-sofia"}
    assert row["ticket_points"] == 0 and row["tickets_completed"] == 2


def test_stations_and_borrowed_routes_never_count_for_the_european_express() -> None:
    # player 0: Paris–Dieppe (1) and Frankfurt–München–Wien (2 + 3); player 1 owns Frankfurt–Paris (3)
    g = scenario(
        f"""
        europe 2p
        p0 routes {EAST}, dieppe-paris
        p1 routes frankfurt-paris/1
        p0 stations paris
        p0 tickets paris-wien
        """
    )
    rows = g.result()["players"]
    assert rows[0]["station_routes"] == {"paris": "frankfurt-paris/1"} and rows[0]["tickets_completed"] == 1
    assert rows[0]["longest_path"] == 5  # not 1 + 3 + 5 through the borrowed route
    assert rows[1]["longest_path"] == 3
    assert rows[0]["longest_path_bonus"] == 10 and rows[1]["longest_path_bonus"] == 0


def test_european_express_finds_a_loop_beside_a_separate_short_route() -> None:
    g = scenario(
        """
        europe 2p
        p0 routes frankfurt-paris/1, bruxelles-frankfurt, bruxelles-paris/1   # a loop: 3 + 2 + 2, all even
        p0 routes cadiz-lisboa
        p1 routes kharkov-moskva
        """
    )
    rows = g.result()["players"]
    assert rows[0]["longest_path"] == 7 and rows[1]["longest_path"] == 4
    assert rows[0]["longest_path_bonus"] == 10 and rows[1]["longest_path_bonus"] == 0


def test_european_express_ties_all_get_it() -> None:
    g = scenario(
        """
        europe 3p
        p0 routes cadiz-madrid
        p1 routes brest-paris
        p2 routes berlin-essen
        """
    )
    assert [r["longest_path_bonus"] for r in g.result()["players"]] == [10, 10, 0]


# ---------------------------------------------------------------- points and tie-breakers


def test_route_points_table() -> None:
    table = {1: 1, 2: 2, 3: 4, 4: 7, 6: 15, 8: 21}
    assert {r.length for r in eu().edition.routes} == set(table)
    assert all(r.points == table[r.length] for r in eu().edition.routes)


def ranks(g: Game) -> list[int]:
    return [r["rank"] for r in g.result()["players"]]


def totals(g: Game) -> list[int]:
    return [r["total"] for r in g.result()["players"]]


def test_tie_broken_by_completed_tickets() -> None:
    # equal routes (6 points, path 5 each); player 0 completes a 5 and fails a 5, player 1 holds none
    g = scenario(
        """
        europe 2p
        p0 routes essen-frankfurt, essen-kobenhavn/1
        p1 routes budapest-sarajevo, sarajevo-sofia
        p0 tickets frankfurt-kobenhavn, sofia-smyrna
        """
    )
    assert totals(g)[0] == totals(g)[1]
    assert ranks(g) == [1, 2] and g.result()["winners"] == [0]
    step = {"tiebreaker": "tickets_completed", "values": {"0": 1, "1": 0}}
    assert g.tie_breaks() == [{"total": totals(g)[0], "players": [0, 1], "steps": [step], "shared": False}]


def test_tie_broken_by_fewer_stations() -> None:
    # player 0 built a station (-4) and owns an extra 3-route (+4) off its longest path
    g = scenario(
        """
        europe 2p
        p0 routes essen-frankfurt, essen-kobenhavn/1, cadiz-madrid
        p1 routes budapest-sarajevo, sarajevo-sofia
        p0 stations roma
        tickets none
        """
    )
    assert totals(g)[0] == totals(g)[1]
    assert ranks(g) == [2, 1] and g.result()["winners"] == [1]
    (tie,) = g.tie_breaks()
    assert [s["tiebreaker"] for s in tie["steps"]][-1] == "fewest_stations"
    assert tie["steps"][-1]["values"] == {"0": 1, "1": 0} and not tie["shared"]  # stations built


def test_tie_broken_by_the_european_express_then_shared() -> None:
    # player 0: a 5-long path (6 points) + Express; player 1: 16 points in pieces of at most 4
    g = scenario(
        """
        europe 2p
        p0 routes essen-frankfurt, essen-kobenhavn/1
        p1 routes edinburgh-london/1, kharkov-moskva, cadiz-lisboa
        tickets none
        """
    )
    assert totals(g)[0] == totals(g)[1]
    assert ranks(g) == [1, 2]
    shared = scenario(
        """
        europe 2p
        p0 routes essen-frankfurt
        p1 routes sarajevo-sofia
        p0 tickets
        """
    )
    assert totals(shared)[0] == totals(shared)[1] and ranks(shared) == [1, 1]
    assert shared.result()["winners"] == [0, 1]
    (tie,) = shared.tie_breaks()
    assert tie["shared"] and [s["tiebreaker"] for s in tie["steps"]] == list(shared.rules.tiebreakers)


def test_double_routes_one_lane_below_four_players_both_from_four() -> None:
    for players, open_lanes in ((2, False), (3, False), (4, True), (5, True)):
        g = scenario(
            f"""
            europe {players}p
            p0 hand 3red
            p1 hand 3red
            p0 routes berlin-frankfurt/1
            current 1
            """
        )
        offered = {a.route for a in g.legal_actions() if a.type == "claim"}
        assert ("berlin-frankfurt/2" in offered) == open_lanes
        g0 = scenario(
            """
            p0 hand 3red
            current 0
            """,
            g,
        )
        assert "berlin-frankfurt/2" not in {a.route for a in g0.legal_actions() if a.type == "claim"}
        refused(g0, claim("berlin-frankfurt/2", red=3), "route_unavailable", "already own a lane")


# ---------------------------------------------------------------- whole games


def check_invariants(g: Game) -> None:
    assert card_total(g) == list(g.edition.deck)
    assert ticket_total(g) == len(g.edition.tickets)
    assert all(0 <= t <= g.rules.trains for t in g.trains)
    assert all(0 <= s <= g.rules.stations for s in g.stations_left)
    if g.phase != "over":
        assert_views_hide_tickets(g)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), players=st.integers(2, 5))
def test_random_games_conserve_cards_hide_secrets_and_replay(seed: int, players: int) -> None:
    g = Game("europe", players, seed)
    rng = random.Random(seed)
    step = 0
    while not g.is_over:
        legal = g.legal_actions()
        if step % 7 == 0:
            assert_claims_pay_validly(g, legal)
        g.apply(rng.choice(legal))
        if step % 7 == 0 or g.phase == "tunnel":
            check_invariants(g)
        step += 1
    check_invariants(g)
    assert_round_trips(g)
    res = g.result()
    for row in res["players"]:
        assert row["total"] == (
            row["route_points"] + row["ticket_points"] + row["longest_path_bonus"] + row["unused_station_points"]
        )
        assert row["unused_station_points"] == 4 * (3 - row["stations_built"])


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_cli_simulate_europe(players: int, capsys: pytest.CaptureFixture[str]) -> None:
    code = cli_main(
        ["simulate", "--edition", "europe", "--players", str(players), "--games", "2", "--jobs", "1", "--seed", "5", "--json"]
    )
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["games"] == 2 and len(summary["seat_win_rate"]) == players
    assert summary["bots"]["random"]["seats"] == 2 * players
