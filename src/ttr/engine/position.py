"""Position I/O: the full position as JSON (`to_dict`) and back (`from_dict`), or from its parts
(`assemble`), checked for consistency (every card accounted for, owners and passengers valid). Which
fields a position has, and how each is written and read, is declared once in ``state.FIELDS``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..cards import CARD_NAMES, NCARDS, NO_CARD
from ..editions import Edition
from ..errors import PositionError
from . import state
from .phases import Phase

if TYPE_CHECKING:
    from .game import Game


POSITION_FORMAT = 2  # 2: simultaneous setup (setup_waiting, setup_returned, history_seats replace setup_left)
READABLE_FORMATS = (1, 2)  # format 1 positions (setup one seat after the other) are read too


def _check_card_census(g: Game) -> None:
    """A position must hold exactly the edition's cards (deck, discard, market, hands, a pending tunnel)."""
    counts = [0] * NCARDS
    for p, h in enumerate(g.hands):
        for i, k in enumerate(h):
            if k < 0:
                raise PositionError(f"player {p} holds a negative number of {CARD_NAMES[i]} cards ({k})")
            counts[i] += k
    held = [*g.deck, *g.discard, *(c for c in g.market if c != NO_CARD)]
    if g.tunnel is not None:
        held += g.tunnel[2]
        held += [i for i, k in enumerate(g.tunnel[1]) for _ in range(k)]
    for c in held:
        counts[c] += 1
    for i, k in enumerate(counts):
        if k != g.edition.deck[i]:
            raise PositionError(f"the position holds {k} {CARD_NAMES[i]} cards; the edition has {g.edition.deck[i]}")


def _replayed_seats(g: Game) -> list[int]:
    """Format 1 (one seat after the other): who played each action follows from replaying the history."""
    if not g.history:
        return []
    actions = [a.to_json() for a in g.history]
    record = {"edition": g.base_edition.id, "options": g.options, "players": g.n, "seed": g.seed, "actions": actions}
    return type(g).replay(record, g.base_edition).history_seats


# ------------------------------------------------------------------ positions
def to_dict(g: Game) -> dict[str, Any]:
    """The position: the game's identity, then every saved field of ``state.FIELDS`` in its order."""
    return {
        "format": POSITION_FORMAT,
        "edition": g.base_edition.id,
        "options": g.options,
        "players": g.n,
        **state.dump(g),
    }


def from_dict(cls: type[Game], d: Any, edition: Edition | None) -> Game:
    """The game of a position written by ``to_dict`` (``Game.from_dict`` turns failures into PositionError)."""
    if not isinstance(d, dict):
        raise PositionError("a position must be a JSON object")
    fmt = d.get("format")
    if fmt not in READABLE_FORMATS:
        raise PositionError(f"unsupported position format {fmt!r} (this engine reads {', '.join(map(str, READABLE_FORMATS))})")
    g = cls(edition or d["edition"], 2, 0, d.get("options") or None, _blank=True)
    n = d["players"]
    if not isinstance(n, int) or not 1 <= n <= 8:
        raise PositionError(f"bad player count {n!r}")
    g.n = n
    return assemble(g, state.load(state.Reader(g.edition, n, fmt, d)))


def assemble(g: Game, values: dict[str, Any]) -> Game:
    """Complete the blank game `g` (edition, options and player count set) from the values of every saved
    field (internal form: card, ticket, route and city indices), check that they make one consistent
    position, and return it. ``from_dict`` reads the values from JSON; ``bots.determinize`` samples them."""
    state.set_fields(g, values)
    if state.NOT_RECORDED in g.history_seats:  # format 1: who played what follows from replaying the history
        g.history_seats = _replayed_seats(g)
    n = g.n
    for name in ("current", "first_player"):
        x = getattr(g, name)
        if not isinstance(x, int) or not 0 <= x < n:
            raise PositionError(f"bad player index {x!r} ({name})")
    if len(set(g.setup_waiting)) != len(g.setup_waiting):
        raise PositionError("'setup_waiting' names a seat twice")
    if (g.phase == Phase.SETUP) != bool(g.setup_waiting) or (g.setup_waiting and g.current != g.setup_waiting[0]):
        raise PositionError("in setup, 'current' is the first seat of 'setup_waiting' (and only then is it non-empty)")
    for name in ("hands", "trains", "scores", "tickets", "offered", "setup_returned", "stations_left", "passengers", "tokens"):
        if len(getattr(g, name)) != n:
            raise PositionError(f"{name!r} must be a list with one entry per player ({n})")
    if len(g.history_seats) != len(g.history):
        raise PositionError("'history_seats' must name one seat per action of 'history'")
    _check_card_census(g)
    g._final_result = None
    g.reset_caches()
    return g
