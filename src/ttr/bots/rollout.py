"""A fast playout policy for search: the planner's core habits at a fraction of its cost.

It runs on a complete ``Game`` (a determinization the search bot sampled itself, never the real
game) and moves for every player: plan a network over the player's open tickets (one ticket order,
recomputed only when a planned route is lost), claim a planned route as soon as the hand pays for
it, otherwise draw the colours the plan needs; with no plan left, claim long routes for points.
It keeps the tickets whose joint network pays best (points minus half a point per train, over a
budget of 60% of its trains), draws new tickets with its tickets done only while everyone still
has plenty of trains, always pays tunnels it can, and skips stations. Against the planner at
2-player USA these keep and draw rules took the policy from 26% to 44% wins
(``benchmarks/bench_playout.py``). On Märklin its passengers travel once the end nears
(``TRIP_RULES``): without that the playouts' scores missed the merchandise, and the policy won 15.8%
against the planner instead of 29.5% (200 games). Actions are built directly and checked by ``Game.step``.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Sequence
from typing import Any

from ..cards import COLOURS, LOCOMOTIVE, NCARDS, NO_CARD, PLUS4
from ..editions import Edition, per_edition
from ..engine import Action, Game
from ..engine import payments as pay
from ..engine.actions import A_DRAW_BLIND, A_DRAW_FACEUP, CLAIM, DRAW_TICKETS, KEEP_TICKETS, MOVE_PASSENGER
from ..engine.passengers import passenger_trails
from ..engine.phases import Phase
from ..engine.scoring import ticket_done
from .board import ROUTE_OVERHEAD, MapInfo, map_info, plan_network, route_weights
from .planner import TEMPO_OVERHEAD, TEMPO_POINTS_WEIGHT
from .situation import turn_weights
from .styles import RACER_MIN_LENGTH, RACER_TARGETS

TICKET_MIN_TRAINS = 25  # draw new tickets only with this many trains of one's own...
TICKET_MIN_ALL = 20  # ... and while every player has at least this many
KEEP_TRAIN_COST = 0.5  # points a kept network must earn per train it needs
KEEP_BUDGET = 0.6  # share of one's trains a kept network may need before each extra train costs 3 points
# Märklin: a passenger travels (no passenger cards spent) once the end nears, when its best trip is worth
# this much: (every player has at most this many trains, least merchandise points); the final round: 1
TRIP_RULES = ((5, 1), (12, 6))
A_DRAW_TICKETS = Action(DRAW_TICKETS)
NCOLOURS = len(COLOURS)


PaymentRule = tuple[bool, int, int, int, bool, bool]


class PaymentTable:
    """Per edition, what ``RolloutPolicy.payment`` needs of each route, and where each length starts
    in ``MapInfo.by_length`` (to skip the routes no hand of a given size pays for)."""

    def __init__(self, edition: Edition) -> None:
        rules = edition.rules
        # per route: (paid without "any cards", length, colour, locomotives required, locomotives wild,
        # +4 locomotives wild)
        self.rules: list[PaymentRule] = []
        for route in edition.routes:
            loco_ok, plus4_ok = pay.wild_allowed(route, rules)
            direct = not route.substitute and not (route.ferry and rules.ferry_substitute_cards)
            self.rules.append((direct, route.length, route.colour, route.ferry, loco_ok, plus4_ok))
        self.all_direct = all(rule[0] for rule in self.rules)
        by_length = map_info(edition).by_length
        longest = max((route.length for route in edition.routes), default=0)
        # first_at_most[n]: index in by_length of the first route of length n or less
        self.first_at_most = [
            next((i for i, r in enumerate(by_length) if edition.routes[r].length <= n), len(by_length))
            for n in range(longest + 1)
        ]


@per_edition
def payment_table(edition: Edition) -> PaymentTable:
    return PaymentTable(edition)


@per_edition
def open_weights(edition: Edition) -> tuple[list[float], list[float]]:
    """Per route, its planning weight while open and within reach: plain (``route_weights``) and with
    the tempo weights (``turn_weights`` of the plain one), computed once per edition."""
    info = map_info(edition)
    plain = [length + ROUTE_OVERHEAD for length in info.length]
    tempo = turn_weights(info, plain, TEMPO_OVERHEAD, TEMPO_POINTS_WEIGHT)
    return plain, tempo


class RolloutPolicy:
    """Moves for any player of a sampled game (see module docstring)."""

    def __init__(
        self,
        game: Game,
        plans: dict[int, list[int]] | None = None,
        tempo: bool = False,
        memo: dict[Hashable, Any] | None = None,
        racers: Collection[int] = (),
    ) -> None:
        """`plans` optionally fixes a player's target routes (the searching bot's own plan), kept until
        one of them is lost or the player's tickets change. With `tempo` every player plans with the
        planner's tempo weights (``situation.turn_weights``: fewer, longer routes), as `hard` does.

        `memo`, shared by the policies of one search, keeps each plan and ticket choice by everything
        it depends on (the routes' owners, the player, its trains and tickets, the offer), so that
        playouts of the same root position do not plan the same network again. The policy must keep
        one `tempo` for the memo's life.

        `racers`: players moved like the gauntlet's racer (``race``) instead of as ticket builders."""
        self.info: MapInfo = map_info(game.edition)
        self.pays = payment_table(game.edition)
        self.pay_rules = self.pays.rules
        self.tempo = tempo
        self.open_weight = open_weights(game.edition)[1 if tempo else 0]
        self.memo: dict[Hashable, Any] = {} if memo is None else memo
        self.targets: list[list[int] | None] = [None] * game.n
        self.ticket_count = [-1] * game.n
        self.racers = frozenset(racers)
        for p, routes in (plans or {}).items():
            self.targets[p] = sorted(routes, key=lambda r: -self.info.length[r])
            self.ticket_count[p] = len(game.tickets[p])

    def plan(self, g: Game, p: int) -> list[int]:
        """Routes p still wants, longest first (cached while p's tickets stay and no target is lost)."""
        targets = self.targets[p]
        owner = g.route_owner
        if targets is not None and self.ticket_count[p] == len(g.tickets[p]):
            still_open: list[int] = []
            for r in targets:
                o = owner[r]
                if o < 0:
                    still_open.append(r)
                elif o != p:
                    break  # a target was lost: plan again
            else:
                return still_open
        self.ticket_count[p] = len(g.tickets[p])
        key = ("plan", p, tuple(owner), g.trains[p], tuple(g.tickets[p]))
        planned: tuple[int, ...] | None = self.memo.get(key)
        if planned is None:
            ed = g.edition
            labels = g.connectivity(p)
            undone = [ed.tickets[t] for t in g.tickets[p] if not ticket_done(labels, ed.tickets[t])]
            routes: list[int] = []
            if undone:
                weights = route_weights(self.info, owner, g.n, p, g.trains[p], self.open_weight)
                routes = plan_network(self.info, weights, undone, g.trains[p], tries=1).routes
            routes.sort(key=lambda r: -self.info.length[r])
            planned = self.memo[key] = tuple(routes)
        routes = list(planned)
        self.targets[p] = routes
        return routes

    def payment(self, g: Game, p: int, r: int) -> tuple[int, ...] | None:
        """The cheapest payment for route r (fewest locomotives), or None if p cannot claim it now.

        The payment ``min(route_payments(...), key=(wild cards, cards))`` would choose: for a route
        without "any cards" (no substitution sets, no ferry paid with them) it is computed directly
        (``payment_rule``); others ask the engine for the canonical payments."""
        if g.route_owner[r] >= 0:
            return None
        direct, length, colour, ferry, loco_ok, plus4_ok = self.pay_rules[r]
        if g.trains[p] < length:
            return None
        hand = g.hands[p]
        if direct:
            nplus = hand[PLUS4] if plus4_ok else 0
            wild = nplus + (hand[LOCOMOTIVE] if loco_ok else 0)
            if colour >= 0:
                c = colour
                w = max(ferry, length - hand[c])
            else:  # the first colour needing the fewest wild cards, as the engine lists colours in order
                c = 0
                w = max(ferry, length - hand[0])
                for k in range(1, NCOLOURS):
                    wk = max(ferry, length - hand[k])
                    if wk < w:
                        c, w = k, wk
            if w > wild:
                return None
        route = g.edition.routes[r]
        if route.group >= 0 and g.lane_closed(route, p):
            return None
        if not direct:
            options = pay.route_payments(route, hand, g.rules)
            if not options:
                return None
            return min(options, key=lambda cards: (cards[LOCOMOTIVE] + cards[PLUS4], sum(cards)))
        cards = [0] * NCARDS
        cards[c] = length - w
        p4 = min(w, nplus)
        cards[PLUS4] = p4
        cards[LOCOMOTIVE] = w - p4
        return tuple(cards)

    def longest_payable(self, g: Game, p: int, min_length: int, among: int | None = None) -> tuple[int, tuple[int, ...]] | None:
        """The first route of ``MapInfo.by_length`` (the first `among` of it, if given) of `min_length`
        or more that p can claim now, with its payment (None if none). Routes longer than p's trains
        or than the hand's most cards of one colour plus its wild cards are skipped unasked when every
        route is paid without "any cards" (``payment`` would refuse them)."""
        by_length = self.info.by_length
        length = self.info.length
        stop = len(by_length) if among is None else min(among, len(by_length))
        start = 0
        if self.pays.all_direct:
            hand = g.hands[p]
            most = min(g.trains[p], max(hand[:NCOLOURS]) + hand[LOCOMOTIVE] + hand[PLUS4])
            first = self.pays.first_at_most
            start = first[min(most, len(first) - 1)]
        for i in range(start, stop):
            r = by_length[i]
            if length[r] < min_length:
                return None
            cards = self.payment(g, p, r)
            if cards is not None:
                return r, cards
        return None

    def act(self, g: Game) -> Action:
        phase = g.phase
        p = g.current
        if phase == Phase.TURN:
            return self.race(g, p) if p in self.racers else self._turn(g, p)
        if phase == Phase.SECOND_CARD:
            return self._draw(g, p, second=True) or g.legal_actions()[0]
        legal = g.legal_actions()
        if phase in (Phase.SETUP, Phase.KEEP_TICKETS) and legal[0].type == KEEP_TICKETS:
            return self._keep(g, p, legal)
        if phase == Phase.TUNNEL:
            return legal[0]  # the cheapest payment comes first; decline is last
        return legal[0]

    def _keep(self, g: Game, p: int, legal: Sequence[Action]) -> Action:
        """The tickets whose network, joined to the tickets still open, pays best (see module docstring)."""
        key = ("keep", p, tuple(g.route_owner), g.trains[p], tuple(g.tickets[p]), tuple(legal))
        choice: Action | None = self.memo.get(key)
        if choice is None:
            choice = self.memo[key] = self._best_keep(g, p, legal)
        return choice

    def _best_keep(self, g: Game, p: int, legal: Sequence[Action]) -> Action:
        ed = g.edition
        weights = route_weights(self.info, g.route_owner, g.n, p, g.trains[p])
        labels = g.connectivity(p)
        held = [ed.tickets[t] for t in g.tickets[p] if not ticket_done(labels, ed.tickets[t])]
        budget = g.trains[p] * KEEP_BUDGET
        best, best_value = legal[0], -float("inf")
        for a in legal:
            chosen = [ed.tickets[ed.ticket_index[t]] for t in a.tickets or ()]
            plan = plan_network(self.info, weights, held + chosen, g.trains[p], tries=1)
            value = (
                sum(t.points for t in chosen)
                - 2 * sum(ed.tickets[t].points for t in plan.dropped)
                - KEEP_TRAIN_COST * plan.trains
                - 3 * max(0.0, plan.trains - budget)
            )
            if value > best_value:
                best, best_value = a, value
        return best

    def _turn(self, g: Game, p: int) -> Action:
        targets = self.plan(g, p)
        ids = g.edition.routes
        for r in targets:
            cards = self.payment(g, p, r)
            if cards is not None:
                return Action(CLAIM, route=ids[r].id, cards=cards)
        if g.rules.passengers:
            trip = self._trip(g, p)
            if trip is not None:
                return trip
        if not targets and self._wants_tickets(g, p) and not self._holds_unfinished(g, p):
            pol = g.rules.draw_tickets
            if pol.choose_mix:
                mixes = g.ticket_mixes()
                if mixes:
                    return Action(DRAW_TICKETS, mix=min(mixes, key=lambda m: (dict(m).get("long", 0), m)))
            else:
                return A_DRAW_TICKETS
        if not targets or g.trains[p] <= 5 or g.final_turns >= 0:
            found = self.longest_payable(g, p, 3 if targets == [] and g.trains[p] > 5 and g.final_turns < 0 else 1)
            if found is not None:
                return Action(CLAIM, route=ids[found[0]].id, cards=found[1])
        return self._draw_or_any(g, p)

    @staticmethod
    def _trip(g: Game, p: int) -> Action | None:
        """Märklin: p's best passenger trip over its own routes, once the end nears and it pays enough
        (``TRIP_RULES``); as the planner's trips do, this keeps the merchandise in the playouts' scores."""
        fewest = -1 if g.final_turns >= 0 else min(g.trains)
        need = next((points for trains, points in TRIP_RULES if fewest <= trains), None)
        if need is None:
            return None
        best: tuple[int, int, list[int]] | None = None
        for city in g.passengers[p]:
            if city >= 0:
                trip = passenger_trails(g, p, city, 0).get(0)
                if trip is not None and trip[0] >= need and (best is None or trip[0] > best[0]):
                    best = (trip[0], city, trip[1])
        if best is None:
            return None
        ed = g.edition
        return Action(MOVE_PASSENGER, city=ed.city_ids[best[1]], path=tuple(ed.routes[r].id for r in best[2]))

    def race(self, g: Game, p: int) -> Action:
        """A racer's turn (``styles.RacerBot``, simplified): claim the longest payable route of the two
        longest classes still open to p (4 or longer), or any route once those are gone, in the final
        round or with 5 trains or fewer; else draw the colours of the first of those long routes."""
        info = self.info
        length = info.length
        owner = g.route_owner
        trains = g.trains[p]
        routes = g.edition.routes
        targets: list[int] = []
        floor = 0
        for r in info.by_length:
            if owner[r] >= 0 or length[r] > trains or (routes[r].group >= 0 and g.lane_closed(routes[r], p)):
                continue
            if not floor:
                top = length[r]
                floor = max(RACER_MIN_LENGTH, top - 1) if top >= RACER_MIN_LENGTH else 1
            if length[r] < floor or len(targets) == RACER_TARGETS:
                break
            targets.append(r)
        self.targets[p] = targets
        short = floor < RACER_MIN_LENGTH or trains <= 5 or g.final_turns >= 0
        found = self.longest_payable(g, p, 1 if short else floor)
        if found is not None:
            return Action(CLAIM, route=routes[found[0]].id, cards=found[1])
        return self._draw_or_any(g, p)

    def _draw_or_any(self, g: Game, p: int) -> Action:
        """Draw toward p's targets, else the first legal claim, else the first legal move."""
        draw = self._draw(g, p, second=False)
        if draw is not None:
            return draw
        legal = g.legal_actions()
        claims = [a for a in legal if a.type == CLAIM]
        return claims[0] if claims else legal[0]

    def _holds_unfinished(self, g: Game, p: int) -> bool:
        """Whether p still holds a ticket it has not completed (then it draws no more)."""
        ed = g.edition
        labels = g.connectivity(p)
        return any(not ticket_done(labels, ed.tickets[t]) for t in g.tickets[p])

    @staticmethod
    def _wants_tickets(g: Game, p: int) -> bool:
        """With the plan done, plenty of trains and no end in sight, draw tickets (as the planner would)."""
        if g.trains[p] < TICKET_MIN_TRAINS or g.final_turns >= 0 or min(g.trains) < TICKET_MIN_ALL:
            return False
        pol = g.rules.draw_tickets
        decks = pol.decks if pol.choose_mix else tuple(d for d, _ in pol.deal)
        return any(g.ticket_decks.get(d) for d in decks)

    def _draw(self, g: Game, p: int, second: bool) -> Action | None:
        """A face-up card of a colour the plan lacks, else a blind card."""
        targets = self.targets[p]
        market = g.market
        if targets:
            hand = g.hands[p]
            colour = self.info.colour
            length = self.info.length
            want = 0  # bit c: the hand lacks cards of colour c (0-7) for one of the first 4 targets
            for r in targets[:4]:
                c = colour[r]
                if c >= 0 and hand[c] < length[r]:
                    want |= 1 << c
            if want:
                for i, c in enumerate(market):
                    if c >= 0 and want >> c & 1:
                        return A_DRAW_FACEUP[i]
        if g.deck or g.discard:
            return A_DRAW_BLIND
        for i, c in enumerate(market):
            if c != NO_CARD and not (second and c == LOCOMOTIVE and g.rules.faceup_locomotive_single):
                return A_DRAW_FACEUP[i]
        return None


def play_out(g: Game, policy: RolloutPolicy, max_steps: int = 2000) -> None:
    """Play `g` to the end (at most `max_steps` decisions) with `policy`.

    Strict: an illegal move from the policy raises ``IllegalAction`` (a bug in the policy), never a
    silent substitute."""
    steps = 0
    while not g.is_over and steps < max_steps:
        g.step(policy.act(g))
        steps += 1
