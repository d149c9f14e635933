"""Property tests over random games on all four editions and every player count.

A seeded random-play driver plays whole games; hypothesis chooses the seeds (and the play style).
Checked at every step: every card of the edition is somewhere (deck, discard, market, hands, a
pending tunnel), every train too, the score shown equals the points of the routes owned (plus
merchandise tokens), views and events carry no other player's secrets. At random points: the
position and ``clone()`` round-trip exactly and a view does not change when only hidden
information changes. At the end: replaying the record rebuilds the identical game.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from positions import card_total, hand_of
from ttr.editions import BUILTIN, get_edition
from ttr.engine import Action, Event, Game
from ttr.engine.actions import CLAIM, DRAW_BLIND, DRAW_FACEUP, DRAW_TICKETS, KEEP_TICKETS

GAMES = [(e, n) for e in BUILTIN for n in range(get_edition(e).rules.players[0], get_edition(e).rules.players[1] + 1)]
GAME_IDS = [f"{e}-{n}p" for e, n in GAMES]
STYLES = ("uniform", "hoard", "claim")
seeds = st.integers(0, 2**32 - 1)
CHEAP_GAMES = 25


def choose(g: Game, rng: random.Random, style: str) -> Action:
    """A random legal action. 'hoard' draws while it can (the deck and the ticket deck run dry,
    forcing reshuffles, empty markets and passes); 'claim' claims whenever it can (short games,
    many end triggers); 'uniform' picks any legal action."""
    legal = g.legal_actions()
    if style == "hoard":
        draws = [a for a in legal if a.type in (DRAW_BLIND, DRAW_FACEUP, DRAW_TICKETS)]
        if draws and rng.random() < 0.95:
            return rng.choice(draws)
        if g.phase == KEEP_TICKETS and rng.random() < 0.5:
            return min(legal, key=lambda a: len(a.tickets or ()))
    elif style == "claim":
        claims = [a for a in legal if a.type == CLAIM]
        if claims:
            return rng.choice(claims)
    return rng.choice(legal)


def play(edition: str, players: int, seed: int, style: str, *, events: bool = False) -> Iterator[tuple[Game, list[Event]]]:
    """Play one random game, yielding (game, events of the last action) after setup and after each action."""
    g = Game(edition, players, seed)
    rng = random.Random(seed ^ 0x5EED)
    yield g, []
    while not g.is_over:
        action = choose(g, rng, style)
        if events:
            evs = g.apply(action.to_json() if rng.random() < 0.2 else action)
        else:
            g.step(action)
            evs = []
        yield g, evs


# ---------------------------------------------------------------- invariants checked at every step


def check_accounting(g: Game) -> None:
    ed, r = g.edition, g.rules
    assert card_total(g) == list(ed.deck), "cards created or lost"
    for p in range(g.n):
        owned = [ed.routes[i] for i, o in enumerate(g.route_owner) if o == p]
        assert g.trains[p] >= 0
        assert g.trains[p] + sum(x.length for x in owned) == r.trains, "trains created or lost"
        assert g.scores[p] == sum(x.points for x in owned) + sum(g.tokens[p]), "score differs from owned routes"
        assert g.stations_left[p] + sum(1 for o in g.station_owner if o == p) == r.stations
    tickets = [t for ts in g.tickets for t in ts] + [t for ts in g.offered for t in ts] + g.removed_tickets
    tickets += [t for deck in g.ticket_decks.values() for t in deck]
    tickets += [t for ts in g.setup_returned for t in ts]  # returned in setup, back under their deck when all chose
    assert sorted(tickets) == list(range(len(ed.tickets))), "tickets created, lost or duplicated"


def _strings(data: Any, out: set[str]) -> set[str]:
    """Every string in a view's JSON except route ids in route-valued places (a ticket id may equal a route id)."""
    if isinstance(data, str):
        out.add(data)
    elif isinstance(data, list):
        for x in data:
            _strings(x, out)
    elif isinstance(data, dict):
        for k, v in data.items():
            if k in ("routes", "last_claimed", "route"):
                continue
            out.add(k)
            _strings(v, out)
    return out


def _items(data: Any) -> Iterator[tuple[str, Any]]:
    """Every (key, value) pair at any depth of a JSON value."""
    if isinstance(data, dict):
        for k, v in data.items():
            yield k, v
            yield from _items(v)
    elif isinstance(data, list):
        for x in data:
            yield from _items(x)


def check_views(g: Game) -> None:
    ed = g.edition
    for viewer in [*range(g.n), None]:
        data = g.view(viewer).to_dict()
        json.dumps(data)  # JSON-ready
        for key, value in _items(data):
            assert key not in ("rng", "seed", "hands", "history"), f"view holds {key!r}"
            assert key != "deck" or isinstance(value, str), "view holds the deck"  # a ticket's "deck" names its deck
        assert all(isinstance(v, int) for v in data["ticket_decks"].values()), "ticket deck order leaked"
        if viewer is None:
            assert "hand" not in data and "tickets" not in data
        else:
            assert data["hand"] == hand_of(g, viewer)
        if g.is_over:
            continue
        secret = {ed.tickets[t].id for q in range(g.n) if q != viewer for t in (*g.tickets[q], *g.offered[q])}
        leaked = secret & _strings(data, set())
        assert not leaked, f"view of {viewer} shows other players' tickets {leaked}"


def check_events(g: Game, events: list[Event]) -> None:
    for e in events:
        if not e.secret:
            continue
        hidden = set(e.secret) - set(e.data)
        for viewer in [*range(g.n), None]:
            shown = e.for_player(viewer)
            if viewer == e.player:
                assert hidden <= set(shown)
            else:
                assert not hidden & set(shown), f"event {e.type} shows {hidden} to {viewer}"


# ---------------------------------------------------------------- checks at random points


def check_round_trips(g: Game, rng: random.Random) -> None:
    d = g.to_dict()
    assert Game.from_dict(json.loads(json.dumps(d))) == g
    c = g.clone()
    assert c == g and c.legal_actions() == g.legal_actions()
    if not g.is_over:
        action = rng.choice(g.legal_actions())
        c.step(action)
        assert g.to_dict() == d, "advancing a clone changed the original"
        twin = Game.from_dict(d)
        twin.step(action)
        assert twin == c, "the same action from the same position gave different games"


def check_view_ignores_hidden_information(g: Game, rng: random.Random) -> None:
    """Changing only what nobody may see (deck order, random state) leaves every view identical;
    changing one player's hand or tickets changes that player's view and no other."""
    if g.is_over:
        return
    d = g.to_dict()
    views = {p: g.view(p).to_dict() for p in [*range(g.n), None]}
    other = json.loads(json.dumps(d))
    rng.shuffle(other["deck"])
    state = random.Random(rng.random()).getstate()
    other["rng"] = [state[0], list(state[1]), state[2]]
    shuffled = Game.from_dict(other)
    assert {p: shuffled.view(p).to_dict() for p in views} == views
    q = rng.randrange(g.n)
    for deck_name, deck in other["ticket_decks"].items():
        mine = [i for i, t in enumerate(other["tickets"][q]) if g.edition.tickets[g.edition.ticket_index[t]].deck == deck_name]
        if deck and mine:  # swap one of q's tickets with one still in the deck
            i, j = rng.choice(mine), rng.randrange(len(deck))
            other["tickets"][q][i], deck[j] = deck[j], other["tickets"][q][i]
            break
    hand = other["hands"][q]
    swap = [(held, i) for held in hand for i, c in enumerate(other["deck"]) if c != held]
    if swap:  # exchange one of q's cards for a different card from the deck
        held, i = rng.choice(swap)
        hand[held] -= 1
        hand[other["deck"][i]] = hand.get(other["deck"][i], 0) + 1
        other["deck"][i] = held
        hand = {k: v for k, v in hand.items() if v}
        other["hands"][q] = hand
    if other["tickets"][q] != d["tickets"][q] or swap:
        changed = Game.from_dict(other)
        for p in views:
            if p != q:
                assert changed.view(p).to_dict() == views[p], f"view of {p} depends on player {q}'s hand or tickets"
        assert changed.view(q).to_dict() != views[q]


# ---------------------------------------------------------------- the properties


@pytest.mark.parametrize(("edition", "players"), GAMES, ids=GAME_IDS)
@settings(max_examples=3, deadline=None)
@given(seed=seeds, style=st.sampled_from(STYLES))
def test_every_step_accounts_for_cards_trains_score_and_secrets(edition: str, players: int, seed: int, style: str) -> None:
    for g, events in play(edition, players, seed, style, events=True):
        check_accounting(g)
        check_views(g)
        check_events(g, events)
    assert g.is_over


@pytest.mark.parametrize(("edition", "players"), GAMES, ids=GAME_IDS)
@settings(max_examples=4, deadline=None)
@given(seed=seeds, style=st.sampled_from(STYLES))
def test_positions_clones_and_records_reproduce_the_game(edition: str, players: int, seed: int, style: str) -> None:
    rng = random.Random(seed)
    for g, _ in play(edition, players, seed, style):
        if rng.random() < 0.03:
            check_round_trips(g, rng)
            check_view_ignores_hidden_information(g, rng)
    record = json.loads(json.dumps(g.record()))
    again = Game.replay(record)
    assert again.to_dict() == g.to_dict()
    assert again.result() == g.result()
    assert record["result"]["scores"] == [x["total"] for x in g.result()["players"]]
    check_round_trips(g, rng)


@pytest.mark.parametrize(("edition", "players"), GAMES, ids=GAME_IDS)
@settings(max_examples=6, deadline=None)
@given(seed=seeds)
def test_many_cheap_games_conserve_cards_trains_and_score(edition: str, players: int, seed: int) -> None:
    """CHEAP_GAMES whole games per example, accounting checked at every step: 14 tables x 6 examples x 25
    games = 2,100 games per run.
    (The 'hoard' style is left to the other properties: huge hands make its legal-move lists long.)"""
    for k in range(CHEAP_GAMES):
        for g, _ in play(edition, players, seed + k, ("uniform", "claim")[k % 2]):
            check_accounting(g)
        assert g.is_over
        res = g.result()
        assert [x["route_points"] + x["merchandise"] for x in res["players"]] == g.scores
        assert res["winners"] == [x["player"] for x in res["players"] if x["rank"] == 1]


def test_the_hoard_style_reaches_the_rare_situations() -> None:
    """The driver must actually exercise empty decks, empty ticket decks and passes, or the
    properties above would say little about them."""
    seen = {"deck and discard empty": 0, "ticket deck empty": 0, "pass": 0}
    for seed in range(20):
        found = set()
        for g, _ in play("usa", 3, seed, "hoard"):
            if not g.deck and not g.discard:
                found.add("deck and discard empty")
            if not g.ticket_decks["regular"]:
                found.add("ticket deck empty")
            if g.history and g.history[-1].type == "pass":
                found.add("pass")
        for k in found:
            seen[k] += 1
    assert seen["deck and discard empty"] >= 5 and seen["ticket deck empty"] >= 5 and seen["pass"] >= 1, seen
