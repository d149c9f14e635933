"""The common frame of the scripted bots: phase dispatch, plan caching, and the decisions every
scripted bot makes the same way (card draws toward its targets, tunnels, passengers, ticket mixes,
last-turn points, what to do when nothing useful is left).

A subclass decides what it is after by overriding ``targets`` (routes it wants, most wanted first),
``keep_value`` (how it rates a set of tickets) and ``turn`` (its whole-turn choice).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..cards import LOCOMOTIVE, PLUS4
from ..editions import Ticket
from ..engine.actions import (
    BUILD_STATION,
    CLAIM,
    DRAW_BLIND,
    DRAW_FACEUP,
    DRAW_TICKETS,
    KEEP_TICKETS,
    MOVE_PASSENGER,
    PASS,
    Action,
)
from ..engine.phases import Phase
from ..engine.view import PlayerView
from .base import Bot
from .board import ROUTE_OVERHEAD, Plan, completion_chance, shortest_path
from .situation import Situation
from .tactics import (
    best_passenger_move,
    best_payment,
    card_needs,
    card_values,
    choose_draw,
    claims_by_route,
    payment_cost,
    place_choice,
    trip_value,
    tunnel_choice,
    tunnel_spare,
)


class ScriptedBot(Bot):
    """Base of the rule-based bots (see module docstring)."""

    name = "scripted"
    plan_tries = 3  # ticket orders tried by the network planner
    clock_hand = 0.0  # the game clock counts each opponent card in hand as this much of a train laid
    hand_cost = 0.0  # share of a route's length costed as cards to collect when planning (0: length only)
    overhead = ROUTE_OVERHEAD  # planning weight of a claim turn (see situation.turn_weights)
    points_weight = 0.0  # planning credit per route point
    tunnel_max_extra = 1  # surcharge paid for a tunnel the bot does not really need

    def __init__(self, seed: int | None = None, **options: Any) -> None:
        super().__init__(seed, **options)
        self._plan_key: tuple[Any, ...] | None = None
        self._plan: Plan | None = None
        self.history: list[tuple[int, tuple[int, ...]]] = []  # (turn, trains per player) seen, for the game clock

    def reset(self) -> None:
        self._plan_key = None
        self._plan = None
        self.history.clear()

    # ------------------------------------------------------------------ dispatch
    def act(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        s = self.situation(view)
        phase = view.phase
        if phase in (Phase.SETUP, Phase.KEEP_TICKETS):
            if legal[0].type == DRAW_TICKETS:
                return self.choose_mix(s, legal)
            return self.keep(s, legal)
        if phase == Phase.SECOND_CARD:
            return self.draw(s, legal) or legal[0]
        if phase == Phase.TUNNEL:
            r = view.tunnel[0] if view.tunnel else -1
            wanted = r in self.targets(s) or bool(s.completes(r))
            return tunnel_choice(view, legal, wanted, self.tunnel_max_extra)
        if phase == Phase.PLACE_PASSENGER:
            return place_choice(view, legal, set(s.plan.routes))
        return self.turn(s, legal)

    def situation(self, view: PlayerView) -> Situation:
        """The Situation for `view`, reusing the network plan while the board and tickets are unchanged."""
        me = view.me
        assert me is not None
        key = (
            me,
            tuple(view.route_owner),
            tuple(view.tickets),
            view.trains[me],
            tuple(view.station_owner),
            view.stations_left[me],
            tuple(view.hand or ()) if self.hand_cost else (),
            self.plan_key(view),
        )
        plan = self._plan if key == self._plan_key else None
        if not self.history or self.history[-1][0] != view.turn:
            self.history.append((view.turn, tuple(view.trains)))
        s = self.make_situation(view, plan)
        self._plan_key, self._plan = key, s.plan
        return s

    def make_situation(self, view: PlayerView, plan: Plan | None) -> Situation:
        return Situation(
            view,
            tries=self.plan_tries,
            plan=plan,
            history=self.history,
            hand_cost=self.hand_cost,
            clock_hand=self.clock_hand,
            overhead=self.overhead,
            points_weight=self.points_weight,
            extra_weights=self.extra_weights(view),
        )

    def plan_key(self, view: PlayerView) -> tuple[Any, ...]:
        """What else, beyond the board, tickets and trains, the plan depends on (replan when it changes)."""
        return ()

    def extra_weights(self, view: PlayerView) -> list[float] | None:
        """Extra planning weight per route (None: none); see ``Situation``."""
        return None

    # ------------------------------------------------------------------ what the bot wants
    def targets(self, s: Situation) -> list[int]:
        """Routes the bot wants, most wanted first (drives card draws and tunnel payments)."""
        return s.plan.routes or self.point_targets(s)

    def point_targets(self, s: Situation, count: int = 3) -> list[int]:
        """Long routes the hand is closest to, for a bot with nothing better to build."""
        info = s.info
        usable = [r for r in info.by_length if s.weights[r] not in (0.0, float("inf"))]
        hand = s.hand
        wild = hand[LOCOMOTIVE] + hand[PLUS4] if s.rules.locomotives_wild == "all" else 0

        def missing(r: int) -> int:
            c = info.colour[r]
            have = max(hand[:8]) if c < 0 else hand[c]
            return max(0, info.length[r] - have - wild)

        usable.sort(key=lambda r: (-(info.points[r] - 1.5 * missing(r)), r))
        return usable[:count]

    # ------------------------------------------------------------------ tickets
    def keep(self, s: Situation, legal: Sequence[Action]) -> Action:
        ed = s.view.edition
        offered = {ed.tickets[t].id: ed.tickets[t] for t in s.view.offered}
        scored = [
            (self.keep_value(s, [offered[i] for i in a.tickets or ()]), -len(a.tickets or ()), a.tickets, a)
            for a in legal
            if a.type == KEEP_TICKETS
        ]
        return max(scored, key=lambda x: x[:3])[3]

    def keep_value(self, s: Situation, chosen: Sequence[Ticket]) -> float:
        """Expected points if `chosen` are added to the tickets still open (see ``plan_value``)."""
        return self.plan_value(s, s.plan_for([*s.undone, *chosen]))

    def plan_value(self, s: Situation, plan: Plan) -> float:
        """Expected points of a plan: ticket points weighted by the chance of finishing it, plus its
        route points minus what its trains would earn on the best long routes instead."""
        work = s.turns_needed(plan)
        p = completion_chance(s.trains - plan.trains, s.turns_left - work, work)
        ed = s.view.edition
        value = sum(ed.tickets[t].points * (2 * p - 1) for t in plan.open)
        value -= sum(ed.tickets[t].points for t in plan.dropped)
        value += sum(s.info.points[r] for r in plan.routes) - self.train_value(s) * plan.trains
        return value

    def train_value(self, s: Situation) -> float:
        """Points a spare train earns on the longest routes still open (discounted: they must be paid for)."""
        if "train_value" not in s.memo:
            best = self.point_targets(s, 3)
            value = 1.0
            if best:
                value = 0.9 * sum(s.info.points[r] for r in best) / sum(s.info.length[r] for r in best)
            s.memo["train_value"] = value
        return s.memo["train_value"]

    def choose_mix(self, s: Situation, legal: Sequence[Action]) -> Action:
        """Märklin: how many short and long tickets to draw (long ones only while trains are plentiful)."""
        spare = s.trains - s.plan.trains
        want_long = 2 if spare >= 35 else 1 if spare >= 18 else 0
        return min(legal, key=lambda a: (abs(dict(a.mix or ()).get("long", 0) - want_long), a.mix or ()))

    def wants_tickets(self, s: Situation) -> bool:
        return False

    # ------------------------------------------------------------------ cards
    def usable_claims(self, s: Situation, legal: Sequence[Action]) -> dict[str, list[Action]]:
        """Claims by route, without tunnel payments that leave no spare card for the surcharge.

        A tunnel reveals three cards; each of the paid colour or a locomotive costs one more card.
        Claiming with no spare card means declining most of the time, which wastes the turn.
        """
        claims = claims_by_route(legal)
        if s.turns_left <= 2 or s.last_turn:
            return claims
        ed = s.view.edition
        hand = s.hand
        out: dict[str, list[Action]] = {}
        for rid, options in claims.items():
            if ed.routes[ed.route_index[rid]].tunnel:
                options = [a for a in options if tunnel_spare(hand, a.cards) >= 1]  # type: ignore[arg-type]
                if not options:
                    continue
            out[rid] = options
        return out

    def draw(self, s: Situation, legal: Sequence[Action], targets: Sequence[int] | None = None) -> Action | None:
        routes = list(self.targets(s) if targets is None else targets)
        needs = s.needs if routes == s.plan.routes else card_needs(s.info, s.rules, routes, s.hand)
        values = card_values(s.info, s.rules, needs, routes, s.hand)
        return choose_draw(s.view, legal, values)

    def pay(self, s: Situation, options: Sequence[Action]) -> Action:
        others = [r for r in s.plan.routes if s.view.edition.routes[r].id != options[0].route]
        needs = card_needs(s.info, s.rules, others, s.hand) if others else None
        scarce = needs is not None and needs.wild_deficit > 0
        return best_payment(options, needs, scarce)

    # ------------------------------------------------------------------ turn
    def turn(self, s: Situation, legal: Sequence[Action]) -> Action:  # pragma: no cover - interface
        raise NotImplementedError

    def immediate_value(self, s: Situation, action: Action) -> float:
        """Points an action is worth right now, counting tickets it completes (for last turns)."""
        ed = s.view.edition
        if action.type == CLAIM:
            r = ed.route_index[action.route]  # type: ignore[index]
            return s.info.points[r] + 2 * sum(t.points for t in s.completes(r))
        if action.type == MOVE_PASSENGER:
            return trip_value(s.view, action)
        if action.type == BUILD_STATION:
            return self.station_value(s, ed.city_index[action.city]) - s.rules.unused_station_points  # type: ignore[index]
        return 0.0

    def station_value(self, s: Situation, city: int) -> float:
        """Ticket points a station on `city` would rescue (best single borrowed route into it)."""
        info = s.info
        owner = s.view.route_owner
        best = 0.0
        for r, _other in info.adjacency[city]:
            if owner[r] < 0 or owner[r] == s.me:
                continue
            best = max(best, 2 * sum(t.points for t in s.completes(r)))
        return best

    def best_immediate(self, s: Situation, legal: Sequence[Action]) -> Action | None:
        best: Action | None = None
        best_value = 0.0
        claims = self.usable_claims(s, legal)
        for options in claims.values():
            a = self.pay(s, options)
            v = self.immediate_value(s, a)
            if v > best_value:
                best, best_value = a, v
        for a in legal:
            if a.type in (MOVE_PASSENGER, BUILD_STATION):
                v = self.immediate_value(s, a)
                if v > best_value:
                    best, best_value = a, v
        return best

    def station_rescue(self, s: Situation, legal: Sequence[Action]) -> Action | None:
        """Build a station when the borrowed route is the last missing piece of a planned ticket."""
        if not s.stations or not s.plan.borrowed:
            return None
        info = s.info
        station = s.view.station_owner
        cities: set[int] = set()
        for t, borrowed in s.plan.ticket_borrowed.items():
            if not borrowed or any(r in s.plan.routes for r in s.plan.ticket_routes.get(t, ())):
                continue
            for r in borrowed:
                ends = (info.route_a[r], info.route_b[r])
                if any(station[c] == s.me for c in ends):
                    continue  # already covered by one of our stations
                cities.update(c for c in ends if station[c] < 0 and not info.is_area[c])
        if not cities:
            return None
        ids = {s.view.edition.city_ids[c] for c in cities}
        options = [a for a in legal if a.type == BUILD_STATION and a.city in ids]
        if not options:
            return None
        best = min(options, key=lambda a: (payment_cost(a.cards, s.needs, s.needs.wild_deficit > 0), a.city, a.cards))  # type: ignore[arg-type]
        return best if self.station_value(s, s.view.edition.city_index[best.city]) > 0 else None  # type: ignore[index]

    def passenger_move(self, s: Situation, legal: Sequence[Action], threshold: float | None = None) -> Action | None:
        """Märklin: move a passenger when the trip is worth it (the bar drops as the game ends)."""
        best, value = best_passenger_move(s.view, legal)
        if best is None:
            return None
        if threshold is None:
            threshold = 1 if s.turns_left <= 3 else 6 if s.turns_left <= 8 else 12
        return best if value >= threshold else None

    def points_claim(self, s: Situation, legal: Sequence[Action], min_length: int = 1) -> Action | None:
        """The claim worth most route points now (ties: fewer locomotives)."""
        claims = self.usable_claims(s, legal)
        best: Action | None = None
        best_key: tuple[float, ...] = (-1.0,)
        ed = s.view.edition
        for rid, options in claims.items():
            r = ed.route_index[rid]
            if s.info.length[r] < min_length:
                continue
            a = self.pay(s, options)
            key = (s.info.points[r] + 2 * sum(t.points for t in s.completes(r)), -payment_cost(a.cards, None, False))  # type: ignore[arg-type]
            if key > best_key:
                best, best_key = a, key
        return best

    def fallback(self, s: Situation, legal: Sequence[Action]) -> Action:
        """Nothing useful to do: prefer moves that cost no points (the rule gaps of FDG 2017 live here)."""
        for kind in (CLAIM, MOVE_PASSENGER, DRAW_BLIND, DRAW_FACEUP):
            options = [a for a in legal if a.type == kind]
            if options:
                if kind == CLAIM:
                    return self.points_claim(s, options) or options[0]
                if kind == MOVE_PASSENGER:
                    return max(options, key=lambda a: (trip_value(s.view, a), a.path))
                return options[0]
        useful = [a for a in legal if a.type == BUILD_STATION and self.station_value(s, s.view.edition.city_index[a.city]) > 0]  # type: ignore[index]
        if useful:
            return useful[0]
        for kind in (DRAW_TICKETS, BUILD_STATION, PASS):
            options = [a for a in legal if a.type == kind]
            if options:
                return options[0]
        return legal[0]

    # ------------------------------------------------------------------ helpers for subclasses
    def individual_path(self, s: Situation, ticket: Ticket) -> list[int]:
        """Routes still to claim on the cheapest path for one ticket on its own."""
        return shortest_path(s.info, s.weights, ticket.a_nodes, ticket.b_nodes)[1]
