"""`ttr score` on the record the server lets you download (issue 18: it failed with KeyError: 'rng')."""

from __future__ import annotations

import json

from serverkit import create, wait_for

from ttr.cli import main as ttr_main


def test_score_reads_the_servers_record_download(client, tmp_path, capsys) -> None:
    created = create(client, edition="usa", players=2, seats=[{"type": "bot", "level": "easy"}, {"type": "bot", "level": "easy"}])
    gid = created["game_id"]
    wait_for(lambda: client.get(f"/api/games/{gid}").json()["status"] == "finished")
    rec = client.get(f"/api/games/{gid}/record.json").json()
    path = tmp_path / f"ttr-{gid}.json"
    path.write_text(json.dumps(rec))
    assert ttr_main(["score", str(path), "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert [x["total"] for x in res["players"]] == rec["result"]["scores"] and res["winners"] == rec["result"]["winners"]
    assert ttr_main(["score", str(path)]) == 0
    assert "final position of the record" in capsys.readouterr().out
