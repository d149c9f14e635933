"""Input a hostile stranger sends: absurd rule options, bodies and WebSocket frames that used to hang the server
or crash the handler, and the browser-facing headers. Every refusal is quick, in the JSON error form, with the
code docs/api.md gives, and leaves no traceback in the log; the server serves on afterwards."""

from __future__ import annotations

import dataclasses
import gc
import json
import logging
import random
import statistics
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from serverkit import ServerProcess, bearer, create, join_all
from starlette.websockets import WebSocketDisconnect

from ttr.editions import BUILTIN, DATA_DIR, RULE_OPTIONS, get_edition
from ttr.server import Settings, create_app
from ttr.server.app import CONTENT_SECURITY_POLICY

MAX_BYTES = Settings(database_url="sqlite://").max_body_bytes


@pytest.fixture(name="settings")
def _settings_without_limits(settings: Settings) -> Settings:
    """The suite's settings with the per-client limits off: these tests send many bad requests on purpose
    (the limits themselves are tested in test_limits.py)."""
    return dataclasses.replace(settings, limits_enabled=False)


TWO_SEATS = '"seats": [{"type": "human"}, {"type": "bot", "level": "easy"}]'


def cpu_ms(fn: Any, *args: Any, **kwargs: Any) -> tuple[float, float, Any]:
    """(CPU ms of this whole process, wall ms, result). The in-process server runs in the TestClient's thread;
    CPU time is what a request costs the server, wall time also counts whatever else the CI machine runs."""
    gc.collect()  # the test's own garbage is not the request's cost
    gc.disable()
    try:
        cpu, wall = time.process_time(), time.perf_counter()
        out = fn(*args, **kwargs)
        return (time.process_time() - cpu) * 1000, (time.perf_counter() - wall) * 1000, out
    finally:
        gc.enable()


def post_raw(client: TestClient, body: str | bytes, path: str = "/api/games") -> httpx.Response:
    return client.post(path, content=body, headers={"content-type": "application/json"})


@pytest.fixture
def logged(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    """Every log record of the server, checked at the end: no error, no traceback."""
    caplog.set_level(logging.WARNING)
    yield caplog
    bad = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert bad == [], [f"{r.name}: {r.getMessage()}" for r in bad]


# ---------------------------------------------------------------- item 1: bounded rule options


def test_absurd_options_get_422_bad_options_at_once_with_the_engines_reason(client: TestClient, logged: Any) -> None:
    for options, reason in [
        (
            '{"starting_hand": 100000000000000000000}',
            "rules.starting_hand: must be an integer from 0 to 20, got 100000000000000000000",
        ),
        ('{"passengers": 3000000}', "rules.passengers: must be an integer from 0 to 10, got 3000000"),
        ('{"trains": ' + "9" * 90 + "}", "rules.trains: must be an integer from 1 to 100, got " + "9" * 90),
        ('{"stations": 5}', "rules.station_costs: needs a cost for each of the 5 stations"),
    ]:
        body = '{"seats": [{"type": "bot"}, {"type": "bot"}], "options": ' + options + "}"
        post_raw(client, body)  # warm
        runs = [cpu_ms(post_raw, client, body) for _ in range(5)]
        for cpu, wall, res in runs:
            assert res.status_code == 422, res.text
            assert res.json() == {"error": {"code": "bad_options", "message": f"usa with options: {reason}"}}
            assert cpu < 50 and wall < 2000, (cpu, wall)
        assert statistics.median(cpu for cpu, _, _ in runs) < 20
    assert client.get("/api/games").json() == []  # nothing was created


def test_option_errors_never_echo_a_file_path_of_the_server(client: TestClient) -> None:
    for edition in BUILTIN:
        for options in ({"passengers": -1}, {"route_points": {"1": 1}}, {"initial_tickets": {"deal": {"x": 1}, "keep_min": 0}}):
            res = client.post("/api/games", json={"edition": edition, "options": options})
            assert res.status_code == 422 and res.json()["error"]["code"] == "bad_options", res.text
            text = res.text
            assert str(DATA_DIR) not in text and get_edition(edition).source_path not in text and ".json" not in text, text


def _json_ints() -> st.SearchStrategy[str]:
    """Integer literals as JSON text, of any size (a test cannot json.dumps an int of over 4,300 digits)."""
    return st.one_of(
        st.integers(-5, 150).map(str),
        st.integers().map(str),
        st.builds(lambda n, sign: sign + "9" * n, st.integers(15, 6000), st.sampled_from(["", "-"])),
    )


_json_scalars = st.one_of(
    _json_ints(),
    st.sampled_from(["true", "false", "null", "1.5", "-0.0", "1e999", "NaN", "Infinity", "2.0", '"4"', '"all"', '"bottom"']),
    st.text(max_size=20).map(json.dumps),
    st.builds(lambda n: '"' + "x" * n + '"', st.integers(100, 70_000)),
    st.builds(lambda n: "[" * n + "]" * n, st.integers(30, 40_000)),
)
_json_values = st.recursive(
    _json_scalars,
    lambda inner: (
        st.lists(inner, max_size=5).map(lambda xs: "[" + ",".join(xs) + "]")
        | st.lists(st.tuples(st.sampled_from(["deal", "keep_min", "count", "decks", "regular", "a"]), inner), max_size=4).map(
            lambda kv: "{" + ",".join(f"{json.dumps(k)}:{v}" for k, v in kv) + "}"
        )
    ),
    max_leaves=12,
)


@pytest.mark.timeout(180)
@settings(max_examples=50, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    edition=st.sampled_from(BUILTIN),
    options=st.lists(st.tuples(st.one_of(st.sampled_from(sorted(RULE_OPTIONS)), st.text(max_size=10)), _json_values), max_size=3),
)
def test_any_option_values_via_the_api_are_accepted_or_refused_within_100_ms(
    api_client: TestClient, edition: str, options: list[tuple[str, str]]
) -> None:
    body = f'{{"edition": "{edition}", {TWO_SEATS}, "options": {{' + ",".join(f"{json.dumps(k)}:{v}" for k, v in options) + "}}"
    cpu, wall, res = cpu_ms(post_raw, api_client, body)
    assert res.status_code in (201, 400, 413, 422), res.text[:300]
    assert cpu < 100 and wall < 5000, (cpu, wall, body[:300])
    if res.status_code != 201:
        error = res.json()["error"]
        assert error["code"] in ("bad_options", "malformed_json", "too_large", "invalid_request", "player_count"), error
        assert len(error["message"]) < 1200 and str(DATA_DIR) not in error["message"]


@pytest.fixture(scope="module")
def api_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """One app for every example of a property test (hypothesis does not mix with function-scoped fixtures)."""
    path = tmp_path_factory.mktemp("hostile") / "ttr.sqlite3"
    with TestClient(
        create_app(Settings(database_url=f"sqlite:///{path}", bot_delay=0, bot_sweep_seconds=0.2, limits_enabled=False))
    ) as c:
        yield c


# ---------------------------------------------------------------- bodies the JSON parser refuses (item 9: malformed_json)


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("[" * 30_000, "nested deeper than 32 levels"),  # RecursionError inside the parser, once a 400 http_error
        ('{"options": ' + '{"a": ' * 40 + "1" + "}" * 40 + "}", "nested deeper than 32 levels"),
        ('{"players": 1' + "0" * 5000 + "}", "a number has more than 100 digits"),  # ValueError: over 4,300 digits
        ('{"players": NaN}', "NaN is not a JSON value"),
        ('{"players": 1e999}', "is out of range"),
        (b'{"name": "\xff\xfe"}', "not valid UTF-8"),
        ("{not json", "not valid JSON: Expecting property name"),
    ],
    ids=["deep", "deep-options", "huge-int", "nan", "overflow", "not-utf8", "syntax"],
)
def test_unreadable_bodies_are_400_malformed_json_with_the_reason(
    client: TestClient, logged: Any, body: Any, reason: str
) -> None:
    for path in ("/api/games", "/api/games/nosuchgame/actions", "/api/games/nosuchgame/join"):
        res = post_raw(client, body, path)
        assert res.status_code == 400, res.text
        error = res.json()["error"]
        assert error["code"] == "malformed_json" and reason in error["message"], error


def test_an_action_type_that_is_not_a_string_is_malformed_not_a_crash(client: TestClient, logged: Any) -> None:
    """Found by schemathesis: {"type": {}} once raised TypeError (unhashable) inside the engine: a 500 over HTTP,
    a dropped socket over WebSocket."""
    gid, token = seat_socket_game(client)
    for kind in ({}, [], {"a": [1]}, 3.5):
        res = client.post(f"/api/games/{gid}/actions", json={"action": {"type": kind}}, headers=bearer(token))
        assert res.status_code == 400 and res.json()["error"]["code"] == "malformed", res.text
        assert "unknown action type" in res.json()["error"]["message"]
    with client.websocket_connect(f"/ws/games/{gid}?token={token}") as ws:
        ws.receive_json()
        ws.send_json({"type": "action", "action": {"type": {}}})
        assert ws.receive_json()["error"]["code"] == "malformed"
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}


def test_bodies_are_strict_json_for_http_as_for_websocket(client: TestClient) -> None:
    """One schema for both: a string is not a number, true is not a seat, a seat is 0 to 7."""
    for body in ({"players": "2"}, {"players": True}, {"hotseat": "yes"}, {"seats": [{"type": "human", "x": 1}]}):
        res = client.post("/api/games", json=body)
        assert res.status_code == 422 and res.json()["error"]["code"] == "invalid_request", (body, res.text)
    for body in ({"action": {"type": "pass"}, "seat": "0"}, {"action": {"type": "pass"}, "expected_seq": -1}, {"action": []}):
        res = client.post("/api/games/nosuchgame/actions", json=body)
        assert res.status_code == 422 and res.json()["error"]["code"] == "invalid_request", (body, res.text)


# ---------------------------------------------------------------- item 6: WebSocket frames


def seat_socket_game(client: TestClient) -> tuple[str, str]:
    """A game of two humans where only seat 0 has joined: actions reach the engine's parser, nothing can change."""
    created = create(client, players=2, seats=[{"type": "human"}, {"type": "human"}])
    token = created["seats"][0]["token"]
    assert client.post(f"/api/games/{created['game_id']}/join", json={"name": "Ana"}, headers=bearer(token)).status_code == 200
    return created["game_id"], token


def refused_then_closed(ws: Any, code: str, close_code: int) -> dict[str, Any]:
    msg = ws.receive_json()
    assert msg["type"] == "error" and msg["error"]["code"] == code, msg
    with pytest.raises(WebSocketDisconnect) as closed:
        ws.receive_json()
    assert closed.value.code == close_code
    return msg


@pytest.mark.parametrize(
    ("frame", "code", "close_code"),
    [
        (b"\x00\x01binary", "unsupported_frame", 1003),  # once KeyError: 'text'
        (b'{"type": "ping"}', "unsupported_frame", 1003),  # JSON, but in a binary frame
        ("[" * 20_000 + "]" * 20_000, "malformed_json", 1007),  # once RecursionError
        ('{"type": "action", "action": ' + '{"a": ' * 40 + "1" + "}" * 40 + "}", "malformed_json", 1007),
        (
            '{"type": "action", "expected_seq": ' + "7" * 5000 + ', "action": {"type": "pass"}}',
            "malformed_json",
            1007,
        ),  # ValueError
        ('{"type": "ping"', "malformed_json", 1007),
        ('{"type": "ping", "x": NaN}', "malformed_json", 1007),
        ('{"type": "ping", "pad": "' + "x" * MAX_BYTES + '"}', "too_large", 1009),
    ],
    ids=["binary", "json-in-binary", "deep", "deep-action", "huge-int", "cut-off", "nan", "too-big"],
)
def test_bad_frames_get_a_json_error_then_the_close_code(
    client: TestClient, logged: Any, frame: Any, code: str, close_code: int
) -> None:
    gid, token = seat_socket_game(client)
    with client.websocket_connect(f"/ws/games/{gid}?token={token}") as ws:
        assert ws.receive_json()["type"] == "update"
        ws.send_bytes(frame) if isinstance(frame, bytes) else ws.send_text(frame)
        refused_then_closed(ws, code, close_code)
    with client.websocket_connect(f"/ws/games/{gid}?token={token}") as ws:  # the seat connects again as before
        assert ws.receive_json()["type"] == "update"
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}


def test_messages_that_are_json_but_not_valid_get_an_error_and_the_socket_stays_open(client: TestClient, logged: Any) -> None:
    gid, token = seat_socket_game(client)
    with client.websocket_connect(f"/ws/games/{gid}?token={token}") as ws:
        ws.receive_json()
        for raw, code in [
            ("1", "malformed"),
            ('{"type": null}', "unknown_message"),
            ('{"type": ["action"]}', "unknown_message"),
            ('{"type": "ping", "' + "k" * 5000 + '": 1}', "unknown_field"),
            ('{"type": "action"}', "malformed"),
            ('{"type": "action", "action": "draw"}', "malformed"),
            ('{"type": "action", "seat": true, "action": {"type": "pass"}}', "malformed"),
            ('{"type": "action", "seat": 99, "action": {"type": "pass"}}', "malformed"),
            ('{"type": "action", "action": {"type": "claim", "route": "x", "cards": {"red": 1e300}}}', "malformed"),
            ('{"type": "action", "action": {"type": "pass"}}', "not_started"),
        ]:
            ws.send_text(raw)
            msg = ws.receive_json()
            assert msg["type"] == "error" and msg["error"]["code"] == code, (raw[:80], msg)
            assert len(msg["error"]["message"]) < 500
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}


def _fuzz_frames(rng: random.Random, n: int) -> Iterator[str | bytes]:
    """Malformed and odd frames of every kind, seeded."""
    good = ['{"type": "ping"}', '{"type": "action", "action": {"type": "draw_blind"}, "seat": 0, "expected_seq": 3}']
    keys = ["type", "action", "seat", "expected_seq", "route", "cards", "tickets", "slot", "mix", "city", "x" * 300]
    junk = ["null", "true", "1", "-1", "1.5", "1e400", "NaN", '"ping"', '"action"', "[]", "{}", '"\\ud800"', '"\\u0000"']
    for i in range(n):
        kind = i % 12
        if kind == 0:
            yield bytes(rng.randrange(256) for _ in range(rng.randrange(0, 300)))
        elif kind == 1:
            yield rng.choice(good)[: rng.randrange(1, 40)]  # cut off
        elif kind == 2:
            d = rng.randrange(33, 30_000)
            yield rng.choice(
                [
                    "[" * d + "]" * d,
                    '{"a":' * d + "0" + "}" * d,
                    "[" * d,
                    '{"type": "action", "action": ' + "[" * d + "]" * d + "}",
                ]
            )
        elif kind == 3:
            digits = "9" * rng.randrange(101, 20_000)
            yield rng.choice(
                [
                    digits,
                    f'{{"type": "action", "seat": {digits}, "action": {{}}}}',
                    f'{{"type": "action", "action": {{"type": "draw_faceup", "slot": -{digits}}}}}',
                ]
            )
        elif kind == 4:
            yield "".join(
                chr(rng.choice([rng.randrange(32, 127), rng.randrange(0x80, 0xD7FF), rng.randrange(0xE000, 0x10FFFF)]))
                for _ in range(rng.randrange(1, 200))
            )
        elif kind == 5:
            obj = {
                rng.choice(keys): json.loads(rng.choice(junk)) if rng.random() < 0.9 else "x" * 1000
                for _ in range(rng.randrange(0, 5))
            }
            yield json.dumps(obj)
        elif kind == 6:
            action = {
                rng.choice(keys): rng.choice(
                    [None, True, -(2**63), 2**64, "x" * rng.randrange(1, 3000), [], {}, [[["a"]]], {"red": 2**70}]
                )
                for _ in range(rng.randrange(0, 5))
            }
            action["type"] = rng.choice(
                [
                    "claim",
                    "draw_faceup",
                    "keep_tickets",
                    "tunnel_pay",
                    "place_passenger",
                    "draw_tickets",
                    "teleport",
                    5,
                    None,
                    {},
                    [],
                ]
            )
            yield json.dumps({"type": "action", "action": action, "seat": rng.choice([0, None, 7])})
        elif kind == 7:
            yield '{"type": "ping", "pad": "' + "x" * rng.randrange(MAX_BYTES, 2 * MAX_BYTES) + '"}'
        elif kind == 8:
            yield rng.choice([*junk, '{"type": "ping"}{"type": "ping"}', '{"type": "ping",}', "{'type': 'ping'}", "", " ", "\n"])
        elif kind == 9:
            yield rng.choice(good).encode()
        elif kind == 10:
            yield (
                '{"type": "ping", "type": "action"}'
                if rng.random() < 0.5
                else '{"type": "action", "action": {"type": "claim", "route": "'
                + "r" * rng.randrange(1, 5000)
                + '", "cards": {"red": 1}}}'
            )
        else:
            yield json.dumps(
                {"type": rng.choice(["Ping", "PING", "ping ", "action", "pong", "update", "error"]), rng.choice(keys): 1}
            )


@pytest.mark.timeout(180)
def test_fuzzed_frames_never_leave_a_traceback_and_the_server_serves_on(client: TestClient, logged: Any) -> None:
    gid, token = seat_socket_game(client)
    rng = random.Random(20240914)
    frames = list(_fuzz_frames(rng, 360))
    outcomes: dict[str, int] = {}
    ws_cm = client.websocket_connect(f"/ws/games/{gid}?token={token}")
    ws = ws_cm.__enter__()
    ws.receive_json()
    for frame in frames:
        ws.send_bytes(frame) if isinstance(frame, bytes) else ws.send_text(frame)
        msg = ws.receive_json()
        assert msg["type"] in ("error", "pong"), msg
        if msg["type"] == "error":
            assert set(msg["error"]) == {"code", "message"} and len(msg["error"]["message"]) < 600, msg
        ws.send_json({"type": "ping"})
        try:
            reply = ws.receive_json()
        except WebSocketDisconnect as closed:
            assert msg["type"] == "error" and closed.code in (1003, 1007, 1009), (closed.code, msg, frame[:100])
            outcomes[f"{closed.code} {msg['error']['code']}"] = outcomes.get(f"{closed.code} {msg['error']['code']}", 0) + 1
            ws_cm.__exit__(None, None, None)
            ws_cm = client.websocket_connect(f"/ws/games/{gid}?token={token}")
            ws = ws_cm.__enter__()
            ws.receive_json()
            continue
        assert reply == {"type": "pong"}, reply
        key = "open " + (msg["error"]["code"] if msg["type"] == "error" else "pong")
        outcomes[key] = outcomes.get(key, 0) + 1
    ws_cm.__exit__(None, None, None)
    # every kind of refusal was met, and nothing changed the game
    assert {"1003 unsupported_frame", "1007 malformed_json", "1009 too_large", "open malformed", "open unknown_message"} <= set(
        outcomes
    )
    assert sum(outcomes.values()) == len(frames)
    assert client.get(f"/api/games/{gid}").json()["seq"] == 1  # only the join
    assert client.get("/api/editions").status_code == 200
    created = create(client, players=2, seats=[{"type": "human"}, {"type": "bot", "level": "easy"}])
    tokens = join_all(client, created)
    with client.websocket_connect(f"/ws/games/{created['game_id']}?token={tokens[0]}") as ws:
        st_ = ws.receive_json()["state"]
        while not st_["legal"]:
            st_ = ws.receive_json()["state"]
        ws.send_json({"type": "action", "action": st_["legal"][0], "expected_seq": st_["seq"]})
        assert ws.receive_json()["type"] == "update"


def fuzz_real_socket(connect: Any, url: str, frames: Iterator[str | bytes]) -> set[int]:
    """Send each frame, expect an error (or a pong), then either a close with 1003/1007/1009 or a socket that still
    answers a ping. Returns the close codes seen."""
    from websockets.exceptions import ConnectionClosed

    closes: set[int] = set()
    ws = connect(url, max_size=None)
    ws.recv(timeout=10)
    for frame in frames:
        ws.send(frame)
        msg = json.loads(ws.recv(timeout=10))
        assert msg["type"] in ("error", "pong"), msg
        try:
            ws.send('{"type": "ping"}')
            assert json.loads(ws.recv(timeout=10)) == {"type": "pong"}
        except ConnectionClosed as closed:
            assert msg["type"] == "error" and closed.rcvd is not None, msg
            assert closed.rcvd.code in (1003, 1007, 1009), (closed.rcvd, msg)
            closes.add(closed.rcvd.code)
            ws.close()
            ws = connect(url, max_size=None)
            ws.recv(timeout=10)
    ws.close()
    return closes


def test_a_real_server_closes_bad_frames_cleanly_and_logs_no_traceback(tmp_path: Path) -> None:
    """Through uvicorn's own WebSocket protocol (the TestClient has none): the same close codes, an error first,
    nothing in the log."""
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    log = tmp_path / "serve.log"
    server = ServerProcess(str(tmp_path / "ttr.sqlite3"), log=log, quiet=False, extra=["--no-limits"]).start()
    try:
        with httpx.Client(base_url=server.url) as http:
            gid, token = seat_socket_game(http)  # type: ignore[arg-type]
            for frame, code, close_code in [
                (b"\x00binary", "unsupported_frame", 1003),
                ("[" * 40_000 + "]" * 40_000, "too_large", 1009),
                ("[" * 20_000 + "]" * 20_000, "malformed_json", 1007),
                ('{"type": "ping", "n": ' + "1" * 5000 + "}", "malformed_json", 1007),
                ('{"type": "ping", "pad": "' + "x" * (MAX_BYTES + 10) + '"}', "too_large", 1009),
            ]:
                with connect(f"{server.ws_url}/ws/games/{gid}?token={token}", max_size=None) as ws:
                    assert json.loads(ws.recv(timeout=10))["type"] == "update"
                    ws.send(frame)
                    msg = json.loads(ws.recv(timeout=10))
                    assert msg["type"] == "error" and msg["error"]["code"] == code, msg
                    with pytest.raises(ConnectionClosed) as closed:
                        ws.recv(timeout=10)
                    assert closed.value.rcvd is not None and closed.value.rcvd.code == close_code
            url = f"{server.ws_url}/ws/games/{gid}?token={token}"
            closes = fuzz_real_socket(connect, url, _fuzz_frames(random.Random(7), 240))
            assert {1003, 1007, 1009} <= closes
            with connect(url) as ws:
                ws.recv(timeout=10)
                ws.send('{"type": "ping"}')
                assert json.loads(ws.recv(timeout=10)) == {"type": "pong"}
            assert http.get("/api/editions").status_code == 200
    finally:
        server.stop()
    text = log.read_text(errors="replace")
    assert "Traceback" not in text and "ERROR" not in text, text[-3000:]


# ---------------------------------------------------------------- item 9: headers, 405, /docs


def test_every_response_carries_the_security_headers(client: TestClient) -> None:
    for path in ("/", "/play/x", "/docs", "/openapi.json", "/api/editions", "/api/games/nosuch", "/static/js/main.js"):
        res = client.get(path)
        assert res.headers["content-security-policy"] == CONTENT_SECURITY_POLICY, path
        assert "frame-ancestors 'none'" in CONTENT_SECURITY_POLICY and "script-src 'self'" in CONTENT_SECURITY_POLICY
        assert res.headers["x-frame-options"] == "DENY"
        assert res.headers["referrer-policy"] == "no-referrer"
        assert res.headers["x-content-type-options"] == "nosniff"


def test_405_names_every_allowed_method(client: TestClient) -> None:
    for method, path, allow in [
        ("DELETE", "/api/games", "GET, POST"),
        ("PUT", "/api/games/abc", "GET"),
        ("GET", "/api/games/abc/actions", "POST"),
        ("PATCH", "/api/editions", "GET"),
    ]:
        res = client.request(method, path)
        assert res.status_code == 405, (method, path)
        assert res.headers["allow"] == allow
        assert res.json()["error"]["code"] == "method_not_allowed"


def test_docs_are_served_from_the_package(client: TestClient) -> None:
    page = client.get("/docs").text
    assert "http://" not in page and "https://" not in page and "<script>" not in page  # nothing from elsewhere, no inline
    for asset, kind in [
        ("/static/vendor/swagger-ui/swagger-ui-bundle.js", "javascript"),
        ("/static/vendor/swagger-ui/swagger-ui.css", "text/css"),
        ("/static/js/apidocs.js", "javascript"),
        ("/static/vendor/swagger-ui/LICENSE", ""),  # the licence ships with the files
    ]:
        assert asset in page or asset.endswith("LICENSE")
        res = client.get(asset)
        assert res.status_code == 200 and kind in res.headers["content-type"], asset
    assert client.get("/redoc").status_code == 404


def test_openapi_documents_the_error_body_on_every_operation(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    assert "ErrorBody" in spec["components"]["schemas"]
    assert "HTTPValidationError" not in spec["components"]["schemas"]  # FastAPI's default 422 is not what we send
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            errors = {code for code in op["responses"] if code.startswith("4")}
            assert {"400", "413", "422"} <= errors, (method, path)
            if "{game_id}" in path:
                assert "404" in errors, (method, path)
            for code in errors:
                ref = op["responses"][code]["content"]["application/json"]["schema"]["$ref"]
                assert ref.endswith("/ErrorBody"), (method, path, code)
