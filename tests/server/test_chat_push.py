"""Chat: who reads which channel (the players' channel only with a seat token while the game runs), and the
chat pushed over the game's WebSocket (`?chat=1`), on SQLite in-process and across two `ttr serve` processes
on PostgreSQL (docs/api.md, Chat and rematch)."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import httpx
import pytest
from fastapi.testclient import TestClient
from serverkit import ServerProcess, bearer, create, join_all, running
from test_accounts import csrf, other, signup
from test_ratings import play_fast

from ttr.server import Settings, create_app

TWO_HUMANS = [{"type": "human"}, {"type": "human"}]


@pytest.fixture
def app_client(settings: Settings):
    fast = replace(settings, argon2_time_cost=1, argon2_memory_kib=8192, limits_enabled=False)
    with TestClient(create_app(fast)) as c:
        yield c


def test_players_channel_is_for_the_players_until_the_end(app_client):
    c = app_client
    created = create(c, seats=TWO_HUMANS)
    gid = created["game_id"]
    tokens = join_all(c, created, names=["Ana", "Bo"])
    assert c.post(f"/api/games/{gid}/chat", json={"text": "secret plan"}, headers=bearer(tokens[0])).status_code == 200
    watcher = other(c)
    tok = signup(watcher, "watcher")
    assert (
        watcher.post(f"/api/games/{gid}/chat", json={"channel": "spectators", "text": "go"}, headers=csrf(tok)).status_code == 200
    )
    # a spectator (no token, a signed-in watcher, another game's token) cannot read the players' channel
    res = c.get(f"/api/games/{gid}/chat")
    assert res.status_code == 401 and res.json()["error"]["code"] == "token_required"
    assert watcher.get(f"/api/games/{gid}/chat").status_code == 401
    elsewhere = create(c, seats=TWO_HUMANS)
    foreign = join_all(c, elsewhere)[0]
    assert c.get(f"/api/games/{gid}/chat", headers=bearer(foreign)).json()["error"]["code"] == "bad_token"
    # the players read their channel, and (by choice) the spectators' one; spectators read theirs
    assert [m["text"] for m in c.get(f"/api/games/{gid}/chat", headers=bearer(tokens[1])).json()["messages"]] == ["secret plan"]
    for headers in ({}, bearer(tokens[0])):
        spect = c.get(f"/api/games/{gid}/chat", params={"channel": "spectators"}, headers=headers).json()["messages"]
        assert [m["text"] for m in spect] == ["go"]
    # once the game is over, both channels are public (the replay shows them)
    play_fast(c, gid, tokens, random.Random(3))
    assert [m["text"] for m in c.get(f"/api/games/{gid}/chat").json()["messages"]] == ["secret plan"]


def receive_until(ws, kind: str, limit: int = 50) -> dict:
    for _ in range(limit):
        msg = ws.receive_json()
        if msg["type"] == kind:
            return msg
    raise AssertionError(f"no {kind} message")


def test_chat_pushed_over_the_websocket_to_those_who_may_read_it(app_client):
    c = app_client
    created = create(c, seats=TWO_HUMANS)
    gid = created["game_id"]
    tokens = join_all(c, created, names=["Ana", "Bo"])
    c.post(f"/api/games/{gid}/chat", json={"text": "before"}, headers=bearer(tokens[0]))
    watcher = other(c)
    tok = signup(watcher, "watcher")
    with (
        c.websocket_connect(f"/ws/games/{gid}?token={tokens[1]}&chat=1") as seat_ws,
        c.websocket_connect(f"/ws/games/{gid}?chat=1") as spect_ws,
    ):
        # on connect: what each may read so far (the spectator: nothing yet, so no chat message)
        assert [m["text"] for m in receive_until(seat_ws, "chat")["messages"]] == ["before"]
        c.post(f"/api/games/{gid}/chat", json={"text": "only players"}, headers=bearer(tokens[0]))
        msg = receive_until(seat_ws, "chat")
        assert [(m["text"], m["name"], m["channel"]) for m in msg["messages"]] == [("only players", "Ana", "players")]
        watcher.post(f"/api/games/{gid}/chat", json={"channel": "spectators", "text": "hello all"}, headers=csrf(tok))
        assert [m["text"] for m in receive_until(seat_ws, "chat")["messages"]] == ["hello all"]
        got = receive_until(spect_ws, "chat")  # the spectator's first chat message: the spectators' one only
        assert [(m["text"], m["channel"]) for m in got["messages"]] == [("hello all", "spectators")]
    # without ?chat=1 a socket gets no chat messages (other clients are unaffected)
    with c.websocket_connect(f"/ws/games/{gid}?token={tokens[1]}") as plain:
        assert plain.receive_json()["type"] == "update"
        c.post(f"/api/games/{gid}/chat", json={"text": "ping"}, headers=bearer(tokens[0]))
        plain.send_json({"type": "ping"})
        assert plain.receive_json()["type"] == "pong"


def test_chat_reaches_a_websocket_on_another_process(pg_db, tmp_path):
    """PostgreSQL, two processes: a message written through A is pushed to a seat's socket on B (NOTIFY)."""
    from websockets.sync.client import connect

    extra = ["--no-limits", "--bot-workers", "1"]
    a = ServerProcess(pg_db, log=tmp_path / "a.log", extra=extra)
    b = ServerProcess(pg_db, log=tmp_path / "b.log", extra=extra)
    with running(a, b):
        ha = httpx.Client(base_url=a.url, timeout=30)
        created = create(ha, seats=TWO_HUMANS)
        gid = created["game_id"]
        tokens = join_all(ha, created)
        with connect(f"{b.ws_url}/ws/games/{gid}?token={tokens[1]}&chat=1", open_timeout=30) as ws:
            assert json.loads(ws.recv(timeout=30))["type"] == "update"
            assert ha.post(f"/api/games/{gid}/chat", json={"text": "via A"}, headers=bearer(tokens[0])).status_code == 200
            for _ in range(20):
                msg = json.loads(ws.recv(timeout=30))
                if msg["type"] == "chat":
                    break
            assert [m["text"] for m in msg["messages"]] == ["via A"]
