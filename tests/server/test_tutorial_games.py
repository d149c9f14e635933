"""The first-game tutorial (POST /api/games with "tutorial": true; docs/api.md, docs/client.md Tutorial)."""

from __future__ import annotations

from typing import Any

import pytest
from serverkit import bearer, wait_for

from ttr.editions import get_edition
from ttr.engine import Game
from ttr.server.service import TUTORIAL_SEEDS


def start_tutorial(client: Any, edition: str) -> tuple[str, str]:
    res = client.post("/api/games", json={"edition": edition, "tutorial": True})
    assert res.status_code == 201, res.text
    created = res.json()
    assert [s["type"] for s in created["seats"]] == ["human", "bot"]
    assert created["seats"][1]["level"] == "easy"
    token = created["seats"][0]["token"]
    assert client.post(f"/api/games/{created['game_id']}/join", json={"name": "Ana"}, headers=bearer(token)).status_code == 200
    return created["game_id"], token


def my_state(client: Any, gid: str, token: str) -> dict[str, Any]:
    return client.get(f"/api/games/{gid}/state", headers=bearer(token)).json()


@pytest.mark.parametrize("edition", ["usa", "europe"])
def test_a_tutorial_deals_the_same_game_every_time_privately_and_unrated(client, edition):
    first, second = start_tutorial(client, edition), start_tutorial(client, edition)
    views = [my_state(client, gid, tok)["view"] for gid, tok in (first, second)]
    for part in ("hand", "market", "offered"):
        assert views[0][part] == views[1][part]
    summary = client.get(f"/api/games/{first[0]}").json()
    assert summary["public"] is False and summary["rated"] is False
    listed = {g["game_id"] for s in ("open", "active") for g in client.get(f"/api/games?status={s}").json()}
    assert first[0] not in listed and second[0] not in listed
    # the easy bot (seeded from the game's seed) chooses the same tickets in both games, after our choice
    for gid, tok in (first, second):
        st = my_state(client, gid, tok)
        keep = next(a for a in st["legal"] if a["type"] == "keep_tickets")
        assert client.post(f"/api/games/{gid}/actions", headers=bearer(tok), json={"action": keep}).status_code == 200
    after = [
        wait_for(lambda g=gid, k=tok: (s := my_state(client, g, k))["view"]["phase"] == "turn" and s)  # ours
        for gid, tok in (first, second)
    ]
    assert [s["view"]["current"] for s in after] == [0, 0]  # the player moves first: the guide goes on at once
    assert after[0]["view"]["public"] == after[1]["view"]["public"]
    assert after[0]["view"]["tickets"] == after[1]["view"]["tickets"]
    dealt = Game(get_edition(edition), 2, TUTORIAL_SEEDS[edition]).view(0).to_dict()  # the deal is the fixed seed's
    assert views[0]["hand"] == dealt["hand"] and views[0]["market"] == dealt["market"]


@pytest.mark.parametrize(
    "extra, word",
    [
        ({"seats": [{"type": "human"}, {"type": "bot", "level": "max"}]}, "seats"),
        ({"players": 3}, "players"),
        ({"hotseat": True}, "hotseat"),
        ({"options": {"trains": 20}}, "options"),
        ({"clock": {"kind": "realtime", "seconds": 60}}, "clock"),
    ],
)
def test_a_tutorial_refuses_what_it_sets_itself(client, extra, word):
    before = client.get("/api/games?status=active").json()
    res = client.post("/api/games", json={"edition": "usa", "tutorial": True, **extra})
    assert res.status_code == 422, res.text
    body = res.json()
    assert body["error"]["code"] == "bad_tutorial" if "error" in body else body["code"] == "bad_tutorial"
    assert word in res.text
    assert client.get("/api/games?status=active").json() == before


def test_a_tutorial_is_played_on_a_built_in_edition(client):
    res = client.post("/api/games", json={"edition": "map-0123456789abcdef", "tutorial": True})
    assert res.status_code == 422 and "bad_tutorial" in res.text
    assert client.post("/api/games", json={"edition": "usa", "tutorial": "yes"}).status_code == 422


@pytest.mark.parametrize("edition", ["usa", "europe", "nordic", "marklin"])
def test_every_tutorial_seed_lets_the_player_move_first(edition):
    assert Game(get_edition(edition), 2, TUTORIAL_SEEDS[edition]).first_player == 0
