"""Information-set Monte Carlo tree search with determinization (single observer), advised by the planner.

Each iteration samples a complete position consistent with what this player has seen
(``determinize``), plays a root move in it, walks the tree of this player's later turn decisions
choosing among the moves available in that world by UCB with availability counts (Cowling, Powley
& Whitehouse, 2012), lets opponents move by the fast playout policy (planning with `hard`'s tempo
weights with ``tempo_playouts``), plays the game out with that
policy and backs up the result (a win share blended with the final score margin).

Root moves: the planner's advice plus a pruned set (planned routes the hand pays for and the
best-paying routes, a blind card and the most useful kinds of face-up card, a ticket draw (with
``ticket_clock``, only while the clock allows it, see ``tickets_in_time``) and a station rescue;
at ticket choices, the planner's best few subsets. A passenger trip is a root move only as the
advice: the playouts make trips only as the end nears (``rollout.TRIP_RULES``), so a trip now would
look better than keeping the passenger for a longer network later (when they made none, `max`
travelled at mid-game on Märklin and collected 23.6 merchandise points a game against `hard`'s 39.3).
They are compared by successive halving in shared worlds (see ``search``); a move replaces the
advice only on evidence. Second cards, tunnel payments and passenger placement are the planner's.

Budget: ``iterations`` per move (deterministic for a given seed), or ``time_per_move`` seconds
(results then depend on machine speed); when both are given the search stops at the first limit.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Hashable, Sequence
from typing import Any

from ..engine import Action, Game
from ..engine.actions import (
    A_DRAW_BLIND,
    A_DRAW_FACEUP,
    BUILD_STATION,
    CLAIM,
    DRAW_BLIND,
    DRAW_FACEUP,
    DRAW_TICKETS,
    KEEP_TICKETS,
    MOVE_PASSENGER,
)
from ..engine.phases import Phase
from ..engine.view import PlayerView
from .base import Bot
from .board import ROUTE_OVERHEAD
from .determinize import determinize
from .memory import Memory
from .planner import PLAIN_EDITIONS, PlannerBot
from .rollout import TICKET_MIN_ALL, RolloutPolicy, play_out
from .situation import racer_evidence
from .tactics import card_values

SCORE_SCALE = 15.0  # points of margin that move the reward most


def outcome_value(totals: list[int], winners: list[int], me: int) -> float:
    """Seat `me`'s reward for a finished game, in [0, 1]: 0.6 x its win share + 0.4 x sigmoid(margin over the best
    opponent / SCORE_SCALE). The search's playouts end on it; the learned value network is trained to predict it."""
    win = 1.0 / len(winners) if me in winners else 0.0
    best_other = max(t for q, t in enumerate(totals) if q != me)
    margin = 1.0 / (1.0 + math.exp(-(totals[me] - best_other) / SCORE_SCALE))
    return 0.6 * win + 0.4 * margin


DEEP_PRIOR = 3.0  # UCB bonus of the playout policy's own move at deeper nodes, fading with visits


class Node:
    __slots__ = ("avail", "children", "prior", "value", "visits")

    def __init__(self, prior: float = 0.0) -> None:
        self.visits = 0
        self.avail = 0
        self.value = 0.0
        self.prior = prior
        self.children: dict[Hashable, Node] = {}


def action_key(action: Action, game: Game | None = None) -> Hashable:
    """A move's identity across determinizations (face-up draws by card kind, claims by route)."""
    if action.type == DRAW_FACEUP and game is not None:
        return ("faceup", game.market[action.slot])  # type: ignore[index]
    if action.type == CLAIM:
        return ("claim", action.route)
    if action.type == BUILD_STATION:
        return ("station", action.city)
    if action.type == MOVE_PASSENGER:
        return ("move", action.city)
    return (action.type,)


class ISMCTSBot(Bot):
    """Search bot (see module docstring)."""

    name = "ismcts"

    def __init__(
        self,
        seed: int | None = None,
        iterations: int = 400,
        time_per_move: float | None = None,
        exploration: float = 0.7,
        confidence: float = 1.0,
        depth: int = 2,
        max_claims: int = 2,
        max_faceup: int = 2,
        max_keeps: int = 4,
        keep_factor: float = 2.0,
        tempo_advisor: bool = False,
        tempo_playouts: bool = False,
        ticket_clock: int = 0,
        leaf_steps: int = 0,
        weights: str | None = None,
        model_opponents: bool = False,
        racer_prior: float = 0.0,
        verify: int = 0,
        **options: Any,
    ) -> None:
        super().__init__(seed, **options)
        # model_opponents: opponents whose public play looks like a racer's (situation.seen_racers)
        # move like one in the playouts (RolloutPolicy.race); off by default (docs/bots.md).
        # racer_prior > 0 (implies model_opponents): in each sampled world, an opponent whose style public
        # play cannot tell yet (situation.racer_evidence) is a racer with this probability
        self.racer_prior = float(racer_prior)
        self.model_opponents = model_opponents or self.racer_prior > 0
        self.racers: list[int] = []
        self.undecided: list[int] = []  # set per search: the opponents drawn as racers or not in each world
        # leaf_steps > 0: playouts stop after that many moves and the learned value network
        # (ttr.learn.value; `weights` or the shipped ones) scores the position from our view
        self.leaf_steps = int(leaf_steps)
        self.weights = weights
        self.net: Any = None
        self.iterations = int(iterations)
        self.time_per_move = time_per_move
        self.exploration = exploration
        self.confidence = confidence
        # verify > 0: a move that beat the advice is played against it again in that many fresh worlds
        # and replaces it only if it wins there too (see `search`)
        self.verify = int(verify)
        self.max_faceup = max_faceup
        self.max_keeps = max_keeps
        self.keep_factor = keep_factor  # ticket choices get this many times the move budget (0: trust the planner)
        self.depth = depth
        self.max_claims = max_claims
        self.memory = Memory()
        # The advisor plans with the plain weights and blocks at every player count unless
        # tempo_advisor: then it is PlannerBot() with its defaults, i.e. today's `hard` (tempo weights
        # except on PLAIN_EDITIONS, blocks only at 3 players). The `max` level sets tempo_advisor,
        # tempo_playouts and ticket_clock=2 (screened at 2 players, docs/tournaments.md); the
        # defaults here are the search as first measured.
        self.tempo_advisor = tempo_advisor
        plain: dict[str, Any] = {} if tempo_advisor else {"overhead": ROUTE_OVERHEAD, "points_weight": 0.0, "block": True}
        self.advisor = PlannerBot(seed=seed, **plain)
        self.tempo_playouts = tempo_playouts
        self.ticket_clock = int(ticket_clock)
        self.playout_tempo = False  # set per move: tempo_playouts and not a PLAIN_EDITIONS map
        self.last_stats: dict[str, Any] = {}
        self.own_plan: dict[int, list[int]] = {}  # the advisor's plan: our playouts follow it
        # the playouts' plans and ticket choices, shared by the iterations of one search (RolloutPolicy)
        self.playout_memo: dict[Hashable, Any] = {}

    def reset(self) -> None:
        self.memory.reset()
        self.advisor.reset()

    def observe(self, event: dict[str, Any]) -> None:
        self.memory.observe(event)
        self.advisor.observe(event)

    # ------------------------------------------------------------------ decision
    def act(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        advice = self.advisor.act(view, legal)
        if self.leaf_steps > 0:
            from ..learn.value import load_value_net

            self.net = load_value_net(view.edition, self.weights)
        if advice.type == KEEP_TICKETS:
            return self.choose_keep(view, legal, advice)
        if view.phase != Phase.TURN:
            return advice
        return self.choose_turn(view, legal, advice)

    def choose_turn(self, view: PlayerView, legal: Sequence[Action], advice: Action) -> Action:
        """A whole turn: the advice unless the search finds a better root move."""
        self.own_plan = {view.me: list(self.advisor.situation(view).plan.routes)}  # type: ignore[dict-item]
        candidates = self.candidates(view, legal, advice)
        if len(candidates) == 1:
            return advice
        return self.search(view, candidates, advice)

    def choose_keep(self, view: PlayerView, legal: Sequence[Action], advice: Action) -> Action:
        """The ticket choice: the advice unless the search finds a better subset (``keep_factor`` times the
        move budget; 0: the advice). Also used by the planner's ``keep_search``."""
        choice = (
            self.search(view, self.keep_candidates(view, legal, advice), advice, self.keep_factor)
            if self.keep_factor > 0
            else advice
        )
        ed = view.edition
        self.memory.note_keep([ed.tickets[t].id for t in view.offered], choice.tickets)
        return choice

    def keep_candidates(self, view: PlayerView, legal: Sequence[Action], advice: Action) -> list[Action]:
        """The ticket choices the planner rates best (the advice first)."""
        s = self.advisor.situation(view)
        ed = view.edition
        offered = {ed.tickets[t].id: ed.tickets[t] for t in view.offered}
        rated = sorted(
            (a for a in legal if a.type == KEEP_TICKETS and a != advice),
            key=lambda a: -self.advisor.keep_value(s, [offered[i] for i in a.tickets or ()]),
        )
        self.own_plan = {}
        return [advice, *rated[: self.max_keeps]]

    def candidates(self, view: PlayerView, legal: Sequence[Action], advice: Action) -> list[Action]:
        """The pruned root moves (see module docstring); the advice first."""
        s = self.advisor.situation(view)
        ed = view.edition
        out: list[Action] = [advice]
        claims = self.advisor.usable_claims(s, legal)
        wanted = [r for r in s.plan.routes if ed.routes[r].id in claims]
        by_points = sorted((ed.route_index[rid] for rid in claims), key=lambda r: (-s.info.points[r], r))
        for r in [*wanted, *by_points][: self.max_claims + len(wanted)]:
            out.append(self.advisor.pay(s, claims[ed.routes[r].id]))
        values = card_values(s.info, s.rules, s.needs, s.plan.routes, s.hand)
        faceup: dict[int, Action] = {}
        for a in legal:
            if a.type == DRAW_BLIND:
                out.append(a)
            elif a.type == DRAW_FACEUP:
                faceup.setdefault(view.market[a.slot], a)  # type: ignore[index]
        out.extend(faceup[c] for c in sorted(faceup, key=lambda c: (-values[c], c))[: self.max_faceup])
        tickets = [a for a in legal if a.type == DRAW_TICKETS]
        if tickets and advice.type != DRAW_TICKETS and self.ticket_clock and not self.tickets_in_time(s):
            tickets = []
        if tickets:
            out.append(self.advisor.choose_mix(s, tickets) if tickets[0].mix is not None else tickets[0])
        rescue = self.advisor.station_rescue(s, legal)
        if rescue is not None:
            out.append(rescue)
        unique: dict[Action, None] = dict.fromkeys(out)
        return list(unique)

    def tickets_in_time(self, s: Any) -> bool:
        """Whether a ticket draw the advisor did not ask for is still a root move: with ``ticket_clock``
        1, every player has at least TICKET_MIN_ALL trains and we have 6 beyond our plan (the playouts'
        and the planner's rules; without it the search drew tickets turn after turn late in some games,
        and failed them); with 2, also our plan has no route left to claim (as in the playouts)."""
        if self.ticket_clock >= 2 and s.plan.routes:
            return False
        return min(s.view.trains) >= TICKET_MIN_ALL and s.trains - s.plan.trains >= 6

    def search(self, view: PlayerView, candidates: list[Action], advice: Action, factor: float = 1.0) -> Action:
        """Successive halving over the root moves, all moves of a round played in the same worlds.

        Each round samples determinizations and plays one ISMCTS iteration per surviving move in
        each of them (common random numbers: the same world, deck order and random state), so every
        move is compared with the planner's advice world by world. The advice always survives; the
        better half of the other moves (by mean paired difference) goes on. A move replaces the
        advice only if its paired gain stays positive after subtracting ``confidence`` standard
        errors. Below the root the tree is searched by UCB as usual.

        With ``verify`` N, that move is then played against the advice again in N fresh worlds (a new
        tree) and replaces it only if its gain there also passes the test: the best of several noisy
        means over-states its gain (the winner's curse); fresh worlds measure it without that bias.
        """
        me = view.me
        assert me is not None
        self.playout_tempo = self.tempo_playouts and view.edition.id not in PLAIN_EDITIONS
        seen, undecided = racer_evidence(view) if self.model_opponents else ([], [])
        self.racers = seen
        self.undecided = undecided if self.racer_prior > 0 else []
        self.playout_memo = {}
        root = Node()
        for a in candidates:
            root.children[a] = Node(1.0 if a == advice else 0.0)
        diffs: dict[Action, list[float]] = {a: [] for a in candidates if a != advice}
        start = time.perf_counter()
        alive = [a for a in candidates if a != advice]
        rounds = max(1, math.ceil(math.log2(len(alive) + 1)))
        done = 0
        rng = self.rng
        for round_no in range(rounds):
            group = [advice, *alive]
            budget = int(self.iterations * factor)
            quota = max(len(group), budget * (round_no + 1) // rounds - done) if budget else 0
            round_end = start + self.time_per_move * factor * (round_no + 1) / rounds if self.time_per_move else None
            spent = 0
            while spent == 0 or (
                (not budget or spent + len(group) <= quota) and (round_end is None or time.perf_counter() < round_end)
            ):
                world = self.world(view, rng, seen)
                base = self.iterate(root, world.clone(), me, advice)
                for a in alive:
                    diffs[a].append(self.iterate(root, world.clone(), me, a) - base)
                spent += len(group)
            done += spent
            alive.sort(key=lambda a: -statistics.fmean(diffs[a]))
            if round_no < rounds - 1:
                alive = alive[: max(1, len(alive) // 2)]
        best, best_bound = advice, 0.0
        for a in alive:
            bound = self.lower_bound(diffs[a])
            if bound > best_bound:
                best, best_bound = a, bound
        verified: list[float] = []
        if best != advice and self.verify > 0:
            fresh = Node()
            fresh.children = {advice: Node(1.0), best: Node()}
            for _ in range(self.verify):
                world = self.world(view, rng, seen)
                base = self.iterate(fresh, world.clone(), me, advice)
                verified.append(self.iterate(fresh, world.clone(), me, best) - base)
            done += 2 * self.verify
            if self.lower_bound(verified) <= 0.0:
                best = advice
        self.last_stats = {
            "iterations": done,
            "rounds": rounds,
            "gain": {str(a): round(statistics.fmean(d), 4) for a, d in diffs.items() if d},
            "value": {str(a): round(n.value / n.visits, 4) for a, n in root.children.items() if n.visits},
            "visits": {str(a): root.children[a].visits for a in candidates},
            "verified": round(statistics.fmean(verified), 4) if verified else None,
        }
        return best

    def world(self, view: PlayerView, rng: random.Random, seen: list[int]) -> Game:
        """A determinization of `view`; with ``racer_prior`` it also draws which undecided opponents race in
        it (``racers``, read by the playouts of every move compared in this world)."""
        if self.undecided:
            self.racers = seen + [q for q in self.undecided if rng.random() < self.racer_prior]
        return determinize(view, self.memory, rng)

    def lower_bound(self, diffs: list[float]) -> float:
        """The mean paired gain less ``confidence`` standard errors (one whole point with a single sample)."""
        spread = statistics.stdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else 1.0
        return statistics.fmean(diffs) - self.confidence * spread

    def iterate(self, root: Node, game: Game, me: int, first: Action) -> float:
        """One iteration: play `first`, then our later turns by UCB down the tree, then a playout."""
        policy = RolloutPolicy(game, self.own_plan, self.playout_tempo, self.playout_memo, self.racers)
        node = root.children[first]
        path: list[Node] = [node]
        game.step(first)  # strict: a candidate or playout move that is illegal here is a bug and raises
        depth = 1
        while not game.is_over:
            if game.current == me and game.phase == Phase.TURN:
                if depth >= self.depth:
                    break  # the rest is the playout's (bounded: a playout can cycle, e.g. a tunnel claimed
                    # and declined again and again with an empty deck)
                options = self.deep_options(game, policy, node)
                if not options:
                    break
                key, expanded = self.select(node, options)
                child = node.children[key]
                path.append(child)
                game.step(options[key])
                node = child
                depth += 1
                if expanded:
                    break
            else:
                game.step(policy.act(game))
        if self.net is not None:
            play_out(game, policy, self.leaf_steps)
            reward = self.reward(game, me) if game.is_over else self.net.value(game, me)
        else:
            play_out(game, policy)
            reward = self.reward(game, me)
        for n in path:
            n.visits += 1
            n.value += reward
        return reward

    def deep_options(self, game: Game, policy: RolloutPolicy, node: Node) -> dict[Hashable, Action]:
        """Moves considered at a deeper node of ours: planned claims, the longest claim, draws."""
        p = game.current
        out: dict[Hashable, Action] = {}
        choice = policy.act(game)
        out[action_key(choice, game)] = choice
        ids = game.edition.routes
        for r in policy.plan(game, p)[:3]:
            cards = policy.payment(game, p, r)
            if cards is not None:
                out.setdefault(("claim", ids[r].id), Action(CLAIM, route=ids[r].id, cards=cards))
        longest = policy.longest_payable(game, p, 0, among=20)
        if longest is not None:
            r, cards = longest
            out.setdefault(("claim", ids[r].id), Action(CLAIM, route=ids[r].id, cards=cards))
        if game.deck or game.discard:
            out.setdefault((DRAW_BLIND,), A_DRAW_BLIND)
        for i, c in enumerate(game.market):
            if c >= 0:
                out.setdefault(("faceup", c), A_DRAW_FACEUP[i])
        first = action_key(choice, game)
        for key in out:
            if key not in node.children:
                node.children[key] = Node(1.0 if key == first else 0.0)
        return out

    def select(self, node: Node, options: dict[Hashable, Action]) -> tuple[Hashable, bool]:
        """UCB over the moves available in this determinization; unvisited moves first (prior order)."""
        children = node.children
        best_key: Hashable = None
        best_score = -math.inf
        for key in options:
            child = children[key]
            child.avail += 1
            if child.visits == 0:
                score = 1e9 + child.prior
            else:
                score = (
                    child.value / child.visits
                    + self.exploration * math.sqrt(math.log(child.avail) / child.visits)
                    + DEEP_PRIOR * child.prior / (1 + child.visits)
                )
            if score > best_score:
                best_key, best_score = key, score
        return best_key, children[best_key].visits == 0

    @staticmethod
    def reward(game: Game, me: int) -> float:
        """Win share blended with the score margin over the best opponent, in [0, 1]. A single best
        total needs no tie-breaker, so the totals alone (``Game.totals``) give it; otherwise the
        engine's result does."""
        totals = game.totals()
        best = max(totals)
        if totals.count(best) == 1:
            return outcome_value(totals, [totals.index(best)], me)
        result = game.result()
        return outcome_value([x["total"] for x in result["players"]], result["winners"], me)
