"""Accounts in the browser: sign up in the lobby, a rated game between two accounts, then "my games" and the
leaderboard show it (docs/client.md, Accounts)."""

from __future__ import annotations

from typing import Any

from browser_helpers import ApiFailure, Server, quick_choice, state, wait_ready

PASSWORD = "a long enough password"


def post(page: Any, path: str, body: Any, token: str | None = None) -> Any:
    base = page.url.split("/", 3)
    origin = f"{base[0]}//{base[2]}"
    """POST as this page's browser: its session cookie, and the CSRF token the server asks for with it."""
    csrf = page.request.get(origin + "/api/me").json()["csrf_token"]
    headers = {"X-CSRF-Token": csrf} if csrf else {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    res = page.request.post(origin + path, data=body, headers=headers)
    assert res.ok, res.text()
    return res.json()


def test_signup_rated_game_leaderboard(server: Server, new_page: Any) -> None:
    alice = new_page()
    alice.goto(server.base + "/")
    wait_ready(alice)
    alice.fill("#account-name", "pw_alice")
    alice.fill("#account-password", PASSWORD)
    alice.click("#signup-button")
    alice.wait_for_function("() => document.querySelector('#account-panel h2').textContent.includes('pw_alice')")
    bob = new_page()
    bob.goto(server.base + "/")
    wait_ready(bob)
    bob.fill("#account-name", "pw_bob")
    bob.fill("#account-password", PASSWORD)
    bob.click("#signup-button")
    bob.wait_for_function("() => !!document.querySelector('#logout-button')")
    edition = server.api("GET", "/api/editions")[0]["id"]
    created = post(alice, "/api/games", {"edition": edition, "seats": [{"type": "human"}, {"type": "human"}]})
    gid = created["game_id"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    post(alice, f"/api/games/{gid}/join", {"name": "Alice"}, tokens[0])
    post(bob, f"/api/games/{gid}/join", {"name": "Bob"}, tokens[1])
    assert server.api("GET", f"/api/games/{gid}")["rated"] is True
    # my games: the game, with a your-turn badge on the page of whoever is to move
    current = server.api("GET", f"/api/games/{gid}")["current"]
    mover = (alice, bob)[current]
    mover.reload()
    wait_ready(mover)
    mover.wait_for_selector(f"#my-games li[data-game='{gid}'] .your-turn")
    # play it to the end through the API (tokens, no cookies)
    for _ in range(2000):
        states = [state(server, gid, tokens[s], s) for s in (0, 1)]
        if states[0]["view"]["phase"] == "over":
            break
        for seat, st in enumerate(states):
            if st["legal"]:
                try:
                    server.api(
                        "POST",
                        f"/api/games/{gid}/actions",
                        tokens[seat],
                        {"action": quick_choice(st["legal"]), "expected_seq": st["seq"]},
                    )
                except ApiFailure as exc:
                    if exc.status != 409:
                        raise
    else:
        raise AssertionError("the game did not end")
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
