"""Every rule option has a type and a range (ttr.editions.RULE_OPTIONS, documented in docs/map-format.md),
checked whenever an edition is built — a map file or a game's house rules — so that no caller can make the
engine deal, loop or store without bound. Refusals are EditionErrors naming the option, the value and the
allowed range, never a file path; any value, however absurd, is accepted or refused at once."""

from __future__ import annotations

import copy
import gc
import json
import random
import re
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ttr.editions import BUILTIN, DATA_DIR, RULE_OPTIONS, get_edition, parse_edition
from ttr.editions.model import REQUIRED, show
from ttr.engine import Game, edition_with_options
from ttr.errors import EditionError, IllegalAction

ROOT = Path(__file__).resolve().parents[2]
MAP_FORMAT = (ROOT / "docs" / "map-format.md").read_text(encoding="utf-8")
LIMIT_S = 0.1  # accept or refuse within 100 ms of CPU time (a hang, an endless deal, a huge position all burn CPU)


def cpu_timed(fn: Any, *args: Any) -> tuple[float, Any]:
    """(CPU seconds this thread spent, the result or the exception). CPU time, not wall time: the CI machine
    runs other work, and what a hostile value costs is the CPU it burns."""
    gc.collect()  # a collection of the test's own garbage (hypothesis makes plenty) is not the call's cost
    gc.disable()
    start = time.thread_time()
    try:
        out: Any = fn(*args)
    except Exception as exc:
        out = exc
    finally:
        gc.enable()
    return time.thread_time() - start, out


def new_game(edition: str, options: Any) -> Game:
    ed = get_edition(edition)
    return Game(ed, ed.rules.players[0], 7, options)


# ---------------------------------------------------------------- the ranges admit what exists


@pytest.mark.parametrize("edition", BUILTIN)
def test_every_builtin_edition_is_within_the_ranges(edition: str) -> None:
    rules = json.loads((DATA_DIR / f"{edition}.json").read_text(encoding="utf-8"))["rules"]
    assert set(rules) <= set(RULE_OPTIONS)
    for name, value in rules.items():
        assert RULE_OPTIONS[name][0].problem(value) is None, (name, value)
    # and every built-in value is also accepted as a house rule on every other edition's map
    for other in BUILTIN:
        for name in ("trains", "starting_hand", "market_size", "locomotive_flush", "passengers", "most_tickets_bonus"):
            new_game(other, {name: rules[name]})


def test_defaults_are_within_the_ranges() -> None:
    for name, (spec, default) in RULE_OPTIONS.items():
        assert default is REQUIRED or spec.problem(default) is None, name


@pytest.mark.parametrize(
    ("edition", "options"),
    [
        ("usa", {"trains": 30, "starting_hand": 6, "end_trigger_trains": 0}),
        ("usa", {"stations": 3, "station_costs": [1, 2, 3], "tiebreakers": ["tickets_completed", "fewest_stations"]}),
        ("usa", {"players": [2, 8], "longest_path_bonus": 15, "most_tickets_bonus": 10}),
        ("usa", {"initial_tickets": {"deal": {"regular": 5}, "keep_min": 3, "returned": "remove"}}),
        ("europe", {"stations": 0, "trains": 15}),
        ("europe", {"locomotive_flush": 0, "max_consecutive_flushes": 0, "market_size": 6}),
        ("nordic", {"ferry_substitute_cards": 0, "all_lanes_min_players": 2, "locomotives_wild": "all"}),
        ("marklin", {"passengers": 5, "passenger_flush": 0, "passenger_one_token_per_city": False}),
        (
            "marklin",
            {"draw_tickets": {"choose_mix": True, "count": 6, "decks": ["short", "long"], "keep_min": 1, "returned": "bottom"}},
        ),
        ("usa", {"route_points": {"1": 1, "2": 3, "3": 5, "4": 8, "5": 12, "6": 18}}),
    ],
)
def test_sensible_house_rules_are_accepted(edition: str, options: dict[str, Any]) -> None:
    g = new_game(edition, options)
    for name, value in options.items():
        assert g.edition.raw["rules"][name] == value


# ---------------------------------------------------------------- absurd values are refused, with the reason


@pytest.mark.parametrize(
    ("options", "shown", "allowed"),
    [
        ({"starting_hand": 100000000000000000000}, "100000000000000000000", "an integer from 0 to 20"),
        ({"passengers": 3_000_000}, "3000000", "an integer from 0 to 10"),
        ({"trains": 10**5000}, "an integer of about 5001 digits", "an integer from 1 to 100"),
        ({"trains": -1}, "-1", "an integer from 1 to 100"),
        ({"market_size": 2.5}, "2.5", "an integer from 1 to 10"),
        ({"starting_hand": True}, "true", "an integer from 0 to 20"),
        ({"starting_hand": "4"}, "'4'", "an integer from 0 to 20"),
        ({"ferry_substitute_cards": 1}, "1", "0 (off) or an integer from 2 to 10"),
        ({"faceup_locomotive_single": 1}, "1", "true or false"),
        ({"locomotives_wild": "x" * 10_000}, "'" + "x" * 40 + "...'", "'all' or 'ferries_and_tunnels'"),
        ({"players": [2, 10**9]}, "[2, 1000000000]", "[min, max]: two integers with 1 <= min <= max <= 8"),
        ({"station_costs": list(range(10**6))}, "a list of 1000000 items", "a list of at most 10 integers, each from 0 to 10"),
        ({"tiebreakers": ["tickets_completed"] * 2}, '["tickets_completed", "tickets_completed"]', "a list of distinct names"),
        ({"route_points": {"1": 1, "99999999999": 2}}, '{"1": 1, "99999999999": 2}', "lengths from 1 to 20"),
    ],
)
def test_absurd_values_are_refused_naming_the_option_the_value_and_the_range(
    options: dict[str, Any], shown: str, allowed: str
) -> None:
    (name,) = options
    spent, err = cpu_timed(new_game, "usa", options)
    assert isinstance(err, EditionError), err
    message = str(err)
    assert f"rules.{name}:" in message and shown in message and allowed in message, message
    assert spent < LIMIT_S


def test_ticket_policies_are_bounded() -> None:
    mix = {"choose_mix": True, "count": 4, "decks": ["short", "long"], "keep_min": 1, "returned": "bottom"}
    for bad, reason in [
        ({**mix, "count": 10**6}, "count: must be an integer from 1 to 10"),
        ({**mix, "decks": ["short"] * 12}, "decks: must be a list of 1 to 4 distinct deck names"),
        ({**mix, "extra": 1}, "unknown field 'extra'"),
        ({**mix, "keep_min": 9}, "keep_min 9 must be between 0 and the 4 tickets dealt"),
        ({"deal": {"short": 10**9}, "keep_min": 1}, "deal: must be an object {deck: count}"),
        ({"deal": {"atlantis": 2}, "keep_min": 1}, "unknown ticket deck 'atlantis'"),
        ({"keep_min": 1}, "missing field 'deal'"),
    ]:
        with pytest.raises(EditionError, match=re.escape(reason)):
            new_game("marklin", {"draw_tickets": bad})


def test_an_unknown_option_or_options_that_are_not_an_object_are_refused() -> None:
    with pytest.raises(EditionError, match=r"unknown rule option\(s\) trains_per_player, 'x{40}\.\.\.' \(known: players, "):
        new_game("usa", {"trains_per_player": 30, "x" * 5000: 1})
    with pytest.raises(EditionError, match=r"rule options must be an object"):
        edition_with_options(get_edition("usa"), [("trains", 3)])  # type: ignore[arg-type]


def test_refusals_never_name_a_file_on_the_server() -> None:
    for edition in BUILTIN:
        ed = get_edition(edition)
        for options in ({"passengers": -1}, {"stations": 9}, {"route_points": {"1": 1}}, {"nope": 1}):
            with pytest.raises(EditionError) as info:
                new_game(edition, options)
            message = str(info.value)
            assert ed.source_path not in message and str(DATA_DIR) not in message and ".json" not in message, message
            assert message.startswith(f"{ed.id} with options: "), message


def test_map_files_are_held_to_the_same_ranges() -> None:
    raw = json.loads((DATA_DIR / "usa.json").read_text(encoding="utf-8"))
    route = raw["routes"][0]["id"]
    for change, reason in [
        (lambda r: r["rules"].update(starting_hand=10**20), "rules.starting_hand: must be an integer from 0 to 20"),
        (lambda r: r["rules"].update(house_rule=1), "rules: unknown rule option 'house_rule'"),
        (lambda r: r["rules"].pop("trains"), "rules: missing field 'trains'"),
        (lambda r: r["deck"].update(red=10**9), "deck.red: count must be an integer from 0 to 200"),
        (lambda r: r["routes"][0].update(length=10**6), f"('{route}'): length must be an integer from 1 to 20"),
        (lambda r: r["routes"][0].update(substitute=1), "substitute must be 0 (none) or an integer from 2 to 10"),
        (lambda r: r["tickets"][0].update(points=10**9), "points must be an integer from 1 to 100"),
        (
            lambda r: r["routes"][0].update(length=10**5000),
            "length must be an integer from 1 to 20, got an integer of about 5001",
        ),
    ]:
        broken = copy.deepcopy(raw)
        change(broken)
        spent, err = cpu_timed(parse_edition, broken, "maps/my-usa.json")
        assert isinstance(err, EditionError), (reason, err)
        assert str(err).startswith("maps/my-usa.json: ") and reason in str(err), str(err)
        assert spent < LIMIT_S


def test_map_format_doc_gives_every_options_type_and_range() -> None:
    rows = {m.group(1): m.group(0) for m in re.finditer(r"^\| `(\w+)` \|.*$", MAP_FORMAT, re.M)}
    for name, (spec, _default) in RULE_OPTIONS.items():
        assert name in rows, f"docs/map-format.md has no row for {name}"
        assert spec.describe() in rows[name], f"docs/map-format.md: {name} should say {spec.describe()!r}"


def test_show_is_short_and_safe_for_anything() -> None:
    deep: Any = []
    for _ in range(100_000):
        deep = [deep]
    for value in (deep, 10**100_000, "x" * 10**6, {"a": deep}, list(range(10**5)), object(), float("nan")):
        spent, out = cpu_timed(show, value)
        assert isinstance(out, str) and len(out) < 100 and spent < LIMIT_S, out


# ---------------------------------------------------------------- any value: accepted or refused at once

_ints = st.one_of(
    st.integers(-3, 120),
    st.integers(),
    st.builds(lambda digits, sign: sign * 10**digits, st.integers(15, 6000), st.sampled_from([1, -1])),
)
_scalars = st.one_of(
    _ints,
    st.booleans(),
    st.none(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    st.sampled_from(["all", "ferries_and_tunnels", "bottom", "remove", "regular", "short", "long", "tickets_completed"]),
    st.builds(lambda n: "x" * n, st.integers(1000, 20_000)),
)
_deep = st.builds(lambda depth, leaf: _nest(depth, leaf), st.integers(10, 5000), st.sampled_from([[], {}, 1]))


def _nest(depth: int, leaf: Any) -> Any:
    value = leaf
    for i in range(depth):
        value = [value] if i % 2 else {"k": value}
    return value


_values = st.one_of(
    st.recursive(
        _scalars,
        lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=8), inner, max_size=6),
        max_leaves=20,
    ),
    _deep,
    st.builds(lambda n, v: [v] * n, st.integers(0, 50_000), _ints),
    st.fixed_dictionaries(  # ticket policies with random fields
        {"keep_min": _ints},
        optional={
            "deal": st.dictionaries(st.sampled_from(["regular", "short", "long", "x"]), _ints),
            "choose_mix": st.booleans(),
            "count": _ints,
            "decks": st.lists(st.sampled_from(["short", "long", "regular"]), max_size=8),
            "returned": st.sampled_from(["bottom", "remove", "sideways"]),
        },
    ),
)
_names = st.one_of(st.sampled_from(sorted(RULE_OPTIONS)), st.text(max_size=12))
_options = st.dictionaries(_names, _values, max_size=4)


@pytest.mark.timeout(120)
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(edition=st.sampled_from(BUILTIN), options=_options)
def test_any_option_values_are_accepted_or_refused_within_100_ms(edition: str, options: dict[Any, Any]) -> None:
    spent, out = cpu_timed(new_game, edition, options)
    assert isinstance(out, Game | EditionError | IllegalAction), repr(out)
    assert spent < LIMIT_S, f"{spent * 1000:.0f} ms for {show(options)}"
    if isinstance(out, EditionError):
        assert len(str(out)) < 1000 and "/" not in str(out).split(":", 1)[0]


@pytest.mark.timeout(120)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    edition=st.sampled_from(BUILTIN),
    options=st.dictionaries(
        st.sampled_from(sorted(RULE_OPTIONS)),
        st.one_of(st.integers(-1, 101), st.booleans(), st.sampled_from([[], [1, 2, 3], [2, 5]])),
    ),
    seed=st.integers(0, 2**32),
)
def test_games_with_any_accepted_options_play(edition: str, options: dict[str, Any], seed: int) -> None:
    """Whatever the ranges let through gives a game that deals, offers legal actions and plays on (no division by
    zero, no endless loop): the first 40 random actions of each, cheaply."""
    ed = get_edition(edition)
    try:
        g = Game(ed, 2 if ed.rules.players[0] <= 2 else ed.rules.players[0], seed, options)
    except (EditionError, IllegalAction):
        return
    rng = random.Random(seed)
    start = time.thread_time()
    for _ in range(40):
        legal = g.legal_actions()
        if g.is_over or not legal:
            break
        g.step(rng.choice(legal))
    assert time.thread_time() - start < 2.0
    assert len(json.dumps(g.to_dict())) < 100_000  # the stored position stays small
