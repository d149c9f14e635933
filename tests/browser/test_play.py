"""Playing through the browser against a real `ttr serve`: a game against bots from the lobby to the final
scores (draws and a claim clicked on the map, a reload in the middle), hot-seat between two people,
refused actions, languages, and a screenshot of every edition's board."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from browser_helpers import (
    STATIC_I18N,
    ApiFailure,
    Server,
    finish_setup_in_ui,
    game_url,
    my_turn,
    play_to_the_end,
    score_sheet,
    screenshot_path,
    state,
    wait_idle,
    wait_ready,
    wait_state,
)


def cards_text(n: int) -> str:
    """The hand total as the English client words it (plural rules: 1 card, 0/2+ cards)."""
    return f"{n} card" if n == 1 else f"{n} cards"


def hand_size(st: dict[str, Any]) -> int:
    return sum(st["view"]["hand"].values())


def create_from_lobby(page: Any, server: Server, edition: str, name: str = "Ana") -> tuple[str, str]:
    page.goto(server.base + "/")
    wait_ready(page)
    page.fill("#player-name", name)
    page.click(f".edition-card[data-edition='{edition}']")
    page.click("#create-game")
    page.wait_for_url(re.compile(r"/play/"))
    wait_ready(page)
    return game_and_token(page)


def game_and_token(page: Any) -> tuple[str, str]:
    """The game on screen and the seat token the page holds: once loaded, the token is no longer in the address."""
    m = re.search(r"/play/([^?/#]+)", page.url)
    assert m and "token=" not in page.url, page.url
    token = page.evaluate("(gid) => sessionStorage.getItem(`ttr.token.${gid}`)", m.group(1))
    assert token, "the page kept no token"
    return m.group(1), token


def test_game_against_a_bot_from_the_lobby_to_the_final_scores(server: Server, new_page: Any) -> None:
    page = new_page()
    gid, token = create_from_lobby(page, server, "usa")
    finish_setup_in_ui(page)
    kept = len(state(server, gid, token)["view"]["tickets"])
    assert page.locator("#my-tickets li.ticket").count() == kept >= 2

    # Draw train cards by clicking: a face-up card, then the deck.
    my_turn(page)
    before = hand_size(state(server, gid, token))
    st = state(server, gid, token)
    slot = next(a["slot"] for a in st["legal"] if a["type"] == "draw_faceup" and st["view"]["market"][a["slot"]] != "locomotive")
    page.click(f"#market .card[data-slot='{slot}']")
    wait_idle(page)
    page.wait_for_selector(".turn-banner.mine >> text=/second card/")
    page.click("#deck")
    wait_idle(page)
    st = wait_state(server, gid, token, lambda s: hand_size(s) == before + 2)
    assert page.locator("#log li", has_text="Ana took a face-up").count() == 1

    # Keep drawing by clicking the deck until some route can be paid, then claim it on the map.
    claim = None
    for _ in range(20):
        my_turn(page)
        st = state(server, gid, token)
        claims = [a for a in st["legal"] if a["type"] == "claim"]
        if claims:
            claim = max(claims, key=lambda a: sum(a["cards"].values()))
            break
        page.click("#deck")
        wait_idle(page)
        page.wait_for_selector(".turn-banner.mine >> text=/second card/")
        page.click("#deck")
        wait_idle(page)
    assert claim is not None, "no route became affordable after 20 draws"
    route = claim["route"]
    assert page.locator(f"g.route.claimable[data-route='{route}']").count() == 1
    page.locator(f"g.route[data-route='{route}'] .space").first.click()
    page.wait_for_selector("#claim-sheet")
    page.click("#confirm-claim")
    st = wait_state(server, gid, token, lambda s: s["view"]["routes"].get(route) == 0)
    page.wait_for_selector(f"g.route.claimed[data-route='{route}'][data-owner='0']")
    page.wait_for_selector("#log li:has-text('Ana claimed')")

    # Reload in the middle of the game: the page comes back with the same board and hand, and play goes on.
    page.reload()
    wait_ready(page)
    page.wait_for_selector(f"g.route.claimed[data-route='{route}'][data-owner='0']")
    my_turn(page)
    st = state(server, gid, token)
    assert page.locator("#hand .hand-total").inner_text() == cards_text(hand_size(st))
    page.click("#deck")
    wait_idle(page)
    page.click("#deck")
    wait_state(server, gid, token, lambda s: hand_size(s) == hand_size(st) + 2 or s["view"]["current"] != 0)

    # The other seat is a bot; speed our own seat through the API, then read the final scores in the page.
    final = play_to_the_end(server, gid, token)
    result = final["view"]["result"]
    score_sheet(page)
    headers = page.locator("#final-scores thead th.player-col")
    assert headers.count() == 2
    totals = page.locator("#final-scores tr.total td").all_inner_texts()
    ranked = sorted(result["players"], key=lambda p: (p["rank"], p["player"]))
    assert [int(x) for x in totals] == [p["total"] for p in ranked]
    ticket_rows = page.locator("#final-scores .final-tickets li").count()
    assert ticket_rows == sum(len(p["tickets"]) for p in result["players"])
    owner = ranked[0]["player"]
    assert page.locator(".overlay-path.longest").count() == len(result["players"][owner]["longest_path_routes"])
    winner_name = "Ana" if ranked[0]["player"] == 0 else "Bot 2 (medium)"
    assert winner_name in page.inner_text("#final-headline") or len(result["winners"]) > 1

    # The replay viewer steps through the same game.
    page.click("#final-replay")
    page.wait_for_selector("#replay-controls")
    steps = server.api("GET", f"/api/games/{gid}/replay?step=0")["steps"]
    assert page.inner_text("#replay-count") == f"0 / {steps}"
    page.click("#replay-forward")
    page.wait_for_function("() => document.querySelector('#replay-count').textContent.startsWith('1 /')")
    page.click("#replay-last")
    page.wait_for_function(f"() => document.querySelector('#replay-count').textContent === '{steps} / {steps}'")
    assert page.locator("g.route.claimed").count() == len(final["view"]["routes"])
    page.click("#replay-back")
    page.wait_for_function(f"() => document.querySelector('#replay-count').textContent === '{steps - 1} / {steps}'")


def test_hot_seat_two_people_share_the_screen(server: Server, new_page: Any) -> None:
    page = new_page()
    page.goto(server.base + "/")
    wait_ready(page)
    page.fill("#player-name", "Ana")
    page.check("#hotseat")
    page.select_option(".seat-type[data-seat='1']", "human")
    page.locator(".seat-name").nth(1).fill("Bruno")
    page.click("#create-game")
    page.wait_for_url(re.compile(r"/play/"))
    wait_ready(page)
    gid, token = game_and_token(page)
    names = ["Ana", "Bruno"]

    def take_over() -> int:
        """The cover names the player to move; once they confirm, their own hand is on screen."""
        page.wait_for_selector("#cover-ready")
        seat = state(server, gid, token)["view"]["current"]
        assert page.inner_text(".cover-box h2") == f"Pass the device to {names[seat]}"
        assert page.locator("#hand .card").count() == 0 or page.locator("#cover").is_visible()
        page.click("#cover-ready")
        page.wait_for_selector("#cover", state="hidden")
        mine = state(server, gid, token, seat)["view"]["hand"]
        assert page.locator("#hand .hand-total").inner_text() == cards_text(sum(mine.values()))
        assert page.locator(".player.me .player-name").inner_text().startswith(names[seat])
        return seat

    # setup: the first player to choose gets the ticket dialog at once (nobody's secrets on screen yet)
    page.wait_for_selector("#keep-sheet")
    assert page.locator("#cover").is_hidden()
    first = state(server, gid, token)["view"]["current"]
    assert page.locator(".player.me .player-name").inner_text().startswith(names[first])
    finish_setup_in_ui(page)
    # Changed your mind before handing over? Undo from the cover: keeping tickets revealed nothing.
    page.wait_for_selector("#cover-undo")
    page.click("#cover-undo")
    page.wait_for_selector("#keep-sheet")
    st = state(server, gid, token)
    assert st["view"]["current"] == first and st["view"]["phase"] == "setup" and st["view"]["offered"]
    page.wait_for_selector("#log li:has-text('took back 1 action')")
    finish_setup_in_ui(page)
    second = take_over()
    assert second != first
    finish_setup_in_ui(page)
    for _ in range(2):  # each draws two cards from the deck, passing the device in between
        seat = take_over()
        my_turn(page)
        page.click("#deck")
        wait_idle(page)
        page.click("#deck")
        wait_state(server, gid, token, lambda s, seat=seat: s["view"]["current"] != seat)
    st = state(server, gid, token)
    assert st["view"]["public"][0]["cards"] == 6 and st["view"]["public"][1]["cards"] == 6


def test_refused_actions_are_explained(server: Server, new_page: Any) -> None:
    created = server.new_game("usa", [{"type": "human"}, {"type": "bot", "level": "easy"}])
    token = created["seats"][0]["token"]
    gid = created["game_id"]
    server.api("POST", f"/api/games/{gid}/join", token, {"name": "Ana"})
    page = new_page()
    page.goto(game_url(server, gid, token))
    wait_ready(page)
    finish_setup_in_ui(page)
    my_turn(page)
    st = state(server, gid, token)
    view = st["view"]
    # An action the server refuses: its own message is shown.
    free = next(
        r for r in server.api("GET", "/api/editions/usa/map")["routes"] if r["id"] not in view["routes"] and r["length"] >= 5
    )
    bad = {"type": "claim", "route": free["id"], "cards": {"locomotive": 1}}
    with pytest.raises(ApiFailure) as refused:
        server.api("POST", f"/api/games/{gid}/actions", token, {"action": bad})
    message = refused.value.body["error"]["message"]
    page.evaluate("action => window.ttrGame.send(action)", bad)
    page.wait_for_selector(".toast-error")
    assert page.inner_text(".toast-error").startswith(f"Refused: {message}")
    # A click on a route the player cannot pay for says why without asking the server.
    unpaid = [
        r
        for r in server.api("GET", "/api/editions/usa/map")["routes"]
        if r["id"] not in view["routes"] and not any(a.get("route") == r["id"] for a in st["legal"])
    ]
    page.locator(f"g.route[data-route='{unpaid[0]['id']}'] .space").first.click()
    page.wait_for_selector(".toast-info")
    assert "needs" in page.inner_text(".toast-info") or "closed" in page.inner_text(".toast-info")
    assert page.locator("#claim-sheet").count() == 0
    # The reason is the one the server sent (claim_problems), worded: the client does not work it out itself.
    rid = unpaid[1]["id"]
    assert st["claim_problems"][rid] in {"cards", "lane_closed"}
    page.evaluate("rid => { window.ttrGame.state.claim_problems[rid] = 'trains'; }", rid)
    page.locator(f"g.route[data-route='{rid}'] .space").first.click()
    # worded with the route's length (the map) and the seat's trains (the view)
    sentence = f"needs {unpaid[1]['length']} trains; you have {st['view']['public'][st['seat']]['trains']}"
    page.wait_for_function(
        "s => [...document.querySelectorAll('.toast-info')].some((e) => e.innerText.includes(s))", arg=sentence
    )
    # The log shows each move in the notation, as the server sent it.
    page.wait_for_function(
        "() => [...document.querySelectorAll('.log li code.move')].some((e) => e.innerText.startsWith('keep '))"
    )


def test_language_follows_the_browser_and_can_be_switched(server: Server, new_page: Any) -> None:
    strings = {lang: json.loads((STATIC_I18N / f"{lang}.json").read_text(encoding="utf-8")) for lang in ("pt", "es", "it")}
    page = new_page(locale="pt-BR")
    page.goto(server.base + "/")
    wait_ready(page)
    assert page.inner_text("#create-game") == strings["pt"]["lobby.create"]
    assert page.get_attribute("html", "lang") == "pt"
    page.select_option("#lang-select", "it")
    page.wait_for_function("() => document.documentElement.lang === 'it'")
    assert page.inner_text("#create-game") == strings["it"]["lobby.create"]
    assert page.inner_text(".switch span") == strings["it"]["settings.colourblind"]
    # The choice is remembered, and the game page speaks it too.
    created = server.new_game("europe", [{"type": "human"}, {"type": "bot", "level": "easy"}])
    gid, token = created["game_id"], created["seats"][0]["token"]
    server.api("POST", f"/api/games/{gid}/join", token, {"name": "Ana"})
    page.goto(game_url(server, gid, token))
    wait_ready(page)
    page.wait_for_selector("#keep-sheet")
    assert page.inner_text("#keep-sheet h3") == strings["it"]["keep.title"]
    assert strings["it"]["game.players"].upper() in page.inner_text(".area-left h2").upper()
    page.select_option("#lang-select", "es")
    page.wait_for_function("() => document.documentElement.lang === 'es'")
    page.wait_for_selector(f"#keep-sheet h3:text-is('{strings['es']['keep.title']}')")
    assert page.inner_text("#confirm-keep").startswith("Elige al menos")


@pytest.mark.parametrize("edition", ["usa", "europe", "nordic", "marklin"])
def test_board_of_every_edition(server: Server, new_page: Any, edition: str) -> None:
    """The whole map is drawn (every route, space, city, tunnel, ferry icon, merchandise stack); screenshot saved."""
    game_map = server.api("GET", f"/api/editions/{edition}/map")
    created = server.new_game(edition, [{"type": "human"}, {"type": "bot", "level": "easy"}])
    gid, token = created["game_id"], created["seats"][0]["token"]
    server.api("POST", f"/api/games/{gid}/join", token, {"name": "Ana"})
    page = new_page()
    page.goto(game_url(server, gid, token))
    wait_ready(page)
    finish_setup_in_ui(page)
    routes = game_map["routes"]
    assert page.locator("g.route").count() == len(routes)
    assert page.locator("g.route .space").count() == sum(r["length"] for r in routes)
    assert page.locator("g.city").count() == len(game_map["cities"])
    assert page.locator("g.route.tunnel").count() == sum(1 for r in routes if r["tunnel"])
    assert page.locator(".ferry-icon").count() == sum(r["ferry"] or 0 for r in routes)
    assert page.locator("text.city-label").count() == len(game_map["cities"])
    assert page.locator("g.merch").count() == len(game_map["merchandise"])
    bad = page.evaluate("""() => [...document.querySelectorAll('g.space')]
        .map(g => g.getAttribute('transform')).filter(t => !t || t.includes('NaN'))""")
    assert bad == []
    # Every space lies inside the drawn world (nothing thrown off the map by the layout).
    inside = page.evaluate("""() => {
        const svg = document.querySelector('svg.board-svg');
        const [x, y, w, h] = svg.getAttribute('viewBox').split(' ').map(Number);
        return [...document.querySelectorAll('g.space')].every(g => {
            const m = g.getAttribute('transform').match(/translate\\(([-\\d.]+) ([-\\d.]+)\\)/);
            return +m[1] >= x && +m[1] <= x + w && +m[2] >= y && +m[2] <= y + h; });
    }""")
    assert inside
    page.locator(".area-board").screenshot(path=str(screenshot_path(f"{edition}.png")))
    page.check("#cb-toggle")
    assert page.locator(".cb-letter").first.is_visible()
    page.locator(".area-board").screenshot(path=str(screenshot_path(f"{edition}-colourblind.png")))


def test_invite_join_from_the_lobby_and_watch(server: Server, new_page: Any) -> None:
    """Ana creates a game for two people; Bruno takes the free seat from the lobby list; Carla watches."""
    ana = new_page()
    ana.goto(server.base + "/")
    wait_ready(ana)
    ana.fill("#player-name", "Ana")
    ana.click(".edition-card[data-edition='nordic']")
    ana.select_option(".seat-type[data-seat='1']", "open")  # an open seat: anyone in the lobby may take it
    ana.fill("#game-name", "Friday trains")
    ana.click("#create-game")
    ana.wait_for_selector("#created .open-seat")
    assert ana.locator("#created .invite-url").count() == 0  # no invitation link for an open seat
    gid = ana.get_attribute("#go-to-game", "href").split("/play/")[1].split("?")[0]

    bruno = new_page()
    bruno.goto(server.base + "/")
    wait_ready(bruno)
    bruno.fill("#player-name", "Bruno")
    row = bruno.locator(f"#open-games li[data-game='{gid}']")
    row.wait_for()
    assert "Friday trains" in row.inner_text() and "open seat" in row.inner_text()
    row.locator("button.join").click()
    bruno.wait_for_url(lambda url: f"/play/{gid}" in url)  # the token then leaves the address bar
    wait_ready(bruno)
    bruno.wait_for_selector(".player-name:has-text('Ana')")
    assert bruno.locator(".player.me .player-name").inner_text().startswith("Bruno")

    ana.click("#go-to-game")
    wait_ready(ana)
    ana.wait_for_selector("#waiting", state="hidden")
    ana.wait_for_selector(".player-name:has-text('Bruno')")
    summary = server.api("GET", f"/api/games/{gid}")
    assert summary["status"] == "active" and [s["name"] for s in summary["seats"]] == ["Ana", "Bruno"]
    assert summary["seats"][0]["joined"] and summary["seats"][1]["joined"]

    carla = new_page()
    carla.goto(server.base + "/")
    wait_ready(carla)
    watch = carla.locator(f"#active-games li[data-game='{gid}'] a")
    watch.wait_for()
    watch.click()
    wait_ready(carla)
    carla.wait_for_selector("g.route")
    assert carla.locator("#hand .card").count() == 0
    assert carla.inner_text("#hand") == "Players' cards are not shown."
    assert carla.locator(".player.me").count() == 0
