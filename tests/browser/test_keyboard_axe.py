"""Keyboard play (issue 15, "beyond both"): every action without a mouse, at 1366×768 and 390×844 — 1–5 take a
face-up card, D draws blind, T draws tickets, R / Shift+R walk the routes that can be claimed (and the cities that
can be picked), Enter opens and confirms a dialog, Escape cancels, 1–9 and A choose in a dialog; the exact action
each key sends is checked, and the focus is visible (outline or glow measured on every element Tab reaches).

Accessibility scan with axe-core, on the same pages: no serious or critical violation on the lobby, a game of each of
the four editions (with a claim dialog open) and the final score sheet, at 1366×768 (every page) and 390×844 (lobby,
a USA game, the score sheet). axe-core is vendored in tests/browser/vendor/axe-core (not served by the game server);
every violation found, of any impact, is printed and written to artifacts/axe.json."""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import ARTIFACTS, Server, score_sheet, wait_ready
from crafted import SIZES, Table, my_turn_position, play_until, setup_position, with_hand

VARIED = {"red": 3, "orange": 2, "yellow": 1, "green": 4, "blue": 3, "purple": 2, "white": 1, "black": 2, "locomotive": 3}
SMALL = {"red": 1, "blue": 1}  # nine routes to claim: R walks through all of them
GLOW = "rgb(255, 157, 0)"

AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"


@pytest.fixture(scope="module", params=list(SIZES))
def table(request: Any, browser: Any, server: Server) -> Iterator[Table]:
    """One page per size for this module's keyboard and accessibility tests, with axe-core injected (an init script,
    which the page's Content-Security-Policy does not block: it is not one of the page's scripts)."""
    w, h = SIZES[request.param]
    tb = Table(browser, server, w, h)
    tb.context.add_init_script(path=str(AXE))
    yield tb
    tb.close()


DESKTOP_ONLY = pytest.mark.parametrize("table", ["desktop"], indirect=True)


@pytest.fixture(autouse=True)
def no_page_errors(table: Table) -> Iterator[None]:
    yield
    table.check()


def press(table: Table, key: str) -> list[dict[str, Any]]:
    """Press `key` with nothing focused on the page; the actions it posted."""
    assert table.fake is not None
    table.fake.posted.clear()
    table.page.keyboard.press(key)
    return table.posted()


def focused(page: Any) -> dict[str, Any]:
    return page.evaluate(
        """() => {
        const el = document.activeElement;
        const g = el && el.closest ? el.closest('g.route, g.city') : null;
        const cs = getComputedStyle(el);
        const glow = g ? getComputedStyle(g.querySelector(g.matches('g.route') ? '.route-glow' : '.city-ring')) : null;
        const r = (g || el).getBoundingClientRect();
        const board = document.querySelector('.board-host').getBoundingClientRect();
        return { tag: el.tagName, id: el.id, route: g && g.dataset.route || null, city: g && g.dataset.city || null,
                 claimable: !!(g && g.classList.contains('claimable')), pickable: !!(g && g.classList.contains('pickable')),
                 outline: cs.outlineStyle, outlineWidth: parseFloat(cs.outlineWidth) || 0, outlineColor: cs.outlineColor,
                 glow: glow && glow.stroke, glowOpacity: glow && Number(glow.strokeOpacity),
                 inBoard: r.left >= board.left - 1 && r.right <= board.right + 1
                   && r.top >= board.top - 1 && r.bottom <= board.bottom + 1 };
    }"""
    )


def blur(page: Any) -> None:
    page.evaluate("() => { document.activeElement && document.activeElement.blur && document.activeElement.blur(); }")


def test_drawing_and_claiming_with_the_keyboard(table: Table) -> None:
    game = with_hand(my_turn_position("usa"), 0, SMALL)
    page = table.show(game)
    blur(page)
    legal = [a.to_json() for a in game.legal_actions()]
    slots = sorted(a["slot"] for a in legal if a["type"] == "draw_faceup")
    assert slots
    for slot in slots:
        assert press(table, str(slot + 1)) == [{"type": "draw_faceup", "slot": slot}]
    assert press(table, "d") == [{"type": "draw_blind"}]
    assert press(table, "t") == [{"type": "draw_tickets"}]

    claimable = sorted({a["route"] for a in legal if a["type"] == "claim"})
    assert 5 <= len(claimable) <= 30
    seen = []
    assert table.fake is not None
    table.fake.posted.clear()
    for _ in claimable:
        page.keyboard.press("r")
        f = focused(page)
        assert f["claimable"] and f["route"], f
        assert f["glow"] == GLOW and f["glowOpacity"] == 1, f  # the focused route glows orange
        assert f["inBoard"], f  # and is brought into the visible board
        seen.append(f["route"])
    assert sorted(seen) == claimable  # R visits every claimable route once
    assert table.posted() == []
    assert press(table, "r") == [] and focused(page)["route"] == seen[0]  # then wraps around
    page.keyboard.press("Shift+R")
    assert focused(page)["route"] == seen[-1]

    route = focused(page)["route"]
    assert press(table, "Enter") == []
    page.wait_for_selector("#claim-sheet")
    assert press(table, "Escape") == []
    page.wait_for_selector("#claim-sheet", state="detached")
    page.keyboard.press("Shift+R")
    page.keyboard.press("r")
    assert focused(page)["route"] == route
    page.keyboard.press("Enter")
    page.wait_for_selector("#claim-sheet")
    shown = page.locator("#pay-summary").get_attribute("data-payment")
    sent = press(table, "Enter")
    assert [a["type"] for a in sent] == ["claim"] and sent[0]["route"] == route
    assert sent[0]["cards"] == json.loads(shown or "{}")


def test_focus_is_visible_on_everything_tab_reaches(table: Table) -> None:
    page = table.show(with_hand(my_turn_position("usa"), 0, VARIED))
    blur(page)
    page.evaluate("() => window.scrollTo(0, 0)")
    reached = []
    for _ in range(40):
        page.keyboard.press("Tab")
        f = focused(page)
        if f["tag"] == "BODY":
            continue
        reached.append(f)
    assert len(reached) >= 30
    invisible = [
        f
        for f in reached
        if not ((f["outline"] != "none" and f["outlineWidth"] >= 2) or (f["glow"] in (GLOW,) and (f["glowOpacity"] or 0) >= 0.9))
    ]
    assert invisible == []
    kinds = {f["tag"] for f in reached}
    assert "BUTTON" in kinds and any(f["route"] for f in reached)  # buttons and map routes both take the focus


def test_tickets_with_the_keyboard(table: Table) -> None:
    game = setup_position("usa")
    page = table.show(game)
    page.wait_for_selector("#keep-sheet")
    offered = [game.edition.tickets[i].id for i in game.offered[0]]
    blur(page)
    assert press(table, "Enter") == []  # nothing kept yet: the confirm button is disabled
    assert press(table, "Escape") == []  # the initial choice cannot be cancelled
    page.wait_for_selector("#keep-sheet")
    assert press(table, "1") == []
    checked = page.evaluate("() => [...document.querySelectorAll('#keep-sheet .offer input')].map((x) => x.checked)")
    assert checked == [True] + [False] * (len(offered) - 1)
    assert press(table, "2") == []
    blur(page)
    sent = press(table, "Enter")
    assert sent == [{"type": "keep_tickets", "tickets": sorted(offered[:2])}]
    page.keyboard.press("a")
    blur(page)
    assert press(table, "Enter") == [{"type": "keep_tickets", "tickets": sorted(offered)}]


@DESKTOP_ONLY
def test_a_station_with_the_keyboard(table: Table) -> None:
    game = play_until(
        "europe",
        2,
        3,
        lambda g, legal: g.current == 0 and any(a.type == "build_station" for a in legal),
        prefer=lambda g, a: False,
    )
    assert game is not None
    page = table.show(game)
    blur(page)
    stations = sorted({a.city for a in game.legal_actions() if a.type == "build_station"})
    assert press(table, "s") == []
    page.wait_for_selector("#station-pick-sheet")
    assert press(table, "r") == []
    f = focused(page)
    assert f["pickable"] and f["city"] in stations and f["glow"] == GLOW, f
    page.keyboard.press("Enter")
    page.wait_for_selector("#station-sheet")
    sent = press(table, "Enter")
    assert [(a["type"], a["city"]) for a in sent] == [("build_station", f["city"])]


# ---------------------------------------------------------------------- axe-core
RUN_AXE = """async () => {
  if (!window.axe) return null;
  const r = await window.axe.run(document, { resultTypes: ['violations'] });
  return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length,
    targets: v.nodes.slice(0, 4).map((n) => n.target.join(' ')) }));
}"""
RESULTS: dict[str, Any] = {}


def scan(page: Any, what: str) -> list[dict[str, Any]]:
    # contrast is judged on what stays on screen: let finite animations (score pulses, fades) end first
    page.wait_for_function(
        "() => document.getAnimations().every((a) => a.playState !== 'running' || a.effect.getTiming().iterations === Infinity)"
    )
    found = page.evaluate(RUN_AXE)
    assert found is not None, "axe-core was not injected"
    RESULTS[what] = found
    (ARTIFACTS / "axe.json").write_text(json.dumps(RESULTS, indent=1))
    for v in found:
        print(what, v["impact"], v["id"], v["nodes"], v["targets"])
    return [v for v in found if v["impact"] in ("serious", "critical")]


@cache
def finished_game() -> Any:
    game = play_until("usa", 3, 5, lambda g, legal: g.is_over)
    assert game is not None
    return game


def test_axe_the_score_sheet(table: Table) -> None:
    page = table.show(finished_game())
    score_sheet(page)
    assert scan(page, f"score sheet {table.size}") == []


def test_axe_the_lobby(table: Table) -> None:
    page = table.page
    page.goto(table.server.base + "/")
    wait_ready(page)
    page.wait_for_selector(".edition-card")
    table.edition = None  # the next game shown loads its page again
    page.select_option("#clock-kind", "realtime")  # the time control's every field shown (seconds, on timeout)
    page.wait_for_selector("#clock-timeout")
    assert scan(page, f"lobby {table.size}") == []
    # the top bar's switches (colour-blind, reduce motion, sound) and the language fit: nothing sticks out sideways
    assert page.evaluate("() => document.documentElement.scrollWidth") <= table.size[0]
    if table.size != SIZES["phone"]:
        return
    # the map editor (tables of routes, tickets and rule options), on the phone only (each scan costs seconds)
    page.click("#edit-map")
    page.wait_for_selector("#editor-status[data-state='ok']")
    assert scan(page, f"map editor {table.size}") == []
    assert page.evaluate("() => document.documentElement.scrollWidth") <= table.size[0]


def test_axe_a_usa_game(table: Table) -> None:
    axe_game(table, "usa")


@DESKTOP_ONLY
@pytest.mark.parametrize("edition", ["europe", "nordic", "marklin"])
def test_axe_a_game_of_the_other_editions(table: Table, edition: str) -> None:
    axe_game(table, edition)  # on the phone the USA game stands for the four (each board costs a layout)


def axe_game(table: Table, edition: str) -> None:
    page = table.show(with_hand(my_turn_position(edition), 0, VARIED))
    page.wait_for_selector("g.route.claimable")
    assert scan(page, f"{edition} {table.size}") == []
    page.keyboard.press("r")
    page.keyboard.press("Enter")
    page.wait_for_selector("#claim-sheet")
    assert scan(page, f"{edition} claim dialog {table.size}") == []
