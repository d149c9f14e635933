"""The search bot's playout policy: it finishes games on every edition, keeps tickets whose joint
network pays, and stops drawing tickets once trains run short."""

from __future__ import annotations

import pytest

from positions import scenario
from ttr.bots.rollout import TICKET_MIN_ALL, TICKET_MIN_TRAINS, RolloutPolicy, play_out
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
