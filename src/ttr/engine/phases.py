"""The phases of a game, and which actions each phase allows."""

from __future__ import annotations

from enum import StrEnum

from .actions import (
    BUILD_STATION,
    CLAIM,
    DRAW_BLIND,
    DRAW_FACEUP,
    DRAW_TICKETS,
    KEEP_TICKETS,
    MOVE_PASSENGER,
    PASS,
    PLACE_PASSENGER,
    TUNNEL_DECLINE,
    TUNNEL_PAY,
)


class Phase(StrEnum):
    """A game's phase. A ``StrEnum``: each equals its string (the JSON form), e.g. ``Phase.TURN == "turn"``."""

    SETUP = "setup"  # each player in turn: (name a mix and) keep initial tickets
    TURN = "turn"  # start of a turn: choose one of the actions
    SECOND_CARD = "second_card"  # second card of a draw
    KEEP_TICKETS = "keep_tickets"  # keep some of the tickets just drawn
    TUNNEL = "tunnel"  # tunnel cards revealed: pay the extra or decline
    PLACE_PASSENGER = "place_passenger"  # after a claim: place a passenger on an end city, or not
    OVER = "over"


SETUP, TURN, SECOND_CARD, KEEP, TUNNEL, PLACE, OVER = (
    Phase.SETUP,
    Phase.TURN,
    Phase.SECOND_CARD,
    Phase.KEEP_TICKETS,
    Phase.TUNNEL,
    Phase.PLACE_PASSENGER,
    Phase.OVER,
)
PHASES: tuple[Phase, ...] = tuple(Phase)

# Which action types each phase allows at all (whether one is legal also depends on the position).
PHASE_ACTIONS: dict[Phase, frozenset[str]] = {
    SETUP: frozenset({DRAW_TICKETS, KEEP_TICKETS}),
    TURN: frozenset({DRAW_BLIND, DRAW_FACEUP, DRAW_TICKETS, CLAIM, BUILD_STATION, MOVE_PASSENGER, PASS}),
    SECOND_CARD: frozenset({DRAW_BLIND, DRAW_FACEUP}),
    KEEP: frozenset({KEEP_TICKETS}),
    TUNNEL: frozenset({TUNNEL_PAY, TUNNEL_DECLINE}),
    PLACE: frozenset({PLACE_PASSENGER}),
    OVER: frozenset(),
}
