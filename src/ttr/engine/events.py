"""Events: what happened when an action was applied, with a public form and a private one."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class Event:
    """`data` is public; `secret` (if any) is added only for `player` (e.g. the card drawn blind)."""

    type: str
    player: int | None
    data: dict[str, Any] = field(default_factory=dict)
    secret: dict[str, Any] | None = None

    def for_player(self, viewer: int | None) -> dict[str, Any]:
        """The JSON form `viewer` may see (None: a spectator)."""
        out: dict[str, Any] = {"type": self.type, "player": self.player, **self.data}
        if self.secret and viewer is not None and viewer == self.player:
            out.update(self.secret)
        return out

    def public(self) -> dict[str, Any]:
        return self.for_player(None)
