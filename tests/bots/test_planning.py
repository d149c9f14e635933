"""The bots' building blocks: shortest paths, the network plan, the game clock, card needs,
memory of opponents' cards and the determinization used by the search bot."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ttr.bots import make_bot
from ttr.bots.board import INF, completion_chance, components, map_info, plan_network, route_weights, shortest_path
from ttr.bots.determinize import determinize
from ttr.bots.memory import Memory
from ttr.bots.situation import Situation, turns_left
from ttr.bots.tactics import card_needs, trip_value, tunnel_spare
from ttr.cards import CARD_INDEX, LOCOMOTIVE, NCARDS
from ttr.editions import get_edition
from ttr.engine import Game


def connected(info, routes, ticket) -> bool:
    owner = [-1] * info.nroutes
    for r in routes:
        owner[r] = 0
    labels = components(info, owner, 0)
    return any(labels[a] == labels[b] for a in ticket.a_nodes for b in ticket.b_nodes)


@pytest.mark.parametrize("edition", ["usa", "europe", "nordic", "marklin"])
def test_plan_connects_every_ticket_it_serves(edition: str) -> None:
    ed = get_edition(edition)
    info = map_info(ed)
    weights = route_weights(info, [-1] * info.nroutes, 2, 0, 45)
    rng = random.Random(1)
    for _ in range(20):
        tickets = rng.sample(ed.tickets, 4)
        plan = plan_network(info, weights, tickets, 45)
        assert plan.trains == sum(info.length[r] for r in plan.routes) <= 45
        assert len(set(plan.routes)) == len(plan.routes)
        for t in tickets:
            assert t.index in plan.open or t.index in plan.dropped
            if t.index in plan.open:
                assert connected(info, plan.routes, t)


def test_shortest_path_avoids_opponent_routes_and_uses_own() -> None:
    ed = get_edition("usa")
    info = map_info(ed)
    ticket = ed.tickets[ed.ticket_index["denver-el-paso"]]
    owner = [-1] * info.nroutes
    free = route_weights(info, owner, 2, 0, 45)
    cost, path, _ = shortest_path(info, free, ticket.a_nodes, ticket.b_nodes)
    assert cost < INF and connected(info, path, ticket)
    for r in path:
        owner[r] = 1  # the opponent takes the whole path
    blocked = route_weights(info, owner, 2, 0, 45)
    cost2, path2, _ = shortest_path(info, blocked, ticket.a_nodes, ticket.b_nodes)
    assert cost2 > cost and not set(path2) & set(path)
    mine = [0 if o == 1 else -1 for o in owner]  # now they are ours: nothing left to claim
    assert shortest_path(info, route_weights(info, mine, 2, 0, 45), ticket.a_nodes, ticket.b_nodes)[:2] == (0.0, [])


def test_borrowed_routes_are_reported_separately() -> None:
    ed = get_edition("europe")
    info = map_info(ed)
    ticket = ed.tickets[0]
    owner = [1] * info.nroutes  # the opponent owns the whole map: only a station can help
    weights = route_weights(info, owner, 2, 0, 45)
    assert shortest_path(info, weights, ticket.a_nodes, ticket.b_nodes)[0] == INF
    borrow = [3.0] * info.nroutes
    cost, claim, borrowed = shortest_path(info, weights, ticket.a_nodes, ticket.b_nodes, borrow)
    assert cost < INF and claim == [] and borrowed


@given(st.floats(-20, 20), st.floats(-20, 20), st.floats(0, 40))
@settings(max_examples=200, deadline=None)
def test_completion_chance_is_a_probability_and_monotone(trains: float, turns: float, work: float) -> None:
    p = completion_chance(trains, turns, work)
    assert 0.0 < p < 1.0
    assert completion_chance(trains + 1, turns + 1, work) >= p  # more slack never hurts
    if min(trains + 1, turns) >= 0:
        assert p >= 0.5 and completion_chance(trains, turns, work + 5) <= p  # more work, less certainty
    else:
        assert p <= 0.5 and completion_chance(trains, turns, work + 5) >= p


def test_game_clock_shrinks_as_trains_run_out() -> None:
    game = Game("usa", 2, 1)
    bots = [make_bot("racer", seed=i) for i in range(2)]
    estimates = []
    while not game.is_over:
        p = game.current
        view = game.view(p)
        if view.phase == "turn":
            estimates.append(turns_left(view))
        game.step(bots[p].act(view, game.legal_actions()))
    assert estimates[0] > 20 and estimates[-1] == 0.0
    assert estimates[len(estimates) // 2] < estimates[0]


def test_card_needs_counts_deficits_and_ferry_locomotives() -> None:
    ed = get_edition("europe")
    info = map_info(ed)
    ferry = next(r for r in ed.routes if r.ferry == 2)  # amsterdam-london style: 2 locomotive icons
    hand = [0] * NCARDS
    needs = card_needs(info, ed.rules, [ferry.index], hand)
    assert needs.wild_deficit == ferry.ferry
    assert needs.total_deficit == ferry.length
    hand[LOCOMOTIVE] = 2
    assert card_needs(info, ed.rules, [ferry.index], hand).wild_deficit == 0


def test_tunnel_spare_counts_colour_and_wild_left_after_paying() -> None:
    hand = [0] * NCARDS
    hand[CARD_INDEX["red"]] = 4
    hand[LOCOMOTIVE] = 1
    pay = [0] * NCARDS
    pay[CARD_INDEX["red"]] = 3
    assert tunnel_spare(hand, pay) == 2
    pay[LOCOMOTIVE] = 1
    assert tunnel_spare(hand, pay) == 1


def test_trip_value_matches_the_engine() -> None:
    game = Game("marklin", 2, 3)
    bots = [make_bot("planner", seed=i) for i in range(2)]
    checked = 0
    while not game.is_over and checked < 5:
        p = game.current
        view = game.view(p)
        legal = game.legal_actions()
        for a in legal:
            if a.type == "move_passenger":
                before = game.scores[p]
                trial = game.clone()
                trial.step(a)
                assert trip_value(view, a) == trial.scores[p] - before
                checked += 1
        game.step(bots[p].act(view, legal))
    assert checked > 0


def test_memory_tracks_face_up_cards_and_spending() -> None:
    mem = Memory()
    mem.observe({"type": "draw_faceup", "player": 1, "slot": 0, "card": "red", "market": []})
    mem.observe({"type": "draw_faceup", "player": 1, "slot": 2, "card": "red", "market": []})
    assert mem.known[1][CARD_INDEX["red"]] == 2
    mem.observe({"type": "claim", "player": 1, "route": "x", "cards": {"red": 3}, "points": 4})
    assert mem.known[1][CARD_INDEX["red"]] == 0
    mem.observe({"type": "tunnel_reveal", "player": 2, "route": "t", "cards": {"blue": 2}, "revealed": [], "extra": 1})
    mem.observe({"type": "tunnel_decline", "player": 2, "route": "t"})
    assert mem.known[2][CARD_INDEX["blue"]] == 2  # declined: the shown cards went back to the hand
    mem.note_keep(["a", "b", "c"], ("b",))
    assert mem.returned == ["a", "c"]


@pytest.mark.parametrize(("edition", "players"), [("usa", 3), ("europe", 4), ("nordic", 3), ("marklin", 4)])
def test_determinization_agrees_with_the_view_and_the_memory(edition: str, players: int) -> None:
    game = Game(edition, players, 6)
    bots = [make_bot("planner", seed=i) for i in range(players)]
    mem = Memory()
    rng = random.Random(2)
    checked = 0
    step = 0
    while not game.is_over:
        p = game.current
        view = game.view(p)
        action = bots[p].act(view, game.legal_actions())
        if p == 0 and action.type == "keep_tickets":
            mem.note_keep([game.edition.tickets[t].id for t in view.offered], action.tickets)
        for e in game.apply(action):
            mem.observe(e.for_player(0))
        step += 1
        if game.current == 0 and not game.is_over and step % 6 == 0:
            view = game.view(0)
            sample = determinize(view, mem, rng)
            assert sample.view(0).to_dict() == view.to_dict()
            for q in range(players):
                assert len(sample.tickets[q]) == len(game.tickets[q])
                assert sum(sample.hands[q]) == sum(game.hands[q])
                known = mem.known.get(q, [0] * NCARDS)
                if q:
                    assert all(sample.hands[q][i] >= min(k, game.hands[q][i]) for i, k in enumerate(known))
            checked += 1
    assert checked >= 3


def test_situation_plans_over_open_tickets_only() -> None:
    game = Game("usa", 2, 8)
    bots = [make_bot("planner", seed=i) for i in range(2)]
    while not game.is_over:
        p = game.current
        view = game.view(p)
        if view.phase == "turn" and p == 0:
            s = Situation(view)
            open_ids = {t.index for t in s.undone}
            assert set(s.plan.open) | set(s.plan.dropped) == open_ids
            assert {t.index for t in s.done}.isdisjoint(open_ids)
        game.step(bots[p].act(view, game.legal_actions()))


def test_hand_weights_cost_routes_by_the_cards_still_missing() -> None:
    from ttr.bots.situation import hand_weights

    ed = get_edition("usa")
    info = map_info(ed)
    weights = route_weights(info, [-1] * info.nroutes, 2, 0, 45)
    r = next(x for x in range(info.nroutes) if info.colour[x] >= 0 and info.length[x] == 4)
    hand = [0] * NCARDS
    hand[info.colour[r]] = 3
    cheaper = hand_weights(info, ed.rules, weights, hand, 0.5)
    assert cheaper[r] == pytest.approx(weights[r] - 0.5 * 3)
    other = next(x for x in range(info.nroutes) if info.colour[x] >= 0 and info.colour[x] != info.colour[r])
    assert cheaper[other] == weights[other]  # no card of its colour: its weight is unchanged
    hand[LOCOMOTIVE] = 2  # locomotives are wild on the USA map: the route is covered
    assert hand_weights(info, ed.rules, weights, hand, 0.5)[r] == pytest.approx(weights[r] - 0.5 * 4)
    surcharge = hand_weights(info, ed.rules, weights, [0] * NCARDS, -0.3)
    assert surcharge[r] == pytest.approx(weights[r] + 0.3 * 4)  # a negative share charges the missing cards
    owned = list(weights)
    owned[r] = 0.0
    assert hand_weights(info, ed.rules, owned, hand, 0.5)[r] == 0.0


def test_game_clock_can_count_opponents_cards_as_trains_to_come() -> None:
    game = Game("usa", 2, 1)
    bots = [make_bot("racer", seed=i) for i in range(2)]
    for _ in range(40):
        p = game.current
        game.step(bots[p].act(game.view(p), game.legal_actions()))
    view = game.view(game.current)
    assert max(view.hand_sizes) > game.edition.rules.starting_hand
    assert turns_left(view, (), 0.5) < turns_left(view, (), 0.0)


def test_planner_options_play_whole_games_on_every_edition() -> None:
    from test_bots_play import play_checked

    spec = "planner:hand_cost=0.4:endgame=true:keep_locos=true:spare_long=5:spare_pay=2:clock_hand=0.4"
    for edition in ("usa", "europe", "nordic", "marklin"):
        game, _ = play_checked(edition, [spec, "racer"], 2)
        assert game.is_over


def test_turn_weights_charge_claims_and_credit_route_points() -> None:
    from ttr.bots.board import ROUTE_OVERHEAD
    from ttr.bots.situation import MIN_WEIGHT, turn_weights

    ed = get_edition("usa")
    info = map_info(ed)
    owner = [-1] * info.nroutes
    mine = next(r for r in range(info.nroutes) if info.length[r] == 2)
    theirs = next(r for r in range(info.nroutes) if info.length[r] == 3 and info.group[r] < 0)
    owner[mine], owner[theirs] = 0, 1
    plain = route_weights(info, owner, 2, 0, 45)
    tempo = turn_weights(info, plain, 2.0, 0.5)
    assert tempo[mine] == 0.0 and tempo[theirs] == INF  # owned and closed routes keep their weights
    for r in range(info.nroutes):
        if plain[r] not in (0.0, INF):
            expected = info.length[r] + 2.0 - 0.5 * info.points[r]
            assert tempo[r] == pytest.approx(max(MIN_WEIGHT, expected))
    six = next(r for r in range(info.nroutes) if info.length[r] == 6 and plain[r] < INF)
    one = next(r for r in range(info.nroutes) if info.length[r] == 1 and plain[r] < INF)
    assert plain[six] > plain[one] + 4 and tempo[six] < tempo[one]  # a 6 (15 points) now plans cheaper than a 1
    assert turn_weights(info, plain, ROUTE_OVERHEAD, 0.0) == plain


def test_tempo_plans_run_over_longer_routes() -> None:
    """Tempo weights plan over longer routes: more trains a claim and more route points a train."""
    ed = get_edition("usa")
    rng = random.Random(3)
    claims = {"plain": 0, "tempo": 0}
    points = {"plain": 0, "tempo": 0}
    trains = {"plain": 0, "tempo": 0}
    game = Game("usa", 2, 4)
    view = game.view(game.current)
    for _ in range(30):
        tickets = rng.sample(range(len(ed.tickets)), 2)
        for mode, (overhead, pw) in {"plain": (0.6, 0.0), "tempo": (2.0, 0.5)}.items():
            s = Situation(view, overhead=overhead, points_weight=pw)
            plan = s.plan_for([ed.tickets[t] for t in tickets])
            claims[mode] += len(plan.routes)
            points[mode] += sum(s.info.points[r] for r in plan.routes)
            trains[mode] += plan.trains
    assert trains["tempo"] / claims["tempo"] > 1.2 * trains["plain"] / claims["plain"]
    assert points["tempo"] / trains["tempo"] > 1.1 * points["plain"] / trains["plain"]


def test_planner_weights_by_player_count() -> None:
    from ttr.bots.planner import TEMPO_OVERHEAD, TEMPO_POINTS_WEIGHT

    bot = make_bot("hard", seed=1)
    tempo, plain = (TEMPO_OVERHEAD, TEMPO_POINTS_WEIGHT), (0.6, 0.0)
    cases = (
        ("usa", 2, tempo),
        ("usa", 3, tempo),
        ("usa", 4, tempo),
        ("europe", 4, tempo),
        ("usa", 5, tempo),
        ("nordic", 2, plain),
        ("nordic", 3, plain),
        ("marklin", 2, plain),
        ("marklin", 4, plain),
    )
    for edition, players, expected in cases:
        game = Game(edition, players, 2)
        while game.view(game.current).phase != "turn":
            p = game.current
            game.step(make_bot("racer", seed=p).act(game.view(p), game.legal_actions()))
        bot.reset()
        bot.act(game.view(game.current), game.legal_actions())
        assert (bot.overhead, bot.points_weight) == expected
    game = Game("usa", 2, 2)
    while game.view(game.current).phase != "turn":
        p = game.current
        game.step(make_bot("racer", seed=p).act(game.view(p), game.legal_actions()))
    explicit = make_bot("planner:overhead=1.0:points_weight=0.2", seed=1)
    explicit.act(game.view(game.current), game.legal_actions())
    assert (explicit.overhead, explicit.points_weight) == (1.0, 0.2)


def test_seen_racers_reads_style_from_public_play_only() -> None:
    from ttr.bots.situation import seen_racers

    ed = get_edition("usa")
    info = map_info(ed)
    game = Game("usa", 4, 3)
    view = game.view(0)
    sixes = [r for r in range(info.nroutes) if info.length[r] == 6 and info.group[r] < 0]
    twos = [r for r in range(info.nroutes) if info.length[r] == 2 and info.group[r] < 0]

    def scripted(owned: dict[int, list[int]], tickets: list[int]):
        v = game.view(0)
        v.route_owner = [-1] * info.nroutes
        for q, routes in owned.items():
            for r in routes:
                v.route_owner[r] = q
        v.ticket_counts = tickets
        return v

    assert seen_racers(view) == []  # nothing claimed yet: no style to read
    # seat 1 claims two 6s and holds its two required tickets; seat 2 drew more tickets; seat 3 builds short
    v = scripted({1: sixes[:2], 2: sixes[2:4], 3: twos[:3]}, [3, 2, 4, 2])
    assert seen_racers(v) == [1]
    assert seen_racers(scripted({1: sixes[:1]}, [3, 2, 2, 2])) == []  # one claim is not a style yet
    ones = [r for r in range(info.nroutes) if info.length[r] == 1]
    assert seen_racers(scripted({0: sixes[:3], 1: [sixes[3], ones[0]]}, [2, 2, 2, 2])) == []  # mean 3.5: below the bar
    assert seen_racers(scripted({0: sixes[:3], 1: [sixes[3], twos[0]]}, [2, 2, 2, 2])) == [1]  # mean 4: racing; never us
    from ttr.bots.situation import racer_evidence

    # undecided: few tickets and fewer than two claims (seat 2 drew tickets, seat 3 builds short: decided)
    assert racer_evidence(v) == ([1], [])
    assert racer_evidence(scripted({1: sixes[:1], 3: twos[:1]}, [3, 2, 2, 2])) == ([], [1, 2, 3])
    assert racer_evidence(scripted({}, [3, 2, 3, 2])) == ([], [1, 3])
    # the hidden part of the view plays no role: another hand and other tickets of ours read the same
    v2 = scripted({1: sixes[:2]}, [3, 2, 2, 2])
    v2.hand = [0] * len(v2.hand)
    v2.tickets = []
    assert seen_racers(v2) == [1]


def test_planner_can_switch_to_tempo_weights_when_it_sees_a_racer_at_four_players() -> None:
    from ttr.bots.planner import TEMPO_OVERHEAD
    from ttr.bots.situation import seen_racers

    game = Game("marklin", 4, 5)  # a map where the plain weights are the default at 4 players
    bots = [make_bot("planner:tempo_vs_racers=true", seed=0), *(make_bot("racer", seed=q) for q in (1, 2, 3))]
    seen = []
    while not game.is_over and game.turn < 60:
        p = game.current
        view = game.view(p)
        action = bots[p].act(view, game.legal_actions())
        if p == 0 and view.phase == "turn":
            seen.append((bool(seen_racers(view)), bots[0].overhead))
        game.step(action)
    assert seen[0] == (False, 0.6)
    assert any(s for s, _ in seen) and all((o == TEMPO_OVERHEAD) == s for s, o in seen)
