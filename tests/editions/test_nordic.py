"""Ticket to Ride: Nordic Countries, rule by rule (RULES.md §3), and payment properties for every route.

The payment properties compare the engine with an independent brute-force statement of the rules
(`valid_by_enumeration`, `affordable_by_enumeration`), so canonical payments, explicit payments and
refusals are all checked against the rule text rather than against the engine's own arithmetic.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from math import comb

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
    ticket_total,
    tunnel_pay,
)
from ttr.cards import COLOURS, GRAY, LOCOMOTIVE, PASSENGER, PLUS4, Cards
from ttr.cli import main as cli_main
from ttr.editions import Route, Rules, get_edition, parse_edition
from ttr.engine import Action, Game
from ttr.engine.payments import route_payment_problem, route_payments
from ttr.errors import SetupError
from ttr.notation import format_cards

MURMANSK = "lieksa-murmansk"
DECLINE = Action("tunnel_decline")


def ids(g: Game, tickets: list[int]) -> list[str]:
    return [g.edition.tickets[t].id for t in tickets]


def owner(g: Game, route: str) -> int:
    return g.route_owner[g.edition.route_index[route]]


def claim_payments(g: Game, route: str) -> set[Cards]:
    return {a.cards for a in g.legal_actions() if a.type == "claim" and a.route == route and a.cards}


# ---------------------------------------------------------------- setup and tickets


@pytest.mark.parametrize("players", [1, 4, 5])
def test_only_two_or_three_players(players: int) -> None:
    with pytest.raises(SetupError, match="2-3 players") as info:
        Game("nordic", players, 0)
    assert info.value.code == "player_count"


@pytest.mark.parametrize("players", [2, 3])
def test_setup_forty_trains_110_cards_five_tickets_keep_two(players: int) -> None:
    g = Game("nordic", players, seed=players)
    assert g.trains == [40] * players and g.stations_left == [0] * players
    assert sum(g.edition.deck) == 110 and g.edition.deck[LOCOMOTIVE] == 14
    assert all(g.edition.deck[c] == 12 for c in range(8))
    assert [len(o) for o in g.offered] == [5] * players
    assert len(g.legal_actions()) == sum(comb(5, k) for k in range(2, 6))
    offered = ids(g, g.offered[g.current])
    refused(g, keep(offered[0]), "keep_too_few", "keep at least 2")
    g.apply(keep(*offered[:2]))
    while g.phase == "setup":  # the returns leave the game when every seat has chosen
        g.apply(g.legal_actions()[-1])
    assert sorted(ids(g, g.removed_tickets)) == sorted(offered[2:])
    assert not set(offered[2:]) & set(ids(g, g.ticket_decks["regular"]))


def test_returned_tickets_are_gone_for_good() -> None:
    g = Game("nordic", 2, seed=21)
    gone: set[str] = set()
    while g.phase == "setup":
        offered = ids(g, g.offered[g.current])
        g.apply(keep(*offered[:2]))
        gone |= set(offered[2:])
    at_setup = set(gone)
    seen: list[str] = []
    while any(a.type == "draw_tickets" for a in g.legal_actions()):
        g.apply(Action("draw_tickets"))
        offered = ids(g, g.offered[g.current])
        assert len(offered) == min(3, len(offered) + len(g.ticket_decks["regular"]))
        refused(g, keep(), "keep_too_few", "keep at least 1")
        g.apply(keep(offered[0]))  # return the others: out of the game
        seen += offered
        gone |= set(offered[1:])
        assert gone == set(ids(g, g.removed_tickets))
        assert ticket_total(g) == 46
    assert len(seen) == 46 - 10 and len(set(seen)) == len(seen)  # each ticket offered once: none came back
    assert not at_setup & set(seen)
    assert not g.ticket_decks["regular"]


# ---------------------------------------------------------------- locomotives


def test_locomotives_are_not_wild_on_ordinary_routes() -> None:
    g = scenario(
        """
        nordic 3p
        p0 hand 2yellow+1green+6L
        current 0
        """
    )
    refused(g, claim("oslo-orebro/1", green=1, locomotive=1), "bad_payment", "only on ferries and tunnels")
    refused(g, claim("oslo-orebro/1", locomotive=2), "bad_payment", "only on ferries and tunnels")
    assert claim_payments(g, "oslo-orebro/1") == set()
    assert claim_payments(g, "oslo-orebro/2") == {cards(yellow=2)}
    ed = g.edition
    for a in g.legal_actions():
        if a.type == "claim":
            route = ed.routes[ed.route_index[a.route]]
            if not (route.tunnel or route.ferry) and a.cards:
                assert a.cards[LOCOMOTIVE] == 0, a
    g.apply(claim("oslo-orebro/2", yellow=2))
    assert owner(g, "oslo-orebro/2") == 0


def test_locomotives_are_wild_on_tunnels_and_ferries() -> None:
    g = scenario(
        """
        nordic 3p
        p0 hand 1purple+6L
        deck red, green, yellow
        current 0
        """
    )
    assert claim_payments(g, "lillehammer-oslo") == {cards(purple=1, locomotive=1), cards(locomotive=2)}
    g.apply(claim("lillehammer-oslo", locomotive=2))
    assert owner(g, "lillehammer-oslo") == 0


def test_a_face_up_locomotive_is_one_card_and_two_may_be_taken() -> None:
    g = scenario(
        """
        nordic 2p
        hands none
        market L, L, red, blue, green
        deck yellow, white
        current 0
        """
    )
    g.apply(Action("draw_faceup", slot=0))
    assert g.phase == "second_card" and g.current == 0
    assert Action("draw_faceup", slot=1) in g.legal_actions()
    g.apply(Action("draw_faceup", slot=1))
    assert hand_of(g, 0) == {"locomotive": 2} and g.current == 1
    assert [COLOURS[c] for c in g.market] == ["yellow", "white", "red", "blue", "green"]


@pytest.mark.parametrize("locos_after", [3, 4, 5])
def test_no_flush_however_many_face_up_locomotives(locos_after: int) -> None:
    market = ["L"] * (locos_after - 1) + ["red"] + ["blue"] * (5 - locos_after)
    g = scenario(
        f"""
        nordic 2p
        hands none
        market {", ".join(market)}
        deck L
        current 0
        """
    )
    slot = market.index("red")
    events = g.apply(Action("draw_faceup", slot=slot))
    assert not [e for e in events if e.type == "market_flush"]
    assert g.market.count(LOCOMOTIVE) == locos_after and not g.discard


# ---------------------------------------------------------------- ferries


FERRY_CASES = [
    # bergen-stavanger: purple, 2 spaces, 1 locomotive icon
    ("bergen-stavanger", {"purple": 1, "locomotive": 1}, True),
    ("bergen-stavanger", {"locomotive": 2}, True),  # an extra locomotive replaces the purple card
    ("bergen-stavanger", {"purple": 1, "red": 2, "blue": 1}, True),  # any 3 cards replace the locomotive
    ("bergen-stavanger", {"purple": 1, "red": 1, "blue": 1, "locomotive": 1}, True),  # locomotives may be among the 3
    ("bergen-stavanger", {"purple": 4}, True),  # 3 purple cards as the replacement set
    ("bergen-stavanger", {"locomotive": 4}, True),
    ("bergen-stavanger", {"purple": 2}, False),  # no locomotive and no set of 3
    ("bergen-stavanger", {"purple": 1, "red": 2}, False),  # a set of 2 replaces nothing
    ("bergen-stavanger", {"red": 1, "locomotive": 1}, False),  # the coloured part must be purple
    ("bergen-stavanger", {"purple": 1, "red": 6}, False),  # only 1 locomotive can be replaced
    # honningsvag-tromso: purple, 4 spaces, 2 icons
    ("honningsvag-tromso", {"purple": 2, "locomotive": 2}, True),
    ("honningsvag-tromso", {"purple": 2, "locomotive": 1, "red": 3}, True),
    ("honningsvag-tromso", {"purple": 2, "red": 3, "green": 3}, True),  # both locomotives replaced
    ("honningsvag-tromso", {"purple": 1, "locomotive": 3}, True),
    ("honningsvag-tromso", {"purple": 1, "locomotive": 2, "red": 3}, True),
    ("honningsvag-tromso", {"locomotive": 4}, True),
    ("honningsvag-tromso", {"purple": 3, "locomotive": 1}, False),
    ("honningsvag-tromso", {"purple": 2, "red": 9}, False),
    ("honningsvag-tromso", {"purple": 1, "red": 1, "locomotive": 2}, False),
    # umea-vaasa: gray, 1 space, 1 icon
    ("umea-vaasa", {"locomotive": 1}, True),
    ("umea-vaasa", {"red": 3}, True),
    ("umea-vaasa", {"red": 1, "blue": 1, "yellow": 1}, True),
    ("umea-vaasa", {"red": 1}, False),
    ("umea-vaasa", {"red": 2}, False),
    # kirkenes-murmansk: white, 3 spaces, 1 icon; extra locomotives replace white cards
    ("kirkenes-murmansk", {"white": 1, "locomotive": 2}, True),
    ("kirkenes-murmansk", {"locomotive": 3}, True),
    ("kirkenes-murmansk", {"white": 2, "red": 2, "locomotive": 1}, True),
    ("kirkenes-murmansk", {"white": 1, "red": 1, "locomotive": 1}, False),
    # helsinki-stockholm/1: gray, 4 spaces, 2 icons
    ("helsinki-stockholm/1", {"orange": 2, "locomotive": 2}, True),
    ("helsinki-stockholm/1", {"orange": 2, "black": 3, "white": 3}, True),
    ("helsinki-stockholm/1", {"orange": 1, "black": 1, "locomotive": 2}, False),
]


@pytest.mark.parametrize(("route", "payment", "ok"), FERRY_CASES)
def test_ferry_payments_with_substitutions(route: str, payment: dict[str, int], ok: bool) -> None:
    g = scenario(f"nordic 3p\np0 hand {format_cards(cards(**payment))}\ncurrent 0")
    action = claim(route, **payment)
    assert g.is_legal(action) == ok
    if ok:
        g.apply(action)
        assert owner(g, route) == 0 and hand_of(g, 0) == {}
        assert g.scores[0] == g.edition.routes[g.edition.route_index[route]].points
    else:
        refused(g, action, "bad_payment", route)


def test_ferry_canonical_payments_and_an_explicit_other_one() -> None:
    g = scenario(
        """
        nordic 3p
        p0 hand 2red+1blue+1L
        current 0
        """
    )
    # the locomotive, or 3 cards for it (the fixed fill: fewest-held colours first)
    assert claim_payments(g, "umea-vaasa") == {cards(locomotive=1), cards(red=2, blue=1)}
    explicit = claim("umea-vaasa", red=1, blue=1, locomotive=1)
    assert explicit not in g.legal_actions() and g.is_legal(explicit)
    g.apply(explicit)
    assert hand_of(g, 0) == {"red": 1} and owner(g, "umea-vaasa") == 0


# ---------------------------------------------------------------- Murmansk–Lieksa

MURMANSK_CASES = [
    ({"green": 9}, True),
    ({"green": 7, "red": 4, "blue": 4}, True),  # the seed's example: 7 green + 8 other cards
    ({"green": 8, "locomotive": 4}, True),  # locomotives inside a set of 4
    ({"green": 8, "red": 1, "locomotive": 3}, True),
    ({"green": 9, "red": 3}, True),  # 8 green + (1 green + 3 red)
    ({"green": 1, "red": 12, "blue": 11, "yellow": 8}, False),  # 32 cards: not 9 + 3k
    ({"red": 12, "blue": 12, "yellow": 12}, True),  # the upper limit: 9 sets of 4, no colour needed
    ({"red": 12, "blue": 12, "yellow": 12, "white": 3}, False),  # 39 cards: more than 9 sets
    ({"green": 8, "locomotive": 1}, False),  # a locomotive alone is not wild here
    ({"locomotive": 9}, False),
    ({"green": 10}, False),
    ({"green": 8}, False),
    ({"green": 6, "red": 12}, True),  # 6 green + 3 sets
    ({"green": 6, "red": 11}, False),
]


@pytest.mark.parametrize(("payment", "ok"), MURMANSK_CASES)
def test_murmansk_lieksa_payments_at_the_limits(payment: dict[str, int], ok: bool) -> None:
    g = scenario(f"nordic 3p\np0 hand {format_cards(cards(**payment))}\nmarket -, -, -, -, -\ncurrent 0")
    action = claim(MURMANSK, **payment)
    assert g.is_legal(action) == ok
    if ok:
        g.apply(action)
        assert owner(g, MURMANSK) == 0 and g.scores[0] == 27 and g.trains[0] == 31
        assert hand_of(g, 0) == {}
    else:
        reason = refused(g, action, "bad_payment", MURMANSK).reason
        if payment.get("locomotive") and sum(payment.values()) % 3 == 0:
            assert "locomotives count only inside sets of 4" in reason


def test_murmansk_lieksa_canonical_payments() -> None:
    g = scenario(
        """
        nordic 3p
        p0 hand 3red+7green+5blue+3L
        current 0
        """
    )
    # green with 2 sets (7 + 8) and 3 sets (6 + 12); no other colour has enough cards
    assert claim_payments(g, MURMANSK) == {cards(green=7, red=3, blue=5), cards(green=7, red=3, blue=5, locomotive=3)}
    explicit = claim(MURMANSK, green=7, blue=5, locomotive=3)
    assert g.is_legal(explicit) and explicit not in g.legal_actions()


def test_murmansk_lieksa_needs_nine_trains() -> None:
    g = scenario(
        """
        nordic 3p
        p0 hand 9green
        current 0
        trains 8, 40, 40
        """
    )
    refused(g, claim(MURMANSK, green=9), "route_unavailable", "needs 9 trains")
    assert claim_payments(g, MURMANSK) == set()


def test_route_points_table_includes_nine_for_27() -> None:
    table = {1: 1, 2: 2, 3: 4, 4: 7, 5: 10, 6: 15, 9: 27}
    ed = get_edition("nordic")
    assert {r.length for r in ed.routes} == set(table)
    assert all(r.points == table[r.length] for r in ed.routes)


# ---------------------------------------------------------------- tunnels (as in Europe)


def test_tunnel_locomotive_revealed_costs_a_card_of_the_colour_or_a_locomotive() -> None:
    g = scenario(
        """
        nordic 3p
        p0 hand 3purple+1L
        deck purple, L, red
        current 0
        """
    )
    g.apply(claim("lillehammer-oslo", purple=2))
    assert g.phase == "tunnel" and g.tunnel is not None and g.tunnel[3] == 2
    assert {a.cards for a in g.legal_actions() if a.type == "tunnel_pay"} == {cards(purple=1, locomotive=1)}
    g.apply(tunnel_pay(purple=1, locomotive=1))
    assert owner(g, "lillehammer-oslo") == 0 and hand_of(g, 0) == {}


def test_all_locomotive_tunnel_needs_locomotives_for_revealed_locomotives() -> None:
    g = scenario(
        """
        nordic 3p
        p0 hand 3purple+2L
        deck purple, L, red
        current 0
        """
    )
    g.apply(claim("lillehammer-oslo", locomotive=2))
    assert g.tunnel is not None and g.tunnel[3] == 1
    assert g.legal_actions() == (DECLINE,)
    refused(g, tunnel_pay(purple=1), "bad_payment", "must be locomotives")
    g.apply(DECLINE)
    assert hand_of(g, 0) == {"purple": 3, "locomotive": 2} and owner(g, "lillehammer-oslo") == -1
    assert card_total(g) == list(g.edition.deck)


# ---------------------------------------------------------------- double routes


@pytest.mark.parametrize("players", [2, 3])
def test_double_routes_both_lanes_only_with_three_players(players: int) -> None:
    g = scenario(
        f"""
        nordic {players}p
        p0 hand 2purple
        p1 hand 2purple
        p0 routes stockholm-orebro/1
        current 1
        """
    )
    other = claim("stockholm-orebro/2", purple=2)
    if players == 3:
        g.apply(other)
        assert owner(g, "stockholm-orebro/2") == 1
    else:
        assert "stockholm-orebro/2" not in {a.route for a in g.legal_actions()}
        refused(g, other, "route_unavailable", "only one lane")
    mine = scenario(
        """
        p0 hand 2purple
        p0 routes stockholm-orebro/1
        current 0
        """,
        g,
    )
    refused(mine, other, "route_unavailable", "already own a lane")


@pytest.mark.parametrize("players", [2, 3])
def test_asymmetric_double_tunnel_beside_ferry(players: int) -> None:
    # Kristiansand–Stavanger: a green tunnel of 2 beside an orange ferry of 3 with one icon
    g = scenario(
        f"""
        nordic {players}p
        p0 hand 2green
        p1 hand 2orange+1L
        deck red, red, red
        current 0
        """
    )
    g.apply(claim("kristiansand-stavanger/1", green=2))
    assert owner(g, "kristiansand-stavanger/1") == 0 and g.current == 1
    ferry = claim("kristiansand-stavanger/2", orange=2, locomotive=1)
    if players == 3:
        assert ferry in g.legal_actions()
        g.apply(ferry)
        assert owner(g, "kristiansand-stavanger/2") == 1 and g.scores[1] == 4
    else:
        refused(g, ferry, "route_unavailable", "only one lane")
    # and the other way round: the ferry first, then the tunnel
    g = scenario(
        f"""
        nordic {players}p
        p0 hand 2green
        p1 hand 2orange+1L
        p1 routes kristiansand-stavanger/2
        deck red, red, red
        current 0
        """
    )
    assert (claim("kristiansand-stavanger/1", green=2) in g.legal_actions()) == (players == 3)


# ---------------------------------------------------------------- scoring


def rows(g: Game) -> list[dict]:
    return g.result()["players"]


OSLO_STOCKHOLM = "oslo-orebro/1, stockholm-orebro/1"  # 2 + 2 spaces, completes Oslo–Stockholm


def test_no_longest_path_bonus() -> None:
    g = scenario(
        f"""
        nordic 2p
        p0 routes {OSLO_STOCKHOLM}, sundsvall-orebro
        p1 routes boden-tornio
        tickets none
        """
    )
    r = rows(g)
    assert r[0]["longest_path"] == 6 and r[1]["longest_path"] == 1  # Örebro joins three routes: 2 + 4
    assert r[0]["longest_path_bonus"] == 0 and r[0]["total"] == 2 + 2 + 7


def test_globetrotter_to_the_single_leader() -> None:
    g = scenario(
        """
        nordic 2p
        p0 routes oslo-orebro/1, stockholm-orebro/1
        p0 tickets oslo-stockholm
        p1 tickets oslo-kobenhavn
        """
    )
    r = rows(g)
    assert [x["tickets_completed"] for x in r] == [1, 0]
    assert [x["most_tickets_bonus"] for x in r] == [10, 0]
    assert r[0]["total"] == 4 + 4 + 10 and r[1]["total"] == -4


def test_globetrotter_ties_all_get_it() -> None:
    g = scenario(
        f"""
        nordic 3p
        p0 routes {OSLO_STOCKHOLM}
        p1 routes goteborg-oslo, goteborg-kobenhavn
        p0 tickets oslo-stockholm, narvik-murmansk
        p1 tickets oslo-kobenhavn
        p2 tickets tampere-tallinn
        """
    )
    r = rows(g)
    assert [x["tickets_completed"] for x in r] == [1, 1, 0]
    assert [x["most_tickets_bonus"] for x in r] == [10, 10, 0]


def test_tie_broken_by_completed_tickets() -> None:
    # player 0: 4 route points, +4 -4 in tickets, Globetrotter 10 = 14; player 1: 7 + 7 route points = 14
    g = scenario(
        f"""
        nordic 2p
        p0 routes {OSLO_STOCKHOLM}
        p1 routes kuopio-vaasa, sundsvall-orebro
        p0 tickets oslo-stockholm, oslo-kobenhavn
        """
    )
    r = rows(g)
    assert r[0]["total"] == r[1]["total"] == 14
    assert [x["rank"] for x in r] == [1, 2] and g.result()["winners"] == [0]


def test_tie_broken_by_longest_path_length_then_shared() -> None:
    g = scenario(
        f"""
        nordic 2p
        p0 routes {OSLO_STOCKHOLM}
        p1 routes boden-tornio, helsinki-lahti, kajaani-lieksa, norrkoping-stockholm/1
        tickets none
        """
    )
    r = rows(g)
    assert r[0]["total"] == r[1]["total"] == 4 and r[0]["longest_path"] == 4 and r[1]["longest_path"] == 1
    assert [x["rank"] for x in r] == [1, 2]
    g = scenario(
        """
        nordic 2p
        p0 routes oslo-orebro/1, goteborg-kobenhavn
        p1 routes boden-tornio, rovaniemi-tornio, helsinki-lahti, lahti-tampere    # two paths of 2
        tickets none
        """
    )
    r = rows(g)
    assert r[0]["total"] == r[1]["total"] == 4 and r[0]["longest_path"] == r[1]["longest_path"] == 2
    assert g.result()["winners"] == [0, 1]


# ---------------------------------------------------------------- payments against the rule text


def valid_by_enumeration(route: Route, pay: Cards, rules: Rules) -> bool:
    """Whether `pay` pays for `route`, by trying every role each card could play (RULES.md §1–§3)."""
    if pay[PASSENGER] or pay[PLUS4]:
        return False
    total, locos = sum(pay), pay[LOCOMOTIVE]
    colours = range(8) if route.colour == GRAY else (route.colour,)
    wild = rules.locomotives_wild == "all" or route.tunnel or route.ferry > 0
    if route.substitute:  # `needed` cards of colour c (or wild), then sets of `s` any cards
        s, wild_here = route.substitute, rules.locomotives_wild == "all"
        return any(
            total - (route.length - k) == s * k and a + w == route.length - k
            for c in colours
            for k in range(route.length + 1)
            for a in range(pay[c] + 1)
            for w in range((locos if wild_here else 0) + 1)
        )
    if route.ferry and rules.ferry_substitute_cards:  # icons: a locomotive or `s` any cards each
        s, rest = rules.ferry_substitute_cards, route.length - route.ferry
        return any(
            a + w == rest and route.ferry - k + w <= locos and total - (route.ferry - k) - rest == s * k
            for c in colours
            for k in range(route.ferry + 1)
            for a in range(min(pay[c], rest) + 1)
            for w in range(locos + 1)
        )
    if total != route.length or (locos and not wild):
        return False
    used = [c for c in range(8) if pay[c]]
    return len(used) <= 1 and all(c in colours for c in used) and locos >= route.ferry


def affordable_by_enumeration(route: Route, hand: Cards, rules: Rules) -> bool:
    """Whether `hand` holds some payment for `route`, trying every split of its cards into roles."""
    total, locos = sum(hand), hand[LOCOMOTIVE]
    colours = range(8) if route.colour == GRAY else (route.colour,)
    if route.substitute:
        s, wild_here = route.substitute, rules.locomotives_wild == "all"
        return any(
            a + w == route.length - k and total - a - w >= s * k
            for c in colours
            for k in range(route.length + 1)
            for a in range(hand[c] + 1)
            for w in range((locos if wild_here else 0) + 1)
        )
    if route.ferry and rules.ferry_substitute_cards:
        s, rest = rules.ferry_substitute_cards, route.length - route.ferry
        return any(
            a + w == rest and route.ferry - k + w <= locos and total - a - (route.ferry - k + w) >= s * k
            for c in colours
            for k in range(route.ferry + 1)
            for a in range(min(hand[c], rest) + 1)
            for w in range(locos + 1)
        )
    wild = rules.locomotives_wild == "all" or route.tunnel or route.ferry > 0
    return any(
        a + w == route.length and w >= route.ferry
        for c in colours
        for a in range(hand[c] + 1)
        for w in range((locos if wild else 0) + 1)
    )


ROUTES = {ed: list(get_edition(ed).routes) for ed in ("nordic", "europe")}
SPECIAL = [r for r in ROUTES["nordic"] if r.ferry or r.tunnel or r.substitute]


def hands(max_colour: int, max_loco: int) -> st.SearchStrategy[Cards]:
    return st.tuples(*[st.integers(0, max_colour)] * 8, st.integers(0, max_loco)).map(lambda t: (*t, 0, 0))


@st.composite
def route_and_payment(draw: st.DrawFn) -> tuple[str, Route, Cards]:
    """A payment built by the rules (a colour part, locomotives, sets of any cards), then often
    nudged by one card (added, removed or changed), so that both sides of every limit are drawn."""
    ed = draw(st.sampled_from(["nordic", "europe"]))
    route = draw(st.sampled_from(SPECIAL if ed == "nordic" and draw(st.booleans()) else ROUTES[ed]))
    rules = get_edition(ed).rules
    kind = st.integers(0, 8)
    pay = [0] * 11
    colour = draw(st.integers(0, 7)) if route.colour == GRAY else route.colour
    if route.substitute:
        sets = draw(st.integers(0, route.length))
        coloured, icons, any_cards = route.length - sets, 0, route.substitute * sets
    elif route.ferry and rules.ferry_substitute_cards:
        replaced = draw(st.integers(0, route.ferry))
        coloured, icons = route.length - route.ferry, route.ferry - replaced
        any_cards = rules.ferry_substitute_cards * replaced
    else:
        coloured, icons, any_cards = route.length - route.ferry, route.ferry, 0
    wild = draw(st.integers(0, coloured))
    pay[colour] += coloured - wild
    pay[LOCOMOTIVE] += wild + icons
    for _ in range(any_cards):
        pay[draw(kind)] += 1
    nudge = draw(st.sampled_from(["none", "add", "remove", "change"]))
    if nudge in ("add", "change"):
        pay[draw(kind)] += 1
    if nudge in ("remove", "change"):
        held = [i for i, k in enumerate(pay) if k]
        pay[draw(st.sampled_from(held))] -= 1
    return ed, route, tuple(pay)


@settings(max_examples=1500, deadline=None)
@given(route_and_payment())
def test_named_payments_are_judged_as_the_rules_say(case: tuple[str, Route, Cards]) -> None:
    ed, route, pay = case
    rules = get_edition(ed).rules
    problem = route_payment_problem(route, pay, rules)
    assert (problem is None) == valid_by_enumeration(route, pay, rules), problem
    if problem is not None:
        assert route.id in problem or "locomotive" in problem or "colour" in problem
    elif not route.substitute and not (route.ferry and rules.ferry_substitute_cards):
        # without "any" cards a payment is fixed by its colour and wild count: all are listed
        assert pay in route_payments(route, [k + 2 for k in pay[:9]] + [0, 0], rules)


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_canonical_payments_are_valid_and_exist_whenever_a_payment_does(data: st.DataObject) -> None:
    ed = data.draw(st.sampled_from(["nordic", "europe"]))
    route = data.draw(st.sampled_from(SPECIAL if ed == "nordic" else ROUTES[ed]))
    rules = get_edition(ed).rules
    hand = data.draw(hands(12 if route.substitute else 4, 5))
    exists = affordable_by_enumeration(route, hand, rules)
    canonical = route_payments(route, hand, rules)
    assert len(canonical) == len(set(canonical))
    for pay in canonical:
        assert all(p <= h for p, h in zip(pay, hand, strict=True))
        assert route_payment_problem(route, pay, rules) is None
        assert valid_by_enumeration(route, pay, rules)
    assert bool(canonical) == exists


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_the_engine_offers_and_accepts_every_canonical_payment(data: st.DataObject) -> None:
    route = data.draw(st.sampled_from(SPECIAL))
    hand = data.draw(hands(12 if route.substitute else 4, 5))
    g = scenario(f"nordic 3p seed 1\np0 hand {format_cards(hand)}\nmarket -, -, -, -, -\ncurrent 0")
    offered = {a.cards for a in g.legal_actions() if a.type == "claim" and a.route == route.id}
    assert offered == set(route_payments(route, hand, g.rules))
    for pay in offered:
        copy = g.clone()
        copy.apply(Action("claim", route=route.id, cards=pay))
        assert copy.route_owner[route.index] == 0 or copy.phase == "tunnel"
        assert card_total(copy) == list(copy.edition.deck)


def test_legal_actions_stay_finite_with_every_card_in_one_hand() -> None:
    g = scenario(
        """
        nordic 3p
        hands none
        market -, -, -, -, -
        rest p0
        current 0
        """
    )
    assert sum(g.hands[0]) == 110
    legal = g.legal_actions()
    per_route = Counter(a.route for a in legal if a.type == "claim")
    assert per_route[MURMANSK] <= 8 * 10  # one per colour and number of sets
    assert max(per_route.values()) <= 80 and len(legal) < 1000
    assert_claims_pay_validly(g, legal)


# ---------------------------------------------------------------- whole games


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), players=st.integers(2, 3))
def test_random_games_conserve_cards_hide_secrets_and_replay(seed: int, players: int) -> None:
    g = Game("nordic", players, seed)
    rng = random.Random(seed)
    step = 0
    while not g.is_over:
        legal = g.legal_actions()
        if step % 5 == 0:
            for a, route in assert_claims_pay_validly(g, legal):
                if not (route.ferry or route.tunnel or route.substitute):
                    assert a.cards[LOCOMOTIVE] == 0
            assert card_total(g) == list(g.edition.deck) and ticket_total(g) == 46
            assert_views_hide_tickets(g)
        g.apply(rng.choice(legal))
        step += 1
    assert card_total(g) == list(g.edition.deck) and ticket_total(g) == 46
    assert_round_trips(g)
    res = g.result()
    top = max(r["tickets_completed"] for r in res["players"])
    for r in res["players"]:
        assert r["longest_path_bonus"] == 0 and r["unused_station_points"] == 0
        assert r["most_tickets_bonus"] == (10 if top and r["tickets_completed"] == top else 0)


def test_cli_simulate_nordic_three_players(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["simulate", "--edition", "nordic", "--players", "3", "--games", "3", "--jobs", "1", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["games"] == 3 and len(summary["seat_win_rate"]) == 3


def test_cli_simulate_nordic_refuses_four_players(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["simulate", "--edition", "nordic", "--players", "4", "--games", "1", "--jobs", "1"]) == 2
    assert "2-3 players" in capsys.readouterr().err


def test_nordic_conserves_during_a_pending_tunnel() -> None:
    g = scenario(
        """
        nordic 3p
        p0 hand 6green
        deck green, green, L
        current 0
        """
    )
    g.apply(claim("mo-i-rana-trondheim/1", green=5))
    assert g.phase == "tunnel" and card_total(g) == list(g.edition.deck)
    assert g.legal_actions() == (DECLINE,)  # 3 more green asked, 1 left


def test_maps_parsed_one_after_another_never_share_legal_moves() -> None:
    """Editions built at run time (house rules, user maps) come and go; each game must offer exactly
    its own map's routes even when a freed edition's memory is reused for the next one."""
    base = get_edition("nordic").raw
    for i in range(60):
        raw = {**base, "routes": [r for j, r in enumerate(base["routes"]) if j % 2 == i % 2]}
        ed = parse_edition(raw, f"half {i % 2} of nordic, copy {i}")
        g = scenario("p0 hand 3red+3orange+3yellow+3green+3blue+3purple+3white+3black+4L\ncurrent 0", started(ed, 2, i))
        routes = {a.route for a in g.legal_actions() if a.type == "claim"}
        assert routes and routes <= set(ed.route_index)
        del g, ed  # freed at once (no cycles): the next edition may take the same memory
