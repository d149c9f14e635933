"""End of turn and of the game (the final round when a player is low on trains; a stalemate when every
player passes in one round) and final scoring: routes, tickets (with stations), longest path, most
tickets, unused stations, merchandise, ranks and tie-breakers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..editions import Edition, Ticket
from ..errors import IllegalAction
from .actions import (
    Action,
)
from .events import Event
from .phases import OVER, TURN
from .scoring import best_station_routes, components, longest_trail, ticket_done

if TYPE_CHECKING:
    from .game import Game


# ------------------------------------------------------------------ end of turn / game
def end_turn(g: Game, ev: list[Event] | None, passed: bool = False) -> None:
    p = g.current
    if not passed:
        g.pass_streak = 0
    g.phase = TURN
    if g.final_turns >= 0:
        g.final_turns -= 1
        if g.final_turns == 0:
            finish(g, ev, "final round complete")
            return
    elif g.trains[p] <= g.rules.end_trigger_trains:
        g.final_turns = g.n
        if ev is not None:
            ev.append(Event("final_round", p, {"trains": g.trains[p]}))
    if g.pass_streak >= g.n:
        finish(g, ev, "stalemate: every player passed in one full round")
        return
    g.current = g._next(p)
    g.turn += 1


def finish(g: Game, ev: list[Event] | None, why: str) -> None:
    g.phase = OVER
    if ev is not None:
        ev.append(Event("game_over", None, {"reason": why, "result": result(g)}))


# ------------------------------------------------------------------ scoring
def connectivity(g: Game, p: int) -> list[int]:
    """Component label per city over player p's own routes (cached until p claims again)."""
    labels = g._labels[p]
    if labels is None:
        routes = g.edition.routes
        labels = components(g.edition.ncities, ((routes[i].a, routes[i].b) for i, o in enumerate(g.route_owner) if o == p))
        g._labels[p] = labels
    return labels


def ticket_status(g: Game, p: int) -> list[tuple[Ticket, bool]]:
    labels = connectivity(g, p)
    return [(g.edition.tickets[t], ticket_done(labels, g.edition.tickets[t])) for t in g.tickets[p]]


def result(g: Game) -> dict[str, Any]:
    """Final-scoring breakdown (as if the game ended now) and ranks with the tie-breakers.

    Once the game is over the breakdown is computed once and the same dict is returned (treat it
    as read-only)."""
    if g._final_result is not None:
        return g._final_result
    res = score(g)
    if g.phase == OVER:
        g._final_result = res
    return res


def score(g: Game) -> dict[str, Any]:
    ed, r = g.edition, g.rules
    players: list[dict[str, Any]] = []
    for p in range(g.n):
        own = [i for i, o in enumerate(g.route_owner) if o == p]
        route_points = sum(ed.routes[i].points for i in own)
        tickets = [ed.tickets[t] for t in g.tickets[p]]
        stations = [c for c, o in enumerate(g.station_owner) if o == p]
        ticket_points, borrowed, done = best_station_routes(ed, own, stations, g.route_owner, p, tickets)
        length, trail = longest_trail(ed, own)
        players.append(
            {
                "player": p,
                "route_points": route_points,
                "merchandise": sum(g.tokens[p]),
                "tickets": [{"id": t.id, "points": t.points, "completed": d} for t, d in zip(tickets, done, strict=True)],
                "ticket_points": ticket_points,
                "tickets_completed": sum(done),
                "longest_path": length,
                "longest_path_routes": [ed.routes[i].id for i in trail],
                "longest_path_bonus": 0,
                "stations_built": len(stations),
                "station_routes": {ed.city_ids[c]: (ed.routes[b].id if b is not None else None) for c, b in borrowed.items()},
                "unused_station_points": g.stations_left[p] * r.unused_station_points,
                "most_tickets_bonus": 0,
            }
        )
    for x, bonus in zip(players, bonus_to([x["longest_path"] for x in players], r.longest_path_bonus), strict=True):
        x["longest_path_bonus"] = bonus
    for x, bonus in zip(players, bonus_to([x["tickets_completed"] for x in players], r.most_tickets_bonus), strict=True):
        x["most_tickets_bonus"] = bonus
    for x in players:
        x["total"] = (
            x["route_points"]
            + x["merchandise"]
            + x["ticket_points"]
            + x["longest_path_bonus"]
            + x["unused_station_points"]
            + x["most_tickets_bonus"]
        )

    def key(x: dict[str, Any]) -> tuple[int, ...]:
        return (x["total"], *(tiebreak_value(t, x) for t in r.tiebreakers))

    keys = [key(x) for x in players]
    for x, k in zip(players, keys, strict=True):
        x["rank"] = 1 + sum(1 for other in keys if other > k)
    winners = [x["player"] for x in players if x["rank"] == 1]
    return {
        "edition": ed.id,
        "over": g.phase == OVER,
        "turns": g.turn,
        "players": players,
        "winners": winners,
        "tiebreakers": list(r.tiebreakers),
    }


def bonus_to(values: list[int], bonus: int) -> list[int]:
    """The bonus each player gets for the most of `values` (longest path, tickets completed): every
    player with the top value, if it is above 0."""
    top = max(values)
    return [bonus if bonus and top > 0 and v == top else 0 for v in values]


def totals(g: Game) -> list[int]:
    """Each player's ``total`` of ``result()``, without the breakdown or the ranks (a search scores every
    playout with it): route points, merchandise, tickets (over the player's own network, or through
    its stations as ``best_station_routes`` chooses), unused stations, and the longest-path and
    most-tickets bonuses. A player's longest path is searched only while it could still be the longest:
    players are taken by trains laid, most first, and one with fewer trains laid than a path already
    found cannot reach it."""
    ed, r = g.edition, g.rules
    routes = ed.routes
    own: list[list[int]] = [[] for _ in range(g.n)]
    out = [0] * g.n
    for i, o in enumerate(g.route_owner):
        if o >= 0:
            own[o].append(i)
            out[o] += routes[i].points
    stations: list[list[int]] = [[] for _ in range(g.n)]
    for c, o in enumerate(g.station_owner):
        if o >= 0:
            stations[o].append(c)
    completed = [0] * g.n
    for p in range(g.n):
        tickets = [ed.tickets[t] for t in g.tickets[p]]
        if stations[p]:
            points, _, done = best_station_routes(ed, own[p], stations[p], g.route_owner, p, tickets)
            completed[p] = sum(done)
        else:
            labels = connectivity(g, p)
            points = 0
            for t in tickets:
                if ticket_done(labels, t):
                    points += t.points
                    completed[p] += 1
                else:
                    points -= t.points
        out[p] += points + sum(g.tokens[p]) + g.stations_left[p] * r.unused_station_points
    if r.longest_path_bonus:
        laid = [sum(routes[i].length for i in mine) for mine in own]
        longest = list(laid)  # an upper bound, exact for the players searched below
        top = 0
        for p in sorted(range(g.n), key=lambda q: -laid[q]):
            if laid[p] < top:
                break
            longest[p] = longest_trail(ed, own[p])[0]
            top = max(top, longest[p])
        for p, bonus in enumerate(bonus_to(longest, r.longest_path_bonus)):
            out[p] += bonus
    for p, bonus in enumerate(bonus_to(completed, r.most_tickets_bonus)):
        out[p] += bonus
    return out


def tiebreak_value(tiebreaker: str, x: dict[str, Any]) -> int:
    """A player's value for one tie-breaker (higher ranks first), from their line of ``result()``."""
    if tiebreaker == "tickets_completed":
        return int(x["tickets_completed"])
    if tiebreaker == "longest_path_bonus":
        return 1 if x["longest_path_bonus"] else 0
    if tiebreaker == "longest_path_length":
        return int(x["longest_path"])
    if tiebreaker == "fewest_stations":
        return -int(x["stations_built"])
    raise ValueError(f"unknown tie-breaker {tiebreaker!r}")


def tie_breaks(res: dict[str, Any]) -> list[dict[str, Any]]:
    """How each tie on points in `res` (a ``result()``) was settled, by the edition's tie-breakers in order.

    Per group of two or more players with the same total: ``total``, ``players`` (by seat), ``steps`` (the
    tie-breakers looked at, each with every tied player's ``values`` by seat; ``fewest_stations`` gives
    the stations built) up to the first that tells them apart, and ``shared`` (no tie-breaker settled it:
    they share their rank). The client words this; it computes nothing."""
    players = res["players"]
    out: list[dict[str, Any]] = []
    for total in sorted({x["total"] for x in players}, reverse=True):
        group = [x for x in players if x["total"] == total]
        if len(group) < 2:
            continue
        steps: list[dict[str, Any]] = []
        for tb in res["tiebreakers"]:
            shown = {str(x["player"]): abs(tiebreak_value(tb, x)) for x in group}
            steps.append({"tiebreaker": tb, "values": shown})
            if len({tiebreak_value(tb, x) for x in group}) > 1:
                break
        shared = len({x["rank"] for x in group}) == 1
        out.append({"total": total, "players": [x["player"] for x in group], "steps": steps, "shared": shared})
    return out


def check_pass(g: Game, a: Action, p: int) -> None:
    """Passing: a whole turn, only when nothing else is possible."""
    if g.phase != TURN:
        raise IllegalAction("pass is only a whole turn", "wrong_phase")
    if g.turn_actions(p):
        raise IllegalAction("pass is allowed only when no other action is possible", "pass_not_allowed")


def ticket_report(g: Game, p: int) -> list[dict[str, Any]]:
    """Player p's tickets now, scored as the game's end would (stations borrow their best opponent route):
    per ticket its id, points, ``status`` (``done`` over own routes, ``station`` thanks to a station,
    ``open``) and ``path``, the route ids of one connection (fewest routes) when it is complete."""
    ed = g.edition
    own = [i for i, o in enumerate(g.route_owner) if o == p]
    tks = [ed.tickets[t] for t in g.tickets[p]]
    base_done = [ticket_done(g.connectivity(p), t) for t in tks]
    stations = [c for c, o in enumerate(g.station_owner) if o == p]
    _, borrowed, done = best_station_routes(ed, own, stations, g.route_owner, p, tks)
    usable = own + [r for r in borrowed.values() if r is not None]
    out = []
    for t, mine, ok in zip(tks, base_done, done, strict=True):
        status = "done" if mine else ("station" if ok else "open")
        path = _shortest_path(ed, usable, t) if ok else []
        out.append({"id": t.id, "points": t.points, "status": status, "path": [ed.routes[r].id for r in path]})
    return out


def _shortest_path(ed: Edition, usable: list[int], t: Ticket) -> list[int]:
    """Fewest routes joining one end of `t` to the other over `usable` (breadth first); [] if none."""
    adj: dict[int, list[tuple[int, int]]] = {}
    for r in usable:
        route = ed.routes[r]
        adj.setdefault(route.a, []).append((route.b, r))
        adj.setdefault(route.b, []).append((route.a, r))
    goal = set(t.b_nodes)
    prev: dict[int, tuple[int, int] | None] = {c: None for c in t.a_nodes}
    queue = list(prev)
    for c in queue:
        if c in goal:
            path: list[int] = []
            step = prev[c]
            while step is not None:
                path.append(step[1])
                step = prev[step[0]]
            return path[::-1]
        for nxt, r in adj.get(c, ()):
            if nxt not in prev:
                prev[nxt] = (c, r)
                queue.append(nxt)
    return []
