"""Issue 17 in the browser: the chat pushed over the WebSocket with a mute per player (remembered) and shown in the
replay, spectators kept out of the players' channel; the profile page (rating history drawn as an inline SVG,
games per edition, statistics, recent games) in four languages with an axe-core scan at 1366x768 and 390x844;
the password change form; the take-over bot level chooser and the bots' calibrated figures in the seat menu; the
"my games" badge and the Notifications API (permission asked on a click; a stubbed Notification records what
the page shows); each bot level's style line under its seat menu (issue 16) (docs/client.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from browser_helpers import (
    PASSWORD,
    Server,
    game_url,
    play_out,
    post_as,
    quick_choice,
    screenshot_path,
    sign_up,
    state,
    wait_ready,
    wait_state,
)

AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"
RUN_AXE = """async () => {
  const r = await window.axe.run(document, { resultTypes: ['violations'] });
  return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length,
    targets: v.nodes.slice(0, 4).map((n) => n.target.join(' ')) }));
}"""

STUB_NOTIFICATION = """(() => {
  const perm = %s;
  window.__notes = [];
  window.__asked = 0;
  class FakeNotification {
    constructor(title, options) { window.__notes.push({ title, body: options && options.body, tag: options && options.tag }); }
  }
  FakeNotification.permission = perm;
  FakeNotification.requestPermission = async () => {
    window.__asked += 1;
    FakeNotification.permission = 'granted';
    return 'granted';
  };
  window.Notification = FakeNotification;
  document.hasFocus = () => false;  // the player is looking at another window
})();"""


def play_to_first_turn(server: Server, gid: str, token: str) -> None:
    """Keep tickets through the API until it is this seat's first turn after setup (a bot plays the other)."""
    for _ in range(200):
        st = state(server, gid, token)
        if st["view"]["phase"] != "setup" and st["legal"]:
            return
        if st["legal"]:
            body = {"action": quick_choice(st["legal"]), "expected_seq": st["seq"]}
            server.api("POST", f"/api/games/{gid}/actions", token, body)
    raise AssertionError("our first turn did not come")


def chat_texts(page: Any) -> list[str]:
    return page.evaluate("() => [...document.querySelectorAll('#chat-list .chat-text')].map((n) => n.textContent)")


def axe(page: Any, what: str) -> list[dict[str, Any]]:
    # axe-core comes in as the context's init script (the page's CSP would refuse a script tag)
    found = page.evaluate(RUN_AXE)
    for v in found:
        print(what, v["impact"], v["id"], v["nodes"], v["targets"])
    return [v for v in found if v["impact"] in ("serious", "critical")]


def test_chat_push_mute_replay_and_profile(server: Server, browser: Any, new_page: Any) -> None:
    alice, bob = new_page(), new_page()
    sign_up(alice, server, "pf_alice")
    sign_up(bob, server, "pf_bob")
    created = post_as(alice, "/api/games", {"edition": "usa", "seats": [{"type": "human"}, {"type": "human"}]})
    gid = created["game_id"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    post_as(alice, f"/api/games/{gid}/join", {"name": "Alice"}, tokens[0])
    post_as(bob, f"/api/games/{gid}/join", {"name": "Bob"}, tokens[1])
    # Bob at the table, a spectator watching; both count their chat reads over HTTP (there must be none: pushed)
    polls: list[str] = []
    for p in (alice, bob):
        p.on("request", lambda r: polls.append(r.url) if "/chat" in r.url and r.method == "GET" else None)
    bob.goto(game_url(server, gid, tokens[1]))
    wait_ready(bob)
    bob.click("#chat summary")
    watcher = new_page()
    watcher.on("request", lambda r: polls.append(r.url) if "/chat" in r.url and r.method == "GET" else None)
    watcher.goto(f"{server.base}/play/{gid}?watch=1")
    wait_ready(watcher)
    watcher.wait_for_selector("#chat")
    watcher.click("#chat summary")
    alice.goto(game_url(server, gid, tokens[0]))
    wait_ready(alice)
    alice.click("#chat summary")
    alice.fill("#chat-input", "<b>hi</b> Bob")
    alice.press("#chat-input", "Enter")
    bob.wait_for_function(
        "() => [...document.querySelectorAll('#chat-list .chat-text')].some((n) => n.textContent === '<b>hi</b> Bob')"
    )
    assert bob.locator("#chat-list b b").count() == 0  # text, never markup
    # a spectator's message (signed in, no seat) reaches the players and the watchers
    fan = new_page()
    sign_up(fan, server, "pf_fan")
    post_as(fan, f"/api/games/{gid}/chat", {"channel": "spectators", "text": "good luck"})
    bob.wait_for_function("() => document.querySelectorAll('#chat-list li').length === 2")
    watcher.wait_for_function("() => document.querySelectorAll('#chat-list li').length === 1")
    assert chat_texts(watcher) == ["good luck"]  # never the players' channel while the game runs
    assert polls == []  # nothing polled: every message came over the WebSocket
    # Bob mutes Alice: her message is hidden, still after a reload; unmuted, it is back
    bob.click("#chat-list li[data-channel='players'] .chat-mute")
    assert chat_texts(bob) == ["good luck"]
    bob.reload()
    wait_ready(bob)
    bob.click("#chat summary")
    bob.wait_for_function("() => document.querySelectorAll('#chat-list li').length === 1")
    assert chat_texts(bob) == ["good luck"] and bob.locator("#chat-muted .chat-unmute").count() == 1
    bob.click("#chat-muted .chat-unmute")
    bob.wait_for_function("() => document.querySelectorAll('#chat-list li').length === 2")
    # the game ends (a rated game between two accounts): the replay shows both channels to anyone
    play_out(server, gid, tokens)
    for size in ((1366, 768), (390, 844)):
        page = new_page(width=size[0], height=size[1])
        page.set_default_timeout(120000)  # the first replay step is computed in the bot pool: slow on a loaded machine
        page.goto(f"{server.base}/replay/{gid}")
        wait_ready(page)
        page.click("#chat summary")
        page.wait_for_function("() => document.querySelectorAll('#chat-list li').length === 2")
        assert chat_texts(page) == ["<b>hi</b> Bob", "good luck"]
        assert page.locator("#chat-input").count() == 0  # the replay's chat is read-only
    # the profile page: one rated game drawn, the statistics the server computed, a replay link
    prof = server.api("GET", "/api/players/pf_alice")
    assert len(prof["history"]) == 1
    for lang in ("en", "pt", "es", "it"):
        for w, h in ((1366, 768), (390, 844)):
            ctx = browser.new_context(viewport={"width": w, "height": h}, locale=lang)
            ctx.add_init_script(path=str(AXE))
            page = ctx.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e, errors=errors: errors.append(str(e)))
            page.goto(f"{server.base}/players/pf_alice")
            wait_ready(page)
            page.wait_for_selector("#profile")
            assert page.locator("h1").inner_text() == "pf_alice"
            circles = page.evaluate(
                "() => [...document.querySelectorAll('#rating-chart circle.point')].map((c) => Number(c.dataset.ordinal))"
            )
            assert circles == [h_["ordinal"] for h_ in prof["history"]]
            # one game draws a line, not a lone dot: from the new player's rating (a hollow start point) to it
            assert prof["history_start"] == 0.0
            line = page.evaluate(
                """() => { const p = document.querySelector('#rating-chart path.series'), b = p.getBBox();
                  return {moves: (p.getAttribute('d').match(/[ML]/g) || []).length, width: b.width,
                          starts: document.querySelectorAll('#rating-chart circle.start').length}; }"""
            )
            assert page.locator("#rating-chart path.series").count() == 1
            assert line["moves"] == 2 and line["starts"] == 1 and line["width"] > 300, line
            overflow = page.evaluate(
                """() => ['#profile-ratings', '#profile-editions'].map((id) => {
                  const box = document.querySelector(id).closest('.table-scroll');
                  return box.scrollWidth - box.clientWidth; })"""
            )
            assert overflow == [0, 0], (overflow, w, lang)  # these tables fit, on a phone too: no sideways scrolling inside
            rows = page.evaluate(
                "() => [...document.querySelectorAll('#profile-editions tbody tr')].map((r) => r.innerText.split('\\t'))"
            )
            usa = prof["editions"]["usa"]
            assert len(rows) == 1 and rows[0][1:] == [str(usa["games"]), str(usa["won"]), str(usa["rated_games"])]
            stat_rows = page.locator("#profile-stats tbody tr").count()
            assert stat_rows == len(usa["totals"]) + 1  # every statistic served, and the average route length
            assert page.locator(f"#recent-games a[href='/replay/{gid}']").count() == 1
            if lang == "en":
                assert "Routes claimed" in page.locator("#profile-stats").inner_text()
            else:
                assert page.locator("#profile-stats").inner_text().count("Routes claimed") == 0  # translated
            if lang in ("en", "pt"):  # the scan costs seconds: two languages at both sizes
                assert axe(page, f"profile {lang} {w}x{h}") == []
            assert page.evaluate("() => document.documentElement.scrollWidth") <= w
            if lang == "en":
                page.screenshot(path=str(screenshot_path(f"profile-{w}x{h}.png")))
            assert errors == []
            ctx.close()
    # the account panel's profile link opens the page (no JSON)
    alice.goto(server.base + "/")
    wait_ready(alice)
    alice.click("#profile-link")
    alice.wait_for_selector("#rating-chart")


def test_password_change_levels_and_takeover_level(server: Server, new_page: Any) -> None:
    page = new_page()
    sign_up(page, server, "pf_carol")
    # the seat menu shows each level's calibrated rating, as shipped
    ladder = server.api("GET", "/api/bot-ratings")["levels"]
    assert set(ladder) == {"easy", "medium", "hard", "max"}
    labels = page.evaluate("() => [...document.querySelectorAll('.seat-type')[1].options].map((o) => o.textContent)")
    for level, word in (("easy", "easy"), ("medium", "medium"), ("hard", "hard"), ("max", "strongest")):
        assert f"Bot ({word} ≈ {ladder[level]['mu']:.1f})" in labels, labels
    # password change: the new one works, the old one no longer
    page.click("#password-change summary")
    page.fill("#old-password", PASSWORD)
    page.fill("#new-password", "another long password")
    page.click("#password-button")
    page.wait_for_selector(".toast:has-text('Password changed')")
    base = server.base
    ok = page.request.post(base + "/api/auth/login", data={"name": "pf_carol", "password": "another long password"})
    assert ok.status == 200
    bad = page.request.post(base + "/api/auth/login", data={"name": "pf_carol", "password": PASSWORD})
    assert bad.status == 401
    page.reload()
    wait_ready(page)
    # a timed game: the bot that takes over after a timeout is chosen in the lobby
    page.select_option("#clock-kind", "realtime")
    page.select_option("#clock-bot-level", "hard")
    page.fill("#clock-amount", "300")
    sent: list[Any] = []
    page.on(
        "request", lambda r: sent.append(json.loads(r.post_data)) if r.url.endswith("/api/games") and r.method == "POST" else None
    )
    page.click("#create-game")
    page.wait_for_url(lambda u: "/play/" in u)
    assert sent and sent[0]["clock"] == {"kind": "realtime", "on_timeout": "bot", "bot_level": "hard", "seconds": 300}
    gid = page.url.split("/play/")[1].split("?")[0]
    assert server.api("GET", f"/api/games/{gid}")["clock"]["bot_level"] == "hard"


def test_notifications_and_my_games_badge(server: Server, browser: Any) -> None:
    ctx = browser.new_context(viewport={"width": 1366, "height": 768})
    ctx.grant_permissions(["notifications"])
    ctx.add_init_script(STUB_NOTIFICATION % "'default'")
    page = ctx.new_page()
    sign_up(page, server, "pf_dan")
    # asked on a click only (never on load)
    page.wait_for_selector("#notify-button")
    assert page.evaluate("() => window.__asked") == 0
    page.click("#notify-button")
    page.wait_for_selector("#notify-button", state="detached")
    assert page.evaluate("() => window.__asked") == 1
    ctx.close()
    # permission granted: a game against a bot, our move, the bot answers, our turn comes: one notification
    ctx = browser.new_context(viewport={"width": 390, "height": 844})
    ctx.grant_permissions(["notifications"])
    ctx.add_init_script(STUB_NOTIFICATION % "'granted'")
    page = ctx.new_page()
    sign_up(page, server, "pf_dan", existing=True)
    created = post_as(page, "/api/games", {"edition": "usa", "seats": [{"type": "human"}, {"type": "bot", "level": "easy"}]})
    gid, token = created["game_id"], created["seats"][0]["token"]
    post_as(page, f"/api/games/{gid}/join", {"name": "Dan"}, token)
    page.goto(game_url(server, gid, token))
    wait_ready(page)
    play_to_first_turn(server, gid, token)  # setup through the API
    page.wait_for_selector("#my-games-count:has-text('1')")  # the top bar's badge: one game waits for us
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    before = page.evaluate("() => window.__notes.length")
    st = state(server, gid, token)
    server.api("POST", f"/api/games/{gid}/actions", token, {"action": {"type": "draw_blind"}, "expected_seq": st["seq"]})
    st = state(server, gid, token)
    if st["legal"]:  # the second card of the turn
        server.api("POST", f"/api/games/{gid}/actions", token, {"action": {"type": "draw_blind"}, "expected_seq": st["seq"]})
    page.wait_for_function(f"() => window.__notes.length > {before}")
    note = page.evaluate("() => window.__notes[window.__notes.length - 1]")
    assert note["tag"] == f"ttr-{gid}" and "your turn" in note["body"].lower()
    ctx.close()


def test_a_guest_is_told_of_a_turn_off_the_game_page(server: Server, browser: Any) -> None:
    """No account: the top bar's badge and a notification come from the games whose seat tokens this browser
    keeps, on any page (here the lobby), when a bot has answered and it is the guest's turn again."""
    created = server.new_game("usa", [{"type": "human"}, {"type": "bot", "level": "easy"}])
    gid, token = created["game_id"], created["seats"][0]["token"]
    server.api("POST", f"/api/games/{gid}/join", token, {"name": "Guest"})
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    ctx.grant_permissions(["notifications"])
    ctx.add_init_script(STUB_NOTIFICATION % "'granted'")
    page = ctx.new_page()
    page.goto(game_url(server, gid, token))  # the game page keeps the seat's token in this browser
    wait_ready(page)
    page.wait_for_function(f"() => (JSON.parse(localStorage.getItem('ttr.tokens') || '{{}}')['{gid}'] || {{}}).seat === 0")
    play_to_first_turn(server, gid, token)  # setup through the API
    page.goto(server.base + "/")
    wait_ready(page)
    page.wait_for_selector("#my-games-count:has-text('1')")  # our turn, seen from the lobby
    assert page.get_attribute("#my-games-badge", "href") == "/#my-games"  # a guest's games are the lobby's list
    assert page.evaluate("() => window.__notes.length") == 0  # nothing new yet: the badge only
    # we play, the bot answers: our turn again, in the same game, between two looks
    for _ in range(2):
        st = state(server, gid, token)
        if st["legal"]:
            server.api("POST", f"/api/games/{gid}/actions", token, {"action": {"type": "draw_blind"}, "expected_seq": st["seq"]})
    wait_state(server, gid, token, lambda s: bool(s["legal"]))
    page.evaluate("() => window.ttrTurnWatch.poll()")
    page.wait_for_function("() => window.__notes.length === 1")
    note = page.evaluate("() => window.__notes[0]")
    assert note["tag"] == "ttr-my-games" and "your turn in 1 game" in note["body"].lower()
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    ctx.close()


def test_each_bot_level_says_how_it_plays_in_the_lobby(server: Server, new_page: Any) -> None:
    """Issue 16: under a bot seat's menu, and under the take-over bot's menu, a line on the level's style, as
    served by GET /api/levels (translated); visible and inside the window at 1366x768 and 390x844."""
    served = {lv["level"]: lv["style"] for lv in server.api("GET", "/api/levels")["levels"]}
    assert list(served) == ["easy", "medium", "hard", "max"]
    for w, h in ((1366, 768), (390, 844)):
        page = new_page(width=w, height=h)
        page.goto(server.base + "/")
        wait_ready(page)
        line = page.locator("#seat-style-1")  # seat 2 is a medium bot by default
        line.scroll_into_view_if_needed()
        assert line.is_visible() and line.inner_text() == served["medium"]
        menu = page.locator(".seat-type[data-seat='1']")
        assert menu.get_attribute("aria-describedby") == "seat-style-1"
        page.select_option(".seat-type[data-seat='1']", "bot:hard")
        assert page.locator("#seat-style-1").inner_text() == served["hard"]
        page.select_option("#player-count", "4")
        for seat in (1, 2, 3):
            page.select_option(f".seat-type[data-seat='{seat}']", ["bot:easy", "bot:hard", "bot:max"][seat - 1])
        assert page.locator("#seat-style-0").count() == 0  # a human seat has none
        for seat, level in ((1, "easy"), (2, "hard"), (3, "max")):
            box = page.locator(f"#seat-style-{seat}").bounding_box()
            menu_box = page.locator(f".seat-type[data-seat='{seat}']").bounding_box()
            assert page.locator(f"#seat-style-{seat}").inner_text() == served[level]
            assert box is not None and menu_box is not None
            assert box["y"] >= menu_box["y"] + menu_box["height"] - 1, (seat, box, menu_box)  # under its menu
            assert box["x"] >= 0 and box["x"] + box["width"] <= w, (seat, box)
        assert page.evaluate("() => document.documentElement.scrollWidth") <= w
        page.locator("#seat-list").screenshot(path=str(screenshot_path(f"lobby-levels-{w}x{h}.png")))
        # the bot that takes over after a timeout: the same line, following the menu
        page.select_option("#clock-kind", "realtime")
        assert page.locator("#clock-bot-style").inner_text() == served["medium"]
        page.select_option("#clock-bot-level", "easy")
        assert page.locator("#clock-bot-style").inner_text() == served["easy"]
        assert page.locator("#clock-bot-level").get_attribute("aria-describedby") == "clock-bot-style"
        # the whole form from the page's top (an element screenshot taller than the window is stitched
        # from scrolled frames, each with the sticky header drawn across it)
        page.evaluate("() => window.scrollTo(0, 0)")
        form = page.locator("#new-game").bounding_box()
        assert form is not None
        page.screenshot(path=str(screenshot_path(f"lobby-levels-form-{w}x{h}.png")), full_page=True, clip=form)
    # in another language the translation is shown (not the served English)
    page = new_page(locale="pt-PT", width=390, height=844)
    page.goto(server.base + "/")
    wait_ready(page)
    text = page.locator("#seat-style-1").inner_text()
    assert text.startswith("Metódico") and text != served["medium"]


# the chosen option's text, measured in the menu's own font, against the room inside the menu (its arrow: ~20 px)
CHOSEN_TEXT_FITS = """(id) => {
  const sel = document.getElementById(id), cs = getComputedStyle(sel);
  const ctx = document.createElement("canvas").getContext("2d");
  ctx.font = `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
  const room = sel.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 20;
  return {text: sel.selectedOptions[0].text, width: ctx.measureText(sel.selectedOptions[0].text).width, room};
}"""


def test_the_time_controls_choices_are_whole_and_explained(server: Server, new_page: Any) -> None:
    """Each time-control menu shows its chosen option whole, on the phone too (the on-timeout choices were long
    sentences cut off inside their menu at 390 px); the whole meaning of the chosen one is the line under it."""
    for w, h in ((1366, 768), (390, 844)):
        page = new_page(width=w, height=h)
        page.goto(server.base + "/")
        wait_ready(page)
        page.select_option("#clock-kind", "realtime")
        for choice in ("drop", "bot"):
            page.select_option("#clock-timeout", choice)
            for menu in ("clock-kind", "clock-timeout", "clock-bot-level"):
                fit = page.evaluate(CHOSEN_TEXT_FITS, menu)
                assert fit["width"] <= fit["room"], (w, menu, fit)
        help_line = page.locator("#clock-timeout-help")
        assert page.locator("#clock-timeout").get_attribute("aria-describedby") == "clock-timeout-help"
        assert help_line.inner_text() == "A bot plays their seat until they take it back"
        page.select_option("#clock-timeout", "drop")
        assert help_line.inner_text() == "They are dropped: a bot plays their seat to the end"
        box = help_line.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= w
        if w == 390:
            page.locator("#clock-choice").screenshot(path=str(screenshot_path("lobby-clock-390x844.png")))
