"""Storage (URLs, migrations, restart in-process), `ttr serve` / `ttr loadtest` command lines, tokens and names."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from dataclasses import replace

import httpx
import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from serverkit import ServerProcess, bearer, create, join_all, play_random, running
from websockets.sync.client import connect

from ttr.cli import main as ttr_main
from ttr.server import create_app, database_url
from ttr.server.db import Database, actions, games, migrate
from ttr.server.security import clean_name, hash_token, new_token


def test_database_urls(tmp_path, monkeypatch):
    monkeypatch.delenv("TTR_DATABASE_URL", raising=False)
    monkeypatch.setenv("TTR_DATA_DIR", str(tmp_path / "data"))
    assert database_url() == f"sqlite:///{tmp_path / 'data' / 'ttr.sqlite3'}"
    assert database_url("postgresql://u:p@h:5432/db") == "postgresql+psycopg://u:p@h:5432/db"
    assert database_url("postgres://h/db") == "postgresql+psycopg://h/db"
    assert database_url(str(tmp_path / "x.sqlite3")) == f"sqlite:///{tmp_path / 'x.sqlite3'}"
    monkeypatch.setenv("TTR_DATABASE_URL", "postgresql://h/other")
    assert database_url() == "postgresql+psycopg://h/other"
    assert database_url("sqlite:///:memory:") == "sqlite:///:memory:"


def test_migrations_create_the_schema_once(tmp_path):
    db = Database(f"sqlite:///{tmp_path / 'm.sqlite3'}")
    migrate(db)
    migrate(db)  # a second start changes nothing
    insp = sa.inspect(db.engine)
    assert {"games", "seats", "actions", "events", "alembic_version"} <= set(insp.get_table_names())
    with db.engine.connect() as conn:
        assert conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar() == _head()
        # the migrations build exactly the tables, columns and indexes db.py declares
        from alembic.autogenerate import compare_metadata
        from alembic.migration import MigrationContext

        from ttr.server.db import metadata

        diff = compare_metadata(MigrationContext.configure(conn), metadata)
        assert diff == [], diff
    db.dispose()


def _head() -> str:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    from ttr.server.db import MIGRATIONS_DIR

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    return ScriptDirectory.from_config(cfg).get_current_head() or ""


def test_tokens_are_random_and_stored_hashed(client, settings):
    tokens = {new_token() for _ in range(1000)}
    assert len(tokens) == 1000 and min(len(t) for t in tokens) >= 32  # 24 bytes: 192 bits
    created = create(client, players=2, seats=[{"type": "human"}, {"type": "human"}])
    raw = [s["token"] for s in created["seats"]]
    db = Database(settings.database_url)
    with db.engine.connect() as conn:
        stored = [r.token_hash for r in conn.execute(sa.text("SELECT token_hash FROM seats ORDER BY seat"))]
        dump = json.dumps([list(r) for r in conn.execute(sa.text("SELECT * FROM games"))], default=str)
        dump += json.dumps([list(r) for r in conn.execute(sa.text("SELECT * FROM seats"))], default=str)
    db.dispose()
    assert stored == [hash_token(t) for t in raw]
    assert not any(t in dump for t in raw)


def test_clean_name():
    assert clean_name("  Ana \t Maria\n") == "Ana Maria"
    assert clean_name("Zoë 🚂") == "Zoë 🚂"
    assert clean_name("a\u202eb\u200dc") == "abc"  # format characters (bidi override, joiners) removed
    for bad in ["", "   ", "\x00\x01", "x" * 33, 42]:
        with pytest.raises(ValueError):
            clean_name(bad)


def test_games_survive_a_restart_of_the_app(settings):
    rng = random.Random(8)
    with TestClient(create_app(settings)) as c:
        created = create(c, edition="nordic", players=2, seats=[{"type": "human"}, {"type": "human"}])
        gid = created["game_id"]
        tokens = join_all(c, created)
        play_random(c, gid, tokens, rng, max_actions=30)
        before = c.get(f"/api/games/{gid}/state", headers=bearer(tokens[0])).json()
    with TestClient(create_app(settings)) as c:
        after = c.get(f"/api/games/{gid}/state", headers=bearer(tokens[0])).json()
        assert after == before
        play_random(c, gid, tokens, rng)
        assert c.get(f"/api/games/{gid}").json()["status"] == "finished"


def test_an_invited_seat_cannot_be_taken_from_its_websocket(client):
    created = create(client, players=2, seats=[{"type": "human"}, {"type": "human"}])
    gid, invite = created["game_id"], created["seats"][1]["token"]
    with client.websocket_connect(f"/ws/games/{gid}?token={invite}") as ws:
        assert ws.receive_json()["state"]["seat"] == 1
        res = client.post(f"/api/games/{gid}/join", json={"name": "Stranger", "seat": 1})
        assert res.status_code == 409 and res.json()["error"]["code"] == "seat_reserved"
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}  # still connected, still the seat's
    assert client.get(f"/api/games/{gid}/state", headers=bearer(invite)).json()["seat"] == 1


def test_serve_and_loadtest_commands(tmp_path, capsys):
    server = ServerProcess(str(tmp_path / "serve.sqlite3"), bot_delay=0.0, extra=["--no-limits"])  # one client, many games
    with running(server):
        assert server.proc is not None
        for via, procs in (("http", 2), ("ws", 1)):
            assert (
                ttr_main(
                    [
                        "loadtest",
                        "--url",
                        server.url,
                        "--server-pid",  # CPU and memory of a server started elsewhere
                        str(server.proc.pid),
                        "--client-procs",
                        str(procs),
                        "--warmup",
                        "1",
                        "--games",
                        "3",
                        "--duration",
                        "3",
                        "--think",
                        "0",
                        "--bots",
                        "1",
                        "--via",
                        via,
                        "--json",
                    ]
                )
                == 0
            )
            report = json.loads(capsys.readouterr().out)
            assert report["errors"] == 0 and report["actions"] > 10 and report["games_started"] >= 3
            assert report["actions_via"] == via
            assert 0 < report["latency_ms"]["p50"] <= report["latency_ms"]["p95"] <= report["latency_ms"]["p99"]
            assert (report["server_time_ms"]["p50"] is not None) == (via == "http")
            minutes = report["server_time_by_minute"]  # a 3 s run: one minute, holding every timed action
            assert [m["minute"] for m in minutes] == ([0] if via == "http" else [])
            assert sum(m["actions"] for m in minutes) == (report["actions"] if via == "http" else 0)
            # the client's share: its processes' CPU, per action and of one core
            assert report["client_procs"] == procs
            assert report["client_cpu_ms_per_action"] > 0 and 0 < report["client_cpu_share"] < procs
            assert report["server_cpu_s"] > 0 and report["server_cpu_ms_per_action"] > 0
            rss = report["server_rss"]  # sampled every second from /proc/PID/status
            assert rss["samples"] >= 3 and rss["warmup_s"] == 1
            assert 10 < rss["start_mib"] <= rss["max_mib"] and rss["after_warmup_mib"] <= rss["max_mib"]
            assert rss["end_mib"] <= rss["max_mib"]
            expected = round(100 * (rss["end_mib"] - rss["after_warmup_mib"]) / rss["after_warmup_mib"], 1)
            assert abs(rss["growth_after_warmup_pct"] - expected) < 0.5


def test_loadtest_json_report_is_alone_on_stdout_with_its_own_server():
    """The server `ttr loadtest` starts prints its banner on stderr, so `--json` output parses as it is."""
    run = subprocess.run(
        [sys.executable, "-m", "ttr", "loadtest", "--games", "2", "--duration", "2", "--ramp", "1", "--think", "0", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["games_started"] >= 2 and report["ramp_s"] == 1.0
    assert "ttr serve:" in run.stderr


def test_rss_sampler_report():
    from ttr.server.loadtest import RssSampler, split_games

    sampler = RssSampler(0, warmup=10)
    sampler.samples = [(0.0, 100 << 20), (5.0, 150 << 20), (10.0, 200 << 20), (15.0, 260 << 20), (20.0, 210 << 20)]
    assert sampler.report() == {
        "start_mib": 100.0,
        "after_warmup_mib": 200.0,
        "end_mib": 210.0,
        "max_mib": 260.0,
        "growth_after_warmup_pct": 5.0,
        "warmup_s": 10,
        "samples": 5,
    }
    assert RssSampler(0, warmup=1).report() is None  # nothing sampled (no such process)
    assert split_games(300, 4) == [75, 75, 75, 75] and split_games(7, 3) == [3, 2, 2] and split_games(2, 5) == [1, 1]


@pytest.mark.parametrize("every", [1, 7])
def test_a_game_loads_from_its_last_stored_position_and_the_actions_since(settings, every):
    """The whole position is written every `position_every` actions (and at the end); a game read from the database
    replays the actions stored since, and is then exactly the game the server played: every seat's state equal,
    the game going on to its end, and the position column never ahead of the actions."""
    rng = random.Random(every)
    with TestClient(create_app(replace(settings, position_every=every))) as c:
        service = c.app.state.service
        created = create(c, edition="europe", players=2, seats=[{"type": "human"}, {"type": "human"}])
        gid = created["game_id"]
        tokens = join_all(c, created)
        checked = 0
        while c.get(f"/api/games/{gid}").json()["status"] != "finished":
            play_random(c, gid, tokens, rng, max_actions=rng.randint(1, 9))
            with service.db.read() as conn:
                stored = conn.execute(sa.select(games.c.action_count).where(games.c.id == gid)).scalar()
                played = conn.execute(sa.select(sa.func.count()).select_from(actions).where(actions.c.game_id == gid)).scalar()
            finished = c.get(f"/api/games/{gid}").json()["status"] == "finished"
            assert stored == played if finished or every == 1 else played - every < stored <= played
            assert stored % every == 0 or finished
            before = [c.get(f"/api/games/{gid}/state", params={"seat": s}, headers=bearer(t)).json() for s, t in tokens.items()]
            service.forget(gid)
            after = [c.get(f"/api/games/{gid}/state", params={"seat": s}, headers=bearer(t)).json() for s, t in tokens.items()]
            assert after == before
            checked += stored != played
    assert checked > 5 or every == 1  # positions older than the actions were loaded often


def test_cache_keeps_the_recently_changed_games(client):
    service = client.app.state.service
    service.max_cached = 3
    created = [create(client, players=2, seats=[{"type": "human"}, {"type": "human"}]) for _ in range(5)]
    ids = [c["game_id"] for c in created]
    tokens = join_all(client, created[0])
    for gid in ids:
        client.get(f"/api/games/{gid}")
    assert [service.cached(g) is not None for g in ids] == [False, False, True, True, True]
    st = client.get(f"/api/games/{ids[0]}/state", headers=bearer(tokens[0])).json()  # loaded again from the database
    assert st["summary"]["status"] == "active" and service.cached(ids[0]) is not None and len(service._cache) == 3


def test_games_that_ended_leave_the_cache_beyond_a_few(client):
    """A server that plays on must not keep every game it finished (~200 KB each): only the last
    max_finished_cached that ended stay cached; the others are read from the database again when asked."""
    service = client.app.state.service
    service.max_finished_cached = 2
    human = create(client, players=2, seats=[{"type": "human"}, {"type": "human"}])["game_id"]
    bots = [create(client, players=2, seats=[{"type": "bot", "level": "easy"}] * 2)["game_id"] for _ in range(4)]
    deadline = time.monotonic() + 60
    while any(client.get(f"/api/games/{g}").json()["status"] != "finished" for g in bots):
        assert time.monotonic() < deadline, "the bot games did not finish"
        time.sleep(0.1)
    cached = [g for g in bots if service.cached(g) is not None]
    assert len(cached) <= 2 and service.cached(human) is not None  # the game in play stays
    for g in bots:  # every finished game is still all there, from the database
        assert client.get(f"/api/games/{g}").json()["status"] == "finished"
        assert client.get(f"/api/games/{g}/record").status_code == 200
    assert len([g for g in bots if service.cached(g) is not None]) <= 2


def test_tokens_never_reach_the_log(tmp_path):
    log = tmp_path / "serve.log"
    server = ServerProcess(str(tmp_path / "log.sqlite3"), log=log, quiet=False)
    with running(server):
        created = create(httpx.Client(base_url=server.url), players=2, seats=[{"type": "human"}, {"type": "human"}])
        token = created["seats"][0]["token"]
        assert httpx.get(server.url + created["seats"][0]["join_url"]).status_code == 200
        with connect(f"{server.ws_url}/ws/games/{created['game_id']}?token={token}&since=0") as ws:
            assert json.loads(ws.recv(timeout=10))["type"] == "update"
    text = log.read_text()
    assert "token=***" in text and "WebSocket" in text and "GET /play/" in text
    assert token not in text and created["seats"][1]["token"] not in text


def test_websocket_compression_is_off_unless_asked_for(tmp_path):
    """Compressing every update (permessage-deflate) cost a tenth of the server's CPU per move under load, on the event
    loop, and a compressor per socket: `ttr serve` sends updates as they are unless started with --ws-deflate 1."""
    plain = ServerProcess(str(tmp_path / "a.sqlite3"))
    deflating = ServerProcess(str(tmp_path / "b.sqlite3"), extra=["--ws-deflate", "1"])
    with running(plain, deflating):
        for server, expected in ((plain, None), (deflating, "permessage-deflate")):
            gid = create(httpx.Client(base_url=server.url), seats=[{"type": "bot"}, {"type": "bot"}])["game_id"]
            with connect(f"{server.url.replace('http', 'ws')}/ws/games/{gid}", open_timeout=10) as ws:  # offers deflate
                assert json.loads(ws.recv(timeout=10))["type"] == "update"
                extensions = ws.response.headers.get("Sec-WebSocket-Extensions")
                assert (extensions or "").split(";")[0] == (expected or ""), extensions
