"""Tables derived from an edition, built on first use and shared (engine claim shapes, bot map tables,
the RL codec and observation layout)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeVar

from .model import Edition

T = TypeVar("T")


def per_edition(build: Callable[[Edition], T]) -> Callable[[Edition], T]:
    """`build` memoised per edition object: editions with rule options are distinct objects, and each entry
    keeps its edition alive, so a cached id always names the same edition."""
    cache: dict[int, tuple[Edition, T]] = {}

    @functools.wraps(build)
    def get(edition: Edition) -> T:
        got = cache.get(id(edition))
        if got is None or got[0] is not edition:
            got = (edition, build(edition))
            cache[id(edition)] = got
        return got[1]

    return get
