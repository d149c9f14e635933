"""Touch screens (issue 15, point 5): every hover has a tap equivalent, no text says "hover" (or "click") on
a device without hover, and a route's tooltip never covers a dialog. Touch contexts are Playwright's
`has_touch=True, is_mobile=True` in Chromium, at 390×844 (a phone) and 1366×768 (a tablet); the tooltip
checks also use a mouse at both sizes."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from browser_helpers import Server, screenshot_path
from crafted import Table, city_point, my_turn_position, route_point, setup_position, table_fixture, with_hand

from ttr.engine import Game

SIZES = {"phone": (390, 844), "tablet": (1366, 768)}
RICH = {"red": 4, "orange": 4, "yellow": 4, "green": 4, "blue": 4, "purple": 4, "white": 4, "black": 4, "locomotive": 5}
# Words of pointing with a mouse, per language (the touch wording must use none of them).
MOUSE_WORDS = {
    "pt": r"\bmouse\b|\bclique",
    "es": r"\bratón\b|\bclic\b|haz clic|pulsa",
    "it": r"\bmouse\b|\bclicca",
    "en": r"\bhover|\bclick",
}


touch = table_fixture(SIZES, touch=True)


@pytest.fixture(autouse=True)
def no_console_errors(touch: Table) -> Iterator[None]:
    if touch.page.url.startswith(touch.server.base):
        touch.page.evaluate("() => localStorage.removeItem('ttr.lang')")
    yield
    touch.check()


def highlighted(page: Any) -> list[str]:
    return sorted(page.evaluate("() => [...document.querySelectorAll('g.city.highlight')].map(g => g.dataset.city)"))


def ticket_cities(game: Game, ticket: int) -> list[str]:
    ed = game.edition
    ends = {ed.tickets[ticket].a, ed.tickets[ticket].b}
    return sorted({c["id"] for c in ed.raw["cities"] if c["id"] in ends or c.get("area") in ends})


def test_touch_wording_in_four_languages(touch: Table) -> None:
    game = setup_position("europe", 2, 3)
    page = touch.show(game)
    assert page.evaluate("() => matchMedia('(hover: none)').matches")
    page.wait_for_selector("#keep-sheet")
    for lang, words in MOUSE_WORDS.items():
        page.select_option("#lang-select", lang)
        page.wait_for_function("(lang) => document.documentElement.lang === lang", arg=lang)
        page.wait_for_selector("#keep-sheet")
        sheet = page.inner_text("#keep-sheet")
        assert not re.search(words, sheet, re.I), f"{lang}: {sheet}"
        page.click("text=?")  # the help
        help_text = page.inner_text("#help")
        assert not re.search(words, help_text, re.I), f"{lang}: {help_text}"
        page.locator("#help .button.primary").click()
    assert "Tap a ticket" in page.inner_text("#keep-sheet")
    station = with_hand(my_turn_position("europe", 3, 2), 0, RICH)
    touch.show(station)
    page.click("#build-station")
    assert page.inner_text("#station-pick-sheet").count("Tap a highlighted city") == 1


def test_tap_a_ticket_to_see_its_cities(touch: Table) -> None:
    game = setup_position("usa", 2, 3)
    page = touch.show(game)
    page.wait_for_selector("#keep-sheet")
    offers = page.locator("#keep-sheet li.offer")
    first, second = game.offered[0][0], game.offered[0][1]
    offers.nth(0).locator(".ticket-name").tap()
    page.wait_for_timeout(400)  # a tap is over: the cities stay lit (no hover needed)
    assert highlighted(page) == ticket_cities(game, first)
    assert offers.nth(0).locator("input").is_checked()
    offers.nth(1).locator(".ticket-name").tap()
    page.wait_for_timeout(200)
    assert highlighted(page) == ticket_cities(game, second)
    if touch.name == "phone":  # type: ignore[attr-defined]
        page.screenshot(path=str(screenshot_path("touch-ticket-tap-usa-phone.png")))
    # The tickets held: a tap lights them up, a second tap puts them out.
    mid = my_turn_position("usa", 2, 3)
    touch.show(mid)
    mine = page.locator("#my-tickets li.ticket")
    mine.first.scroll_into_view_if_needed()
    mine.first.tap()
    page.wait_for_timeout(300)
    assert highlighted(page) == ticket_cities(mid, mid.tickets[0][0])
    mine.first.tap()
    page.wait_for_timeout(200)
    assert highlighted(page) == []


def test_tap_a_route_or_a_city_for_its_details(touch: Table) -> None:
    game = with_hand(my_turn_position("europe", 2, 2), 0, {})  # nothing can be claimed: a tap explains
    page = touch.show(game)
    page.touchscreen.tap(*route_point(page, "paris-zurich"))
    toast = page.locator(".toast").last
    toast.wait_for()
    assert toast.inner_text().startswith("Paris – Zürich: 3 gray (any one colour) spaces, tunnel, 4 points. ")
    assert page.locator(".board-tooltip:not([hidden])").count() == 0
    page.touchscreen.tap(*city_point(page, "berlin"))
    page.wait_for_function("() => [...document.querySelectorAll('.toast')].some(t => t.innerText.startsWith('Berlin'))")


def test_tap_a_passenger_trip_to_see_its_path(touch: Table) -> None:
    def trips(g: Any, legal: list[Any]) -> bool:
        return g.phase == "turn" and g.current == 0 and any(a.type == "move_passenger" and len(a.path) >= 2 for a in legal)

    from browser_helpers import play_until

    game = next(g for seed in range(200) if (g := play_until("marklin", 2, seed, trips)) is not None)
    moves = [a for a in game.legal_actions() if a.type == "move_passenger"]
    page = touch.show(game)
    page.click("#move-passenger")
    page.wait_for_selector("#moves-sheet")
    assert not re.search(MOUSE_WORDS["en"], page.inner_text("#moves-sheet"), re.I)
    longest = max(range(len(moves)), key=lambda i: len(moves[i].path))
    page.locator("#moves-sheet .move-option").nth(longest).locator(".move-path").tap()
    page.wait_for_timeout(400)
    assert page.locator(".overlay-path.trail").count() == len(moves[longest].path)


# The routes wholly inside the board and off the dialog, nearest to it first (where a tooltip would reach it).
NEAREST_ROUTES_JS = """() => {
  const s = document.querySelector('#sheet').getBoundingClientRect();
  const b = document.querySelector('.board-host').getBoundingClientRect();
  const gap = (r) => Math.max(s.left - r.right, r.left - s.right, 0) + Math.max(s.top - r.bottom, r.top - s.bottom, 0);
  const apart = (r) => r.right < s.left || r.left > s.right || r.bottom < s.top || r.top > s.bottom;
  return [...document.querySelectorAll('g.route')].map(g => [g.dataset.route, g.getBoundingClientRect()])
    .filter(([, r]) => apart(r) && r.top > b.top && r.bottom < b.bottom && r.left > b.left && r.right < b.right)
    .sort((p, q) => gap(p[1]) - gap(q[1])).slice(0, 12).map(([id]) => id);
}"""
SPACE_CENTRE_JS = """(id) => {
  const q = document.querySelector(`g.route[data-route="${id}"] .space-fill`).getBoundingClientRect();
  return [q.left + q.width / 2, q.top + q.height / 2];
}"""


@pytest.mark.parametrize("pointer", ["mouse", "touch"])
def test_no_tooltip_over_a_dialog(touch: Table, browser: Any, server: Server, pointer: str) -> None:
    """After clicking (or tapping) a route, and while the pointer then moves over the routes next to the
    dialog, no visible tooltip intersects it."""
    table = touch if pointer == "touch" else Table(browser, server, *touch.size)
    try:
        game = with_hand(my_turn_position("usa", 2, 2), 0, RICH)
        page = table.show(game)
        lowest = page.evaluate(
            "() => [...document.querySelectorAll('g.route.claimable')]"
            ".sort((a, b) => b.getBoundingClientRect().bottom - a.getBoundingClientRect().bottom)[0].dataset.route"
        )
        x, y = route_point(page, lowest)
        if pointer == "touch":
            page.touchscreen.tap(x, y)
        else:
            page.mouse.move(x, y)
            page.mouse.click(x, y)
        page.wait_for_selector("#claim-sheet")
        checked = 0
        routes = page.evaluate(NEAREST_ROUTES_JS)
        for route in [lowest, *routes]:
            if route != lowest:
                point = page.evaluate(SPACE_CENTRE_JS, route)
                if pointer == "mouse":
                    page.mouse.move(*point, steps=2)
            hit = page.evaluate(
                """() => { const t = document.querySelector('.board-tooltip');
                if (!t || t.hidden) return 0;
                const a = t.getBoundingClientRect(), s = document.querySelector('#sheet').getBoundingClientRect();
                return Math.max(0, Math.min(a.right, s.right) - Math.max(a.left, s.left))
                  * Math.max(0, Math.min(a.bottom, s.bottom) - Math.max(a.top, s.top)); }"""
            )
            assert hit == 0, f"a tooltip covers {hit:.0f} px² of the dialog (pointer on {route})"
            checked += 1
        assert checked >= 5
        shown = page.evaluate("() => !document.querySelector('.board-tooltip').hidden")
        if pointer == "touch":
            assert not shown  # touch never shows hover tooltips
        table.check()
    finally:
        if table is not touch:
            table.close()
