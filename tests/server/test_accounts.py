"""Accounts: sign-up, login, sessions, CSRF, lockout, enumeration, seats bound to accounts (docs/api.md, Accounts).

The security list: CSRF (missing, wrong and cross-origin), session fixation, user enumeration by message and
by timing, gradual lockout.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import replace
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from serverkit import bearer, create

from ttr.server import Settings, create_app
from ttr.server.accounts import SESSION_COOKIE

PASSWORD = "correct horse battery"


@pytest.fixture
def acct_settings(settings: Settings) -> Settings:
    # cheap hashes keep the tests fast; the timing test makes its own comparison at this cost
    return replace(settings, argon2_time_cost=1, argon2_memory_kib=8192)


@pytest.fixture
def app_client(acct_settings: Settings):
    with TestClient(create_app(acct_settings)) as c:
        yield c


class Browser:
    """Another browser on the same running app: the same TestClient (its event loop runs the server's bots),
    its own cookie jar."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.app = client.app
        self.cookies = httpx.Cookies()

    def request(self, method: str, url: str, **kw: Any) -> httpx.Response:
        saved = self.client.cookies
        self.client.cookies = self.cookies
        try:
            return self.client.request(method, url, **kw)
        finally:
            self.cookies = self.client.cookies
            self.client.cookies = saved

    def get(self, url: str, **kw: Any) -> httpx.Response:
        return self.request("GET", url, **kw)

    def post(self, url: str, **kw: Any) -> httpx.Response:
        return self.request("POST", url, **kw)


def other(client: Any) -> Any:
    """A second browser on the same running app (its own cookie jar)."""
    return Browser(client.client if isinstance(client, Browser) else client)


def signup(client: Any, name: str, password: str = PASSWORD) -> str:
    res = client.post("/api/auth/signup", json={"name": name, "password": password})
    assert res.status_code == 201, res.text
    assert res.json()["user"] == {"name": name}
    return res.json()["csrf_token"]


def plant(client: Any, value: str) -> None:
    """Put a session cookie of one's choosing into a browser (what a fixation attack does)."""
    client.cookies.clear()
    client.cookies.set(SESSION_COOKIE, value, domain="testserver.local", path="/")


def csrf(token: str) -> dict[str, str]:
    return {"X-CSRF-Token": token}


def test_signup_login_logout_and_password_change(app_client):
    c = app_client
    assert c.get("/api/me").json() == {"user": None, "csrf_token": None}
    tok = signup(c, "Alice")
    cookie = c.cookies[SESSION_COOKIE]
    me = c.get("/api/me").json()
    assert me == {"user": {"name": "Alice"}, "csrf_token": tok}
    # the cookie is HttpOnly and SameSite=Lax
    res = c.post("/api/auth/login", json={"name": "alice", "password": PASSWORD})  # names ignore case
    assert res.status_code == 200, res.text
    header = res.headers["set-cookie"]
    assert "HttpOnly" in header and "SameSite=lax" in header and "Path=/" in header
    assert c.cookies[SESSION_COOKIE] != cookie  # a new session at every login
    assert c.post("/api/auth/signup", json={"name": "ALICE", "password": PASSWORD}).json()["error"]["code"] == "username_taken"
    assert c.post("/api/auth/signup", json={"name": "a b", "password": PASSWORD}).json()["error"]["code"] == "bad_username"
    assert c.post("/api/auth/signup", json={"name": "bob", "password": "short"}).json()["error"]["code"] == "bad_password"
    tok = res.json()["csrf_token"]
    # change of password: the other sessions end, this browser gets a new one
    second = other(c)
    assert second.post("/api/auth/login", json={"name": "Alice", "password": PASSWORD}).status_code == 200
    bad = c.post("/api/auth/password", json={"old_password": "nope nope", "new_password": "new password 1"}, headers=csrf(tok))
    assert bad.status_code == 403 and bad.json()["error"]["code"] == "bad_credentials"
    res = c.post("/api/auth/password", json={"old_password": PASSWORD, "new_password": "new password 1"}, headers=csrf(tok))
    assert res.status_code == 200, res.text
    tok = res.json()["csrf_token"]
    assert c.get("/api/me").json()["user"] == {"name": "Alice"}
    assert second.get("/api/me").json()["user"] is None
    assert c.post("/api/auth/login", json={"name": "Alice", "password": PASSWORD}).status_code == 401
    assert c.post("/api/auth/login", json={"name": "Alice", "password": "new password 1"}).status_code == 200
    tok = c.get("/api/me").json()["csrf_token"]
    assert c.post("/api/auth/logout", headers=csrf(tok)).status_code == 200
    assert c.get("/api/me").json()["user"] is None


def test_csrf(app_client):
    c = app_client
    tok = signup(c, "carol")
    for headers in ({}, csrf("x" * 43), {**csrf(tok), "Origin": "https://evil.example"}):
        res = c.post("/api/auth/logout", headers=headers)
        assert res.status_code == 403 and res.json()["error"]["code"] == "csrf_failed", (headers, res.text)
        assert c.get("/api/me").json()["user"] == {"name": "carol"}  # still signed in: nothing happened
    # a join by cookie without the token is refused too, and the seat stays free
    guest = other(c)
    created = guest.post("/api/games", json={"players": 2}).json()
    seat_token = created["seats"][0]["token"]
    res = c.post(f"/api/games/{created['game_id']}/join", json={"name": "Carol"}, headers=bearer(seat_token))
    assert res.status_code == 403 and res.json()["error"]["code"] == "csrf_failed"
    assert guest.get(f"/api/games/{created['game_id']}").json()["seats"][0]["joined"] is False
    # login from another site is refused (login CSRF); from this one (or a same-origin fetch: Origin null) it works
    res = guest.post("/api/auth/login", json={"name": "carol", "password": PASSWORD}, headers={"Origin": "https://evil.example"})
    assert res.status_code == 403 and res.json()["error"]["code"] == "csrf_failed"
    res = c.post("/api/auth/logout", headers={**csrf(tok), "Origin": "http://testserver"})
    assert res.status_code == 200
    assert c.cookies.get(SESSION_COOKIE) is None
    # guests (no cookie, Bearer token) are not affected
    joined = guest.post(f"/api/games/{created['game_id']}/join", json={"name": "G"}, headers=bearer(seat_token))
    assert joined.status_code == 200


def test_create_with_cookie_needs_csrf(app_client):
    c = app_client
    tok = signup(c, "dave")
    assert c.post("/api/games", json={"players": 2}).status_code == 403
    assert c.post("/api/games", json={"players": 2}, headers=csrf(tok)).status_code == 201


def test_session_fixation(app_client):
    attacker = other(app_client)
    signup(attacker, "mallory")
    planted = attacker.cookies[SESSION_COOKIE]
    victim = app_client
    plant(victim, planted)  # the attacker managed to plant their session in the victim's browser
    signup(other(app_client), "victim")
    res = victim.post("/api/auth/login", json={"name": "victim", "password": PASSWORD})
    assert res.status_code == 200
    assert victim.cookies[SESSION_COOKIE] != planted
    assert victim.get("/api/me").json()["user"] == {"name": "victim"}
    # the planted value is worth nothing now: it is not the victim's session, and its own session was ended
    probe = other(app_client)
    plant(probe, planted)
    assert probe.get("/api/me").json()["user"] is None
    # a made-up value is never adopted either
    plant(victim, "chosen-by-attacker")
    res = victim.post("/api/auth/login", json={"name": "victim", "password": PASSWORD})
    assert victim.cookies[SESSION_COOKIE] != "chosen-by-attacker"


def test_no_enumeration_by_message(app_client):
    signup(other(app_client), "erin")
    unknown = app_client.post("/api/auth/login", json={"name": "nobody_here", "password": PASSWORD})
    wrong = app_client.post("/api/auth/login", json={"name": "erin", "password": "wrong password"})
    assert unknown.status_code == wrong.status_code == 401
    assert unknown.json() == wrong.json() == {"error": {"code": "bad_credentials", "message": "wrong username or password"}}


def test_no_enumeration_by_timing(app_client):
    """An unknown name costs a password check too (against a dummy hash). On a busy machine single requests vary a
    lot, so the fastest of 12 attempts of each kind are compared (in alternating order): within a factor of 2
    (without the dummy check the unknown name is over 10 times faster)."""
    signup(other(app_client), "frank")
    app_client.app.state.accounts.rates.enabled = False  # many attempts on purpose
    times: dict[str, list[float]] = {"known": [], "unknown": []}
    for i in range(12):
        pair = [("known", "frank"), ("unknown", f"ghost{i}")]
        for kind, name in pair if i % 2 else pair[::-1]:
            start = time.perf_counter()
            res = app_client.post("/api/auth/login", json={"name": name, "password": "wrong password"})
            times[kind].append(time.perf_counter() - start)
            assert res.status_code == 401
    known, unknown = min(times["known"]), min(times["unknown"])
    assert 0.5 < unknown / known < 2, (known, unknown, statistics.median(times["known"]), statistics.median(times["unknown"]))


def test_gradual_lockout(acct_settings):
    settings = replace(acct_settings, rate_login_failure="2/2 seconds;4/minute", rate_auth_failure="100/minute")
    with TestClient(create_app(settings)) as c:
        signup(other(c), "grace")
        for name in ("grace", "no_such_user"):  # an existing and an unknown name are locked alike
            for _ in range(2):
                assert c.post("/api/auth/login", json={"name": name, "password": "wrong password"}).status_code == 401
            res = c.post("/api/auth/login", json={"name": name, "password": PASSWORD})
            assert res.status_code == 429 and res.json()["error"]["code"] == "login_locked", res.text
            assert 1 <= int(res.headers["Retry-After"]) <= 2
        time.sleep(2.1)
        for _ in range(2):
            assert c.post("/api/auth/login", json={"name": "grace", "password": "wrong password"}).status_code == 401
        res = c.post("/api/auth/login", json={"name": "grace", "password": PASSWORD})
        assert res.status_code == 429
        assert int(res.headers["Retry-After"]) > 30  # the second window: a longer lockout
        # another name is not affected
        signup(c, "heidi")


def test_seats_bound_to_accounts_my_games_resume_and_claim(app_client):
    a = app_client
    tok_a = signup(a, "ann")
    b = other(a)
    tok_b = signup(b, "ben")
    created = a.post("/api/games", json={"players": 2, "seats": [{"type": "human"}, {"type": "human"}]}, headers=csrf(tok_a))
    assert created.status_code == 201
    created = created.json()
    gid = created["game_id"]
    t0, t1 = created["seats"][0]["token"], created["seats"][1]["token"]
    assert a.post(f"/api/games/{gid}/join", json={"name": "Ann"}, headers={**bearer(t0), **csrf(tok_a)}).status_code == 200
    assert (
        a.post(f"/api/games/{gid}/join", json={"name": "Ann2"}, headers={**bearer(t1), **csrf(tok_a)}).json()["error"]["code"]
        == "already_seated"
    )
    assert b.post(f"/api/games/{gid}/join", json={"name": "Ben"}, headers={**bearer(t1), **csrf(tok_b)}).status_code == 200
    summary = a.get(f"/api/games/{gid}").json()
    assert summary["status"] == "active" and summary["rated"] is True
    assert [s.get("account") for s in summary["seats"]] == ["ann", "ben"]
    current = summary["current"]
    mine_a, mine_b = a.get("/api/me/games").json(), b.get("/api/me/games").json()
    assert [(g["game_id"], g["seat"]) for g in mine_a] == [(gid, 0)]
    assert [(g["game_id"], g["seat"]) for g in mine_b] == [(gid, 1)]
    assert mine_a[0]["your_turn"] is (current == 0) and mine_b[0]["your_turn"] is (current == 1)
    assert other(a).get("/api/me/games").status_code == 401
    # a lost link: resume gives a new token, the old one stops working
    res = a.post(f"/api/me/games/{gid}/resume", headers=csrf(tok_a))
    assert res.status_code == 200 and res.json()["seat"] == 0
    assert a.get(f"/api/games/{gid}/state", headers=bearer(res.json()["token"])).json()["seat"] == 0
    assert a.get(f"/api/games/{gid}/state", headers=bearer(t0)).status_code == 401
    assert b.post(f"/api/me/games/{gid}/resume", headers=csrf(tok_b)).json()["seat"] == 1
    outsider = other(a)
    tok_o = signup(outsider, "oscar")
    assert outsider.post(f"/api/me/games/{gid}/resume", headers=csrf(tok_o)).status_code == 403
    # a guest's game against a bot is not rated; claimed into an account later it shows in "my games"
    guest = other(a)
    g = create(guest, players=2)
    gt = g["seats"][0]["token"]
    assert guest.post(f"/api/games/{g['game_id']}/join", json={"name": "Guest"}, headers=bearer(gt)).status_code == 200
    assert guest.get(f"/api/games/{g['game_id']}").json()["rated"] is False
    tok_g = signup(guest, "gina")
    res = guest.post("/api/me/claim", json={"game_id": g["game_id"], "token": gt}, headers=csrf(tok_g))
    assert res.status_code == 200 and res.json() == {"seat": 0, "claimed": True}
    assert [x["game_id"] for x in guest.get("/api/me/games").json()] == [g["game_id"]]
    res = outsider.post("/api/me/claim", json={"game_id": g["game_id"], "token": gt}, headers=csrf(tok_o))
    assert res.status_code == 409 and res.json()["error"]["code"] == "seat_bound"
    res = outsider.post("/api/me/claim", json={"game_id": g["game_id"], "token": "not-a-token"}, headers=csrf(tok_o))
    assert res.status_code == 401
