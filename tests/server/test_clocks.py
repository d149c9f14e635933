"""Clocks: a seat that runs out of time is played by a bot until its player returns, or dropped; deadlines survive
a restart; on PostgreSQL two processes never both fire one deadline (docs/api.md, Clocks)."""

from __future__ import annotations

import time
from dataclasses import replace
from datetime import datetime

import httpx
import pytest
from fastapi.testclient import TestClient
from serverkit import ServerProcess, bearer, create, join_all, running, wait_for

from ttr.server import Settings, create_app

TWO_HUMANS = [{"type": "human"}, {"type": "human"}]


def timeouts(client, gid: str) -> list[dict]:
    return [
        e["event"] | {"at": e["at"]}
        for e in client.get(f"/api/games/{gid}/log").json()["events"]
        if e["event"]["type"] == "timeout"
    ]


def lateness(ev: dict) -> float:
    return (datetime.fromisoformat(ev["at"]) - datetime.fromisoformat(ev["deadline"])).total_seconds()


@pytest.fixture
def clock_settings(settings: Settings) -> Settings:
    return replace(settings, limits_enabled=False, clock_poll_seconds=0.2)


def test_timeout_bot_takes_over_until_the_player_returns(clock_settings):
    with TestClient(create_app(clock_settings)) as c:
        created = create(c, seats=TWO_HUMANS, clock={"kind": "realtime", "seconds": 1, "bot_level": "easy"})
        gid = created["game_id"]
        tokens = join_all(c, created)
        summary = c.get(f"/api/games/{gid}").json()
        assert summary["clock"] == {"kind": "realtime", "seconds": 1, "on_timeout": "bot", "bot_level": "easy"}
        first = summary["current"]
        armed = datetime.fromisoformat(summary["deadline"])
        assert 0 < (armed - datetime.fromisoformat(summary["updated_at"])).total_seconds() <= 1.01
        wait_for(lambda: timeouts(c, gid), timeout=10)
        ev = timeouts(c, gid)[0]
        assert ev["player"] == first and ev["mode"] == "bot" and ev["level"] == "easy"
        assert 0 <= lateness(ev) < 1.0, ev
        seat = c.get(f"/api/games/{gid}").json()["seats"][first]
        assert seat["away"] is True and seat["level"] == "easy"
        # the bot plays the seat meanwhile: the game moves on without the player
        wait_for(lambda: c.get(f"/api/games/{gid}").json()["turn"] > summary["turn"] or len(timeouts(c, gid)) > 1, timeout=20)
        # the player comes back and takes the seat over again; the other seat's owner cannot
        other = 1 - first
        res = c.post(f"/api/games/{gid}/return", headers=bearer(tokens[other]), json={"seat": first})
        assert res.status_code == 403 and res.json()["error"]["code"] == "not_your_seat"
        res = c.post(f"/api/games/{gid}/return", headers=bearer(tokens[first]))
        assert res.status_code == 200, res.text
        seat = c.get(f"/api/games/{gid}").json()["seats"][first]
        assert "away" not in seat and "level" not in seat
        assert c.post(f"/api/games/{gid}/return", headers=bearer(tokens[first])).json()["error"]["code"] == "not_away"


def test_timeout_drop_and_bad_clocks(clock_settings):
    with TestClient(create_app(clock_settings)) as c:
        for bad in ({"kind": "realtime"}, {"kind": "turnbased", "seconds": 5}, {"kind": "realtime", "seconds": 0}):
            assert c.post("/api/games", json={"seats": TWO_HUMANS, "clock": bad}).status_code == 422, bad
        created = create(c, seats=TWO_HUMANS, clock={"kind": "realtime", "seconds": 1, "on_timeout": "drop"})
        gid = created["game_id"]
        tokens = join_all(c, created)
        wait_for(lambda: timeouts(c, gid), timeout=10)
        ev = timeouts(c, gid)[0]
        assert ev["mode"] == "drop"
        assert c.get(f"/api/games/{gid}").json()["seats"][ev["player"]]["dropped"] is True
        res = c.post(f"/api/games/{gid}/return", headers=bearer(tokens[ev["player"]]))
        assert res.status_code == 409 and res.json()["error"]["code"] == "dropped"
        # no clock: no deadline, nothing ever fires
        plain = create(c, seats=TWO_HUMANS)
        join_all(c, plain)
        assert c.get(f"/api/games/{plain['game_id']}").json()["deadline"] is None


def test_setup_clock_times_every_seat_still_choosing(clock_settings):
    """In the simultaneous setup every seat still choosing shares one deadline: a seat's choice does not restart
    the others' time, and when it runs out every seat still choosing is taken over at once."""
    with TestClient(create_app(clock_settings)) as c:
        created = create(c, players=3, seats=[{"type": "human"}] * 3, clock={"kind": "realtime", "seconds": 2})
        gid = created["game_id"]
        tokens = join_all(c, created)
        summary = c.get(f"/api/games/{gid}").json()
        armed = summary["deadline"]
        st = c.get(f"/api/games/{gid}/state", params={"seat": 0}, headers=bearer(tokens[0])).json()
        order = st["view"]["to_act"]
        assert st["view"]["phase"] == "setup" and len(order) == 3
        chooser = order[0]  # `current` keeps its tickets first: the seats still choosing keep the same deadline
        mine = c.get(f"/api/games/{gid}/state", params={"seat": chooser}, headers=bearer(tokens[chooser])).json()
        res = c.post(
            f"/api/games/{gid}/actions",
            headers=bearer(tokens[chooser]),
            json={"seat": chooser, "action": mine["legal"][0], "expected_seq": mine["seq"]},
        )
        assert res.status_code == 200, res.text
        assert c.get(f"/api/games/{gid}").json()["deadline"] == armed
        wait_for(lambda: len(timeouts(c, gid)) >= 2, timeout=10)
        evs = timeouts(c, gid)
        assert sorted(e["player"] for e in evs) == sorted(order[1:]), evs
        assert {e["deadline"] for e in evs} == {armed}, (armed, evs)
        seats_now = c.get(f"/api/games/{gid}").json()["seats"]
        assert [bool(seats_now[p].get("away")) for p in range(3)] == [p != chooser for p in range(3)]


def test_deadlines_survive_a_restart(clock_settings):
    with TestClient(create_app(clock_settings)) as c:
        created = create(c, seats=TWO_HUMANS, clock={"kind": "realtime", "seconds": 2})
        gid = created["game_id"]
        join_all(c, created)
    time.sleep(2.2)  # the deadline passes while no server runs
    with TestClient(create_app(clock_settings)) as c:
        wait_for(lambda: timeouts(c, gid), timeout=10)
        # both seats were still choosing their initial tickets: each times out once, at the one deadline
        assert sorted(e["player"] for e in timeouts(c, gid)) == [0, 1]


def test_two_processes_fire_each_deadline_once(pg_db, tmp_path):
    extra = ["--no-limits", "--clock-poll", "0.05", "--bot-workers", "1"]
    # bots take their time, so that the bots playing dropped seats do not load the machine meanwhile
    a = ServerProcess(pg_db, log=tmp_path / "a.log", extra=extra, bot_delay=0.5)
    b = ServerProcess(pg_db, log=tmp_path / "b.log", extra=extra, bot_delay=0.5)
    with running(a, b):
        ha, hb = httpx.Client(base_url=a.url, timeout=10), httpx.Client(base_url=b.url, timeout=10)
        gids = []
        for i in range(3):
            h = (ha, hb)[i % 2]
            created = create(h, seats=TWO_HUMANS, clock={"kind": "realtime", "seconds": 1, "on_timeout": "drop"})
            join_all(h, created)
            gids.append(created["game_id"])
        # both seats of every game run out of time (each seat once: a dropped seat never gets a deadline again)
        wait_for(lambda: all(len(timeouts(ha, g)) >= 2 for g in gids), timeout=60, interval=0.2)
        time.sleep(1.5)  # a second firing would show by now
        late = []
        for g in gids:
            evs = timeouts(hb, g)
            assert sorted(e["player"] for e in evs) == [0, 1], evs  # once per seat, never twice
            late += [lateness(e) for e in evs]
        assert max(late) < 1.0, late
