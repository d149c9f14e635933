"""Train cards: the deck, the discard pile, the face-up market (flushes on three locomotives), drawing
blind or face up (a face-up locomotive is the whole draw), and checking that a hand holds a payment."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..cards import CARD_NAMES, LOCOMOTIVE, NCARDS, NO_CARD, PASSENGER, Cards
from ..errors import IllegalAction, MalformedAction
from . import ending
from .actions import (
    DRAW_BLIND,
    Action,
)
from .events import Event
from .phases import SECOND_CARD, TURN

if TYPE_CHECKING:
    from .game import Game


# ------------------------------------------------------------------ cards
def draw_from_deck(g: Game) -> int:
    """Top card of the deck, reshuffling the discard pile into a new deck when it runs out."""
    deck = g.deck
    if not deck:
        if not g.discard:
            return NO_CARD
        deck.extend(g.discard)
        g.discard.clear()
        g.rng.shuffle(deck)
    return deck.pop()


def refill_market(g: Game, ev: list[Event] | None) -> None:
    """Fill empty slots, then flush (3 locomotives, or passenger cards) while the rule applies."""
    market = g.market
    if NO_CARD in market:
        for i, card in enumerate(market):
            if card == NO_CARD:
                market[i] = draw_from_deck(g)
    r = g.rules
    loco_flush = r.locomotive_flush
    passenger_flush = r.passenger_flush
    flushes = 0
    while (loco_flush and market.count(LOCOMOTIVE) >= loco_flush) or (
        passenger_flush and market.count(PASSENGER) >= passenger_flush
    ):
        if flushes >= r.max_consecutive_flushes or len(g.deck) + len(g.discard) < len(market):
            break
        old = market[:]
        for i in range(len(market)):
            market[i] = draw_from_deck(g)
        g.discard.extend(c for c in old if c != NO_CARD)
        flushes += 1
        if ev is not None:
            ev.append(
                Event(
                    "market_flush",
                    None,
                    {"discarded": [CARD_NAMES[c] for c in old if c != NO_CARD], "market": market_names(g)},
                )
            )


def market_names(g: Game) -> list[str | None]:
    return [CARD_NAMES[c] if c != NO_CARD else None for c in g.market]


def can_take_second(g: Game) -> bool:
    if g.deck or g.discard:
        return True
    single = g.rules.faceup_locomotive_single
    return any(c != NO_CARD and not (single and c == LOCOMOTIVE) for c in g.market)


def can_take_first(g: Game) -> bool:
    return bool(g.deck or g.discard) or any(c != NO_CARD for c in g.market)


# ------------------------------------------------------------------ handlers
def draw_blind(g: Game, p: int, ev: list[Event] | None) -> None:
    card = draw_from_deck(g)
    g.hands[p][card] += 1
    if ev is not None:
        ev.append(Event("draw_blind", p, {}, {"card": CARD_NAMES[card]}))
    after_card(g, p, False, ev)


def draw_faceup(g: Game, p: int, slot: int, ev: list[Event] | None) -> None:
    card = g.market[slot]
    g.market[slot] = NO_CARD
    g.hands[p][card] += 1
    refill_market(g, ev)
    if ev is not None:
        ev.append(Event("draw_faceup", p, {"slot": slot, "card": CARD_NAMES[card], "market": market_names(g)}))
    after_card(g, p, card == LOCOMOTIVE and g.rules.faceup_locomotive_single, ev)


def after_card(g: Game, p: int, whole_draw: bool, ev: list[Event] | None) -> None:
    if g.phase == SECOND_CARD or whole_draw:
        ending.end_turn(g, ev)
    elif can_take_second(g):
        g.phase = SECOND_CARD
    else:  # Ruling: no second card can legally be taken — the draw ends with one card
        ending.end_turn(g, ev)


def check_hand(cards: Cards, hand: list[int]) -> None:
    if cards is None or len(cards) != NCARDS:
        raise MalformedAction("cards missing")
    for i, n in enumerate(cards):
        if n > hand[i]:
            raise IllegalAction(f"you have {hand[i]} {CARD_NAMES[i]} card(s), not {n}", "cards_not_in_hand")
    if sum(cards) == 0:
        raise IllegalAction("no cards offered", "bad_payment")


def cards_json(cards: Iterable[int]) -> dict[str, int]:
    return {CARD_NAMES[i]: k for i, k in enumerate(cards) if k}


def check_draw(g: Game, a: Action, p: int) -> None:
    """A blind or face-up draw (first or second card)."""
    phase = g.phase
    if phase not in (TURN, SECOND_CARD):
        raise IllegalAction(f"cannot draw train cards now (phase: {phase})", "wrong_phase")
    if a.type == DRAW_BLIND:
        if not g.deck and not g.discard:
            raise IllegalAction("the deck and the discard pile are empty", "deck_empty")
        return
    slot = a.slot
    if slot is None or not 0 <= slot < len(g.market):
        raise IllegalAction(f"no market slot {slot}; slots are 0-{len(g.market) - 1}", "bad_slot")
    card = g.market[slot]
    if card == NO_CARD:
        raise IllegalAction(f"market slot {slot} is empty", "empty_slot")
    if phase == SECOND_CARD and card == LOCOMOTIVE and g.rules.faceup_locomotive_single:
        raise IllegalAction("a face-up locomotive cannot be taken as the second card", "second_locomotive")
