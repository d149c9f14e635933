"""A fast playout policy for search: the planner's core habits at a fraction of its cost.

It runs on a complete ``Game`` (a determinization the search bot sampled itself, never the real
game) and moves for every player: plan a network over the player's open tickets (one ticket order,
recomputed only when a planned route is lost), claim a planned route as soon as the hand pays for
it, otherwise draw the colours the plan needs; with no plan left, claim long routes for points.
It keeps the tickets whose joint network pays best (points minus half a point per train, over a
budget of 60% of its trains), draws new tickets with its tickets done only while everyone still
has plenty of trains, always pays tunnels it can, and skips stations and passenger trips. Against
the planner at 2-player USA these keep and draw rules took the policy from 26% to 44% wins
(``benchmarks/bench_playout.py``). Actions are built directly and checked by ``Game.step``.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..cards import LOCOMOTIVE, NCARDS, NO_CARD, PLUS4
from ..engine import Action, Game
from ..engine import payments as pay
from ..engine.actions import A_DRAW_BLIND, A_DRAW_FACEUP, CLAIM, DRAW_TICKETS, KEEP_TICKETS
from ..engine.phases import Phase
from ..engine.scoring import ticket_done
from .board import MapInfo, map_info, plan_network, route_weights
from .planner import TEMPO_OVERHEAD, TEMPO_POINTS_WEIGHT
from .situation import turn_weights

TICKET_MIN_TRAINS = 25  # draw new tickets only with this many trains of one's own...
TICKET_MIN_ALL = 20  # ... and while every player has at least this many
KEEP_TRAIN_COST = 0.5  # points a kept network must earn per train it needs
KEEP_BUDGET = 0.6  # share of one's trains a kept network may need before each extra train costs 3 points
A_DRAW_TICKETS = Action(DRAW_TICKETS)


class RolloutPolicy:
    """Moves for any player of a sampled game (see module docstring)."""

    def __init__(self, game: Game, plans: dict[int, list[int]] | None = None, tempo: bool = False) -> None:
        """`plans` optionally fixes a player's target routes (the searching bot's own plan), kept until
        one of them is lost or the player's tickets change. With `tempo` every player plans with the
        planner's tempo weights (``situation.turn_weights``: fewer, longer routes), as `hard` does."""
        self.info: MapInfo = map_info(game.edition)
        self.tempo = tempo
        self.targets: list[list[int] | None] = [None] * game.n
        self.ticket_count = [-1] * game.n
        for p, routes in (plans or {}).items():
            self.targets[p] = sorted(routes, key=lambda r: -self.info.length[r])
            self.ticket_count[p] = len(game.tickets[p])

    def plan(self, g: Game, p: int) -> list[int]:
        """Routes p still wants, longest first (cached while p's tickets stay and no target is lost)."""
        targets = self.targets[p]
        owner = g.route_owner
        if (
            targets is not None
            and self.ticket_count[p] == len(g.tickets[p])
            and all(owner[r] < 0 or owner[r] == p for r in targets)
        ):
            return [r for r in targets if owner[r] < 0]
        self.ticket_count[p] = len(g.tickets[p])
        ed = g.edition
        labels = g.connectivity(p)
        undone = [ed.tickets[t] for t in g.tickets[p] if not ticket_done(labels, ed.tickets[t])]
        routes: list[int] = []
        if undone:
            weights = route_weights(self.info, owner, g.n, p, g.trains[p])
            if self.tempo:
                weights = turn_weights(self.info, weights, TEMPO_OVERHEAD, TEMPO_POINTS_WEIGHT)
            routes = plan_network(self.info, weights, undone, g.trains[p], tries=1).routes
        routes.sort(key=lambda r: -self.info.length[r])
        self.targets[p] = routes
        return routes

    def payment(self, g: Game, p: int, r: int) -> tuple[int, ...] | None:
        """The cheapest payment for route r (fewest locomotives), or None if p cannot claim it now."""
        route = g.edition.routes[r]
        if g.route_owner[r] >= 0 or g.trains[p] < route.length or (route.group >= 0 and g.lane_closed(route, p)):
            return None
        hand = g.hands[p]
        info = self.info
        c = info.colour[r]
        if not route.substitute and not route.ferry and not route.tunnel:  # quick reject before listing payments
            have = max(hand[:8]) if c < 0 else hand[c]
            if have + hand[LOCOMOTIVE] + hand[PLUS4] < route.length:
                return None
        options = pay.route_payments(route, hand, g.rules)
        if not options:
            return None
        return min(options, key=lambda cards: (cards[LOCOMOTIVE] + cards[PLUS4], sum(cards)))

    def act(self, g: Game) -> Action:
        phase = g.phase
        p = g.current
        if phase == Phase.TURN:
            return self._turn(g, p)
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
        if not targets and self._wants_tickets(g, p) and not self._holds_unfinished(g, p):
            pol = g.rules.draw_tickets
            if pol.choose_mix:
                mixes = g.ticket_mixes()
                if mixes:
                    return Action(DRAW_TICKETS, mix=min(mixes, key=lambda m: (dict(m).get("long", 0), m)))
            else:
                return A_DRAW_TICKETS
        if not targets or g.trains[p] <= 5 or g.final_turns >= 0:
            best = None
            for r in self.info.by_length:
                if self.info.length[r] < (3 if targets == [] and g.trains[p] > 5 and g.final_turns < 0 else 1):
                    break
                cards = self.payment(g, p, r)
                if cards is not None:
                    best = Action(CLAIM, route=ids[r].id, cards=cards)
                    break
            if best is not None:
                return best
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
        targets = self.targets[p] or []
        hand = g.hands[p]
        info = self.info
        want = [0] * NCARDS
        for r in targets[:4]:
            c = info.colour[r]
            if c >= 0 and hand[c] < info.length[r]:
                want[c] += 1
        market = g.market
        best_slot = -1
        for i, c in enumerate(market):
            if c != NO_CARD and c < 8 and want[c]:
                best_slot = i
                break
        if best_slot >= 0:
            return A_DRAW_FACEUP[best_slot]
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
