"""Legal moves kept between moves (claims per route group, passenger trips per network) must equal
the moves computed from scratch, at every step, also in a clone played on differently."""

from __future__ import annotations

import random

import pytest

from ttr.cards import PASSENGER
from ttr.engine import Action, Game, IllegalAction


def _fresh(g: Game) -> tuple[object, ...]:
    """The legal actions of the same position with every cache empty."""
    return Game.from_dict(g.to_dict()).legal_actions()


@pytest.mark.parametrize(("edition", "players"), [("usa", 4), ("europe", 3), ("nordic", 3), ("marklin", 4)])
def test_incremental_legal_moves_equal_fresh_ones(edition: str, players: int) -> None:
    rng = random.Random(5)
    compared = 0
    for seed in range(1):
        g = Game(edition, players, 300 + seed)
        twin: Game | None = None
        while not g.is_over:
            if g.phase == "turn":
                assert g.legal_actions() == _fresh(g)
                compared += 1
                if twin is None and g.turn > 20:
                    twin = g.clone()
            g.step(rng.choice(g.legal_actions()))
        assert twin is not None
        while not twin.is_over:  # the clone shares the caches' entries, then goes its own way
            if twin.phase == "turn":
                assert twin.legal_actions() == _fresh(twin)
            twin.step(rng.choice(twin.legal_actions()))
    assert compared > 50


def test_passenger_trails_answer_is_a_copy() -> None:
    g = Game("marklin", 2, 3)
    rng = random.Random(1)
    while not any(c >= 0 for c in g.passengers[g.current]) or g.phase != "turn":
        g.step(rng.choice(g.legal_actions()))
    p = g.current
    start = next(c for c in g.passengers[p] if c >= 0)
    got = g.passenger_trails(p, start, 2)
    for _, path in got.values():
        path.append(-1)
    assert all(-1 not in path for _, path in g.passenger_trails(p, start, 2).values())


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_cached_passenger_trips_equal_fresh_searches(players: int) -> None:
    """Trips and their moves kept between moves (dropped only when a route at a city the search expanded
    is claimed, by an opponent only where the search could take an opponent's route, or one of those
    cities' tokens is taken; kept across numbers of passenger cards when the search never met an opponent's
    route) equal a fresh search, also in clones and reloaded positions, for every passenger and every
    number of passenger cards up to the hand."""
    _compare_cached_trips_with_fresh_searches(players)


@pytest.mark.parametrize("players", [2, 4])
def test_cached_cut_passenger_trips_equal_fresh_searches(players: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same with a tiny search budget, so that searches run out of it (then a cached entry also watches
    the neighbours of the cities expanded, and every city for an opponent's claim)."""
    from ttr.engine import passengers

    monkeypatch.setattr(passengers, "TRAIL_SEARCH_LIMIT", 12)
    _compare_cached_trips_with_fresh_searches(players)


def _compare_cached_trips_with_fresh_searches(players: int) -> None:
    rng = random.Random(players)
    order_rng = random.Random(players + 100)
    checked = 0
    for seed in range(2):
        g = Game("marklin", players, 700 + seed)
        copies: list[Game] = []
        while not g.is_over:
            if g.phase == "turn":
                for h in [g, *copies]:
                    fresh = Game.from_dict(h.to_dict())
                    assert h.legal_actions() == fresh.legal_actions()  # the trips' moves are cached too
                    for p in range(h.n):
                        for start in (c for c in h.passengers[p] if c >= 0):
                            counts = [0, 1, 2, h.hands[p][PASSENGER]]
                            order_rng.shuffle(counts)  # any order: entries kept across numbers of cards
                            for cards in counts:
                                assert h.passenger_trails(p, start, cards) == fresh.passenger_trails(p, start, cards)
                                checked += 1
                if rng.random() < 0.05 and len(copies) < 3:
                    copies.append(g.clone() if rng.random() < 0.5 else Game.from_dict(g.to_dict()))
            g.step(rng.choice(g.legal_actions()))
            for h in copies:
                if not h.is_over:
                    h.step(rng.choice(h.legal_actions()))
    assert checked > 100


@pytest.mark.parametrize(("edition", "players"), [("usa", 2), ("europe", 4), ("nordic", 3), ("marklin", 4)])
def test_an_offered_move_skips_the_check_and_plays_like_a_checked_one(edition: str, players: int) -> None:
    """step() takes a draw, claim, tunnel answer or pass found among the moves just offered without
    checking it again: the same move given as an equal copy, or played with no moves offered yet (checked
    in full), ends in the same position, and a claim not offered is still refused."""
    rng = random.Random(11)
    g = Game(edition, players, 41)
    kinds: set[str] = set()
    while not g.is_over:
        legal = g.legal_actions()
        action = rng.choice(legal)
        kinds.add(action.type)
        checked = Game.from_dict(g.to_dict())  # no moves offered: the full check
        checked.step(Action(*action))
        copy_played = g.clone()
        copy_played.legal_actions()
        copy_played.step(Action(*action))  # an equal action, not the offered object
        if g.phase == "turn":
            unaffordable = next(
                (
                    Action("claim", route=r.id, cards=tuple(99 if i == 0 else 0 for i in range(len(g.hands[g.current]))))
                    for r in g.edition.routes
                    if g.route_owner[r.index] < 0
                ),
                None,
            )
            if unaffordable is not None:
                with pytest.raises(IllegalAction):
                    g.step(unaffordable)  # with the moves offered kept: still checked in full
        g.step(action)
        assert g.to_dict() == checked.to_dict() == copy_played.to_dict()
    assert {"claim", "draw_blind", "draw_faceup"} <= kinds


def test_memoised_station_moves_equal_ones_built_from_scratch(monkeypatch: pytest.MonkeyPatch) -> None:
    """Station moves come from per-edition memos (payments per cost and hand, moves per payment list); they
    equal the moves built directly, also when the memos are full and cleared."""
    from ttr.engine import payments, stations

    monkeypatch.setattr(stations, "STATION_MEMO_MAX", 7)  # cleared often
    rng = random.Random(3)
    compared = 0
    for players in (2, 4, 5):
        g = Game("europe", players, 60 + players)
        while not g.is_over:
            if g.phase == "turn" and g.stations_left[g.current]:
                p = g.current
                cost = g.rules.station_costs[g.rules.stations - g.stations_left[p]]
                pays = payments.station_payments(cost, g.hands[p])
                direct = [
                    Action("build_station", city=cid, cards=cards)
                    for c, cid in enumerate(g.edition.city_ids)
                    if g.station_owner[c] < 0 and g.edition.city_area[c] is None
                    for cards in pays
                ]
                assert stations.station_actions(g, p) == direct
                compared += 1
            g.step(rng.choice(g.legal_actions()))
    assert compared > 100


def test_trips_kept_for_every_number_of_cards_see_an_opponents_new_route() -> None:
    """A trip found without any opponent's route in reach is kept when the number of passenger cards
    changes, but not once an opponent claims a route at a city the search expanded: with a card more the
    passenger can then travel on it."""
    from ttr.scenario import scenario

    g = scenario(
        """marklin 2p seed 0
        hands none
        p0 routes augsburg-munchen/1
        p0 passengers augsburg
        p1 hand 3orange
        merchandise munchen 1
        merchandise regensburg 4
        current 1
        """
    )
    start = g.edition.city_index["augsburg"]
    assert g.passenger_trails(0, start, 0) == {0: (1, [g.edition.route_index["augsburg-munchen/1"]])}
    g.step(Action("claim", route="munchen-regensburg", cards=(0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
    for cards in (0, 1, 0, 2):
        assert g.passenger_trails(0, start, cards) == Game.from_dict(g.to_dict()).passenger_trails(0, start, cards)
    assert 1 in g.passenger_trails(0, start, 1)  # on to regensburg over p1's route
