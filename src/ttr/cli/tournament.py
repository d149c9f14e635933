"""ttr tournament: seat-rotated, seeded games between any mix of bots, on local cores or Ray, with a
summary (win rates with 95% Wilson intervals, scores, tickets, seats, game length, rule gaps),
JSON lines of every game and an optional HTML report with plots."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import replace
from typing import Any

HELP = "play a seat-rotated tournament between bots and summarise it (JSON lines, HTML report)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--edition", default="usa", help="usa, europe, nordic, marklin or a map file (default usa)")
    p.add_argument("--players", type=int, default=2, help="players per game, 2-5 (default 2)")
    p.add_argument(
        "--bots",
        default="planner,racer",
        help="comma-separated bots, levels or specs like ismcts:iterations=200; one per seat, more "
        "(every combination is played) or fewer (repeated in order) (default planner,racer)",
    )
    p.add_argument("--games", type=int, default=100, help="games to play (default 100)")
    p.add_argument("--seed", type=int, default=1, help="first deal seed; each block of seat rotations uses the next")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes or Ray CPUs (default: all cores)")
    p.add_argument("--backend", choices=("local", "ray"), default="local", help="local processes or Ray (default local)")
    p.add_argument("--ray-address", default=None, help="Ray cluster address (default: start a local Ray)")
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=JSON",
        help="rule option override, e.g. --option all_lanes_min_players=2 (repeatable)",
    )
    p.add_argument("--out", help="write one JSON record per game to this .jsonl file")
    p.add_argument("--summary", help="write the summary as JSON to this file")
    p.add_argument("--report", metavar="DIR", help="write an HTML report with plots into DIR")
    p.add_argument("--json", action="store_true", help="print the summary as JSON instead of tables")
    p.add_argument(
        "--timed",
        action="store_true",
        help="also measure each bot's CPU time per decision (mean, median, p99; machine-dependent, "
        "adds decision_ms to the --out records); the games are the same",
    )


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from ..editions import get_edition
    from ..engine import Game
    from ..sim import tournament
    from ..sim.stats import tournament_summary
    from .simulate import parse_bots, parse_options

    bots = parse_bots("tournament", args.bots)
    if bots is None:
        return 2
    options = parse_options(args.option)
    edition = get_edition(args.edition)
    Game(edition, args.players, 0, options or None)  # validate edition, players and options
    if args.games < 1:
        print("ttr tournament: --games must be at least 1", file=sys.stderr)
        return 2
    specs = tournament.schedule(args.edition, args.players, bots, args.games, args.seed, options)
    if args.timed:
        specs = [replace(s, timed=True) for s in specs]
    console = Console(stderr=True)
    out = open(args.out, "w", encoding="utf-8") if args.out else None  # noqa: SIM115
    start = time.perf_counter()
    done = 0
    try:
        with Progress(
            TextColumn("[bold]tournament"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]} games/s"),
            TimeRemainingColumn(),
            console=console,
            disable=not console.is_terminal,
        ) as progress:
            task = progress.add_task("games", total=len(specs), rate="-")

            def on_record(rec: dict[str, Any]) -> None:
                nonlocal done
                done += 1
                if out:
                    out.write(json.dumps(rec, ensure_ascii=False, sort_keys=True) + "\n")
                progress.update(task, advance=1, rate=f"{done / (time.perf_counter() - start):.2f}")

            try:
                records = tournament.run(specs, args.backend, args.jobs, args.ray_address, on_record)
            except ImportError as exc:
                print(f"ttr tournament: the {args.backend} backend needs {exc.name} (pip install 'ttr[ray]')", file=sys.stderr)
                return 2
    finally:
        if out:
            out.close()
    elapsed = time.perf_counter() - start
    summary = tournament_summary(records)
    if args.timed:
        summary["decision_ms"] = decision_times(records)
    config = {
        "edition": args.edition,
        "players": args.players,
        "bots": bots,
        "games": args.games,
        "seed": args.seed,
        "options": options,
        "backend": args.backend,
        "jobs": args.jobs,
        "timed": args.timed,
    }
    timing = {"seconds": elapsed, "games_per_second": len(records) / elapsed if elapsed else 0.0}
    if args.summary:
        with open(args.summary, "w", encoding="utf-8") as f:
            json.dump({"config": config, "summary": summary, "timing": timing}, f, indent=2)
    if args.report:
        from ..sim.report import write_report

        index = write_report(args.report, records, summary, edition, config)
        console.print(f"report written to {index}")
    if args.json:
        print(json.dumps({"config": config, "summary": summary, "timing": timing}, indent=2))
        return 0
    print_summary(summary, config, timing)
    return 0


def decision_times(records: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """CPU milliseconds per decision of each bot (every seat it had), over timed records: count, mean, median, p99."""
    from ..sim.gauntlet import timing

    ms: dict[str, list[float]] = {}
    for rec in records:
        for seat, name in enumerate(rec["bots"]):
            ms.setdefault(name, []).extend(rec["decision_ms"][seat])
    return {name: timing(xs) for name, xs in ms.items()}


def print_summary(summary: dict[str, Any], config: dict[str, Any], timing: dict[str, float]) -> None:
    from rich.console import Console
    from rich.table import Table

    con = Console(width=None if Console().is_terminal else 150)
    table = Table(title=f"{summary['games']} games, {config['edition']}, {config['players']} players, seed {config['seed']}")
    for col in ("bot", "seats", "win rate", "95% CI", "mean score", "route pts", "ticket pts", "tickets done", "failed"):
        table.add_column(col, justify="right")
    for name, b in summary["bots"].items():
        lo, hi = b["win_rate_ci95"]
        table.add_row(
            name,
            str(b["seats"]),
            f"{b['win_rate']:.1%}",
            f"{lo:.1%}–{hi:.1%}",
            f"{b['mean_score']:.1f}",
            f"{b['mean_route_points']:.1f}",
            f"{b['mean_ticket_points']:.1f}",
            f"{b['tickets_completed']:.2f}",
            f"{b['tickets_failed']:.2f}",
        )
    con.print(table)
    seats = "  ".join(
        f"seat {s['seat'] + 1}: {s['win_rate']:.1%} [{s['win_rate_ci95'][0]:.0%}–{s['win_rate_ci95'][1]:.0%}]"
        for s in summary["seats"]
    )
    con.print(f"wins by turn position: {seats}")
    t = summary["turns"]
    con.print(
        f"game length: mean {t['mean']:.1f} turns (median {t['median']}, {t['min']}–{t['max']}); "
        f"games with a pass: {summary['games_with_pass']}; stalemates: {summary['stalemates']}"
    )
    for name, d in summary.get("decision_ms", {}).items():
        con.print(
            f"{name}: CPU ms a decision: mean {d['ms_mean']:.2f}, median {d['ms_median']:.2f}, "
            f"p99 {d['ms_p99']:.2f} ({d['decisions']} decisions)"
        )
    con.print(
        f"{timing['games_per_second']:.2f} games/s ({timing['seconds']:.1f} s, {config['backend']}, {config['jobs']} job(s))"
    )
