"""Train-card kinds. Every edition uses the same fixed index order, so a hand is a short list of counts."""

from __future__ import annotations

COLOURS: tuple[str, ...] = ("red", "orange", "yellow", "green", "blue", "purple", "white", "black")
LOCOMOTIVE = 8  # plain locomotive: wild (where the edition allows), limited when taken face up
PLUS4 = 9  # Märklin "+4 locomotive": wild only on routes of at least ``plus4_min_length`` spaces
PASSENGER = 10  # Märklin passenger card: never pays for a route; lets a passenger use an opponent's route
CARD_NAMES: tuple[str, ...] = (*COLOURS, "locomotive", "locomotive_plus4", "passenger")
NCARDS = len(CARD_NAMES)
CARD_INDEX: dict[str, int] = {name: i for i, name in enumerate(CARD_NAMES)}
GRAY = -1  # route colour index of a gray route (any single colour)
NO_CARD = -1  # an empty market slot

Cards = tuple[int, ...]  # counts indexed like CARD_NAMES


def cards_from_dict(counts: dict[str, object]) -> Cards:
    """{'orange': 3, 'locomotive': 1} -> counts tuple. Raises ValueError on unknown names or bad counts."""
    out = [0] * NCARDS
    for name, n in counts.items():
        idx = CARD_INDEX.get(name)
        if idx is None:
            raise ValueError(f"unknown card kind {name!r} (known: {', '.join(CARD_NAMES)})")
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise ValueError(f"card count for {name!r} must be a non-negative integer, got {n!r}")
        out[idx] += n
    return tuple(out)


def cards_to_dict(cards: Cards | list[int]) -> dict[str, int]:
    return {CARD_NAMES[i]: n for i, n in enumerate(cards) if n}
