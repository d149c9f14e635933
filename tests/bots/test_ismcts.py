"""The search bot: reproducible for a seed and an iteration budget, spends its budget, keeps to
legal moves, and leaves non-turn decisions to the planner."""

from __future__ import annotations

import pytest

from ttr.bots import make_bot
from ttr.bots.board import ROUTE_OVERHEAD
from ttr.bots.ismcts import ISMCTSBot
from ttr.bots.planner import PlannerBot
from ttr.engine import Game
from ttr.engine.phases import Phase


def midgame(edition: str = "usa", players: int = 2, seed: int = 5, steps: int = 40) -> Game:
    game = Game(edition, players, seed)
    bots = [make_bot("planner", seed=i) for i in range(players)]
    for _ in range(steps):
        p = game.current
        game.step(bots[p].act(game.view(p), game.legal_actions()))
    while game.phase != "turn":
        p = game.current
        game.step(bots[p].act(game.view(p), game.legal_actions()))
    return game


def test_same_seed_same_search() -> None:
    game = midgame()
    me = game.current
    choices = []
    for _ in range(2):
        bot = ISMCTSBot(seed=4, iterations=30)
        choices.append((bot.act(game.view(me), game.legal_actions()), bot.last_stats["gain"]))
    assert choices[0] == choices[1]


def test_search_spends_its_budget_on_the_candidates() -> None:
    game = midgame("europe", 3, seed=2)
    me = game.current
    bot = ISMCTSBot(seed=1, iterations=40)
    action = bot.act(game.view(me), game.legal_actions())
    assert game.is_legal(action)
    stats = bot.last_stats
    assert 30 <= stats["iterations"] <= 40 + len(stats["visits"])
    assert sum(stats["visits"].values()) == stats["iterations"]
    advice = PlannerBot(seed=1).act(game.view(me), game.legal_actions())
    assert str(advice) in stats["visits"] and stats["visits"][str(advice)] >= max(stats["visits"].values())


def test_time_budget_stops_the_search() -> None:
    import time

    game = midgame(seed=8)
    me = game.current
    bot = ISMCTSBot(seed=1, iterations=0, time_per_move=0.2)
    start = time.perf_counter()
    assert game.is_legal(bot.act(game.view(me), game.legal_actions()))
    assert time.perf_counter() - start < 2.0
    assert bot.last_stats["iterations"] > 0


def test_second_card_and_tunnel_decisions_are_the_planners() -> None:
    game = Game("europe", 2, 3)
    search = ISMCTSBot(seed=2, iterations=5)
    planner = PlannerBot(seed=2, overhead=ROUTE_OVERHEAD, points_weight=0.0)  # the search's advisor: plain weights
    other = make_bot("planner", seed=9)
    seen = 0
    while not game.is_over and seen < 10:
        p = game.current
        view, legal = game.view(p), game.legal_actions()
        if p == 0 and view.phase in ("second_card", "tunnel"):
            assert search.act(view, legal) == planner.act(view, legal)
            seen += 1
        action = (search if p == 0 else other).act(view, legal)
        if p == 0:
            planner.act(view, legal)  # keep the twin planner's memory in step
        game.step(action)
    assert seen > 0


def late_position(mine: int, theirs: int) -> Game:
    from positions import scenario

    return scenario(
        f"""
        usa 2p seed 3
        hands none
        p0 hand 2red+1blue
        p0 tickets denver-el-paso
        trains {mine}, {theirs}
        phase turn
        current 0
        """
    )


def test_ticket_clock_keeps_late_ticket_draws_out_of_the_root_moves() -> None:
    """Without the clock a ticket draw is always a root move; with it, only while every player has
    TICKET_MIN_ALL trains and (ticket_clock=2) the advisor's plan has nothing left to claim."""
    from ttr.engine.actions import DRAW_TICKETS

    def draws(game: Game, **options: object) -> bool:
        bot = ISMCTSBot(seed=1, iterations=10, tempo_advisor=True, **options)
        view, legal = game.view(0), game.legal_actions()
        advice = bot.advisor.act(view, legal)
        assert advice.type != DRAW_TICKETS
        return any(a.type == DRAW_TICKETS for a in bot.candidates(view, legal, advice))

    late, early = late_position(15, 16), late_position(40, 40)
    assert draws(late) and draws(early)
    assert not draws(late, ticket_clock=1)
    assert draws(early, ticket_clock=1)
    assert not draws(early, ticket_clock=2)  # denver-el-paso is still to be built


def test_a_passenger_trip_is_a_root_move_only_as_the_advice() -> None:
    """The playouts make trips only as the end nears, so a trip now would look better than keeping the
    passenger for a longer network; it is searched only when the planner advises it (Märklin, docs/bots.md)."""
    game = Game("marklin", 2, 3)
    bots = [make_bot("planner", seed=i) for i in range(2)]
    held_back = 0
    while not game.is_over and held_back < 3:
        p = game.current
        view, legal = game.view(p), game.legal_actions()
        if game.phase == Phase.TURN and any(a.type == "move_passenger" for a in legal):
            bot = ISMCTSBot(seed=1, iterations=10, tempo_advisor=True)
            advice = bot.advisor.act(view, legal)
            trips = [a for a in bot.candidates(view, legal, advice) if a.type == "move_passenger"]
            assert trips == ([advice] if advice.type == "move_passenger" else [])
            held_back += advice.type != "move_passenger"
        game.step(bots[p].act(view, legal))
    assert held_back == 3


def test_planner_keep_search_checks_its_ticket_choice() -> None:
    # Deal 2, first player to choose: the planner alone keeps denver-pittsburgh and portland-nashville;
    # 200 iterations of search prefer duluth-el-paso to portland-nashville (measured, deterministic).
    game = Game("usa", 2, 2)
    p = game.current
    view, legal = game.view(p), game.legal_actions()
    plain = PlannerBot(seed=20 + p)
    searched = PlannerBot(seed=20 + p, keep_search=200)
    assert not plain.wants_events and searched.wants_events  # the search remembers the events it sees
    advice = plain.act(view, legal)
    choice = searched.act(view, legal)
    assert advice.tickets == ("denver-pittsburgh", "portland-nashville")
    assert choice.tickets == ("denver-pittsburgh", "duluth-el-paso")
    assert searched.searcher.last_stats["iterations"] == 200
    # the same bot at 4 players searches (2 / 4)^2 of the budget: about the same time a game
    game4 = Game("usa", 4, 2)
    bot4 = PlannerBot(seed=1, keep_search=200)
    bot4.act(game4.view(game4.current), game4.legal_actions())
    assert bot4.searcher.last_stats["iterations"] == 50


def test_planner_end_search_searches_only_its_last_turns() -> None:
    from ttr.bots.styles import RacerBot

    game = Game("usa", 2, 5)
    bot = PlannerBot(seed=3, end_search=20, end_turns=4)
    racer = RacerBot(seed=4)
    searched: list[float] = []
    while not game.is_over:
        p = game.current
        view, legal = game.view(p), game.legal_actions()
        if p == 0:
            bot.searcher.last_stats = {}
            action = bot.act(view, legal)
            if bot.searcher.last_stats:
                assert 0 < bot.searcher.last_stats["iterations"] <= 30  # successive halving: about the budget
                searched.append(bot.situation(view).turns_left)
        else:
            action = racer.act(view, legal)
        game.step(action)
    assert searched and max(searched) <= 4


def test_model_opponents_moves_a_seen_racer_like_one_in_the_playouts() -> None:
    """With ``model_opponents`` an opponent seen racing (two 6-train routes, only its setup tickets) is
    moved by the playouts as a racer; without it, as a ticket builder."""
    game = midgame(steps=6)
    me = game.current
    other = 1 - me
    info_routes = game.edition.routes
    sixes = [r for r, route in enumerate(info_routes) if route.length == 6 and game.route_owner[r] < 0][:2]
    for r in sixes:
        game.route_owner[r] = other
    del game.tickets[other][game.rules.initial_tickets.keep_min :]
    game.reset_caches()
    seen = []
    for model in (True, False):
        bot = ISMCTSBot(seed=1, iterations=8, model_opponents=model)
        assert game.is_legal(bot.act(game.view(me), game.legal_actions()))
        seen.append(bot.racers)
    assert seen == [[other], []]
    assert make_bot("max:model_opponents=true").model_opponents  # type: ignore[attr-defined]
    # racer_prior: an opponent whose style cannot be read yet races in that share of the sampled worlds
    fresh = Game("usa", 2, 5)
    p = fresh.current
    while fresh.phase == "setup":  # both keep their tickets; nobody has claimed anything
        fresh.step(make_bot("planner", seed=fresh.current).act(fresh.view(fresh.current), fresh.legal_actions()))
    drawn: dict[float, list[list[int]]] = {}
    for prior in (1.0, 0.5, 0.0):
        bot = ISMCTSBot(seed=1, iterations=40, racer_prior=prior)
        bot.world = _recording(bot.world, bot, drawn.setdefault(prior, []))  # type: ignore[method-assign]
        assert bot.model_opponents == (prior > 0) and fresh.is_legal(bot.act(fresh.view(p), fresh.legal_actions()))
    assert drawn[1.0] and all(r == [1 - p] for r in drawn[1.0])
    assert [] in drawn[0.5] and [1 - p] in drawn[0.5]
    assert drawn[0.0] and all(r == [] for r in drawn[0.0])
    # the planner's own short searches take the option too (`hard:model_opponents=true`)
    hard = make_bot("hard:model_opponents=true")
    assert hard.searcher.model_opponents and not make_bot("hard").searcher.model_opponents  # type: ignore[attr-defined]


def _recording(world, bot: ISMCTSBot, out: list[list[int]]):  # type: ignore[no-untyped-def]
    """`bot.world`, also noting the racers drawn for each world."""

    def wrapped(*args):  # type: ignore[no-untyped-def]
        game = world(*args)
        out.append(list(bot.racers))
        return game

    return wrapped


@pytest.mark.timeout(60)
def test_a_playout_that_cycles_is_cut_short() -> None:
    # Deal 38 of 4-player Europe, hard in the first two seats: in one of its ticket searches a playout
    # reached an empty deck where every player claimed petrograd-stockholm (a tunnel) and declined the
    # surcharge, round after round; the tree walk played such playouts to the end with no bound (the
    # process grew to 24 GB). Now the playout's step limit applies.
    from ttr.sim.runner import GameSpec, play_game

    rec = play_game(GameSpec("europe", 4, 38, ("hard", "hard", "medium", "medium")))
    assert rec["stats"]["turns"] > 0 and rec["result"]["winners"]


class ScriptedGains(ISMCTSBot):
    """The search with its iterations replaced: in the search's own worlds every challenger beats the
    advice by `searched`; in the verification's fresh worlds (a new tree) by `fresh`."""

    def __init__(self, searched: float, fresh: float, **options: object) -> None:
        super().__init__(seed=1, iterations=24, **options)  # type: ignore[arg-type]
        self.gains = (searched, fresh)
        self.roots: list[object] = []

    def iterate(self, root, game, me, first):  # type: ignore[no-untyped-def]
        if not self.roots:
            self.roots.append(root)
        gain = self.gains[0] if root is self.roots[0] else self.gains[1]
        noise = self.rng.random() * 0.01
        return noise if first == self.advice else gain + noise

    def search(self, view, candidates, advice, factor=1.0):  # type: ignore[no-untyped-def]
        self.advice, self.roots = advice, []
        return super().search(view, candidates, advice, factor)


def test_verify_keeps_the_advice_when_the_gain_does_not_hold_in_fresh_worlds() -> None:
    """``verify``: a move that beat the advice in the search's worlds replaces it only if it beats it
    again in fresh worlds (the best of noisy means over-states its gain)."""
    game = midgame()
    me = game.current
    view, legal = game.view(me), game.legal_actions()
    unverified = ScriptedGains(0.2, -0.1)
    gone = ScriptedGains(0.2, -0.1, verify=10)
    holds = ScriptedGains(0.2, 0.15, verify=10)
    chosen = [bot.act(view, legal) for bot in (unverified, gone, holds)]
    assert chosen[0] != unverified.advice and unverified.last_stats["verified"] is None
    assert chosen[1] == gone.advice and gone.last_stats["verified"] == pytest.approx(-0.1, abs=0.01)
    assert chosen[2] == chosen[0] and holds.last_stats["verified"] == pytest.approx(0.15, abs=0.01)
    assert make_bot("max:verify=50").verify == 50  # type: ignore[attr-defined]
