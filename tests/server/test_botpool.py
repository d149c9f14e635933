"""Bots think in worker processes: the event loop answers while a bot thinks, a bot that fails or overruns plays
its cheaper level's move (always a legal one), and the fair queue serves the game that has used least."""

from __future__ import annotations

import asyncio
import os
import time
from collections import deque

import pytest
from fastapi.testclient import TestClient
from serverkit import bearer, create, join_all, wait_for

from ttr.engine import Game
from ttr.server import Settings, create_app
from ttr.server.botpool import BotPool, _Job, _Worker, is_heavy


def _app(tmp_path, **kw) -> TestClient:
    kw = {"bot_delay": 0.0, "bot_sweep_seconds": 0.2, "undo_window": 0.0, **kw}
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'pool.sqlite3'}", **kw)
    return TestClient(create_app(settings))


def _finished(client: TestClient, gid: str) -> dict:
    wait_for(lambda: client.get(f"/api/games/{gid}").json()["status"] == "finished", timeout=120)
    record = client.get(f"/api/games/{gid}/record").json()
    Game.replay(record)  # every recorded action was legal (replaying raises otherwise)
    return record


def test_the_server_answers_while_a_bot_holds_its_process(tmp_path):
    """The first move of this game holds its process's GIL for about 4 s in one C call: in a server thread that would
    stall every request; in a worker process the server does not notice."""
    with _app(tmp_path, bot_factory="slowbots:slow", bot_workers=2, bot_budget=6.0) as client:
        hub = client.app.state.hub
        created = create(
            client, edition="usa", players=2, seats=[{"type": "bot", "level": "max"}, {"type": "bot", "level": "max"}]
        )
        gid = created["game_id"]
        assert client.get(f"/api/games/{gid}").json()["seq"] == 1  # started; the first bot is thinking
        times = []
        deadline = time.monotonic() + 1.5
        while time.monotonic() < deadline:
            t0 = time.perf_counter()
            assert client.get("/api/editions").status_code == 200
            times.append(time.perf_counter() - t0)
        assert client.get(f"/api/games/{gid}").json()["seq"] == 1, "the slow move was over before the requests"
        times.sort()
        # (the old server, thinking in a thread, answered one request in 1.5 s — after the move, when it let go)
        assert len(times) >= 5 and times[len(times) // 2] < 0.2 and times[-1] < 2.0, times
        assert os.getpid() not in hub.pool.pids() and len(hub.pool.pids()) == 2
        record = _finished(client, gid)
        assert len(record["actions"]) > 20
        assert hub.pool.stats["overruns"] == 0 and hub.pool.stats["fallbacks"] == 0


def test_a_bot_that_hangs_or_fails_plays_its_cheaper_levels_legal_move(tmp_path):
    """max hangs on the first move (overrun: its worker is killed, the move goes to hard); hard raises or names an
    illegal action (the worker falls back to medium). The game goes on and every move is legal."""
    with _app(tmp_path, bot_factory="slowbots:broken", bot_workers=2, bot_budget=0.2) as client:
        pool = client.app.state.hub.pool
        before = set(pool.pids())
        created = create(
            client,
            edition="europe",
            players=3,
            seats=[{"type": "bot", "level": "max"}, {"type": "bot", "level": "hard"}] * 1 + [{"type": "bot", "level": "max"}],
        )
        t0 = time.monotonic()
        _finished(client, created["game_id"])
        assert pool.stats["overruns"] >= 1 and pool.stats["restarts"] >= 1
        assert pool.stats["fallbacks"] >= 10  # every move of the broken hard bot
        assert set(pool.pids()) != before  # the worker that hung was replaced
        assert time.monotonic() - t0 < 100


def test_bots_remember_across_moves_and_forget_undone_moves(tmp_path):
    """The worker keeps each bot between moves, sending it only the events it has not seen; after an undo the bot is
    rebuilt from its seat's events, so it never remembers a move that was taken back. The counting bot checks its
    memory against the board at every move (and that it never saw another seat's secret): any mismatch would be a
    failed move, played by a fallback."""
    with _app(tmp_path, bot_factory="slowbots:counting", bot_workers=2, undo_window=1.0) as client:
        pool = client.app.state.hub.pool
        seats = [{"type": "human"}, {"type": "bot", "level": "medium"}, {"type": "bot", "level": "hard"}]
        created = create(client, edition="usa", players=3, seats=seats)
        gid = created["game_id"]
        (token,) = join_all(client, created).values()
        undone = 0
        for _ in range(200):
            st = wait_for(lambda: _my_turn_or_end(client, gid, token))
            if st["summary"]["status"] == "finished" or (undone >= 3 and pool.stats["moves"] > 10):
                break  # three undos, and enough bot moves to have exercised their memory
            claims = [a for a in st["legal"] if a["type"] == "claim"]
            action = claims[0] if claims else next((a for a in st["legal"] if a["type"] != "draw_tickets"), st["legal"][0])
            res = client.post(
                f"/api/games/{gid}/actions", headers=bearer(token), json={"action": action, "expected_seq": st["seq"]}
            )
            assert res.status_code == 200, res.text
            if claims and _state(client, gid, token)["can_undo"]:
                assert client.post(f"/api/games/{gid}/undo", headers=bearer(token)).status_code == 200
                undone += 1
                st = _state(client, gid, token)
                other = next((a for a in st["legal"] if a["type"] not in ("claim", "draw_tickets")), st["legal"][0])
                res = client.post(
                    f"/api/games/{gid}/actions", headers=bearer(token), json={"action": other, "expected_seq": st["seq"]}
                )
                assert res.status_code == 200, res.text
        assert undone >= 1
        assert pool.stats["moves"] > 10 and pool.stats["fallbacks"] == 0, pool.stats
        assert pool.stats["rebuilds"] >= 2 + undone  # once each at the start, then after every undo


def _state(client: TestClient, gid: str, token: str) -> dict:
    return client.get(f"/api/games/{gid}/state", headers=bearer(token)).json()


def _my_turn_or_end(client: TestClient, gid: str, token: str) -> dict | None:
    st = _state(client, gid, token)
    return st if st["legal"] or st["summary"]["status"] == "finished" else None


def test_fair_queue_serves_the_game_that_used_least():
    """Start-time fair queueing: least weighted thinking time first, a late-comer starts level (no hoarded credit),
    urgent jobs (fallbacks, resends) first."""

    async def scenario() -> list[str]:
        pool = BotPool(workers=2)
        worker = _Worker(0, light=False)
        loop = asyncio.get_running_loop()

        def job(key: str, weight: float = 1.0, urgent: bool = False) -> _Job:
            j = _Job(len(pool._order) + 100, "think", key, weight, loop.create_future(), lambda w: {}, 1.0, urgent=urgent)
            pool._order[j.id] = len(pool._order)
            return j

        pool._vt = {"busy": 5.0, "light": 0.5}
        worker.clock = 1.0
        for key in ("busy", "light"):
            worker.queues[key] = deque([job(key)])
        order = []
        newcomer = job("new")
        pool._ready = False  # only queue
        pool._enqueue(worker, newcomer)
        assert pool._vt["new"] == 1.0 and pool._vt["light"] == 0.5  # the newcomer starts at the clock, not at 0
        worker.queues.setdefault("late", deque()).append(job("late", urgent=True))
        while (j := pool._pick(worker)) is not None:
            order.append(j.key)
        return order

    assert asyncio.run(scenario()) == ["late", "light", "new", "busy"]


def test_levels_and_lanes():
    assert is_heavy("max") and not any(is_heavy(x) for x in ("easy", "medium", "hard", None))
    pool = BotPool(workers=3)
    assert [w.light for w in pool.workers] == [False, False, True]
    a, b = pool._home_of("g1", True), pool._home_of("g2", True)
    assert {a.index, b.index} == {0, 1} and pool._home_of("g3", False).index == 2
    assert pool._home_of("g1", True) is a  # sticky
    pool.forget("g1")
    assert "g1" not in pool._home and "g1" not in a.games
    single = BotPool(workers=1)
    assert single._home_of("x", True) is single._home_of("y", False)


@pytest.mark.parametrize("step", [0, 1, 5])
def test_replays_are_computed_in_the_pool(client, step):
    created = create(client, edition="usa", players=2, seats=[{"type": "bot", "level": "easy"}, {"type": "bot", "level": "easy"}])
    gid = created["game_id"]
    join_all(client, created)
    record = _finished(client, gid)
    res = client.get(f"/api/games/{gid}/replay", params={"step": step})
    assert res.status_code == 200, res.text
    data = res.json()
    assert data["step"] == step and data["steps"] == len(record["actions"])
    assert "hand" not in data["view"]
    res = client.get(f"/api/games/{gid}/replay", params={"step": len(record["actions"]) + 1})
    assert res.status_code == 422 and res.json()["error"]["code"] == "bad_step"
