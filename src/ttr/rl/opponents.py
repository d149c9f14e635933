"""Who plays the other seats: bot names, ``Bot`` objects, policy callables, and pools of them (self-play).

An *opponent* is any of:

- a ``ttr.bots.make_bot`` name, level or spec (``"random"``, ``"hard"``, ``"racer"``,
  ``"ismcts:iterations=200"``): a fresh bot per game, seeded from the env's ``np_random``;
- a ``ttr.bots.Bot`` object (used as it is; ``reset()`` is called at the start of every game) or a
  ``Bot`` subclass (instantiated per game with a seed);
- a policy callable ``policy(observation, mask) -> index``: it receives that seat's observation in
  the env's format (``observation="dict"`` or ``"flat"``) and its int8 action mask, and returns an
  action index. An index that is not legal raises ``IllegalActionIndex`` (it is never replaced by a
  legal one). A frozen snapshot of the learner is such a callable.

``OpponentPool`` holds named opponents with weights; an env given a pool draws the opponents of
every seat anew at each ``reset()``, so adding a snapshot to the pool during training changes the
next games (in the process that holds the pool; see docs/rl.md for vectorised envs).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Union

import numpy as np

from ..bots import Bot, make_bot
from ..engine import Action, Game
from .actions import ActionCodec
from .common import legal_table, mask_from, pick
from .observation import ObservationEncoder, ObservationLayout
from .seatview import SeatView

Policy = Callable[[Any, np.ndarray], Any]
OpponentSpec = Union[str, Bot, type, Policy]  # noqa: UP007 - a runtime alias


def describe_opponent(entry: Any) -> str:
    if isinstance(entry, str):
        return entry
    if isinstance(entry, Bot):
        return f"{type(entry).__name__} object"
    if isinstance(entry, type):
        return entry.__name__
    return getattr(entry, "__name__", None) or type(entry).__name__


def check_opponent(entry: Any) -> None:
    """Fail now (not at the first reset) on something that cannot play a seat."""
    if isinstance(entry, str):
        make_bot(entry, seed=0)  # ValueError on an unknown name
    elif isinstance(entry, Bot):
        return
    elif isinstance(entry, type):
        if not issubclass(entry, Bot):
            raise TypeError(f"an opponent class must be a ttr.bots.Bot subclass, not {entry.__name__}")
    elif not callable(entry):
        raise TypeError(
            f"an opponent is a bot name, a Bot object or a policy callable (observation, mask) -> index, not {entry!r}"
        )


class SeatPlayer:
    """Plays one seat of one game: a bot, or a policy through the observation encoder and the codec."""

    def __init__(self, entry: Any, seat: int, seed: int, codec: ActionCodec, layout: ObservationLayout, flat: bool) -> None:
        self.name = describe_opponent(entry)
        self.seat = seat
        self.bot: Bot | None = None
        self.policy: Policy | None = None
        if isinstance(entry, str):
            self.bot = make_bot(entry, seed=seed)
        elif isinstance(entry, Bot):
            self.bot = entry
            entry.reset()
        elif isinstance(entry, type):
            self.bot = entry(seed=seed)
        else:
            self.policy = entry
            self.codec = codec
            self.encoder = ObservationEncoder(layout, seat)
            self._view: SeatView | None = None
            self._view_game: Game | None = None
            self.inv_high = flat_scale(layout) if flat else None
        self.wants_events = self.bot is not None and self.bot.wants_events

    def act(self, game: Game) -> Action:
        p = self.seat
        if self.bot is not None:
            return self.bot.act(game.view(p), game.legal_actions())
        assert self.policy is not None
        view = self._view
        if view is None or self._view_game is not game:  # a live view of this game, made once per game
            view = self._view = SeatView(game, p)
            self._view_game = game
        table = legal_table(self.codec, game, view)
        mask = mask_from(table, self.codec.size)
        raw = self.encoder.encode(view, self.inv_high)
        obs: Any = raw if self.inv_high is not None else {"observation": raw, "action_mask": mask}
        index = self.policy(obs, mask)
        if isinstance(index, np.ndarray) and index.size == 1:
            index = index.reshape(()).item()
        return pick(self.codec, table, index, game, f"opponent {self.name} (seat {p})")

    def observe(self, event: dict[str, Any]) -> None:
        if self.bot is not None:
            self.bot.observe(event)


def flat_scale(layout: ObservationLayout) -> np.ndarray:
    """1 / high per entry (0 where an entry's bound is 0): raw observation x this = values in [0, 1]."""
    high = layout.high
    return np.where(high > 0, 1.0 / np.maximum(high, 1e-9), 0.0).astype(np.float32)


class OpponentPool:
    """Named opponents with sampling weights; envs given a pool draw every opponent seat per episode.

    >>> pool = OpponentPool(["random", "easy", "hard", "racer"])
    >>> pool.add(my_frozen_policy, name="snapshot-1", weight=2.0)   # doctest: +SKIP
    """

    def __init__(self, entries: Iterable[Any] = (), weights: Sequence[float] | None = None) -> None:
        self._entries: list[tuple[str, Any, float]] = []
        entries = list(entries)
        if weights is not None and len(weights) != len(entries):
            raise ValueError(f"{len(weights)} weights for {len(entries)} opponents")
        for i, e in enumerate(entries):
            self.add(e, weight=1.0 if weights is None else weights[i])
        self.version = 0  # bumped by every change (an env can log which pool a game drew from)

    def add(self, entry: Any, name: str | None = None, weight: float = 1.0) -> str:
        """Add an opponent (a bot name, Bot object or class, or policy callable); returns its name."""
        check_opponent(entry)
        if not weight > 0:
            raise ValueError(f"weight must be > 0, got {weight!r}")
        name = name or describe_opponent(entry)
        if name in self.names:
            raise ValueError(f"the pool already has an opponent named {name!r}")
        self._entries.append((name, entry, float(weight)))
        self.version = getattr(self, "version", 0) + 1
        return name

    def remove(self, name: str) -> None:
        kept = [e for e in self._entries if e[0] != name]
        if len(kept) == len(self._entries):
            raise KeyError(f"no opponent named {name!r} in the pool (has: {', '.join(self.names)})")
        self._entries = kept
        self.version += 1

    def set_weight(self, name: str, weight: float) -> None:
        if not weight > 0:
            raise ValueError(f"weight must be > 0, got {weight!r}")
        for i, (n, e, _) in enumerate(self._entries):
            if n == name:
                self._entries[i] = (n, e, float(weight))
                self.version += 1
                return
        raise KeyError(f"no opponent named {name!r} in the pool")

    @property
    def names(self) -> list[str]:
        return [n for n, _, _ in self._entries]

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, name: object) -> bool:
        return name in self.names

    def get(self, name: str) -> Any:
        for n, e, _ in self._entries:
            if n == name:
                return e
        raise KeyError(name)

    def sample(self, rng: np.random.Generator, k: int) -> list[tuple[str, Any]]:
        """k opponents drawn independently by weight (the same one may fill several seats)."""
        if not self._entries:
            raise ValueError("the opponent pool is empty")
        w = np.array([x for _, _, x in self._entries], dtype=np.float64)
        picks = rng.choice(len(self._entries), size=k, p=w / w.sum())
        return [(self._entries[i][0], self._entries[i][1]) for i in picks.tolist()]


def seat_players(
    drawn: Sequence[tuple[str, Any]],
    seats: Sequence[int],
    seeds: Sequence[int],
    codec: ActionCodec,
    layout: ObservationLayout,
    flat: bool,
) -> dict[int, SeatPlayer]:
    """One SeatPlayer per seat; a Bot object drawn for two seats of one game gets a copy for the second."""
    out: dict[int, SeatPlayer] = {}
    used: set[int] = set()
    for (_, entry), seat, seed in zip(drawn, seats, seeds, strict=True):
        if isinstance(entry, Bot):
            if id(entry) in used:
                entry = copy.deepcopy(entry)
            used.add(id(entry))
        out[seat] = SeatPlayer(entry, seat, seed, codec, layout, flat)
    return out
