"""Setup is simultaneous: every seat with an offer chooses its initial tickets at once, in any order,
and the game that follows does not depend on that order (tickets returned go back when all have chosen)."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from ttr.engine import Game, IllegalAction
from ttr.engine.actions import Action


def _play_setup(g: Game, order: list[int], pick: dict[int, int]) -> None:
    """Each seat of `order` chooses (names its mix first where the edition asks); seat p takes its
    legal action number pick[p] (mod the count) each time."""
    for p in order:
        while g.phase == "setup" and p in g.to_act():
            legal = g.legal_actions(p)
            g.step(legal[pick[p] % len(legal)], p)


def _rest(g: Game, seed: int) -> list[Any]:
    rng = random.Random(seed)
    while not g.is_over:
        g.step(rng.choice(g.legal_actions()))
    return [g.result()["players"], g.history[-60:]]


def _without_order(g: Game) -> dict[str, Any]:
    d = g.to_dict()
    for key in ("history", "history_seats"):
        d.pop(key)
    return d


@pytest.mark.parametrize(("edition", "players"), [("usa", 4), ("europe", 3), ("nordic", 3)])
def test_any_order_of_setup_keeps_gives_the_same_game(edition: str, players: int) -> None:
    base = Game(edition, players, 77)
    assert base.phase == "setup" and base.to_act() == tuple((base.first_player + i) % players for i in range(players))
    pick = {p: 3 * p + 1 for p in range(players)}
    games = []
    for order in itertools.islice(itertools.permutations(range(players)), 0, None, 5):
        g = base.clone()
        _play_setup(g, list(order), pick)
        assert g.phase == "turn" and g.current == g.first_player and g.to_act() == (g.first_player,)
        games.append((order, g))
    assert len(games) >= 2
    first = _without_order(games[0][1])
    after = _rest(games[0][1].clone(), 5)
    for order, g in games[1:]:
        assert _without_order(g) == first, order
        assert _rest(g, 5) == after, order


def test_marklin_keeps_in_any_order_after_the_mixes_are_named() -> None:
    """Märklin: a seat draws when it names its mix (whoever names first takes the top tickets, as at a
    table); keeping is order-free like everywhere else."""
    base = Game("marklin", 3, 8)
    mixes = base.clone()
    for p in mixes.to_act():
        mixes.step(mixes.legal_actions(p)[p % 3], p)  # every seat names a mix (draws), nobody kept yet
    assert mixes.phase == "setup" and len(mixes.to_act()) == 3
    ends = set()
    for order in ([0, 1, 2], [2, 1, 0], [1, 2, 0]):
        g = mixes.clone()
        _play_setup(g, order, {0: 0, 1: 5, 2: 9})
        ends.add(str(_without_order(g)))
    assert len(ends) == 1


def test_current_is_the_first_seat_still_choosing_and_others_may_act() -> None:
    g = Game("usa", 3, 4)
    first = g.current
    other = (first + 2) % 3
    legal = g.legal_actions(other)
    assert legal and all(a.type == "keep_tickets" for a in legal) and legal != g.legal_actions(first)
    events = g.apply(legal[0], other)
    assert [e.type for e in events] == ["keep_tickets"]
    assert g.current == first and g.to_act() == (first, (first + 1) % 3)
    assert g.legal_actions(other) == ()
    before = g.to_dict()
    with pytest.raises(IllegalAction) as err:
        g.apply(legal[0], other)  # chosen already: refused, nothing changes
    assert err.value.code == "not_your_turn" and g.to_dict() == before
    assert not g.is_legal(Action("draw_blind"), (first + 1) % 3)
    g.apply(g.legal_actions(first)[-1], first)
    assert g.current == (first + 1) % 3 and g.to_act() == ((first + 1) % 3,)
    g.apply(g.legal_actions()[0])
    assert g.phase == "turn" and g.current == first
    with pytest.raises(IllegalAction) as err:
        g.apply(g.legal_actions()[0], other)  # after setup only `current` acts
    assert err.value.code == "not_your_turn"


def test_tickets_returned_in_setup_go_back_when_everyone_has_chosen() -> None:
    g = Game("usa", 2, 9)
    deck_before = len(g.ticket_decks["regular"])
    second = 1 - g.current
    keep_two = next(a for a in g.legal_actions(second) if len(a.tickets or ()) == 2)
    g.step(keep_two, second)
    assert len(g.ticket_decks["regular"]) == deck_before and len(g.setup_returned[second]) == 1
    view = g.view(second).to_dict()
    assert view["to_act"] == [g.current] and view["public"][second]["drawn_tickets"] == 0
    g.step(g.legal_actions()[-1])  # the first player keeps all three
    assert len(g.ticket_decks["regular"]) == deck_before + 1 and g.setup_returned == [[], []]


def test_record_replays_an_out_of_order_setup_and_positions_round_trip() -> None:
    g = Game("europe", 4, 21)
    _play_setup(g, [(g.first_player + 3 - i) % 4 for i in range(4)], {p: p for p in range(4)})
    mid = Game("europe", 4, 21)
    mid.step(mid.legal_actions(mid.to_act()[-1])[0], mid.to_act()[-1])
    assert Game.from_dict(mid.to_dict()) == mid  # mid-setup, with a seat's returns pending
    rng = random.Random(3)
    for _ in range(40):
        g.step(rng.choice(g.legal_actions()))
    rec = g.record()
    assert rec["actors"][:4] == g.history_seats[:4] and rec["actors"][0] != g.first_player
    assert Game.replay(rec) == g
    assert Game.from_dict(g.to_dict()) == g


def test_format_1_positions_and_records_still_load() -> None:
    """Stored before simultaneous setup: no seats in records, setup_left in positions."""
    g = Game("usa", 3, 12)
    rng = random.Random(2)
    for _ in range(30):
        g.step(rng.choice(g.legal_actions()))
    old = g.to_dict()
    for key in ("setup_waiting", "setup_returned", "history_seats"):
        old.pop(key)
    old.update(format=1, setup_left=0)
    assert Game.from_dict(old) == g
    rec = g.record()
    del rec["actors"]
    assert Game.replay(rec) == g
    start = Game("usa", 3, 12).to_dict()
    for key in ("setup_waiting", "setup_returned", "history_seats"):
        start.pop(key)
    start.update(format=1, setup_left=3)
    assert Game.from_dict(start) == Game("usa", 3, 12)
