"""The planner: the reference strategy of the project.

* ``planner`` keeps and draws tickets by expected value, plans a cheap network over them (greedy
  Steiner tree on shortest paths), draws the colours that network needs, claims the routes most at
  risk first, rescues blocked tickets with stations, moves passengers when it pays, blocks an
  opponent's short missing link when that costs it nothing it needs, and turns leftover cards into
  points when the game is ending.

The racer, the blocker and the ticket hoarder it is measured against are in ``styles.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import comb
from typing import Any

from ..engine.actions import DRAW_TICKETS, Action
from ..engine.phases import Phase
from ..engine.view import PlayerView
from .board import INF, ROUTE_OVERHEAD, Plan, components, map_info, route_weights, shortest_path
from .scripted import ScriptedBot
from .situation import Situation, seen_racers
from .tactics import best_payment, card_needs, payment_cost

BLOCK_MAX_LENGTH = 2  # only short links are worth blocking
BLOCK_MIN_DETOUR = 3.0  # ... and only when the opponent's detour is this much longer
# Tempo weights of the plan: a claim costs 2 trains' worth of planning weight (not 0.6) and each
# route point takes 0.5 off, so paths run over fewer, longer routes. Measured against the racer at
# 2-player USA: 52.0% -> 74.0% (200 games); since issue 16 part 5 at every player count, where
# against two `medium` (Route Focus) bots at 4-player USA `hard` won 52.8% of the games with the
# plain weights and 72.9% with these (400 games, seed 1; 48.0% -> 71.2% on seed 1001), and against
# three racers 61.3% -> 66.0% (400 games); at 3 and 5 players and on Europe they also won more
# against `medium`; docs/tournaments.md, Difficulty levels.
TEMPO_OVERHEAD = 2.0
TEMPO_POINTS_WEIGHT = 0.5
# The planner makes its cheap blocks only at these player counts. At 4 players against three racers
# at USA (800 games): 53.9% -> 56.5% without blocks on seed 2001, 56.0% -> 59.1% on seed 3001; at 2
# players against the racer: +0.6 to +3.0 points on four seed sets (2400 games); at 3 players it
# lost against two Route Focus bots (36.3% -> 33.0%, 300 games); docs/tournaments.md.
BLOCK_PLAYERS = frozenset({3})
# ... except on these maps, which keep the plain weights at every player count: Nordic (at 2p against
# the racer 69.0% with the tempo weights, 77.0% without, 100 games) and Märklin (at 2p against the
# racer 68.2% with them, 76.2% without; against `medium` 53.5% -> 61.8% at 2p and 52.0% -> 69.0% at
# 4p without them; 400 games each, seed 1).
PLAIN_EDITIONS = frozenset({"nordic", "marklin"})
# The search of ``keep_search`` and ``end_search``: the `max` level's settings (its advisor is a
# PlannerBot with the defaults, i.e. this bot without the search).
SEARCH_OPTIONS = {"tempo_advisor": True, "tempo_playouts": True, "ticket_clock": 2}


def scaled_budget(iterations: int, players: int) -> int:
    """A search budget given for 2 players, at `players`: × (2 / players)², since a playout is longer and
    the bot has fewer decisions a game with more players (so the time a game stays about the same)."""
    return max(1, round(iterations * (2 / players) ** 2))


class PlannerBot(ScriptedBot):
    """Ticket planner (see module docstring)."""

    name = "planner"

    def __init__(
        self,
        seed: int | None = None,
        block: bool | None = None,
        ticket_safety: float | None = None,
        draw_threshold: float = 4.0,
        tempo_vs_racers: bool = False,
        hand_cost: float = 0.0,
        endgame: bool = False,
        keep_locos: bool = False,
        spare_long: int = 0,
        spare_pay: float = 0.5,
        clock_hand: float = 0.0,
        overhead: float | None = None,
        points_weight: float | None = None,
        contest: float = 0.0,
        contest_all: bool = False,
        contest_second: float = 0.5,
        keep_search: int = 0,
        end_search: int = 0,
        end_turns: float = 4.0,
        model_opponents: bool = False,
        **options: Any,
    ) -> None:
        super().__init__(seed, **options)
        # keep_search > 0: ticket choices are checked by that many ISMCTS iterations at 2 players
        # (scaled_budget at more), the search advised by this planner's own choice; end_search > 0:
        # the same for every whole turn while the clock says end_turns or fewer; the `hard` level
        # (docs/tournaments.md, third round). model_opponents: the search's playouts move the opponents
        # seen racing as racers (ISMCTSBot's option of that name).
        self.keep_search = int(keep_search)
        self.end_search = int(end_search)
        self.end_turns = end_turns
        self.searcher: Any = None
        if self.keep_search > 0 or self.end_search > 0:
            from .ismcts import ISMCTSBot  # the search is advised by a planner: imported here, not at the top

            self.searcher = ISMCTSBot(
                seed=seed,
                iterations=self.keep_search or 1,
                keep_factor=1.0,
                model_opponents=model_opponents,
                **SEARCH_OPTIONS,
            )
        # Contested long routes weigh more in the plan (see ``contested``); off by default: contesting
        # from the first turn won more against three racers at 4-player USA (56.0% -> 60.0%, 800
        # games, seed 3001) but lost on Europe (82.5% -> 74.8%) and against three Route Focus bots
        # (26.0% -> 21.2%), and at 2 players it lost (docs/tournaments.md).
        self.contest = contest
        self.contest_all = contest_all
        self.contest_second = contest_second
        # Options measured against the racer and left off by default (docs/tournaments.md): none
        # of them raised the win rate at 2-player USA.
        self.hand_cost = hand_cost
        self.endgame = endgame
        self.keep_locos = keep_locos
        self.spare_long = spare_long
        self.spare_pay = spare_pay
        self.clock_hand = clock_hand
        # Planning weights per claim and per route point (situation.turn_weights); None: the
        # tempo weights at two players, the plain ones with more (measured, docs/tournaments.md).
        self.overhead_option = overhead
        self.tempo_vs_racers = tempo_vs_racers
        self.points_weight_option = points_weight
        self.block_option = block
        self.block_enabled = True
        # Mid-game ticket choices assume only this share of the turns left; None: 0.35 with two
        # players (a duel ends faster and racing pays), 0.5 with more (measured, docs/tournaments.md).
        self.safety_option = ticket_safety
        self.draw_threshold = draw_threshold  # points a ticket draw must be expected to gain
        self.seen_tickets: set[int] = set()  # tickets we were offered and returned: not in the draw pile top

    def reset(self) -> None:
        super().reset()
        self.seen_tickets.clear()
        if self.searcher is not None:
            self.searcher.reset()

    @property
    def wants_events(self) -> bool:
        return self.searcher is not None  # only the search remembers what it saw

    def observe(self, event: dict[str, Any]) -> None:
        if self.searcher is not None:
            self.searcher.observe(event)

    def situation(self, view: PlayerView) -> Situation:
        # Tempo weights except on the PLAIN_EDITIONS maps; there only if tempo_vs_racers and an
        # opponent is seen racing (measured at 4-player USA against three racers when the plain
        # weights were the default there: 50.0% against 56.5% without, 200 games: switching the
        # plan's weights mid-game wastes the cards collected for the old plan).
        tempo = view.edition.id not in PLAIN_EDITIONS
        tempo = tempo or (self.tempo_vs_racers and bool(seen_racers(view)))
        self.overhead = self.overhead_option if self.overhead_option is not None else TEMPO_OVERHEAD if tempo else ROUTE_OVERHEAD
        self.block_enabled = self.block_option if self.block_option is not None else view.players in BLOCK_PLAYERS
        if self.points_weight_option is not None:
            self.points_weight = self.points_weight_option
        else:
            self.points_weight = TEMPO_POINTS_WEIGHT if tempo else 0.0
        return super().situation(view)

    # ------------------------------------------------------------------ contested long routes
    def contested(self, view: PlayerView) -> dict[int, float]:
        """Open routes a racer is after: the longest class still open (share 1) and the next one, 4 or
        longer (share ``contest_second``). With ``contest_all`` from the first turn, else only once an
        opponent is seen racing (``situation.seen_racers``, public play only)."""
        if self.contest <= 0 or view.players < 2:
            return {}
        if not self.contest_all and not seen_racers(view):
            return {}
        info = map_info(view.edition)
        owner = view.route_owner
        top = max((info.length[r] for r in range(info.nroutes) if owner[r] < 0), default=0)
        out: dict[int, float] = {}
        for r in range(info.nroutes):
            if owner[r] >= 0:
                continue
            length = info.length[r]
            if length >= top:
                out[r] = 1.0
            elif length == top - 1 and length >= 4:
                out[r] = self.contest_second
        return out

    def plan_key(self, view: PlayerView) -> tuple[Any, ...]:
        # Replan when the contested routes may change: the racers seen (unless contested from the start).
        if self.contest <= 0 or self.contest_all:
            return ()
        return (tuple(seen_racers(view)),)

    def extra_weights(self, view: PlayerView) -> list[float] | None:
        """``contest`` more planning weight on the contested routes (``contest_second`` of it on the next class)."""
        shares = self.contested(view)
        if not shares:
            return None
        out = [0.0] * len(view.route_owner)
        for r, share in shares.items():
            out[r] = self.contest * share
        return out

    def keep(self, s: Situation, legal: Sequence[Action]) -> Action:
        self.seen_tickets.update(s.view.offered)
        advice = super().keep(s, legal)
        if not self.keep_search:
            return advice
        self.searcher.iterations = scaled_budget(self.keep_search, s.view.players)
        return self.searcher.choose_keep(s.view, legal, advice)

    # ------------------------------------------------------------------ priorities
    def risk(self, s: Situation, r: int) -> float:
        """How likely an opponent takes route r soon: their network touches it, and it has no spare lane."""
        info = s.info
        owner = s.view.route_owner
        touching = 0.0
        for q in range(s.view.players):
            if q == s.me:
                continue
            for end in (info.route_a[r], info.route_b[r]):
                if any(owner[x] == q for x, _ in info.adjacency[end]):
                    touching += 1.0
                    break
        group = info.group[r]
        spare_lane = (
            group >= 0
            and s.view.players >= info.all_lanes_min_players
            and any(owner[x] < 0 for x in info.group_routes[group] if x != r)
        )
        return touching + (0.0 if spare_lane else 0.5)

    def criticality(self, s: Situation, r: int) -> float:
        """Extra planning cost if r were lost: how badly the plan needs it."""
        worst = 0.0
        for t, routes in s.plan.ticket_routes.items():
            if r not in routes:
                continue
            ticket = s.view.edition.tickets[t]
            weights = list(s.weights)
            base, _, _ = shortest_path(s.info, weights, ticket.a_nodes, ticket.b_nodes)
            weights[r] = INF
            detour, _, _ = shortest_path(s.info, weights, ticket.a_nodes, ticket.b_nodes)
            worst = max(worst, min(detour - base, 30.0))
        return worst

    def targets(self, s: Situation) -> list[int]:
        if not s.plan.routes or self.racing(s):
            return self.point_targets(s, 6 if self.endgame else 3)
        return sorted(s.plan.routes, key=lambda r: (-self.risk(s, r), -s.info.length[r], r))

    # ------------------------------------------------------------------ tickets
    def wants_tickets(self, s: Situation) -> bool:
        """Draw tickets when the expected best of the draw beats what a turn is otherwise worth."""
        if not any(s.view.ticket_deck_sizes.values()):
            return False
        spare = s.trains - s.plan.trains
        if spare < 6 or s.turns_left < 4 or s.plan.trains > 10:
            return False
        return self.ticket_draw_value(s) > self.draw_threshold

    def ticket_safety(self, s: Situation) -> float:
        if self.safety_option is not None:
            return float(self.safety_option)
        return 0.35 if s.view.players == 2 else 0.5

    def keep_value(self, s: Situation, chosen: Sequence) -> float:
        """As ScriptedBot.keep_value, but after setup the clock is read pessimistically.

        Measured: with the plain estimate, tickets kept mid-game failed 4 times in 10 against a
        racer while the estimate said 1 in 20; the racer speeds up late and plans meet blocked routes.
        """
        if s.view.phase == Phase.SETUP or s.view.turn < s.view.players:
            return super().keep_value(s, chosen)
        saved = s.turns_left
        s.turns_left = saved * self.ticket_safety(s)
        try:
            return super().keep_value(s, chosen)
        finally:
            s.turns_left = saved

    def ticket_draw_value(self, s: Situation) -> float:
        """Expected gain of the best ticket among those a draw would show (one must be kept).

        Every ticket this bot has not seen is rated by its marginal expected value when joined to
        the current plan by its cheapest connection (one shortest path each, for speed); the
        expectation of the best of k drawn without replacement is then exact.
        """
        view = s.view
        ed = view.edition
        pol = ed.rules.draw_tickets
        decks = set(pol.decks) if pol.choose_mix else {d for d, _ in pol.deal}
        k = pol.count if pol.choose_mix else sum(n for _, n in pol.deal)
        mine = set(view.tickets)
        pool = [t for t in ed.tickets if t.deck in decks and t.index not in mine and t.index not in self.seen_tickets]
        if not pool or k <= 0:
            return -INF
        saved = s.turns_left
        s.turns_left = saved * self.ticket_safety(s)
        try:
            base_plan = s.plan
            base = self.plan_value(s, base_plan)
            weights = list(s.weights)
            for r in base_plan.routes:
                weights[r] = 0.0
            values = []
            for t in pool:
                cost, claim, _ = shortest_path(s.info, weights, t.a_nodes, t.b_nodes)
                trains = base_plan.trains + sum(s.info.length[r] for r in claim)
                if cost == INF or trains > s.trains:
                    values.append(-float(t.points))
                    continue
                plan = Plan(
                    routes=base_plan.routes + claim,
                    trains=trains,
                    open=[*base_plan.open, t.index],
                    dropped=base_plan.dropped,
                    borrowed=base_plan.borrowed,
                )
                values.append(self.plan_value(s, plan) - base)
        finally:
            s.turns_left = saved
        values.sort()
        n = len(values)
        k = min(k, n)
        return sum(v * comb(i, k - 1) for i, v in enumerate(values)) / comb(n, k)

    def racing(self, s: Situation) -> bool:
        """The clock says the plan cannot be finished: play for points (tickets it completes count double)."""
        if not self.endgame or not s.plan.routes:
            return False
        if "racing" not in s.memo:
            s.memo["racing"] = s.turns_needed(s.plan) > s.turns_left + 1
        return bool(s.memo["racing"])

    def pay(self, s: Situation, options: Sequence[Action]) -> Action:
        if not self.keep_locos:
            return super().pay(s, options)
        # Keep locomotives for the plan's hardest route: spend them only when nothing else pays.
        others = [r for r in s.plan.routes if s.view.edition.routes[r].id != options[0].route]
        needs = card_needs(s.info, s.rules, others, s.hand) if others else None
        scarce = needs is not None and (needs.wild_deficit > 0 or needs.total_deficit > 0)
        return best_payment(options, needs, scarce)

    def spare_claim(self, s: Situation, claims: dict[str, list[Action]]) -> Action | None:
        """A long route for points with spare trains, paid with cards the plan does not need."""
        spare = s.trains - s.plan.trains
        ed = s.view.edition
        best: Action | None = None
        best_key: tuple[int, float] = (0, 0.0)
        for rid, options in claims.items():
            r = ed.route_index[rid]
            length = s.info.length[r]
            if length < self.spare_long or length > spare - 2:
                continue
            pay = super().pay(s, options)
            if payment_cost(pay.cards, s.needs, False) > length * self.spare_pay:  # type: ignore[arg-type]
                continue
            key = (s.info.points[r], -payment_cost(pay.cards, s.needs, False))  # type: ignore[arg-type]
            if key > best_key:
                best, best_key = pay, key
        return best

    def turn(self, s: Situation, legal: Sequence[Action]) -> Action:
        advice = self.planned_turn(s, legal)
        if self.end_search and s.turns_left <= self.end_turns:
            self.searcher.iterations = scaled_budget(self.end_search, s.view.players)
            return self.searcher.choose_turn(s.view, legal, advice)
        return advice

    def planned_turn(self, s: Situation, legal: Sequence[Action]) -> Action:
        view = s.view
        ed = view.edition
        if s.last_turn:
            best = self.best_immediate(s, legal)
            if best is not None:
                return best
        claims = self.usable_claims(s, legal)
        if self.racing(s):
            best = self.points_claim(s, legal, min_length=1 if s.turns_left <= 3 else 3)
            if best is not None:
                return best
        ready = [r for r in s.plan.routes if ed.routes[r].id in claims]
        if ready:
            if len(ready) > 1:
                ready.sort(key=lambda r: (-(self.risk(s, r) + 1) * (1 + self.criticality(s, r)), -s.info.length[r], r))
            return self.pay(s, claims[ed.routes[ready[0]].id])
        action = self.station_rescue(s, legal) or self.passenger_move(s, legal)
        if action is not None:
            return action
        if self.spare_long and s.plan.routes:
            action = self.spare_claim(s, claims)
            if action is not None:
                return action
        if self.wants_tickets(s):
            draw = [a for a in legal if a.type == DRAW_TICKETS]
            if draw:
                return self.choose_mix(s, draw) if draw[0].mix is not None else draw[0]
        if not s.plan.routes or s.turns_left <= 2 or s.trains <= 4:
            wanted = set(self.point_targets(s))
            long_enough = 1 if s.turns_left <= 2 else 4
            best = self.points_claim(
                s,
                [
                    a
                    for a in legal
                    if a.route is None
                    or ed.route_index[a.route] in wanted
                    or s.info.length[ed.route_index[a.route]] >= long_enough
                ],
            )
            if best is not None:
                return best
        if self.block_enabled:
            action = self.block(s, claims)
            if action is not None:
                return action
        return self.draw(s, legal) or self.fallback(s, legal)

    def block(self, s: Situation, claims: dict[str, list[Action]]) -> Action | None:
        """Claim a short route that joins two parts of an opponent's network when it costs nothing we need."""
        if not claims:
            return None
        info = s.info
        view = s.view
        owner = view.route_owner
        ed = view.edition
        candidates = [
            (ed.route_index[rid], options)
            for rid, options in claims.items()
            if info.length[ed.route_index[rid]] <= BLOCK_MAX_LENGTH
        ]
        if not candidates:
            return None
        best: Action | None = None
        best_gain = BLOCK_MIN_DETOUR
        for q in range(view.players):
            if q == s.me:
                continue
            touched = [False] * info.ncities
            for r, o in enumerate(owner):
                if o == q:
                    touched[info.route_a[r]] = touched[info.route_b[r]] = True
            labels = None
            for r, options in candidates:
                a, b = info.route_a[r], info.route_b[r]
                if not (touched[a] and touched[b]):
                    continue
                if labels is None:
                    labels = components(info, owner, q)
                if labels[a] == labels[b]:
                    continue
                pay = self.pay(s, options)
                if payment_cost(pay.cards, s.needs, False) > info.length[r] * 0.5:  # type: ignore[arg-type]
                    continue  # it would spend cards our own plan needs
                blocked = list(owner)
                blocked[r] = s.me
                weights = route_weights(info, blocked, view.players, q, view.trains[q])
                detour, _, _ = shortest_path(info, weights, [a], [b])
                gain = detour - (info.length[r] + ROUTE_OVERHEAD)
                if gain >= best_gain:
                    best, best_gain = pay, gain
        return best
