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

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
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


def wait_idle(page: Any) -> None:
    """Until no action is in flight (the page marks itself busy while the server answers)."""
    page.wait_for_function("!document.querySelector('.game-page.busy')")


def game_url(server: Server, game_id: str, token: str | None = None) -> str:
    return f"{server.base}/play/{game_id}" + (f"?token={token}" if token else "")


def finish_setup_in_ui(page: Any) -> None:
    """Name a ticket mix if asked (Märklin), then keep every ticket offered."""
    for _ in range(3):
        page.wait_for_selector("#keep-sheet, #mix-sheet")
        if page.locator("#mix-sheet").count():
            page.locator("#mix-sheet .mix-options button").first.click()
            wait_idle(page)
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


def wait_state(server: Server, game_id: str, token: str, ok: Callable[[dict[str, Any]], bool],
               timeout: float = 20) -> dict[str, Any]:
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
            server.api("POST", f"/api/games/{game_id}/actions", token,
                       {"action": quick_choice(st["legal"]), "expected_seq": st["seq"], "seat": st["seat"]})
        except ApiFailure as exc:
            if exc.status != 409:
                raise
    raise AssertionError("the game did not end")


def screenshot_path(name: str) -> Path:
    out = ARTIFACTS / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    return out / name
