"""The first-game tutorial (issue 15; docs/client.md, Tutorial): started from the lobby's *Learn to play*, a real game
against the easy bot with a guide. Measured in Chromium at 1366×768 and on a 390×844 phone: the guide shares 0 px²
with what it marks (and an open dialog), each step goes on only once its action is done, skipping works, the guide
speaks the page's language, the rules sheet opens, axe-core finds nothing serious; Europe's station step."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import Server, screenshot_path, wait_idle, wait_ready

SIZES = {"desktop": (1366, 768), "phone": (390, 844)}
AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"
I18N = Path(__file__).parents[2] / "src" / "ttr" / "server" / "static" / "i18n"

MEASURE = """() => {
  const box = (el) => {
    const r = el.getBoundingClientRect();
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
  };
  const guide = document.getElementById('tutorial-guide');
  const targets = [...document.querySelectorAll('.tutorial-target')];
  for (const c of document.querySelectorAll('g.city.tutorial-target')) {
    const label = document.querySelector(`text.city-label[data-city="${c.dataset.city}"]`);
    if (label) targets.push(label);
  }
  const sheet = document.getElementById('sheet');
  if (sheet && !sheet.hidden) targets.push(sheet);
  const bar = document.querySelector('.topbar').getBoundingClientRect().bottom;
  return { guide: guide && !guide.hidden ? box(guide) : null, step: guide ? guide.dataset.step : null,
    targets: targets.map((el) => ({ what: el.id || el.getAttribute('class') || el.tagName, ...box(el) })),
    view: { left: 0, top: bar, right: innerWidth, bottom: innerHeight } };
}"""
RUN_AXE = """async () => {
  const r = await window.axe.run(document, { resultTypes: ['violations'] });
  return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
}"""


def area(a: dict[str, float], b: dict[str, float]) -> float:
    w = min(a["right"], b["right"]) - max(a["left"], b["left"])
    h = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
    return w * h if w > 0 and h > 0 else 0.0


def strings(lang: str) -> dict[str, str]:
    return json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))


@pytest.fixture(params=list(SIZES))
def page(request: Any, browser: Any) -> Iterator[Any]:
    w, h = SIZES[request.param]
    phone = request.param == "phone"
    ctx = browser.new_context(viewport={"width": w, "height": h}, locale="en-US", has_touch=phone, is_mobile=phone)
    ctx.add_init_script(path=str(AXE))
    pg = ctx.new_page()
    pg.set_default_timeout(30000)
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.on("console", lambda m: errors.append(m.text) if m.type == "error" and "Failed to load resource" not in m.text else None)
    pg.size = request.param
    yield pg
    ctx.close()
    assert errors == []


def at_step(page: Any, step: str) -> None:
    page.wait_for_function(
        "(s) => { const g = document.getElementById('tutorial-guide'); return g && g.dataset.step === s; }", arg=step
    )
    wait_idle(page)


def still_at(page: Any, step: str) -> None:
    page.wait_for_timeout(300)  # the update of the action (and a bot move) has been drawn
    wait_idle(page)
    assert page.evaluate("() => document.getElementById('tutorial-guide').dataset.step") == step


def clear(page: Any, what: str, marked: int = 1) -> dict[str, Any]:
    """The guide covers none of the marked elements (nor an open dialog), which lie in the visible window."""
    page.wait_for_timeout(120)  # the guide is placed in the next animation frame
    m = page.evaluate(MEASURE)
    assert m["guide"] is not None, what
    assert len(m["targets"]) >= marked, (what, m)
    overlaps = {t["what"]: area(m["guide"], t) for t in m["targets"]}
    print(f"{page.size} {what}: guide {m['guide']}, overlap px² {overlaps}")
    assert sum(overlaps.values()) == 0, (what, overlaps)
    for t in m["targets"]:
        if t["what"] == "sheet":
            continue
        assert area(t, m["view"]) > 0, (what, "marked element out of sight", t)
    return m


def my_turn(page: Any) -> None:
    page.wait_for_selector(".turn-banner.mine")
    wait_idle(page)


def test_the_usa_tutorial_from_the_lobby(page: Any, server: Server) -> None:
    en, pt = strings("en"), strings("pt")
    if page.size == "desktop":  # from the lobby's button (the phone run opens the game the button would)
        page.goto(server.base + "/")
        wait_ready(page)
        page.click("#learn button[data-edition=usa]")
        page.wait_for_url(lambda u: "/play/" in u)
    else:
        created = server.api("POST", "/api/games", body={"edition": "usa", "tutorial": True})
        token = created["seats"][0]["token"]
        server.api("POST", f"/api/games/{created['game_id']}/join", token, {"name": "Player 1"})
        page.goto(f"{server.base}/play/{created['game_id']}?token={token}&tutorial=1")
    wait_ready(page)
    page.wait_for_selector("#keep-sheet")
    at_step(page, "welcome")
    assert page.inner_text("#tutorial-text") == en["tutorial.welcome"].replace("{edition}", "USA")
    if page.size == "desktop":  # (once: the phone run walks the steps only)
        page.click("#tutorial-rules")  # the rules sheet: every section, the route points of the USA
        page.wait_for_selector("#rules")
        sections = page.eval_on_selector_all("#rules .rules-section", "(els) => els.map((e) => e.dataset.section)")
        assert sections == ["goal", "setup", "turn", "points", "end"]
        cells = page.eval_on_selector_all("#rules .rules-points td", "(els) => els.map((e) => e.textContent)")
        assert cells == ["1", "2", "3", "4", "5", "6", "1", "2", "4", "7", "10", "15"]
        page.screenshot(path=str(screenshot_path("tutorial-rules-desktop.png")))
        page.keyboard.press("Escape")
        page.wait_for_selector("#rules", state="detached")
    page.click("#tutorial-next")
    at_step(page, "keep_first")
    clear(page, "keep_first")
    page.screenshot(path=str(screenshot_path(f"tutorial-usa-keep-{page.size}.png")))
    page.click("#keep-all")  # chosen, not yet confirmed: the step waits
    still_at(page, "keep_first")
    page.click("#confirm-keep")
    at_step(page, "market")
    my_turn(page)
    clear(page, "market")
    assert page.evaluate("() => document.querySelector('#market .tutorial-target').classList.contains('playable')")
    page.click("#deck")  # not what the step asks: it stays
    still_at(page, "market")
    page.click("#market .card.tutorial-target")
    at_step(page, "deck")
    my_turn(page)  # the bot's turn in between
    clear(page, "deck")
    page.click("#deck")
    at_step(page, "claim")
    assert page.inner_text("#tutorial-text") == en["tutorial.second_card"]
    page.click("#deck")
    my_turn(page)
    clear(page, "claim", marked=3)  # the route and its two cities (and their labels)
    page.screenshot(path=str(screenshot_path(f"tutorial-usa-claim-{page.size}.png")))
    axe = page.evaluate(RUN_AXE)
    print(page.size, "axe", axe)
    assert [v for v in axe if v["impact"] in ("serious", "critical")] == []
    route = page.get_attribute("g.route.tutorial-target", "data-route")
    page.focus(f'g.route[data-route="{route}"]')  # the keyboard: Enter on the marked route opens its dialog
    page.keyboard.press("Enter")
    page.wait_for_selector("#claim-sheet")
    still_at(page, "claim")
    clear(page, "claim dialog", marked=4)  # the dialog, the route, its cities
    page.screenshot(path=str(screenshot_path(f"tutorial-usa-claim-dialog-{page.size}.png")))
    page.click("#confirm-claim")
    at_step(page, "draw_tickets")
    state = page.evaluate("() => window.ttrGame.state.view.routes")
    assert state.get(route) == 0  # the claim the step asked for was played
    page.select_option("#lang-select", "pt")  # the guide in a second language
    page.wait_for_function("() => document.documentElement.lang === 'pt'")
    words = pt["tutorial.draw_tickets" + ("_touch" if page.size == "phone" else "")]  # a phone says "tap"
    page.wait_for_function("(s) => document.getElementById('tutorial-text').textContent === s", arg=words)
    assert page.inner_text("#tutorial-title") == pt["tutorial.title"]
    assert page.inner_text("#tutorial-skip") == pt["tutorial.skip_step"]
    my_turn(page)
    clear(page, "draw_tickets")
    page.screenshot(path=str(screenshot_path(f"tutorial-usa-pt-{page.size}.png")))
    page.click("#tutorial-skip")  # skipping: the next step, without drawing tickets
    at_step(page, "keep_more")
    page.click("#tutorial-skip")
    at_step(page, "finish")
    assert page.evaluate("() => window.ttrGame.log.filter((e) => e.ev.type === 'draw_tickets' && e.ev.player === 0).length") == 0
    page.click("#tutorial-next")  # close the guide: it stays closed after a reload
    page.wait_for_selector("#tutorial-guide", state="hidden")
    if page.size == "phone":
        return
    page.reload()
    wait_ready(page)
    page.wait_for_selector("#board svg")
    assert page.evaluate("() => !!window.ttrGame.tutorial && document.getElementById('tutorial-guide').hidden")


@pytest.mark.parametrize("page", ["desktop"], indirect=True)
def test_the_europe_station_step(page: Any, server: Server) -> None:
    created = server.api("POST", "/api/games", body={"edition": "europe", "tutorial": True})
    token = created["seats"][0]["token"]
    server.api("POST", f"/api/games/{created['game_id']}/join", token, {"name": "Ana"})
    page.goto(f"{server.base}/play/{created['game_id']}?token={token}&tutorial=1")
    wait_ready(page)
    at_step(page, "welcome")
    page.click("#tutorial-next")
    page.click("#keep-all")
    page.click("#confirm-keep")
    at_step(page, "market")
    for step in ("market", "deck", "claim"):
        at_step(page, step)
        page.click("#tutorial-skip")
    at_step(page, "station")
    my_turn(page)
    clear(page, "station button")
    page.click("#build-station.tutorial-target")
    page.wait_for_selector("#station-pick-sheet")
    still_at(page, "station")
    clear(page, "station pick")
    page.keyboard.press("r")  # a city the server allows, by keyboard
    city = page.evaluate("() => document.activeElement.dataset.city")
    page.keyboard.press("Enter")
    page.wait_for_selector("#station-sheet")
    clear(page, "station payment", marked=2)
    page.screenshot(path=str(screenshot_path(f"tutorial-europe-station-{page.size}.png")))
    page.click("#confirm-station")
    at_step(page, "tunnel")
    assert page.evaluate("() => window.ttrGame.state.view.stations")[city] == 0
    clear(page, "tunnel", marked=3)
    page.screenshot(path=str(screenshot_path(f"tutorial-europe-tunnel-{page.size}.png")))
    page.click("#tutorial-next")
    at_step(page, "ferry")
    clear(page, "ferry", marked=3)
