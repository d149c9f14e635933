"""Undo never lets a person learn anything they could not know without it.

Whole games against bots (and one hot-seat game with a bot) on a real `ttr serve` process, the person
playing random legal actions and trying to undo at random moments: right after their own move (within
the undo window, before the bots answer), after a bot has answered, while the bots are moving, and in
the middle of their own turn. Checked for every attempt and every game:

* an undo that succeeds takes back only the person's own last action, one that revealed nothing (so no
  bot's cards go back into a hand the person has seen, no card or ticket seen is un-seen), and brings back
  exactly the view and legal actions the person had before that action;
* once another seat has moved after the person's action, undo is refused;
* in the database, every event ever flagged undone is the person's own and of a kind that shows nothing
  hidden; there are as many `undo` events as successful undos;
* every message the person's WebSocket and HTTP answers carried before the end passes the secrecy scan
  of test_secrecy (no other seat's hand, tickets or blind draws, no deck or random state).
"""

from __future__ import annotations

import json
import random
import sqlite3
import time
from typing import Any

import httpx
import pytest
from serverkit import ServerProcess, bearer, running
from test_secrecy import scan, seen_tickets
from websockets.sync.client import connect

from ttr.editions import get_edition

UNDO_WINDOW = 0.2
SERVER_EVENTS = {"undo", "player_joined", "game_started"}
MOVES = {
    "claim",
    "build_station",
    "draw_blind",
    "draw_faceup",
    "draw_tickets",
    "keep_tickets",
    "tunnel_pay",
    "tunnel_decline",
    "tunnel_reveal",
    "place_passenger",
    "move_passenger",
    "pass",
}
# events that show something hidden (or end the game): never taken back
REVEALING = {"draw_blind", "draw_faceup", "draw_tickets", "tunnel_reveal", "market_flush", "game_over", "final_round"}


class Person:
    """One token (every human seat of the game) with its WebSocket; keeps every message it receives."""

    def __init__(self, server: ServerProcess, http: httpx.Client, gid: str, token: str, controlled: frozenset[int]) -> None:
        self.http, self.gid, self.token, self.controlled = http, gid, token, controlled
        self.ws = connect(f"{server.ws_url}/ws/games/{gid}?token={token}&since=0", open_timeout=10)
        self.received: list[tuple[bool, Any]] = []  # (game over by then?, message)
        self.events: dict[int, dict[str, Any]] = {}  # every event seen, by seq (undone ones included)
        self.state: dict[str, Any] | None = None
        self.over = False
        self.stats = {"undone": 0, "refused": 0, "refused_after_bot": 0, "undone_after_others_chose": 0}

    def keep(self, msg: Any) -> None:
        if isinstance(msg, dict):
            for e in msg.get("events", ()):
                self.events[e["seq"]] = e["event"]
                if e["event"].get("type") == "game_over":
                    self.over = True
            st = msg.get("state", msg)
            if isinstance(st, dict) and (st.get("summary", {}).get("status") == "finished" or "result" in st.get("view", {})):
                self.over = True
        self.received.append((self.over, msg))

    def pump(self) -> None:
        while True:
            try:
                raw = self.ws.recv(timeout=0)
            except TimeoutError:
                return
            msg = json.loads(raw)
            assert msg["type"] == "update", msg
            self.keep(msg)
            self.state = msg["state"]

    def get_state(self, seat: int | None = None) -> dict[str, Any]:
        params = {"seat": seat} if seat is not None else {}
        st = self.http.get(f"/api/games/{self.gid}/state", headers=bearer(self.token), params=params).json()
        self.keep(st)
        return st

    def log(self, since: int = 0) -> list[dict[str, Any]]:
        return self.http.get(f"/api/games/{self.gid}/log", params={"since": since}).json()["events"]

    def last_mover(self) -> int | None:
        movers = [e["player"] for _, e in sorted(self.events.items()) if e.get("player") is not None and e.get("type") in MOVES]
        return movers[-1] if movers else None

    def undo(self, befores: list[dict[str, Any] | None], why: str) -> bool:
        """Try to undo; check what a success takes back and brings back. `befores`: the states before each of the
        person's actions since another seat last moved (a success pops the last). Returns whether it was undone."""
        self.pump()
        seen = dict(self.events)
        res = self.http.post(f"/api/games/{self.gid}/undo", headers=bearer(self.token))
        if res.status_code == 409:
            assert res.json()["error"]["code"] == "undo_unavailable", res.text
            self.stats["refused"] += 1
            mover = self.last_mover()
            if mover is not None and mover not in self.controlled:
                self.stats["refused_after_bot"] += 1
            return False
        assert res.status_code == 200, res.text
        self.stats["undone"] += 1
        since = max(0, max(seen, default=0) - 40)  # an undo takes back one action: a few events
        kept = {e["seq"] for e in self.log(since)}
        taken_back = {s: e for s, e in seen.items() if s > since and s not in kept and e.get("type") not in SERVER_EVENTS}
        for s, e in taken_back.items():
            # the person's own events, and what their action caused (e.g. `setup_done` after the last initial keep)
            assert e.get("player") in self.controlled or e.get("player") is None, (
                why,
                "an undo took back another seat's move",
                s,
                e,
            )
            assert e.get("type") not in REVEALING, (why, "an undo took back a move that showed something hidden", s, e)
        for s in taken_back:
            del self.events[s]
        assert taken_back, (why, "an undo that took nothing back")
        assert befores, (why, "an undo succeeded although another seat had moved since the person's last action")
        before = befores.pop()
        if before is None:  # setup: other seats chose between the state we acted on and our action
            return True
        back = self.get_state(before["seat"])
        if before["view"]["phase"] == "setup" and any(
            e["event"].get("player") not in self.controlled and e["event"].get("type") in MOVES for e in self.log(before["seq"])
        ):
            # setup choices are simultaneous: another seat chose its tickets since the state we acted on (after
            # the undo: nothing makes a bot wait then), so what the undo brings back exactly is our own part
            seat = before["seat"]
            self.stats["undone_after_others_chose"] += 1
            assert back["legal"] == before["legal"], (why, "undo did not return to the earlier legal actions")
            assert back["view"]["public"][seat] == before["view"]["public"][seat], (why, "undo did not restore our seat")
            assert own_part(back["view"]) == own_part(before["view"]), (why, "undo did not return to the earlier view")
            return True
        assert back["view"] == before["view"] and back["legal"] == before["legal"], (
            why,
            "undo did not return to the earlier view",
        )
        return True


def own_part(view: dict[str, Any]) -> dict[str, Any]:
    """A view without what the other seats' simultaneous setup choices change."""
    return {k: v for k, v in view.items() if k not in ("public", "to_act", "current")}


def choose(legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """A random legal action, leaning towards claims (which can be undone) and away from ticket draws (long games)."""
    claims = [a for a in legal if a["type"] in ("claim", "build_station", "move_passenger")]
    if claims and rng.random() < 0.8:
        return rng.choice(claims)
    calm = [a for a in legal if a["type"] != "draw_tickets"] or legal
    keeps = [a for a in calm if a["type"] == "keep_tickets"]
    if keeps:  # the fewest tickets: fewer failed tickets, a quicker game
        fewest = min(len(a.get("tickets") or ()) for a in keeps)
        return rng.choice([a for a in keeps if len(a.get("tickets") or ()) == fewest])
    return rng.choice(calm)


def play(server: ServerProcess, db: str, body: dict[str, Any], rng: random.Random) -> dict[str, int]:
    http = httpx.Client(base_url=server.url, timeout=20)
    created = http.post("/api/games", json=body).json()
    gid = created["game_id"]
    if body.get("hotseat"):
        controlled = frozenset(s["seat"] for s in created["seats"] if s["type"] == "human")
        token = created["hotseat_token"]
    else:
        (seat,) = [s for s in created["seats"] if s["type"] == "human"]
        controlled = frozenset({seat["seat"]})
        token = seat["token"]
        assert http.post(f"/api/games/{gid}/join", json={"name": "Me"}, headers=bearer(token)).status_code == 200
    me = Person(server, http, gid, token, controlled)
    t0 = time.monotonic()
    befores: list[dict[str, Any] | None] = []  # states before each of the person's actions since another seat moved
    acted_at = -1
    deadline = time.monotonic() + 240
    while not me.over:
        assert time.monotonic() < deadline, "the game did not finish"
        me.pump()
        if me.last_mover() not in controlled:
            befores.clear()
        st = me.state
        if not st or not st["legal"] or st["seq"] == acted_at:
            if rng.random() < 0.01 and me.undo(befores, "while waiting"):  # while the bots move: refused
                acted_at = -1
            time.sleep(0.002)
            continue
        if st["summary"]["status"] != "active":
            continue
        if rng.random() < 0.1 and me.undo(befores, "at the start of a turn"):  # someone else's move, or ours in this turn
            acted_at = -1
            continue
        acted_at = st["seq"]
        action = choose(st["legal"], rng)
        body = {"action": action, "seat": st["seat"], "expected_seq": st["seq"]}
        res = http.post(f"/api/games/{gid}/actions", json=body, headers=bearer(token))
        if res.status_code == 409 and res.json()["error"]["code"] == "state_changed":
            continue  # our WebSocket had not shown the latest change yet (an undo): act on the next update
        assert res.status_code == 200, res.text
        me.keep(res.json())
        # in setup the seats choose at once: if others chose after the state we acted on, it is not the one an
        # undo brings back (theirs stay), so there is nothing exact to compare with
        befores.append(st if res.json()["events"][0]["seq"] == st["seq"] + 1 else None)
        mine = res.json()["seq"]
        r = rng.random()
        if r < 0.5:  # at once: within the undo window, before any bot answers
            if me.undo(befores, "right after"):
                acted_at = -1
        elif r < 0.7:  # once the next seat has moved (or it is our turn again)
            until = time.monotonic() + 5
            while time.monotonic() < until and not me.over:
                me.pump()
                if me.last_mover() not in controlled or (me.state and me.state["seq"] >= mine and me.state["legal"]):
                    break
                time.sleep(0.005)
            if not me.over:
                if me.last_mover() not in controlled:
                    befores.clear()
                if me.undo(befores, "after the next move"):
                    acted_at = -1
    me.pump()
    me.ws.close()
    # what the database says was ever taken back
    with sqlite3.connect(db) as conn:
        undone_rows = conn.execute("SELECT player, type FROM events WHERE game_id = ? AND undone", (gid,)).fetchall()
        undos = conn.execute("SELECT count(*) FROM events WHERE game_id = ? AND type = 'undo'", (gid,)).fetchone()[0]
    assert undos == me.stats["undone"]
    for player, kind in undone_rows:
        assert (player in controlled or player is None) and kind not in REVEALING, (player, kind)
    # the secrecy scan over everything received before the end
    record = http.get(f"/api/games/{gid}/record").json()
    seen = seen_tickets(record)
    ed = get_edition(record["edition"])
    public_ids = {r.id for r in ed.routes} | set(ed.city_ids)
    mine = set().union(*(seen[p] for p in controlled))
    others = set().union(*(seen[p] for p in range(record["players"]) if p not in controlled))
    secret_ids = (others - mine) - public_ids
    assert secret_ids
    problems: list[str] = []
    for over, msg in me.received:
        if over:
            continue
        text = json.dumps(msg)
        problems += [f"ticket {t} in a message" for t in secret_ids if f'"{t}"' in text]
        scan(msg, controlled, problems)
    assert not problems, problems[:10]
    return {
        **me.stats,
        "undone_events": len(undone_rows),
        "actions": len(record["actions"]),
        "seconds": round(time.monotonic() - t0),
    }


@pytest.fixture(scope="module")
def server_db(tmp_path_factory):
    db = str(tmp_path_factory.mktemp("undo-secrecy") / "ttr.sqlite3")
    with running(ServerProcess(db, bot_delay=0.0, undo_window=UNDO_WINDOW, extra=["--bot-budget", "0.3"])) as (srv,):
        yield srv, db


GAMES = [
    {
        "edition": "usa",
        "players": 4,
        "seats": [
            {"type": "human"},
            {"type": "bot", "level": "medium"},
            {"type": "bot", "level": "hard"},
            {"type": "bot", "level": "easy"},
        ],
    },
    {
        "edition": "europe",
        "players": 3,
        "seats": [{"type": "bot", "level": "hard"}, {"type": "human"}, {"type": "bot", "level": "medium"}],
    },
    {
        "edition": "marklin",
        "players": 3,
        "seats": [{"type": "human"}, {"type": "bot", "level": "medium"}, {"type": "bot", "level": "hard"}],
    },
    {
        "edition": "europe",
        "players": 3,
        "hotseat": True,
        "seats": [{"type": "human"}, {"type": "bot", "level": "hard"}, {"type": "human"}],
    },
]


@pytest.mark.parametrize("body", GAMES, ids=["usa-4p", "europe-3p", "marklin-3p", "europe-hotseat"])
def test_whole_games_with_undo_attempts_reveal_nothing(server_db, body):
    server, db = server_db
    stats = play(server, db, body, random.Random(json.dumps(body, sort_keys=True)))
    assert stats["undone"] >= 3, stats  # the scan exercised both outcomes
    assert stats["refused_after_bot"] >= 3, stats
