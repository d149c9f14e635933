"""The learned bot: `hard`'s candidate moves re-ranked by a value network trained by ``ttr train``.

At each turn decision it takes the root moves the search would consider (the planner's advice, the
planned and best-paying claims, a blind card, the most useful face-up cards, a ticket draw; see
``ISMCTSBot.candidates``), samples ``worlds`` positions consistent with its view (``determinize``),
plays each candidate in each of them and evaluates the after-state from its own seat's view with the
network (``ttr.learn.value``). A candidate replaces the advice only if its mean value is higher by
more than ``margin``. Ticket choices, second cards and payments are the planner's. Without weights
for the edition (only USA is shipped) it plays exactly as its advisor, `hard`.
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


class LearnedBot(ISMCTSBot):
    """See module docstring. Options: ``weights`` (an .npz path; default the shipped weights),
    ``worlds`` (determinizations per move), ``margin`` (value a move must gain over the advice)."""

    name = "learned"

    def __init__(
        self, seed: int | None = None, weights: str | None = None, worlds: int = 2, margin: float = 0.01, **options: Any
    ) -> None:
        options.setdefault("tempo_advisor", True)
        options.setdefault("ticket_clock", 2)
        super().__init__(seed, **options)
        self.weights = weights
        self.worlds = int(worlds)
        self.margin = float(margin)
        self.last_values: dict[str, float] = {}

    def act(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        advice = self.advisor.act(view, legal)
        if advice.type == KEEP_TICKETS:
            ed = view.edition
            self.memory.note_keep([ed.tickets[t].id for t in view.offered], advice.tickets)
            return advice
        if view.phase != Phase.TURN:
            return advice
        import numpy as np  # the rl extra; a missing numpy fails here, not at `import ttr.bots`

        from ..learn.value import game_features, load_value_net

        net = load_value_net(view.edition, self.weights)
        if net is None:
            return advice
        candidates = self.candidates(view, legal, advice)
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
                rows.append(game_features(g, me))
        values = net(np.stack(rows)).reshape(self.worlds, len(candidates)).mean(axis=0)
        self.last_values = {str(a): round(float(v), 4) for a, v in zip(candidates, values, strict=True)}
        best = int(np.argmax(values))
        if values[best] > values[0] + self.margin:  # candidates[0] is the advice
            return candidates[best]
        return advice
