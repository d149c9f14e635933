"""``ttr.engine.scoring.longest_trail``: the Longest Continuous Path, counted in train spaces.

A trail may pass through a city several times but never uses a route twice. The hand-made cases
name the shapes that matter (branches, loops, figure-eight, revisits, ties); the hypothesis test
checks the search against an independent brute force (Euler's criterion on every edge subset).
"""

from __future__ import annotations

import copy
from functools import cache
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from ttr.editions import Edition, get_edition, parse_edition
from ttr.engine.scoring import longest_trail

Edge = tuple[str, str, int]


@cache
def graph_edition(edges: tuple[Edge, ...]) -> Edition:
    """A throw-away map whose routes are exactly `edges` (city names are single letters)."""
    raw = copy.deepcopy(get_edition("usa").raw)
    names = sorted({c for a, b, _ in edges for c in (a, b)} | {"a", "b"})
    raw["cities"] = [{"id": c, "lat": 40.0, "lon": -100.0 + i} for i, c in enumerate(names)]
    raw["routes"] = [{"id": f"r{i}", "a": a, "b": b, "length": n, "color": "gray"} for i, (a, b, n) in enumerate(edges)]
    raw["tickets"] = [{"id": "t", "a": "a", "b": "b", "points": 1}]
    return parse_edition(raw, "graph.json")


def trail(edges: list[Edge]) -> tuple[int, list[int]]:
    """longest_trail over all the routes of the graph; also checks the returned trail is a real trail."""
    ed = graph_edition(tuple(edges))
    length, path = longest_trail(ed, list(range(len(edges))))
    assert len(set(path)) == len(path), "a route is used twice"
    assert sum(ed.routes[r].length for r in path) == length
    if path:
        first = ed.routes[path[0]]
        assert any(walks(ed, path, start) for start in (first.a, first.b)), f"{path} is not a trail"
    return length, path


def walks(ed: Edition, path: list[int], here: int) -> bool:
    """Whether each route of `path` leaves from the city where the previous one arrived."""
    for r in path:
        route = ed.routes[r]
        if here not in (route.a, route.b):
            return False
        here = route.b if here == route.a else route.a
    return True


def brute_force(edges: list[Edge]) -> int:
    """Longest trail by Euler's criterion: the best edge subset that is connected with 0 or 2 odd cities."""
    best = 0
    for k in range(1, len(edges) + 1):
        for subset in combinations(edges, k):
            degree: dict[str, int] = {}
            parent: dict[str, str] = {}
            for a, b, _ in subset:
                degree[a] = degree.get(a, 0) + 1
                degree[b] = degree.get(b, 0) + 1
                parent[_root(parent, a)] = _root(parent, b)
            if len({_root(parent, c) for c in degree}) == 1 and sum(d % 2 for d in degree.values()) in (0, 2):
                best = max(best, sum(n for _, _, n in subset))
    return best


def _root(parent: dict[str, str], x: str) -> str:
    while parent.setdefault(x, x) != x:
        x = parent[x]
    return x


def test_no_routes_is_zero() -> None:
    assert longest_trail(graph_edition((("a", "b", 1),)), []) == (0, [])


def test_single_route_and_a_simple_path() -> None:
    assert trail([("a", "b", 4)])[0] == 4
    assert trail([("a", "b", 2), ("b", "c", 3), ("c", "d", 1)])[0] == 6


def test_branches_take_the_two_longest_arms() -> None:
    # a star: the trail enters by one arm and leaves by another; an arm is never walked back
    assert trail([("x", "a", 3), ("x", "b", 2), ("x", "c", 1)])[0] == 5
    assert trail([("x", "a", 5), ("x", "b", 4), ("x", "c", 1), ("x", "d", 1)])[0] == 9  # leaves are dead ends


def test_a_branch_does_not_count_twice() -> None:
    # a-b-c-d with a spur b-e: the spur is a dead end, so only one of a-b / b-e joins the trail
    length, _ = trail([("a", "b", 2), ("b", "c", 2), ("c", "d", 2), ("b", "e", 3)])
    assert length == 7


def test_loop_with_a_tail_uses_every_route() -> None:
    assert trail([("a", "b", 1), ("b", "c", 2), ("c", "a", 3), ("c", "d", 4)])[0] == 10


def test_closed_loop_alone() -> None:
    assert trail([("a", "b", 2), ("b", "c", 2), ("c", "d", 2), ("d", "a", 2)])[0] == 8


def test_figure_eight_passes_the_shared_city_twice() -> None:
    edges = [("x", "a", 1), ("a", "b", 2), ("b", "x", 3), ("x", "c", 4), ("c", "d", 5), ("d", "x", 6)]
    length, path = trail(edges)
    assert length == 21 and len(path) == 6


def test_two_loops_joined_by_a_bridge_revisit_both_junctions() -> None:
    edges = [("a", "b", 1), ("b", "c", 1), ("c", "a", 1), ("c", "d", 5), ("d", "e", 1), ("e", "f", 1), ("f", "d", 1)]
    assert trail(edges)[0] == 11


def test_parallel_routes_between_two_cities_are_two_routes() -> None:
    assert trail([("a", "b", 2), ("a", "b", 3)])[0] == 5
    assert trail([("a", "b", 2), ("a", "b", 3), ("b", "c", 4)])[0] == 9


def test_a_route_is_never_used_twice_even_to_reach_a_longer_branch() -> None:
    # dumbbell without loops: a-x (1), x-y bridge (6), y-b (1), y-c (1), x-d (1)
    assert trail([("a", "x", 1), ("x", "y", 6), ("y", "b", 1), ("y", "c", 1), ("x", "d", 1)])[0] == 8


def test_disconnected_parts_take_the_best_part_even_an_all_even_loop() -> None:
    # the loop has no odd-degree city; the other part does
    edges = [("a", "b", 3), ("b", "c", 3), ("c", "d", 3), ("d", "a", 3), ("e", "f", 6), ("f", "g", 5)]
    assert trail(edges)[0] == 12


def test_ties_report_the_common_length() -> None:
    length, path = trail([("a", "b", 3), ("b", "c", 3), ("d", "e", 6)])
    assert length == 6
    assert sorted(path) in ([0, 1], [2])


def test_on_the_usa_map() -> None:
    ed = get_edition("usa")
    ids = [
        "seattle-vancouver/1",
        "calgary-vancouver",
        "calgary-helena",
        "helena-seattle",
        "portland-seattle/1",
        "helena-winnipeg",
    ]  # a loop Seattle-Vancouver-Calgary-Helena-Seattle plus two tails
    length, path = longest_trail(ed, [ed.route_index[r] for r in ids])
    # four odd cities (Seattle, Helena, Portland, Winnipeg): one tail must be left out, the shorter one
    assert length == 1 + 3 + 4 + 6 + 4
    assert ed.route_index["portland-seattle/1"] not in path


cities = st.sampled_from("abcdef")
edge = st.tuples(cities, cities, st.integers(1, 6)).filter(lambda e: e[0] != e[1])


@settings(max_examples=150, deadline=None)
@given(st.lists(edge, min_size=1, max_size=9))
def test_matches_brute_force_on_random_small_networks(edges: list[Edge]) -> None:
    assert trail(edges)[0] == brute_force(edges)
