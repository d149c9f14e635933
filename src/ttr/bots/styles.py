"""Sparring styles of the gauntlet (``ttr gauntlet``): the strong racer, a blocker and a ticket hoarder.

* ``racer`` keeps the fewest tickets it must, the lowest-valued ones, and abandons them; from the
  first turn it claims the longest routes still open (6s, then 5s, then 4s on the USA map), drawing
  the colour its next long route needs, never draws tickets, and uses its last trains on whatever
  fits so that the game ends early.
* ``blocker`` reads each opponent's likely tickets from public play only (the routes they claimed
  and the cities those connect) and claims the routes on their likely paths whose loss costs them
  the longest detour; otherwise it builds its own fewest, cheapest tickets.
* ``hoarder`` keeps every ticket its trains can cover and draws tickets again and again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..cards import LOCOMOTIVE, PLUS4
from ..editions import Edition, Ticket, per_edition
from ..engine.actions import DRAW_TICKETS, Action
from .board import INF, completion_chance, map_info, route_weights, shortest_path
from .personas import DestinationHungryBot
from .scripted import ScriptedBot
from .situation import Situation
from .tactics import card_needs, card_values, choose_draw

RACER_MIN_LENGTH = 4  # the racer's "long" routes; shorter ones only to spend its last trains
RACER_TARGETS = 6  # routes of the two longest classes it collects cards for, closest first


class RacerBot(ScriptedBot):
    """Required tickets only (abandoned), longest routes first, fastest end (see module docstring)."""

    name = "racer"
    tunnel_max_extra = 2
    plan_tries = 1

    def keep_value(self, s: Situation, chosen: Sequence[Ticket]) -> float:
        # The fewest tickets allowed, and of those the lowest-valued: they will be lost.
        return -1000.0 * len(chosen) - sum(t.points for t in chosen)

    def choose_mix(self, s: Situation, legal: Sequence[Action]) -> Action:
        # Märklin: the mix with the fewest long tickets (short ones lose fewer points).
        return min(legal, key=lambda a: (dict(a.mix or ()).get("long", 0), a.mix or ()))

    def missing(self, s: Situation, r: int) -> int:
        """Cards still missing to pay route r from the hand alone."""
        info = s.info
        hand = s.hand
        c = info.colour[r]
        have = max(hand[:8]) if c < 0 else hand[c]
        ferry = info.ferry[r]
        wild = hand[LOCOMOTIVE] + hand[PLUS4]
        if s.rules.locomotives_wild == "all" or info.tunnel[r] or ferry:
            return max(0, ferry - wild) + max(0, info.length[r] - ferry - have - max(0, wild - ferry))
        return max(0, ferry - wild) + max(0, info.length[r] - ferry - have)

    def long_class(self, s: Situation) -> int:
        """The longest length among the routes still open to this player (its current target class)."""
        best = 0
        for r in s.info.by_length:
            if s.weights[r] not in (0.0, INF):
                best = s.info.length[r]
                break
        return best

    def targets(self, s: Situation) -> list[int]:
        if "racer_targets" in s.memo:
            cached: list[int] = s.memo["racer_targets"]
            return cached
        info = s.info
        top = self.long_class(s)
        floor = max(RACER_MIN_LENGTH, top - 1) if top >= RACER_MIN_LENGTH else 1
        usable = [r for r in info.by_length if s.weights[r] not in (0.0, INF) and info.length[r] >= floor]
        # The routes of the longest class first, the one the hand is closest to first.
        usable.sort(key=lambda r: (-info.length[r], self.missing(s, r), -info.points[r], r))
        out = usable[:RACER_TARGETS]
        s.memo["racer_targets"] = out
        return out

    def draw(self, s: Situation, legal: Sequence[Action], targets: Sequence[int] | None = None) -> Action | None:
        routes = list(self.targets(s) if targets is None else targets)
        if not routes:
            return choose_draw(s.view, legal, [0.05] * len(s.hand))
        # Collect toward every target: more of the cards drawn are useful (measured: 6 targets end
        # the game at turn 65 instead of 70 at 2-player USA, one target at 70).
        needs = card_needs(s.info, s.rules, routes, s.hand)
        values = card_values(s.info, s.rules, needs, routes, s.hand)
        return choose_draw(s.view, legal, values)

    def turn(self, s: Situation, legal: Sequence[Action]) -> Action:
        if s.last_turn:
            best = self.best_immediate(s, legal)
            if best is not None:
                return best
        top = self.long_class(s)
        floor = max(RACER_MIN_LENGTH, top) if top >= RACER_MIN_LENGTH else 1
        action = self.points_claim(s, legal, min_length=floor)
        if action is None and top >= RACER_MIN_LENGTH and top - 1 >= RACER_MIN_LENGTH:
            # A payable route one class shorter, when the longest class is still far from payable.
            targets = self.targets(s)
            if targets and self.missing(s, targets[0]) >= 3:
                action = self.points_claim(s, legal, min_length=top - 1)
        if action is None and (top < RACER_MIN_LENGTH or s.turns_left <= 3):
            action = self.points_claim(s, legal)  # spend the last trains: the game ends sooner
        if action is None:
            action = self.passenger_move(s, legal, threshold=6)
        return action or self.draw(s, legal) or self.fallback(s, legal)


# ---------------------------------------------------------------------- blocker


@per_edition
def _fresh_costs(edition: Edition) -> list[float]:
    """Each ticket's cheapest path cost on the empty board (the reference for 'how much is built')."""
    info = map_info(edition)
    weights = route_weights(info, [-1] * info.nroutes, 5, 0, 10**6)
    return [shortest_path(info, weights, t.a_nodes, t.b_nodes)[0] for t in edition.tickets]


BLOCK_LIKELY = 3  # tickets per opponent taken as its likely ones
BLOCK_MIN_SHARE = 0.25  # ... when at least this share of their path is built
BLOCK_MIN_GAIN = 2.0  # a block is worth a turn when it costs the opponent this much more (weighted)


class BlockerBot(ScriptedBot):
    """Claims the routes on opponents' likely paths (inferred from public play), else builds its own."""

    name = "blocker"
    plan_tries = 1

    def __init__(self, seed: int | None = None, **options: Any) -> None:
        super().__init__(seed, **options)
        self._block_key: tuple[int, ...] | None = None
        self._block_scores: dict[int, float] = {}

    def reset(self) -> None:
        super().reset()
        self._block_key = None
        self._block_scores = {}

    def keep_value(self, s: Situation, chosen: Sequence[Ticket]) -> float:
        plan = s.plan_for([*s.undone, *chosen], tries=1)
        return -10 * len(chosen) - plan.trains - 100 * len(plan.dropped)

    def likely_tickets(self, s: Situation, q: int) -> list[tuple[float, Ticket, float, list[int]]]:
        """(share built, ticket, current cost, routes still missing) for q's most likely tickets.

        Only public facts: q's claimed routes, and the public list of every ticket of the edition.
        A ticket is likely when a large share of its cheapest path is already q's track.
        """
        view = s.view
        info = s.info
        ed = view.edition
        owner = view.route_owner
        touched = [False] * info.ncities
        any_route = False
        for r, o in enumerate(owner):
            if o == q:
                touched[info.route_a[r]] = touched[info.route_b[r]] = True
                any_route = True
        if not any_route:
            return []
        fresh = _fresh_costs(ed)
        weights = route_weights(info, owner, view.players, q, view.trains[q])
        out = []
        for t in ed.tickets:
            if not (any(touched[n] for n in t.a_nodes) or any(touched[n] for n in t.b_nodes)):
                continue
            if fresh[t.index] == INF or fresh[t.index] <= 0:
                continue
            cost, claim, _ = shortest_path(info, weights, t.a_nodes, t.b_nodes)
            if cost == INF or not claim:
                continue  # done or impossible for q: nothing to block
            share = 1.0 - cost / fresh[t.index]
            if share >= BLOCK_MIN_SHARE:
                out.append((share, t, cost, claim))
        out.sort(key=lambda x: (-x[0], x[1].index))
        return out[:BLOCK_LIKELY]

    def block_scores(self, s: Situation) -> dict[int, float]:
        """Per open route: the detour its loss would cost the opponents, weighted by likelihood."""
        key = tuple(s.view.route_owner)
        if key == self._block_key:
            return self._block_scores
        view = s.view
        info = s.info
        scores: dict[int, float] = {}
        for q in range(view.players):
            if q == s.me:
                continue
            weights = route_weights(info, view.route_owner, view.players, q, view.trains[q])
            for share, t, cost, claim in self.likely_tickets(s, q):
                for r in claim:
                    if s.weights[r] in (0.0, INF):
                        continue  # we cannot take it
                    # Our claim closes the sibling lanes too when not every lane may be used.
                    group = info.group[r]
                    closed = [r]
                    if group >= 0 and view.players < info.all_lanes_min_players:
                        closed = list(info.group_routes[group])
                    saved = [weights[x] for x in closed]
                    for x in closed:
                        weights[x] = INF
                    detour, _, _ = shortest_path(info, weights, t.a_nodes, t.b_nodes)
                    for x, w in zip(closed, saved, strict=True):
                        weights[x] = w
                    gain = min(detour - cost, 2.0 * t.points) if detour < INF else 2.0 * t.points
                    scores[r] = scores.get(r, 0.0) + share * gain
        self._block_key, self._block_scores = key, scores
        return scores

    def block_targets(self, s: Situation) -> list[int]:
        scores = self.block_scores(s)
        return sorted((r for r, v in scores.items() if v >= BLOCK_MIN_GAIN), key=lambda r: (-scores[r], r))[:3]

    def targets(self, s: Situation) -> list[int]:
        own = s.plan.routes or self.point_targets(s)
        return self.block_targets(s)[:2] + [r for r in own if r not in self.block_targets(s)[:2]]

    def turn(self, s: Situation, legal: Sequence[Action]) -> Action:
        if s.last_turn:
            best = self.best_immediate(s, legal)
            if best is not None:
                return best
        ed = s.view.edition
        claims = self.usable_claims(s, legal)
        scores = self.block_scores(s)
        blocks = [ed.route_index[rid] for rid in claims if scores.get(ed.route_index[rid], 0.0) >= BLOCK_MIN_GAIN]
        if blocks:
            r = max(blocks, key=lambda r: (scores[r], -r))
            return self.pay(s, claims[ed.routes[r].id])
        ready = [r for r in s.plan.routes if ed.routes[r].id in claims]
        if ready:
            return self.pay(s, claims[ed.routes[ready[0]].id])
        action = self.station_rescue(s, legal) or self.passenger_move(s, legal)
        if action is None and (not s.plan.routes or s.trains <= 5):
            action = self.points_claim(s, legal, min_length=1 if s.trains <= 5 else 4)
        return action or self.draw(s, legal) or self.fallback(s, legal)


# ---------------------------------------------------------------------- hoarder

HOARD_MIN_TRAINS = 10  # draws tickets while it has this many trains ...
HOARD_MAX_PLAN = 18  # ... and its plan needs this many or fewer


class HoarderBot(DestinationHungryBot):
    """Keeps every ticket its trains can cover and draws tickets whenever its plan is nearly built."""

    name = "hoarder"

    def keep_value(self, s: Situation, chosen: Sequence[Ticket]) -> float:
        plan = s.plan_for([*s.undone, *chosen])
        p = completion_chance(s.trains - plan.trains, INF)
        ed = s.view.edition
        kept = sum(ed.tickets[t].points * (2 * p - 1) for t in plan.open)
        return kept - sum(ed.tickets[t].points for t in plan.dropped) + 0.5 * len(chosen)

    def wants_tickets(self, s: Situation) -> bool:
        if not any(s.view.ticket_deck_sizes.values()) or s.trains < HOARD_MIN_TRAINS:
            return False
        return s.plan.trains <= HOARD_MAX_PLAN and s.trains - s.plan.trains >= 6

    def turn(self, s: Situation, legal: Sequence[Action]) -> Action:
        if not s.last_turn and self.wants_tickets(s):
            draw = [a for a in legal if a.type == DRAW_TICKETS]
            ed = s.view.edition
            claims = self.usable_claims(s, legal)
            if draw and not any(ed.routes[r].id in claims for r in s.plan.routes):
                return self.choose_mix(s, draw) if draw[0].mix is not None else draw[0]
        return super().turn(s, legal)
