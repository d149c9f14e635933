"""Limits and abuse controls (issue 14, item 3): per-client rates with 429 + Retry-After, WebSocket close codes,
caps on games, the expiry of abandoned games, header deadlines on a really started server, and the knobs."""

from __future__ import annotations

import contextlib
import dataclasses
import socket
import time
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from serverkit import ServerProcess, bearer, create, join_all, running, wait_for
from starlette.websockets import WebSocketDisconnect

from ttr.server import Settings, create_app
from ttr.server.limits import client_key


def app_with(settings: Settings, **changes: object) -> TestClient:
    return TestClient(create_app(dataclasses.replace(settings, **changes)))


def assert_rate_limited(res: httpx.Response) -> None:
    assert res.status_code == 429, res.text
    assert res.json()["error"]["code"] == "rate_limited"
    assert int(res.headers["Retry-After"]) >= 1


# ---------------------------------------------------------------------- HTTP rates
def test_game_creation_is_rate_limited_per_client_by_default(client):
    """3,000 games were created anonymously in 27 s: the default allows 10 a minute."""
    codes = [client.post("/api/games", json={}).status_code for _ in range(12)]
    assert codes[:10] == [201] * 10
    assert codes[10:] == [429, 429]
    res = client.post("/api/games", json={})
    assert_rate_limited(res)
    assert 1 <= int(res.headers["Retry-After"]) <= 60


def test_a_refused_request_changes_nothing(settings):
    with app_with(settings, rate_create="2/minute") as c:
        for _ in range(2):
            create(c)
        assert_rate_limited(c.post("/api/games", json={"name": "third"}))
        assert len(c.get("/api/games").json()) == 2


def test_wrong_token_guesses_are_slowed_down(client):
    """500 wrong-token guesses went through: after 10 failures a client is refused, even with a right token."""
    created = create(client)
    gid, token = created["game_id"], created["seats"][0]["token"]
    codes = [client.get(f"/api/games/{gid}/state", headers=bearer(f"guess-{i}")).status_code for i in range(10)]
    assert codes == [401] * 10
    assert_rate_limited(client.get(f"/api/games/{gid}/state", headers=bearer("guess-11")))
    assert_rate_limited(client.get(f"/api/games/{gid}/state", headers=bearer(token)))
    assert_rate_limited(client.post(f"/api/games/{gid}/join", json={"name": "X"}, headers=bearer(token)))
    # requests without a token are not affected
    assert client.get(f"/api/games/{gid}").status_code == 200
    # nor is another client
    with TestClient(client.app, client=("198.51.100.7", 5000)) as other:
        assert other.get(f"/api/games/{gid}/state", headers=bearer(token)).status_code == 200


def test_wrong_tokens_on_websockets_count_as_failed_authentications(settings):
    with app_with(settings, rate_auth_failure="3/minute") as c:
        gid = create(c)["game_id"]
        for i in range(3):
            with c.websocket_connect(f"/ws/games/{gid}?token=guess{i}") as ws:
                assert ws.receive_json()["error"]["code"] == "bad_token"
        with c.websocket_connect(f"/ws/games/{gid}?token=guess") as ws:
            msg = ws.receive_json()
            assert msg["type"] == "error" and msg["error"]["code"] == "rate_limited" and msg["error"]["retry_after"] >= 1
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 1013
        assert_rate_limited(c.get(f"/api/games/{gid}/state", headers=bearer("guess")))


def test_actions_and_joins_are_rate_limited(settings):
    with app_with(settings, rate_action="3/minute", rate_join="2/minute") as c:
        created = create(c, seats=[{"type": "human"}, {"type": "human"}])
        gid = created["game_id"]
        tokens = join_all(c, created)  # 2 joins
        assert_rate_limited(c.post(f"/api/games/{gid}/join", json={"name": "Again"}, headers=bearer(tokens[0])))
        codes = []
        for _ in range(4):
            st = c.get(f"/api/games/{gid}/state", headers=bearer(tokens[0])).json()
            seat = st["summary"]["current"]
            st = c.get(f"/api/games/{gid}/state", params={"seat": seat}, headers=bearer(tokens[seat])).json()
            res = c.post(f"/api/games/{gid}/actions", headers=bearer(tokens[seat]), json={"action": st["legal"][0]})
            codes.append(res.status_code)
            if res.status_code == 429:
                assert_rate_limited(res)
        assert codes == [200, 200, 200, 429]


def test_a_seat_cannot_rename_itself_without_end(client):
    """One seat renamed itself 2,000 times: now 5 renames a minute per seat."""
    created = create(client)
    gid, token = created["game_id"], created["seats"][0]["token"]
    assert client.post(f"/api/games/{gid}/join", json={"name": "Ana"}, headers=bearer(token)).status_code == 200
    codes = [
        client.post(f"/api/games/{gid}/join", json={"name": f"Ana {i}"}, headers=bearer(token)).status_code for i in range(6)
    ]
    assert codes == [200] * 5 + [429]
    res = client.post(f"/api/games/{gid}/join", json={"name": "Ana 9"}, headers=bearer(token))
    assert_rate_limited(res)
    assert client.get(f"/api/games/{gid}").json()["seats"][0]["name"] == "Ana 4"
    # joining again under the same name is no rename
    assert client.post(f"/api/games/{gid}/join", json={"name": "Ana 4"}, headers=bearer(token)).status_code == 200


# ---------------------------------------------------------------------- WebSocket rates
def test_a_websocket_flood_is_closed_with_1008_and_an_error_first(settings):
    """5,000 pings were answered in 0.5 s: the default allows 100 messages a second per client (the shared test
    settings raise it for tests that play whole games: here the server's own default)."""
    default = next(f.default for f in dataclasses.fields(Settings) if f.name == "rate_ws_message")
    with app_with(settings, rate_ws_message=default) as client:
        flood(client)


def flood(client: TestClient) -> None:
    gid = create(client)["game_id"]
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        assert ws.receive_json()["type"] == "update"
        for _ in range(400):
            ws.send_json({"type": "ping"})
        pongs, msg = 0, ws.receive_json()
        while msg == {"type": "pong"}:
            pongs += 1
            msg = ws.receive_json()
        assert 100 <= pongs < 400  # 100 in any second (more only if sending took over a second)
        assert msg["type"] == "error" and msg["error"]["code"] == "rate_limited" and msg["error"]["retry_after"] >= 1
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 1008


def test_websocket_connections_are_rate_limited(settings):
    with app_with(settings, rate_ws_connect="2/minute") as c:
        gid = create(c)["game_id"]
        for _ in range(2):
            with c.websocket_connect(f"/ws/games/{gid}") as ws:
                assert ws.receive_json()["type"] == "update"
        with c.websocket_connect(f"/ws/games/{gid}") as ws:
            assert ws.receive_json()["error"]["code"] == "rate_limited"
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 1013


# ---------------------------------------------------------------------- caps
def test_active_games_per_client_are_capped(settings):
    s = dataclasses.replace(settings, max_games_per_client=3, abandon_after_seconds=0.5, expiry_sweep_seconds=0)
    with TestClient(create_app(s)) as c:
        for _ in range(3):
            create(c, seats=[{"type": "human"}, {"type": "bot"}])
        res = c.post("/api/games", json={})
        assert res.status_code == 429 and res.json()["error"]["code"] == "too_many_games" and "Retry-After" in res.headers
        with TestClient(c.app, client=("198.51.100.8", 5000)) as other:  # another client is not affected
            assert other.post("/api/games", json={}).status_code == 201
        # games no longer in play (here: closed as abandoned) no longer count
        time.sleep(0.6)
        assert len(c.portal.call(c.app.state.expiry.sweep)) == 4
        assert c.post("/api/games", json={}).status_code == 201


def test_bot_only_games_are_capped_in_total(settings):
    with app_with(settings, max_bot_games=2, bot_delay=30.0) as c:
        bots = [{"type": "bot", "level": "easy"}] * 2
        create(c, seats=bots)
        with TestClient(c.app, client=("198.51.100.9", 5000)) as other:
            create(other, seats=bots)
            res = other.post("/api/games", json={"seats": bots})
            assert res.status_code == 429 and res.json()["error"]["code"] == "too_many_games"
        assert c.post("/api/games", json={"seats": [{"type": "human"}, *bots]}).status_code == 201  # with a human: fine


def test_no_limits_turns_every_rate_and_cap_off(settings):
    with app_with(settings, limits_enabled=False, max_games_per_client=1) as c:
        assert all(c.post("/api/games", json={}).status_code == 201 for _ in range(15))


# ---------------------------------------------------------------------- expiry
def test_abandoned_games_are_closed_and_freed_and_finished_ones_kept(settings, tmp_path):
    s = dataclasses.replace(
        settings, abandon_after_seconds=2.0, abandon_bot_games_after_seconds=3600.0, expiry_sweep_seconds=0.2, bot_delay=0.0
    )
    with TestClient(create_app(s)) as c:
        service = c.app.state.service
        finished = create(c, seats=[{"type": "bot", "level": "easy"}] * 2)["game_id"]
        wait_for(lambda: c.get(f"/api/games/{finished}").json()["status"] == "finished", timeout=30)
        record = c.get(f"/api/games/{finished}/record").json()
        human = create(c, seats=[{"type": "human"}, {"type": "human"}])
        hid = human["game_id"]
        tokens = join_all(c, human)
        with c.websocket_connect(f"/ws/games/{hid}?token={tokens[0]}") as ws:
            assert ws.receive_json()["type"] == "update"
            msg = ws.receive_json()  # nobody moves: the sweep closes the game, and the watcher hears of it
            assert msg["state"]["summary"]["status"] == "abandoned"
            assert [e["event"]["type"] for e in msg["events"]] == ["game_closed"]
        st = c.get(f"/api/games/{hid}/state", headers=bearer(tokens[0])).json()
        seat = st["summary"]["current"]
        res = c.post(f"/api/games/{hid}/actions", headers=bearer(tokens[seat]), json={"action": {"type": "draw_blind"}})
        assert res.status_code == 409 and res.json()["error"]["code"] == "game_closed"
        res = c.post(f"/api/games/{hid}/join", json={"name": "Late"}, headers=bearer(tokens[0]))
        assert res.status_code == 409 and res.json()["error"]["code"] == "game_closed"
        assert wait_for(lambda: service.cached(hid) is None, timeout=10)  # the live state is freed
        assert hid not in service._locks
        # the finished game is untouched, its record kept
        assert c.get(f"/api/games/{finished}").json()["status"] == "finished"
        assert c.get(f"/api/games/{finished}/record").json() == record


def test_bot_only_games_are_closed_after_their_own_time(settings):
    s = dataclasses.replace(
        settings, abandon_after_seconds=3600.0, abandon_bot_games_after_seconds=1.0, expiry_sweep_seconds=0.2, bot_delay=30.0
    )
    with TestClient(create_app(s)) as c:
        bots = create(c, seats=[{"type": "bot", "level": "easy"}] * 2)["game_id"]
        human = create(c)["game_id"]
        wait_for(lambda: c.get(f"/api/games/{bots}").json()["status"] == "abandoned", timeout=10)
        assert c.get(f"/api/games/{human}").json()["status"] == "open"


# ---------------------------------------------------------------------- connections (a really started server)
def _closed_by_server(sock: socket.socket) -> bytes | None:
    """What the server sent before closing, or None if the connection is still open."""
    sock.setblocking(False)
    data = b""
    try:
        while chunk := sock.recv(4096):
            data += chunk
    except BlockingIOError:
        return None
    except ConnectionResetError:
        return data
    return data


def test_slow_and_silent_connections_are_dropped(tmp_path: Path):
    """1,100 slow-header connections were all held after 45 s: now each has 1 s (here) to send its headers."""
    server = ServerProcess(str(tmp_path / "ttr.sqlite3"), extra=["--header-timeout", "1", "--max-header-bytes", "4096"])
    with running(server):
        slow = []
        for _ in range(40):
            sock = socket.create_connection(("127.0.0.1", server.port))
            sock.sendall(b"GET /api/editions HTTP/1.1\r\nHost: x\r\n")
            slow.append(sock)
        silent = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(10)]
        start = time.monotonic()
        while time.monotonic() < start + 2.5:  # a header byte now and then does not buy time
            for sock in slow:
                with contextlib.suppress(OSError):
                    sock.sendall(b"X")
            time.sleep(0.25)
            assert httpx.get(server.url + "/api/editions", timeout=5).status_code == 200  # others are served meanwhile
        time.sleep(0.5)
        answers = [_closed_by_server(s) for s in slow + silent]
        assert all(a is not None for a in answers), f"{sum(a is None for a in answers)} connections still held"
        assert all(a.startswith(b"HTTP/1.1 408") for a in answers if a)
        assert b'"request_timeout"' in next(a for a in answers if a)
        # a kept-alive connection gets a new deadline for its next request's headers
        with socket.create_connection(("127.0.0.1", server.port)) as sock:
            sock.sendall(b"GET /api/editions HTTP/1.1\r\nHost: x\r\n\r\n")
            time.sleep(0.3)
            sock.setblocking(False)
            assert sock.recv(65536).startswith(b"HTTP/1.1 200")
            sock.setblocking(True)
            sock.sendall(b"GET /api/editions HTTP/1.1\r\n")
            sock.settimeout(5)
            rest = b""
            while chunk := sock.recv(65536):  # until the server closes it, after its 1 s
                rest += chunk
            assert b"HTTP/1.1 408" in rest
        # headers over the cap
        with socket.create_connection(("127.0.0.1", server.port)) as sock:
            sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 8000)
            sock.settimeout(5)
            assert sock.recv(65536).startswith(b"HTTP/1.1 431")
        for s in slow + silent:
            s.close()


# ---------------------------------------------------------------------- knobs
def test_every_knob_is_in_serve_help_and_read_from_the_environment(monkeypatch, capsys):
    import argparse

    from ttr.cli import serve
    from ttr.server.config import KNOBS

    parser = argparse.ArgumentParser()
    serve.add_arguments(parser)
    text = parser.format_help()
    for knob in KNOBS:
        assert knob.flag in text and f"${knob.env}" in text
    assert "--no-limits" in text and "(default 10/minute;60/hour; $TTR_RATE_CREATE)" in " ".join(text.split())
    monkeypatch.setenv("TTR_RATE_CREATE", "7/minute")
    monkeypatch.setenv("TTR_MAX_BOT_GAMES", "4")
    args = parser.parse_args(["--max-bot-games", "5"])
    assert serve._settings_kwargs(args) == {"rate_create": "7/minute", "max_bot_games": 5}  # the option wins
    monkeypatch.setenv("TTR_RATE_JOIN", "lots")
    with pytest.raises(ValueError, match="--rate-join"):
        serve._settings_kwargs(parser.parse_args([]))
    monkeypatch.delenv("TTR_RATE_JOIN")
    args = parser.parse_args(["--abandon-after", "-1"])
    assert serve.run(args) == 2
    assert "must not be negative" in capsys.readouterr().err


def test_client_keys():
    assert client_key({"client": ("203.0.113.5", 1)}) == "203.0.113.5"
    assert client_key({"client": ("2001:db8:1:2:3:4:5:6", 1)}) == "2001:db8:1:2::/64"
    assert client_key({"client": ("::ffff:203.0.113.5", 1)}) == "203.0.113.5"
    assert client_key({"client": None}) == "unknown"
