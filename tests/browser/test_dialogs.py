"""Each decision dialog against a crafted position: the page is served a real engine state (as the server
would send it) for a moment that random play reaches only now and then — a tunnel reveal, a station with
several payments, a passenger to place or to move, a Märklin ticket mix, a tie at the end — and the test
checks what the dialog shows and the exact action it sends."""

from __future__ import annotations

import json
from typing import Any

import pytest
from browser_helpers import FakeGame, Server, engine_state, fake_summary, play_until, score_sheet, screenshot_path, wait_ready

from ttr.engine import Action
from ttr.engine.ending import tie_breaks


def open_fake(new_page: Any, server: Server, game: Any, game_id: str, seat: int = 0) -> tuple[Any, FakeGame]:
    page = new_page()
    summary = fake_summary(game_id, game.base_edition.id, game.n, over=game.is_over)
    fake = FakeGame(page, game_id, engine_state(game, seat, summary))
    page.goto(f"{server.base}/play/{game_id}?token=fake-token")
    wait_ready(page)
    page.wait_for_selector("g.route")
    return page, fake


def posted(page: Any, fake: FakeGame, count: int = 1) -> list[dict[str, Any]]:
    page.wait_for_function("() => !document.querySelector('.game-page.busy')")
    page.wait_for_timeout(50)
    assert len(fake.posted) == count
    return fake.posted


def current_is(seat: int, phase: str) -> Any:
    return lambda g, legal: g.current == seat and g.phase == phase


def test_tunnel_reveal_offers_each_payment_and_declining(server: Server, new_page: Any) -> None:
    def tunnel_to_pay(g: Any, legal: list[Any]) -> bool:
        return g.phase == "tunnel" and g.current == 0 and any(a.type == "tunnel_pay" for a in legal)

    def try_tunnels(g: Any, a: Any) -> bool:
        return g.current == 0 and a.type == "claim" and g.edition.routes[g.edition.route_index[a.route]].tunnel

    game = next(g for seed in range(100) if (g := play_until("europe", 2, seed, tunnel_to_pay, prefer=try_tunnels)) is not None)
    pays = [a for a in game.legal_actions() if a.type == "tunnel_pay"]
    view = game.view(0).to_dict()
    page, fake = open_fake(new_page, server, game, "faketunnel1")
    page.wait_for_selector("#tunnel-sheet")
    assert page.locator("#tunnel-sheet .revealed .card").count() == len(view["tunnel"]["revealed"])
    summary = page.locator("#tunnel-sheet #pay-summary")
    assert summary.get_attribute("data-options") == str(len(pays))
    assert "Tunnel!" in page.inner_text("#turn-text")
    more = page.locator("#tunnel-sheet .pay-more")
    while more.count() and more.is_enabled():  # the payment chooser (test_payment_chooser.py): most locomotives
        more.click()
    shown = json.loads(summary.get_attribute("data-payment"))
    page.click("#tunnel-pay")
    sent = posted(page, fake)[0]
    assert sent["action"]["type"] == "tunnel_pay" and sent["action"]["cards"] == shown
    assert Action.from_json(sent["action"]) in pays
    assert sent["expected_seq"] == len(game.history) + 1 and sent["seat"] == 0
    page2, fake2 = open_fake(new_page, server, game, "faketunnel2")
    page2.click("#tunnel-decline")
    assert posted(page2, fake2)[0]["action"] == {"type": "tunnel_decline"}


def test_station_dialog_picks_a_city_then_a_payment(server: Server, new_page: Any) -> None:
    def station_choices(g: Any, legal: list[Any]) -> bool:
        if g.phase != "turn" or g.current != 0:
            return False
        per_city: dict[str, int] = {}
        for a in legal:
            if a.type == "build_station":
                per_city[a.city] = per_city.get(a.city, 0) + 1
        return bool(per_city) and max(per_city.values()) >= 2

    game = next(g for seed in range(50) if (g := play_until("europe", 3, seed, station_choices)) is not None)
    legal = [a for a in game.legal_actions() if a.type == "build_station"]
    page, fake = open_fake(new_page, server, game, "fakestation1")
    page.click("#build-station")
    page.wait_for_selector("#station-pick-sheet")
    pickable = page.locator("g.city.pickable").count()
    assert pickable == len({a.city for a in legal})
    city = max({a.city for a in legal}, key=lambda c: sum(a.city == c for a in legal))
    page.locator(f"g.city[data-city='{city}'] .city-dot").click()
    page.wait_for_selector("#station-sheet")
    assert page.locator("#station-sheet #pay-summary").get_attribute("data-options") == str(sum(a.city == city for a in legal))
    colours = page.locator("#station-sheet .pay-colour")  # the payment chooser (test_payment_chooser.py)
    (colours.last if colours.count() else page.locator("#station-sheet .pay-more")).click()
    page.click("#confirm-station")
    sent = posted(page, fake)[0]["action"]
    assert sent["type"] == "build_station" and sent["city"] == city
    assert Action.from_json(sent) in legal


def test_passenger_placing_on_the_map(server: Server, new_page: Any) -> None:
    game = next(g for seed in range(50) if (g := play_until("marklin", 2, seed, current_is(0, "place_passenger"))) is not None)
    places = [a.city for a in game.legal_actions() if a.city]
    page, fake = open_fake(new_page, server, game, "fakeplace1")
    page.wait_for_selector("#place-sheet")
    assert page.locator("g.city.pickable").count() == len(places)
    page.locator(f"g.city[data-city='{places[-1]}'] .city-dot").click()
    sent = posted(page, fake)[0]["action"]
    assert sent == {"type": "place_passenger", "city": places[-1]}


def test_passenger_trips_show_their_path_and_tokens(server: Server, new_page: Any) -> None:
    def can_move(g: Any, legal: list[Any]) -> bool:
        return g.phase == "turn" and g.current == 0 and any(a.type == "move_passenger" and len(a.path) >= 2 for a in legal)

    game = next(g for seed in range(200) if (g := play_until("marklin", 2, seed, can_move)) is not None)
    moves = [a for a in game.legal_actions() if a.type == "move_passenger"]
    page, fake = open_fake(new_page, server, game, "fakemove1")
    start = moves[0].city  # clicking a passenger's city offers that passenger's trips
    page.locator(f"g.city[data-city='{start}'] .city-dot").click()
    page.wait_for_selector("#moves-sheet")
    assert page.locator("#moves-sheet .move-option").count() == sum(m.city == start for m in moves)
    page.click("#sheet-cancel")
    page.click("#move-passenger")
    page.wait_for_selector("#moves-sheet")
    items = page.locator("#moves-sheet .move-option")
    assert items.count() == len(moves)
    for i, move in enumerate(moves):  # the points announced are the points the engine gives
        after = game.clone()
        before = after.scores[0]
        after.step(move)
        gain = after.scores[0] - before
        assert items.nth(i).locator(".button").inner_text() == f"Go (+{gain} point{'s' if gain != 1 else ''})"
    longest = max(range(len(moves)), key=lambda i: len(moves[i].path))
    items.nth(longest).hover()
    page.wait_for_selector(".overlay-path.trail")
    assert page.locator(".overlay-path.trail").count() == len(moves[longest].path)
    items.nth(longest).locator(".button").click()
    sent = posted(page, fake)[0]["action"]
    assert Action.from_json(sent) == moves[longest]


def test_marklin_ticket_mix_then_keep(server: Server, new_page: Any) -> None:
    game = next(g for seed in range(20) if (g := play_until("marklin", 2, seed, current_is(0, "turn"))) is not None)
    mixes = [a for a in game.legal_actions() if a.type == "draw_tickets"]
    page, fake = open_fake(new_page, server, game, "fakemix1")
    page.click("#draw-tickets")
    page.wait_for_selector("#mix-sheet")
    buttons = page.locator("#mix-sheet .mix-options button")
    assert buttons.count() == len(mixes)
    buttons.first.click()
    sent = posted(page, fake)[0]["action"]
    assert Action.from_json(sent) == mixes[0]
    # Then the drawn tickets are offered: keeping too few is not possible.
    game.step(mixes[0])
    page2, fake2 = open_fake(new_page, server, game, "fakemix2")
    page2.wait_for_selector("#keep-sheet")
    assert page2.locator("#keep-sheet li.offer").count() == len(game.offered[0])
    assert page2.locator("#confirm-keep").is_disabled()
    page2.locator("#keep-sheet li.offer input").first.check()
    assert page2.locator("#confirm-keep").is_enabled()
    page2.click("#confirm-keep")
    sent = posted(page2, fake2)[0]["action"]
    assert sent["type"] == "keep_tickets" and len(sent["tickets"]) == 1


def test_final_scores_explain_a_tie_break(server: Server, new_page: Any) -> None:
    game = play_until("europe", 3, 7, lambda g, legal: g.is_over, steps=20000)
    assert game is not None
    summary = fake_summary("faketie1", "europe", 3, over=True)
    state = engine_state(game, 0, summary)
    result = state["view"]["result"]
    a, b = result["players"][0], result["players"][1]
    a["tickets_completed"], b["tickets_completed"] = 3, 1  # a tie on points, decided by completed tickets
    a["total"] = b["total"] = max(p["total"] for p in result["players"]) + 5
    a["rank"], b["rank"] = 1, 2
    result["players"][2]["rank"] = 3
    result["winners"] = [0]
    state["tie_breaks"] = tie_breaks(result)  # the server serves the engine's explanation of this (made-up) tie
    page = new_page()
    FakeGame(page, "faketie1", state)
    page.goto(f"{server.base}/play/faketie1?token=fake-token")
    wait_ready(page)
    score_sheet(page)
    assert page.inner_text("#final-headline") == "Ana wins!"
    note = page.inner_text("#tie-notes")
    assert "tie on" in note and "most tickets completed: Ana 3, Bot 2 (easy) 1" in note
    stations_row = page.locator("#final-scores tr", has_text="Stations").first
    assert stations_row.count() == 1
    # Every player's longest path can be drawn on the board.
    ranked = sorted(result["players"], key=lambda x: (x["rank"], x["player"]))
    for i, p in enumerate(ranked):
        page.locator(".path-picker button").nth(i).click()
        assert page.locator(".overlay-path.longest").count() == len(p["longest_path_routes"])


@pytest.mark.parametrize("edition", ["usa", "europe", "nordic", "marklin"])
def test_board_in_the_middle_of_a_game(server: Server, new_page: Any, edition: str) -> None:
    """Claimed routes in their owners' colours, stations, passengers and merchandise as the view says; screenshot saved."""
    players = 3 if edition != "marklin" else 4
    game = play_until(edition, players, 11, lambda g, legal: g.turn >= 70 and g.phase == "turn" and g.current == 0)
    assert game is not None
    view = game.view(0).to_dict()
    page, _ = open_fake(new_page, server, game, f"fakemid{edition}")
    claimed = page.locator("g.route.claimed")
    assert claimed.count() == len(view["routes"]) > 10
    owners = page.evaluate(
        "() => Object.fromEntries([...document.querySelectorAll('g.route.claimed')]"
        ".map(g => [g.dataset.route, Number(g.dataset.owner)]))"
    )
    assert owners == view["routes"]
    assert page.locator("use.station").count() == len(view["stations"])
    placed = [c for p in view["public"] for c in p["passengers"] if c not in (None, "gone")]
    assert page.locator("use.passenger").count() == len(placed)
    assert page.locator("g.merch").count() == len(view["merchandise"])
    tops = page.evaluate(
        "() => Object.fromEntries([...document.querySelectorAll('g.merch')]"
        ".map(g => [g.dataset.city, Number(g.querySelector('.merch-value').textContent)]))"
    )
    assert tops == {city: stack[0] for city, stack in view["merchandise"].items()}
    for seat, p in enumerate(view["public"]):
        row = page.locator(f".player[data-seat='{seat}'] .player-stats")
        assert row.locator(".score b").inner_text() == str(p["score"])
    page.locator(".area-board").screenshot(path=str(screenshot_path(f"{edition}-midgame.png")))
