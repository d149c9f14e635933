"""Issue 15 point 6: every seat chooses its initial tickets at once. Two people keep concurrently (each on
the state it was shown), a bot keeps at once without waiting for the people, and a seat that has chosen
cannot choose again."""

from __future__ import annotations

import pytest
from serverkit import bearer, create, join_all, wait_for

from ttr.engine import Game
from ttr.server import service


def _state(client, gid: str, token: str, seat: int) -> dict:
    res = client.get(f"/api/games/{gid}/state", params={"seat": seat}, headers=bearer(token))
    assert res.status_code == 200, res.text
    return res.json()


def test_two_people_keep_their_tickets_concurrently_and_the_bot_does_not_wait(client, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(service.secrets, "randbits", lambda _bits: 12)  # the game's seed: the bot (seat 2) comes last
    assert Game("usa", 3, 12).first_player == 0
    created = create(client, edition="usa", players=3, seats=[{"type": "human"}, {"type": "human"}, {"type": "bot"}])
    gid = created["game_id"]
    tokens = join_all(client, created)
    # the bot keeps at once, though it is last in turn order and nobody else has chosen
    wait_for(lambda: 2 not in _state(client, gid, tokens[0], 0)["view"]["to_act"])
    shown = {seat: _state(client, gid, tokens[seat], seat) for seat in (0, 1)}
    for st in shown.values():  # both are asked at the same time, each with its own offer
        assert st["view"]["phase"] == "setup" and st["view"]["to_act"] == [0, 1] and st["view"]["current"] == 0
        assert st["legal"] and all(a["type"] == "keep_tickets" for a in st["legal"])
        assert {t for a in st["legal"] for t in a["tickets"]} == {t["id"] for t in st["view"]["offered"]}
    for seat in (1, 0):  # seat 1 (not `current`) first  # both decided on the state they were shown (the same seq)
        keep = shown[seat]["legal"][-1]
        res = client.post(
            f"/api/games/{gid}/actions",
            headers=bearer(tokens[seat]),
            json={"seat": seat, "action": keep, "expected_seq": shown[seat]["seq"]},
        )
        assert res.status_code == 200, res.text
        assert sorted(_state(client, gid, tokens[seat], seat)["view"]["tickets"], key=lambda t: t["id"]) == sorted(
            shown[seat]["view"]["offered"], key=lambda t: t["id"]
        )
    after = _state(client, gid, tokens[0], 0)
    assert after["view"]["phase"] == "turn" and after["view"]["to_act"] == [after["view"]["current"]]
    # choosing again is refused, and says why
    again = client.post(f"/api/games/{gid}/actions", headers=bearer(tokens[1]), json={"seat": 1, "action": shown[1]["legal"][0]})
    assert again.status_code == 409 and again.json()["error"]["code"] == "not_your_turn"


def test_a_seat_that_has_chosen_is_told_the_others_are_choosing(client):
    created = create(client, edition="usa", players=2, seats=[{"type": "human"}, {"type": "human"}])
    gid = created["game_id"]
    tokens = join_all(client, created)
    st = _state(client, gid, tokens[0], 0)
    res = client.post(f"/api/games/{gid}/actions", headers=bearer(tokens[0]), json={"seat": 0, "action": st["legal"][0]})
    assert res.status_code == 200, res.text
    mine = _state(client, gid, tokens[0], 0)
    assert mine["legal"] == [] and mine["view"]["to_act"] == [1] and mine["view"]["phase"] == "setup"
    res = client.post(f"/api/games/{gid}/actions", headers=bearer(tokens[0]), json={"seat": 0, "action": st["legal"][0]})
    assert res.status_code == 409 and res.json()["error"]["code"] == "not_your_turn"
    assert "still choosing" in res.json()["error"]["message"]
    other = _state(client, gid, tokens[1], 1)
    assert other["legal"] and other["view"]["current"] == 1
