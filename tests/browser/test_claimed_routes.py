"""Issue 15, point 3: a claimed route never reads as an unclaimed route of the player's colour.

A five-player USA board where, for every printed colour, one route is claimed by each player and the others are
left free. From screenshot pixels (the dominant colour inside each route's spaces), the CIELAB ΔE (CIE76) between
every claimed route and the unclaimed routes of the same printed colour — and of any printed colour — must be
≥ 30, at 1366×768 and 390×844 and in colour-blind mode. (The issue asks for 20; the old drawing, trains in the
player's colour over fills at 80% opacity, already measured 19.7–21 for same-hue pairs, so 20 does not tell the
two designs apart.) In colour-blind mode every claimed space also carries its owner's shape and every free coloured
route its letter and pattern, and under simulated protanopia, deuteranopia and tritanopia the fill or the outline
of claimed and free spaces still differs by ΔE ≥ 20. Figures go to artifacts/claimed-routes.json.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import pytest
from board_measure import (
    CVD,
    DESKTOP,
    PHONE,
    Pages,
    crafted_state,
    delta_e,
    dominant,
    module_pages,
    parse_colour,
    screenshot_pixels,
    show_state,
)
from browser_helpers import ARTIFACTS, Server, play_until, screenshot_path

COLOURS = ["red", "orange", "yellow", "green", "blue", "purple", "white", "black", "gray"]
PLAYERS = 5
FIGURES: dict[str, Any] = {}

# For each route: screen points inside its spaces (a band below the carriage's window, away from the outline).
SAMPLE_POINTS = """(ids) => Object.fromEntries(ids.map((id) => {
  const g = document.querySelector(`g.route[data-route='${id}']`);
  const pts = [];
  for (const sp of g.querySelectorAll('g.space')) {
    const r = sp.querySelector('.space-fill');
    const w = r.width.baseVal.value;
    const m = sp.getScreenCTM();
    for (let u = -w / 2 + 2.5; u <= w / 2 - 2.5; u += 0.8) for (let v = -1.5; v <= 3.5; v += 0.8) {
      const p = new DOMPoint(u, v).matrixTransform(m);
      pts.push([Math.round(p.x - 0.5), Math.round(p.y - 0.5)]);
    }
  }
  return [id, pts];
}))"""

MIN_DELTA_E = 30

STYLE = """(id) => {
  const g = document.querySelector(`g.route[data-route='${id}']`);
  const f = getComputedStyle(g.querySelector('.space-fill')), c = getComputedStyle(g.querySelector('.car-body'));
  return {slot_fill: f.fill, slot_edge: f.stroke, car_fill: c.fill, car_edge: c.stroke};
}"""


@pytest.fixture(scope="module")
def pages(browser: Any) -> Iterator[Pages]:
    yield from module_pages(browser)
    out = ARTIFACTS / "claimed-routes.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(FIGURES, indent=1, sort_keys=True))


@pytest.fixture(scope="module")
def board(server: Server) -> dict[str, Any]:
    """A five-player USA state whose owners are set so that every player holds one route of every printed colour."""
    game = play_until("usa", PLAYERS, 5, lambda g, legal: g.phase == "turn" and g.current == 0)
    assert game is not None
    state = crafted_state(game, "claimedusa")
    state["legal"] = []  # nothing glows: only the drawing of routes is measured
    game_map = server.api("GET", "/api/editions/usa/map")
    by_colour: dict[str, list[str]] = defaultdict(list)
    for r in sorted(game_map["routes"], key=lambda r: r["id"]):
        by_colour[r["color"]].append(r["id"])
    owners: dict[str, int] = {}
    claimed: dict[tuple[str, int], str] = {}
    free: dict[str, list[str]] = {}
    for colour in COLOURS:
        ids = by_colour[colour]
        assert len(ids) > PLAYERS
        for seat in range(PLAYERS):
            owners[ids[seat]] = seat
            claimed[colour, seat] = ids[seat]
        free[colour] = ids[PLAYERS:]
    state["view"]["routes"] = owners
    return {"state": state, "claimed": claimed, "free": free}


def measure(page: Any, board: dict[str, Any]) -> dict[str, Any]:
    page.mouse.move(0, 0)
    ids = [*board["claimed"].values(), *(i for ids in board["free"].values() for i in ids)]
    points = page.evaluate(SAMPLE_POINTS, ids)
    image = screenshot_pixels(page)

    def colour_of(route_ids: list[str]) -> tuple[int, int, int]:
        px = []
        for rid in route_ids:
            px += [image.getpixel((x, y)) for x, y in points[rid] if 0 <= x < image.width and 0 <= y < image.height]
        assert px, route_ids
        return dominant(px)

    free = {c: colour_of(ids) for c, ids in board["free"].items()}
    table = {}
    for (colour, seat), rid in board["claimed"].items():
        got = colour_of([rid])
        nearest = min(free, key=lambda c: delta_e(got, free[c]))
        table[f"{colour}/{seat}"] = {
            "claimed": got,
            "free": free[colour],
            "delta_e": round(delta_e(got, free[colour]), 1),
            "nearest_free_colour": nearest,
            "delta_e_nearest": round(delta_e(got, free[nearest]), 1),
        }
    return table


def player_colours(page: Any) -> list[tuple[int, int, int]]:
    return [parse_colour(c) for c in page.evaluate("async () => (await import('/static/js/colours.js')).PLAYER_COLOURS")]


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["1366x768", "390x844"])
def test_claimed_and_free_spaces_of_a_colour_differ_by_delta_e_20(
    server: Server, pages: Pages, board: dict[str, Any], size: tuple[int, int]
) -> None:
    page = pages.get(size)
    show_state(page, server, "claimedusa", board["state"])
    assert page.locator("g.route.claimed").count() == len(board["claimed"])
    table = measure(page, board)
    players = player_colours(page)
    name = f"{size[0]}x{size[1]}"
    worst = min(table.items(), key=lambda kv: kv[1]["delta_e"])
    nearest = min(table.items(), key=lambda kv: kv[1]["delta_e_nearest"])
    FIGURES[name] = {
        "min_delta_e": worst[1]["delta_e"],
        "min_pair": worst[0],
        "min_delta_e_any_free_colour": nearest[1]["delta_e_nearest"],
        "min_any_pair": f"{nearest[0]} vs free {nearest[1]['nearest_free_colour']}",
        "pairs": table,
    }
    page.locator(".area-board").screenshot(path=str(screenshot_path(f"claimed-usa-{name}.png")))
    for key, row in table.items():
        seat = int(key.split("/")[1])
        # What was sampled is the owner's carriage (its colour as drawn) ...
        assert delta_e(row["claimed"], players[seat]) < 6, (key, row)
        # ... and it is far from a free space of the printed colour it stands on, and of every other colour.
        assert row["delta_e"] >= MIN_DELTA_E, (key, row)
        assert row["delta_e_nearest"] >= MIN_DELTA_E, (key, row)


def test_colour_blind_mode_still_tells_claimed_from_free(server: Server, pages: Pages, board: dict[str, Any]) -> None:
    page = pages.get(DESKTOP)
    show_state(page, server, "claimedusa", board["state"])
    page.check("#cb-toggle")
    page.wait_for_function("() => document.body.classList.contains('colourblind')")
    table = measure(page, board)
    shapes = page.evaluate("async () => (await import('/static/js/colours.js')).PLAYER_SHAPES")
    worst = min(table.items(), key=lambda kv: kv[1]["delta_e"])
    cb: dict[str, Any] = {"min_delta_e": worst[1]["delta_e"], "min_pair": worst[0]}
    assert all(row["delta_e"] >= MIN_DELTA_E for row in table.values()), table
    # Shapes on the owners' carriages, letters and patterns on free spaces, none of those on claimed ones.
    for (_colour, seat), rid in board["claimed"].items():
        g = page.locator(f"g.route[data-route='{rid}']")
        marks = g.locator(".car-mark")
        assert marks.count() >= 1
        for k in range(marks.count()):
            assert marks.nth(k).text_content() == shapes[seat]
            box = marks.nth(k).bounding_box()
            assert box is not None and box["height"] >= 4
        assert g.locator(".cb-letter:visible, .cb-pattern:visible").count() == 0
    for colour, ids in board["free"].items():
        if colour == "gray":
            continue
        for rid in ids:
            g = page.locator(f"g.route[data-route='{rid}']")
            assert g.locator(".cb-letter").first.is_visible()
            assert g.locator(".cb-pattern").first.is_visible()
            assert g.locator(".car-mark:visible").count() == 0
    # Seen with a colour-vision deficiency, the fill or the outline of a claimed space still stands out.
    styles = {rid: page.evaluate(STYLE, rid) for rid in board["claimed"].values()}
    free_style = {c: page.evaluate(STYLE, ids[0]) for c, ids in board["free"].items()}
    for deficiency in CVD:
        low = 999.0
        for (colour, _seat), rid in board["claimed"].items():
            car, slot = styles[rid], free_style[colour]
            fill = delta_e(parse_colour(car["car_fill"]), parse_colour(slot["slot_fill"]), deficiency)
            edge = delta_e(parse_colour(car["car_edge"]), parse_colour(slot["slot_edge"]), deficiency)
            low = min(low, max(fill, edge))
            assert max(fill, edge) >= 20, (deficiency, colour, car, slot)
        cb[deficiency] = round(low, 1)
    FIGURES["colourblind@1366x768"] = cb
    page.locator(".area-board").screenshot(path=str(screenshot_path("claimed-usa-1366x768-colourblind.png")))
    page.uncheck("#cb-toggle")
