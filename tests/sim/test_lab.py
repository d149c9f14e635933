"""The designer's lab: facts read from the engine's events and records, the A/B statistics, and
`ttr compare` end to end (same schedule on both sides, one self-contained HTML file, JSON)."""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

import pytest

from ttr.cli import main
from ttr.editions import get_edition
from ttr.engine import Game
from ttr.sim.lab import SCORE_PARTS, game_facts, lab_summary, length_histogram
from ttr.sim.runner import GameSpec, play_game
from ttr.sim.stats import mean_difference, sign_test, two_proportions


@functools.cache
def played(edition: str, players: int, seed: int, options: tuple = ()) -> dict:
    return play_game(GameSpec(edition, players, seed, ("planner", "racer", "long_route")[:players], options))


@pytest.mark.parametrize(("edition", "players", "seed"), [("europe", 3, 2), ("nordic", 2, 1), ("marklin", 3, 1), ("usa", 2, 3)])
def test_facts_agree_with_the_final_position(edition: str, players: int, seed: int) -> None:
    rec = played(edition, players, seed)
    facts = game_facts(rec, get_edition(edition))
    game = Game.replay(rec)
    res = game.result()
    assert facts["turns"] == game.turn and facts["end"] == game.outcome.reason.value
    assert facts["winners"] == rec["result"]["winners"]
    owners = [(route, seat) for route, seat, _ in facts["claims"]]
    assert sorted(owners) == sorted(rec["routes"].items())  # every claim event, once, by the final owner
    for p, seat in enumerate(facts["seats"]):
        assert sum(seat["parts"][k] for k, _ in SCORE_PARTS) == seat["total"] == res["players"][p]["total"]
        m = seat["mechanisms"]
        attempted = m.get("tunnels_attempted", 0)
        assert attempted == m.get("tunnels_free", 0) + m.get("tunnels_paid", 0) + m.get("tunnels_declined", 0)
        assert m.get("stations_built", 0) == res["players"][p]["stations_built"]
        saved = m.get("tickets_saved_by_stations", 0)
        assert saved <= res["players"][p]["tickets_completed"]
        if not m.get("stations_borrowing", 0):
            assert saved == 0  # no ticket is completed thanks to a station that borrows nothing
        if edition == "marklin":  # merchandise comes only from passenger moves
            assert m.get("passenger_tokens", 0) == seat["parts"]["merchandise"] == res["players"][p]["merchandise"]
    for _seat, offered, kept in facts["offers"]:
        assert set(kept) <= set(offered) and kept
    kept_ids = sorted(t for _, _, kept in facts["offers"] for t in kept)
    held_ids = sorted(t for s in facts["seats"] for t, _, _ in s["tickets"])
    assert kept_ids == held_ids


def test_mechanisms_show_where_the_edition_has_them() -> None:
    europe = [game_facts(played("europe", 3, s), get_edition("europe")) for s in (1, 2, 3)]
    lab = lab_summary(europe, get_edition("europe"), 3)
    assert lab["mechanisms"] == ["tunnels", "ferries", "stations"]
    per = lab["mechanisms_per_game"]
    assert per["tunnels_attempted"] > 0 and per["ferries_claimed"] > 0 and per["ferry_locomotives"] >= per["ferries_claimed"]
    nordic = [game_facts(played("nordic", 2, s), get_edition("nordic")) for s in (1, 2)]
    lab = lab_summary(nordic, get_edition("nordic"), 2)
    assert "substitutions" in lab["mechanisms"] and lab["mechanisms_per_game"]["ferry_substitutions"] > 0
    usa = lab_summary([game_facts(played("usa", 2, 3), get_edition("usa"))], get_edition("usa"), 2)
    assert usa["mechanisms"] == [] and usa["mechanisms_per_game"] == {}
    no_stations = lab_summary([], get_edition("europe"), 3, {"stations": 0})
    assert "stations" not in no_stations["mechanisms"]


def test_ticket_and_route_tables() -> None:
    ed = get_edition("europe")
    facts = [game_facts(played("europe", 3, s), ed) for s in (1, 2, 3)]
    lab = lab_summary(facts, ed, 3)
    assert set(lab["tickets"]) == {t.id for t in ed.tickets} and set(lab["routes"]) == {r.id for r in ed.routes}
    offered = sum(len(o) for f in facts for _, o, _ in f["offers"])
    assert sum(t["offered"] for t in lab["tickets"].values()) == offered
    for t in lab["tickets"].values():
        assert t["kept"] <= t["offered"]
        if t["held"]:
            assert 0.0 <= t["completed_rate"] <= 1.0 and -t["points"] <= t["mean_points"] <= t["points"]
    claims = sum(len(f["claims"]) for f in facts)
    assert sum(sum(r["by"].values()) for r in lab["routes"].values()) == claims
    assert sum(r["claim_rate"] for r in lab["routes"].values()) * 3 == pytest.approx(claims)
    assert sum(lab["length_histogram"].values()) == 3
    assert length_histogram([61, 69, 70, 93]) == {"60-69": 2, "70-79": 1, "80-89": 0, "90-99": 1}


def test_two_proportions_and_mean_difference_known_values() -> None:
    t = two_proportions(60, 100, 45, 100)
    assert t["diff"] == pytest.approx(0.15) and t["z"] == pytest.approx(2.1240, abs=1e-3)
    assert t["p"] == pytest.approx(0.0337, abs=1e-3)
    assert t["ci95"][0] == pytest.approx(0.0132, abs=1e-3)
    assert two_proportions(5, 10, 5, 10)["p"] == pytest.approx(1.0)
    d = mean_difference([1, 2, 3, 4], [1, 2, 3, 4])
    assert d["diff"] == 0 and d["p"] == pytest.approx(1.0)
    d = mean_difference([10, 11, 12, 13] * 10, [1, 2, 3, 4] * 10)
    assert d["diff"] == pytest.approx(9) and d["p"] < 1e-6


def test_compare_end_to_end(tmp_path: Path, capsys) -> None:
    report = tmp_path / "report"
    prefix = tmp_path / "games"
    args = ["compare", "usa", "usa", "--b-option", "all_lanes_min_players=2", "--players", "2", "--bots", "planner,racer"]
    args += ["--games", "4", "--seed", "7", "--jobs", "1", "--report", str(report), "--out", str(prefix)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "all_lanes_min_players=2" in out and "planner" in out
    a = [json.loads(x) for x in Path(f"{prefix}-a.jsonl").read_text().splitlines()]
    b = [json.loads(x) for x in Path(f"{prefix}-b.jsonl").read_text().splitlines()]
    assert [(r["seed"], r["bots"]) for r in a] == [(r["seed"], r["bots"]) for r in b]  # the same schedule
    assert [r["seed"] for r in a] == [7, 7, 8, 8]
    assert a[0]["bots"] == ["planner", "racer"] and a[1]["bots"] == ["racer", "planner"]
    assert all(r["options"] == {} for r in a) and all(r["options"] == {"all_lanes_min_players": 2} for r in b)
    ed = get_edition("usa")
    for recs in (a, b):
        for r in recs:
            assert Game.replay(r).result()["winners"] == r["result"]["winners"]
    # with one lane per double at 2 players (side A), never are both lanes of a pair claimed in one game
    for r in a:
        groups = [ed.routes[ed.route_index[rid]].group for rid in r["routes"]]
        assert len([g for g in groups if g >= 0]) == len({g for g in groups if g >= 0})
    data = json.loads((report / "compare.json").read_text())
    assert data["config"]["games"] == 4 and data["a"]["options"] == {} and data["b"]["options"] == {"all_lanes_min_players": 2}
    for name in ("planner", "racer"):
        x, y = data["a"]["summary"]["bots"][name], data["b"]["summary"]["bots"][name]
        assert data["tests"]["win_rate"][name] == two_proportions(y["wins"], y["seats"], x["wins"], x["seats"])
        assert x["seats"] == y["seats"] == 4
    wins = [sum(1 for r in a if s in r["result"]["winners"] and r["bots"][s] == "planner") for s in (0, 1)]
    assert data["a"]["summary"]["bots"]["planner"]["wins"] == pytest.approx(sum(wins))
    assert data["a"]["lab"]["ends"]["trains"] + data["a"]["lab"]["ends"]["stalemate"] == 4
    html = (report / "compare.html").read_text(encoding="utf-8")
    for title in ("Win rate per bot", "Mean score and where it comes from", "Game length", "Tickets", "Routes"):
        assert f"<h2>{title}" in html
    assert "two-proportion z test" in html and "Mechanisms" not in html  # the USA has no tunnels, ferries, stations
    # each game compared with its twin on the other side (the same deal and seating)
    for name in ("planner", "racer"):
        pr = data["tests"]["paired"][name]
        share = [[_share(r, name) for r in recs] for recs in (a, b)]
        assert pr["games"] == 4 and pr["a_only"] == sum(1 for x, y in zip(*share, strict=True) if x > y)
        assert pr["b_only"] == sum(1 for x, y in zip(*share, strict=True) if y > x)
        assert pr["p_sign"] == sign_test(pr["a_only"], pr["b_only"])
        assert f"{pr['a_only']} / {pr['b_only']}" in html
    assert "p (paired sign test)" in html and "p (paired)" in out
    sources = re.findall(r'(?:src|href)="([^"]*)"', html)
    assert sources and all(s.startswith("data:image/svg+xml;base64,") for s in sources)  # opens from disk, no network
    assert "http://" not in html.replace("http://www.w3.org", "") and "https://" not in html


def _share(rec: dict, name: str) -> float:
    winners = rec["result"]["winners"]
    return sum(1 for i, n in enumerate(rec["bots"]) if n == name and i in winners) / len(winners)


def test_paired_tests_need_the_same_schedule() -> None:
    from ttr.sim.compare import paired_tests

    game = {"seed": 1, "bots": ["a", "b"], "result": {"winners": [0], "scores": [50, 40]}}
    twin = {"seed": 1, "bots": ["a", "b"], "result": {"winners": [1], "scores": [30, 45]}}
    both = paired_tests([game], [twin])
    assert (both["a"]["a_only"], both["a"]["b_only"], both["b"]["a_only"], both["b"]["b_only"]) == (1, 0, 0, 1)
    assert both["a"]["score"]["diff"] is None  # one game: no interval
    assert paired_tests([game], [{**twin, "seed": 2}]) == {} and paired_tests([game], []) == {}


def test_compare_rejects_bad_input_with_one_line(tmp_path: Path, capsys) -> None:
    assert main(["compare", "usa", "atlantis", "--games", "1", "--report", str(tmp_path)]) == 2
    assert "unknown edition 'atlantis'" in capsys.readouterr().err
    assert main(["compare", "usa", "usa", "--b-option", "trains=-3", "--games", "1", "--report", str(tmp_path)]) == 2
    assert "trains" in capsys.readouterr().err
    assert main(["compare", "usa", "usa", "--bots", "nobody", "--games", "1", "--report", str(tmp_path)]) == 2
    assert "nobody" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())
