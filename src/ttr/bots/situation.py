"""A bot's reading of its ``PlayerView``: its network, the plan over its tickets, what the plan needs
and how many turns the game probably has left. Built once per board state and cached.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..cards import LOCOMOTIVE, PLUS4
from ..editions import Rules, Ticket
from ..engine.view import PlayerView
from .board import (
    INF,
    ROUTE_OVERHEAD,
    MapInfo,
    Plan,
    components,
    map_info,
    plan_network,
    route_weights,
    ticket_connected,
)
from .tactics import Needs, card_needs

STATION_WEIGHT = 8.0  # planning weight of borrowing an opponent's route through a station (a rescue, not a habit)
CLOCK_PRIOR_TURNS = 6  # prior: a player spends about 1.2 trains a turn over a whole game
CLOCK_PRIOR_RATE = 1.2
RECENT_WINDOW = 8  # turns per player over which the recent pace is measured
MIN_WEIGHT = 0.2  # the least planning weight of an open route (weights must stay positive)
FACE_UP_HELP = 0.25  # extra chance a drawn card is useful thanks to the five face-up cards


def turns_left(view: PlayerView, history: Sequence[tuple[int, Sequence[int]]] = (), hand_weight: float = 0.0) -> float:
    """Estimated turns each player still gets before the game ends (0 in the final round).

    Each player's pace is the larger of their average pace (with a prior) and their recent pace
    from `history` ((turn, trains per player) pairs the bot remembered), because players claim
    faster once their hands are built.
    """
    if view.final_turns >= 0:
        return 0.0
    rules = view.edition.rules
    n = view.players
    each = max(0, view.turn) / n
    past = None
    for turn, trains in history:
        if view.turn - turn >= RECENT_WINDOW * n:
            past = (turn, trains)
        else:
            break
    best = INF
    for q in range(n):
        # Cards in hand (a public count) are trains about to be laid: with hand_weight > 0 each
        # counts as that much of a train already spent.
        held = hand_weight * max(0, view.hand_sizes[q] - rules.starting_hand) if hand_weight else 0.0
        held = min(held, float(view.trains[q]))
        used = rules.trains - view.trains[q] + held
        rate = (used + CLOCK_PRIOR_RATE * CLOCK_PRIOR_TURNS) / (each + CLOCK_PRIOR_TURNS)
        if past is not None:
            rate = max(rate, (past[1][q] - view.trains[q]) / ((view.turn - past[0]) / n))
        best = min(best, max(0, view.trains[q] - held - rules.end_trigger_trains) / max(rate, 0.5))
    return best + 1.0


RACER_MIN_CLAIMS = 2  # a style is read from at least this many claims ...
RACER_MIN_MEAN_LENGTH = 4.0  # ... a racer's claims average this many trains or more ...


def seen_racers(view: PlayerView) -> list[int]:
    """Opponents whose public play looks like a racer's: long routes and no ticket draws.

    From public facts only: an opponent counts as racing when it has claimed at least
    ``RACER_MIN_CLAIMS`` routes averaging ``RACER_MIN_MEAN_LENGTH`` trains or more and holds no more
    tickets than the fewest the setup lets a player keep (it has never drawn and kept more).
    """
    return racer_evidence(view)[0]


def racer_evidence(view: PlayerView) -> tuple[list[int], list[int]]:
    """(the opponents seen racing (``seen_racers``), those whose style public play cannot tell yet): an
    opponent is undecided while it holds no more tickets than the fewest a player may keep and has claimed
    fewer than ``RACER_MIN_CLAIMS`` routes. The others play like ticket builders."""
    info = map_info(view.edition)
    fewest = view.edition.rules.initial_tickets.keep_min
    claimed = [0] * view.players
    trains = [0] * view.players
    for r, o in enumerate(view.route_owner):
        if o >= 0:
            claimed[o] += 1
            trains[o] += info.length[r]
    seen: list[int] = []
    undecided: list[int] = []
    for q in range(view.players):
        if q == view.me or view.ticket_counts[q] > fewest:
            continue
        if claimed[q] < RACER_MIN_CLAIMS:
            undecided.append(q)
        elif trains[q] >= RACER_MIN_MEAN_LENGTH * claimed[q]:
            seen.append(q)
    return seen, undecided


def hand_weights(info: MapInfo, rules: Rules, weights: Sequence[float], hand: Sequence[int], share: float) -> list[float]:
    """Planning weights that cost a route by the cards still missing for it, given the hand.

    `weights` are ``length + ROUTE_OVERHEAD`` for open routes; a share `share` of the length is
    counted as cards to collect, so a route the hand already pays for costs ``(1 - share) × length
    + overhead`` and one with no card in hand costs what it did. Each route is costed against the
    whole hand on its own (a cheap estimate: routes of one colour share the cards).
    """
    out = list(weights)
    wild = hand[LOCOMOTIVE] + hand[PLUS4]
    wild_all = rules.locomotives_wild == "all"
    best = max(hand[:8])
    for r, w in enumerate(weights):
        if w == 0.0 or w == INF:
            continue
        length = info.length[r]
        c = info.colour[r]
        have = best if c < 0 else hand[c]
        ferry = info.ferry[r]
        usable_wild = wild if (wild_all or info.tunnel[r] or ferry) else min(wild, ferry)
        covered = min(length, have + usable_wild) if ferry == 0 else min(length - ferry, have) + min(ferry, wild)
        if ferry and (wild_all or info.tunnel[r]):
            covered = min(length, covered + max(0, wild - ferry))
        out[r] = w - share * covered if share > 0 else w - share * (length - covered)
    return out


def turn_weights(info: MapInfo, weights: Sequence[float], overhead: float, points_weight: float) -> list[float]:
    """Planning weights with another cost per claim and a credit for route points.

    Open routes weigh ``length + overhead - points_weight × points`` instead of
    ``length + ROUTE_OVERHEAD`` (at least ``MIN_WEIGHT``): when turns rather than trains run out,
    a claim costs more than 0.6 of a train, and a long route pays for part of itself.
    """
    out = list(weights)
    for r, w in enumerate(weights):
        if w == 0.0 or w == INF:
            continue
        out[r] = max(MIN_WEIGHT, w - ROUTE_OVERHEAD + overhead - points_weight * info.points[r])
    return out


def borrow_weights(info: MapInfo, view: PlayerView) -> list[float] | None:
    """Weights for using opponents' routes through a station (None when we have no station left)."""
    me = view.me
    if not view.stations_left or not view.stations_left[me]:  # type: ignore[index]
        return None
    owner = view.route_owner
    station = view.station_owner
    out = [INF] * info.nroutes
    for r in range(info.nroutes):
        o = owner[r]
        if o < 0 or o == me:
            continue
        ends = (info.route_a[r], info.route_b[r])
        if any(station[c] == me for c in ends):
            out[r] = 1.0
        elif any(station[c] < 0 and not info.is_area[c] for c in ends):
            out[r] = STATION_WEIGHT
    return out


class Situation:
    """Everything a scripted bot derives from one view (see module docstring)."""

    def __init__(
        self,
        view: PlayerView,
        tries: int = 3,
        use_stations: bool = True,
        plan: Plan | None = None,
        history: Sequence[tuple[int, Sequence[int]]] = (),
        hand_cost: float = 0.0,
        clock_hand: float = 0.0,
        overhead: float = ROUTE_OVERHEAD,
        points_weight: float = 0.0,
        extra_weights: Sequence[float] | None = None,
    ) -> None:
        self.view = view
        self.info = info = map_info(view.edition)
        self.rules = view.edition.rules
        self.me = me = view.me
        assert me is not None and view.hand is not None, "bots need a player's view"
        self.hand = view.hand
        self.trains = view.trains[me]
        self.labels = components(info, view.route_owner, me)
        ed = view.edition
        self.tickets: list[Ticket] = [ed.tickets[t] for t in view.tickets]
        self.done = [t for t in self.tickets if ticket_connected(self.labels, t)]
        self.undone = [t for t in self.tickets if not ticket_connected(self.labels, t)]
        self.weights = route_weights(info, view.route_owner, view.players, me, self.trains)
        # Planning weights: with hand_cost > 0, a route's cards already in hand make it cheaper.
        self.plan_weights = hand_weights(info, self.rules, self.weights, self.hand, hand_cost) if hand_cost else self.weights
        if overhead != ROUTE_OVERHEAD or points_weight:
            self.plan_weights = turn_weights(info, self.plan_weights, overhead, points_weight)
        if extra_weights is not None:
            # Extra planning weight per open route (e.g. the risk an opponent takes it first).
            self.plan_weights = [w if w in (0.0, INF) else w + x for w, x in zip(self.plan_weights, extra_weights, strict=True)]
        self.borrow = borrow_weights(info, view) if use_stations else None
        self.stations = view.stations_left[me] if use_stations else 0
        self.plan: Plan = plan or plan_network(
            info, self.plan_weights, self.undone, self.trains, self.borrow, self.stations, tries
        )
        self.choose_lanes()
        self.needs: Needs = card_needs(info, self.rules, self.plan.routes, self.hand)
        self.turns_left = turns_left(view, history, clock_hand)
        self.memo: dict[str, Any] = {}  # values derived once per decision by the bots
        self.last_turn = view.final_turns >= 0

    def choose_lanes(self) -> None:
        """Swap each planned lane of a double route for the sibling lane the hand pays for most easily."""
        info = self.info
        hand = self.hand
        plan = self.plan
        swap: dict[int, int] = {}
        for r in plan.routes:
            group = info.group[r]
            if group < 0:
                continue
            lanes = [x for x in info.group_routes[group] if self.weights[x] not in (0.0, INF)]
            if len(lanes) < 2:
                continue

            def have(x: int) -> int:
                c = info.colour[x]
                return max(hand[:8]) if c < 0 else hand[c]

            best = max(lanes, key=lambda x: (have(x) - info.length[x] - 2 * info.ferry[x] - info.tunnel[x], x == r, -x))
            if best != r:
                swap[r] = best
        if swap:
            self.plan = Plan(**{**vars(plan)})
            self.plan.routes = [swap.get(r, r) for r in plan.routes]
            self.plan.ticket_routes = {t: [swap.get(r, r) for r in rs] for t, rs in plan.ticket_routes.items()}

    def plan_for(self, tickets: Sequence[Ticket], tries: int = 2) -> Plan:
        return plan_network(self.info, self.plan_weights, tickets, self.trains, self.borrow, self.stations, tries)

    def turns_needed(self, plan: Plan) -> float:
        """Turns to finish `plan`: one per claim, plus the draws for the missing cards.

        A draw brings two cards; a card helps with the chance that it is of a colour still missing
        (or wild), raised by the choice among the face-up cards. Few missing colours = slow draws.
        """
        needs = card_needs(self.info, self.rules, plan.routes, self.hand)
        deck = self.view.edition.deck
        total = sum(deck) or 1
        useful = sum(deck[c] for c in range(8) if needs.deficit[c] > 0)
        if self.rules.locomotives_wild == "all" or needs.wild_deficit:
            useful += deck[LOCOMOTIVE] + deck[PLUS4]
        hit = min(0.9, useful / total + FACE_UP_HELP)
        return needs.total_deficit / (2 * hit) + len(plan.routes) + len(plan.borrowed)

    def completes(self, route: int) -> list[Ticket]:
        """Undone tickets that claiming `route` would complete at once."""
        la, lb = self.labels[self.info.route_a[route]], self.labels[self.info.route_b[route]]
        if la == lb:
            return []
        out = []
        for t in self.undone:
            a = {self.labels[x] for x in t.a_nodes}
            b = {self.labels[x] for x in t.b_nodes}
            if (la in a and lb in b) or (lb in a and la in b):
                out.append(t)
        return out
