"""Bad input: illegal or malformed actions, broken map files and broken positions.

Every refusal is a typed error whose message says why, and a refused action leaves the game
exactly as it was (``refused`` compares ``to_dict()`` and the legal actions before and after).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from positions import BLIND, claim, faceup, keep, refused, scenario, started
from ttr.bots import make_bot
from ttr.editions import get_edition, load_edition_file, parse_edition
from ttr.engine import Action, Game, MalformedAction, PositionError
from ttr.errors import EditionError


@pytest.fixture
def table() -> Game:
    """Player 0 to move with a known hand; a locomotive face up in slot 0."""
    return scenario(
        """
        usa 2p seed 4
        p0 hand 3red+2blue+1L
        p1 hand 2green
        market L, white, black, yellow, orange
        current 0
        """
    )


# ---------------------------------------------------------------- illegal actions


def test_wrong_player(table: Game) -> None:
    refused(table, BLIND, "not_your_turn", "it is player 0's turn, not player 1's", player=1)


def test_wrong_phase(table: Game) -> None:
    refused(table, keep("boston-miami"), "wrong_phase", "no drawn tickets to keep")
    refused(table, {"type": "tunnel_pay", "cards": {"red": 1}}, "wrong_phase", "no tunnel")
    refused(table, {"type": "place_passenger", "city": "atlanta"}, "wrong_phase", "right after claiming a route")
    table.apply(BLIND)
    refused(table, claim("chicago-duluth", red=3), "wrong_phase", "cannot claim a route now \\(phase: second_card\\)")
    refused(table, {"type": "draw_tickets"}, "wrong_phase", "cannot draw tickets now")
    refused(table, {"type": "pass"}, "wrong_phase", "pass is only a whole turn")


def test_unknown_route(table: Game) -> None:
    refused(table, claim("atlantis-miami", red=3), "unknown_route", "unknown route 'atlantis-miami'")


def test_cards_not_in_hand(table: Game) -> None:
    refused(table, claim("chicago-duluth", red=3, locomotive=2), "cards_not_in_hand", "you have 1 locomotive card")
    refused(table, claim("atlanta-charleston", green=2), "cards_not_in_hand", "you have 0 green card")


def test_wrong_colour(table: Game) -> None:
    refused(table, claim("chicago-duluth", blue=2, locomotive=1), "bad_payment", "is red; blue cards cannot pay for it")


def test_no_cards_offered(table: Game) -> None:
    refused(table, claim("chicago-duluth"), "bad_payment", "no cards offered")


def test_second_face_up_locomotive(table: Game) -> None:
    table.apply(faceup(1))
    refused(table, faceup(0), "second_locomotive", "a face-up locomotive cannot be taken as the second card")


@pytest.mark.parametrize("slot", [-1, 5, 99])
def test_market_slot_out_of_range(table: Game, slot: int) -> None:
    refused(table, faceup(slot), "bad_slot", f"no market slot {slot}")


def test_claiming_a_closed_double(table: Game) -> None:
    g = scenario(
        """
        p1 routes chicago-pittsburgh/1
        """,
        table,
    )  # black lane taken; the orange lane is closed at 2 players
    refused(g, claim("chicago-pittsburgh/2", red=3), "route_unavailable", "only one lane of a double route")


def test_station_and_passenger_actions_do_not_exist_in_usa(table: Game) -> None:
    refused(
        table, {"type": "build_station", "city": "atlanta", "cards": {"red": 1}}, "no_stations", "this edition has no stations"
    )
    refused(
        table,
        {"type": "move_passenger", "city": "atlanta", "path": ["atlanta-miami"]},
        "no_passenger",
        "no passenger on 'atlanta'",
    )


def test_a_passenger_trip_built_without_cards_spends_none() -> None:
    """An Action built in code may leave `cards` out: the trip is checked and played as one with no
    passenger cards (it once passed the check and then failed half-applied)."""
    game = Game("marklin", 2, 3)
    bots = [make_bot("planner", seed=i) for i in range(2)]
    while not (trips := [a for a in game.legal_actions() if a.type == "move_passenger" and not any(a.cards or ())]):
        p = game.current
        game.step(bots[p].act(game.view(p), game.legal_actions()))
    twin = game.clone()
    game.step(trips[0])
    twin.step(Action(trips[0].type, city=trips[0].city, path=trips[0].path))
    mine, theirs = twin.to_dict(), game.to_dict()
    assert [Action.from_json(a) for a in mine.pop("history")] == [Action.from_json(a) for a in theirs.pop("history")]
    assert mine == theirs


def test_unknown_ticket_choice_after_a_draw(table: Game) -> None:
    table.apply({"type": "draw_tickets"})
    refused(table, keep("boston-miami", "boston-miami-2"), "unknown_ticket", "is not among those drawn")


# ---------------------------------------------------------------- malformed JSON actions


@pytest.mark.parametrize(
    ("data", "match"),
    [
        ({"type": "teleport"}, "unknown action type 'teleport'"),
        ({}, "unknown action type None"),
        ([1, 2], "an action must be a JSON object, got list"),
        ("draw_blind", "an action must be a JSON object, got str"),
        ({"type": "draw_blind", "slot": 1}, "draw_blind: unexpected field\\(s\\) slot"),
        ({"type": "claim", "route": "chicago-duluth"}, "claim: missing field\\(s\\) cards"),
        ({"type": "claim", "route": "chicago-duluth", "cards": {"rouge": 3}}, "unknown card kind 'rouge'"),
        ({"type": "claim", "route": "chicago-duluth", "cards": {"red": -3}}, "must be a non-negative integer, got -3"),
        ({"type": "claim", "route": "chicago-duluth", "cards": {"red": 1.5}}, "must be a non-negative integer, got 1.5"),
        ({"type": "claim", "route": "chicago-duluth", "cards": {"red": True}}, "must be a non-negative integer, got True"),
        ({"type": "claim", "route": "chicago-duluth", "cards": ["red", "red"]}, "'cards' must be an object"),
        ({"type": "claim", "route": 7, "cards": {"red": 3}}, "'route' must be a route id string"),
        ({"type": "draw_faceup", "slot": "2"}, "'slot' must be an integer, got '2'"),
        ({"type": "draw_faceup", "slot": True}, "'slot' must be an integer, got True"),
        ({"type": "keep_tickets", "tickets": "boston-miami"}, "'tickets' must be a list of ticket ids"),
        ({"type": "keep_tickets", "tickets": ["a", "a"]}, "a ticket is named twice"),
        ({"type": "draw_tickets", "mix": {"short": -1}}, "'mix' must map ticket decks to counts"),
        ({"type": "move_passenger", "city": "a", "path": []}, "'path' must be a non-empty list of route ids"),
    ],
)
def test_malformed_actions_raise_malformed_action(table: Game, data: Any, match: str) -> None:
    before = table.to_dict()
    with pytest.raises(MalformedAction, match=match) as info:
        table.apply(data)
    assert info.value.code == "malformed"
    assert not table.is_legal(data)
    assert table.to_dict() == before
    with pytest.raises(MalformedAction):
        Action.from_json(data)


def test_json_actions_round_trip_and_are_accepted(table: Game) -> None:
    for action in table.legal_actions():
        assert Action.from_json(json.loads(json.dumps(action.to_json()))) == action
    table.apply({"type": "claim", "route": "chicago-duluth", "cards": {"red": 3}})
    assert table.to_dict()["routes"] == {"chicago-duluth": 0}


# ---------------------------------------------------------------- malformed map files


def usa_raw() -> dict[str, Any]:
    return copy.deepcopy(get_edition("usa").raw)


def _route(raw: dict[str, Any], rid: str) -> dict[str, Any]:
    return next(r for r in raw["routes"] if r["id"] == rid)


def _broken(change: str) -> dict[str, Any]:
    raw = usa_raw()
    if change == "unknown city in a route":
        _route(raw, "chicago-duluth")["b"] = "gotham"
    elif change == "bad colour":
        _route(raw, "chicago-duluth")["color"] = "magenta"
    elif change == "duplicate route id":
        raw["routes"].append(dict(_route(raw, "chicago-duluth")))
    elif change == "duplicate city id":
        raw["cities"].append(dict(raw["cities"][0]))
    elif change == "duplicate ticket id":
        raw["tickets"].append(dict(raw["tickets"][3]))
    elif change == "missing route field":
        del _route(raw, "chicago-duluth")["length"]
    elif change == "missing city field":
        del raw["cities"][2]["lat"]
    elif change == "ticket to an unknown city":
        raw["tickets"][0]["b"] = "atlantis"
    elif change == "length without points":
        _route(raw, "chicago-duluth")["length"] = 7
    elif change == "bad deck card":
        raw["deck"]["joker"] = 2
    elif change == "bad rule value":
        raw["rules"]["locomotives_wild"] = "sometimes"
    elif change == "mistyped field":
        _route(raw, "chicago-duluth")["length"] = "3"
    return raw


@pytest.mark.parametrize(
    ("change", "entry", "problem"),
    [
        ("unknown city in a route", "ROUTE", "unknown city 'gotham'"),
        ("bad colour", "ROUTE", "unknown colour 'magenta'"),
        ("duplicate route id", "('chicago-duluth')", "duplicate route id"),
        ("duplicate city id", "cities[36] ('atlanta')", "duplicate city id"),
        ("duplicate ticket id", "tickets[30] ('chicago-new-orleans')", "duplicate ticket id"),
        ("missing route field", "ROUTE", "missing field 'length'"),
        ("missing city field", "cities[2]", "missing field 'lat'"),
        ("ticket to an unknown city", "tickets[0] ('boston-miami')", "unknown city or area 'atlantis'"),
        ("length without points", "ROUTE", "length 7 has no entry in rules.route_points"),
        ("bad deck card", "deck.joker", "unknown card kind"),
        ("bad rule value", "rules.locomotives_wild", "must be 'all' or 'ferries_and_tunnels'"),
        ("mistyped field", "ROUTE", "field 'length' must be int, got '3'"),
    ],
)
def test_malformed_map_names_the_file_the_entry_and_the_problem(change: str, entry: str, problem: str) -> None:
    raw = _broken(change)
    index = next(i for i, r in enumerate(raw["routes"]) if r["id"] == "chicago-duluth")
    entry = entry.replace("ROUTE", f"routes[{index}] ('chicago-duluth')")
    with pytest.raises(EditionError) as info:
        parse_edition(raw, "maps/broken-usa.json")
    message = str(info.value)
    assert message.startswith("maps/broken-usa.json: ")
    assert entry in message
    assert problem in message


def test_map_file_on_disk_that_is_not_json_or_missing(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": 1, "id": "x",,}')
    with pytest.raises(EditionError, match=r"bad\.json: not valid JSON: .* line 1 column"):
        load_edition_file(bad)
    with pytest.raises(EditionError, match=r"missing\.json: cannot read"):
        load_edition_file(tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(_broken("bad colour")))
    with pytest.raises(EditionError, match=r"broken\.json: routes\[\d+\] \('chicago-duluth'\): unknown colour"):
        Game(str(broken), 2, seed=0)


def test_unknown_edition_and_unknown_rule_option() -> None:
    with pytest.raises(EditionError, match="unknown edition 'narnia'"):
        Game("narnia", 2, seed=0)
    with pytest.raises(EditionError, match="unknown rule option\\(s\\) trains_per_player"):
        Game("usa", 2, seed=0, options={"trains_per_player": 30})


# ---------------------------------------------------------------- malformed positions


def _position() -> dict[str, Any]:
    return started("usa", 2, seed=4).to_dict()


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (lambda d: d.pop("deck"), "deck"),
        (lambda d: d.update(format=99), "unsupported position format 99"),
        (lambda d: d.update(phase="lunch"), "unknown phase 'lunch'"),
        (lambda d: d.update(current=2), "bad player index 2"),
        (lambda d: d.update(deck=["red", "joker"]), "unknown card 'joker'"),
        (lambda d: d.update(market=["red", "banana", None, None, None]), "unknown card 'banana'"),
        (lambda d: d.update(routes={"atlantis-miami": 0}), "unknown route 'atlantis-miami'"),
        (lambda d: d.update(routes={"chicago-duluth": 5}), "bad player index 5"),
        (lambda d: d.update(tickets=[["boston-gotham"], []]), "unknown ticket 'boston-gotham'"),
        (lambda d: d.update(hands=[{}]), "'hands' must be a list with one entry per player \\(2\\)"),
        (lambda d: d.update(trains="many"), "'trains' must be a list"),
        (lambda d: d.update(edition="narnia"), "unknown edition 'narnia'"),
        (lambda d: d.update(rng=[3, [1, 2], None]), "malformed position"),
        (lambda d: d.update(history=[{"type": "fly"}]), "unknown action type 'fly'"),
    ],
)
def test_malformed_position_raises_position_error(change: Any, match: str) -> None:
    d = _position()
    change(d)
    with pytest.raises(PositionError, match=match):
        Game.from_dict(d)


def test_position_that_is_not_an_object() -> None:
    with pytest.raises(PositionError, match="a position must be a JSON object"):
        Game.from_dict([1, 2, 3])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (lambda d: d["hands"][0].update(red=-1), "negative"),
        (lambda d: d["hands"][0].update(red=d["hands"][0].get("red", 0) + 1), "red"),
        (lambda d: d["deck"].pop(), "cards"),
    ],
)
def test_position_whose_cards_do_not_add_up_is_refused(change: Any, match: str) -> None:
    d = _position()
    change(d)
    with pytest.raises(PositionError, match=match):
        Game.from_dict(d)


def test_bad_record_raises_position_error() -> None:
    g = started("usa", 2, seed=4)
    rec = g.record()
    rec["actions"].append({"type": "claim", "route": "chicago-duluth", "cards": {"red": 30}})
    rec["actors"].append(g.current)
    with pytest.raises(PositionError, match=r"record action #2 .* is illegal: you have"):
        Game.replay(rec)
    with pytest.raises(PositionError, match="malformed record"):
        Game.replay({"edition": "usa", "players": 2})
    with pytest.raises(PositionError, match="'actors' must list one seat per action"):
        Game.replay({**rec, "actors": rec["actors"][:-1]})
