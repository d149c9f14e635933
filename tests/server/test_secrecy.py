"""Nothing a client receives holds another player's hand or tickets, the deck order or the random state.

Whole games on a real `ttr serve` process: bots and human seats driven by this test (each with its own
WebSocket, acting alternately over the WebSocket and over HTTP), plus a spectator. Every message each
client receives before the game ends is scanned: other seats' ticket ids, other seats' hands and blind
draws, and any deck/random-state field.
"""

from __future__ import annotations

import json
import random
import time
from typing import Any

import httpx
import pytest
from serverkit import ServerProcess, bearer, running
from websockets.sync.client import connect

from ttr.editions import get_edition
from ttr.engine import Game

FORBIDDEN_KEYS = {"rng", "seed", "hands", "history", "removed_tickets", "position", "token_hash"}


def seen_tickets(record: dict[str, Any]) -> list[set[str]]:
    """Every ticket id each seat held or was offered at any moment (replaying the finished game)."""
    g = Game(record["edition"], record["players"], record["seed"], record.get("options") or None)
    ed = g.edition
    seen: list[set[str]] = [set() for _ in range(g.n)]

    def note() -> None:
        for p in range(g.n):
            seen[p].update(ed.tickets[t].id for t in g.tickets[p] + g.offered[p])

    note()
    for a, seat in zip(record["actions"], record["actors"], strict=True):  # setup choices come in any order
        g.step(a, seat)
        note()
    return seen


def scan(obj: Any, controlled: frozenset[int], problems: list[str], path: str = "") -> None:
    if isinstance(obj, dict):
        if "hand" in obj and obj.get("me") not in controlled:
            problems.append(f"{path}: a hand for seat {obj.get('me')}")
        if "offered" in obj and obj.get("me") not in controlled:
            problems.append(f"{path}: offered tickets for seat {obj.get('me')}")
        kind, player = obj.get("type"), obj.get("player", -1)  # events always name their player
        if "player" in obj and kind == "draw_blind" and player not in controlled and "card" in obj:
            problems.append(f"{path}: seat {player}'s blind draw")
        if "player" in obj and kind in ("draw_tickets", "keep_tickets") and player not in controlled and "tickets" in obj:
            problems.append(f"{path}: seat {player}'s tickets")
        for k, v in obj.items():
            if k in FORBIDDEN_KEYS or (k == "deck" and not isinstance(v, str)):
                problems.append(f"{path}.{k}: forbidden field")
            scan(v, controlled, problems, f"{path}.{k}")
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            scan(v, controlled, problems, f"{path}[{i}]")


class Client:
    """One token (or a spectator) with its WebSocket; keeps every message it receives."""

    def __init__(self, server: ServerProcess, gid: str, token: str | None, controlled: frozenset[int]) -> None:
        self.server, self.gid, self.token, self.controlled = server, gid, token, controlled
        q = f"?token={token}&since=0" if token else "?since=0"
        self.ws = connect(f"{server.ws_url}/ws/games/{gid}{q}", open_timeout=10)
        self.received: list[tuple[bool, Any]] = []  # (game over already?, message)
        self.state: dict[str, Any] | None = None
        self.over = False
        self.acted_at = -1

    def keep(self, msg: Any) -> None:
        """Keep a message, noting whether the game was over by then (the end reveals everyone's tickets)."""
        if isinstance(msg, dict):
            st = msg.get("state", msg)
            if (
                any(e.get("event", {}).get("type") == "game_over" for e in msg.get("events", ()))
                or st.get("summary", {}).get("status") == "finished"
                or "result" in st.get("view", {})
            ):
                self.over = True
        self.received.append((self.over, msg))

    def pump(self) -> bool:
        got = False
        while True:
            try:
                raw = self.ws.recv(timeout=0)
            except TimeoutError:
                return got
            msg = json.loads(raw)
            if msg["type"] == "error" and msg["error"]["code"] == "state_changed":
                continue  # setup: we acted on an update that did not show our own choice yet; the server refused it
            assert msg["type"] == "update", msg
            self.keep(msg)
            self.state = msg["state"]
            got = True

    def act(self, rng: random.Random, http: httpx.Client) -> bool:
        st = self.state
        if not st or not st["legal"] or st["seq"] == self.acted_at:
            return False
        self.acted_at = st["seq"]
        action = rng.choice(st["legal"])
        body = {"action": action, "seat": st["seat"], "expected_seq": st["seq"]}
        if rng.random() < 0.5:
            self.ws.send(json.dumps({"type": "action", **body}))
        else:
            res = http.post(f"/api/games/{self.gid}/actions", json=body, headers=bearer(self.token))
            if res.status_code == 409 and res.json()["error"]["code"] == "state_changed":
                return False  # setup: another seat (a bot) chose first; the server refused ours, as on the socket
            assert res.status_code == 200, res.text
            self.keep(res.json())
            st2 = http.get(f"/api/games/{self.gid}/state", headers=bearer(self.token))
            self.keep(st2.json())
        return True


def play_and_scan(server: ServerProcess, body: dict[str, Any], rng: random.Random) -> int:
    http = httpx.Client(base_url=server.url, timeout=10)
    created = http.post("/api/games", json=body).json()
    gid = created["game_id"]
    clients = []
    if body.get("hotseat"):
        humans = frozenset(s["seat"] for s in created["seats"] if s["type"] == "human")
        clients.append(Client(server, gid, created["hotseat_token"], humans))
    else:
        for s in created["seats"]:
            if s["type"] == "human":
                http.post(f"/api/games/{gid}/join", json={"name": f"P{s['seat']}"}, headers=bearer(s["token"]))
                clients.append(Client(server, gid, s["token"], frozenset({s["seat"]})))
    spectator = Client(server, gid, None, frozenset())
    deadline = time.monotonic() + 90
    while not spectator.over:
        assert time.monotonic() < deadline, "game did not finish"
        busy = False
        for c in [*clients, spectator]:
            busy |= c.pump()
        for c in clients:
            busy |= c.act(rng, http)
        if not busy:
            time.sleep(0.001)
    for c in [*clients, spectator]:
        c.pump()
        c.keep(http.get(f"/api/games/{gid}/spectate").json())
        c.ws.close()
    record = http.get(f"/api/games/{gid}/record").json()
    seen = seen_tickets(record)
    ed = get_edition(record["edition"])
    public_ids = {r.id for r in ed.routes} | set(ed.city_ids)
    checked = 0
    for c in [*clients, spectator]:
        mine = set().union(*(seen[p] for p in c.controlled)) if c.controlled else set()
        others = set().union(*(seen[p] for p in range(record["players"]) if p not in c.controlled))
        secret_ids = (others - mine) - public_ids
        assert secret_ids, "the scan would find nothing to look for"
        pattern = [f'"{t}"' for t in secret_ids]
        problems: list[str] = []
        for over, msg in c.received:
            if over:
                continue  # the end of the game shows every ticket
            text = json.dumps(msg)
            problems += [f"ticket {p} in a message" for p in pattern if p in text]
            scan(msg, c.controlled, problems)
            checked += 1
        assert not problems, (c.controlled, problems[:10])
        assert any(over for over, _ in c.received)
    errors = [m for c in clients for _, m in c.received if isinstance(m, dict) and m.get("type") == "error"]
    assert not errors, errors[:3]
    return checked


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    db = str(tmp_path_factory.mktemp("secrecy") / "ttr.sqlite3")
    with running(ServerProcess(db, bot_delay=0.0)) as (srv,):
        yield srv


@pytest.mark.parametrize(
    "body",
    [
        {"edition": "usa", "players": 3, "seats": [{"type": "human"}, {"type": "human"}, {"type": "bot", "level": "easy"}]},
        {"edition": "europe", "players": 3, "hotseat": True, "seats": [{"type": "human"}, {"type": "bot"}, {"type": "human"}]},
        {"edition": "marklin", "players": 2, "seats": [{"type": "human"}, {"type": "human"}]},
        {"edition": "nordic", "players": 3, "seats": [{"type": "bot"}, {"type": "human"}, {"type": "bot", "level": "hard"}]},
    ],
    ids=["usa-2humans-bot", "europe-hotseat-bot", "marklin-2humans", "nordic-human-2bots"],
)
def test_whole_games_leak_nothing(server, body):
    checked = play_and_scan(server, body, random.Random(hash(body["edition"]) % 1000))
    assert checked > 100
