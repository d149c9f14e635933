"""Issue 15, points 7–9 on a real `ttr serve`: the log is worded from its events in the page's language (a
language switch re-words every line; a bot's name reads the same in the log and the player list); after a
reload our own private event forms (the colours of our blind draws, the tickets we kept) come back, and a
spectator never sees them; replay and spectator views use neutral wording, and the end of a replay shows
every player's tickets with their completion."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from browser_helpers import (
    STATIC_I18N,
    Server,
    game_url,
    play_to_the_end,
    screenshot_path,
    wait_ready,
    wait_state,
)

STRINGS = {lang: json.loads((STATIC_I18N / f"{lang}.json").read_text(encoding="utf-8")) for lang in ("en", "pt", "es", "it")}


def fragments(lang: str, kind: str) -> list[list[str]]:
    """The literal parts of every form (plurals, the private `_mine` form) of the log sentence for `kind`."""
    forms = [v for k, v in STRINGS[lang].items() if re.fullmatch(rf"log\.{kind}(_mine)?(_one|_other)?", k)]
    return [[p for p in re.split(r"\{\w+\}", f) if p.strip()] for f in forms]


def worded_as(text: str, lang: str, kind: str) -> bool:
    """Is `text` one of the `lang` sentences for an event of `kind` (every literal part present, in order)?"""
    for parts in fragments(lang, kind):
        at = 0
        for part in parts:
            at = text.find(part, at)
            if at < 0:
                break
            at += len(part)
        else:
            return True
    return False


def log_lines(page: Any) -> list[dict[str, str]]:
    return page.evaluate(
        "() => [...document.querySelectorAll('#log li')].map((li) => ({ type: li.dataset.type, "
        "text: [...li.childNodes].filter((n) => !(n.classList && n.classList.contains('move')))"
        ".map((n) => n.textContent).join('').trim(), move: (li.querySelector('code.move') || {}).textContent || '' }))"
    )


def play_some(server: Server, gid: str, token: str, moves: int) -> None:
    """Keep every ticket offered, draw blind; once, draw tickets and keep them all."""
    drew_tickets = False
    for _ in range(moves):
        st = wait_state(server, gid, token, lambda s: bool(s["legal"]))
        legal = st["legal"]
        keeps = [a for a in legal if a["type"] == "keep_tickets"]
        if keeps:
            action = max(keeps, key=lambda a: len(a["tickets"]))
        elif not drew_tickets and st["view"]["phase"] == "turn" and any(a["type"] == "draw_tickets" for a in legal):
            action, drew_tickets = {"type": "draw_tickets"}, True
        else:
            action = next(a for a in legal if a["type"] == "draw_blind")
        server.api("POST", f"/api/games/{gid}/actions", token, {"action": action, "expected_seq": st["seq"], "seat": st["seat"]})


def test_log_language_and_private_forms_after_a_reload(server: Server, new_page: Any) -> None:
    created = server.new_game("usa", [{"type": "human"}, {"type": "bot", "level": "medium"}])
    gid, token = created["game_id"], created["seats"][0]["token"]
    server.api("POST", f"/api/games/{gid}/join", token, {"name": "Ana"})
    play_some(server, gid, token, 9)
    private = server.api("GET", f"/api/games/{gid}/log?since=0", token)["events"]
    my_blind = [e["event"]["card"] for e in private if e["event"]["type"] == "draw_blind" and e["event"]["player"] == 0]
    my_kept = [e["event"]["tickets"] for e in private if e["event"]["type"] == "keep_tickets" and e["event"]["player"] == 0]
    assert len(my_blind) >= 4 and len(my_kept) == 2
    game_map = server.api("GET", "/api/editions/usa/map")
    names = {c["id"]: c["name"] for c in game_map["cities"]}
    tickets = {tk["id"]: f"{names[tk['a']]} – {names[tk['b']]} ({tk['points']})" for tk in game_map["tickets"]}

    page = new_page()
    page.goto(game_url(server, gid, token))
    wait_ready(page)
    page.wait_for_selector("#log li")
    for attempt in ("first load", "after a reload"):
        lines = log_lines(page)
        blind = [x["text"] for x in lines if x["type"] == "draw_blind" and x["text"].startswith("Ana ")]
        # every one of our blind draws says its colour, in order, as the server's private form has it
        assert blind == [f"Ana drew a card from the deck: {STRINGS['en'][f'card.{c}']}." for c in my_blind], attempt
        assert all(x["move"] == "blind" for x in lines if x["type"] == "draw_blind"), attempt  # the served notation
        kept = [x["text"] for x in lines if x["type"] == "keep_tickets" and x["text"].startswith("Ana ")]
        assert len(kept) == 2, attempt
        for text, ids in zip(kept, my_kept, strict=True):
            for tid in ids:
                assert tickets[tid] in text, (attempt, text, tid)
        bot_lines = [x["text"] for x in lines if x["text"].startswith("Bot 2 ")]
        assert bot_lines and all(x.startswith("Bot 2 (medium) ") for x in bot_lines)
        assert not any(x["type"] == "draw_blind" and ":" in x["text"] for x in lines if x["text"].startswith("Bot 2"))
        page.reload()
        wait_ready(page)
        page.wait_for_selector("#log li")
    english = log_lines(page)
    assert len(english) >= 15
    for lang in ("it", "pt", "es", "en"):
        page.select_option("#lang-select", lang)
        page.wait_for_function("(l) => document.documentElement.lang === l", arg=lang)
        lines = log_lines(page)
        assert [x["type"] for x in lines] == [x["type"] for x in english]
        wrong = [x for x in lines if not worded_as(x["text"], lang, x["type"])]
        assert wrong == [], (lang, wrong[:3])
        if lang != "en":  # no line left in English (each of them has words of its own)
            same = [a["text"] for a, b in zip(lines, english, strict=True) if a["text"] == b["text"]]
            assert same == [], (lang, same[:3])
        bot = STRINGS[lang]["seat.bot_named"].replace("{n}", "2").replace("{level}", STRINGS[lang]["level.medium"])
        listed = page.inner_text("#players .player[data-seat='1'] .player-name").split("\n")[0].strip()
        assert listed.startswith(bot), (listed, bot)
        in_log = [x["text"] for x in lines if x["text"].startswith(STRINGS[lang]["seat.bot_named"].split("{")[0])]
        assert in_log and all(x.startswith(bot + " ") for x in in_log), (lang, in_log[:2])
        colours = [STRINGS[lang][f"card.{c}"] for c in my_blind]
        mine = [x["text"] for x in lines if x["type"] == "draw_blind" and x["text"].startswith("Ana ")]
        assert [m.rstrip(".").endswith(c) for m, c in zip(mine, colours, strict=True)] == [True] * len(colours), (lang, mine)

    # a spectator's log: the same events, none of our secrets
    watcher = new_page()
    watcher.goto(f"{server.base}/play/{gid}?watch=1")
    wait_ready(watcher)
    watcher.wait_for_selector("#log li")
    seen = log_lines(watcher)
    assert [x["type"] for x in seen][: len(english)] == [x["type"] for x in english]
    assert not [x for x in seen if x["type"] == "draw_blind" and ":" in x["text"]]
    assert not [x for x in seen if x["type"] == "keep_tickets" and "(" in x["text"].replace("(medium)", "")]
    assert watcher.inner_text("#tickets-heading").strip().lower() == STRINGS["en"]["game.tickets"].lower()
    assert watcher.inner_text("#hand-heading").strip().lower() == STRINGS["en"]["game.cards"].lower()
    body = watcher.inner_text("body")
    assert "My tickets".lower() not in body.lower() and "secret until the end" not in body


@pytest.fixture(scope="module")
def finished(server: Server) -> dict[str, Any]:
    created = server.new_game("usa", [{"type": "human"}, {"type": "bot", "level": "easy"}, {"type": "bot", "level": "easy"}])
    gid, token = created["game_id"], created["seats"][0]["token"]
    server.api("POST", f"/api/games/{gid}/join", token, {"name": "Ana"})
    final = play_to_the_end(server, gid, token)
    return {"gid": gid, "result": final["view"]["result"]}


@pytest.mark.parametrize("size", [(1366, 768), (390, 844)], ids=["1366x768", "390x844"])
def test_replay_wording_is_neutral_and_its_end_shows_every_players_tickets(
    server: Server, new_page: Any, finished: dict[str, Any], size: tuple[int, int]
) -> None:
    gid, result = finished["gid"], finished["result"]
    page = new_page(width=size[0], height=size[1])
    page.goto(f"{server.base}/replay/{gid}?step=0")
    wait_ready(page)
    page.wait_for_selector("#replay-controls")
    # the player's wording, and the old spectator sentences (no longer in en.json)
    forbidden = [STRINGS["en"]["game.my_tickets"], STRINGS["en"]["game.my_cards"], "secret until the end", "Watching: cards"]

    def neutral() -> None:
        body = page.inner_text("body").lower()
        assert [x for x in forbidden if x.lower() in body] == []
        assert page.inner_text("#tickets-heading").strip().lower() == "tickets"
        assert page.inner_text("#hand-heading").strip().lower() == "cards"

    neutral()
    assert page.inner_text("#my-tickets").strip() == STRINGS["en"]["tickets.watching"]
    page.click("#replay-last")
    at_end = "() => document.querySelector('#replay-count').textContent.split('/')[0].trim() === String(%d)"
    page.wait_for_function(at_end % page.evaluate("() => Number(document.querySelector('#replay-slider').max)"))
    page.wait_for_selector("#my-tickets .ticket-owner")
    neutral()
    shown = page.evaluate(
        """() => [...document.querySelectorAll('#my-tickets li')].map((li) => ({
          owner: li.classList.contains('ticket-owner'), seat: li.dataset.seat, ticket: li.dataset.ticket || null,
          done: li.classList.contains('done'), failed: li.classList.contains('failed'), text: li.textContent,
          visible: li.getBoundingClientRect().height > 0 }))"""
    )
    owners = [x for x in shown if x["owner"]]
    assert [int(x["seat"]) for x in owners] == [p["player"] for p in result["players"]]
    for p in result["players"]:
        rows = [x for x in shown if not x["owner"] and int(x["seat"]) == p["player"]]
        assert [(x["ticket"], x["done"], x["failed"]) for x in rows] == [
            (tk["id"], tk["completed"], not tk["completed"]) for tk in p["tickets"]
        ]
        head = next(x for x in owners if int(x["seat"]) == p["player"])
        done = sum(tk["completed"] for tk in p["tickets"])
        assert head["text"].endswith(f": {done} of {len(p['tickets'])} completed"), head["text"]
        assert all(x["visible"] for x in rows)
    page.locator("#my-tickets").scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_path(f"replay-end-tickets-{size[0]}x{size[1]}.png")))
