"""Undo: which actions may be taken back, and how far.

Rule (documented in docs/api.md): an action *reveals* hidden information when a card or ticket that
nobody had seen comes into anyone's sight. Those actions are: a blind draw (the drawer sees the card),
a face-up draw (the market is refilled from the deck: everyone sees the new card), a ticket draw, a
claim of a tunnel (three cards are turned over), and the last action of the game (all tickets are
shown). Everything else — a claim without a tunnel, a station, keeping tickets already seen, paying for
or declining a tunnel already revealed, placing or moving a passenger, passing — reveals nothing.

Undo takes back the controller's last action, one action at a time, and only when nothing can be learnt
from it (docs/api.md, "Undo"):

* never an action that revealed hidden information (so that undoing can never be used to peek at the
  deck or the tickets);
* never past another seat's action, whatever it showed: a bot's claim shows the cards it paid and the
  route it wanted, and taking it back would put those cards back in a hand the person now knows, and
  let them see how the bot answers something else. Once another seat has moved, what came before
  stays. (The server gives the person time to undo first: bots wait ``undo_window`` seconds after a
  move that can still be undone.)

The engine is deterministic given the seed and the actions, so the game is rebuilt by replaying the
record without the removed action: the deck order stays exactly what it was.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..engine import Action, Game

REVEALING_TYPES = frozenset({"draw_blind", "draw_faceup", "draw_tickets"})


def action_reveals(before: Game, action: Action, after: Game) -> bool:
    """Whether applying `action` to `before` (giving `after`) showed anyone a hidden card or ticket."""
    if action.type in REVEALING_TYPES or after.is_over:
        return True
    if action.type == "claim":
        ri = before.edition.route_index.get(action.route or "")
        if ri is not None and before.edition.routes[ri].tunnel:
            return True
    if len(after.deck) < len(before.deck):  # a card left the deck some other way: be safe
        return True
    # tickets someone now holds that they did not hold before (tickets put away face down, like Europe's unused
    # long routes after setup, are seen by nobody)
    for p in range(before.n):
        seen_before = set(before.offered[p]) | set(before.tickets[p])
        if (set(after.offered[p]) | set(after.tickets[p])) - seen_before:
            return True
    return False


def undo_point(actions: Sequence[tuple[int, bool]], controlled: frozenset[int]) -> int | str:
    """How many actions to keep to undo the controller's last action, or the reason it cannot be undone.

    `actions` are (seat, reveals) for every recorded action, in order. Only the very last action can be
    taken back: one of the controller's seats played it and it revealed nothing.
    """
    if not actions:
        return "there is nothing of yours to undo"
    seat, reveals = actions[-1]
    if seat not in controlled:
        return (
            f"cannot undo: player {seat + 1} has moved since (taking back a move made after theirs would show "
            "what they hold); undo is possible until the next player moves"
        )
    if reveals:
        return "cannot undo: your last action revealed a hidden card or ticket"
    return len(actions) - 1
