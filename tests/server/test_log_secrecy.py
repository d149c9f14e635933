"""GET /log with a seat's token replays that seat's private event forms (its blind draws' colours, the tickets
it was dealt and kept) and nobody else's; without a token it is the public log; a wrong token is refused.

A three-seat game (two people, one bot) played through the API, each person drawing blind and keeping
tickets; the log each token reads is compared event by event with the events the engine produced.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

from fastapi.testclient import TestClient
from serverkit import wait_for
from test_secrecy import scan

from ttr.server import Settings, create_app

PRIVATE = {"draw_blind": "card", "draw_tickets": "tickets", "keep_tickets": "tickets"}


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def play(c: TestClient, gid: str, tokens: dict[int, str], moves: int) -> None:
    """Each person keeps every ticket offered, then draws blind (a ticket draw now and then)."""
    rng = random.Random(7)
    done = 0
    for _ in range(moves * 20):
        for seat, token in tokens.items():
            st = c.get(f"/api/games/{gid}/state", headers=auth(token)).json()
            legal = st["legal"]
            if not legal:
                continue
            keeps = [a for a in legal if a["type"] == "keep_tickets"]
            blind = [a for a in legal if a["type"] == "draw_blind"]
            tickets = [a for a in legal if a["type"] == "draw_tickets"]
            if keeps:
                action = max(keeps, key=lambda a: len(a["tickets"]))
            elif tickets and rng.random() < 0.15:
                action = tickets[0]
            elif blind:
                action = blind[0]
            else:
                action = legal[0]
            r = c.post(
                f"/api/games/{gid}/actions", headers=auth(token), json={"action": action, "expected_seq": st["seq"], "seat": seat}
            )
            assert r.status_code == 200, r.text
            done += 1
        if done >= moves:
            return
    raise AssertionError("the people could not play")


def test_the_log_replays_each_seats_private_forms_to_that_seat_only(settings: Settings) -> None:
    with TestClient(create_app(dataclasses.replace(settings, limits_enabled=False))) as c:
        created = c.post(
            "/api/games",
            json={
                "edition": "europe",
                "players": 3,
                "seats": [{"type": "human"}, {"type": "human"}, {"type": "bot", "level": "easy"}],
            },
        ).json()
        gid = created["game_id"]
        tokens = {s["seat"]: s["token"] for s in created["seats"] if s.get("token")}
        assert set(tokens) == {0, 1}
        for seat, token in tokens.items():
            assert c.post(f"/api/games/{gid}/join", headers=auth(token), json={"name": f"P{seat}"}).status_code == 200
        play(c, gid, tokens, 24)
        # the bot may still be answering the last move: wait until a person is to act, so the logs stand still
        wait_for(lambda: any(c.get(f"/api/games/{gid}/state", headers=auth(tk)).json()["legal"] for tk in tokens.values()))

        public = c.get(f"/api/games/{gid}/log?since=0").json()["events"]
        logs: dict[int, list[dict[str, Any]]] = {
            s: c.get(f"/api/games/{gid}/log?since=0", headers=auth(tk)).json()["events"] for s, tk in tokens.items()
        }
        for seat, log in logs.items():
            assert [e["seq"] for e in log] == [e["seq"] for e in public]
            mine = 0
            for pub, ev in zip(public, log, strict=True):
                e, p = ev["event"], pub["event"]
                key = PRIVATE.get(e["type"])
                assert key is None or key not in p, f"public log: {p}"
                if e.get("player") == seat and key:
                    assert key in e, f"seat {seat} lost its own private form: {e}"
                    # the public form plus the secret (and the move, when its notation names the secret), nothing else
                    secret = {key} | ({"move"} if "move" not in p else set())
                    assert {k: v for k, v in e.items() if k not in secret} == p
                    mine += 1
                else:
                    assert e == p, f"seat {seat} was sent another seat's private form: {e}"
            problems: list[str] = []
            scan(log, frozenset({seat}), problems)
            assert problems == []
            blind = [ev["event"] for ev in log if ev["event"]["type"] == "draw_blind" and ev["event"]["player"] == seat]
            assert blind and all(isinstance(e["card"], str) for e in blind)
            assert mine >= 3
        # `since` keeps its meaning with a token
        since = public[-3]["seq"]
        tail = [e["seq"] for e in c.get(f"/api/games/{gid}/log?since={since}", headers=auth(tokens[0])).json()["events"]]
        assert tail[:2] == [e["seq"] for e in public[-2:]]  # the bot may have moved since: more may follow
        assert tail == list(range(since + 1, since + 1 + len(tail)))
        # a token of another game, or none of any, is refused (not quietly served the public log)
        other = c.post("/api/games", json={"edition": "usa", "players": 2, "seats": [{"type": "human"}, {"type": "bot"}]}).json()
        for bad in (other["seats"][0]["token"], "not-a-token"):
            r = c.get(f"/api/games/{gid}/log?since=0", headers=auth(bad))
            assert r.status_code == 401 and r.json()["error"]["code"] == "bad_token"
