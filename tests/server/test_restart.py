"""Crash safety: kill -9 the server in the middle of games, start it again, every game is intact and goes on."""

from __future__ import annotations

import random
import time

import httpx
from serverkit import ServerProcess, bearer, create, join_all, play_random, running, wait_for

from ttr.engine import Game


def snapshot(http: httpx.Client, gid: str) -> dict:
    res = http.get(f"/api/games/{gid}/log")
    assert res.status_code == 200, res.text
    return {e["seq"]: e["event"] for e in res.json()["events"]}


def test_kill_9_mid_game_and_restart(tmp_path):
    db = str(tmp_path / "ttr.sqlite3")
    server = ServerProcess(db, bot_delay=0.01, log=tmp_path / "serve.log")
    rng = random.Random(2)
    with running(server):
        http = httpx.Client(base_url=server.url, timeout=10)
        bot_games = [
            create(http, edition=ed, players=3, seats=[{"type": "bot", "level": "easy"}] * 3)["game_id"]
            for ed in ("usa", "europe", "nordic", "marklin")
        ]
        human = create(http, edition="usa", players=2, seats=[{"type": "human"}, {"type": "bot"}])
        hid = human["game_id"]
        tokens = join_all(http, human)
        # play some human moves; every acknowledged action must survive the crash
        acknowledged = []
        for _ in range(6):
            st = wait_for(lambda: (s := http.get(f"/api/games/{hid}/state", headers=bearer(tokens[0])).json())["legal"] and s)
            res = http.post(
                f"/api/games/{hid}/actions",
                headers=bearer(tokens[0]),
                json={"action": rng.choice(st["legal"]), "expected_seq": st["seq"]},
            )
            assert res.status_code == 200
            acknowledged.append(res.json())
        wait_for(lambda: all(http.get(f"/api/games/{g}").json()["seq"] > 20 for g in bot_games))
        before = {g: snapshot(http, g) for g in [*bot_games, hid]}
        assert all(http.get(f"/api/games/{g}").json()["status"] == "active" for g in bot_games)
        server.kill()  # while the bots are busy committing moves

    with running(ServerProcess(db, port=server.port, bot_delay=0.0, log=tmp_path / "serve.log")):
        for gid, events in before.items():
            after = snapshot(http, gid)
            assert all(after[seq] == ev for seq, ev in events.items()), gid  # nothing acknowledged was lost
        for ack in acknowledged:
            after = snapshot(http, hid)
            assert all(after[e["seq"]]["type"] == e["event"]["type"] for e in ack["events"])
        # bots resume by themselves; the human game goes on from where it was
        assert play_random(http, hid, tokens, rng) > 0
        deadline = time.monotonic() + 60
        for gid in bot_games:
            wait_for(
                lambda g=gid: http.get(f"/api/games/{g}").json()["status"] == "finished", timeout=deadline - time.monotonic()
            )
        for gid in [*bot_games, hid]:
            rec = http.get(f"/api/games/{gid}/record").json()
            replayed = Game.replay(rec)
            assert replayed.is_over and [x["total"] for x in replayed.result()["players"]] == rec["result"]["scores"]
            log = http.get(f"/api/games/{gid}/log").json()["events"]
            assert [e["seq"] for e in log] == list(range(1, len(log) + 1))
    assert "Traceback" not in (tmp_path / "serve.log").read_text()
