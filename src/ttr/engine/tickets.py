"""Destination tickets: dealing (fixed or a named short/long mix), keeping at setup and later, the
keep choices offered, and returning the rest under their deck."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..errors import IllegalAction
from . import ending
from .actions import (
    DRAW_TICKETS,
    Action,
    normalise_mix,
)
from .events import Event
from .phases import KEEP, SETUP, TURN

if TYPE_CHECKING:
    from .game import Game


# ------------------------------------------------------------------ tickets
def deal_tickets(g: Game, deal: Iterable[tuple[str, int]]) -> list[int]:
    out: list[int] = []
    for deck_name, count in deal:
        deck = g.ticket_decks.get(deck_name, [])
        for _ in range(min(count, len(deck))):
            out.append(deck.pop())
    return out


def ticket_mixes(g: Game) -> list[tuple[tuple[str, int], ...]]:
    """The mixes a player may name (Märklin): every split of `count` the decks can supply."""
    pol = g.rules.draw_tickets if g.phase != SETUP else g.rules.initial_tickets
    decks = tuple(pol.decks)
    return list(_mixes(decks, pol.count, tuple(len(g.ticket_decks.get(d, ())) for d in decks)))


def mix_actions(g: Game) -> tuple[Action, ...]:
    """The ticket_mixes as draw actions."""
    pol = g.rules.draw_tickets if g.phase != SETUP else g.rules.initial_tickets
    decks = tuple(pol.decks)
    return _mix_actions(decks, pol.count, tuple(len(g.ticket_decks.get(d, ())) for d in decks))


@functools.lru_cache(maxsize=4096)
def _mix_actions(decks: tuple[str, ...], count: int, sizes: tuple[int, ...]) -> tuple[Action, ...]:
    return tuple(Action(DRAW_TICKETS, mix=m) for m in _mixes(decks, count, sizes))


@functools.lru_cache(maxsize=4096)
def _mixes(decks: tuple[str, ...], count: int, sizes: tuple[int, ...]) -> tuple[tuple[tuple[str, int], ...], ...]:
    """ticket_mixes for decks of these sizes (a memo of a pure function: asked at every Märklin turn)."""
    out: list[tuple[tuple[str, int], ...]] = []

    def rec(i: int, left: int, acc: dict[str, int]) -> None:
        if i == len(decks) - 1:
            if left <= sizes[i]:
                out.append(normalise_mix({**acc, decks[i]: left}))
            return
        for k in range(min(left, sizes[i]) + 1):
            rec(i + 1, left - k, {**acc, decks[i]: k})

    if decks:
        rec(0, count, {})
    if not out and any(sizes):  # fewer tickets left than `count`: take them all
        out.append(normalise_mix(dict(zip(decks, sizes, strict=True))))
    return tuple(out)


def skip_empty_setup(g: Game) -> None:
    """A player dealt no tickets at setup has nothing to choose (only with tiny custom decks)."""
    if g.phase == SETUP and not g.rules.initial_tickets.choose_mix:
        for p in [p for p in g.setup_waiting if not g.offered[p]]:
            if p in g.setup_waiting:  # (the last one to finish ends setup)
                finish_setup_player(g, p, None)


def finish_setup_player(g: Game, p: int, ev: list[Event] | None) -> None:
    """Player p has chosen: off the waiting list (``current`` stays the first seat still choosing). When the
    last seat has chosen, every seat's returned tickets go back in turn order from the first player, so the
    game that follows does not depend on the order in which the seats chose."""
    waiting = g.setup_waiting
    waiting.remove(p)
    if waiting:
        g.current = waiting[0]
        return
    pol = g.rules.initial_tickets
    for i in range(g.n):
        q = (g.first_player + i) % g.n
        put_back(g, g.setup_returned[q], pol.returned)
        g.setup_returned[q] = []
    if pol.returned == "bottom_then_shuffle":
        for deck in g.ticket_decks.values():
            g.rng.shuffle(deck)
    draw = g.rules.draw_tickets
    in_play = set(draw.decks) | {d for d, _ in draw.deal}
    for name, deck in g.ticket_decks.items():
        if name not in in_play:  # never drawn again (Europe's undealt long tickets): out of the game
            g.removed_tickets.extend(deck)
            deck.clear()
    g.phase = TURN
    g.current = g.first_player
    if ev is not None:
        ev.append(Event("setup_done", None, {"first_player": g.first_player}))


def put_back(g: Game, returned: list[int], policy: str) -> None:
    """Tickets not kept: out of the game, or under their deck."""
    if policy == "remove":
        g.removed_tickets.extend(returned)
    else:
        for t in returned:
            g.ticket_decks[g.edition.tickets[t].deck].insert(0, t)


def keep_choices(g: Game, offered: list[int]) -> list[tuple[str, ...]]:
    ids = sorted(g.edition.tickets[t].id for t in offered)
    k_min = min(keep_min(g), len(ids))
    out: list[tuple[str, ...]] = []
    for mask in range(1, 1 << len(ids)):
        if mask.bit_count() >= k_min:
            out.append(tuple(ids[i] for i in range(len(ids)) if mask >> i & 1))
    return out


def keep_min(g: Game) -> int:
    pol = g.rules.initial_tickets if g.phase == SETUP else g.rules.draw_tickets
    return pol.keep_min


def draw_tickets(g: Game, p: int, a: Action, ev: list[Event] | None) -> None:
    setup = g.phase == SETUP
    pol = g.rules.initial_tickets if setup else g.rules.draw_tickets
    drawn = deal_tickets(g, a.mix if pol.choose_mix else pol.deal)  # type: ignore[arg-type]
    g.offered[p] = drawn
    if not setup:
        g.phase = KEEP
    if ev is not None:
        ids = [g.edition.tickets[t].id for t in drawn]
        ev.append(Event("draw_tickets", p, {"count": len(drawn), "mix": dict(a.mix or ())}, {"tickets": ids}))


def keep(g: Game, p: int, kept: list[int], ev: list[Event] | None) -> None:
    setup = g.phase == SETUP
    pol = g.rules.initial_tickets if setup else g.rules.draw_tickets
    returned = [t for t in g.offered[p] if t not in kept]
    g.tickets[p].extend(kept)
    g.offered[p] = []
    if setup:
        g.setup_returned[p] = returned  # put back when every seat has chosen (finish_setup_player)
    else:
        put_back(g, returned, pol.returned)
    if ev is not None:
        ids = [g.edition.tickets[t].id for t in kept]
        ev.append(Event("keep_tickets", p, {"kept": len(kept), "returned": len(returned)}, {"tickets": ids}))
    if setup:
        finish_setup_player(g, p, ev)
        skip_empty_setup(g)  # a seat left with nothing to choose (a position built from a view, tiny decks)
    else:
        ending.end_turn(g, ev)


def check_keep(g: Game, a: Action, p: int) -> list[int]:
    """Keeping tickets just drawn (or dealt at setup): returns the tickets kept."""
    ed = g.edition
    if g.phase not in (SETUP, KEEP) or not g.offered[p]:
        raise IllegalAction("there are no drawn tickets to keep now", "wrong_phase")
    offered = {ed.tickets[t].id: t for t in g.offered[p]}
    chosen = a.tickets or ()
    for tid in chosen:
        if tid not in offered:
            raise IllegalAction(f"ticket {tid!r} is not among those drawn ({', '.join(sorted(offered))})", "unknown_ticket")
    need = min(keep_min(g), len(offered))
    if len(chosen) < need:
        raise IllegalAction(f"keep at least {need} of the {len(offered)} tickets drawn", "keep_too_few")
    return [offered[t] for t in chosen]


def check_draw_tickets(g: Game, a: Action, p: int) -> None:
    """Drawing tickets in a turn, or naming the mix of one's initial tickets (Märklin)."""
    phase = g.phase
    if phase == SETUP:
        if not g.rules.initial_tickets.choose_mix or g.offered[p]:
            raise IllegalAction("choose which of the dealt tickets to keep", "wrong_phase")
    elif phase != TURN:
        raise IllegalAction(f"cannot draw tickets now (phase: {phase})", "wrong_phase")
    pol = g.rules.initial_tickets if phase == SETUP else g.rules.draw_tickets
    if pol.choose_mix:
        mixes = ticket_mixes(g)
        if a.mix not in mixes:
            shown = ", ".join(json.dumps(dict(m)) for m in mixes) or "none: the ticket decks are empty"
            raise IllegalAction(f"name a mix of tickets to draw; possible: {shown}", "bad_mix")
    else:
        if a.mix is not None:
            raise IllegalAction("this edition deals tickets without a mix", "bad_mix")
        if not any(g.ticket_decks.get(d) for d, _ in pol.deal):
            raise IllegalAction("no destination tickets are left", "tickets_empty")
