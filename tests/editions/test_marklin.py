"""Märklin (RULES.md §4, issue 9): +4 locomotives, passenger cards, short/long tickets named as a mix,
country areas, passengers and merchandise, doubles/triples by player count, scoring.

Positions are written as scenarios (``ttr.scenario``), so every test states the cards, routes,
passengers and merchandise it relies on and does not depend on the shipped stand-in
tickets or the provisional merchandise layout (both replaceable in the map file alone).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from positions import (
    BLIND,
    arrange,
    card_census,
    cards,
    claim,
    faceup,
    full_deck,
    keep,
    mix,
    move,
    place,
    refused,
    scenario,
    started,
)
from ttr.cards import CARD_INDEX, CARD_NAMES, PASSENGER
from ttr.cli import main as cli_main
from ttr.editions import DATA_DIR, get_edition, parse_edition
from ttr.engine import Action, Game
from ttr.engine.trails import best_trails
from ttr.notation import format_cards

MARKLIN = get_edition("marklin")


# ---------------------------------------------------------------- helpers
def token_census(g: Game) -> Counter[int]:
    out: Counter[int] = Counter()
    for stack in g.merch:
        out.update(stack)
    for taken in g.tokens:
        out.update(taken)
    return out


def custom_raw(tickets: list[dict[str, Any]] | None = None, merchandise: dict[str, list[int]] | None = None) -> dict[str, Any]:
    """A copy of the shipped map file with another ticket list and/or merchandise layout."""
    raw = json.loads((DATA_DIR / "marklin.json").read_text(encoding="utf-8"))
    if tickets is not None:
        raw["tickets"] = tickets
    if merchandise is not None:
        raw["merchandise"] = merchandise
    return raw


def ticket(a: str, b: str, points: int, deck: str) -> dict[str, Any]:
    return {"id": f"{a}-{b}", "a": a, "b": b, "points": points, "deck": deck}


# Six short and six long tickets, several naming a country area.
TEST_TICKETS = [
    ticket("freiburg", "konstanz", 3, "short"),
    ticket("karlsruhe", "schweiz", 6, "short"),
    ticket("kiel", "danemark", 4, "short"),
    ticket("mainz", "koblenz", 2, "short"),
    ticket("ulm", "augsburg", 2, "short"),
    ticket("bremen", "emden", 3, "short"),
    ticket("berlin", "osterreich", 20, "long"),
    ticket("frankreich", "danemark", 17, "long"),
    ticket("hamburg", "munchen", 19, "long"),
    ticket("koln", "dresden", 14, "long"),
    ticket("niederlande", "leipzig", 13, "long"),
    ticket("emden", "lindau", 22, "long"),
]
TEST_EDITION = parse_edition(custom_raw(tickets=TEST_TICKETS), "test-marklin.json")


# ---------------------------------------------------------------- deck and market
def test_deck_has_118_cards_of_the_stated_kinds() -> None:
    assert full_deck(MARKLIN) == Counter(
        {**{c: 11 for c in CARD_NAMES[:8]}, "locomotive": 14, "locomotive_plus4": 6, "passenger": 10}
    )
    g = Game("marklin", 3, 5)
    assert card_census(g) == full_deck(MARKLIN)
    assert sum(card_census(g).values()) == 118


def test_faceup_plain_locomotive_is_the_whole_draw_and_never_second() -> None:
    g = scenario(
        """
        marklin 2p
        hands none
        market L, red, blue, green, white
        deck black, L, yellow, orange
        """
    )
    p = g.current
    g.apply(faceup(0))
    assert g.hands[p][CARD_INDEX["locomotive"]] == 1 and g.current != p and g.phase == "turn"
    q = g.current
    g.apply(BLIND)  # takes "locomotive" blind: an ordinary card
    assert g.phase == "second_card" and g.hands[q][CARD_INDEX["locomotive"]] == 1
    g = scenario(
        """
        market L, red, blue, green, white
        deck black, black, black
        """,
        g,
    )
    refused(g, faceup(0), "second_locomotive")


@pytest.mark.parametrize("first,second", [("locomotive_plus4", "passenger"), ("passenger", "locomotive_plus4")])
def test_faceup_plus4_and_passenger_cards_are_ordinary_cards(first: str, second: str) -> None:
    g = scenario(
        f"""
        marklin 2p
        hands none
        market {first}, {second}, red, blue, green
        deck black, black, black, black, black
        """
    )
    p = g.current
    g.apply(faceup(0))
    assert g.phase == "second_card" and g.current == p
    assert faceup(1) in g.legal_actions()
    g.apply(faceup(1))
    assert g.current != p
    assert g.hands[p][CARD_INDEX[first]] == 1 and g.hands[p][CARD_INDEX[second]] == 1


def test_three_plain_locomotives_flush_but_plus4_cards_do_not() -> None:
    g = scenario(
        """
        marklin 2p
        market L, L, red, L4, L4
        deck L4, white, white, white, white, white
        """
    )
    events = g.apply(faceup(2))  # refilled with a third +4: no flush
    assert [e.type for e in events if e.type == "market_flush"] == []
    assert g.market.count(CARD_INDEX["locomotive_plus4"]) == 3
    g = scenario(
        """
        marklin 2p
        market L, L, red, blue, green
        deck L, white, white, white, white, white
        """
    )
    events = g.apply(faceup(2))
    assert [e.type for e in events].count("market_flush") == 1
    assert g.view(None).to_dict()["market"] == ["white"] * 5


@pytest.mark.parametrize("option,flushed", [(None, True), (3, True), (0, False)])
def test_three_faceup_passenger_cards_flush_unless_the_option_is_off(option: int | None, flushed: bool) -> None:
    options = None if option is None else {"passenger_flush": option}
    g = scenario(
        """
        market P, P, red, blue, green
        deck P, white, white, white, white, white
        """,
        started("marklin", options=options),
    )
    events = g.apply(faceup(2))
    assert ("market_flush" in [e.type for e in events]) is flushed
    market = g.view(None).to_dict()["market"]
    assert market == (["white"] * 5 if flushed else ["passenger", "passenger", "passenger", "blue", "green"])


# ---------------------------------------------------------------- payments
def test_plus4_locomotives_are_wild_only_on_routes_of_four_or_more() -> None:
    g = scenario(
        """
        marklin 2p
        p0 hand 2red+3orange+6L4
        routes none
        market white, white, white, white, white
        current 0
        """
    )
    # berlin-magdeburg: red 3; berlin-leipzig: orange 4; berlin-hamburg/1: blue 7
    refused(g, claim("berlin-magdeburg", red=2, locomotive_plus4=1), "bad_payment")
    refused(g, claim("berlin-magdeburg", locomotive_plus4=3), "bad_payment")
    legal = g.legal_actions()
    assert not any(
        a.type == "claim" and a.cards[CARD_INDEX["locomotive_plus4"]] and MARKLIN.routes[MARKLIN.route_index[a.route]].length < 4
        for a in legal
    )
    assert claim("berlin-leipzig", orange=3, locomotive_plus4=1) in legal
    assert claim("berlin-hamburg/1", locomotive_plus4=6) not in legal  # 7 spaces, 6 cards
    g.apply(claim("berlin-leipzig", orange=1, locomotive_plus4=3))
    assert g.route_owner[MARKLIN.route_index["berlin-leipzig"]] == 0
    assert g.hands[0][CARD_INDEX["locomotive_plus4"]] == 3


def test_plain_locomotives_are_wild_on_short_routes() -> None:
    g = scenario(
        """
        marklin 2p
        p0 hand 2red+1L
        p1 hand 2red+1L
        routes none
        """
    )
    assert claim("berlin-magdeburg", red=2, locomotive=1) in g.legal_actions()


def test_passenger_cards_never_pay_for_routes() -> None:
    g = scenario(
        """
        marklin 2p
        p0 hand 2red+2L4+8P
        routes none
        market white, white, white, white, white
        current 0
        """
    )
    err = refused(g, claim("berlin-magdeburg", red=2, passenger=1), "bad_payment")
    assert "passenger" in err.reason
    refused(g, claim("karlsruhe-mannheim", passenger=1), "bad_payment")
    assert not any(a.type == "claim" and a.cards[PASSENGER] for a in g.legal_actions())


def test_a_seven_space_route_scores_18() -> None:
    g = scenario(
        """
        marklin 2p
        p0 hand 7blue
        routes none
        p0 passengers gone, gone, gone
        p1 passengers gone, gone, gone
        current 0
        """
    )
    g.apply(claim("berlin-hamburg/1", blue=7))
    assert g.scores[0] == 18 and g.trains[0] == 45 - 7
    assert g.result()["players"][0]["route_points"] == 18


# ---------------------------------------------------------------- tickets
def deck_ids(g: Game, deck: str) -> list[str]:
    return [g.edition.tickets[t].id for t in g.ticket_decks[deck]]


def test_setup_names_a_mix_draws_four_keeps_two_then_both_decks_are_reshuffled() -> None:
    g = Game(TEST_EDITION, 2, 3)
    first = g.current
    assert g.phase == "setup" and g.offered[first] == []
    assert sorted(g.legal_actions()) == sorted(mix(short=4 - k, long=k) for k in range(5))
    refused(g, mix(short=3), "bad_mix")
    refused(g, mix(short=3, long=2), "bad_mix")
    refused(g, keep(), "wrong_phase")
    g.apply(mix(short=1, long=3))
    offered = [g.edition.tickets[t] for t in g.offered[first]]
    assert sorted(t.deck for t in offered) == ["long", "long", "long", "short"]
    assert all(len(a.tickets) >= 2 for a in g.legal_actions())
    ids = sorted(t.id for t in offered)
    refused(g, keep(ids[0]), "keep_too_few")
    long_kept = next(t.id for t in offered if t.deck == "long")
    short_kept = next(t.id for t in offered if t.deck == "short")
    returned_long = sorted(t.id for t in offered if t.deck == "long" and t.id != long_kept)
    g.apply(keep(long_kept, short_kept))
    # put back under their deck when every seat has chosen (so the order of choosing changes nothing)
    assert sorted(g.edition.tickets[t].id for t in g.setup_returned[first]) == returned_long
    second = g.current
    assert second != first and g.phase == "setup"
    g.apply(mix(short=4))
    g.apply(keep(*(g.edition.tickets[t].id for t in g.offered[second])))
    assert g.phase == "turn" and g.current == g.first_player
    kept = {g.edition.tickets[t].id for p in range(2) for t in g.tickets[p]}
    for deck in ("short", "long"):
        assert sorted(deck_ids(g, deck)) == sorted(t["id"] for t in TEST_TICKETS if t["deck"] == deck and t["id"] not in kept)


def test_setup_reshuffles_the_ticket_decks_after_the_last_player() -> None:
    """Same seed, same choices: with returns left at the bottom the order differs from the reshuffled one."""
    unshuffled = {"initial_tickets": {**MARKLIN.raw["rules"]["initial_tickets"], "returned": "bottom"}}
    orders = []
    for options in (None, unshuffled):
        g = Game("marklin", 4, 9, options)
        while g.phase == "setup":
            g.apply(mix(short=2, long=2))
            g.apply(keep(*sorted(g.edition.tickets[t].id for t in g.offered[g.current])[:2]))
        orders.append({d: deck_ids(g, d) for d in ("short", "long")})
    for d in ("short", "long"):
        assert sorted(orders[0][d]) == sorted(orders[1][d])
        assert orders[0][d] != orders[1][d]
    # without the reshuffle the 8 returned tickets are exactly the bottom 4 of each deck
    assert len(orders[1]["short"][:4]) == 4


def test_in_play_draw_names_a_mix_keeps_at_least_one_and_returns_under_their_decks() -> None:
    g = scenario(
        """
        tickets none
        ticket deck short bremen-emden, ulm-augsburg, mainz-koblenz, kiel-danemark, karlsruhe-schweiz, freiburg-konstanz
        ticket deck long emden-lindau, niederlande-leipzig, koln-dresden, hamburg-munchen, frankreich-danemark, berlin-osterreich
        """,
        started(TEST_EDITION, 2, 1),
    )
    p = g.current
    sizes = {d: len(g.ticket_decks[d]) for d in ("short", "long")}
    assert sizes == {"short": 6, "long": 6}
    offered_mixes = [a for a in g.legal_actions() if a.type == "draw_tickets"]
    assert sorted(offered_mixes) == sorted(mix(short=4 - k, long=k) for k in range(5))
    g.apply(mix(short=2, long=2))
    assert g.phase == "keep_tickets" and len(g.offered[p]) == 4
    refused(g, keep(), "keep_too_few")
    assert min(len(a.tickets) for a in g.legal_actions()) == 1
    offered = [g.edition.tickets[t] for t in g.offered[p]]
    kept = next(t for t in offered if t.deck == "long")
    g.apply(keep(kept.id))
    assert g.current != p and kept.index in g.tickets[p]
    assert sorted(deck_ids(g, "short")[:2]) == sorted(t.id for t in offered if t.deck == "short")
    assert deck_ids(g, "long")[:1] == [t.id for t in offered if t.deck == "long" and t is not kept]
    assert {d: len(g.ticket_decks[d]) for d in ("short", "long")} == {"short": sizes["short"], "long": sizes["long"] - 1}


@pytest.mark.parametrize(
    "short,long,mixes",
    [
        (2, 1, [(2, 1)]),  # fewer than 4 left: all of them
        (1, 5, [(0, 4), (1, 3)]),
        (0, 2, [(0, 2)]),
        (0, 0, []),
    ],
)
def test_ticket_mixes_when_the_decks_run_low(short: int, long: int, mixes: list[tuple[int, int]]) -> None:
    ids = {d: [t["id"] for t in TEST_TICKETS if t["deck"] == d] for d in ("short", "long")}
    g = scenario(
        f"""
        tickets none
        ticket deck short {", ".join(reversed(ids["short"][:short]))}
        ticket deck long {", ".join(reversed(ids["long"][:long]))}
        """,
        started(TEST_EDITION, 2, 1),
    )
    assert sorted(a for a in g.legal_actions() if a.type == "draw_tickets") == sorted(mix(s, lg) for s, lg in mixes)
    if not mixes:
        refused(g, mix(short=1), "bad_mix")
        return
    refused(g, mix(short=short + 1, long=max(0, 3 - short)), "bad_mix")
    s, lg = mixes[-1]
    p = g.current
    g.apply(mix(short=s, long=lg))
    assert len(g.offered[p]) == s + lg
    assert min(len(a.tickets) for a in g.legal_actions()) == 1


def test_a_country_ticket_is_completed_through_any_of_its_border_endpoints() -> None:
    g = started(TEST_EDITION, 2, 0)
    ids = TEST_EDITION.ticket_index
    for via, done in [("lindau-schweiz", True), ("konstanz-schweiz", True), ("freiburg-schweiz", True), ("", False)]:
        h = scenario(
            f"""
            p0 routes karlsruhe-stuttgart, konstanz-stuttgart, konstanz-lindau, freiburg-konstanz, danemark-kiel
            p0 routes {via}                 # the route into Schweiz, if any
            p0 tickets karlsruhe-schweiz, kiel-danemark
            p1 tickets karlsruhe-schweiz
            """,
            g,
        )
        status = {t.id: ok for t, ok in h.ticket_status(0)}
        assert status == {"karlsruhe-schweiz": done, "kiel-danemark": True}
        assert ids["karlsruhe-schweiz"] in h.tickets[0]


def test_a_country_is_not_a_through_node() -> None:
    """Freiburg -> Schweiz -> Konstanz is no path: each route into Switzerland ends at its own endpoint."""
    g = scenario(
        """
        p0 routes freiburg-schweiz, konstanz-schweiz, frankreich-freiburg, frankreich-karlsruhe
        p0 tickets freiburg-konstanz, karlsruhe-schweiz
        """,
        started(TEST_EDITION, 2, 0),
    )
    status = {t.id: ok for t, ok in g.ticket_status(0)}
    assert status == {"freiburg-konstanz": False, "karlsruhe-schweiz": False}  # not via Frankreich either
    res = g.result()["players"][0]
    assert res["tickets_completed"] == 0 and res["ticket_points"] == -3 - 6


# ---------------------------------------------------------------- placing passengers
def placing(passengers: str = "") -> Game:
    """Player 0 to move, with the cards for the routes these tests claim, and the scenario lines `passengers`."""
    return scenario(f"marklin 2p\np0 hand 5blue+5black\nroutes none\nmarket red, red, red, red, red\ncurrent 0\n{passengers}")


def test_after_a_claim_a_passenger_may_go_on_either_end_or_nowhere() -> None:
    for choice in ("karlsruhe", "mannheim", None):
        g = placing()
        g.apply(claim("karlsruhe-mannheim", blue=1))
        assert g.phase == "place_passenger" and g.current == 0
        assert sorted(g.legal_actions(), key=str) == sorted([place("karlsruhe"), place("mannheim"), place(None)], key=str)
        refused(g, place("stuttgart"), "bad_city")
        refused(g, BLIND, "wrong_phase")
        g.apply(place(choice))
        assert g.phase == "turn" and g.current == 1
        assert g.to_dict()["passengers"][0] == [choice, None, None]
        assert g.view(1).to_dict()["public"][0]["passengers"] == [choice, None, None]


def test_no_passenger_on_a_country_area() -> None:
    g = placing()
    g.apply(claim("danemark-kiel", black=2))
    assert sorted(g.legal_actions(), key=str) == sorted([place("kiel"), place(None)], key=str)
    refused(g, place("danemark-kiel"), "city_taken")


def test_no_passenger_where_one_already_stands() -> None:
    g = placing("p1 passengers hamburg, none, none")
    g.apply(claim("hamburg-kiel/1", black=2))
    assert sorted(g.legal_actions(), key=str) == sorted([place("kiel"), place(None)], key=str)
    refused(g, place("hamburg"), "city_taken")


@pytest.mark.parametrize(
    "passengers",
    [
        "p0 passengers mannheim, gone, none\np1 passengers karlsruhe, none, none",
        "p0 passengers gone, ulm, gone",
    ],
    ids=["both ends taken", "no unplaced passenger left"],
)
def test_no_placement_step_when_both_ends_are_barred_or_no_passenger_is_left(passengers: str) -> None:
    g = placing(passengers)
    before = g.to_dict()["passengers"]
    g.apply(claim("karlsruhe-mannheim", blue=1))
    assert g.phase == "turn" and g.current == 1
    assert g.to_dict()["passengers"] == before


def test_a_passenger_is_placed_only_right_after_a_claim() -> None:
    g = placing()
    refused(g, place("karlsruhe"), "wrong_phase")


# ---------------------------------------------------------------- moving passengers
TRIANGLE = "karlsruhe-mannheim, karlsruhe-stuttgart, mannheim-stuttgart/1"
STACKS = """
    merchandise karlsruhe 3, 2, 1
    merchandise mannheim 4, 3, 2
    merchandise stuttgart 5, 4
    merchandise ulm 2
    merchandise freiburg 6
    merchandise frankfurt 7, 1
"""


def mover(lines: str, passenger_cards: int = 0, options: dict[str, Any] | None = None, players: int = 2) -> Game:
    """Player 0 to move, holding `passenger_cards` passenger cards and a red card, with the test merchandise
    stacks (STACKS), and the scenario `lines` (routes, passengers)."""
    hand = format_cards(cards(red=1, passenger=passenger_cards))
    return scenario(f"p0 hand {hand}\ncurrent 0\n{STACKS}\n{lines}", started("marklin", players, 0, options=options))


def test_moving_a_passenger_takes_the_top_token_of_each_city_entered_and_removes_the_passenger() -> None:
    g = mover(
        f"""
        p0 routes {TRIANGLE}
        p0 passengers karlsruhe, none, none
        """
    )
    events = g.apply(move("karlsruhe", "karlsruhe-mannheim", "mannheim-stuttgart/1"))
    assert g.tokens[0] == [4, 5] and g.scores[0] == 1 + 1 + 2 + 4 + 5
    d = g.to_dict()
    assert d["merchandise"]["mannheim"] == [3, 2] and d["merchandise"]["stuttgart"] == [4]
    assert d["merchandise"]["karlsruhe"] == [3, 2, 1]  # the start city's token is not collected
    assert d["passengers"][0] == ["gone", None, None]
    move_event = next(e for e in events if e.type == "move_passenger").public()
    assert move_event["points"] == 9 and [t["value"] for t in move_event["tokens"]] == [4, 5]
    res = g.result()["players"][0]
    assert res["merchandise"] == 9 and res["total"] == res["route_points"] + 9 + res["ticket_points"] + res["most_tickets_bonus"]
    # the city is free again and the passenger can never move again
    g.apply(BLIND)
    g.apply(BLIND)
    refused(g, move("karlsruhe", "karlsruhe-mannheim"), "no_passenger")


def test_later_trips_take_the_next_token_down() -> None:
    g = mover(
        f"""
        p0 routes {TRIANGLE}
        p0 passengers karlsruhe, stuttgart, none
        """
    )
    g.apply(move("karlsruhe", "karlsruhe-mannheim"))
    g = scenario(
        """
        current 0
        """,
        g,
    )
    g.apply(move("stuttgart", "mannheim-stuttgart/1"))
    assert g.tokens[0] == [4, 3]
    assert g.to_dict()["merchandise"]["mannheim"] == [2]


def test_a_route_is_used_at_most_once_per_trip() -> None:
    g = mover(
        f"""
        p0 routes {TRIANGLE}
        p0 passengers karlsruhe, none, none
        """
    )
    refused(g, move("karlsruhe", "karlsruhe-mannheim", "karlsruhe-mannheim"), "route_reused")
    refused(
        g,
        move("karlsruhe", "karlsruhe-mannheim", "mannheim-stuttgart/1", "karlsruhe-stuttgart", "karlsruhe-mannheim"),
        "route_reused",
    )


def test_one_token_per_city_per_trip_and_the_option_off() -> None:
    loop = ("karlsruhe-mannheim", "mannheim-stuttgart/1", "karlsruhe-stuttgart")  # back to the start
    g = mover(
        f"""
        p0 routes {TRIANGLE}, stuttgart-ulm/1
        p0 passengers mannheim, none, none
        """
    )
    g.apply(move("mannheim", "mannheim-stuttgart/1", "karlsruhe-stuttgart", "karlsruhe-mannheim"))
    assert g.tokens[0] == [5, 3]  # Mannheim (the start) yields nothing when re-entered
    g = mover(
        f"""
        p0 routes {TRIANGLE}
        p0 passengers karlsruhe, none, none
        """,
        options={"passenger_one_token_per_city": False},
    )
    g.apply(move("karlsruhe", *loop))
    # Option off: every entry takes a token, the return to the start city included (docs/marklin.md).
    assert g.tokens[0] == [4, 5, 3]
    # A city entered twice in one trip: once per trip by default, twice with the option off.
    figure8 = f"{TRIANGLE}, freiburg-karlsruhe, karlsruhe-saarbrucken, freiburg-stuttgart"
    trip = ("karlsruhe-mannheim", "mannheim-stuttgart/1", "freiburg-stuttgart", "freiburg-karlsruhe", "karlsruhe-saarbrucken")
    for once, taken in ((True, [4, 5, 6, 2]), (False, [4, 5, 6, 3, 2])):
        g = mover(
            f"""
            p0 routes {figure8}
            p0 passengers ulm, karlsruhe, none
            merchandise karlsruhe 3, 2, 1
            merchandise saarbrucken 2
            """,
            options={"passenger_one_token_per_city": once},
        )
        g.apply(move("karlsruhe", *trip))
        assert g.tokens[0] == taken


def test_opponent_routes_cost_exactly_one_passenger_card_each() -> None:
    lines = """
        p0 routes karlsruhe-mannheim
        p1 routes mannheim-stuttgart/1, stuttgart-ulm/1
        p0 passengers karlsruhe, none, none
    """
    trip = ("karlsruhe-mannheim", "mannheim-stuttgart/1", "stuttgart-ulm/1")
    g = mover(lines, passenger_cards=3)
    refused(g, move("karlsruhe", *trip), "bad_payment")
    refused(g, move("karlsruhe", *trip, passenger_cards=1), "bad_payment")
    refused(g, move("karlsruhe", *trip, passenger_cards=3), "bad_payment")
    refused(g, Action("move_passenger", city="karlsruhe", path=trip, cards=cards(passenger=2, red=1)), "bad_payment")
    refused(g, move("karlsruhe", "karlsruhe-stuttgart"), "unclaimed_route")
    refused(g, move("karlsruhe", "mannheim-stuttgart/1", passenger_cards=1), "not_a_trail")
    g.apply(move("karlsruhe", *trip, passenger_cards=2))
    assert g.tokens[0] == [4, 5, 2]
    assert g.hands[0][PASSENGER] == 1 and g.discard.count(PASSENGER) == 2
    g = mover(lines, passenger_cards=1)
    refused(g, move("karlsruhe", *trip, passenger_cards=2), "cards_not_in_hand")
    g.apply(move("karlsruhe", "karlsruhe-mannheim", "mannheim-stuttgart/1", passenger_cards=1))
    assert g.tokens[0] == [4, 5]


def test_passengers_never_enter_a_country_area() -> None:
    g = mover(
        """
        p0 routes freiburg-schweiz, freiburg-konstanz, konstanz-schweiz
        p0 passengers freiburg, none, none
        """
    )
    refused(g, move("freiburg", "freiburg-schweiz"), "country_area")
    offered = [a for a in g.legal_actions() if a.type == "move_passenger"]
    assert offered == [move("freiburg", "freiburg-konstanz")]


def test_only_own_placed_passengers_move_and_a_trip_needs_a_route() -> None:
    g = mover(
        f"""
        p0 routes {TRIANGLE}
        p0 passengers karlsruhe, none, none
        p1 passengers stuttgart, none, none
        """
    )
    refused(g, move("stuttgart", "mannheim-stuttgart/1"), "no_passenger")
    refused(g, move("mannheim", "karlsruhe-mannheim"), "no_passenger")
    refused(g, Action("move_passenger", city="karlsruhe", path=(), cards=cards()), "empty_trip")
    assert g.is_legal(move("karlsruhe", "karlsruhe-mannheim"))
    assert g.is_legal({"type": "move_passenger", "city": "karlsruhe", "path": ["karlsruhe-mannheim"]})


def test_a_passenger_may_pass_through_a_city_where_another_passenger_stands() -> None:
    g = mover(
        f"""
        p0 routes {TRIANGLE}
        p0 passengers karlsruhe, none, none
        p1 passengers mannheim, none, none
        """
    )
    g.apply(move("karlsruhe", "karlsruhe-mannheim", "mannheim-stuttgart/1"))
    assert g.tokens[0] == [4, 5] and g.to_dict()["passengers"][1] == ["mannheim", None, None]


def test_offered_trips_are_the_best_per_number_of_opponent_routes_and_legal() -> None:
    g = mover(
        f"""
        p0 routes {TRIANGLE}
        p1 routes stuttgart-ulm/1, freiburg-stuttgart
        p0 passengers karlsruhe, none, none
        """,
        passenger_cards=2,
    )
    offered = {a.cards[PASSENGER]: a for a in g.legal_actions() if a.type == "move_passenger"}
    # 0 cards: Mannheim 4 + Stuttgart 5 = 9; 1 card: + Freiburg 6 = 15; 2 cards: Ulm and Freiburg need
    # Stuttgart twice by two opponent routes from Stuttgart -> only one of them; no better trip.
    assert sorted(offered) == [0, 1]
    for k, expected in ((0, 9), (1, 15)):
        h = g.clone()
        h.apply(offered[k])
        assert sum(h.tokens[0]) == expected


def crowded_board(players: int = 5, seed: int = 0) -> dict[str, int]:
    """Every route claimed: player 0 the shortest ones its 45 trains allow, the others the rest."""
    rng = random.Random(seed)
    owners: dict[str, int] = {}
    trains = MARKLIN.rules.trains
    for r in sorted(MARKLIN.routes, key=lambda r: (r.length, r.index)):
        siblings = MARKLIN.group_routes[r.group] if r.group >= 0 else ()
        if r.length <= trains and not any(owners.get(MARKLIN.routes[o].id) == 0 for o in siblings):
            owners[r.id] = 0
            trains -= r.length
    for r in MARKLIN.routes:
        owners.setdefault(r.id, rng.randrange(1, players))
    return owners


def offered_values(g: Game) -> dict[int, int]:
    """Token points of each offered trip (applied on a copy), by passenger cards spent."""
    values = {}
    for a in g.legal_actions():
        if a.type == "move_passenger":
            h = g.clone()
            h.apply(a)
            values[a.cards[PASSENGER]] = sum(h.tokens[0])
    return values


def test_holding_many_passenger_cards_keeps_the_cheap_trips_optimal() -> None:
    """Regression: the first bounded search spent its whole budget deep among opponent routes, so with
    10 passenger cards it offered no own-routes trip at all and a 1-card trip far below the best."""
    routes = "".join(f"p{o} routes {r}\n" for r, o in crowded_board().items())
    stacks = "".join(f"merchandise {c} {1 + i % 5}\n" for i, c in enumerate(MARKLIN.city_ids) if MARKLIN.city_area[i] is None)

    def position(k: int) -> Game:
        return mover(f"{routes}{stacks}p0 passengers frankfurt, none, none", passenger_cards=k, players=5)

    g = position(2)  # up to 2 opponent routes the exhaustive search is small
    front = best_trails(g.edition, g.route_owner, g.merch, 0, g.edition.city_index["frankfurt"], 2, True, 10**7)
    exact = {f: v for f, (v, _) in front.items()}
    assert sorted(exact) == [0, 1, 2]
    for k in range(11):
        values = offered_values(position(k))
        assert set(values) <= set(range(k + 1)) and (k < 3 or len(values) > 3)
        for f, v in exact.items():
            if f <= k:
                assert max([x for j, x in values.items() if j <= f] or [0]) == v, (k, f)


# ---------------------------------------------------------------- brute-force check of the offered trips
REGION = [
    "karlsruhe-mannheim",
    "karlsruhe-stuttgart",
    "mannheim-stuttgart/1",
    "mannheim-stuttgart/2",
    "freiburg-karlsruhe",
    "freiburg-stuttgart",
    "freiburg-konstanz",
    "konstanz-stuttgart",
    "konstanz-lindau",
    "lindau-ulm",
    "stuttgart-ulm/1",
    "augsburg-ulm/1",
    "frankfurt-mannheim/1",
    "mainz-mannheim/1",
    "frankfurt-mainz/1",
    "karlsruhe-saarbrucken",
    "mannheim-saarbrucken",
    "freiburg-schweiz",
    "konstanz-schweiz",
    "frankreich-karlsruhe",
]


def brute_force_front(g: Game, p: int, start: int, max_foreign: int) -> dict[int, int]:
    """Best token points per number of opponent routes, by enumerating every trip; dominated entries dropped."""
    ed = g.edition
    once = g.rules.passenger_one_token_per_city
    best: dict[int, int] = {}

    def walk(city: int, used: frozenset[int], foreign: int, taken: Counter[int]) -> None:
        if used:
            value = 0
            for c, k in taken.items():
                stack = list(reversed(g.merch[c]))  # top first
                value += sum(stack[:k])
            best[foreign] = max(best.get(foreign, 0), value)
        for ri, other in ed.adjacency[city]:
            o = g.route_owner[ri]
            if o < 0 or ri in used or ed.city_area[other] is not None:
                continue
            f = foreign + (o != p)
            if f > max_foreign:
                continue
            t = taken.copy()
            if not (once and (t[other] or other == start)):
                t[other] += 1
            walk(other, used | {ri}, f, t)

    walk(start, frozenset(), 0, Counter())
    front: dict[int, int] = {}
    top = 0
    for f in sorted(best):
        if best[f] > top:
            front[f] = top = best[f]
    return front


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    owners=st.lists(st.sampled_from([-1, 0, 0, 1]), min_size=len(REGION), max_size=len(REGION)),
    stacks=st.lists(st.lists(st.integers(1, 7), max_size=3), min_size=8, max_size=8),
    passenger_cards=st.integers(0, 3),
    once=st.booleans(),
    start_index=st.integers(0, 7),
)
def test_offered_trips_match_a_brute_force_search(
    owners: list[int], stacks: list[list[int]], passenger_cards: int, once: bool, start_index: int
) -> None:
    cities = ["karlsruhe", "mannheim", "stuttgart", "freiburg", "konstanz", "ulm", "saarbrucken", "mainz"]
    routes = "".join(f"p{o} routes {r}\n" for r, o in zip(REGION, owners, strict=True) if o >= 0)
    merchandise = "".join(f"merchandise {c} {', '.join(map(str, s))}\n" for c, s in zip(cities, stacks, strict=True))
    start = cities[start_index]
    lines = f"{routes}{merchandise}p0 passengers {start}, none, none"
    g = mover(lines, passenger_cards, options={"passenger_one_token_per_city": once})
    offered = [a for a in g.legal_actions() if a.type == "move_passenger"]
    got: dict[int, int] = {}
    for a in offered:
        h = g.clone()
        h.apply(a)
        got[a.cards[PASSENGER]] = sum(h.tokens[0])
    assert got == brute_force_front(g, 0, g.edition.city_index[start], passenger_cards)


# ---------------------------------------------------------------- doubles and triples
TRIPLE = ("dortmund-dusseldorf/1", "dortmund-dusseldorf/2", "dortmund-dusseldorf/3")


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_triple_routes_by_player_count(players: int) -> None:
    # every player p holds 2 cards of the p-th colour (red, orange, yellow, ...) and has no passenger left
    each = "".join(f"p{p} hand 2{CARD_NAMES[p]}\np{p} passengers gone, gone, gone\n" for p in range(players))
    g = scenario(f"marklin {players}p\np1 routes {TRIPLE[0]}\ncurrent 0\n{each}")
    if players <= 3:
        for lane in TRIPLE[1:]:
            refused(g, claim(lane, red=1), "route_unavailable")
        return
    assert claim(TRIPLE[1], red=1) in g.legal_actions()
    g.apply(claim(TRIPLE[1], red=1))
    assert g.current == 1
    refused(g, claim(TRIPLE[2], orange=1), "route_unavailable")  # player 1 already owns lane 1
    g.apply(BLIND)
    g.apply(BLIND)
    assert g.current == 2
    g.apply(claim(TRIPLE[2], yellow=1))
    assert [g.route_owner[MARKLIN.route_index[r]] for r in TRIPLE] == [1, 0, 2]


def test_all_lanes_from_two_players_with_the_option() -> None:
    g = scenario(
        f"""
        p0 hand 3red
        p1 hand 3orange
        p1 routes {TRIPLE[0]}
        p0 passengers gone, gone, gone
        p1 passengers gone, gone, gone
        current 0
        """,
        started("marklin", 2, options={"all_lanes_min_players": 2}),
    )
    g.apply(claim(TRIPLE[1], red=1))
    refused(g, claim(TRIPLE[2], orange=1), "route_unavailable")  # never two lanes of one connection


# ---------------------------------------------------------------- scoring
def scored(routes: Mapping[str, int], tickets: list[list[str]], tokens: list[list[int]], players: int = 2) -> Game:
    g = started(TEST_EDITION, players, 0)
    return arrange(g, routes=routes, tickets=tickets, tokens=tokens)


def test_no_longest_path_bonus_and_ten_points_to_every_player_with_most_tickets() -> None:
    routes = {
        "berlin-hamburg/1": 0,
        "berlin-hannover": 0,
        "hamburg-kiel/1": 1,
        "danemark-kiel": 1,
        "mainz-mannheim/1": 2,
        "koblenz-mainz/1": 2,
    }
    g = scored(routes, [[], ["kiel-danemark"], ["mainz-koblenz"]], [[], [], []], players=3)
    res = g.result()["players"]
    assert [x["longest_path_bonus"] for x in res] == [0, 0, 0]
    assert [x["tickets_completed"] for x in res] == [0, 1, 1]
    assert [x["most_tickets_bonus"] for x in res] == [0, 10, 10]
    assert [x["total"] for x in res] == [36, 2 + 2 + 4 + 10, 1 + 2 + 2 + 10]


def test_no_most_tickets_bonus_when_nobody_completed_one() -> None:
    g = scored({"berlin-hamburg/1": 0}, [["kiel-danemark"], []], [[], []])
    assert [x["most_tickets_bonus"] for x in g.result()["players"]] == [0, 0]


def test_tie_breakers_completed_tickets_then_shared() -> None:
    # player 0: route 2 + ticket 2 + bonus 10 = 14; player 1: route 1 + merchandise 13 = 14
    g = scored({"koblenz-mainz/1": 0, "frankfurt-mainz/1": 1}, [["mainz-koblenz"], []], [[], [7, 6]])
    res = g.result()
    assert [x["total"] for x in res["players"]] == [14, 14]
    assert res["winners"] == [0] and [x["rank"] for x in res["players"]] == [1, 2]
    # equal totals and equal completed tickets: the win is shared
    g = scored({"koblenz-mainz/1": 0, "frankfurt-mainz/1": 1}, [[], []], [[1], [2]])
    res = g.result()
    assert [x["total"] for x in res["players"]] == [3, 3]
    assert res["winners"] == [0, 1] and [x["rank"] for x in res["players"]] == [1, 1]


# ---------------------------------------------------------------- data, stand-ins and the CLI
def test_stand_ins_are_shipped_and_documented() -> None:
    """The shipped data are the documented stand-ins; update this test when the real deck or layout lands."""
    decks = Counter(t.deck for t in MARKLIN.tickets)
    assert decks == Counter({"short": 55, "long": 34})  # the 2017 Germany deck, not the Märklin one
    assert any("STAND-IN TICKETS" in n for n in MARKLIN.notes)
    assert any("PROVISIONAL MERCHANDISE" in n for n in MARKLIN.notes)
    stacks = Counter(tuple(s) for s in MARKLIN.merchandise if s)
    assert stacks == Counter({(7, 6, 5, 4): 1, (4, 3, 2): 6, (3, 2, 1): 12, (2,): 16})
    assert MARKLIN.merchandise[MARKLIN.city_index["berlin"]] == (7, 6, 5, 4)
    assert all(not s for c, s in enumerate(MARKLIN.merchandise) if MARKLIN.city_area[c] is not None)


def test_ttr_editions_prints_the_stand_in_notes(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["editions", "marklin"]) == 0
    out = capsys.readouterr().out
    assert "STAND-IN TICKETS" in out and "PROVISIONAL MERCHANDISE" in out and "docs/marklin.md" in out


def play_random(g: Game, seed: int, check: bool = False) -> Game:
    rng = random.Random(seed)
    deck, tokens = full_deck(g.edition), token_census(g)
    while not g.is_over:
        g.step(rng.choice(g.legal_actions()))
        if check:
            assert card_census(g) == deck
            assert token_census(g) == tokens
    return g


def test_replacing_tickets_and_merchandise_is_a_data_only_change(tmp_path: Any) -> None:
    merch = {"berlin": [9, 8], "konstanz": [5, 5, 5], "emden": [1]}
    path = tmp_path / "my-marklin.json"
    path.write_text(json.dumps(custom_raw(tickets=TEST_TICKETS, merchandise=merch)), encoding="utf-8")
    ed = get_edition(str(path))
    assert len(ed.tickets) == 12 and ed.ticket_decks == ("long", "short")
    g = play_random(Game(ed, 3, 4), 4, check=True)
    assert token_census(g) == Counter([9, 8, 5, 5, 5, 1])
    held = {ed.tickets[t].id for ts in g.tickets for t in ts}
    assert held and held <= {t["id"] for t in TEST_TICKETS}
    assert Game.replay(g.record(), ed).result() == g.result()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), players=st.integers(2, 5))
def test_every_card_and_token_is_accounted_for_in_random_games(seed: int, players: int) -> None:
    g = play_random(Game("marklin", players, seed), seed, check=True)
    assert sum(card_census(g).values()) == 118
    assert sum(token_census(g).values()) == 74 and sum(token_census(g).elements()) == 180
    assert all(len(ps) == 3 for ps in g.passengers)
    placed = [c for ps in g.passengers for c in ps if c >= 0]
    assert len(placed) == len(set(placed))
    res = g.result()
    for p, row in enumerate(res["players"]):
        assert row["merchandise"] == sum(g.tokens[p]) and row["longest_path_bonus"] == 0
    assert Game.replay(g.record()).result() == res


def test_random_games_exercise_passengers_and_passenger_cards() -> None:
    """The random games above do reach the Märklin actions: placements, trips with and without cards."""
    seen: Counter[str] = Counter()
    for seed in range(12):
        g = Game("marklin", 2 + seed % 4, seed)
        rng = random.Random(seed)
        while not g.is_over:
            a = rng.choice(g.legal_actions())
            g.step(a)
            if a.type == "place_passenger":
                seen["placed" if a.city else "declined"] += 1
            elif a.type == "move_passenger":
                seen["trip with cards" if a.cards[PASSENGER] else "trip"] += 1
            elif a.type == "claim" and a.cards[CARD_INDEX["locomotive_plus4"]]:
                seen["+4 paid"] += 1
        assert token_census(g) == token_census(Game("marklin", 2, 0))
    assert min(seen[k] for k in ("placed", "declined", "trip", "trip with cards", "+4 paid")) > 0, seen


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_ttr_simulate_marklin(players: int, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["simulate", "--edition", "marklin", "--players", str(players), "--games", "2", "--jobs", "1", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["games"] == 2 and len(summary["seat_win_rate"]) == players


def test_house_rule_options_round_trip_through_positions_and_records() -> None:
    options = {"passenger_one_token_per_city": False, "passenger_flush": 0, "all_lanes_min_players": 2}
    g = play_random(Game("marklin", 2, 8, options), 8)
    assert Game.from_dict(g.to_dict()) == g
    assert Game.replay(g.record()).result() == g.result()
    assert g.record()["options"] == options
