"""Custom maps carried by games: a map's stable key, its validated Edition (cached per process), and the map a
game record or stored position carries (``"map"``: the decoded map file). Standard library only, so that
``ttr replay`` and ``ttr score`` read such records without the server's dependencies. See docs/map-format.md,
"Custom maps on the server".
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from typing import Any

from .editions import BUILTIN, Edition, parse_edition
from .errors import EditionError

KEY_PREFIX = "map-"
MAX_MAP_BYTES = 256 * 1024  # a map file larger than this is refused (the built-in Europe is 18 KiB)
_CACHE_SIZE = 64  # parsed custom maps kept per process


def _canonical(raw: Any) -> bytes:
    return json.dumps(raw, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def map_key(raw: dict[str, Any]) -> str:
    """The lobby id of a map: stable for its content."""
    return KEY_PREFIX + hashlib.sha256(_canonical(raw)).hexdigest()[:16]


def is_custom(edition: Edition) -> bool:
    return edition.source_path.startswith(KEY_PREFIX)


_cache: OrderedDict[str, Edition] = OrderedDict()
_cache_lock = threading.Lock()


def custom_edition(raw: Any, key: str | None = None, label: str = "map") -> Edition:
    """The Edition of a custom map's decoded JSON (validated like a map file; EditionError names `label`).
    With `key` (a position this server stored), a map parsed before is taken from a small per-process cache."""
    if key is not None:
        with _cache_lock:
            hit = _cache.get(key)
            if hit is not None:
                _cache.move_to_end(key)
                return hit
    if not isinstance(raw, dict):
        raise EditionError(f"{label}: top level: expected a JSON object")
    try:
        canonical = _canonical(raw)
    except (TypeError, ValueError) as exc:  # not JSON data (a caller's object)
        raise EditionError(f"{label}: top level: not JSON data: {exc}") from None
    if len(canonical) > MAX_MAP_BYTES:
        raise EditionError(f"{label}: larger than {MAX_MAP_BYTES // 1024} KiB")
    real_key = KEY_PREFIX + hashlib.sha256(canonical).hexdigest()[:16]
    if key is not None and key != real_key:
        raise EditionError(f"{label}: the stored map does not match its id {key!r}")
    with _cache_lock:
        hit = _cache.get(real_key)
    if hit is not None:
        return hit
    ed = parse_edition(raw, label, source_path=real_key)
    if ed.id in BUILTIN:
        raise EditionError(f"{label}: id: {ed.id!r} is a built-in edition's id; give the map an id of its own")
    with _cache_lock:
        _cache[real_key] = ed
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return ed


def record_edition(record: Any, label: str = "record map") -> Edition | None:
    """The map a record carries (None: the record names a built-in edition or a map file)."""
    if isinstance(record, dict) and "map" in record:
        return custom_edition(record["map"], label=label)
    return None
