"""The gauntlet's sparring styles (racer, blocker, hoarder): each plays whole games on every edition,
and each does what its style says."""

from __future__ import annotations

from typing import Any

import pytest
from test_bots_play import play_checked

from ttr.bots import GAUNTLET, PERSONAS, make_bot
from ttr.bots.board import INF, map_info, route_weights, shortest_path
from ttr.bots.styles import BlockerBot, RacerBot
from ttr.engine import Game
from ttr.engine.phases import Phase

STYLES = ["racer", "blocker", "hoarder"]


def test_gauntlet_names_the_styles_and_the_personas() -> None:
    assert list(GAUNTLET) == [*STYLES, *PERSONAS]


@pytest.mark.parametrize(("edition", "players"), [("usa", 3), ("europe", 3), ("nordic", 3), ("marklin", 3)])
def test_styles_finish_every_edition(edition: str, players: int) -> None:
    game, kinds = play_checked(edition, STYLES[:players], 1)
    assert game.is_over and kinds["claim"] > 0
    if edition == "europe":  # tunnels are claimed and paid or declined
        assert kinds["tunnel_pay"] + kinds["tunnel_decline"] > 0


def play_recorded(edition: str, bots: list[str], seed: int) -> tuple[Game, list[tuple[int, str, Any, int]]]:
    """A game; for every claim: (seat, route id, the longest route length that seat could still claim, turn)."""
    game = Game(edition, len(bots), seed)
    players = [make_bot(b, seed=seed * 10 + i) for i, b in enumerate(bots)]
    info = map_info(game.edition)
    claims = []
    while not game.is_over:
        p = game.current
        view = game.view(p)
        action = players[p].act(view, game.legal_actions())
        if action.type == "claim":
            w = route_weights(info, view.route_owner, view.players, p, view.trains[p])
            top = max((info.length[r] for r in range(info.nroutes) if w[r] not in (0.0, INF)), default=0)
            claims.append((p, action.route, top, game.turn))
        game.step(action)
    return game, claims


def test_racer_claims_the_longest_routes_and_ends_early() -> None:
    game, claims = play_recorded("usa", ["racer", "planner"], 3)
    ed = game.edition
    mine = [(ed.routes[ed.route_index[rid]].length, top) for seat, rid, top, _ in claims if seat == 0]
    assert mine[0][0] == 6  # six-length routes from the start
    for length, top in mine:
        if top >= 4:
            assert length >= top - 1  # always the longest class open (or one below it)
    racer = game.result()["players"][0]
    assert racer["tickets_completed"] == 0 and len(racer["tickets"]) == 2  # the required two, abandoned
    assert racer["route_points"] >= 90
    assert game.turn <= 80


def test_racer_keeps_the_lowest_valued_tickets_and_never_draws_more() -> None:
    game = Game("usa", 2, 5)
    bot = make_bot("racer", seed=1)
    p = game.current
    view = game.view(p)
    ed = game.edition
    offered = sorted(ed.tickets[t].points for t in view.offered)
    action = bot.act(view, game.legal_actions())
    kept = sorted(ed.tickets[ed.ticket_index[t]].points for t in action.tickets or ())
    assert kept == offered[:2]
    _, kinds = play_checked("usa", ["racer", "racer"], 2)
    assert kinds["draw_tickets"] == 0


def test_racer_on_marklin_takes_the_fewest_long_tickets() -> None:
    _, kinds = play_checked("marklin", ["racer", "racer"], 4)
    assert kinds["draw_tickets"] == 2  # the two setup mixes only


def blocker_position(locomotives: int = 0) -> Game:
    """USA, 2 players, seat 0 to move: seat 1 owns the Los Angeles - New York path but for one link,
    Pittsburgh - Saint Louis; seat 0 holds `locomotives` more locomotives."""
    game = Game("usa", 2, 1)
    bots = [make_bot("route_focus", seed=i) for i in range(2)]
    while game.phase == Phase.SETUP:
        p = game.current
        game.step(bots[p].act(game.view(p), game.legal_actions()))
    ed = game.edition
    info = map_info(ed)
    t = ed.tickets[ed.ticket_index["los-angeles-new-york"]]
    _, path, _ = shortest_path(info, route_weights(info, [-1] * info.nroutes, 2, 1, 45), t.a_nodes, t.b_nodes)
    gap = ed.route_index["pittsburgh-saint-louis"]
    assert gap in path
    d = game.to_dict()
    d["routes"] = {ed.routes[r].id: 1 for r in path if r != gap}
    d["trains"][1] -= sum(info.length[r] for r in path if r != gap)
    d["current"] = 0
    for _ in range(locomotives):
        d["deck"].remove("locomotive")
        d["hands"][0]["locomotive"] = d["hands"][0].get("locomotive", 0) + 1
    return Game.from_dict(d)


def test_blocker_reads_likely_paths_from_public_play() -> None:
    game = blocker_position()
    ed = game.edition
    bot = BlockerBot(seed=1)
    s = bot.situation(game.view(0))
    # Seat 1's track joins Los Angeles to Saint Louis and reaches Pittsburgh - New York: its likely
    # tickets are those most of whose path is built (Los Angeles - Chicago, Chicago - Santa Fe,
    # Los Angeles - New York), all missing a link into Chicago or Pittsburgh.
    likely = {t.id for _, t, _, _ in bot.likely_tickets(s, 1)}
    assert "los-angeles-new-york" in likely and "los-angeles-chicago" in likely
    targets = bot.block_targets(s)
    # Chicago - Saint Louis: closing its one usable lane (2 players) costs a long detour;
    # Pittsburgh - Saint Louis has a cheap detour through Chicago and is not worth a turn.
    assert [ed.routes[r].id.split("/")[0] for r in targets] == ["chicago-saint-louis"]
    scores = bot.block_scores(s)
    assert scores[ed.route_index["pittsburgh-saint-louis"]] < scores[targets[0]] / 5
    # With no opponent track on the board there is nothing to infer.
    assert bot.block_scores(bot.situation(Game("usa", 2, 1).view(0))) == {}


def test_blocker_claims_the_block_when_it_can_pay() -> None:
    game = blocker_position(locomotives=2)
    action = make_bot("blocker", seed=1).act(game.view(0), game.legal_actions())
    assert action.type == "claim" and action.route is not None and action.route.startswith("chicago-saint-louis")


def test_hoarder_draws_many_tickets() -> None:
    hoarder, _ = play_checked("usa", ["hoarder", "racer"], 0)
    hungry, _ = play_checked("usa", ["destination_hungry", "racer"], 0)
    assert len(hoarder.tickets[0]) >= 6  # 2-3 kept at setup, then drawn again and again
    assert len(hoarder.tickets[0]) > len(hungry.tickets[0])


def test_racer_bot_class_is_the_registered_racer() -> None:
    assert isinstance(make_bot("racer"), RacerBot)
