"""The search bot's playout policy: it finishes games on every edition, keeps tickets whose joint
network pays, and stops drawing tickets once trains run short."""

from __future__ import annotations

import pytest

from positions import scenario
from ttr.bots.rollout import TICKET_MIN_ALL, TICKET_MIN_TRAINS, TRIP_RULES, RolloutPolicy, play_out
from ttr.editions import get_edition
from ttr.engine import Action, Game
from ttr.engine.actions import DRAW_TICKETS, KEEP_TICKETS


@pytest.mark.parametrize(("edition", "players"), [("usa", 2), ("usa", 4), ("europe", 3), ("nordic", 2), ("marklin", 3)])
def test_playout_finishes_the_game(edition: str, players: int) -> None:
    game = Game(edition, players, 11)
    play_out(game, RolloutPolicy(game))
    assert game.is_over
    assert game.result()["winners"]


def offer(tickets: list[str], trains: int) -> Game:
    """Player 0 to choose among `tickets` (just drawn), holding no ticket, with `trains` trains."""
    rest = [t.id for t in get_edition("usa").tickets if t.id not in tickets and t.id != "boston-miami"]
    g = scenario(
        f"""
        usa 2p seed 3
        p1 tickets boston-miami
        ticket deck {", ".join([*tickets, *rest])}
        trains {trains}, 45
        phase turn
        current 0
        """
    )
    g.step(Action(DRAW_TICKETS))
    assert g.phase == "keep_tickets"
    return g


def test_keeps_every_ticket_of_one_corridor() -> None:
    corridor = ["duluth-houston", "kansas-city-houston", "duluth-el-paso"]
    g = offer(corridor, trains=45)
    action = RolloutPolicy(g).act(g)
    assert action.type == KEEP_TICKETS
    assert set(action.tickets or ()) == set(corridor)


def test_short_of_trains_it_keeps_only_what_it_can_reach() -> None:
    g = offer(["los-angeles-new-york", "duluth-houston", "kansas-city-houston"], trains=12)
    action = RolloutPolicy(g).act(g)
    assert action.type == KEEP_TICKETS
    assert "kansas-city-houston" in (action.tickets or ())
    assert "los-angeles-new-york" not in (action.tickets or ())


@pytest.mark.parametrize(
    ("mine", "theirs", "draws"),
    [
        (45, 45, True),
        (TICKET_MIN_TRAINS - 1, 45, False),
        (45, TICKET_MIN_ALL - 1, False),
    ],
)
def test_draws_tickets_only_while_trains_are_plentiful(mine: int, theirs: int, draws: bool) -> None:
    g = scenario(
        f"""
        usa 2p seed 3
        hands none
        tickets none
        trains {mine}, {theirs}
        phase turn
        current 0
        """
    )
    action = RolloutPolicy(g).act(g)
    assert (action.type == DRAW_TICKETS) is draws


def test_tempo_playouts_plan_fewer_longer_routes() -> None:
    """With ``tempo`` the playout plans with the planner's tempo weights (as `hard` on USA): over ten
    fresh 2-player USA deals its plans differ and need fewer claims in all than the plain ones."""
    plain_claims = tempo_claims = differ = 0
    for seed in range(1, 11):
        g = Game("usa", 2, seed)
        while g.phase != "turn":
            g.step(RolloutPolicy(g).act(g))
        plain = RolloutPolicy(g).plan(g, 0)
        tempo = RolloutPolicy(g, tempo=True).plan(g, 0)
        plain_claims += len(plain)
        tempo_claims += len(tempo)
        differ += plain != tempo
    assert differ >= 5
    assert tempo_claims < plain_claims


@pytest.mark.parametrize("edition", ["usa", "europe", "nordic", "marklin"])
def test_payment_is_the_engines_cheapest(edition: str) -> None:
    """The playouts' payment (computed directly for routes without "any cards") is the one the engine's
    canonical payments give with the fewest wild cards, first in the engine's order, on every route."""
    import random

    from ttr.cards import LOCOMOTIVE, NCARDS, PLUS4
    from ttr.engine import payments

    game = Game(edition, 3, 5)
    policy = RolloutPolicy(game)
    rng = random.Random(edition)
    routes = game.edition.routes
    checked = paid = 0
    for _ in range(300):
        hand = [rng.choice((0, 0, 1, 2, 3, 5, 7)) for _ in range(NCARDS)]
        game.hands[0] = hand
        for r, route in enumerate(routes):
            options = payments.route_payments(route, hand, game.rules)
            expected = min(options, key=lambda cards: (cards[LOCOMOTIVE] + cards[PLUS4], sum(cards))) if options else None
            got = policy.payment(game, 0, r)
            assert got == expected, (route.id, hand)
            checked += 1
            paid += got is not None
    assert paid > checked // 10  # the hands pay for many routes, not only for none


def test_a_shared_memo_changes_no_playout() -> None:
    """Playouts sharing one memo (as the iterations of a search do) end exactly as with a fresh memo each,
    although the memo was filled by playouts of other worlds of the same position."""
    import random

    start = Game("usa", 3, 21)
    warmup = RolloutPolicy(start, tempo=True)
    for _ in range(30):
        start.step(warmup.act(start))

    class CountingMemo(dict):
        hits = 0

        def get(self, key, default=None):  # type: ignore[no-untyped-def]
            found = super().get(key, default)
            CountingMemo.hits += found is not None
            return found

    memo = CountingMemo()
    for k in range(6):
        world = start.clone()
        random.Random(k).shuffle(world.deck)
        world.rng.seed(k)
        alone = world.clone()
        play_out(world, RolloutPolicy(world, tempo=True, memo=memo))
        play_out(alone, RolloutPolicy(alone, tempo=True))
        assert world == alone
    assert memo and CountingMemo.hits >= 5 * len(start.tickets)  # later playouts reused the first one's plans


@pytest.mark.parametrize("edition", ["usa", "europe", "nordic", "marklin"])
def test_playout_weights_are_the_planners(edition: str) -> None:
    """``route_weights`` equals its definition (0 owned, length + overhead where ``usable_for`` and
    within the trains, INF elsewhere), and with the playouts' tempo table (``open_weights``) it equals
    ``turn_weights`` of that, number for number, with twin lanes taken and not."""
    import random

    from ttr.bots.board import INF, ROUTE_OVERHEAD, map_info, route_weights, usable_for
    from ttr.bots.planner import TEMPO_OVERHEAD, TEMPO_POINTS_WEIGHT
    from ttr.bots.rollout import open_weights
    from ttr.bots.situation import turn_weights

    rng = random.Random(edition)
    ed = get_edition(edition)
    info = map_info(ed)
    tempo_table = open_weights(ed)[1]
    for players in range(ed.rules.players[0], ed.rules.players[1] + 1):
        for _ in range(40):
            owner = [rng.choice([-1, -1, -1, *range(players)]) for _ in range(info.nroutes)]
            p = rng.randrange(players)
            trains = rng.randrange(1, 46)
            usable = usable_for(info, owner, players, p)
            expected = [
                0.0 if owner[r] == p else info.length[r] + ROUTE_OVERHEAD if usable[r] and info.length[r] <= trains else INF
                for r in range(info.nroutes)
            ]
            assert 0.0 in expected and INF in expected
            assert route_weights(info, owner, players, p, trains) == expected
            expected = turn_weights(info, expected, TEMPO_OVERHEAD, TEMPO_POINTS_WEIGHT)
            assert route_weights(info, owner, players, p, trains, tempo_table) == expected


@pytest.mark.parametrize(("edition", "players"), [("usa", 2), ("usa", 4), ("europe", 3), ("nordic", 2), ("marklin", 3)])
def test_playout_rewards_are_the_engines_result(edition: str, players: int) -> None:
    """The search's reward (from ``Game.totals`` where one total is best) is the one ``Game.result()``
    gives, over finished playouts, ties included."""
    from ttr.bots.ismcts import ISMCTSBot, outcome_value

    for seed in range(12):
        game = Game(edition, players, seed)
        play_out(game, RolloutPolicy(game, tempo=seed % 2 == 1))
        result = game.result()
        totals = [x["total"] for x in result["players"]]
        for me in range(players):
            assert ISMCTSBot.reward(game, me) == outcome_value(totals, result["winners"], me)


def test_a_modelled_racer_claims_long_routes_and_draws_no_tickets() -> None:
    """In playouts, a player moved as a racer claims longer routes than as a ticket builder and never
    draws tickets."""
    from ttr.engine.actions import CLAIM

    def mean_claim(racers: tuple[int, ...]) -> tuple[float, int]:
        lengths, ticket_draws = [], 0
        for seed in range(6):
            game = Game("usa", 2, seed)
            play_out(game, RolloutPolicy(game, tempo=True, racers=racers))
            ed = game.edition
            for action, seat in zip(game.history, game.history_seats, strict=True):
                if seat == 1 and action.type == CLAIM:
                    lengths.append(ed.routes[ed.route_index[action.route]].length)
                ticket_draws += seat == 1 and action.type == DRAW_TICKETS
        return sum(lengths) / len(lengths), ticket_draws

    racing, racer_draws = mean_claim((1,))
    building, _ = mean_claim(())
    assert racer_draws == 0
    assert racing >= 4.0 > building


def test_marklin_passengers_travel_as_the_end_nears() -> None:
    """Märklin playouts collect merchandise: each player's passengers travel late in the game (TRIP_RULES)
    along its own routes, for the points the engine scores; with every player still far from the end no
    passenger moves."""
    trips = merchandise = 0
    for seed in range(4):
        game = Game("marklin", 2, seed)
        policy = RolloutPolicy(game)
        while not game.is_over:
            p, action = game.current, policy.act(game)
            before = game.scores[p]
            game.step(action)
            if action.type == "move_passenger":
                assert min(game.trains) <= TRIP_RULES[-1][0] or game.final_turns >= 0
                trips += 1
                merchandise += game.scores[p] - before
    assert trips >= 4 and merchandise >= 6 * trips
