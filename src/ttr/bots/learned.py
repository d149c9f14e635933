"""The learned bot: the planner's candidate moves re-ranked by a value network trained by ``ttr train``.

At each turn decision it takes the root moves the search would consider (the planner's advice, the
planned and best-paying claims, a blind card, the most useful face-up cards, a ticket draw; see
``ISMCTSBot.candidates``), keeps those of the advice's kind (``same_kind``: a claim competes with
claims, a draw with draws), samples ``worlds`` positions consistent with its view
(``determinize``), plays each candidate in each of them, finishes its own turn with the playout
policy (``finish_turn``: every position is then compared with the opponent to move) and evaluates
the result from its own seat's view with the network (``ttr.learn.value``). A candidate replaces
the advice only if its mean value is higher by more than ``margin``, and only for advice of the
``kinds`` listed. Ticket choices, second cards and payments are the planner's. Without weights for
the edition (only USA is shipped) it plays exactly as its advisor, the planner (`hard` as it was
measured against it, without `hard`'s short searches).

Measured (docs/tournaments.md, *The learned bot*): the shipped network makes it *weaker* than
the planner. Across move kinds the network prefers draws to claims (it rates a bigger hand above a
claimed route), which ``same_kind`` stops; within a kind it still loses games against the racer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..engine import Action
from ..engine.actions import KEEP_TICKETS
from ..engine.phases import Phase
from ..engine.view import PlayerView
from .determinize import determinize
from .ismcts import ISMCTSBot
from .planner import PLAIN_EDITIONS
from .rollout import RolloutPolicy


class LearnedBot(ISMCTSBot):
    """See module docstring. Options: ``weights`` (an .npz path; default the shipped weights),
    ``worlds`` (determinizations per move), ``margin`` (value a move must gain over the advice)."""

    name = "learned"

    def __init__(
        self,
        seed: int | None = None,
        weights: str | None = None,
        worlds: int = 2,
        margin: float = 0.05,
        finish_turn: bool = True,
        same_kind: bool = True,
        kinds: str = "claim,draw_faceup,draw_blind,draw_tickets",
        **options: Any,
    ) -> None:
        options.setdefault("tempo_advisor", True)
        options.setdefault("ticket_clock", 2)
        super().__init__(seed, **options)
        self.weights = weights
        self.worlds = int(worlds)
        self.margin = float(margin)
        self.finish_turn = finish_turn
        self.same_kind = same_kind
        self.kinds = set(kinds.split(","))  # the advice kinds the network may overrule
        self.last_values: dict[str, float] = {}

    def act(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        advice = self.advisor.act(view, legal)
        if advice.type == KEEP_TICKETS:
            ed = view.edition
            self.memory.note_keep([ed.tickets[t].id for t in view.offered], advice.tickets)
            return advice
        if view.phase != Phase.TURN or advice.type not in self.kinds:
            return advice
        import numpy as np  # the rl extra; a missing numpy fails here, not at `import ttr.bots`

        from ..learn.value import game_features, load_value_net

        net = load_value_net(view.edition, self.weights)
        if net is None:
            return advice
        self.playout_tempo = self.tempo_playouts and view.edition.id not in PLAIN_EDITIONS
        self.own_plan = {view.me: list(self.advisor.situation(view).plan.routes)}  # type: ignore[dict-item]
        candidates = self.candidates(view, legal, advice)
        if self.same_kind:  # a claim is compared with claims, a draw with draws (see module docstring)
            candidates = [a for a in candidates if a.type == advice.type]
        if len(candidates) == 1:
            return advice
        me = view.me
        assert me is not None
        rows: list[Any] = []
        for _ in range(self.worlds):
            world = determinize(view, self.memory, self.rng)
            for a in candidates:
                g = world.clone()
                g.step(a)
                if self.finish_turn:  # compare positions at the same point: the opponent to move
                    policy = RolloutPolicy(g, self.own_plan, self.playout_tempo)
                    while not g.is_over and g.current == me:
                        g.step(policy.act(g))
                rows.append(game_features(g, me))
        values = net(np.stack(rows)).reshape(self.worlds, len(candidates)).mean(axis=0)
        self.last_values = {str(a): round(float(v), 4) for a, v in zip(candidates, values, strict=True)}
        best = int(np.argmax(values))
        if values[best] > values[0] + self.margin:  # candidates[0] is the advice
            return candidates[best]
        return advice
