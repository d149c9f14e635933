"""The bot calibration ladder (ttr.sim.calibrate, `ttr calibrate`): its schedule, the ranking of a record, the
rating anchored on medium in the server's own model, the CLI, and the shipped file the lobby shows."""

from __future__ import annotations

import json

import pytest

from ttr.cli import main
from ttr.server.ratings import MODEL
from ttr.sim.calibrate import SHIPPED, interleaved, ladder_schedule, load_shipped, ranks_of, rate_records


def test_schedule_every_pair_rotated_and_the_reduced_slow_part():
    specs = ladder_schedule("usa", 2, ["easy", "medium", "hard", "max"], games=4, slow_games=2, seed=1)
    pairs = [tuple(sorted(s.bots)) for s in specs]
    assert pairs.count(("easy", "medium")) == 4 and pairs.count(("hard", "max")) == 2 and pairs.count(("easy", "max")) == 2
    # seat rotations on one deal: the same seed, both seatings
    em = [s for s in specs if set(s.bots) == {"easy", "medium"}]
    assert em[0].seed == em[1].seed and em[0].bots == em[1].bots[::-1]
    reduced = ladder_schedule("usa", 2, ["easy", "medium", "hard", "max"], games=4, slow_games=2, slow_vs=["hard"])
    assert {tuple(sorted(s.bots)) for s in reduced if "max" in s.bots} == {("hard", "max")}
    with pytest.raises(ValueError):
        ladder_schedule("usa", 3, ["easy", "medium"], 2, 2)


def test_ranks_share_ties_and_follow_the_engine_winners():
    assert ranks_of({"result": {"scores": [80, 100, 60], "winners": [1]}}) == [2, 1, 3]
    assert ranks_of({"result": {"scores": [90, 90], "winners": [0, 1]}}) == [1, 1]
    # equal scores, the engine broke the tie (tickets): the loser ranks second
    assert ranks_of({"result": {"scores": [90, 90], "winners": [1]}}) == [2, 1]


def fake(bots, winner):
    scores = [50, 50]
    scores[winner] = 100
    return {"bots": list(bots), "result": {"scores": scores, "winners": [winner]}}


def test_rating_is_anchored_on_medium_in_the_server_model():
    recs = [fake(("easy", "medium"), 1), fake(("medium", "easy"), 0)] * 3 + [fake(("medium", "hard"), 1)] * 4
    out = rate_records(recs, ["easy", "medium", "hard"])
    assert out["medium"]["mu"] == pytest.approx(MODEL.rating().mu)  # a new account's mu
    assert out["easy"]["mu"] < out["medium"]["mu"] < out["hard"]["mu"]
    assert out["easy"]["games"] == 6 and out["hard"]["wins"] == 4
    for r in out.values():
        assert r["ordinal"] == pytest.approx(r["mu"] - 3 * r["sigma"], abs=0.01)
    # the order is interleaved over the pairings: no pairing is rated all at the end
    assert [tuple(r["bots"]) for r in interleaved(recs)][:2] == [("easy", "medium"), ("medium", "hard")]


def test_cli_writes_the_ladder(tmp_path, capsys):
    out = tmp_path / "ladder.json"
    records = tmp_path / "games.jsonl"
    args = ["calibrate", "--levels", "easy,medium", "--games", "2", "--jobs", "1", "--out", str(out)]
    assert main([*args, "--records", str(records)]) == 0
    doc = json.loads(out.read_text())
    assert set(doc["levels"]) == {"easy", "medium"} and doc["schedule"]["games"] == 2
    assert doc["levels"]["medium"]["mu"] == pytest.approx(25.0)
    assert "medium ≈" in capsys.readouterr().out
    again = tmp_path / "again.json"
    assert main(["calibrate", "--levels", "easy,medium", "--from-records", str(records), "--out", str(again)]) == 0
    assert json.loads(again.read_text())["levels"] == doc["levels"]  # the same games rate the same
    assert main(["calibrate", "--levels", "easy,nobody"]) == 2


def test_the_shipped_ladder_rates_every_level_on_the_players_scale():
    doc = load_shipped()
    assert SHIPPED.name == "bot_ratings.json" and doc, "src/ttr/server/bot_ratings.json is missing (ttr calibrate)"
    assert set(doc["levels"]) == {"easy", "medium", "hard", "max"}
    assert doc["levels"]["medium"]["mu"] == pytest.approx(MODEL.rating().mu)
    assert all(r["games"] > 0 and r["sigma"] > 0 for r in doc["levels"].values())
    assert doc["levels"]["easy"]["mu"] < doc["levels"]["medium"]["mu"]  # the one gap the small run separates
