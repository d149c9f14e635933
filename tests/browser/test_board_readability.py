"""Issue 15, point 4: every board fills its panel and its city labels can be read at default zoom.

Measured on a mid-game board of each edition (a real engine state served to the page):
- at 1366×768, the drawn board (cities, spaces, labels) covers ≥ 60% of the map panel, city labels are ≥ 10 px at
  the 10th percentile, no two city labels overlap, each label is nearer its own city than any other, none leaves
  the panel and nothing lies under the zoom buttons;
- at 390×844 (a phone), the board spans the width and the panel takes the board's shape (no empty bands);
- dragging with the mouse and a two-finger pinch (CDP touch events) move and zoom the map under the pointer.
The figures are written to artifacts/board-readability.json and the screenshots to artifacts/screenshots/.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

import pytest
from board_measure import DESKTOP, MEASURE_BOARD, PHONE, Pages, crafted_state, module_pages, percentile, show_state
from browser_helpers import ARTIFACTS, Server, play_until, screenshot_path

EDITIONS = ["usa", "europe", "nordic", "marklin"]
FIGURES: dict[str, Any] = {}


@pytest.fixture(scope="module")
def pages(browser: Any) -> Iterator[Pages]:
    yield from module_pages(browser)
    out = ARTIFACTS / "board-readability.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    old = json.loads(out.read_text()) if out.exists() else {}
    out.write_text(json.dumps({**old, **FIGURES}, indent=1, sort_keys=True))


@pytest.fixture(scope="module")
def midgame() -> dict[str, dict[str, Any]]:
    """A seeded mid-game state per edition (about turn 70, many routes claimed)."""
    out = {}
    for edition in EDITIONS:
        players = 3 if edition != "marklin" else 4
        game = play_until(edition, players, 11, lambda g, legal: g.turn >= 70 and g.phase == "turn" and g.current == 0)
        assert game is not None
        out[edition] = crafted_state(game, f"read{edition}")
    return out


def open_board(pages: Pages, server: Server, midgame: dict[str, Any], edition: str, size: tuple[int, int]) -> Any:
    page = pages.get(size)
    show_state(page, server, f"read{edition}", midgame[edition])
    return page


def city_centre(page: Any, city: str) -> tuple[float, float]:
    box = page.locator(f"g.city[data-city='{city}'] .city-dot").bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


@pytest.mark.parametrize("edition", EDITIONS)
def test_board_fills_the_panel_with_readable_labels_at_1366x768(
    server: Server, pages: Pages, midgame: dict[str, Any], edition: str
) -> None:
    page = open_board(pages, server, midgame, edition, DESKTOP)
    m = page.evaluate(MEASURE_BOARD)
    p10 = percentile(m["label_px"], 0.1)
    FIGURES[f"{edition}@1366x768"] = {
        "share": round(m["share"], 3),
        "label_px_p10": round(p10, 2),
        "label_px_min": round(min(m["label_px"]), 2),
        "label_box_height_p10": round(percentile(m["label_heights"], 0.1), 2),
        "label_collisions": len(m["collisions"]),
        "labels_over_other_cities": len(m["over_cities"]),
        "under_zoom_buttons": m["under_buttons"],
        "labels_nearer_another_city": len(m["ambiguous"]),
        "panel": [round(x) for x in m["panel"][2:]],
    }
    page.locator(".area-board").screenshot(path=str(screenshot_path(f"board-{edition}-1366x768.png")))
    assert m["labels"] == len(page.evaluate("() => [...document.querySelectorAll('g.city')].map(g => g.dataset.city)"))
    assert m["share"] >= 0.6, FIGURES[f"{edition}@1366x768"]
    assert p10 >= 10, FIGURES[f"{edition}@1366x768"]
    assert m["collisions"] == [], m["collisions"]
    assert m["outside"] == 0
    assert m["under_buttons"] == 0  # the zoom buttons float beside the board, never over a city, label or space
    assert m["ambiguous"] == []  # every label is nearer its own city than any other one


@pytest.mark.parametrize("edition", EDITIONS)
def test_phone_board_spans_the_width_without_empty_bands(
    server: Server, pages: Pages, midgame: dict[str, Any], edition: str
) -> None:
    page = open_board(pages, server, midgame, edition, PHONE)
    m = page.evaluate(MEASURE_BOARD)
    width = PHONE[0]
    _, _, panel_w, panel_h = m["panel"]
    _, _, drawn_w, drawn_h = m["drawn"]
    FIGURES[f"{edition}@390x844"] = {
        "share": round(m["share"], 3),
        "drawn_width_of_screen": round(drawn_w / width, 3),
        "panel": [round(panel_w), round(panel_h)],
        "label_px_p10": round(percentile(m["label_px"], 0.1), 2),
        "label_collisions": len(m["collisions"]),
        "labels_nearer_another_city": len(m["ambiguous"]),
    }
    page.screenshot(path=str(screenshot_path(f"board-{edition}-390x844.png")))
    assert drawn_w >= 0.93 * width, FIGURES[f"{edition}@390x844"]
    assert m["share"] >= 0.85, FIGURES[f"{edition}@390x844"]  # the panel has the board's shape: no empty bands
    assert panel_h - drawn_h <= 0.1 * panel_h
    assert m["collisions"] == []
    assert m["ambiguous"] == []
    assert m["outside"] == 0
    # Nothing of the page sticks out sideways.
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width


def test_drag_with_the_mouse_moves_the_map(server: Server, pages: Pages, midgame: dict[str, Any]) -> None:
    page = open_board(pages, server, midgame, "usa", DESKTOP)
    before = city_centre(page, "denver")
    box = page.locator("svg.board-svg").bounding_box()
    x, y = box["x"] + box["width"] * 0.3, box["y"] + box["height"] * 0.8
    page.mouse.move(x, y)
    page.mouse.down()
    for k in range(1, 11):
        page.mouse.move(x + 12 * k, y - 7 * k)
    page.mouse.up()
    after = city_centre(page, "denver")
    assert after[0] - before[0] == pytest.approx(120, abs=1.5)
    assert after[1] - before[1] == pytest.approx(-70, abs=1.5)
    # The wheel zooms about the pointer: the city under it stays put while its neighbours move away.
    page.mouse.move(*after)
    far = city_centre(page, "miami")
    page.mouse.wheel(0, -300)
    page.wait_for_timeout(50)
    still = city_centre(page, "denver")
    assert math.dist(still, after) < 2
    assert math.dist(city_centre(page, "miami"), still) > 1.3 * math.dist(far, after)


def touch(cdp: Any, kind: str, points: list[tuple[float, float]]) -> None:
    cdp.send(
        "Input.dispatchTouchEvent",
        {
            "type": kind,
            "touchPoints": [{"x": x, "y": y, "id": i, "radiusX": 2, "radiusY": 2, "force": 1} for i, (x, y) in enumerate(points)],
        },
    )


def test_pinch_zoom_and_touch_drag_on_a_phone(server: Server, pages: Pages, midgame: dict[str, Any]) -> None:
    page = open_board(pages, server, midgame, "europe", PHONE)
    cdp = page.context.new_cdp_session(page)
    box = page.locator("svg.board-svg").bounding_box()
    cx, cy = box["x"] + box["width"] * 0.5, box["y"] + box["height"] * 0.5
    a0, b0 = city_centre(page, "wien"), city_centre(page, "paris")
    world_under = page.evaluate(
        "([x, y]) => { const s = document.querySelector('svg.board-svg'); const p = new DOMPoint(x, y)"
        ".matrixTransform(s.getScreenCTM().inverse()); return [p.x, p.y]; }",
        [cx, cy],
    )
    # Two fingers 60 px apart spread to 120 px: the map doubles in size about their midpoint.
    touch(cdp, "touchStart", [(cx - 30, cy), (cx + 30, cy)])
    for k in range(1, 11):
        touch(cdp, "touchMove", [(cx - 30 - 3 * k, cy), (cx + 30 + 3 * k, cy)])
    touch(cdp, "touchEnd", [])
    a1, b1 = city_centre(page, "wien"), city_centre(page, "paris")
    ratio = math.dist(a1, b1) / math.dist(a0, b0)
    assert ratio == pytest.approx(2.0, rel=0.05)
    mid_now = page.evaluate(
        "([x, y]) => { const s = document.querySelector('svg.board-svg'); const m = s.getScreenCTM();"
        " const p = new DOMPoint(x, y).matrixTransform(m); return [p.x, p.y]; }",
        world_under,
    )
    assert math.dist(mid_now, (cx, cy)) < 3  # the point between the fingers stayed between them
    # One finger drags.
    touch(cdp, "touchStart", [(cx, cy)])
    for k in range(1, 9):
        touch(cdp, "touchMove", [(cx - 8 * k, cy + 5 * k)])
    touch(cdp, "touchEnd", [])
    a2 = city_centre(page, "wien")
    assert a2[0] - a1[0] == pytest.approx(-64, abs=2)
    assert a2[1] - a1[1] == pytest.approx(40, abs=2)
    FIGURES["europe@390x844 pinch"] = {"zoom_ratio": round(ratio, 3), "midpoint_drift_px": round(math.dist(mid_now, (cx, cy)), 2)}
    # ⤢ brings the whole board back.
    page.locator(".zoom-controls button").nth(2).click()
    page.wait_for_timeout(50)
    assert math.dist(city_centre(page, "wien"), a0) < 1.5
    cdp.detach()
