"""Undo: only when one person controls every human seat, never past an action that revealed hidden information."""

from __future__ import annotations

import random
import time

import pytest
from fastapi.testclient import TestClient
from serverkit import bearer, create, join_all, wait_for

from ttr.engine import Action, Game
from ttr.server import Settings, create_app
from ttr.server.undo import action_reveals, undo_point

REVEALING = {"draw_blind", "draw_faceup", "draw_tickets"}


def test_undo_point_takes_back_only_the_controllers_own_last_action():
    # (seat, reveals): human seat 0, bots 1 and 2
    assert undo_point([(1, False), (0, False)], frozenset({0})) == 1
    assert undo_point([(0, True), (0, False)], frozenset({0})) == 1
    assert undo_point([(0, True), (1, False), (0, False), (0, False)], frozenset({0})) == 3
    # never past another seat's action, even one that revealed nothing (a bot's claim shows its cards)
    for actions in ([(0, False), (1, False)], [(0, False), (1, False), (2, False)], [(0, False), (2, True)]):
        reason = undo_point(actions, frozenset({0}))
        assert isinstance(reason, str) and f"player {actions[-1][0] + 1} has moved since" in reason
    assert "your last action revealed" in undo_point([(1, False), (0, True)], frozenset({0}))
    assert undo_point([], frozenset({0})) == "there is nothing of yours to undo"
    # hot-seat: the seats one person controls are theirs, one action at a time
    assert undo_point([(0, False), (2, False)], frozenset({0, 2})) == 1
    assert undo_point([(0, False)], frozenset({0, 2})) == 0


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


@pytest.fixture
def window_client(tmp_path):
    """Bots answer at once, except after a move that can still be undone: then they wait 1 s."""
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'w.sqlite3'}", bot_delay=0.0, bot_sweep_seconds=0.2, undo_window=1.0, bot_budget=0.5
    )
    with TestClient(create_app(settings)) as c:
        yield c


def test_against_bots_undo_works_until_a_bot_answers_and_never_after(window_client):
    """The bots wait for the undo window after a move that can be taken back; once one has moved, undo is refused
    (taking back a move made before theirs would let the person see their cards go back and try again)."""
    client = window_client
    for attempt in range(12):  # the first player is random (1 in 3 games the person's): those are tried again
        created = create(client, edition="usa", players=3, seats=[{"type": "human"}, {"type": "bot"}, {"type": "bot"}])
        gid = created["game_id"]
        token = join_all(client, created)[0]
        # setup is simultaneous: the bots choose their tickets at once; wait until only the person is choosing
        first = wait_for(lambda g=gid, t=token: (s := _state(client, g, t))["legal"] and s["view"]["to_act"] == [0] and s)
        assert first["legal"][0]["type"] == "keep_tickets" and not first["can_undo"]
        action = first["legal"][-1]
        kept_at = client.post(f"/api/games/{gid}/actions", headers=bearer(token), json={"action": action}).json()["seq"]
        st = _state(client, gid, token)
        if st["seq"] != kept_at:  # a machine so busy that the bot answered within the window: try again
            assert attempt < 11, "the bots never waited for the undo window"
            continue
        assert st["can_undo"]
        res = client.post(f"/api/games/{gid}/undo", headers=bearer(token))
        assert res.status_code == 200, res.text
        back = _state(client, gid, token)
        assert back["view"]["phase"] == "setup" and back["legal"] == first["legal"] and not back["can_undo"]
        assert back["view"]["offered"] == first["view"]["offered"] and back["view"]["public"] == first["view"]["public"]
        kept_at = client.post(f"/api/games/{gid}/actions", headers=bearer(token), json={"action": action}).json()["seq"]
        sent = time.monotonic()
        if _state(client, gid, token)["view"]["to_act"] == [0]:  # the person was dealt the first turn: no bot answers
            continue

        def bot_moved(g=gid, since=kept_at):
            events = client.get(f"/api/games/{g}/log", params={"since": since}).json()["events"]
            return any(e["event"].get("player") not in (None, 0) for e in events)

        wait_for(bot_moved)
        assert time.monotonic() - sent > 0.7  # the window (1 s, counted from the commit) held the bot back
        st = _state(client, gid, token)
        assert not st["can_undo"]
        res = client.post(f"/api/games/{gid}/undo", headers=bearer(token))
        assert res.status_code == 409 and "has moved since" in res.json()["error"]["message"]
        log = client.get(f"/api/games/{gid}/log").json()["events"]
        assert sum(1 for e in log if e["event"]["type"] == "undo") == 1
        # a draw reveals a card: refused at once, whoever is next
        mine = wait_for(lambda g=gid, t=token: (s := _state(client, g, t))["legal"] and s["view"]["phase"] == "turn" and s)
        client.post(f"/api/games/{gid}/actions", headers=bearer(token), json={"action": {"type": "draw_blind"}})
        assert not _state(client, gid, token)["can_undo"] and mine
        res = client.post(f"/api/games/{gid}/undo", headers=bearer(token))
        assert res.status_code == 409 and "revealed" in res.json()["error"]["message"]
        return
    raise AssertionError("every game gave the person the first turn")


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
