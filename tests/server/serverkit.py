"""Test helpers for the game server: an in-process client, real `ttr serve` processes, random play."""

from __future__ import annotations

import contextlib
import os
import random
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

TIMEOUT = 60.0
# Tests that play whole games from one client go faster than the default 100 actions/s per client on an idle
# machine (429 rate_limited); the limits stay on, out of their way. tests/server/test_limits.py sets its own.
TEST_RATE_ACTION = "1000/second;30000/minute"  # HTTP actions, and WebSocket messages (--rate-ws-message)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def create(client: Any, **body: Any) -> dict[str, Any]:
    res = client.post("/api/games", json=body)
    assert res.status_code == 201, res.text
    return res.json()


def join_all(client: Any, created: dict[str, Any], names: list[str] | None = None) -> dict[int, str]:
    """Join every human seat with its invitation token; returns {seat: token}."""
    tokens = {}
    for s in created["seats"]:
        if s["type"] == "human" and s.get("token"):
            name = names[s["seat"]] if names else f"P{s['seat']}"
            res = client.post(f"/api/games/{created['game_id']}/join", json={"name": name}, headers=bearer(s["token"]))
            assert res.status_code == 200, res.text
            assert res.json()["seat"] == s["seat"]
            tokens[s["seat"]] = s["token"]
    return tokens


def wait_for(predicate: Any, timeout: float = TIMEOUT, interval: float = 0.01) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError("timed out waiting")


def play_random(
    client: Any,
    game_id: str,
    tokens: dict[int, str],
    rng: random.Random,
    max_actions: int = 100_000,
    seen: list[tuple[int, Any]] | None = None,
) -> int:
    """Play the human seats (random legal actions, with expected_seq) until the game ends or max_actions.

    Bots move on the server meanwhile. Every response is appended to `seen` as (seat, json) when given.
    Returns the number of actions played.
    """
    played = 0
    deadline = time.monotonic() + TIMEOUT
    while played < max_actions:
        assert time.monotonic() < deadline, "game did not progress"
        moved = False
        for seat, token in tokens.items():
            st = client.get(f"/api/games/{game_id}/state", params={"seat": seat}, headers=bearer(token))
            assert st.status_code == 200, st.text
            data = st.json()
            if seen is not None:
                seen.append((seat, data))
            if data["summary"]["status"] == "finished":
                return played
            if data["legal"] and data["seat"] == seat:
                action = rng.choice(data["legal"])
                res = client.post(
                    f"/api/games/{game_id}/actions",
                    headers=bearer(token),
                    json={"seat": seat, "action": action, "expected_seq": data["seq"]},
                )
                assert res.status_code == 200, res.text
                if seen is not None:
                    seen.append((seat, res.json()))
                played += 1
                moved = True
        if not moved:
            time.sleep(0.002)
    return played


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerProcess:
    """A real `ttr serve` in a subprocess (kill -9 it to simulate a crash)."""

    def __init__(
        self,
        db: str,
        port: int | None = None,
        bot_delay: float = 0.0,
        log: Path | None = None,
        quiet: bool = True,
        extra: list[str] | None = None,
        env: dict[str, str] | None = None,
        undo_window: float = 0.0,
    ) -> None:
        self.db = db
        self.extra = list(extra or [])
        self.env = dict(env or {})
        self.port = port or free_port()
        self.bot_delay = bot_delay
        self.undo_window = undo_window
        self.log = log
        self.quiet = quiet
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self) -> ServerProcess:
        out = open(self.log, "ab") if self.log else subprocess.DEVNULL  # noqa: SIM115 - kept open while the process runs
        env = {**os.environ, "PYTHONUNBUFFERED": "1", **self.env}
        env.pop("TTR_DATABASE_URL", None)
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "ttr",
                "serve",
                "--port",
                str(self.port),
                "--db",
                self.db,
                "--bot-delay",
                str(self.bot_delay),
                "--undo-window",
                str(self.undo_window),
                *(["--no-access-log", "--log-level", "warning"] if self.quiet else ["--log-level", "info"]),
                "--rate-action",
                TEST_RATE_ACTION,
                "--rate-ws-message",
                TEST_RATE_ACTION,
                *self.extra,  # after: an --rate-action of a test's own wins
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"ttr serve exited with {self.proc.returncode}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(self.url + "/api/editions", timeout=1).status_code == 200:
                    return self
            time.sleep(0.1)
        raise RuntimeError("ttr serve did not start")

    def kill(self) -> None:
        """kill -9: no shutdown, no flush — what a crash looks like."""
        if self.proc and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


@contextlib.contextmanager
def running(*servers: ServerProcess) -> Iterator[tuple[ServerProcess, ...]]:
    try:
        for s in servers:
            s.start()
        yield servers
    finally:
        for s in servers:
            s.stop()
