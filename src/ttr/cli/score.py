"""ttr score: the final-scoring breakdown of a saved position or of a game record's final position."""

from __future__ import annotations

import argparse
import io
import json
import re
import shutil
from typing import Any

HELP = (
    "print the final-scoring breakdown of a game record (the server's record.json download, a "
    "`ttr simulate/tournament --out` line) or of a saved position (Game.to_dict)"
)

# the columns of the wide table: (header, field of a result row)
COLUMNS = ("player", "routes", "tickets", "done", "longest", "bonus", "stations", "merch.", "total", "rank")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("position", help="a record (JSON with edition, players, seed, actions) or a position (JSON from Game.to_dict)")
    p.add_argument("--json", action="store_true", help="print the breakdown as JSON")


class NotScorable(Exception):
    """The file is neither a record nor a position; the message is the one line the user sees."""


def _clean(reason: str) -> str:
    """A position error's reason without the Python exception name ("KeyError: 'rng'")."""
    m = re.match(r"malformed position: (\w+): (.*)", reason)
    if m:
        return f"missing or bad field {m.group(2)}" if m.group(1) == "KeyError" else f"missing or bad field ({m.group(2)})"
    return reason.splitlines()[0] if reason else "unreadable"


def load_game(path: str) -> tuple[Any, str]:
    """The game to score and what it was read from ("record" or "position"); NotScorable otherwise."""
    from ..custom_maps import record_edition
    from ..engine import Game
    from ..errors import TTRError

    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except OSError as exc:
        raise NotScorable(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise NotScorable(f"{path}: not a text file (expected a JSON game record or position)") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        lines = [line for line in text.splitlines() if line.strip()]
        if len(lines) > 1 and all(line.lstrip().startswith("{") for line in lines[:2]):
            raise NotScorable(
                f"{path}: holds {len(lines)} JSON lines; ttr score reads one record or position "
                "(ttr replay --show scores every game of a .jsonl file)"
            ) from None
        raise NotScorable(f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    if not isinstance(data, dict):
        raise NotScorable(f"{path}: expected a JSON object (a game record or a position), found a JSON {type(data).__name__}")
    if "actions" in data and "rng" not in data:
        missing = [k for k in ("edition", "players", "seed", "actions") if k not in data]
        if missing:
            raise NotScorable(f"{path}: a game record needs {', '.join(missing)}")
        if not isinstance(data["actions"], list):
            raise NotScorable(f"{path}: the record's actions are not a list")
        try:
            return Game.replay(data, record_edition(data)), "record"  # a custom map's record carries it
        except TTRError as exc:
            raise NotScorable(f"{path}: this record does not replay: {_clean(str(exc))}") from None
        except Exception:  # a hostile record must still give one line, not a traceback
            raise NotScorable(f"{path}: this record does not replay (a field has the wrong type)") from None
    try:
        return Game.from_dict(data, record_edition(data)), "position"
    except TTRError as exc:
        raise NotScorable(f"{path}: neither a game record nor a position: {_clean(str(exc))}") from None
    except Exception:
        raise NotScorable(f"{path}: neither a game record nor a position (a field has the wrong type)") from None


def _cells(x: dict[str, Any]) -> list[str]:
    return [
        str(x["player"]),
        str(x["route_points"]),
        f"{x['ticket_points']:+d}",
        f"{x['tickets_completed']}/{len(x['tickets'])}",
        str(x["longest_path"]),
        str(x["longest_path_bonus"] + x["most_tickets_bonus"]),
        str(x["unused_station_points"]),
        str(x["merchandise"]),
        str(x["total"]),
        str(x["rank"]),
    ]


def score_table(players: list[dict[str, Any]], width: int) -> Any:
    """A table that fits `width` columns: one row per player, or (too narrow) one row per field."""
    from rich.console import Console
    from rich.table import Table

    wide = Table()
    for col in COLUMNS:
        wide.add_column(col, justify="right", no_wrap=True)
    for x in players:
        wide.add_row(*_cells(x))
    needed = Console(width=10_000, file=io.StringIO()).measure(wide).maximum
    if needed <= width:
        return wide
    tall = Table()
    tall.add_column("", no_wrap=True)
    for x in players:
        tall.add_column(f"p{x['player']}", justify="right", no_wrap=True)
    rows = [_cells(x) for x in players]
    for i, col in enumerate(COLUMNS[1:], 1):
        tall.add_row(col, *(r[i] for r in rows))
    return tall


def run(args: argparse.Namespace) -> int:
    import sys

    from rich.console import Console

    try:
        game, kind = load_game(args.position)
    except NotScorable as exc:
        print(f"ttr score: {exc}", file=sys.stderr)
        return 2
    res = game.result()
    if args.json:
        print(json.dumps(res, indent=2, ensure_ascii=False))
        return 0
    width = shutil.get_terminal_size().columns
    console = Console(width=width)
    when = "" if game.is_over else " (if the game ended now)"
    source = f", final position of the record ({len(game.history)} actions)" if kind == "record" else ""
    console.print(f"{game.edition.name}: final scoring{when}{source}")
    console.print(score_table(res["players"], width))
    for x in res["players"]:
        tickets = ", ".join(f"{t['id']} {'+' if t['completed'] else '-'}{t['points']}" for t in x["tickets"])
        console.print(f"player {x['player']} tickets: {tickets or 'none'}")
        if x["station_routes"]:
            console.print(f"player {x['player']} stations borrow: {x['station_routes']}")
    console.print(f"winner(s): {res['winners']}  (tie-breakers: {', '.join(res['tiebreakers']) or 'none'})")
    return 0
