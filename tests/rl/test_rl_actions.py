"""The action space: every legal engine action has exactly one index, masks are exact, bad indices are refused."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ttr.cards import NCARDS
from ttr.editions import BUILTIN, get_edition
from ttr.engine import Action, Game
from ttr.engine import payments as pay
from ttr.rl import IllegalActionIndex, codec_for, ticket_to_ride_v0
from ttr.rl.actions import FERRY_SUBST, PLAIN, SUBSTITUTE
from ttr.rl.layout import layout_markdown

DOCS = Path(__file__).resolve().parents[2] / "docs" / "rl.md"
PLAYERS = {"usa": (2, 5), "europe": (3, 4), "nordic": (2, 3), "marklin": (2, 4)}


@pytest.mark.parametrize("edition", BUILTIN)
def test_masked_random_play_maps_every_legal_action_to_one_index(edition: str) -> None:
    """Thousands of random masked steps: the mask is exactly the engine's legal set, one index per action."""
    rng = random.Random(7)
    steps = 0
    for players in PLAYERS[edition]:
        env = ticket_to_ride_v0.raw_env(edition=edition, players=players)
        for episode in range(6 if edition != "marklin" else 4):
            env.reset(seed=100 + episode)
            while env.agents:
                obs, _, term, _, _ = env.last()
                if term:
                    env.step(None)
                    continue
                legal = env.game.legal_actions()
                table = env._index_table()
                assert sorted(map(str, table.values())) == sorted(map(str, legal))
                mask = obs["action_mask"]
                assert mask.dtype == np.int8 and int(mask.sum()) == len(legal)
                assert set(np.flatnonzero(mask).tolist()) == set(table)
                env.step(int(rng.choice(np.flatnonzero(mask))))
                steps += 1
    assert steps >= 2000
    assert env.codec.unencoded == 0


def test_illegal_index_is_refused_with_its_meaning_and_changes_nothing() -> None:
    env = ticket_to_ride_v0.raw_env(edition="usa", players=2)
    env.reset(seed=3)
    obs, *_ = env.last()
    before = env.game.to_dict()
    codec = env.codec
    claim = codec.blocks["claim"].start  # the first route, first payment: never legal during setup
    assert obs["action_mask"][claim] == 0
    with pytest.raises(IllegalActionIndex, match=r"claim .* is not legal for player_\d now \(phase setup\)") as exc:
        env.step(claim)
    assert exc.value.code == "masked_action"
    with pytest.raises(IllegalActionIndex, match="outside the action space"):
        env.step(codec.size)
    with pytest.raises(IllegalActionIndex, match="integer index"):
        env.step(1.5)
    assert env.game.to_dict() == before
    legal = int(np.flatnonzero(obs["action_mask"])[0])
    env.step(np.int64(legal))  # numpy integers are accepted
    assert env.game.to_dict() != before


def test_keep_ticket_index_names_offered_positions() -> None:
    env = ticket_to_ride_v0.raw_env(edition="nordic", players=2)
    env.reset(seed=5)
    env.last()
    game = env.game
    p = game.current
    offered = game.offered[p][:]
    assert len(offered) == 5
    keep = env.codec.blocks["keep_tickets"]
    bits = 0b10011  # positions 0, 1 and 4
    env.step(keep.start + bits - 1)
    kept = set(game.tickets[p])
    assert kept == {offered[0], offered[1], offered[4]}


def test_claim_index_means_colour_and_locomotives() -> None:
    codec = codec_for(get_edition("usa"))
    ed = codec.edition
    route = next(r for r in ed.routes if r.colour < 0 and r.length == 3)
    rc = codec.route_codes[route.index]
    assert rc.kind == PLAIN and rc.size == 8 * 3 + 1
    # blue (colour 4) with one locomotive
    assert codec.describe(rc.start + 4 * 3 + 1) == f"claim {route.id} paying blue cards and 1 locomotive(s)"
    assert codec.describe(rc.start + rc.size - 1) == f"claim {route.id} paying locomotives only"


@pytest.mark.parametrize("edition", BUILTIN)
def test_layout_is_contiguous_and_every_index_described(edition: str) -> None:
    codec = codec_for(get_edition(edition))
    pos = 0
    for block in codec.blocks.values():
        assert block.start == pos
        pos = block.stop
    assert pos == codec.size
    assert all(codec.describe(i) for i in range(codec.size))


def test_docs_embed_the_current_layout_tables() -> None:
    """docs/rl.md must show the layout the code has (regenerate with ``python -m ttr.rl.layout``)."""
    assert layout_markdown() in DOCS.read_text()


NORDIC = get_edition("nordic")
SPECIAL = [r for r in NORDIC.routes if codec_for(NORDIC).route_codes[r.index].kind in (FERRY_SUBST, SUBSTITUTE)]


@settings(max_examples=300, deadline=None)
@given(route_i=st.integers(0, len(SPECIAL) - 1), hand=st.lists(st.integers(0, 6), min_size=9, max_size=9))
def test_substitution_payment_codes_cover_the_engine_payments(route_i: int, hand: list[int]) -> None:
    """Nordic ferries and Murmansk–Lieksa: each canonical payment gets its own code in the route's range."""
    codec = codec_for(NORDIC)
    route = SPECIAL[route_i]
    full = [*hand, 0, 0][:NCARDS]
    engine = pay.route_payments(route, full, NORDIC.rules)
    codec._mirror_cache.clear()  # this route's own walk, not a cached answer of a route of the same shape
    codes = codec._mirror(codec.route_codes[route.index], tuple(full))
    assert set(codes) == set(engine)
    assert len(set(codes.values())) == len(codes)
    assert all(0 <= c < codec.route_codes[route.index].size for c in codes.values())


@settings(max_examples=100, deadline=None)
@given(hand=st.lists(st.integers(0, 6), min_size=9, max_size=9))
def test_routes_of_one_shape_share_their_payment_codes(hand: list[int]) -> None:
    """The cached codes of a substitution route are shared by the routes of its shape: each route's own walk
    gives the same codes as the walk of the first route of its shape."""
    codec = codec_for(NORDIC)
    full = tuple([*hand, 0, 0][:NCARDS])
    first: dict[int, dict] = {}
    shapes = set()
    for route in SPECIAL:
        codec._mirror_cache.clear()
        codes = codec._mirror(codec.route_codes[route.index], full)
        shape = codec._shape[route.index]
        shapes.add(shape)
        assert first.setdefault(shape, codes) == codes, route.id
    assert len(shapes) < len(SPECIAL)  # some routes do share a shape


def test_marklin_mix_and_passenger_blocks() -> None:
    codec = codec_for(get_edition("marklin"))
    assert len(codec.mixes) == 5 and codec.blocks["draw_tickets"].size == 6
    assert codec.blocks["move_passenger"].size == 3 * 11
    game = Game("marklin", 2, 1)
    table = codec.legal_table(game.legal_actions(), game.view(game.current))
    start = codec.blocks["draw_tickets"].start
    assert sorted(table) == list(range(start, start + 5))  # setup: name one of the five mixes


def test_actions_without_an_index_are_left_out_of_the_mask() -> None:
    """Were the engine to offer a payment the layout cannot name, the mask would omit it, not misname it."""
    codec = codec_for(get_edition("usa"))
    game = Game("usa", 2, 0)
    view = game.view(game.current)
    route = get_edition("usa").routes[0]
    two_colours = Action("claim", route=route.id, cards=(1, 1) + (0,) * (NCARDS - 2))
    blind = Action("draw_blind")
    before = codec.unencoded
    table = codec.legal_table([blind, two_colours, blind], view)
    assert table == {codec.blocks["draw_blind"].start: blind}
    assert codec.unencoded == before + 2
