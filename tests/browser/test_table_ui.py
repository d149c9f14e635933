"""At the table in the browser: the clock of a timed game (and a timeout taken over by a bot, then taken back), the
chat rendering what players type as text, and a rematch from the score sheet."""

from __future__ import annotations

from typing import Any

import pytest
from browser_helpers import Server, game_url, play_to_the_end, score_sheet, wait_ready


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
    assert item.text_content() == f"P0: {hostile}"  # a flex row since the mute button came: text, not layout
    assert page.locator("#chat-list img, #chat-list li b + b").count() == 0  # the name is the only element inside
    stored = server.api("GET", f"/api/games/{gid}/chat", tokens[0])["messages"]  # the players' channel: seats only
    assert [m["text"] for m in stored] == [hostile]


def test_lobby_time_control_and_rematch_from_the_score_sheet(server: Server, new_page: Any) -> None:
    # the lobby: a turn-based clock of 12 hours per move, dropping a player who times out
    page = new_page()
    page.goto(server.base + "/")
    wait_ready(page)
    page.fill("#player-name", "Ana")
    assert page.locator("#clock-amount").count() == 0  # no clock by default: nothing more to choose
    page.select_option("#clock-kind", "turnbased")
    page.fill("#clock-amount", "12")
    page.select_option("#clock-timeout", "drop")
    page.click("#create-game")
    page.wait_for_url(lambda u: "/play/" in u)
    gid = page.url.split("/play/")[1].split("?")[0]
    clock = server.api("GET", f"/api/games/{gid}")["clock"]
    assert clock == {"kind": "turnbased", "seconds": 12 * 3600, "on_timeout": "drop", "bot_level": "medium"}

    # the final score sheet's Rematch: the same table again, and the page goes to our seat in it
    created = server.new_game("usa", [{"type": "human"}, {"type": "bot", "level": "easy"}])
    old, token = created["game_id"], created["seats"][0]["token"]
    server.api("POST", f"/api/games/{old}/join", token, {"name": "Ana"})
    play_to_the_end(server, old, token)
    page.goto(game_url(server, old, token))
    wait_ready(page)
    score_sheet(page, "#final-scores #final-rematch")
    page.click("#final-rematch")
    page.wait_for_url(lambda u: "/play/" in u and old not in u)
    wait_ready(page)
    new = page.url.split("/play/")[1].split("?")[0]
    summary = server.api("GET", f"/api/games/{new}")
    assert summary["edition"] == "usa" and summary["status"] == "active"
    assert (summary["seats"][0]["type"], summary["seats"][0].get("name")) == ("human", "Ana")
    assert summary["seats"][1]["type"] == "bot" and summary["seats"][1]["level"] == "easy"
    page.wait_for_selector("#turn-text")  # our seat in the new game: setup asks us for tickets


@pytest.mark.parametrize(("width", "height"), [(1366, 768), (390, 844)])
def test_a_timeout_is_taken_over_by_a_bot_and_the_seat_taken_back(server: Server, new_page: Any, width: int, height: int) -> None:
    """A real-time clock of 2 s a move: our time runs out while the page is open, a bot plays our seat (the log says
    so), and *Take my seat back* returns it to us (the log says that too)."""
    clock = {"kind": "realtime", "seconds": 2, "on_timeout": "bot", "bot_level": "max"}  # max: slow enough to watch
    created = server.new_game("usa", [{"type": "human"}, {"type": "bot", "level": "max"}], clock=clock)
    gid, token = created["game_id"], created["seats"][0]["token"]
    server.api("POST", f"/api/games/{gid}/join", token, {"name": "Ana"})
    page = new_page(width=width, height=height)
    page.goto(game_url(server, gid, token))
    wait_ready(page)
    page.wait_for_selector("#take-back", timeout=20000)  # the clock ran out: a bot plays for us
    assert server.api("GET", f"/api/games/{gid}")["seats"][0].get("away") is True
    page.wait_for_function(
        "() => [...document.querySelectorAll('#log li')]"
        ".some((li) => li.textContent.includes('Ana ran out of time: a bot (strongest) plays for them'))"
    )
    box = page.evaluate(
        "() => { const r = document.querySelector('#take-back').getBoundingClientRect();"
        " return [r.left, r.right, r.width, innerWidth]; }"
    )
    assert box[0] >= 0 and box[1] <= box[3] and box[2] >= 44  # on screen, a finger's width
    page.click("#take-back")
    page.wait_for_selector("#take-back", state="detached")
    summary = server.api("GET", f"/api/games/{gid}")
    assert not summary["seats"][0].get("away") and summary["status"] == "active"
    page.wait_for_function(
        "() => [...document.querySelectorAll('#log li')].some((li) => li.textContent.includes('Ana took their seat back'))"
    )
