"""ttr compare: an A/B test of two editions or variants on the same seeded, seat-rotated schedule,
written as one self-contained HTML report and JSON (docs/tournaments.md, "Comparing two variants")."""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import time
from typing import Any

HELP = "play the same seeded schedule on two editions or variants and write a side-by-side HTML + JSON report"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("a", metavar="A", help="edition id (usa, europe, nordic, marklin) or map file of side A")
    p.add_argument("b", metavar="B", help="edition id or map file of side B (the same as A to compare rule options)")
    p.add_argument("--players", type=int, default=2, help="players per game (the editions' limits apply)")
    p.add_argument(
        "--bots",
        default="planner,racer",
        help="comma-separated bots or personas, as for ttr tournament: one per seat, more (every "
        "combination) or fewer (repeated)",
    )
    p.add_argument("--games", type=int, default=100, help="games on each side")
    p.add_argument("--seed", type=int, default=1, help="first deal seed (both sides use the same seeds)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: all cores)")
    p.add_argument("--option", action="append", default=[], metavar="KEY=JSON", help="rule option for both sides (repeatable)")
    p.add_argument("--a-option", action="append", default=[], metavar="KEY=JSON", help="rule option for side A only (repeatable)")
    p.add_argument(
        "--b-option",
        action="append",
        default=[],
        metavar="KEY=JSON",
        help="rule option for side B only (repeatable), e.g. --b-option all_lanes_min_players=2",
    )
    p.add_argument("--label-a", default="A", help="name of side A in the report's columns")
    p.add_argument("--label-b", default="B", help="name of side B in the report's columns")
    p.add_argument("--report", metavar="DIR", default="compare-report", help="directory for compare.html and compare.json")
    p.add_argument("--out", metavar="PREFIX", help="also write every game as JSON lines to PREFIX-a.jsonl and PREFIX-b.jsonl")
    p.add_argument("--json", action="store_true", help="print the tests (B against A) as JSON instead of a table")


def _p(p: float | None) -> str:
    return "—" if p is None else "< 0.001" if p < 0.001 else f"{p:.3f}"


def _advance(progress: Any, task: Any, _record: dict[str, Any]) -> None:
    progress.update(task, advance=1)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
    from rich.table import Table

    from ..editions import get_edition
    from ..engine import Game
    from ..sim.compare import Side, describe, play_side, write_compare
    from .simulate import parse_bots, parse_options

    try:
        import jinja2  # noqa: F401
        import matplotlib  # noqa: F401
    except ImportError as exc:
        print(f"ttr compare: the report needs {exc.name} (pip install 'ttr[report]')", file=sys.stderr)
        return 2
    bots = parse_bots("compare", args.bots)
    if bots is None:
        return 2
    if args.games < 1:
        print("ttr compare: --games must be at least 1", file=sys.stderr)
        return 2
    shared = parse_options(args.option)
    sides = []
    for label, edition, extra in ((args.label_a, args.a, args.a_option), (args.label_b, args.b, args.b_option)):
        options = {**shared, **parse_options(extra)}
        Game(get_edition(edition), args.players, 0, options or None)  # validate edition, players and options
        sides.append(Side(label, edition, options))
    console = Console(stderr=True)
    start = time.perf_counter()
    played = []
    with Progress(
        TextColumn("[bold]compare {task.fields[side]}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        disable=not console.is_terminal,
    ) as progress:
        for side in sides:
            task = progress.add_task("games", total=args.games, side=side.label)
            played.append(
                play_side(side, args.players, bots, args.games, args.seed, args.jobs, functools.partial(_advance, progress, task))
            )
    a, b = played
    config = {
        "a": {
            "label": a["label"],
            "edition": a["edition"],
            "options": a["options"],
            "described": describe(a["edition"], a["options"]),
        },
        "b": {
            "label": b["label"],
            "edition": b["edition"],
            "options": b["options"],
            "described": describe(b["edition"], b["options"]),
        },
        "players": args.players,
        "bots": bots,
        "games": args.games,
        "seed": args.seed,
        "jobs": args.jobs,
        "seconds": round(time.perf_counter() - start, 1),
    }
    if args.out:
        for played_side, suffix in ((a, "a"), (b, "b")):
            with open(f"{args.out}-{suffix}.jsonl", "w", encoding="utf-8") as fh:
                for rec in played_side["records"]:
                    fh.write(json.dumps(rec, ensure_ascii=False, sort_keys=True) + "\n")
    html_path, json_path = write_compare(args.report, a, b, config)
    from ..sim.compare import tests

    results = tests(a, b)
    if args.json:
        print(json.dumps({"config": config, "tests": results}, indent=2))
    else:
        out = Console(width=None if Console().is_terminal else 160)
        table = Table(title=f"{a['label']} = {config['a']['described']}   vs   {b['label']} = {config['b']['described']}")
        columns = ("bot", f"{a['label']} win", f"{b['label']} win", "B − A", "p", "better on A / B", "p (paired)")
        for col in (*columns, f"{a['label']} score", f"{b['label']} score"):
            table.add_column(col, justify="right")
        for name, t in results["win_rate"].items():
            x, y = a["summary"]["bots"][name], b["summary"]["bots"][name]
            pr = results["paired"].get(name)
            table.add_row(
                name,
                f"{x['win_rate']:.1%}",
                f"{y['win_rate']:.1%}",
                f"{100 * t['diff']:+.1f} pts",
                _p(t["p"]),
                "—" if pr is None else f"{pr['a_only']} / {pr['b_only']}",
                "—" if pr is None else _p(pr["p_sign"]),
                f"{x['mean_score']:.1f}",
                f"{y['mean_score']:.1f}",
            )
        out.print(table)
        ta, tb = a["summary"]["turns"]["mean"], b["summary"]["turns"]["mean"]
        out.print(f"game length: {ta:.1f} vs {tb:.1f} turns; {args.games} games a side in {config['seconds']} s")
    console.print(f"report written to {html_path} and {json_path}")
    return 0
