"""Bots decide from the player's view only: positions that differ only in hidden information
(opponents' hands and tickets, deck order) get the same decision, and a view with scrambled
opponent fields still gets a legal one."""

from __future__ import annotations

import random
from typing import Any

import pytest

from ttr.bots import make_bot
from ttr.engine import Game
from ttr.engine.view import PlayerView

BOTS = [
    "random",
    "destination_hungry",
    "route_focus",
    "one_step",
    "long_route",
    "racer",
    "blocker",
    "hoarder",
    "planner",
    "planner:keep_search=6:end_search=6:end_turns=40",  # `hard`'s searches, cheaply and on every turn
    "ismcts:iterations=6:depth=2",
    "learned",
    "ismcts:iterations=6:depth=2:leaf_steps=4",
]


def hidden_shuffle(game: Game, me: int, rng: random.Random) -> Game:
    """The same position for `me`, with other hidden information exchanged at random."""
    d: dict[str, Any] = game.to_dict()
    deck = list(d["deck"])
    for q in range(game.n):
        if q == me:
            continue
        hand = [c for c, k in d["hands"][q].items() for _ in range(k)]
        for i in range(len(hand)):  # swap cards between this hand and the deck
            if deck and rng.random() < 0.7:
                j = rng.randrange(len(deck))
                hand[i], deck[j] = deck[j], hand[i]
        counts: dict[str, int] = {}
        for c in hand:
            counts[c] = counts.get(c, 0) + 1
        d["hands"][q] = counts
        tickets = d["tickets"][q]
        for i, t in enumerate(tickets):  # swap tickets with same-deck tickets in the draw piles
            deck_name = game.edition.tickets[game.edition.ticket_index[t]].deck
            pile = d["ticket_decks"].get(deck_name, [])
            if pile:
                j = rng.randrange(len(pile))
                tickets[i], pile[j] = pile[j], tickets[i]
    rng.shuffle(deck)
    d["deck"] = deck
    state = random.Random(rng.random()).getstate()
    d["rng"] = [state[0], list(state[1]), state[2]]
    return Game.from_dict(d)


def positions(edition: str, players: int, seed: int, every: int = 9) -> list[Game]:
    game = Game(edition, players, seed)
    bots = [make_bot("planner", seed=i) for i in range(players)]
    out = []
    step = 0
    while not game.is_over:
        if step % every == 0:
            out.append(game.clone())
        p = game.current
        game.step(bots[p].act(game.view(p), game.legal_actions()))
        step += 1
    return out


@pytest.mark.parametrize(("edition", "players"), [("usa", 3), ("europe", 3), ("nordic", 2), ("marklin", 3)])
def test_decisions_ignore_hidden_information(edition: str, players: int) -> None:
    rng = random.Random(7)
    checked = 0
    for game in positions(edition, players, seed=4)[::2]:
        me = game.current
        other = hidden_shuffle(game, me, rng)
        assert other.view(me).to_dict() == game.view(me).to_dict()
        assert other.to_dict() != game.to_dict() or game.n == 1  # something hidden really changed
        for name in BOTS:
            a = make_bot(name, seed=3).act(game.view(me), game.legal_actions())
            b = make_bot(name, seed=3).act(other.view(me), other.legal_actions())
            assert a == b, (edition, name, str(a), str(b))
        checked += 1
    assert checked >= 3


def scrambled(view: PlayerView, rng: random.Random) -> PlayerView:
    """The view with every opponent's public counts replaced by random values."""
    for q in range(view.players):
        if q != view.me:
            view.hand_sizes[q] = rng.randrange(0, 40)
            view.ticket_counts[q] = rng.randrange(0, 8)
            view.scores[q] = rng.randrange(-50, 200)
            view.trains[q] = rng.randrange(3, 46)
    return view


@pytest.mark.parametrize("edition", ["usa", "europe", "nordic", "marklin"])
def test_bots_survive_scrambled_opponent_fields(edition: str) -> None:
    rng = random.Random(11)
    players = 3
    for game in positions(edition, players, seed=9, every=13):
        me = game.current
        legal = game.legal_actions()
        for name in BOTS:
            action = make_bot(name, seed=1).act(scrambled(game.view(me), rng), legal)
            assert action in legal or game.is_legal(action), (edition, name, str(action))


def test_views_carry_no_game_reference() -> None:
    """A bot gets a PlayerView: a plain snapshot with no way back to the Game object."""
    game = Game("europe", 3, 1)
    view = game.view(0)
    for name in PlayerView.__slots__:
        assert not isinstance(getattr(view, name), Game)
    assert not hasattr(view, "__dict__")
