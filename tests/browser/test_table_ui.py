"""At the table in the browser: the clock of a timed game, and the chat rendering what players type as text."""

from __future__ import annotations

from typing import Any

from browser_helpers import Server, game_url, wait_ready


def test_clock_and_chat_as_plain_text(server: Server, new_page: Any) -> None:
    created = server.new_game("usa", [{"type": "human"}, {"type": "human"}], clock={"kind": "realtime", "seconds": 300})
    gid = created["game_id"]
    tokens = [s["token"] for s in created["seats"]]
    for seat, token in enumerate(tokens):
        server.api("POST", f"/api/games/{gid}/join", token, {"name": f"P{seat}"})
    page = new_page()
    page.goto(game_url(server, gid, tokens[0]))
    wait_ready(page)
    page.wait_for_function("() => /^⏱ [0-4]:[0-5][0-9]$/.test(document.querySelector('#clock').textContent)")
    hostile = "<img src=x onerror=alert(1)> & <b>bold</b>"
    page.click("#chat summary")
    page.fill("#chat-input", hostile)
    page.press("#chat-input", "Enter")
    page.wait_for_function("() => document.querySelectorAll('#chat-list li').length === 1")
    item = page.locator("#chat-list li")
    assert item.inner_text() == f"P0: {hostile}"
    assert page.locator("#chat-list img, #chat-list li b + b").count() == 0  # the name is the only element inside
    stored = server.api("GET", f"/api/games/{gid}/chat")["messages"]
    assert [m["text"] for m in stored] == [hostile]
