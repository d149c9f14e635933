"""Rules the server sends to clients, computed by the engine (claim problems, ticket status with
stations and paths) so that no client re-implements them: they must agree with the engine's own moves
and scoring."""

from __future__ import annotations

import random

import pytest

from ttr.editions import Route
from ttr.engine import Game
from ttr.engine.actions import CLAIM
from ttr.engine.claims import lane_closed
from ttr.engine.payments import route_payments
from ttr.engine.phases import Phase


@pytest.mark.parametrize(
    ("edition", "players", "seed"), [("usa", 2, 1), ("usa", 4, 2), ("europe", 3, 3), ("nordic", 2, 4), ("marklin", 2, 5)]
)
def test_claim_problems_agree_with_the_legal_claims(edition: str, players: int, seed: int) -> None:
    game, rng = Game(edition, players, seed), random.Random(seed)
    checked = 0
    while not game.is_over:
        if game.phase == "turn":
            p = game.current
            claimable = {a.route for a in game.legal_actions() if a.type == CLAIM}
            problems = game.claim_problems(p)
            assert {r.id for r in game.edition.routes} - set(problems) == claimable
            checked += 1
        game.step(rng.choice(game.legal_actions()))
    assert checked > 20


def reference_problem(game: Game, route: Route, p: int) -> str | None:
    """The rule read plainly, one route at a time: who owns it, its lanes, p's trains, every payment of p's hand."""
    if game.route_owner[route.index] >= 0:
        return "claimed"
    if route.group >= 0 and lane_closed(game, route, p):
        return "own_lane" if any(game.route_owner[o] == p for o in game.edition.group_routes[route.group]) else "lane_closed"
    if game.trains[p] < route.length:
        return "trains"
    return None if route_payments(route, game.hands[p], game.rules) else "cards"


@pytest.mark.parametrize(
    ("edition", "players", "seed"), [("usa", 3, 11), ("europe", 4, 12), ("nordic", 3, 13), ("marklin", 4, 14)]
)
def test_claim_problems_of_every_seat_match_the_rule_read_route_by_route(edition: str, players: int, seed: int) -> None:
    """claim_problems reads payability from the cached legal claims; for every seat (not only the one to act),
    after every action, it must give each route the code of the plain reading."""
    game, rng = Game(edition, players, seed), random.Random(seed)
    while not game.is_over:
        for p in range(players):
            problems = game.claim_problems(p)
            expected = {r.id: reference_problem(game, r, p) for r in game.edition.routes}
            assert {rid: why["code"] for rid, why in problems.items()} == {k: v for k, v in expected.items() if v}
            assert game.claim_problem_codes(p) == {k: v for k, v in expected.items() if v}  # what the server sends
        game.step(rng.choice(game.legal_actions()))


def test_double_route_of_group_zero_gets_the_lane_reason() -> None:
    """The client once treated double-route group 0 as "no group" (atlanta-new-orleans on USA)."""
    game = Game("usa", 2, 1)
    ed = game.edition
    first = ed.routes[ed.route_index["atlanta-new-orleans/1"]]
    assert first.group == 0
    game.route_owner[first.index] = 1
    game._labels = [None, None]
    assert game.claim_problems(0)["atlanta-new-orleans/2"] == {"code": "lane_closed", "players": 2, "all_lanes_min_players": 4}
    assert game.claim_problems(1)["atlanta-new-orleans/2"] == {"code": "own_lane"}


@pytest.mark.parametrize(("edition", "players", "seed"), [("usa", 3, 7), ("europe", 2, 8), ("europe", 4, 9), ("marklin", 3, 10)])
def test_ticket_report_matches_final_scoring(edition: str, players: int, seed: int) -> None:
    game, rng = Game(edition, players, seed), random.Random(seed)
    while not game.is_over:
        game.step(rng.choice(game.legal_actions()))
    result = game.result()
    for p in range(players):
        report = game.ticket_report(p)
        scored = result["players"][p]["tickets"]
        assert [t["id"] for t in report] == [t["id"] for t in scored]
        assert [t["status"] != "open" for t in report] == [t["completed"] for t in scored]
        routes = {r.id: r for r in game.edition.routes}
        for t in report:
            assert bool(t["path"]) == (t["status"] != "open")
            for rid in t["path"]:
                owner = game.route_owner[routes[rid].index]
                assert owner == p or t["status"] == "station"


def test_served_rules_carry_the_tie_break_explanation_once_over() -> None:
    """The state payload (server.service.served_rules) explains ties from the engine; the client only words it."""
    from ttr.server.service import served_rules

    game = Game("europe", 2, 0)
    assert served_rules(game, 0)["tie_breaks"] == []  # not over: nothing to explain
    game.phase = Phase.OVER
    game.route_owner[game.edition.route_index["essen-frankfurt"]] = 0
    game.route_owner[game.edition.route_index["sarajevo-sofia"]] = 1
    game.tickets = [[], []]
    game.reset_caches()
    served = served_rules(game, None)["tie_breaks"]
    assert served == game.tie_breaks() and len(served) == 1
    assert served[0]["players"] == [0, 1] and served[0]["total"] == game.result()["players"][0]["total"]
