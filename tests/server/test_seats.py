"""Invited seats stay reserved (issue 14, item 7): a stranger joining a public game from the lobby can take only
seats created open (``{"type": "human", "open": true}``); an invitation keeps working whoever tries."""

from __future__ import annotations

from serverkit import bearer, create


def test_a_stranger_cannot_take_an_invited_seat(client):
    """Public is the default: a stranger joining without a token used to take the friend's seat and void the link."""
    created = create(client, players=3, seats=[{"type": "human"}, {"type": "human"}, {"type": "bot"}])
    gid, invite = created["game_id"], created["seats"][1]["token"]
    for body in ({"name": "Stranger"}, {"name": "Stranger", "seat": 1}):
        res = client.post(f"/api/games/{gid}/join", json=body)
        assert res.status_code == 409 and res.json()["error"]["code"] == "seat_reserved", res.text
    # the invitation still works, and the game starts when the invited friends have joined
    client.post(f"/api/games/{gid}/join", json={"name": "Host"}, headers=bearer(created["seats"][0]["token"]))
    res = client.post(f"/api/games/{gid}/join", json={"name": "Friend"}, headers=bearer(invite))
    assert res.status_code == 200 and res.json() == {"seat": 1, "token": invite}
    summary = client.get(f"/api/games/{gid}").json()
    assert summary["status"] == "active" and [s.get("name") for s in summary["seats"][:2]] == ["Host", "Friend"]


def test_open_seats_are_taken_from_the_lobby_and_reserved_ones_are_shown(client):
    created = create(client, players=3, seats=[{"type": "human"}, {"type": "human", "open": True}, {"type": "human"}])
    gid = created["game_id"]
    assert created["seats"][1] == {"seat": 1, "type": "human", "open": True}
    assert "token" in created["seats"][2]
    lobby = next(g for g in client.get("/api/games", params={"status": "open"}).json() if g["game_id"] == gid)
    assert [s.get("open") for s in lobby["seats"]] == [False, True, False]  # what the lobby shows: open or reserved
    res = client.post(f"/api/games/{gid}/join", json={"name": "Stranger"})
    assert res.status_code == 200 and res.json()["seat"] == 1
    stranger = res.json()["token"]
    assert client.get(f"/api/games/{gid}/state", headers=bearer(stranger)).json()["seat"] == 1
    # the one open seat is taken; the others are reserved
    res = client.post(f"/api/games/{gid}/join", json={"name": "Late"})
    assert res.status_code == 409 and res.json()["error"]["code"] == "seat_reserved"
    res = client.post(f"/api/games/{gid}/join", json={"name": "Late", "seat": 1})
    assert res.status_code == 409 and res.json()["error"]["code"] == "seat_taken"
    after = client.get(f"/api/games/{gid}").json()["seats"]
    assert after[1] == {"seat": 1, "type": "human", "joined": True, "name": "Stranger"}


def test_open_seats_are_refused_where_they_make_no_sense(client):
    res = client.post("/api/games", json={"hotseat": True, "seats": [{"type": "human"}, {"type": "human", "open": True}]})
    assert res.status_code == 422 and res.json()["error"]["code"] == "bad_seats"
    res = client.post("/api/games", json={"seats": [{"type": "human"}, {"type": "bot", "open": True}]})
    assert res.status_code == 422
