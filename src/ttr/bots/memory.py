"""What a bot can remember from the events its player sees: which cards each opponent is known to
hold (taken face up, or shown on a tunnel), and which tickets this player returned.

Everything here comes from ``Event.for_player(me)`` dictionaries, so it holds only public facts
plus this player's own secrets.
"""

from __future__ import annotations

from typing import Any

from ..cards import CARD_INDEX, NCARDS


class Memory:
    """Known cards per opponent and this player's returned tickets, updated by ``observe``."""

    def __init__(self) -> None:
        self.known: dict[int, list[int]] = {}  # player -> card counts known to be in their hand
        self.returned: list[str] = []  # ticket ids this player returned (oldest first)

    def reset(self) -> None:
        self.known.clear()
        self.returned.clear()

    def cards_of(self, player: int) -> list[int]:
        return self.known.setdefault(player, [0] * NCARDS)

    def observe(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        player = event.get("player")
        if player is None:
            return
        if kind == "draw_faceup":
            self.cards_of(player)[CARD_INDEX[event["card"]]] += 1
        elif kind == "tunnel_reveal":
            # The cards laid on a tunnel were in the hand; they return there if the tunnel is declined.
            known = self.cards_of(player)
            for name, k in event["cards"].items():
                i = CARD_INDEX[name]
                known[i] = max(known[i], k)
        elif kind in ("claim", "build_station"):
            self._spent(player, event["cards"])
        elif kind == "move_passenger" and event.get("passenger_cards"):
            self._spent(player, {"passenger": event["passenger_cards"]})

    def note_keep(self, offered: list[str], kept: tuple[str, ...] | None) -> None:
        """Record the tickets this player returned (the bot calls this when it chooses)."""
        chosen = set(kept or ())
        self.returned.extend(t for t in offered if t not in chosen)

    def _spent(self, player: int, cards: dict[str, int]) -> None:
        known = self.cards_of(player)
        for name, k in cards.items():
            i = CARD_INDEX[name]
            known[i] = max(0, known[i] - k)
