"""Deliberately bad bots for the bot pool's tests (``Settings.bot_factory = "slowbots:<name>"``).

They run in the pool's worker processes, which import this module by name (tests/server is on the path).
Whatever they do, they otherwise play like the medium bot.
"""

from __future__ import annotations

import re
import time
from typing import Any

from ttr.bots import Bot, make_bot
from ttr.engine import Action

HOLD_SECONDS = 4.0  # how long the slow bot's first move holds the GIL (wall clock)


def _regex_size(seconds: float) -> int:
    """The length of a catastrophically backtracking match that takes about `seconds` now (one C call: it holds the
    GIL). Each more character doubles the time."""
    n = 16
    while True:
        t0 = time.perf_counter()
        re.match(r"(a+)+$", "a" * n + "b")
        took = time.perf_counter() - t0
        if took > 0.05:
            break
        n += 1
    while took < seconds:
        took *= 2
        n += 1
    return n - 1  # the last doubling overshoots


def hold_the_gil(seconds: float) -> None:
    """Hold the GIL for `seconds` of wall clock: one long C call (calibrated just before, so about `seconds`), then
    shorter ones until the time is up (a busy machine makes the calibration approximate, never the total)."""
    end = time.monotonic() + seconds
    re.match(r"(a+)+$", "a" * _regex_size(seconds * 0.75) + "b")
    while time.monotonic() < end:
        re.match(r"(a+)+$", "a" * 20 + "b")


class _Medium(Bot):
    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.inner = make_bot("medium", seed=seed)

    def act(self, view: Any, legal: list[Action]) -> Action:
        return self.inner.act(view, legal)


def _first_move(view: Any) -> bool:
    """The seat's first decision (keeping its first tickets)."""
    return view.phase == "setup" and not view.tickets


class GilHolder(_Medium):
    """The game's very first move holds the GIL for 4 s in long C calls: in a server thread it would stall every
    request."""

    def act(self, view: Any, legal: list[Action]) -> Action:
        if _first_move(view) and view.me == view.first_player:
            hold_the_gil(HOLD_SECONDS)
        return super().act(view, legal)


class Hanger(_Medium):
    """The seat's first move never ends."""

    def act(self, view: Any, legal: list[Action]) -> Action:
        if _first_move(view):
            time.sleep(3600)
        return super().act(view, legal)


class Broken(_Medium):
    """Raises, or names an illegal action, on alternate moves."""

    moves = 0

    def act(self, view: Any, legal: list[Action]) -> Action:
        self.moves += 1
        if self.moves % 2:
            raise RuntimeError("a broken bot")
        return Action("claim", route="no-such-route")


def slow(level: str, seed: int, budget: float) -> Bot:
    """level max: the GIL holder; others: medium."""
    return GilHolder(seed) if level == "max" else _Medium(seed)


def broken(level: str, seed: int, budget: float) -> Bot:
    """level max: hangs on the first move (an overrun); hard (its fallback): broken; below: medium."""
    if level == "max":
        return Hanger(seed)
    if level == "hard":
        return Broken(seed)
    return _Medium(seed)


class Counting(_Medium):
    """Remembers the claims it has seen and checks them against the board at every move: a bot whose memory went out
    of step with the game (an undone claim still remembered, events missed or seen twice) fails, and so does one
    that was shown another seat's secret."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.claims = 0
        self.seen: list[dict[str, Any]] = []

    def observe(self, event: dict[str, Any]) -> None:
        self.seen.append(event)
        if event.get("type") == "claim":
            self.claims += 1

    def act(self, view: Any, legal: list[Action]) -> Action:
        owned = sum(1 for o in view.route_owner if o >= 0)
        if self.claims != owned:
            raise RuntimeError(f"memory out of step: {self.claims} claims seen, {owned} on the board")
        for e in self.seen:
            secret = e.get("type") in ("draw_blind", "draw_tickets", "keep_tickets") and ("card" in e or "tickets" in e)
            if secret and e.get("player") != view.me:
                raise RuntimeError(f"shown another seat's secret: {e}")
        return super().act(view, legal)


def counting(level: str, seed: int, budget: float) -> Bot:
    return Counting(seed)
