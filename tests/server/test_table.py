"""Chat (players' and spectators' channels, plain text, length and rate limits) and rematch (docs/api.md)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from fastapi.testclient import TestClient
from serverkit import bearer, create, join_all, wait_for
from test_accounts import csrf, other, signup
from test_ratings import play_fast

from ttr.server import Settings, create_app

TWO_HUMANS = [{"type": "human"}, {"type": "human"}]


@pytest.fixture
def app_client(settings: Settings):
    fast = replace(settings, argon2_time_cost=1, argon2_memory_kib=8192, rate_chat="3/minute")
    with TestClient(create_app(fast)) as c:
        yield c


def test_chat_channels_text_and_limits(app_client):
    c = app_client
    created = create(c, seats=TWO_HUMANS)
    gid = created["game_id"]
    tokens = join_all(c, created, names=["Ana", "Bo"])
    res = c.post(f"/api/games/{gid}/chat", json={"text": "  hello\u202e <b>there</b>\n"}, headers=bearer(tokens[0]))
    assert res.status_code == 200, res.text
    msg = res.json()
    assert msg["name"] == "Ana" and msg["seat"] == 0 and msg["text"] == "hello <b>there</b>"  # plain text, kept as text
    assert c.post(f"/api/games/{gid}/chat", json={"text": "x"}).status_code == 401  # players' channel: a seat token
    assert (
        c.post(f"/api/games/{gid}/chat", json={"text": "\x00\x01"}, headers=bearer(tokens[1])).json()["error"]["code"]
        == "bad_text"
    )
    assert c.post(f"/api/games/{gid}/chat", json={"text": "y" * 301}, headers=bearer(tokens[1])).status_code == 422
    # spectators: signed-in accounts without a seat
    assert c.post(f"/api/games/{gid}/chat", json={"channel": "spectators", "text": "hi"}).status_code == 401
    watcher = other(c)
    tok = signup(watcher, "watcher")
    res = watcher.post(f"/api/games/{gid}/chat", json={"channel": "spectators", "text": "go Bo"}, headers=csrf(tok))
    assert res.status_code == 200 and res.json()["name"] == "watcher"
    players = c.get(f"/api/games/{gid}/chat", headers=bearer(tokens[1])).json()["messages"]
    assert [m["text"] for m in players] == ["hello <b>there</b>"]
    spect = c.get(f"/api/games/{gid}/chat", params={"channel": "spectators"}).json()["messages"]
    assert [m["text"] for m in spect] == ["go Bo"]
    assert (
        c.get(f"/api/games/{gid}/chat", params={"since": players[-1]["id"]}, headers=bearer(tokens[0])).json()["messages"] == []
    )
    # rate: 3 a minute per client and game (two accepted above from this client; refused ones are not counted)
    for i in range(1):
        assert c.post(f"/api/games/{gid}/chat", json={"text": f"m{i}"}, headers=bearer(tokens[1])).status_code == 200
    res = c.post(f"/api/games/{gid}/chat", json={"text": "too many"}, headers=bearer(tokens[1]))
    assert res.status_code == 429 and "Retry-After" in res.headers


def test_rematch_same_table_accepted_seats_start(app_client):
    c = app_client
    created = create(c, seats=[*TWO_HUMANS, {"type": "bot", "level": "easy"}], clock={"kind": "turnbased", "hours": 24})
    gid = created["game_id"]
    tokens = join_all(c, created, names=["Ana", "Bo", "x"])
    assert c.post(f"/api/games/{gid}/rematch", headers=bearer(tokens[0])).json()["error"]["code"] == "not_finished"
    play_fast(c, gid, tokens, random.Random(1))
    offer = c.post(f"/api/games/{gid}/rematch", headers=bearer(tokens[1]))
    assert offer.status_code == 200, offer.text
    new = offer.json()
    assert new["seat"] == 1 and new["game_id"] != gid
    summary = c.get(f"/api/games/{new['game_id']}").json()
    assert summary["status"] == "open" and summary["players"] == 3
    assert [s["type"] for s in summary["seats"]] == ["human", "human", "bot"] and summary["seats"][2]["level"] == "easy"
    assert summary["clock"]["seconds"] == 24 * 3600
    assert summary["seats"][1]["name"] == "Bo" and summary["seats"][0]["joined"] is False
    assert summary["seats"][0]["open"] is False  # reserved for the old table's player, not for the lobby
    again = c.post(f"/api/games/{gid}/rematch", headers=bearer(tokens[0])).json()
    assert again["game_id"] == new["game_id"] and again["seat"] == 0
    summary = c.get(f"/api/games/{new['game_id']}").json()
    assert summary["status"] == "active"
    assert c.get(f"/api/games/{new['game_id']}/state", headers=bearer(again["token"])).json()["seat"] == 0


def test_rematch_of_a_game_on_an_uploaded_map_is_on_the_same_map(app_client):
    from test_custom_maps import short_usa

    c = app_client
    raw = short_usa()
    created = create(c, map=raw, seats=TWO_HUMANS)
    gid = created["game_id"]
    tokens = join_all(c, created, names=["Ana", "Bo"])
    play_fast(c, gid, tokens, random.Random(2))
    offer = c.post(f"/api/games/{gid}/rematch", headers=bearer(tokens[0]))
    assert offer.status_code == 200, offer.text  # the uploaded map is in no --maps library: it is sent again
    new_id = offer.json()["game_id"]
    assert c.get(f"/api/games/{new_id}").json()["edition"] == c.get(f"/api/games/{gid}").json()["edition"]
    assert c.get(f"/api/games/{new_id}/map").json() == c.get(f"/api/games/{gid}/map").json()


def test_an_unaccepted_rematch_offer_expires_and_can_be_made_again(settings):
    fast = replace(settings, rematch_offer_seconds=1.0, expiry_sweep_seconds=0.2, argon2_time_cost=1, argon2_memory_kib=8192)
    with TestClient(create_app(fast)) as c:
        created = create(c, seats=TWO_HUMANS)
        gid = created["game_id"]
        tokens = join_all(c, created, names=["Ana", "Bo"])
        waiting = create(c, seats=TWO_HUMANS)["game_id"]  # an open game that is no rematch: not touched
        play_fast(c, gid, tokens, random.Random(3))
        first = c.post(f"/api/games/{gid}/rematch", headers=bearer(tokens[0])).json()["game_id"]
        wait_for(lambda: c.get(f"/api/games/{first}").json()["status"] == "abandoned", timeout=15)
        log = c.get(f"/api/games/{first}/log").json()["events"]
        assert log[-1]["event"]["type"] == "game_closed" and log[-1]["event"].get("reason") == "rematch_expired", log[-1]
        assert c.get(f"/api/games/{waiting}").json()["status"] == "open"
        again = c.post(f"/api/games/{gid}/rematch", headers=bearer(tokens[1])).json()
        assert again["game_id"] not in (first, gid) and again["seat"] == 1
        assert c.get(f"/api/games/{again['game_id']}").json()["status"] == "open"
        accepted = c.post(f"/api/games/{gid}/rematch", headers=bearer(tokens[0])).json()
        assert accepted["game_id"] == again["game_id"]
        assert c.get(f"/api/games/{again['game_id']}").json()["status"] == "active"


@pytest.mark.parametrize(
    "spec",
    [
        {"kind": "realtime", "seconds": 45, "on_timeout": "drop", "bot_level": "hard"},
        {"kind": "turnbased", "hours": 24, "on_timeout": "bot", "bot_level": "medium"},
    ],
)
def test_a_rematch_asks_for_the_stored_time_control_again(spec):
    from ttr.server.service import _check_clock, clock_request

    assert clock_request(_check_clock(spec)) == spec
    assert clock_request(None) is None
