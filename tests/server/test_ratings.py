"""Ratings, leaderboard, profiles and per-player statistics (docs/api.md, Ratings)."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest
from fastapi.testclient import TestClient
from serverkit import bearer
from test_accounts import csrf, other, signup

from ttr.engine import Game
from ttr.server import Settings, create_app
from ttr.server.stats import player_stats


@pytest.fixture
def app_client(settings: Settings):
    with TestClient(create_app(replace(settings, argon2_time_cost=1, argon2_memory_kib=8192, limits_enabled=False))) as c:
        yield c


def play_fast(client: Any, gid: str, tokens: dict[int, str], rng: random.Random) -> int:
    """Play the seats by their tokens until the game ends: a claim whenever one is legal (games end sooner)."""
    played = 0
    while True:
        progressed = False
        for seat, token in tokens.items():
            st = client.get(f"/api/games/{gid}/state", params={"seat": seat}, headers=bearer(token)).json()
            if st["summary"]["status"] == "finished":
                return played
            if st["legal"] and st["seat"] == seat:
                claims = [x for x in st["legal"] if x["type"] == "claim"]
                action = rng.choice(claims or st["legal"])
                res = client.post(
                    f"/api/games/{gid}/actions", headers=bearer(token), json={"action": action, "expected_seq": st["seq"]}
                )
                assert res.status_code == 200, res.text
                played += 1
                progressed = True
        assert progressed or played < 5000


def rated_game(a: Any, b: Any, tok_a: str, tok_b: str, edition: str = "usa") -> tuple[str, dict[int, str]]:
    created = a.post(
        "/api/games", json={"edition": edition, "seats": [{"type": "human"}, {"type": "human"}]}, headers=csrf(tok_a)
    ).json()
    gid = created["game_id"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    assert a.post(f"/api/games/{gid}/join", json={"name": "A"}, headers={**bearer(tokens[0]), **csrf(tok_a)}).status_code == 200
    assert b.post(f"/api/games/{gid}/join", json={"name": "B"}, headers={**bearer(tokens[1]), **csrf(tok_b)}).status_code == 200
    return gid, tokens


def test_rated_game_updates_ratings_leaderboard_and_profile(app_client):
    a = app_client
    b = other(a)
    tok_a, tok_b = signup(a, "alice"), signup(b, "bob")
    gid, tokens = rated_game(a, b, tok_a, tok_b, "europe")
    assert a.get(f"/api/games/{gid}").json()["rated"] is True
    empty = a.get("/api/leaderboard", params={"edition": "europe"}).json()
    assert empty == {"edition": "europe", "classes": {"2p": [], "3-4p": [], "5p+": []}}
    play_fast(other(a), gid, tokens, random.Random(5))  # a browser without cookies plays by tokens
    record = a.get(f"/api/games/{gid}/record").json()
    game = Game.replay(record)
    result = game.result()
    ranks = [x["rank"] for x in result["players"]]
    board = a.get("/api/leaderboard", params={"edition": "europe", "players": "2p"}).json()["classes"]["2p"]
    assert [r["name"] for r in board] == (["alice", "bob"] if ranks[0] < ranks[1] else ["bob", "alice"]) or ranks[0] == ranks[1]
    assert all(r["games"] == 1 for r in board)
    assert sum(r["wins"] for r in board) == len(result["winners"])
    if ranks[0] != ranks[1]:
        assert board[0]["ordinal"] > 0 > board[1]["ordinal"] or board[0]["ordinal"] > board[1]["ordinal"]
    assert a.get("/api/leaderboard", params={"edition": "usa"}).json()["classes"]["2p"] == []
    # the profile: history, games per edition, statistics from the record
    prof = a.get("/api/players/ALICE").json()
    assert prof["name"] == "alice"
    assert [(h["game_id"], h["rank"]) for h in prof["history"]] == [(gid, ranks[0])]
    assert prof["ratings"][0]["edition"] == "europe" and prof["ratings"][0]["class"] == "2p"
    eu = prof["editions"]["europe"]
    assert eu["games"] == 1 and eu["rated_games"] == 1 and eu["won"] == (1 if 0 in result["winners"] else 0)
    totals = eu["totals"]
    mine = result["players"][0]
    assert totals["total"] == mine["total"] and totals.get("route_points", 0) == mine["route_points"]
    # counts checked against the final position, independently of the event counting
    owned = [r for r, o in zip(game.edition.routes, game.route_owner, strict=True) if o == 0]
    assert totals.get("routes_claimed", 0) == len(owned)
    assert totals.get("trains_played", 0) == sum(r.length for r in owned) == game.rules.trains - game.trains[0]
    assert totals.get("stations_built", 0) == sum(1 for o in game.station_owner if o == 0)
    assert totals.get("tickets_completed", 0) + totals.get("tickets_failed", 0) == len(game.tickets[0])
    assert a.get("/api/players/nobody").status_code == 404
    assert a.get("/api/leaderboard", params={"edition": "mars"}).status_code == 404


def test_games_with_bots_or_guests_are_not_rated(app_client):
    a = app_client
    tok = signup(a, "carol")
    created = a.post("/api/games", json={"players": 2}, headers=csrf(tok)).json()  # against a medium bot
    gid = created["game_id"]
    token = created["seats"][0]["token"]
    assert a.post(f"/api/games/{gid}/join", json={"name": "C"}, headers={**bearer(token), **csrf(tok)}).status_code == 200
    assert a.get(f"/api/games/{gid}").json()["rated"] is False
    play_fast(other(a), gid, {0: token}, random.Random(2))
    assert a.get("/api/leaderboard", params={"edition": "usa"}).json()["classes"]["2p"] == []
    prof = a.get("/api/players/carol").json()
    assert prof["history"] == [] and prof["ratings"] == []
    assert prof["editions"]["usa"]["games"] == 1 and prof["editions"]["usa"]["rated_games"] == 0


def test_player_stats_from_the_record():
    """Every edition: the counters agree with what the final position shows."""
    for edition, n in (("usa", 3), ("europe", 2), ("nordic", 2), ("marklin", 3)):
        g = Game(edition, n, seed=11)
        rng = random.Random(3)
        while not g.is_over:
            g.step(rng.choice(g.legal_actions()))
        stats = player_stats(g.record())
        res = g.result()
        for p, s in enumerate(stats):
            owned = [r for r, o in zip(g.edition.routes, g.route_owner, strict=True) if o == p]
            assert s["routes_claimed"] == len(owned)
            assert s["trains_played"] == g.rules.trains - g.trains[p]
            assert s["total"] == res["players"][p]["total"] and s["rank"] == res["players"][p]["rank"]
            assert s["tickets_kept_setup"] + s["tickets_kept_later"] == len(g.tickets[p])
            assert s["turns"] > 0 and s["cards_blind"] + s["cards_face_up"] > 0
            assert ("stations_built" in s) == (g.rules.stations > 0)
            assert ("tunnels_attempted" in s) == any(r.tunnel for r in g.edition.routes)
            if "tunnels_claimed" in s:
                assert s["tunnels_claimed"] == sum(1 for r in owned if r.tunnel)


def test_statistics_replay_a_record_whose_setup_was_chosen_out_of_turn_order() -> None:
    from ttr.engine import Game
    from ttr.server.stats import player_stats

    g = Game("usa", 3, 7)
    for seat in (2, 0, 1):  # the seats choose their initial tickets at once: here the last seat first
        keep = next(a for a in g.legal_actions(seat) if len(a.tickets) == 3)
        g.apply(keep, seat)
    while not g.is_over and len(g.history) < 40:
        g.apply(g.legal_actions()[0])
    record = g.record()
    assert record["actors"][:3] == [2, 0, 1]
    stats = player_stats(record)  # replayed with who played each action (was: IllegalAction, not among those drawn)
    assert [s["tickets_kept_setup"] for s in stats] == [3, 3, 3]


def test_a_bot_taking_a_seat_after_a_timeout_makes_the_game_unrated(settings: Settings):
    """docs/api.md, Ratings: once a bot plays a person's seat (on_timeout "bot"), the game is no longer rated (even
    after the player takes the seat back), and its end changes nobody's rating."""
    from datetime import UTC, datetime, timedelta

    import sqlalchemy as sa
    from serverkit import wait_for

    fast = replace(settings, argon2_time_cost=1, argon2_memory_kib=8192, limits_enabled=False, clock_poll_seconds=0.1)
    with TestClient(create_app(fast)) as a:
        b = other(a)
        tok_a, tok_b = signup(a, "carla"), signup(b, "dario")
        clock = {"kind": "turnbased", "hours": 24, "on_timeout": "bot", "bot_level": "easy"}
        created = a.post("/api/games", json={"seats": [{"type": "human"}] * 2, "clock": clock}, headers=csrf(tok_a)).json()
        gid = created["game_id"]
        tokens = {s["seat"]: s["token"] for s in created["seats"]}
        for who, tok, seat in ((a, tok_a, 0), (b, tok_b, 1)):
            res = who.post(f"/api/games/{gid}/join", json={"name": "X"}, headers={**bearer(tokens[seat]), **csrf(tok)})
            assert res.status_code == 200
        assert a.get(f"/api/games/{gid}").json()["rated"] is True
        # the day passes: the stored deadline is moved into the past, and this process's clock loop fires it
        engine = sa.create_engine(settings.database_url)
        with engine.begin() as conn:
            past = datetime.now(UTC) - timedelta(seconds=1)
            conn.execute(sa.text("UPDATE games SET deadline = :d WHERE id = :g"), {"d": past.replace(tzinfo=None), "g": gid})
        engine.dispose()
        wait_for(lambda: any(s.get("away") for s in a.get(f"/api/games/{gid}").json()["seats"]), timeout=10)
        assert a.get(f"/api/games/{gid}").json()["rated"] is False
        # both take their seats back and play to the end: no rating, no history for either
        guest = other(a)  # by tokens, without cookies
        for seat in (0, 1):
            res = guest.post(f"/api/games/{gid}/return", headers=bearer(tokens[seat]))
            assert res.status_code in (200, 409), res.text  # 409 not_away: its bot had nothing left to do
        play_fast(guest, gid, tokens, random.Random(2))
        assert a.get(f"/api/games/{gid}").json()["status"] == "finished"
        for name in ("carla", "dario"):
            prof = a.get(f"/api/players/{name}").json()
            assert prof["history"] == [] and prof["ratings"] == []
            assert prof["editions"]["usa"]["games"] == 1 and prof["editions"]["usa"]["rated_games"] == 0


def test_bot_ratings_and_the_profile_page_are_served(app_client):
    from ttr.sim.calibrate import load_shipped

    res = app_client.get("/api/bot-ratings")
    assert res.status_code == 200 and res.json() == load_shipped() and res.json()["levels"]["medium"]["mu"] == 25.0
    page = app_client.get("/players/anyone")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]


def test_the_levels_are_served_with_their_style(app_client):
    from ttr.bots import LEVEL_STYLES, LEVELS, make_bot

    res = app_client.get("/api/levels")
    assert res.status_code == 200
    levels = res.json()["levels"]
    assert [lv["level"] for lv in levels] == list(LEVELS) == ["easy", "medium", "hard", "max"]
    for lv in levels:
        assert lv["style"] == LEVEL_STYLES[lv["level"]] and len(lv["style"]) <= 80  # one line
        make_bot(lv["bot"])  # a spec the bots accept
    assert levels[2]["bot"] == "planner:keep_search=200:end_search=100"
    assert levels[3]["bot"] == "ismcts:iterations=400:tempo_advisor=true:tempo_playouts=true:ticket_clock=2"
    assert levels[0]["style"].startswith("Greedy")
