"""Information-set Monte Carlo tree search with determinization (single observer).

Each iteration samples a complete position consistent with what this player has seen
(``determinize``), walks the tree of this player's own turn decisions in that position, choosing
among the moves available there by UCB with availability counts (Cowling, Powley & Whitehouse,
2012), lets opponents move by the fast playout policy, then plays the game out with that policy and
backs up the result (a win share blended with the final score margin).

Moves searched at the root are the planner's advice plus a pruned set: the routes the plan wants
and the best-paying routes, a blind card and each kind of face-up card, a ticket draw, a station
rescue and the best passenger trip. The planner's advice gets a prior bonus, so search overrides it
only on evidence. Decisions other than whole turns (second card, tickets to keep, tunnel payment,
passenger placement) are left to the planner.

Budget: ``iterations`` per move (deterministic for a given seed), or ``time_per_move`` seconds
(results then depend on machine speed); when both are given the search stops at the first limit.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Hashable, Sequence
from typing import Any

from ..engine import Action, Game, IllegalAction
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
from ..engine.view import PlayerView
from .base import Bot
from .determinize import determinize
from .memory import Memory
from .planner import PlannerBot
from .rollout import RolloutPolicy, play_out
from .tactics import best_passenger_move

SCORE_SCALE = 15.0  # points of margin that move the reward most


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

    def __init__(self, seed: int | None = None, iterations: int = 300, time_per_move: float | None = None,
                 exploration: float = 0.7, prior: float = 0.3, depth: int = 3, max_claims: int = 6,
                 **options: Any) -> None:
        super().__init__(seed, **options)
        self.iterations = int(iterations)
        self.time_per_move = time_per_move
        self.exploration = exploration
        self.prior_weight = prior
        self.depth = depth
        self.max_claims = max_claims
        self.memory = Memory()
        self.advisor = PlannerBot(seed=seed)
        self.last_stats: dict[str, Any] = {}

    def reset(self) -> None:
        self.memory.reset()
        self.advisor.reset()

    def observe(self, event: dict[str, Any]) -> None:
        self.memory.observe(event)
        self.advisor.observe(event)

    # ------------------------------------------------------------------ decision
    def act(self, view: PlayerView, legal: list[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        advice = self.advisor.act(view, legal)
        if advice.type == KEEP_TICKETS:
            ed = view.edition
            self.memory.note_keep([ed.tickets[t].id for t in view.offered], advice.tickets)
        if view.phase != "turn":
            return advice
        candidates = self.candidates(view, legal, advice)
        if len(candidates) == 1:
            return advice
        return self.search(view, candidates, advice)

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
        kinds: set[int] = set()
        for a in legal:
            if a.type == DRAW_BLIND:
                out.append(a)
            elif a.type == DRAW_FACEUP and view.market[a.slot] not in kinds:  # type: ignore[index]
                kinds.add(view.market[a.slot])  # type: ignore[index]
                out.append(a)
        tickets = [a for a in legal if a.type == DRAW_TICKETS]
        if tickets:
            out.append(self.advisor.choose_mix(s, tickets) if tickets[0].mix is not None else tickets[0])
        rescue = self.advisor.station_rescue(s, legal)
        if rescue is not None:
            out.append(rescue)
        trip, _ = best_passenger_move(view, legal)
        if trip is not None:
            out.append(trip)
        unique: dict[Action, None] = dict.fromkeys(out)
        return list(unique)

    def search(self, view: PlayerView, candidates: list[Action], advice: Action) -> Action:
        me = view.me
        assert me is not None
        root = Node()
        for a in candidates:
            root.children[a] = Node(1.0 if a == advice else 0.0)
        deadline = time.perf_counter() + self.time_per_move if self.time_per_move else None
        limit = self.iterations if (self.iterations > 0 or deadline is None) else 10**9
        rng = self.rng
        done = 0
        while done < limit and (deadline is None or time.perf_counter() < deadline):
            game = determinize(view, self.memory, rng)
            self.iterate(root, game, me, candidates, rng)
            done += 1
        best = max(candidates, key=lambda a: (root.children[a].visits, root.children[a].value, a == advice))
        self.last_stats = {"iterations": done, "visits": {str(a): root.children[a].visits for a in candidates}}
        return best

    def iterate(self, root: Node, game: Game, me: int, candidates: Sequence[Action], rng: random.Random) -> None:
        policy = RolloutPolicy(game, rng)
        node = root
        path: list[Node] = []
        depth = 0
        while not game.is_over:
            if game.current == me and game.phase == "turn" and depth < self.depth:
                options = {a: a for a in candidates} if node is root else self.deep_options(game, policy, node)
                if not options:
                    break
                key, expanded = self.select(node, options)
                child = node.children[key]
                path.append(child)
                if not self._step(game, options[key]):
                    break
                node = child
                depth += 1
                if expanded:
                    break
            else:
                self._step(game, policy.act(game))
        play_out(game, policy)
        reward = self.reward(game, me)
        for n in path:
            n.visits += 1
            n.value += reward

    @staticmethod
    def _step(game: Game, action: Action) -> bool:
        try:
            game.step(action)
        except IllegalAction:
            game.step(game.legal_actions()[0])
            return False
        return True

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
        for r in policy.info.by_length[:20]:
            cards = policy.payment(game, p, r)
            if cards is not None:
                out.setdefault(("claim", ids[r].id), Action(CLAIM, route=ids[r].id, cards=cards))
                break
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
                score = (child.value / child.visits
                         + self.exploration * math.sqrt(math.log(child.avail) / child.visits)
                         + self.prior_weight * child.prior / (1 + child.visits) * 10)
            if score > best_score:
                best_key, best_score = key, score
        return best_key, children[best_key].visits == 0

    @staticmethod
    def reward(game: Game, me: int) -> float:
        """Win share blended with the score margin over the best opponent, in [0, 1]."""
        result = game.result()
        totals = [x["total"] for x in result["players"]]
        winners = result["winners"]
        win = 1.0 / len(winners) if me in winners else 0.0
        best_other = max(t for q, t in enumerate(totals) if q != me)
        margin = 1.0 / (1.0 + math.exp(-(totals[me] - best_other) / SCORE_SCALE))
        return 0.6 * win + 0.4 * margin
