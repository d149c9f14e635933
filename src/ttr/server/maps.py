"""Custom maps on the server: ``ttr serve --maps DIR`` offers every valid map file of DIR next to the built-in
editions, and every game on such a map stores the map itself, so that it loads, undoes and replays anywhere
even after the folder changed.

A custom map is named in the lobby by its *key*, ``map-`` and the first 16 hex digits of the SHA-256 of its
canonical JSON: the same file content always has the same key, and a changed file is another map. The map's
decoded JSON goes into every stored position (``"map"`` and ``"map_id"`` next to ``Game.to_dict()``'s fields)
and into the game's record (``"map"``), which ``ttr replay`` and ``ttr score`` read. Built-in games store
nothing more than before. No database table changes: the ``games.edition`` column holds the key.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from ..custom_maps import KEY_PREFIX, MAX_MAP_BYTES, custom_edition, is_custom, map_key, record_edition
from ..editions import BUILTIN, Edition, get_edition, load_edition_file
from ..engine import Game
from ..errors import EditionError
from .errors import ApiError

__all__ = [
    "KEY_PREFIX",
    "MAX_MAP_BYTES",
    "MapLibrary",
    "custom_edition",
    "game_from_position",
    "game_from_record",
    "is_custom",
    "map_key",
    "position_json",
    "record_edition",
    "record_json",
    "uploaded_edition",
]

log = logging.getLogger("ttr.server.maps")
MAX_FOLDER_MAPS = 200  # files read from a --maps folder at most


# ---------------------------------------------------------------------- stored positions and records
def position_json(game: Game) -> dict[str, Any]:
    """``game.to_dict()``, with the map when the game is on a custom map (what the server stores)."""
    d = game.to_dict()
    if is_custom(game.base_edition):
        d["map"] = game.base_edition.raw
        d["map_id"] = game.base_edition.source_path
    return d


def game_from_position(d: Any) -> Game:
    """The game of a position `position_json` wrote (PositionError / EditionError when it is not one)."""
    edition = None
    if isinstance(d, dict) and "map" in d:
        key = d.get("map_id")
        edition = custom_edition(d["map"], key if isinstance(key, str) else None)
    return Game.from_dict(d, edition)


def record_json(game: Game, record: dict[str, Any]) -> dict[str, Any]:
    """A game's record, with its map when it is on a custom map."""
    if is_custom(game.base_edition):
        record["map"] = game.base_edition.raw
    return record


def game_from_record(record: dict[str, Any]) -> Game:
    """A new game for `record` (its own map if it has one), with no action applied."""
    edition = record_edition(record) or record["edition"]
    return Game(edition, record["players"], record["seed"], record.get("options") or None)


def uploaded_edition(raw: Any) -> Edition:
    """A map a client sent (POST /api/maps, ``map`` in POST /api/games): 422 bad_map with the reason, which
    names the entry and the problem as ``ttr editions FILE`` does, and never a file on the server."""
    try:
        return custom_edition(raw, label="uploaded map")
    except EditionError as exc:
        raise ApiError(422, "bad_map", str(exc)) from None


# ---------------------------------------------------------------------- the --maps folder
class MapLibrary:
    """The custom maps a server offers: read once, at start, from a folder. A file that is not a valid map is
    logged with its error and left out; the server starts all the same."""

    def __init__(self, folder: str | Path | None = None) -> None:
        self.maps: dict[str, Edition] = {}  # key -> edition, in file-name order
        self.files: dict[str, str] = {}  # key -> file name (for the log only)
        self.skipped: dict[str, str] = {}  # file name -> why
        if folder is not None:
            self._read(Path(folder))

    def _read(self, folder: Path) -> None:
        if not folder.is_dir():
            log.error("--maps %s: not a folder; no custom maps are offered", folder)
            return
        files = sorted(p for p in folder.glob("*.json") if p.is_file())
        if len(files) > MAX_FOLDER_MAPS:
            log.error("--maps %s: %d map files, only the first %d are read", folder, len(files), MAX_FOLDER_MAPS)
            files = files[:MAX_FOLDER_MAPS]
        for path in files:
            try:
                if path.stat().st_size > MAX_MAP_BYTES:
                    raise EditionError(f"{path}: larger than {MAX_MAP_BYTES // 1024} KiB")
                ed = load_edition_file(path)  # the same validation and errors as ttr editions FILE
                custom = custom_edition(ed.raw, label=path.name)
            except EditionError as exc:
                self.skipped[path.name] = str(exc)
                log.warning("custom map skipped: %s", exc)
                continue
            except Exception as exc:  # a file must never stop the server
                self.skipped[path.name] = f"{type(exc).__name__}: {exc}"
                log.warning("custom map %s skipped: %s: %s", path, type(exc).__name__, exc)
                continue
            key = custom.source_path
            if key in self.maps:
                log.warning("custom map %s skipped: the same map as %s", path.name, self.files[key])
                continue
            self.maps[key] = custom
            self.files[key] = path.name
            log.info("custom map %s: %s (%s)", key, custom.name, path.name)

    def resolve(self, edition: str, uploaded: Any = None) -> Edition:
        """The edition a new game is created on: a map sent with the request (422 bad_map when it is not a valid
        map), else a built-in id or one of this library's keys (400 unknown_edition otherwise)."""
        if uploaded is not None:
            return uploaded_edition(uploaded)
        if edition in BUILTIN:
            return get_edition(edition)
        ed = self.maps.get(edition)
        if ed is None:
            known = ", ".join([*BUILTIN, *self.maps])
            raise ApiError(400, "unknown_edition", f"unknown edition {str(edition)[:80]!r} (known: {known})")
        return ed

    @staticmethod
    def lobby_id(edition: Edition) -> str:
        """What the lobby and the games table call the edition: a built-in id, or a custom map's key."""
        return edition.source_path if is_custom(edition) else edition.id

    def ids(self) -> list[str]:
        return [*BUILTIN, *self.maps]
