"""Accounts in the browser: sign up in the lobby, a rated game between two accounts, then "my games" and the
leaderboard show it (docs/client.md, Accounts)."""

from __future__ import annotations

from typing import Any

from browser_helpers import Server, play_out, post_as, sign_up, wait_ready


def test_signup_rated_game_leaderboard(server: Server, new_page: Any) -> None:
    alice, bob = new_page(), new_page()
    sign_up(alice, server, "pw_alice")
    assert "pw_alice" in alice.locator("#account-panel h2").text_content()
    sign_up(bob, server, "pw_bob")
    edition = server.api("GET", "/api/editions")[0]["id"]
    created = post_as(alice, "/api/games", {"edition": edition, "seats": [{"type": "human"}, {"type": "human"}]})
    gid = created["game_id"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    post_as(alice, f"/api/games/{gid}/join", {"name": "Alice"}, tokens[0])
    post_as(bob, f"/api/games/{gid}/join", {"name": "Bob"}, tokens[1])
    assert server.api("GET", f"/api/games/{gid}")["rated"] is True
    # my games: the game, with a your-turn badge on the page of whoever is to move
    current = server.api("GET", f"/api/games/{gid}")["current"]
    mover = (alice, bob)[current]
    mover.reload()
    wait_ready(mover)
    mover.wait_for_selector(f"#my-games li[data-game='{gid}'] .your-turn")
    play_out(server, gid, tokens)  # through the API (tokens, no cookies)
    alice.reload()
    wait_ready(alice)
    alice.wait_for_function(
        "() => [...document.querySelectorAll('#leaderboard .board-class[data-class=\"2p\"] .board-name')]"
        ".map((n) => n.textContent).sort().join(',') === 'pw_alice,pw_bob'"
    )
    assert alice.locator(f"#my-games li[data-game='{gid}'] a").count() == 1  # finished: a replay link
    # on a phone, in the language with the longest headings, the leaderboard fits: nothing scrolls sideways
    phone = new_page(locale="pt-BR", width=390, height=844)
    phone.goto(server.base + "/")
    wait_ready(phone)
    phone.wait_for_selector("#leaderboard .board-class[data-class='2p'] table")
    fit = phone.evaluate(
        """() => { const b = document.querySelector('#leaderboard'), t = b.querySelector('table');
          const right = (n) => n.getBoundingClientRect().right;
          return {board: b.scrollWidth - b.clientWidth, table: Math.round(right(t) - right(b)),
                  page: document.documentElement.scrollWidth - innerWidth}; }"""
    )
    assert fit["board"] == 0 and fit["table"] <= 0 and fit["page"] <= 0, fit
