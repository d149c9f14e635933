"""The four playtesting personas of de Mesentier Silva, Lee, Togelius and Nealen, "AI-based
Playtesting of Contemporary Board Games" (FDG 2017), as this project defines them (docs/bots.md
states each definition in full):

* Destination Hungry — collects tickets and builds the cheapest joint network for all of them;
* Route Focus — one ticket at a time, route by route along that ticket's own shortest path;
* One-Step Thinking — plays the action that improves its position most right now, no plan;
* Long Route Exploiter — claims long routes for their points and ends the game fast.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..editions import Ticket
from ..engine.actions import BUILD_STATION, DRAW_BLIND, DRAW_FACEUP, DRAW_TICKETS, MOVE_PASSENGER, Action
from .board import INF, completion_chance, shortest_path
from .scripted import ScriptedBot
from .situation import Situation
from .tactics import blind_value, card_needs, card_values, payment_cost


def _draw_tickets(s: Situation, bot: ScriptedBot, legal: Sequence[Action]) -> Action | None:
    draw = [a for a in legal if a.type == DRAW_TICKETS]
    if not draw:
        return None
    return bot.choose_mix(s, draw) if draw[0].mix is not None else draw[0]


class DestinationHungryBot(ScriptedBot):
    """Keeps every ticket its trains can cover, plans one joint network, draws tickets again when done."""

    name = "destination_hungry"

    def keep_value(self, s: Situation, chosen: Sequence[Ticket]) -> float:
        plan = s.plan_for([*s.undone, *chosen])
        p = completion_chance(s.trains - plan.trains, INF)  # optimistic: trains are the only limit it sees
        ed = s.view.edition
        return sum(ed.tickets[t].points * (2 * p - 1) for t in plan.open) - sum(ed.tickets[t].points for t in plan.dropped)

    def wants_tickets(self, s: Situation) -> bool:
        if not any(s.view.ticket_deck_sizes.values()):
            return False
        spare = s.trains - s.plan.trains
        return (not s.plan.open and s.trains >= 6) or (s.plan.trains <= 3 and spare >= 10)

    def turn(self, s: Situation, legal: Sequence[Action]) -> Action:
        if s.last_turn:
            best = self.best_immediate(s, legal)
            if best is not None:
                return best
        ed = s.view.edition
        claims = self.usable_claims(s, legal)
        ready = sorted((r for r in s.plan.routes if ed.routes[r].id in claims), key=lambda r: (-s.info.length[r], r))
        if ready:
            return self.pay(s, claims[ed.routes[ready[0]].id])
        action = self.station_rescue(s, legal) or self.passenger_move(s, legal)
        if action is None and self.wants_tickets(s):
            action = _draw_tickets(s, self, legal)
        if action is None and not s.plan.routes:
            action = self.points_claim(s, legal, min_length=1 if s.trains <= 4 else 3)
        return action or self.draw(s, legal) or self.fallback(s, legal)


class RouteFocusBot(ScriptedBot):
    """Works through its tickets one at a time (most valuable first) along each one's own shortest path."""

    name = "route_focus"

    def keep_value(self, s: Situation, chosen: Sequence[Ticket]) -> float:
        value = -100.0 * len(chosen)  # the fewest tickets allowed ...
        for t in chosen:  # ... with the best points per train on their own
            cost = shortest_path(s.info, s.weights, t.a_nodes, t.b_nodes)[0]
            value += -50 if cost == INF or cost > s.trains else t.points / max(cost, 1.0)
        return value

    def focus(self, s: Situation) -> tuple[Ticket | None, list[int]]:
        """The most valuable open ticket that can still be completed, and its remaining routes."""
        for t in sorted(s.undone, key=lambda t: (-t.points, t.index)):
            cost, claim, _ = shortest_path(s.info, s.weights, t.a_nodes, t.b_nodes)
            if cost < INF and sum(s.info.length[r] for r in claim) <= s.trains:
                return t, sorted(claim, key=lambda r: (-s.info.length[r], r))
        return None, []

    def targets(self, s: Situation) -> list[int]:
        return self.focus(s)[1] or self.point_targets(s)

    def turn(self, s: Situation, legal: Sequence[Action]) -> Action:
        if s.last_turn:
            best = self.best_immediate(s, legal)
            if best is not None:
                return best
        ed = s.view.edition
        claims = self.usable_claims(s, legal)
        ticket, path = self.focus(s)
        for r in path:
            if ed.routes[r].id in claims:
                return self.pay(s, claims[ed.routes[r].id])
        action = self.passenger_move(s, legal)
        if action is None and ticket is None:
            if s.trains >= 15 and any(s.view.ticket_deck_sizes.values()):
                action = _draw_tickets(s, self, legal)
            if action is None:
                action = self.station_rescue(s, legal) or self.points_claim(s, legal, min_length=1 if s.trains <= 4 else 3)
        return action or self.draw(s, legal) or self.fallback(s, legal)


class OneStepThinkingBot(ScriptedBot):
    """Rates every legal action by its immediate gain and plays the best one; no plan, no memory.

    Gains are in points: a claim is worth half its route points (cards held keep their value),
    twice the tickets it completes and the shortening of its tickets' paths; a card is worth
    about one point when a ticket path needs its colour.
    """

    name = "one_step"

    def keep_value(self, s: Situation, chosen: Sequence[Ticket]) -> float:
        value = -100.0 * len(chosen)
        for t in chosen:
            cost = shortest_path(s.info, s.weights, t.a_nodes, t.b_nodes)[0]
            value -= 50 if cost == INF or cost > s.trains else cost
        return value

    def paths(self, s: Situation) -> list[int]:
        routes: list[int] = []
        for t in s.undone:
            for r in self.individual_path(s, t):
                if r not in routes:
                    routes.append(r)
        return routes

    def targets(self, s: Situation) -> list[int]:
        return self.paths(s) or self.point_targets(s)

    def progress(self, s: Situation, r: int) -> float:
        """How much claiming r shortens the paths of the open tickets (in planning weight)."""
        weights = list(s.weights)
        gain = 0.0
        for t in s.undone:
            before = shortest_path(s.info, weights, t.a_nodes, t.b_nodes)[0]
            if before == INF:
                continue
            saved = weights[r]
            weights[r] = 0.0
            after = shortest_path(s.info, weights, t.a_nodes, t.b_nodes)[0]
            weights[r] = saved
            gain += before - after
        return gain

    def turn(self, s: Situation, legal: Sequence[Action]) -> Action:
        targets = self.targets(s)
        needs = card_needs(s.info, s.rules, targets, s.hand)
        values = card_values(s.info, s.rules, needs, targets, s.hand)
        blind = blind_value(values, s.view) * 2  # a draw is two cards
        ed = s.view.edition
        best: Action | None = None
        best_value = -INF
        for rid, options in self.usable_claims(s, legal).items():
            r = ed.route_index[rid]
            a = self.pay(s, options)
            v = (
                0.5 * s.info.points[r]
                + 2 * sum(t.points for t in s.completes(r))
                + self.progress(s, r)
                - 0.3 * payment_cost(a.cards, needs, False)
            )  # type: ignore[arg-type]
            if v > best_value:
                best, best_value = a, v
        for a in legal:
            if a.type == DRAW_BLIND:
                v = blind
            elif a.type == DRAW_FACEUP:
                v = values[s.view.market[a.slot]] * 2  # type: ignore[index]
            elif a.type in (MOVE_PASSENGER, BUILD_STATION):
                v = self.immediate_value(s, a)
            elif a.type == DRAW_TICKETS:
                v = 2.0 if not s.undone and s.trains >= 12 else -INF
            else:
                continue
            if v > best_value:
                best, best_value = a, v
        return best or self.fallback(s, legal)

    def draw(self, s: Situation, legal: Sequence[Action], targets: Sequence[int] | None = None) -> Action | None:
        return super().draw(s, legal, self.targets(s) if targets is None else targets)


class LongRouteExploiterBot(ScriptedBot):
    """Claims the longest routes it can for their points, keeps the fewest tickets, never draws more."""

    name = "long_route"
    tunnel_max_extra = 2

    def keep_value(self, s: Situation, chosen: Sequence[Ticket]) -> float:
        value = -100.0 * len(chosen)
        for t in chosen:  # tickets whose path is made of long (high points per train) routes
            path = self.individual_path(s, t)
            trains = sum(s.info.length[r] for r in path)
            value += -50 if not path and not t.a_nodes else sum(s.info.points[r] for r in path) / max(trains, 1)
            if trains > s.trains:
                value -= 50
        return value

    def long_min(self, s: Situation) -> int:
        """The length that counts as long: 5+ while enough such routes remain open, else 4, else 3."""
        open_lengths = [s.info.length[r] for r in range(s.info.nroutes) if s.weights[r] not in (0.0, INF)]
        for length in (5, 4):
            if sum(1 for x in open_lengths if x >= length) >= 3:
                return length
        return 3

    def targets(self, s: Situation) -> list[int]:
        return self.point_targets(s, 3)

    def turn(self, s: Situation, legal: Sequence[Action]) -> Action:
        if s.last_turn:
            best = self.best_immediate(s, legal)
            if best is not None:
                return best
        action = self.points_claim(s, legal, min_length=self.long_min(s))
        if action is None:
            ed = s.view.edition
            claims = self.usable_claims(s, legal)
            ready = [r for r in s.plan.routes if ed.routes[r].id in claims and s.info.length[r] >= 3]
            if ready:
                action = self.pay(s, claims[ed.routes[ready[0]].id])
        if action is None and s.trains <= 5:
            action = self.points_claim(s, legal)
        if action is None:
            action = self.passenger_move(s, legal, threshold=8)
        return action or self.draw(s, legal) or self.fallback(s, legal)
