"""ttr score: the final-scoring breakdown of any saved position."""

from __future__ import annotations

import argparse
import json

HELP = "print the final-scoring breakdown of a position (.json from Game.to_dict)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("position", help="position file (JSON written by Game.to_dict / the server)")
    p.add_argument("--json", action="store_true", help="print the breakdown as JSON")


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from ..engine import Game
    from ..errors import PositionError

    try:
        with open(args.position, encoding="utf-8") as fh:
            data = json.load(fh)
    except OSError as exc:
        raise PositionError(f"{args.position}: cannot read: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise PositionError(f"{args.position}: not valid JSON: {exc}") from None
    game = Game.from_dict(data)
    res = game.result()
    if args.json:
        print(json.dumps(res, indent=2, ensure_ascii=False))
        return 0
    table = Table(title=f"{game.edition.name}: final scoring{'' if game.is_over else ' (if the game ended now)'}")
    for col in ("player", "routes", "tickets", "done", "longest", "bonus", "stations", "merch.", "total", "rank"):
        table.add_column(col, justify="right")
    for x in res["players"]:
        table.add_row(
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
        )
    console = Console()
    console.print(table)
    for x in res["players"]:
        tickets = ", ".join(f"{t['id']} {'+' if t['completed'] else '-'}{t['points']}" for t in x["tickets"])
        console.print(f"player {x['player']} tickets: {tickets or 'none'}")
        if x["station_routes"]:
            console.print(f"player {x['player']} stations borrow: {x['station_routes']}")
    console.print(f"winner(s): {res['winners']}  (tie-breakers: {', '.join(res['tiebreakers']) or 'none'})")
    return 0
