"""The designer's lab: what happened in a set of games, per ticket, per route and per mechanism.

Everything here is read from the engine, never re-derived from the rules: each record is replayed
with ``Game.apply`` and the facts are taken from its events (``claim``, ``tunnel_reveal``,
``tunnel_pay``, ``tunnel_decline``, ``build_station``, ``move_passenger``), from the tickets the
engine offered before each ``keep_tickets`` (``Game.offered``), from the final scoring breakdown
(``Game.result``), from how the game ended (``Game.outcome``) and, for tickets completed only
thanks to a station, from ``Game.ticket_report`` (status ``station``).

Pure standard library; the report module draws it.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from ..editions import Edition
from ..engine import Action, Game

# the parts a final score is made of, in the order the tables show them
SCORE_PARTS = (
    ("routes", "routes"),
    ("tickets_completed", "tickets completed"),
    ("tickets_failed", "tickets failed"),
    ("longest", "longest path"),
    ("globetrotter", "Globetrotter"),
    ("stations", "unused stations"),
    ("merchandise", "merchandise"),
)

LENGTH_BIN = 10  # turns per bin of the game-length histogram


def game_facts(rec: dict[str, Any], edition: Edition) -> dict[str, Any]:
    """Replay one record (as written by ``ttr.sim.runner.play_game``) and collect its lab facts."""
    g = Game(edition, rec["players"], rec["seed"], rec.get("options") or None)
    ed = g.edition
    route_by_id = {r.id: r for r in ed.routes}
    subst = g.rules.ferry_substitute_cards
    n = g.n
    offers: list[tuple[int, list[str], list[str]]] = []
    claims: list[tuple[str, int, int]] = []
    mech = [Counter() for _ in range(n)]  # type: list[Counter[str]]
    actors = rec.get("actors") or [None] * len(rec["actions"])  # who played each (setup: in any order)
    for raw, actor in zip(rec["actions"], actors, strict=False):
        a = Action.from_json(raw)
        p = g.current if actor is None else actor
        turn = g.turn
        if a.type == "keep_tickets":
            offers.append((p, [ed.tickets[t].id for t in g.offered[p]], list(a.tickets or ())))
        for e in g.apply(a, p):
            kind = e.type
            seat = e.player if e.player is not None else p
            data = e.data
            if kind == "claim":
                route = route_by_id[data["route"]]
                claims.append((route.id, seat, turn))
                cards = data["cards"]
                if route.ferry:
                    mech[seat]["ferries_claimed"] += 1
                    mech[seat]["ferry_locomotives"] += cards.get("locomotive", 0) + cards.get("locomotive_plus4", 0)
                    if subst:
                        mech[seat]["ferry_substitutions"] += (sum(cards.values()) - route.length) // (subst - 1)
                if route.substitute:
                    mech[seat]["substitute_sets"] += (sum(cards.values()) - route.length) // (route.substitute - 1)
            elif kind == "tunnel_reveal":
                mech[seat]["tunnels_attempted"] += 1
                if not data["extra"]:
                    mech[seat]["tunnels_free"] += 1
            elif kind == "tunnel_pay":
                mech[seat]["tunnels_paid"] += 1
                mech[seat]["tunnel_extra_cards"] += sum(data["cards"].values())
            elif kind == "tunnel_decline":
                mech[seat]["tunnels_declined"] += 1
            elif kind == "build_station":
                mech[seat]["stations_built"] += 1
            elif kind == "move_passenger":
                mech[seat]["passenger_moves"] += 1
                mech[seat]["passenger_tokens"] += sum(t["value"] for t in data["tokens"])
    res = g.result()
    outcome = g.outcome
    seats = []
    for p, row in enumerate(res["players"]):
        saved = sum(1 for t in g.ticket_report(p) if t["status"] == "station")
        m = mech[p]
        m["stations_borrowing"] += sum(1 for b in row["station_routes"].values() if b is not None)
        m["tickets_saved_by_stations"] += saved
        seats.append(
            {
                "bot": rec["bots"][p] if "bots" in rec else f"seat {p + 1}",
                "total": row["total"],
                "won": p in res["winners"],
                "parts": {
                    "routes": row["route_points"],
                    "tickets_completed": sum(t["points"] for t in row["tickets"] if t["completed"]),
                    "tickets_failed": -sum(t["points"] for t in row["tickets"] if not t["completed"]),
                    "longest": row["longest_path_bonus"],
                    "globetrotter": row["most_tickets_bonus"],
                    "stations": row["unused_station_points"],
                    "merchandise": row["merchandise"],
                },
                "tickets": [(t["id"], t["completed"], t["points"]) for t in row["tickets"]],
                "mechanisms": dict(m),
            }
        )
    assert outcome is not None, "the record does not end the game"
    return {
        "turns": g.turn,
        "end": outcome.reason.value,
        "passes": sum(1 for x in rec["actions"] if x.get("type") == "pass"),
        "winners": list(res["winners"]),
        "seats": seats,
        "offers": offers,
        "claims": claims,
    }


def edition_mechanisms(edition: Edition, players: int, options: dict[str, Any] | None = None) -> list[str]:
    """The mechanism groups this edition (with these options) has: tunnels, ferries, substitutions,
    stations, passengers."""
    g = Game(edition, players, 0, options or None)
    rules, edition = g.rules, g.edition
    out = []
    if any(r.tunnel for r in edition.routes):
        out.append("tunnels")
    if any(r.ferry for r in edition.routes):
        out.append("ferries")
    if rules.ferry_substitute_cards or any(r.substitute for r in edition.routes):
        out.append("substitutions")
    if rules.stations:
        out.append("stations")
    if rules.passengers:
        out.append("passengers")
    return out


MECHANISM_FIELDS = {
    "tunnels": [
        ("tunnels_attempted", "tunnels attempted"),
        ("tunnels_free", "no extra cards drawn"),
        ("tunnels_paid", "extra cards paid"),
        ("tunnels_declined", "declined"),
        ("tunnel_extra_cards", "extra cards spent"),
    ],
    "ferries": [("ferries_claimed", "ferries claimed"), ("ferry_locomotives", "locomotives spent on ferries")],
    "substitutions": [
        ("ferry_substitutions", "ferry locomotives replaced by card sets"),
        ("substitute_sets", "card sets on substitution routes"),
    ],
    "stations": [
        ("stations_built", "stations built"),
        ("stations_borrowing", "stations borrowing a route"),
        ("tickets_saved_by_stations", "tickets completed only thanks to stations"),
    ],
    "passengers": [("passenger_moves", "passenger moves"), ("passenger_tokens", "merchandise taken by passengers")],
}


def _mean(xs: Sequence[float]) -> float:
    return statistics.fmean(xs) if xs else 0.0


def length_histogram(turns: Iterable[int], width: int = LENGTH_BIN) -> dict[str, int]:
    """Turns binned by `width`: {"60-69": count, ...} in order."""
    counts = Counter(t // width for t in turns)
    if not counts:
        return {}
    lo, hi = min(counts), max(counts)
    return {f"{b * width}-{b * width + width - 1}": counts.get(b, 0) for b in range(lo, hi + 1)}


def lab_summary(
    facts: Sequence[dict[str, Any]], edition: Edition, players: int, options: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Per-bot score split and mechanisms, game length, end reasons, per-ticket and per-route tables."""
    n = len(facts)
    mechanisms = edition_mechanisms(edition, players, options)
    edition = Game(edition, players, 0, options or None).edition  # the map as the options make it
    fields = [f for group in mechanisms for f, _ in MECHANISM_FIELDS[group]]
    parts: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    mech: dict[str, Counter[str]] = defaultdict(Counter)
    seats: Counter[str] = Counter()
    offered: Counter[str] = Counter()
    kept: Counter[str] = Counter()
    held: dict[str, list[tuple[bool, int]]] = defaultdict(list)
    claimed_games: Counter[str] = Counter()
    claim_turns: dict[str, list[int]] = defaultdict(list)
    claim_by: dict[str, Counter[str]] = defaultdict(Counter)
    ends: Counter[str] = Counter()
    with_pass = 0
    turns = []
    for f in facts:
        turns.append(f["turns"])
        ends[f["end"]] += 1
        with_pass += 1 if f["passes"] else 0
        names = [s["bot"] for s in f["seats"]]
        for s in f["seats"]:
            seats[s["bot"]] += 1
            for key, _ in SCORE_PARTS:
                parts[s["bot"]][key].append(s["parts"][key])
            parts[s["bot"]]["total"].append(s["total"])
            mech[s["bot"]].update(s["mechanisms"])
            for tid, done, points in s["tickets"]:
                held[tid].append((done, points))
        for _, off, keep in f["offers"]:
            offered.update(off)
            kept.update(keep)
        for route, seat, turn in f["claims"]:
            claimed_games[route] += 1
            claim_turns[route].append(turn)
            claim_by[route][names[seat]] += 1
    bots = {}
    for name in sorted(seats):
        bots[name] = {
            "seats": seats[name],
            "score_parts": {key: _mean(parts[name][key]) for key, _ in SCORE_PARTS},
            "mean_score": _mean(parts[name]["total"]),
            "mechanisms": {f: mech[name][f] / seats[name] for f in fields},
        }
    tickets = {}
    for t in edition.tickets:
        h = held.get(t.id, [])
        done = sum(1 for d, _ in h if d)
        tickets[t.id] = {
            "points": t.points,
            "offered": offered[t.id],
            "kept": kept[t.id],
            "kept_rate": kept[t.id] / offered[t.id] if offered[t.id] else None,
            "held": len(h),
            "completed_rate": done / len(h) if h else None,
            "mean_points": _mean([p if d else -p for d, p in h]) if h else None,
        }
    routes = {}
    for r in edition.routes:
        c = claimed_games[r.id]
        routes[r.id] = {
            "length": r.length,
            "claim_rate": c / n if n else 0.0,
            "mean_claim_turn": _mean(claim_turns[r.id]) if c else None,
            "by": dict(sorted(claim_by[r.id].items())),
        }
    per_game = {f: sum(mech[b][f] for b in mech) / n if n else 0.0 for f in fields}
    return {
        "games": n,
        "bots": bots,
        "mechanisms": mechanisms,
        "mechanisms_per_game": per_game,
        "turns": turns,
        "length_histogram": length_histogram(turns),
        "ends": {"trains": ends.get("trains", 0), "stalemate": ends.get("stalemate", 0), "games_with_forced_pass": with_pass},
        "tickets": tickets,
        "routes": routes,
    }


def facts_for(records: Sequence[dict[str, Any]], edition: Edition) -> list[dict[str, Any]]:
    return [game_facts(r, edition) for r in records]
