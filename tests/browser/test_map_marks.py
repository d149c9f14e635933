"""Issue 15, map marks: the closed twin of a double route, the player's destinations, and the completed path of a
ticket lit up on hover (mouse) or tap (touch).

- Closed lanes come from the server (`closed_routes` in GET /state, the engine's group rule for every seat): a real
  2-player USA game is played through the API until a lane of a double route is claimed; the twin is then closed,
  drawn faded with a red no-entry mark over its middle (checked in pixels) at 1366×768 and 390×844. The same
  function says nothing is closed at 4 players (USA) or 3 players (Nordic, whose rule opens all lanes from 3).
- Destinations: a crafted USA position where the first ticket is connected by our routes; every end city of our
  tickets carries a ring (solid for an open ticket, dashed once done), no other city does, and a spectator sees none.
- Hovering the connected ticket draws exactly a path of our routes joining its two cities; tapping pins it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from typing import Any

import pytest
from board_measure import DESKTOP, PHONE, Pages, crafted_state, delta_e, module_pages, screenshot_pixels, show_state
from browser_helpers import (
    ApiFailure,
    FakeGame,
    Server,
    game_url,
    play_until,
    screenshot_path,
    state,
    wait_ready,
    wait_state,
)

from ttr.server.service import closed_routes

FORBIDDEN_RED = (0xC4, 0x16, 0x1C)
OPEN_RING = (0xC2, 0x18, 0x5B)


@pytest.fixture(scope="module")
def pages(browser: Any) -> Iterator[Pages]:
    yield from module_pages(browser)


def twins(game_map: dict[str, Any]) -> dict[str, list[str]]:
    groups: dict[int, list[str]] = {}
    for r in game_map["routes"]:
        if r["group"] is not None:
            groups.setdefault(r["group"], []).append(r["id"])
    return {rid: [o for o in ids if o != rid] for ids in groups.values() for rid in ids}


@pytest.fixture(scope="module")
def closed_game(server: Server) -> dict[str, Any]:
    """A 2-player USA game (us and an easy bot), played through the API until a lane of a double route is claimed."""
    game_map = server.api("GET", "/api/editions/usa/map")
    lanes = twins(game_map)
    created = server.new_game("usa", [{"type": "human"}, {"type": "bot", "level": "easy"}])
    gid, token = created["game_id"], created["seats"][0]["token"]
    server.api("POST", f"/api/games/{gid}/join", token, {"name": "Ana"})
    for _ in range(300):
        st = wait_state(
            server, gid, token, lambda s: s["view"]["phase"] == "over" or bool(s["legal"]) or bool(s["closed_routes"])
        )
        if st["closed_routes"]:  # wait for our turn: nothing moves on the board until we act
            st = wait_state(server, gid, token, lambda s: s["view"]["phase"] == "over" or bool(s["legal"]))
            return {"id": gid, "token": token, "state": st, "map": game_map, "lanes": lanes}
        legal = st["legal"]
        if not legal:
            continue
        doubles = [a for a in legal if a["type"] == "claim" and a["route"] in lanes]
        keeps = [a for a in legal if a["type"] == "keep_tickets"]
        blind = [a for a in legal if a["type"] == "draw_blind"]
        action = (doubles or keeps or blind or legal)[0]
        try:
            server.api("POST", f"/api/games/{gid}/actions", token, {"action": action, "expected_seq": st["seq"]})
        except ApiFailure as exc:
            if exc.status != 409:
                raise
    raise AssertionError("no lane of a double route was claimed")


def test_server_reports_the_closed_twin_by_the_engine_rule(server: Server, closed_game: dict[str, Any]) -> None:
    st = state(server, closed_game["id"], closed_game["token"])
    owners = st["view"]["routes"]
    # With 2 players (< all_lanes_min_players = 4) a claimed lane closes every free twin, for everybody.
    expected = sorted({t for rid in owners if rid in closed_game["lanes"] for t in closed_game["lanes"][rid] if t not in owners})
    assert expected
    assert sorted(st["closed_routes"]) == expected
    if st["legal"]:
        assert not {a["route"] for a in st["legal"] if a["type"] == "claim"} & set(expected)
    spectated = server.api("GET", f"/api/games/{closed_game['id']}/spectate")
    assert sorted(spectated["closed_routes"]) == expected


@pytest.mark.parametrize(
    ("edition", "players", "closes"), [("usa", 2, True), ("usa", 4, False), ("nordic", 2, True), ("nordic", 3, False)]
)
def test_closed_routes_follow_the_editions_player_count(edition: str, players: int, closes: bool) -> None:
    def claimed_a_double(g: Any, legal: Any) -> bool:
        return any(r.group >= 0 and g.route_owner[r.index] >= 0 for r in g.edition.routes)

    game = play_until(edition, players, 3, claimed_a_double, prefer=lambda g, a: a.type == "claim")
    assert game is not None
    owned_twins = [
        r.id
        for r in game.edition.routes
        if r.group >= 0
        and game.route_owner[r.index] < 0
        and any(game.route_owner[o] >= 0 for o in game.edition.group_routes[r.group])
    ]
    assert owned_twins
    got = closed_routes(game)
    assert (set(got) == set(owned_twins)) if closes else (got == [])


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["1366x768", "390x844"])
def test_closed_twin_is_marked_on_the_map(
    server: Server, pages: Pages, closed_game: dict[str, Any], size: tuple[int, int]
) -> None:
    page = pages.get(size)
    page.goto(game_url(server, closed_game["id"], closed_game["token"]))
    wait_ready(page)
    page.wait_for_selector("g.route.closed")
    closed = sorted(closed_game["state"]["closed_routes"])
    assert sorted(page.evaluate("() => [...document.querySelectorAll('g.route.closed')].map(g => g.dataset.route)")) == closed
    marks = page.evaluate("() => [...document.querySelectorAll('.forbidden-mark.on')].map(m => m.dataset.route)")
    assert sorted(marks) == closed
    page.mouse.move(0, 0)
    image = screenshot_pixels(page)
    for rid in closed:
        lane = page.locator(f"g.route[data-route='{rid}'] g.space").first
        assert float(lane.evaluate("e => getComputedStyle(e).opacity")) == pytest.approx(0.4)
        box = page.locator(f".forbidden-mark.on[data-route='{rid}']").bounding_box()
        route_box = page.locator(f"g.route[data-route='{rid}']").bounding_box()
        cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        assert route_box["x"] <= cx <= route_box["x"] + route_box["width"]
        assert route_box["y"] <= cy <= route_box["y"] + route_box["height"]
        assert box["width"] >= (10 if size == DESKTOP else 5)
        # The ring of the mark is drawn in red.
        ring = [
            image.getpixel((round(cx + dx * box["width"] * 0.41), round(cy + dy * box["height"] * 0.41)))
            for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))
        ]
        assert min(delta_e(p, FORBIDDEN_RED) for p in ring) < 25, ring
    page.locator(".area-board").screenshot(path=str(screenshot_path(f"closed-lane-usa-{size[0]}x{size[1]}.png")))


# ---------------------------------------------------------------------- destinations and ticket paths
def shortest_path(game_map: dict[str, Any], a: str, b: str) -> list[str]:
    adj: dict[str, list[tuple[str, str]]] = {}
    for r in sorted(game_map["routes"], key=lambda r: r["id"]):
        adj.setdefault(r["a"], []).append((r["b"], r["id"]))
        adj.setdefault(r["b"], []).append((r["a"], r["id"]))
    prev: dict[str, tuple[str, str] | None] = {a: None}
    queue = deque([a])
    while queue:
        c = queue.popleft()
        if c == b:
            break
        for n, rid in adj.get(c, []):
            if n not in prev:
                prev[n] = (c, rid)
                queue.append(n)
    out = []
    at = b
    while prev[at] is not None:
        at, rid = prev[at]  # type: ignore[misc]
        out.append(rid)
    return out


def joins(game_map: dict[str, Any], routes: set[str], a: str, b: str) -> bool:
    by_id = {r["id"]: r for r in game_map["routes"]}
    reach, todo = {a}, [a]
    while todo:
        c = todo.pop()
        for rid in routes:
            r = by_id[rid]
            for x, y in ((r["a"], r["b"]), (r["b"], r["a"])):
                if x == c and y not in reach:
                    reach.add(y)
                    todo.append(y)
    return b in reach


@pytest.fixture(scope="module")
def tickets_board(server: Server) -> dict[str, Any]:
    game = play_until("usa", 2, 7, lambda g, legal: g.phase == "turn" and g.current == 0)
    assert game is not None
    game_map = server.api("GET", "/api/editions/usa/map")
    tickets = crafted_state(game, "marksusa")["view"]["tickets"]
    assert len(tickets) >= 2
    done = tickets[0]
    path = shortest_path(game_map, done["a"], done["b"])
    for rid in path:  # seat 0 owns the path: the engine then reports the ticket done, with this path
        game.route_owner[game.edition.route_index[rid]] = 0
    game._labels = [None] * game.n  # the connectivity cache, dropped after editing owners by hand
    st = crafted_state(game, "marksusa")
    st["legal"] = []
    assert st["view"]["routes"] == dict.fromkeys(path, 0)
    open_tickets = [tk for tk in tickets[1:] if not joins(game_map, set(path), tk["a"], tk["b"])]
    assert open_tickets
    return {"state": st, "map": game_map, "done": done, "path": path, "open": open_tickets[0], "tickets": tickets}


def destinations(page: Any) -> dict[str, str]:
    return page.evaluate(
        "() => Object.fromEntries([...document.querySelectorAll('g.city.destination')]"
        ".map(g => [g.dataset.city, g.dataset.dest]))"
    )


def lit_path(page: Any) -> list[str]:
    return sorted(page.evaluate("() => [...document.querySelectorAll('.ticket-path')].map(p => p.dataset.route)"))


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["1366x768", "390x844"])
def test_destination_cities_are_marked(
    server: Server, pages: Pages, tickets_board: dict[str, Any], size: tuple[int, int]
) -> None:
    page = pages.get(size)
    show_state(page, server, "marksusa", tickets_board["state"])
    done, tickets = tickets_board["done"], tickets_board["tickets"]
    expected: dict[str, str] = {}
    for tk in tickets:
        finished = tk is done
        for c in (tk["a"], tk["b"]):
            if c not in expected or not finished:
                expected[c] = "done" if finished else "open"
    assert destinations(page) == expected
    page.mouse.move(0, 0)
    image = screenshot_pixels(page)
    for city, kind in expected.items():
        ring = page.locator(f"g.city[data-city='{city}'] .dest-ring")
        box = ring.bounding_box()
        dot = page.locator(f"g.city[data-city='{city}'] .city-dot").bounding_box()
        assert box["width"] > dot["width"] + 2  # a ring around the city dot, not on it
        assert box["width"] >= (12 if size == DESKTOP else 6)
        if kind == "open":  # solid crimson ring: sample it at four points
            cx, cy, r = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2, box["width"] / 2 - 1
            pts = [image.getpixel((round(cx + dx * r), round(cy + dy * r))) for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))]
            assert sum(delta_e(p, OPEN_RING) < 25 for p in pts) >= 2, (city, pts)
        else:
            assert ring.evaluate("e => getComputedStyle(e).strokeDasharray") not in ("none", "")
    page.locator(".area-board").screenshot(path=str(screenshot_path(f"destinations-usa-{size[0]}x{size[1]}.png")))


def test_spectators_see_no_destinations(server: Server, pages: Pages, tickets_board: dict[str, Any]) -> None:
    page = pages.get(DESKTOP)
    st = {**tickets_board["state"], "summary": {**tickets_board["state"]["summary"], "game_id": "watchusa"}}
    FakeGame(page, "watchusa", st)  # a game id this browser holds no token for: we watch
    page.goto(f"{server.base}/play/watchusa")
    wait_ready(page)
    page.wait_for_selector("g.route.claimed")
    assert destinations(page) == {}


def test_hovering_a_connected_ticket_lights_its_path(server: Server, pages: Pages, tickets_board: dict[str, Any]) -> None:
    page = pages.get(DESKTOP)
    show_state(page, server, "marksusa", tickets_board["state"])
    done, other = tickets_board["done"], tickets_board["open"]
    item = page.locator(f"#my-tickets li[data-ticket='{done['id']}']")
    item.hover()
    path = lit_path(page)
    assert path == sorted(tickets_board["path"])
    assert joins(tickets_board["map"], set(path), done["a"], done["b"])
    assert all(tickets_board["state"]["view"]["routes"].get(r) == 0 for r in path)  # only our own routes
    lit = page.evaluate("() => [...document.querySelectorAll('g.city.highlight')].map(g => g.dataset.city)")
    assert sorted(lit) == sorted({done["a"], done["b"]})
    # The path stands out: its trains keep full strength, other routes are dimmed; the halo is wide on screen.
    op = page.evaluate(
        "(ids) => [...document.querySelectorAll('g.route')].map(g => [g.dataset.route, +getComputedStyle(g).opacity])",
        path,
    )
    assert all((o == 1) if rid in path else (o == pytest.approx(0.5)) for rid, o in op)
    halo = page.locator(".ticket-path").first.evaluate("e => e.getBoundingClientRect().width + e.getBoundingClientRect().height")
    assert halo > 20
    page.locator(".area-board").screenshot(path=str(screenshot_path("ticket-path-usa-1366x768.png")))
    page.mouse.move(0, 0)
    assert lit_path(page) == []
    # An open ticket lights its cities only.
    page.locator(f"#my-tickets li[data-ticket='{other['id']}']").hover()
    assert lit_path(page) == []
    assert page.locator("g.city.highlight").count() == len({other["a"], other["b"]})
    # A click pins the path; a second click lets it go.
    item.click()
    page.mouse.move(0, 0)
    assert lit_path(page) == sorted(tickets_board["path"])
    item.click()
    page.mouse.move(0, 0)
    assert lit_path(page) == []


def test_tapping_a_ticket_on_a_phone_keeps_its_path_lit(server: Server, pages: Pages, tickets_board: dict[str, Any]) -> None:
    page = pages.get(PHONE)
    show_state(page, server, "marksusa", tickets_board["state"])
    item = page.locator(f"#my-tickets li[data-ticket='{tickets_board['done']['id']}']")
    item.tap()
    page.wait_for_timeout(50)
    assert lit_path(page) == sorted(tickets_board["path"])
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(screenshot_path("ticket-path-usa-390x844.png")))
    item.tap()
    page.wait_for_timeout(50)
    assert lit_path(page) == []
