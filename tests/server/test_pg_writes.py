"""How a move is written on PostgreSQL (issue 14, load): one statement, no transaction and no row lock, when the
process's cached snapshot is current; the locked transaction when another process moved first; and no reload of
a game for the notification of our own change.

Needs a real PostgreSQL: set TTR_TEST_POSTGRES_URL (CI does). Each test works in a database of its own.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import sqlalchemy as sa
from fastapi.testclient import TestClient
from serverkit import bearer, create, join_all

from ttr.server import Settings, create_app

TWO_HUMANS = [{"type": "human"}, {"type": "human"}]


@contextmanager
def app_on(settings: Settings, url: str) -> Iterator[TestClient]:
    with TestClient(create_app(replace(settings, database_url=url))) as client:
        yield client


# the app's background sweeps (bot games whose driver died, clock deadlines) may run during a block: not the move's
BACKGROUND = "SELECT games.id FROM games WHERE"


@contextmanager
def statements(client: TestClient) -> Iterator[list[str]]:
    """The SQL statements the app's service sends while the block runs, and "(ping)" for each connection check."""
    seen: list[str] = []
    engine = client.app.state.service.db.engine
    ping = engine.dialect.do_ping

    def record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        text = " ".join(statement.split())
        if not text.startswith(BACKGROUND):
            seen.append(text)

    def counted_ping(dbapi_connection: Any) -> bool:  # a connection checked before use: a round trip of its own
        seen.append("(ping)")
        return ping(dbapi_connection)

    sa.event.listen(engine, "before_cursor_execute", record)
    engine.dialect.do_ping = counted_ping
    try:
        yield seen
    finally:
        sa.event.remove(engine, "before_cursor_execute", record)
        engine.dialect.do_ping = ping


def state(client: TestClient, gid: str, token: str) -> dict[str, Any]:
    return client.get(f"/api/games/{gid}/state", headers=bearer(token)).json()


def assert_stored(client: TestClient, gid: str, seq: int, seats: list[int] | None) -> None:
    """The database holds every event up to `seq` once, in order, and the actions (by `seats`) that give the
    process's cached game."""
    service = client.app.state.service
    stored = service._load_consistent(gid)  # read back from the database, not the cache
    assert stored.seq == seq and [e.seq for e in stored.events] == list(range(1, seq + 1))
    assert stored.game.to_dict() == service.cached(gid).game.to_dict()
    if seats is not None:
        assert [seat for seat, _ in stored.actions] == seats


def test_a_move_is_one_statement(settings, pg_db):
    with app_on(settings, pg_db) as c:
        created = create(c, seats=TWO_HUMANS)
        gid = created["game_id"]
        tokens = join_all(c, created)
        for _ in range(6):
            seat = next(s for s, t in tokens.items() if state(c, gid, t)["legal"])
            st = state(c, gid, tokens[seat])
            with statements(c) as sent:
                res = c.post(
                    f"/api/games/{gid}/actions",
                    headers=bearer(tokens[seat]),
                    json={"action": st["legal"][0], "expected_seq": st["seq"]},
                )
            assert res.status_code == 200, res.text
            # (it was a connection check and four statements in a transaction: the row locked FOR UPDATE, the
            # action, the events, the game row)
            assert len(sent) == 1 and sent[0].startswith("WITH g AS (UPDATE games SET"), sent
        assert_stored(c, gid, res.json()["seq"], seats=None)


def test_a_move_on_a_stale_snapshot_writes_nothing_then_locks_and_looks_again(settings, pg_db):
    """Two processes (two apps) on one database: B moves, then A, whose cached snapshot B left behind."""
    with app_on(settings, pg_db) as a, app_on(settings, pg_db) as b:
        created = create(a, seats=TWO_HUMANS)
        gid = created["game_id"]
        tokens = join_all(a, created)
        legal = {seat: state(a, gid, t)["legal"] for seat, t in tokens.items()}  # setup: both choose their tickets
        assert all(legal.values())
        seq = a.get(f"/api/games/{gid}").json()["seq"]
        res = b.post(f"/api/games/{gid}/actions", headers=bearer(tokens[1]), json={"action": legal[1][0]})
        assert res.status_code == 200
        seq_b = res.json()["seq"]
        assert a.app.state.service.cached(gid).seq == seq  # A knows nothing of it (nobody there watches the game)
        with statements(a) as sent:
            res = a.post(f"/api/games/{gid}/actions", headers=bearer(tokens[0]), json={"action": legal[0][0]})
        assert res.status_code == 200, res.text
        assert sent[0].startswith("WITH g AS") and "FOR UPDATE" in sent[1], sent  # refused, then the locked path
        assert res.json()["seq"] == seq_b + len(res.json()["events"])
        assert_stored(a, gid, res.json()["seq"], seats=[1, 0])


def test_the_notice_of_our_own_change_reloads_nothing(settings, pg_db):
    """PostgreSQL tells every process of each commit, this one included, and the notice can arrive before the new
    snapshot is cached: it once made the process load the game it had just changed (four round trips for nothing,
    on about every action under load)."""
    with app_on(settings, pg_db) as c:
        service = c.app.state.service
        created = create(c, seats=TWO_HUMANS)
        gid = created["game_id"]
        tokens = join_all(c, created)
        reloads: list[str] = []
        original_get, original_store = service.get, service._store

        def counting_get(game_id: str):
            reloads.append(game_id)
            return original_get(game_id)

        def late_store(live):  # the notice arrives meanwhile
            time.sleep(0.3)
            return original_store(live)

        with c.websocket_connect(f"/ws/games/{gid}?token={tokens[0]}") as ws:  # someone here watches the game
            st = ws.receive_json()["state"]
            service.get, service._store = counting_get, late_store
            try:
                res = c.post(f"/api/games/{gid}/actions", headers=bearer(tokens[0]), json={"action": st["legal"][0]})
                assert res.status_code == 200
                assert ws.receive_json()["seq"] == res.json()["seq"]
                time.sleep(0.3)
            finally:
                service.get, service._store = original_get, original_store
        assert reloads == []
