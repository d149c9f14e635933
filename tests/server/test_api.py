"""The HTTP API: editions, creating/listing/joining games, state, actions, log, records, and clear 4xx errors."""

from __future__ import annotations

import json
import logging
import random
import threading

import pytest
from serverkit import bearer, create, join_all, play_random, wait_for

from ttr.cli import main as ttr_main
from ttr.engine import Game


def test_editions_and_maps(client):
    eds = client.get("/api/editions").json()
    assert {e["id"] for e in eds} == {"usa", "europe", "nordic", "marklin"}
    usa = next(e for e in eds if e["id"] == "usa")
    assert usa["players"] == [2, 5] and usa["options"]["trains"] == 45
    m = client.get("/api/editions/europe/map").json()
    assert any(r["tunnel"] for r in m["routes"]) and any(c["id"] == "paris" for c in m["cities"])
    assert {"id", "a", "b", "points", "deck"} <= set(m["tickets"][0])
    assert client.get("/api/editions/marklin/map").json()["merchandise"]
    assert client.get("/api/editions/atlantis/map").json()["error"]["code"] == "unknown_edition"


def test_create_join_play_and_watch(client):
    created = create(
        client, edition="usa", players=2, seats=[{"type": "human"}, {"type": "bot", "level": "easy"}], name="Friday game"
    )
    gid = created["game_id"]
    token = created["seats"][0]["token"]
    assert len(token) >= 22 and created["seats"][0]["join_url"] == f"/play/{gid}?token={token}"
    assert "token" not in created["seats"][1]
    summary = client.get(f"/api/games/{gid}").json()
    assert summary["status"] == "open" and summary["seq"] == 0 and summary["name"] == "Friday game"
    assert [g["game_id"] for g in client.get("/api/games", params={"status": "open"}).json()] == [gid]
    # nothing moves until the human seat is taken
    assert (
        client.post(f"/api/games/{gid}/actions", headers=bearer(token), json={"action": {"type": "draw_blind"}}).json()["error"][
            "code"
        ]
        == "not_started"
    )
    res = client.post(f"/api/games/{gid}/join", json={"name": "  Ana\u0007 "}, headers=bearer(token))
    assert res.json() == {"seat": 0, "token": token}
    # the bot chooses its tickets at the same time: wait until only the person is still choosing
    state = wait_for(
        lambda: (
            (s := client.get(f"/api/games/{gid}/state", headers=bearer(token)).json())["legal"]
            and s["view"]["to_act"] == [0]
            and s
        )
    )
    assert state["seat"] == 0 and state["seats_controlled"] == [0] and state["summary"]["status"] == "active"
    assert state["summary"]["seats"][0]["name"] == "Ana"
    assert state["view"]["me"] == 0 and "hand" in state["view"] and state["view"]["offered"]
    assert all(a["type"] == "keep_tickets" for a in state["legal"])
    spect = client.get(f"/api/games/{gid}/spectate").json()
    assert "hand" not in spect["view"] and spect["seq"] == state["seq"]
    action = state["legal"][0]
    res = client.post(f"/api/games/{gid}/actions", headers=bearer(token), json={"action": action, "expected_seq": state["seq"]})
    assert res.status_code == 200, res.text
    body = res.json()
    assert body["seq"] > state["seq"]
    kept = [e["event"] for e in body["events"] if e["event"]["type"] == "keep_tickets"]
    assert kept and kept[0]["tickets"] == action["tickets"]  # my own secret comes back to me
    log = client.get(f"/api/games/{gid}/log").json()["events"]
    assert [e["seq"] for e in log] == list(range(1, len(log) + 1))
    public_keep = next(e["event"] for e in log if e["event"]["type"] == "keep_tickets" and e["event"]["player"] == 0)
    assert "tickets" not in public_keep and public_keep["kept"] == len(action["tickets"])
    # each action's first event carries the move in the notation; kept tickets only in the player's own form
    assert kept[0]["move"] == "keep " + ",".join(action["tickets"]) and "move" not in public_keep
    moves = [e["event"]["move"] for e in log if "move" in e["event"]]
    assert all(m.split()[0] in {"blind", "draw", "tickets", "claim", "pass", "station", "place"} for m in moves)
    mid = log[len(log) // 2]["seq"]
    later = client.get(f"/api/games/{gid}/log", params={"since": mid}).json()["events"]  # the bot may have moved since
    assert [e["seq"] for e in later] == list(range(mid + 1, mid + 1 + len(later))) and later[0] == log[mid]
    assert client.get(f"/api/games/{gid}/record").json()["error"]["code"] == "not_finished"


def test_whole_game_record_replays_with_ttr_replay(client, tmp_path):
    seats = [{"type": "human"}, {"type": "bot"}, {"type": "bot", "level": "hard"}]
    created = create(client, edition="usa", players=3, seats=seats)
    gid = created["game_id"]
    tokens = join_all(client, created, ["Ana", "b", "c"])
    played = play_random(client, gid, tokens, random.Random(1))
    assert played > 10
    rec_res = client.get(f"/api/games/{gid}/record.json")
    assert rec_res.status_code == 200 and "attachment" in rec_res.headers["content-disposition"]
    rec = rec_res.json()
    assert rec["names"][0] == "Ana" and rec["result"]["winners"]
    assert Game.replay(rec).is_over
    path = tmp_path / "game.json"
    path.write_text(json.dumps(rec))
    assert ttr_main(["replay", str(path)]) == 0
    assert client.get(f"/api/games/{gid}/record").json() == rec
    # the replay viewer's steps: public views rebuilt from the record, ending on the final position
    steps = len(rec["actions"])
    start = client.get(f"/api/games/{gid}/replay", params={"step": 0}).json()
    end = client.get(f"/api/games/{gid}/replay", params={"step": steps}).json()
    assert start["steps"] == steps and start["actor"] is None and start["view"]["turn"] == 0
    assert end["view"] == client.get(f"/api/games/{gid}/spectate").json()["view"] and end["action"] == rec["actions"][-1]
    assert client.get(f"/api/games/{gid}/replay", params={"step": steps + 1}).json()["error"]["code"] == "bad_step"
    assert client.get(f"/api/games/{gid}").json()["status"] == "finished"
    assert [g["game_id"] for g in client.get("/api/games", params={"status": "finished"}).json()] == [gid]


def test_public_join_of_open_seat_and_private_games(client):
    created = create(client, players=2, seats=[{"type": "human"}, {"type": "human", "open": True}])
    gid = created["game_id"]
    assert created["seats"][1] == {"seat": 1, "type": "human", "open": True}  # no invitation: anyone may take it
    res = client.post(f"/api/games/{gid}/join", json={"name": "Stranger", "seat": 1})
    assert res.status_code == 200 and res.json()["seat"] == 1
    fresh = res.json()["token"]
    assert client.get(f"/api/games/{gid}/state", headers=bearer(fresh)).json()["seat"] == 1
    assert client.post(f"/api/games/{gid}/join", json={"name": "Late", "seat": 1}).json()["error"]["code"] == "seat_taken"
    client.post(f"/api/games/{gid}/join", json={"name": "Host"}, headers=bearer(created["seats"][0]["token"]))
    assert client.post(f"/api/games/{gid}/join", json={"name": "Late"}).json()["error"]["code"] == "game_full"
    private = create(client, players=2, seats=[{"type": "human"}, {"type": "human"}], public=False)
    res = client.post(f"/api/games/{private['game_id']}/join", json={"name": "Stranger"})
    assert res.status_code == 403 and res.json()["error"]["code"] == "private_game"
    assert private["game_id"] not in [g["game_id"] for g in client.get("/api/games").json()]


def test_hotseat_token_controls_every_human_seat(client):
    created = create(
        client,
        edition="europe",
        players=3,
        hotseat=True,
        seats=[{"type": "human", "name": "Ana"}, {"type": "human", "name": "Bo"}, {"type": "bot"}],
    )
    gid, token = created["game_id"], created["hotseat_token"]
    assert all(s.get("token") is None for s in created["seats"])
    st = client.get(f"/api/games/{gid}/state", headers=bearer(token)).json()
    assert st["seats_controlled"] == [0, 1] and st["summary"]["status"] == "active"
    res = client.get(f"/api/games/{gid}/state", params={"seat": 2}, headers=bearer(token))
    assert res.json()["error"]["code"] == "not_your_seat"
    # act for both seats with one token until the bot has moved at least once
    rng = random.Random(3)
    for _ in range(12):
        st = wait_for(lambda: (s := client.get(f"/api/games/{gid}/state", headers=bearer(token)).json())["legal"] and s)
        assert st["seat"] in (0, 1) and st["view"]["me"] == st["seat"]
        res = client.post(
            f"/api/games/{gid}/actions",
            headers=bearer(token),
            json={"seat": st["seat"], "action": rng.choice(st["legal"]), "expected_seq": st["seq"]},
        )
        assert res.status_code == 200, res.text
    log = client.get(f"/api/games/{gid}/log").json()["events"]
    assert {e["event"]["player"] for e in log if e["event"]["type"] == "keep_tickets"} == {0, 1, 2}


ERROR_CASES = [
    ("post", "/api/games", {"content": b"{not json", "headers": {"content-type": "application/json"}}, 400, "malformed_json"),
    ("post", "/api/games", {"json": {"players": 2, "colour": "red"}}, 422, "invalid_request"),
    ("post", "/api/games", {"json": {"edition": "../../etc/passwd.json"}}, 400, "unknown_edition"),
    ("post", "/api/games", {"json": {"edition": "usa", "players": 9}}, 422, "invalid_request"),
    ("post", "/api/games", {"json": {"edition": "usa", "players": 1}}, 422, "player_count"),
    ("post", "/api/games", {"json": {"options": {"no_such_rule": 1}}}, 422, "bad_options"),
    (
        "post",
        "/api/games",
        {"json": {"players": 2, "seats": [{"type": "bot", "level": "godlike"}, {"type": "human"}]}},
        422,
        "bad_level",
    ),
    ("post", "/api/games", {"content": b"[" * 70_000, "headers": {"content-type": "application/json"}}, 413, "too_large"),
    ("get", "/api/games/nosuchgame", {}, 404, "unknown_game"),
    ("get", "/api/games/nosuchgame/state", {}, 404, "unknown_game"),
    ("get", "/api/games/nosuchgame/log", {}, 404, "unknown_game"),
    ("post", "/api/games/nosuchgame/actions", {"json": {"action": {"type": "pass"}}}, 404, "unknown_game"),
    ("get", "/api/games", {"params": {"status": "sideways"}}, 422, "invalid_request"),
    ("get", "/api/nothing/here", {}, 404, "not_found"),
]


@pytest.mark.parametrize(("method", "path", "kwargs", "status", "code"), ERROR_CASES)
def test_bad_requests_get_clear_4xx(client, caplog, method, path, kwargs, status, code):
    caplog.set_level(logging.WARNING)
    before = client.get("/api/games").json()
    res = getattr(client, method)(path, **kwargs)
    assert res.status_code == status, res.text
    err = res.json()["error"]
    assert err["code"] == code and err["message"]
    assert client.get("/api/games").json() == before  # nothing created or changed
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_game_errors_change_nothing(client, caplog):
    caplog.set_level(logging.WARNING)
    created = create(client, players=2, seats=[{"type": "human"}, {"type": "human"}])
    gid = created["game_id"]
    tokens = join_all(client, created)
    st = client.get(f"/api/games/{gid}/spectate").json()
    current = st["view"]["current"]
    mover, other = tokens[current], tokens[1 - current]
    seq = st["seq"]

    def post(token, body, **kw):
        return client.post(f"/api/games/{gid}/actions", headers=bearer(token) if token else {}, json=body, **kw)

    bad = [
        (post(other, {"action": {"type": "keep_tickets", "tickets": []}}), 422, "keep_too_few"),  # both choose at once
        (post(mover, {"action": {"type": "draw_blind"}}), 422, "wrong_phase"),
        (post(mover, {"action": {"type": "keep_tickets", "tickets": ["nowhere-nothing"]}}), 422, "unknown_ticket"),
        (post(mover, {"action": {"type": "fly"}}), 400, "malformed"),
        (post(mover, {"action": {"type": "draw_blind", "extra": 1}}), 400, "malformed"),
        (post(mover, {"action": {"type": "draw_blind"}, "cheat": True}), 422, "invalid_request"),
        (post(mover, {"action": {"type": "draw_blind"}, "expected_seq": seq + 5}), 409, "state_changed"),
        (post(mover, {"action": {"type": "draw_blind"}, "seat": 1 - current}), 403, "not_your_seat"),
        (post(None, {"action": {"type": "draw_blind"}}), 401, "token_required"),
        (post("x" * 40, {"action": {"type": "draw_blind"}}), 401, "bad_token"),
        (client.post(f"/api/games/{gid}/actions", headers={"Authorization": "Basic abc"}, json={"action": {}}), 401, "bad_token"),
        (client.post(f"/api/games/{gid}/join", json={"name": "\u0000\u200b "}, headers=bearer(mover)), 422, "bad_name"),
        (client.post(f"/api/games/{gid}/join", json={"name": "x" * 33}, headers=bearer(mover)), 422, "bad_name"),
        (client.post(f"/api/games/{gid}/undo", headers=bearer(mover)), 409, "undo_unavailable"),
    ]
    for res, status, code in bad:
        assert (res.status_code, res.json()["error"]["code"]) == (status, code), res.text
    after = client.get(f"/api/games/{gid}/spectate").json()
    assert after["seq"] == seq and after["view"] == st["view"]
    other_game = create(client, players=2)
    assert client.get(f"/api/games/{other_game['game_id']}/state", headers=bearer(mover)).status_code == 401
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_names_are_text(client):
    created = create(client, players=2, seats=[{"type": "human"}, {"type": "human"}])
    gid = created["game_id"]
    name = "<script>alert(1)</script>\n\tRobert'); DROP TABLE games;--"
    res = client.post(f"/api/games/{gid}/join", json={"name": name[:32]}, headers=bearer(created["seats"][0]["token"]))
    assert res.status_code == 200
    stored = client.get(f"/api/games/{gid}").json()["seats"][0]["name"]
    assert stored == "<script>alert(1)</script> Rober"  # control characters gone, kept verbatim as text
    assert client.get("/api/games").status_code == 200  # and the table is still there


def test_simultaneous_actions_one_wins(client):
    created = create(client, players=2, seats=[{"type": "human"}, {"type": "human"}])
    gid = created["game_id"]
    tokens = join_all(client, created)
    st = client.get(f"/api/games/{gid}/spectate").json()
    token = tokens[st["view"]["current"]]
    legal = client.get(f"/api/games/{gid}/state", headers=bearer(token)).json()["legal"]
    barrier = threading.Barrier(4)
    results = []

    def go(action):
        barrier.wait()
        r = client.post(f"/api/games/{gid}/actions", headers=bearer(token), json={"action": action, "expected_seq": st["seq"]})
        results.append((r.status_code, r.json()))

    threads = [threading.Thread(target=go, args=(legal[i % len(legal)],)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(code for code, _ in results) == [200, 409, 409, 409]
    assert all(body["error"]["code"] == "state_changed" for code, body in results if code == 409)
    actions_kept = [e for e in client.get(f"/api/games/{gid}/log").json()["events"] if e["event"]["type"] == "keep_tickets"]
    assert len(actions_kept) == 1


def test_static_pages_and_openapi(client):
    assert client.get("/").headers["content-type"].startswith("text/html")
    assert client.get("/play/abc").headers["content-type"].startswith("text/html")
    assert client.get("/replay/abc").headers["content-type"].startswith("text/html")
    spec = client.get("/openapi.json").json()
    assert "/api/games/{game_id}/actions" in spec["paths"]
    assert client.get("/docs").status_code == 200


def test_oversized_body_without_length_is_refused(client, caplog):
    caplog.set_level(logging.WARNING)

    def chunks():
        for _ in range(20):
            yield b" " * 4096

    res = client.post("/api/games", content=chunks(), headers={"content-type": "application/json"})
    assert res.status_code == 413 and res.json()["error"]["code"] == "too_large"
    assert client.get("/api/games").json() == []
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_state_serves_the_engines_claim_problems_and_ticket_report(client):
    """The client words these; it does not re-implement them (engine-v2 issue, "rules served")."""
    created = create(client, edition="usa", players=2, seats=[{"type": "human"}, {"type": "bot", "level": "easy"}])
    gid, token = created["game_id"], created["seats"][0]["token"]
    client.post(f"/api/games/{gid}/join", json={"name": "Ana"}, headers=bearer(token))
    state = wait_for(lambda: (s := client.get(f"/api/games/{gid}/state", headers=bearer(token)).json())["legal"] and s)
    client.post(f"/api/games/{gid}/actions", headers=bearer(token), json={"action": state["legal"][0]})
    state = wait_for(lambda: (s := client.get(f"/api/games/{gid}/state", headers=bearer(token)).json())["legal"] and s)
    claimable = {a["route"] for a in state["legal"] if a["type"] == "claim"}
    problems = state["claim_problems"]
    routes = {r["id"] for r in client.get("/api/editions/usa/map").json()["routes"]}
    assert routes - set(problems) == claimable
    assert set(problems.values()) <= {"claimed", "own_lane", "lane_closed", "trains", "cards"}  # a code per route
    report = state["ticket_report"]
    assert [t["id"] for t in report] == [t["id"] for t in state["view"]["tickets"]]
    assert all(t["status"] in {"done", "station", "open"} for t in report)
    spect = client.get(f"/api/games/{gid}/spectate").json()
    assert "claim_problems" not in spect and "ticket_report" not in spect
