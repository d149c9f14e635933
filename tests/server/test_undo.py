"""Undo: only when one person controls every human seat, never past an action that revealed hidden information."""

from __future__ import annotations

import random

from serverkit import bearer, create, join_all, wait_for

from ttr.engine import Action, Game
from ttr.server.undo import action_reveals, undo_point

REVEALING = {"draw_blind", "draw_faceup", "draw_tickets"}


def test_undo_point_walks_back_to_the_controllers_last_action():
    # (seat, reveals): human seat 0, bots 1 and 2
    assert undo_point([(0, False), (1, False), (2, False)], frozenset({0})) == 0
    assert undo_point([(0, True), (0, False), (1, False)], frozenset({0})) == 1
    assert "player 2" in undo_point([(0, False), (1, True), (2, False)], frozenset({0}))
    assert "your" in undo_point([(0, True), (1, False)], frozenset({0}))
    assert undo_point([(1, False)], frozenset({0})) == "there is nothing of yours to undo"


def test_which_actions_reveal():
    g = Game("europe", 2, 7)
    while g.phase == "setup":
        g.step(g.legal_actions()[0])
    for a in g.legal_actions():
        if a.type in ("draw_blind", "draw_faceup", "draw_tickets"):
            after = g.clone()
            after.step(a)
            assert action_reveals(g, a, after)
    # a claim reveals only on a tunnel: move half the deck into the hand of the player to move
    d = g.to_dict()
    half, d["deck"] = d["deck"][::2], d["deck"][1::2]
    hand = d["hands"][d["current"]]
    for card in half:
        hand[card] = hand.get(card, 0) + 1
    rich = Game.from_dict(d)
    claims = [a for a in rich.legal_actions() if a.type == "claim"]
    tunnels = {rich.edition.routes[rich.edition.route_index[a.route]].tunnel for a in claims}
    assert tunnels == {True, False}
    for a in claims:
        route = rich.edition.routes[rich.edition.route_index[a.route]]
        after = rich.clone()
        after.step(a)
        assert action_reveals(rich, a, after) == (route.tunnel or after.is_over)
    # Europe: the last initial keep puts the unused long tickets away face down: nobody saw them, undoable
    eu = Game("europe", 2, 5)
    eu.step(eu.legal_actions()[0])
    last = eu.legal_actions()[0]
    after = eu.clone()
    after.step(last)
    assert after.phase == "turn" and len(after.ticket_decks["long"]) < len(eu.ticket_decks["long"])
    assert not action_reveals(eu, last, after)
    keep = Game("usa", 2, 3)
    a = keep.legal_actions()[0]
    after = keep.clone()
    after.step(a)
    assert a.type == "keep_tickets" and not action_reveals(keep, a, after)


def _state(client, gid, token, seat=None):
    params = {"seat": seat} if seat is not None else {}
    return client.get(f"/api/games/{gid}/state", headers=bearer(token), params=params).json()


def test_hotseat_undo_restores_the_exact_view_and_stops_at_hidden_information(client):
    created = create(client, edition="europe", players=2, hotseat=True, seats=[{"type": "human"}, {"type": "human"}])
    gid, token = created["game_id"], created["hotseat_token"]
    rng = random.Random(11)
    undone = refused = 0
    for _ in range(120):
        before = _state(client, gid, token)
        if before["summary"]["status"] != "active":
            break
        action = rng.choice(before["legal"])
        res = client.post(f"/api/games/{gid}/actions", headers=bearer(token), json={"action": action, "seat": before["seat"]})
        assert res.status_code == 200, res.text
        after = _state(client, gid, token, before["seat"])
        route = action.get("route")
        reveals = (
            action["type"] in REVEALING
            or (route is not None and _is_tunnel(client, route))
            or after["summary"]["status"] == "finished"
        )
        assert after["can_undo"] is (not reveals), action
        if reveals:
            res = client.post(f"/api/games/{gid}/undo", headers=bearer(token))
            assert res.status_code == 409 and res.json()["error"]["code"] == "undo_unavailable"
            refused += 1
        elif rng.random() < 0.5:
            res = client.post(f"/api/games/{gid}/undo", headers=bearer(token))
            assert res.status_code == 200, res.text
            back = _state(client, gid, token, before["seat"])
            assert back["seq"] > after["seq"]
            assert back["view"] == before["view"] and back["legal"] == before["legal"]
            # the engine is deterministic: playing the same action again gives the same position
            client.post(f"/api/games/{gid}/actions", headers=bearer(token), json={"action": action, "seat": before["seat"]})
            assert _state(client, gid, token, before["seat"])["view"] == after["view"]
            undone += 1
    assert undone >= 5 and refused >= 5
    log = client.get(f"/api/games/{gid}/log").json()["events"]
    assert sum(1 for e in log if e["event"]["type"] == "undo") == undone


_TUNNELS: dict[str, bool] = {}


def _is_tunnel(client, route: str) -> bool:
    if not _TUNNELS:
        for r in client.get("/api/editions/europe/map").json()["routes"]:
            _TUNNELS[r["id"]] = r["tunnel"]
    return _TUNNELS[route]


def test_undo_against_bots_takes_back_their_moves_too(client):
    """Whether the bots' moves since our last action revealed something decides; play new games until both cases showed."""
    outcomes = set()
    for _ in range(30):
        created = create(client, edition="usa", players=3, seats=[{"type": "human"}, {"type": "bot"}, {"type": "bot"}])
        gid = created["game_id"]
        token = join_all(client, created)[0]
        first = wait_for(lambda g=gid, t=token: (s := _state(client, g, t))["legal"] and s)
        assert first["legal"][0]["type"] == "keep_tickets" and not first["can_undo"]
        action = first["legal"][-1]
        kept_at = client.post(f"/api/games/{gid}/actions", headers=bearer(token), json={"action": action}).json()["seq"]
        mine = wait_for(lambda g=gid, t=token: (s := _state(client, g, t))["legal"] and s["view"]["phase"] == "turn" and s)
        since = client.get(f"/api/games/{gid}/log", params={"since": kept_at}).json()["events"]
        revealed = any(e["event"]["type"] in ("draw_blind", "draw_faceup", "draw_tickets", "tunnel_reveal") for e in since)
        assert mine["can_undo"] is not revealed
        res = client.post(f"/api/games/{gid}/undo", headers=bearer(token))
        if revealed:
            assert res.status_code == 409 and "revealed" in res.json()["error"]["message"]
            outcomes.add("refused")
            continue
        assert res.status_code == 200
        back = _state(client, gid, token)
        assert back["view"]["phase"] == "setup" and back["legal"] == first["legal"]
        assert back["view"]["offered"] == first["view"]["offered"] and back["view"]["public"] == first["view"]["public"]
        client.post(f"/api/games/{gid}/actions", headers=bearer(token), json={"action": action})
        wait_for(lambda g=gid, t=token: (s := _state(client, g, t))["legal"] and s["view"]["phase"] == "turn" and s)
        client.post(f"/api/games/{gid}/actions", headers=bearer(token), json={"action": {"type": "draw_blind"}})
        assert not _state(client, gid, token)["can_undo"]
        res = client.post(f"/api/games/{gid}/undo", headers=bearer(token))
        assert res.status_code == 409 and "your last action revealed" in res.json()["error"]["message"]
        outcomes.add("undone")
        if outcomes == {"undone", "refused"}:
            return
    assert "undone" in outcomes


def test_never_in_multi_human_games(client):
    created = create(client, players=3, seats=[{"type": "human"}, {"type": "human"}, {"type": "bot"}])
    gid = created["game_id"]
    tokens = join_all(client, created)
    st = wait_for(lambda: next((s for t in tokens.values() if (s := _state(client, gid, t))["legal"]), None))
    token = tokens[st["seat"]]
    client.post(f"/api/games/{gid}/actions", headers=bearer(token), json={"action": st["legal"][0]})
    assert not _state(client, gid, token)["can_undo"]
    res = client.post(f"/api/games/{gid}/undo", headers=bearer(token))
    assert res.status_code == 409 and "one person" in res.json()["error"]["message"]
    assert Action.from_json(st["legal"][0]).type == "keep_tickets"
