"""ttr serve --maps DIR: custom maps in the lobby, played with bots to the end, undone, stored with the game and
replayed from the record after the folder changed (server, `ttr replay`, `ttr score`)."""

from __future__ import annotations

import json
import logging
import random
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from serverkit import bearer, create, join_all, play_random, wait_for

from ttr.custom_maps import map_key
from ttr.editions import BUILTIN, get_edition
from ttr.engine import Game
from ttr.server import Settings, create_app
from ttr.server.maps import custom_edition


def short_usa() -> dict:
    """USA with 12 trains each: a short game on a map that is not built in."""
    raw = json.loads(json.dumps(get_edition("usa").raw))
    raw["id"] = "usa-short"
    raw["name"] = "Short USA"
    raw["rules"]["trains"] = 12
    return raw


@pytest.fixture
def maps_dir(tmp_path: Path) -> Path:
    d = tmp_path / "maps"
    d.mkdir()
    (d / "short.json").write_text(json.dumps(short_usa()), encoding="utf-8")
    bad = short_usa()
    bad["id"] = "broken"
    bad["routes"][0]["b"] = "omha"
    (d / "broken.json").write_text(json.dumps(bad), encoding="utf-8")
    (d / "junk.json").write_text("{not json", encoding="utf-8")
    clash = short_usa()
    clash["id"] = "usa"
    clash["rules"]["trains"] = 13
    (d / "clash.json").write_text(json.dumps(clash), encoding="utf-8")
    (d / "notes.txt").write_text("not a map", encoding="utf-8")
    return d


def test_custom_map_lobby_play_undo_record_replay(
    tmp_path: Path, maps_dir: Path, settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    key = map_key(short_usa())
    s = Settings(
        **{**settings.__dict__, "maps_dir": str(maps_dir), "limits_enabled": False, "undo_window": 3.0}
    )  # bots let the undo come first
    with caplog.at_level(logging.WARNING, logger="ttr.server.maps"), TestClient(create_app(s)) as client:
        # invalid files are logged with their error and left out; the server runs
        skipped = "\n".join(r.getMessage() for r in caplog.records)
        assert "unknown city 'omha'" in skipped
        assert "junk.json: not valid JSON" in skipped
        assert "'usa' is a built-in edition's id" in skipped
        eds = client.get("/api/editions").json()
        assert [e["id"] for e in eds] == [*BUILTIN, key]
        assert eds[-1]["name"] == "Short USA" and eds[-1]["options"]["trains"] == 12
        board = client.get(f"/api/editions/{key}/map").json()
        assert len(board["routes"]) == len(short_usa()["routes"])
        assert client.get("/api/editions/map-0000000000000000/map").status_code == 404
        res = client.post("/api/games", json={"edition": "map-0000000000000000", "players": 2})
        assert res.status_code == 400 and res.json()["error"]["code"] == "unknown_edition"

        created = create(
            client,
            edition=key,
            seats=[{"type": "human", "name": "Ada"}, {"type": "bot", "level": "easy"}, {"type": "bot", "level": "medium"}],
        )
        gid = created["game_id"]
        tokens = join_all(client, created)
        st = client.get(f"/api/games/{gid}/state", headers=bearer(tokens[0])).json()
        assert st["summary"]["edition"] == key and st["summary"]["edition_name"] == "Short USA"
        assert [p["trains"] for p in st["view"]["public"]] == [12, 12, 12]
        assert client.get(f"/api/games/{gid}/map").json() == board

        # undo a move of the person playing against bots
        rng = random.Random(18)

        def my_state() -> dict:
            return wait_for(lambda: (x := client.get(f"/api/games/{gid}/state", headers=bearer(tokens[0])).json())["legal"] and x)

        # setup: the bots choose their tickets at the same time; once they have, keep ours and take it back
        st = wait_for(lambda: (x := my_state()) and x["view"]["to_act"] == [0] and x)
        before = st["view"]
        action = rng.choice(st["legal"])
        res = client.post(f"/api/games/{gid}/actions", headers=bearer(tokens[0]), json={"seat": 0, "action": action})
        assert res.status_code == 200, res.text
        res = client.post(f"/api/games/{gid}/undo", headers=bearer(tokens[0]), json={"seat": 0})
        assert res.status_code == 200, res.text
        after = client.get(f"/api/games/{gid}/state", headers=bearer(tokens[0])).json()["view"]
        assert after["hand"] == before["hand"] and after["tickets"] == before["tickets"]

        play_random(client, gid, tokens, rng)
        record = client.get(f"/api/games/{gid}/record").json()
        assert client.get(f"/api/games/{gid}/replay", params={"step": 5}).status_code == 200

    assert record["edition"] == "usa-short" and record["map"] == short_usa()
    assert record["result"]["scores"]
    replayed = Game.replay(record, custom_edition(record["map"]))
    assert replayed.is_over and replayed.rules.trains == 12
    assert [x["total"] for x in replayed.result()["players"]] == record["result"]["scores"]

    # the folder changes: the game still loads, shows its map and replays, from the map stored with it
    for f in maps_dir.iterdir():
        f.unlink()
    s2 = Settings(**{**s.__dict__, "maps_dir": None})
    with TestClient(create_app(s2)) as client:
        assert [e["id"] for e in client.get("/api/editions").json()] == list(BUILTIN)
        assert client.get(f"/api/games/{gid}/map").json() == board
        assert client.get(f"/api/games/{gid}/record").json() == record
        step = client.get(f"/api/games/{gid}/replay", params={"step": len(record["actions"])})
        assert step.status_code == 200, step.text
        res = client.post("/api/games", json={"edition": key, "players": 2})
        assert res.status_code == 400 and res.json()["error"]["code"] == "unknown_edition"

    # a downloaded record replays and scores on any machine: it carries its map
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "ttr", "replay", str(path)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "1 record(s) replayed and checked, 0 failed" in out.stdout
    out = subprocess.run([sys.executable, "-m", "ttr", "score", str(path)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "Short USA" in out.stdout
    # a record whose map was tampered with fails with the reason, not a traceback
    bad = {**record, "map": {**record["map"], "routes": record["map"]["routes"][:-1]}}
    del bad["map"]["rules"]
    path.write_text(json.dumps(bad), encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "ttr", "replay", str(path)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 1 and "record map" in out.stderr and "Traceback" not in out.stderr


def test_missing_maps_folder_does_not_stop_the_server(
    tmp_path: Path, settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    s = Settings(**{**settings.__dict__, "maps_dir": str(tmp_path / "nowhere")})
    with caplog.at_level(logging.ERROR, logger="ttr.server.maps"), TestClient(create_app(s)) as client:
        assert [e["id"] for e in client.get("/api/editions").json()] == list(BUILTIN)
    assert "not a folder" in caplog.text


@pytest.fixture
def open_client(settings: Settings):
    with TestClient(create_app(Settings(**{**settings.__dict__, "limits_enabled": False}))) as c:
        yield c


def test_uploaded_map_is_checked_previewed_and_played_by_bots(open_client: TestClient) -> None:
    client, raw = open_client, short_usa()
    res = client.post("/api/maps", json=raw)
    assert res.status_code == 200, res.text
    preview = res.json()
    assert preview["id"] == map_key(raw) and preview["edition"]["name"] == "Short USA"
    assert len(preview["map"]["cities"]) == len(raw["cities"]) and preview["map"]["rules"]["trains"] == 12
    bots = [{"type": "bot", "level": "easy"}, {"type": "bot", "level": "medium"}]
    gid = create(client, map=raw, seats=bots)["game_id"]
    summary = wait_for(lambda: (s := client.get(f"/api/games/{gid}").json())["status"] == "finished" and s)
    assert summary["edition"] == preview["id"] and summary["edition_name"] == "Short USA"
    assert client.get(f"/api/games/{gid}/map").json() == preview["map"]
    record = client.get(f"/api/games/{gid}/record").json()
    assert record["map"] == raw
    assert Game.replay(record, custom_edition(record["map"])).result()["winners"] == record["result"]["winners"]
    # the uploaded map is stored with its game, not offered in the lobby
    assert preview["id"] not in [e["id"] for e in client.get("/api/editions").json()]


def _refusal(res) -> str:
    assert res.status_code == 422, res.text
    err = res.json()["error"]
    assert err["code"] == "bad_map", err
    assert "/" not in err["message"].replace("3-for-1", ""), err  # never a path on the server
    return err["message"]


def test_hostile_uploads_are_refused_with_the_reason(open_client: TestClient) -> None:
    client = open_client
    raw = short_usa()
    raw["routes"][0]["b"] = "omha"
    assert _refusal(client.post("/api/maps", json=raw)) == "uploaded map: routes[0] ('atlanta-charleston'): unknown city 'omha'"
    assert "unknown city 'omha'" in _refusal(client.post("/api/games", json={"map": raw, "players": 2}))
    assert "expected a JSON object" in _refusal(client.post("/api/maps", json=[1, 2]))
    assert "expected a JSON object" in _refusal(client.post("/api/maps", json="usa"))
    huge = short_usa()
    huge["rules"]["trains"] = 10**30
    assert "rules.trains" in _refusal(client.post("/api/maps", json=huge))
    many = short_usa()
    many["deck"]["red"] = 10**6
    assert "red" in _refusal(client.post("/api/maps", json=many))
    clash = short_usa()
    clash["id"] = "europe"
    assert "built-in edition's id" in _refusal(client.post("/api/maps", json=clash))
    assert "format" in _refusal(client.post("/api/maps", json={**short_usa(), "format": 2}))
    # over the body limit: 413 before anything is parsed
    big = short_usa()
    big["notes"] = ["x" * 70_000]
    res = client.post("/api/maps", json=big)
    assert res.status_code == 413 and res.json()["error"]["code"] == "too_large"
    # deeply nested or broken JSON: a 4xx with a reason, never a server error
    for body in (b"[" * 20_000 + b"]" * 20_000, b"{not json", b"\xff\xfe"):
        res = client.post("/api/maps", content=body, headers={"Content-Type": "application/json"})
        assert 400 <= res.status_code < 500, (body[:10], res.status_code, res.text)
    assert client.get("/api/games").json() == []  # a refused map created no game


def test_map_file_of_builtin_and_folder_maps_for_the_editor(maps_dir: Path, settings: Settings) -> None:
    key = map_key(short_usa())
    s = Settings(
        **{**settings.__dict__, "maps_dir": str(maps_dir), "limits_enabled": False, "undo_window": 3.0}
    )  # bots let the undo come first
    with TestClient(create_app(s)) as client:
        usa = client.get("/api/editions/usa/file")
        assert usa.status_code == 200 and usa.json() == get_edition("usa").raw
        assert client.get(f"/api/editions/{key}/file").json() == short_usa()
        missing = client.get("/api/editions/nowhere/file")
        assert missing.status_code == 404 and missing.json()["error"]["code"] == "unknown_edition"
        # the raw file round-trips through the check the editor calls on every edit
        refused = client.post("/api/maps", json=usa.json())  # a built-in id: the editor renames the copy
        assert refused.status_code == 422 and "built-in edition's id" in refused.json()["error"]["message"]
        assert client.post("/api/maps", json={**usa.json(), "id": "usa-edited"}).status_code == 200
        schema = client.get("/api/rule-options").json()
        assert schema["properties"]["trains"] == {"type": "integer", "minimum": 1, "maximum": 100}
