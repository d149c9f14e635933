"""Scale-out: two `ttr serve` processes on one PostgreSQL serve the same games consistently.

Needs a real PostgreSQL: set TTR_TEST_POSTGRES_URL (CI does). Each run works in a database of its own.
"""

from __future__ import annotations

import json
import random
import time

import httpx
from serverkit import ServerProcess, bearer, create, join_all, running, wait_for
from websockets.sync.client import connect

from ttr.engine import Game


def test_two_processes_one_game(pg_db, tmp_path):
    a = ServerProcess(pg_db, bot_delay=0.0, log=tmp_path / "a.log")
    b = ServerProcess(pg_db, bot_delay=0.0, log=tmp_path / "b.log")
    rng = random.Random(4)
    with running(a, b):  # started together: both run the migrations, one after the other
        ha = httpx.Client(base_url=a.url, timeout=10)
        hb = httpx.Client(base_url=b.url, timeout=10)
        created = create(ha, edition="europe", players=3, seats=[{"type": "human"}, {"type": "human"}, {"type": "bot"}])
        gid = created["game_id"]
        tokens = join_all(hb, created)  # joined through B, created through A
        assert ha.get(f"/api/games/{gid}").json()["status"] == "active"
        # seat 1 and a spectator watch through B; seat 0 plays through A's HTTP API; seat 1 answers over B's WebSocket
        ws1 = connect(f"{b.ws_url}/ws/games/{gid}?token={tokens[1]}&since=0", open_timeout=10)
        spec = connect(f"{b.ws_url}/ws/games/{gid}?since=0", open_timeout=10)
        seqs: list[int] = []
        acted_at = -1
        plays_via_a = 0
        deadline = time.monotonic() + 90
        over = False
        while not over:
            assert time.monotonic() < deadline
            try:
                msg = json.loads(spec.recv(timeout=0.005))
                seqs += [e["seq"] for e in msg["events"]]
                over = msg["state"]["summary"]["status"] == "finished"
            except TimeoutError:
                pass
            try:
                m1 = json.loads(ws1.recv(timeout=0.001))
                # during the simultaneous setup an update may be overtaken by the others' choices: refused as stale
                assert m1["type"] == "update" or m1["error"]["code"] == "state_changed", m1
                st = m1.get("state")
                if st and st["legal"] and st["seq"] != acted_at:
                    acted_at = st["seq"]
                    ws1.send(json.dumps({"type": "action", "action": rng.choice(st["legal"]), "expected_seq": st["seq"]}))
            except TimeoutError:
                pass
            st0 = ha.get(f"/api/games/{gid}/state", headers=bearer(tokens[0])).json()
            if st0["legal"]:
                res = ha.post(
                    f"/api/games/{gid}/actions",
                    headers=bearer(tokens[0]),
                    json={"action": rng.choice(st0["legal"]), "expected_seq": st0["seq"]},
                )
                assert res.status_code in (200, 409), res.text
                plays_via_a += res.status_code == 200
        assert plays_via_a > 10
        # B's spectator saw every event once, in order, though most changes were made by A or by the bots
        assert seqs == list(range(1, len(seqs) + 1))
        rec_a, rec_b = ha.get(f"/api/games/{gid}/record").json(), hb.get(f"/api/games/{gid}/record").json()
        assert rec_a == rec_b and Game.replay(rec_a).is_over
        ws1.close()
        spec.close()

        # bots are played exactly once, whichever process drives them, and survive the death of one process
        bot_games = [
            create(ha, edition="usa", players=2, seats=[{"type": "bot", "level": "easy"}] * 2)["game_id"] for _ in range(3)
        ]
        wait_for(lambda: all(hb.get(f"/api/games/{g}").json()["seq"] > 10 for g in bot_games))
        a.kill()
        for g in bot_games:
            wait_for(lambda g=g: hb.get(f"/api/games/{g}").json()["status"] == "finished")
            rec = hb.get(f"/api/games/{g}/record").json()
            assert Game.replay(rec).is_over
            log = hb.get(f"/api/games/{g}/log").json()["events"]
            assert [e["seq"] for e in log] == list(range(1, len(log) + 1))
    for name in ("a.log", "b.log"):
        assert "Traceback" not in (tmp_path / name).read_text()
