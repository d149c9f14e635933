"""A game the server closes while someone has it open (docs/api.md, Limits: abandoned games and expired rematch
offers): the page says so in the player's language, where the turn banner was, with the way back to the lobby,
and the log says it too. Measured in the page at a desktop and a phone size."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import Server, game_url, play_out, screenshot_path, wait_ready

# the server of this module closes games fast: 3 s without a human action, an unaccepted rematch offer after 2 s
SERVE_ARGS = ["--abandon-after", "3", "--rematch-offer", "2", "--expiry-sweep", "0.5"]

I18N = Path(__file__).resolve().parents[2] / "src" / "ttr" / "server" / "static" / "i18n"


def words(lang: str, key: str) -> str:
    return json.loads((I18N / f"{lang}.json").read_text())[key]


def banner_facts(page: Any) -> dict[str, Any]:
    return page.evaluate(
        """() => {
      const b = document.querySelector('#turn-banner'), r = b.getBoundingClientRect();
      const link = b.querySelector('a.banner-link'), lr = link ? link.getBoundingClientRect() : null;
      const log = [...document.querySelectorAll('#log li')].map((li) => li.textContent);
      return {cls: b.className, text: document.querySelector('#turn-text').textContent, href: link && link.getAttribute('href'),
              link: lr && [lr.left, lr.right, lr.top, lr.bottom], box: [r.left, r.right, r.top, r.bottom],
              width: innerWidth, height: innerHeight, scroll: document.scrollingElement.scrollWidth,
              bar: document.querySelector('.topbar').getBoundingClientRect().bottom,
              log, undo: document.querySelector('#undo') ? document.querySelector('#undo').hidden : true};
    }"""
    )


def check_closed_banner(facts: dict[str, Any], text: str) -> None:
    assert "closed" in facts["cls"].split()
    assert facts["text"] == text
    assert facts["href"] == "/"
    left, right, top, bottom = facts["box"]
    # in view, whole, below the top bar (a dialog of the live game may have scrolled the page: it comes back)
    assert left >= 0 and right <= facts["width"] and facts["bar"] <= top and bottom <= facts["height"]
    l2, r2, t2, b2 = facts["link"]
    assert left <= l2 and r2 <= right and top <= t2 and b2 <= bottom  # the lobby link inside the banner
    assert facts["scroll"] <= facts["width"]  # the longer text never makes the page scroll sideways
    assert any(text in line for line in facts["log"])  # the log has the same sentence
    assert facts["undo"] is True


@pytest.mark.parametrize(("lang", "locale", "width", "height"), [("en", "en-US", 1366, 768), ("pt", "pt-BR", 390, 844)])
def test_an_abandoned_game_says_so_on_the_open_page(
    server: Server, new_page: Any, lang: str, locale: str, width: int, height: int
) -> None:
    created = server.new_game("usa", [{"type": "human"}, {"type": "human"}])
    gid, tokens = created["game_id"], [s["token"] for s in created["seats"]]
    for seat, token in enumerate(tokens):
        server.api("POST", f"/api/games/{gid}/join", token, {"name": f"P{seat}"})
    page = new_page(locale=locale, width=width, height=height)
    page.goto(game_url(server, gid, tokens[0]))
    wait_ready(page)
    assert "closed" not in banner_facts(page)["cls"]  # a live game first
    text = words(lang, "closed.abandoned")
    page.wait_for_function("(t) => document.querySelector('#turn-text').textContent === t", arg=text, timeout=20000)
    assert server.api("GET", f"/api/games/{gid}")["closed_reason"] == "abandoned"
    page.screenshot(path=str(screenshot_path(f"closed-abandoned-{width}x{height}.png")))
    check_closed_banner(banner_facts(page), text)
    page.reload()  # a page opened after the closing says it too (from the summary, not only the live event)
    wait_ready(page)
    check_closed_banner(banner_facts(page), text)


def test_an_expired_rematch_offer_says_so_at_its_table(server: Server, new_page: Any) -> None:
    created = server.new_game("usa", [{"type": "human"}, {"type": "human"}])
    old, tokens = created["game_id"], [s["token"] for s in created["seats"]]
    for seat, token in enumerate(tokens):
        server.api("POST", f"/api/games/{old}/join", token, {"name": f"P{seat}"})
    play_out(server, old, dict(enumerate(tokens)))
    offer = server.api("POST", f"/api/games/{old}/rematch", tokens[0])  # seat 1 never accepts
    page = new_page(locale="es-ES", width=1366, height=768)
    page.goto(server.base + offer["join_url"])
    wait_ready(page)
    text = words("es", "closed.rematch_expired")
    page.wait_for_function("(t) => document.querySelector('#turn-text').textContent === t", arg=text, timeout=20000)
    facts = banner_facts(page)
    check_closed_banner(facts, text)
    assert page.locator("#waiting:not([hidden])").count() == 0  # no "waiting for players" left on show
    page.screenshot(path=str(screenshot_path("closed-rematch-1366x768.png")))
