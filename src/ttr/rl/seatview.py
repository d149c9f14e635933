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
    """``game`` as seat ``me`` may see it, read live (see the module docstring).

    Lists the engine only ever changes in place (scores, trains, owners, market, the own hand and
    tickets, passengers, merchandise) are the game's own list objects, bound once; everything else is a
    property read at each access. ``tests/rl/test_rl_fast_obs.py`` checks after random games of every
    edition that the bound lists are still the game's and that every field equals ``game.view(me)``'s."""

    __slots__ = (
        "_counts",
        "_decks",
        "_game",
        "_hands",
        "_offers",
        "_pile",
        "_tickets",
        "hand",
        "market",
        "me",
        "merch",
        "passengers",
        "players",
        "route_owner",
        "scores",
        "station_owner",
        "stations_left",
        "tickets",
        "trains",
    )

    def __init__(self, game: Game, me: int) -> None:
        if not 0 <= me < game.n:
            raise ValueError(f"seat {me} is not in this {game.n}-player game")
        self._game = game
        self.me = me
        self.players = game.n
        self._hands = game.hands  # private: only their sizes are exposed
        self._tickets = game.tickets  # private: only their counts are exposed
        self._offers = game.offered  # private: counts, and my own offer
        self._decks = game.ticket_decks  # private: sizes only
        self.hand = game.hands[me]
        self.tickets = game.tickets[me]
        self.scores = game.scores
        self.trains = game.trains
        self.stations_left = game.stations_left
        self.route_owner = game.route_owner
        self.station_owner = game.station_owner
        self.market = game.market
        self.passengers = game.passengers
        self.merch = game.merch
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
    def hand_sizes(self) -> list[int]:
        return list(map(sum, self._hands))

    @property
    def ticket_counts(self) -> list[int]:
        return list(map(len, self._tickets))

    @property
    def offered_counts(self) -> list[int]:
        return list(map(len, self._offers))

    @property
    def offered(self) -> list[int]:
        return self._offers[self.me]

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
        return {k: len(v) for k, v in self._decks.items()}

    @property
    def tunnel(self) -> tuple[int, tuple[int, ...], list[int], int, int] | None:
        return self._game.tunnel

    @property
    def last_claimed(self) -> int:
        return self._game.last_claimed
