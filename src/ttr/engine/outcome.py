"""How a finished game ended: a typed value (``Game.outcome``) instead of guessing from pass counts."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class EndReason(StrEnum):
    """Why the game ended."""

    TRAINS = "trains"  # a player ran low on trains and the final round was played
    STALEMATE = "stalemate"  # every player passed in one full round (nothing left to do)


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a game: who won (ties broken by the edition's tie-breakers), why, and the final totals."""

    winners: tuple[int, ...]
    reason: EndReason
    scores: tuple[int, ...]

    def to_json(self) -> dict[str, object]:
        return {"winners": list(self.winners), "reason": self.reason.value, "scores": list(self.scores)}
