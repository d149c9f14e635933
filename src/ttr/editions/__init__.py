"""Built-in editions (map files in ``data/``) and loading of user map files."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from ..errors import EditionError
from .derived import per_edition
from .model import (
    RULE_OPTIONS,
    Edition,
    Route,
    Rules,
    Ticket,
    TicketPolicy,
    check_options,
    load_edition_file,
    parse_edition,
    with_options,
)

DATA_DIR = Path(__file__).parent / "data"
BUILTIN = ("usa", "europe", "nordic", "marklin")

__all__ = [
    "BUILTIN",
    "RULE_OPTIONS",
    "Edition",
    "Route",
    "Rules",
    "Ticket",
    "TicketPolicy",
    "check_options",
    "get_edition",
    "load_edition_file",
    "parse_edition",
    "per_edition",
    "with_options",
]


@cache
def get_edition(name: str) -> Edition:
    """A built-in edition by id ('usa', 'europe', 'nordic', 'marklin') or a path to a map file."""
    if name in BUILTIN:
        return load_edition_file(DATA_DIR / f"{name}.json")
    if name.endswith(".json") and Path(name).exists():
        return load_edition_file(name)
    raise EditionError(f"unknown edition {name!r} (built in: {', '.join(BUILTIN)}; or give a path to a map .json file)")
