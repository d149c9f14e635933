"""A live, read-only window on a game through one seat's eyes: what ``PlayerView`` shows, without copying.

``Game.view(p)`` copies every list of the position into a new ``PlayerView`` (and counts the discard
pile per card kind) at every call. The environments observe after every step, so they read the game
through a ``SeatView`` instead: each attribute is a property that returns the game's *current* value
of a ``PlayerView`` field, for the fields the observation encoder and the action codec use, and
nothing else. It exposes exactly a subset of ``PlayerView``'s fields, each equal to what
``game.view(me)`` would hold (``tests/rl/test_rl_fast_obs.py`` checks both on random games of every
edition), so an agent reading through it still sees only what its seat may know: the other players'
hands, tickets and offers appear only as counts, the deck only as its size.

The lists it returns are the game's own (live): read them, never change them, and copy what you keep.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..cards import NCARDS

if TYPE_CHECKING:
    from ..engine import Game
    from ..engine.phases import Phase

# the PlayerView fields a SeatView offers (the test compares each with game.view(me))
FIELDS = (
    "me",
    "players",
    "current",
    "phase",
    "final_turns",
    "pass_streak",
    "scores",
    "trains",
    "hand_sizes",
    "ticket_counts",
    "offered_counts",
    "stations_left",
    "hand",
    "tickets",
    "offered",
    "deck_size",
    "discard",
    "ticket_deck_sizes",
    "market",
    "route_owner",
    "station_owner",
    "tunnel",
    "last_claimed",
    "passengers",
    "merch",
)


class SeatView:
    """``game`` as seat ``me`` may see it, read live (see the module docstring)."""

    __slots__ = ("_counts", "_game", "_pile", "me", "players")

    def __init__(self, game: Game, me: int) -> None:
        if not 0 <= me < game.n:
            raise ValueError(f"seat {me} is not in this {game.n}-player game")
        self._game = game
        self.me = me
        self.players = game.n
        self._pile: list[int] = []  # the discard pile as last counted, and its counts per kind
        self._counts = [0] * NCARDS

    @property
    def current(self) -> int:
        return self._game.current

    @property
    def phase(self) -> Phase:
        return self._game.phase

    @property
    def final_turns(self) -> int:
        return self._game.final_turns

    @property
    def pass_streak(self) -> int:
        return self._game.pass_streak

    @property
    def scores(self) -> list[int]:
        return self._game.scores

    @property
    def trains(self) -> list[int]:
        return self._game.trains

    @property
    def stations_left(self) -> list[int]:
        return self._game.stations_left

    @property
    def hand_sizes(self) -> list[int]:
        return [sum(h) for h in self._game.hands]

    @property
    def ticket_counts(self) -> list[int]:
        return [len(t) for t in self._game.tickets]

    @property
    def offered_counts(self) -> list[int]:
        return [len(t) for t in self._game.offered]

    @property
    def hand(self) -> list[int]:
        return self._game.hands[self.me]

    @property
    def tickets(self) -> list[int]:
        return self._game.tickets[self.me]

    @property
    def offered(self) -> list[int]:
        return self._game.offered[self.me]

    @property
    def deck_size(self) -> int:
        return len(self._game.deck)

    @property
    def discard(self) -> list[int]:
        """Cards of each kind in the discard pile (public), counted only where the pile changed: it grows
        at its end between reshuffles, so usually only the new cards are counted."""
        pile = self._game.discard
        old = self._pile
        k = len(old)
        if len(pile) == k and pile == old:
            return self._counts
        counts = self._counts
        if len(pile) >= k and pile[:k] == old:
            counts = counts[:]
            for c in pile[k:]:
                counts[c] += 1
        else:
            counts = [pile.count(c) for c in range(NCARDS)]
        self._pile = pile[:]
        self._counts = counts
        return counts

    @property
    def ticket_deck_sizes(self) -> dict[str, int]:
        return {k: len(v) for k, v in self._game.ticket_decks.items()}

    @property
    def market(self) -> list[int]:
        return self._game.market

    @property
    def route_owner(self) -> list[int]:
        return self._game.route_owner

    @property
    def station_owner(self) -> list[int]:
        return self._game.station_owner

    @property
    def tunnel(self) -> tuple[int, tuple[int, ...], list[int], int, int] | None:
        return self._game.tunnel

    @property
    def last_claimed(self) -> int:
        return self._game.last_claimed

    @property
    def passengers(self) -> list[list[int]]:
        return self._game.passengers

    @property
    def merch(self) -> list[list[int]]:
        return self._game.merch
