"""ttr simulate: many seeded games between bots, a summary table and one JSON record per game."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

HELP = "simulate games between bots (seeded, on several cores) and summarise them"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--edition", default="usa", help="usa, europe, nordic, marklin or a map file (default usa)")
    p.add_argument("--players", type=int, default=2, help="players per game, 2-5 (the edition's limits apply)")
    p.add_argument("--games", type=int, default=100, help="games to play")
    p.add_argument("--bots", default="random", help="comma-separated bot names, one per seat or one for all (default random)")
    p.add_argument("--seed", type=int, default=1, help="seed of the first game; game i uses seed+i")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: all cores)")
    p.add_argument("--out", help="write one JSON record per game to this .jsonl file")
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=JSON",
        help="rule option override, e.g. --option all_lanes_min_players=2 (repeatable)",
    )
    p.add_argument("--json", action="store_true", help="print the summary as JSON")


def parse_options(pairs: list[str]) -> dict:
    out = {}
    for pair in pairs:
        key, _, value = pair.partition("=")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


def parse_bots(command: str, text: str) -> list[str] | None:
    """The comma-separated bot names/specs of --bots, each built once to fail fast; None (after saying why) if one is bad."""
    from ..bots import make_bot

    bots = [b.strip() for b in text.split(",") if b.strip()]
    try:
        for b in set(bots):
            make_bot(b)
    except (TypeError, ValueError) as exc:
        print(f"ttr {command}: {exc}", file=sys.stderr)
        return None
    return bots


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
    from rich.table import Table

    from ..editions import get_edition
    from ..engine import Game
    from ..sim.runner import GameSpec, run_games, summarise

    bots = parse_bots("simulate", args.bots)
    if bots is None:
        return 2
    if len(bots) == 1:
        bots *= args.players
    if len(bots) != args.players:
        print(f"ttr simulate: --bots names {len(bots)} bots for {args.players} players", file=sys.stderr)
        return 2
    options = parse_options(args.option)
    Game(get_edition(args.edition), args.players, 0, options or None)  # validate edition, players, options
    specs = [
        GameSpec(args.edition, args.players, args.seed + i, tuple(bots), tuple(sorted(options.items())))
        for i in range(args.games)
    ]
    console = Console(stderr=True)
    out = open(args.out, "w", encoding="utf-8") if args.out else None  # noqa: SIM115
    records = []
    start = time.perf_counter()
    try:
        with Progress(
            TextColumn("[bold]simulate"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]} games/s"),
            TimeRemainingColumn(),
            console=console,
            disable=not console.is_terminal,
        ) as progress:
            task = progress.add_task("games", total=len(specs), rate="-")
            for rec in run_games(specs, jobs=args.jobs):
                records.append(rec)
                if out:
                    out.write(json.dumps(rec, ensure_ascii=False) + "\n")
                elapsed = time.perf_counter() - start
                progress.update(task, advance=1, rate=f"{len(records) / elapsed:.1f}")
    finally:
        if out:
            out.close()
    elapsed = time.perf_counter() - start
    summary = summarise(records)
    summary["seconds"] = elapsed
    summary["games_per_second"] = len(records) / elapsed if elapsed else 0.0
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    stdout = Console()
    table = Table(title=f"{args.games} games, {args.edition}, {args.players} players, seeds {args.seed}..")
    for col in ("bot", "seats", "win rate", "mean score", "median score", "tickets done / held"):
        table.add_column(col, justify="right")
    for name, b in summary["bots"].items():
        table.add_row(
            name,
            str(b["seats"]),
            f"{b['win_rate']:.1%}",
            f"{b['mean_score']:.1f}",
            f"{b['median_score']:.1f}",
            f"{b['tickets_completed']:.2f} / {b['tickets_held']:.2f}",
        )
    stdout.print(table)
    seats = "  ".join(f"seat {i}: {w:.1%}" for i, w in enumerate(summary["seat_win_rate"]))
    stdout.print(f"wins by seat: {seats}")
    stdout.print(
        f"game length: mean {summary['mean_turns']:.1f} turns, median {summary['median_turns']:.0f}; "
        f"stalemates: {summary['stalemates']}; {summary['games_per_second']:.1f} games/s on {args.jobs} job(s)"
    )
    if args.out:
        stdout.print(f"records written to {args.out}")
    return 0
