"""Helpers for the browser tests: the `ttr serve` handle, API calls, and ways to drive the client."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
STATIC_I18N = ROOT / "src" / "ttr" / "server" / "static" / "i18n"


def chromium_path() -> str | None:
    path = os.environ.get("TTR_CHROMIUM") or "/usr/bin/chromium"
    if os.path.isfile(path) and os.access(path, os.X_OK):
        return path
    return shutil.which(path)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ApiFailure(Exception):
    def __init__(self, status: int, body: Any) -> None:
        super().__init__(f"{status}: {body}")
        self.status = status
        self.body = body


@dataclass
class Server:
    base: str
    process: subprocess.Popen[bytes]

    def api(self, method: str, path: str, token: str | None = None, body: Any = None) -> Any:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=20) as res:
                return json.loads(res.read() or b"null")
        except urllib.error.HTTPError as exc:
            raise ApiFailure(exc.code, json.loads(exc.read() or b"null")) from None

    def new_game(self, edition: str, seats: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
        return self.api("POST", "/api/games", body={"edition": edition, "players": len(seats), "seats": seats, **extra})


# ---------------------------------------------------------------------- driving the client
def wait_ready(page: Any) -> None:
    page.wait_for_selector("body[data-ready='1']")


def score_sheet(page: Any, selector: str = "#final-scores") -> None:
    """Wait for the final score sheet, skipping the scoring walk-through that comes first (tests/browser/
    test_score_walk.py tests it; here it would only cost its 1.1 s per ticket)."""
    page.wait_for_function(
        "(sel) => { const s = document.querySelector('#walk-skip'); if (s) s.click(); return !!document.querySelector(sel); }",
        arg=selector,
        polling=100,
    )
    page.wait_for_selector(selector)


def wait_idle(page: Any) -> None:
    """Until no action is in flight (the page marks itself busy while the server answers)."""
    # a function, not an expression: Playwright evals expressions in the page, which the CSP forbids
    page.wait_for_function("() => !document.querySelector('.game-page.busy')")


def game_url(server: Server, game_id: str, token: str | None = None) -> str:
    return f"{server.base}/play/{game_id}" + (f"?token={token}" if token else "")


def finish_setup_in_ui(page: Any) -> None:
    """Name a ticket mix if asked (Märklin), then keep every ticket offered."""
    for _ in range(3):
        page.wait_for_selector("#keep-sheet, #mix-sheet")
        if page.locator("#mix-sheet").count():
            page.locator("#mix-sheet .mix-options button").first.click()
            wait_idle(page)
            page.wait_for_selector("#mix-sheet", state="detached")  # the tickets of that mix come next
            continue
        page.click("#keep-all")
        page.click("#confirm-keep")
        wait_idle(page)
        page.wait_for_selector("#keep-sheet", state="detached")
        return
    raise AssertionError("the setup dialogs did not end")


def my_turn(page: Any) -> None:
    page.wait_for_selector(".turn-banner.mine")
    wait_idle(page)


def state(server: Server, game_id: str, token: str, seat: int | None = None) -> dict[str, Any]:
    q = f"?seat={seat}" if seat is not None else ""
    return server.api("GET", f"/api/games/{game_id}/state{q}", token)


def wait_state(
    server: Server, game_id: str, token: str, ok: Callable[[dict[str, Any]], bool], timeout: float = 20
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        st = state(server, game_id, token)
        if ok(st):
            return st
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for the game state: phase {st['view']['phase']}, seq {st['seq']}")
        time.sleep(0.05)


def quick_choice(legal: list[dict[str, Any]]) -> dict[str, Any]:
    """A fast way through a game: the longest claim, else keep every ticket, else a blind draw."""
    claims = [a for a in legal if a["type"] == "claim"]
    if claims:
        return max(claims, key=lambda a: (sum(a["cards"].values()), a["route"]))
    keeps = [a for a in legal if a["type"] == "keep_tickets"]
    if keeps:
        return max(keeps, key=lambda a: len(a["tickets"]))
    for kind in ("draw_blind", "tunnel_pay", "draw_faceup", "place_passenger"):
        for a in legal:
            if a["type"] == kind:
                return a
    return legal[0]


def play_to_the_end(server: Server, game_id: str, token: str, limit: int = 600) -> dict[str, Any]:
    """Play this token's seat through the API until the game is over (bots play on the server)."""
    for _ in range(limit):
        st = wait_state(server, game_id, token, lambda s: s["view"]["phase"] == "over" or bool(s["legal"]))
        if st["view"]["phase"] == "over":
            return st
        try:
            server.api(
                "POST",
                f"/api/games/{game_id}/actions",
                token,
                {"action": quick_choice(st["legal"]), "expected_seq": st["seq"], "seat": st["seat"]},
            )
        except ApiFailure as exc:
            if exc.status != 409:
                raise
    raise AssertionError("the game did not end")


def play_out(server: Server, game_id: str, tokens: dict[int, str], limit: int = 3000) -> None:
    """Play every seat of `tokens` (seat -> token) through the API until the game is over."""
    for _ in range(limit):
        states = [state(server, game_id, tokens[s], s) for s in tokens]
        if states[0]["view"]["phase"] == "over":
            return
        for seat, st in zip(tokens, states, strict=True):
            if st["legal"]:
                try:
                    body = {"action": quick_choice(st["legal"]), "expected_seq": st["seq"]}
                    server.api("POST", f"/api/games/{game_id}/actions", tokens[seat], body)
                except ApiFailure as exc:
                    if exc.status != 409:
                        raise
    raise AssertionError("the game did not end")


# ---------------------------------------------------------------------- accounts
PASSWORD = "a long enough password"


def sign_up(page: Any, server: Server, name: str, existing: bool = False) -> None:
    """Create the account `name` (or sign in to it: `existing`) from the lobby's account panel."""
    page.goto(server.base + "/")
    wait_ready(page)
    page.fill("#account-name", name)
    page.fill("#account-password", PASSWORD)
    page.click("#login-button" if existing else "#signup-button")
    page.wait_for_selector("#logout-button")


def post_as(page: Any, path: str, body: Any, token: str | None = None) -> Any:
    """POST as this page's browser: its session cookie, and the CSRF token the server asks for with it."""
    base = page.url.split("/", 3)
    origin = f"{base[0]}//{base[2]}"
    csrf = page.request.get(origin + "/api/me").json()["csrf_token"]
    headers = {"X-CSRF-Token": csrf} if csrf else {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    res = page.request.post(origin + path, data=body, headers=headers)
    assert res.ok, res.text()
    return res.json()


def screenshot_path(name: str) -> Path:
    out = ARTIFACTS / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    return out / name


# ---------------------------------------------------------------------- a crafted game served to the page
def engine_state(game: Any, seat: int, summary: dict[str, Any]) -> dict[str, Any]:
    """The GET /state answer for `seat`, built as the server builds it (view JSON, legal actions, served rules)."""
    from ttr.server.service import served_rules

    my_turn = not game.is_over and game.current == seat
    return {
        **served_rules(game, seat),
        "seq": len(game.history) + 1,
        "seat": seat,
        "seats_controlled": [seat],
        "view": game.view(seat).to_dict(),
        "legal": [a.to_json() for a in game.legal_actions()] if my_turn else [],
        "can_undo": False,
        "summary": summary,
    }


def fake_summary(game_id: str, edition: str, players: int, over: bool = False) -> dict[str, Any]:
    seats = [{"seat": 0, "type": "human", "joined": True, "name": "Ana"}]
    seats += [{"seat": i, "type": "bot", "level": "easy", "joined": True} for i in range(1, players)]
    return {
        "game_id": game_id,
        "name": None,
        "edition": edition,
        "players": players,
        "options": {},
        "hotseat": False,
        "public": False,
        "seats": seats,
        "status": "finished" if over else "active",
        "phase": "turn",
        "current": 0,
        "turn": 1,
        "created_at": "",
        "updated_at": "",
        "seq": 1,
    }


class FakeGame:
    """Serves one crafted state to the page in place of the server (HTTP routes and a silent WebSocket),
    and records every action the page posts. Maps and static files still come from the real server."""

    def __init__(self, page: Any, game_id: str, state: dict[str, Any]) -> None:
        import re

        self.id = game_id
        self.state = state
        self.posted: list[dict[str, Any]] = []
        page.route(re.compile(rf"/api/games/{re.escape(game_id)}(/[^?]*)?(\?.*)?$"), self.handle)
        page.route_web_socket(re.compile(r"/ws/games/"), lambda ws: None)

    def handle(self, route: Any) -> None:
        req = route.request
        path = req.url.split("?")[0].split(f"/api/games/{self.id}", 1)[1]
        if req.method == "GET" and path == "":
            body: Any = self.state["summary"]
        elif req.method == "GET" and path in ("/state", "/spectate"):
            body = self.state
        elif req.method == "GET" and path == "/log":
            body = {"seq": self.state["seq"], "events": []}
        elif req.method == "POST" and path == "/actions":
            self.posted.append(json.loads(req.post_data or "{}"))
            body = {"seq": self.state["seq"] + 1, "events": []}
        else:
            missing = {"error": {"code": "not_found", "message": path}}
            route.fulfill(status=404, content_type="application/json", body=json.dumps(missing))
            return
        route.fulfill(status=200, content_type="application/json", body=json.dumps(body))


def play_until(
    edition: str,
    players: int,
    seed: int,
    found: Callable[[Any, list[Any]], bool],
    steps: int = 4000,
    prefer: Callable[[Any, Any], bool] | None = None,
) -> Any:
    """Play a seeded game with random legal actions (those `prefer`red first, then claims) until `found(game, legal)`;
    None if it never is."""
    import random

    from ttr.engine import Game

    g = Game(edition, players, seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if g.is_over:
            return g if found(g, []) else None
        legal = g.legal_actions()
        if found(g, legal):
            return g
        liked = [a for a in legal if prefer(g, a)] if prefer else []
        claims = [a for a in legal if a.type == "claim"]
        if liked:
            g.step(rng.choice(liked))
        else:
            g.step(rng.choice(claims) if claims and rng.random() < 0.7 else rng.choice(legal))
    return None
