"""Tables derived from an edition, built on first use and shared (engine claim shapes, bot map tables,
the RL codec and observation layout), in caches of bounded size."""

from __future__ import annotations

import functools
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

from .model import Edition

T = TypeVar("T")
PER_EDITION_MAX = 32  # editions (each option set is one) whose derived tables are kept per cache


class IdentityCache(Generic[T]):
    """A least-recently-used cache keyed by an object's identity (plus an optional extra key).

    Each entry keeps its object alive, and a hit is checked with ``is``, so an id reused by another object
    after an eviction never returns the wrong value. At most `maxsize` entries."""

    def __init__(self, maxsize: int) -> None:
        self.maxsize = maxsize
        self._entries: OrderedDict[tuple[int, Hashable], tuple[Any, T]] = OrderedDict()

    def get(self, obj: Any, key: Hashable, build: Callable[[], T]) -> T:
        k = (id(obj), key)
        entries = self._entries
        got = entries.get(k)
        if got is not None and got[0] is obj:
            entries.move_to_end(k)
            return got[1]
        value = build()
        entries[k] = (obj, value)
        entries.move_to_end(k)
        while len(entries) > self.maxsize:
            entries.popitem(last=False)
        return value

    def __len__(self) -> int:
        return len(self._entries)


def per_edition(build: Callable[[Edition], T]) -> Callable[[Edition], T]:
    """`build` memoised per edition object (editions with rule options are distinct objects), keeping the
    tables of the `PER_EDITION_MAX` most recently used editions."""
    cache: IdentityCache[T] = IdentityCache(PER_EDITION_MAX)

    @functools.wraps(build)
    def get(edition: Edition) -> T:
        return cache.get(edition, None, lambda: build(edition))

    get.cache = cache  # type: ignore[attr-defined]
    return get
