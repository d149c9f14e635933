"""ttr gauntlet: one bot against each sparring style (racer, blocker, hoarder and the four FDG 2017
personas), on the editions and player counts asked, seats rotated and seeds fixed; one table with
win rates, Wilson 95% intervals, mean scores and the bot's time per decision. With ``--baseline B`` the
same games are played by B too and each row compares the two game by game (an A/B test)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

HELP = "play one bot against every gauntlet bot (2p: one opponent, more: copies of it) and print one table"


def _csv(text: str) -> list[str]:
    return [x.strip() for x in text.split(",") if x.strip()]


def add_arguments(p: argparse.ArgumentParser) -> None:
    from ..bots import GAUNTLET

    p.add_argument(
        "--bot", required=True, help="the bot to test: a name, a level (easy..max) or a spec like ismcts:iterations=200"
    )
    p.add_argument("--games", type=int, default=100, help="games per match (edition x players x opponent; default 100)")
    p.add_argument("--editions", default="usa", help="comma-separated editions (default usa; e.g. usa,europe,nordic,marklin)")
    p.add_argument("--players", default="2,4", help="comma-separated player counts (default 2,4; an edition's limits apply)")
    p.add_argument(
        "--opponents",
        default=",".join(GAUNTLET),
        help=f"comma-separated gauntlet bots to play (default: all of {', '.join(GAUNTLET)})",
    )
    p.add_argument(
        "--baseline",
        default=None,
        help="a second bot played on the same deals, seats and opponents; each row then compares the two game by "
        "game (win rates, the games only one of them won, exact sign test, mean margin difference)",
    )
    p.add_argument("--out", default=None, help="also write every game record as JSON lines to this file")
    p.add_argument(
        "--from",
        dest="from_file",
        default=None,
        metavar="FILE",
        help="play nothing: summarise the records of an --out file (a run stopped early too) for --bot (and --baseline)",
    )
    p.add_argument("--seed", type=int, default=1, help="first deal seed of every match (default 1)")
    p.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    p.add_argument("--json", action="store_true", help="print the rows as JSON instead of a table")


def run(args: argparse.Namespace) -> int:
    from ..bots import make_bot
    from ..sim import gauntlet

    try:
        for b in {args.bot, *_csv(args.opponents), *([args.baseline] if args.baseline else [])}:
            make_bot(b)  # fail fast on an unknown name or option
        players = [int(x) for x in _csv(args.players)]
    except (TypeError, ValueError) as exc:
        print(f"ttr gauntlet: {exc}", file=sys.stderr)
        return 2
    if args.games < 1:
        print("ttr gauntlet: --games must be at least 1", file=sys.stderr)
        return 2
    if args.baseline == args.bot:
        print("ttr gauntlet: --baseline must differ from --bot", file=sys.stderr)
        return 2
    if args.from_file:
        return _summarise_file(args)
    match_list, notes = gauntlet.matches(args.bot, _csv(args.editions), players, _csv(args.opponents), args.baseline)
    if not match_list:
        print("ttr gauntlet: nothing to play (" + "; ".join(notes) + ")", file=sys.stderr)
        return 2
    total_games = len(match_list) * args.games * (1 if args.baseline is None else 2)
    start = time.perf_counter()
    progress, advance = _progress(total_games)
    try:
        out = open(args.out, "w", encoding="utf-8") if args.out else None  # noqa: SIM115 (closed below)
    except OSError as exc:
        print(f"ttr gauntlet: cannot write {args.out}: {exc}", file=sys.stderr)
        return 2

    def on_record(rec: dict[str, Any]) -> None:
        if out is not None:
            out.write(json.dumps(rec, sort_keys=True) + "\n")
        if advance is not None:
            advance(rec)

    try:
        rows, total = gauntlet.run(args.bot, match_list, args.games, args.seed, args.jobs, on_record, args.baseline)
    finally:
        if progress is not None:
            progress.stop()
        if out is not None:
            out.close()
    elapsed = time.perf_counter() - start
    config = {
        "bot": args.bot,
        "baseline": args.baseline,
        "games": args.games,
        "seed": args.seed,
        "jobs": args.jobs,
        "seconds": elapsed,
    }
    if args.json:
        print(json.dumps({"config": config, "matches": rows, "total": total, "notes": notes}, indent=2))
        return 0
    print_table(args.bot, rows, total, config, notes)
    return 0


def _summarise_file(args: argparse.Namespace) -> int:
    from ..sim import gauntlet

    try:
        with open(args.from_file, encoding="utf-8") as f:
            records = [json.loads(line) for line in f if line.strip()]
        match_list, rows, total, left_out = gauntlet.from_records(args.bot, records, args.baseline)
    except (OSError, ValueError, KeyError, TypeError) as exc:  # json.JSONDecodeError is a ValueError
        print(f"ttr gauntlet: cannot summarise {args.from_file}: {exc!r}", file=sys.stderr)
        return 2
    if not match_list:
        print(f"ttr gauntlet: no games in {args.from_file}", file=sys.stderr)
        return 2
    notes = [f"{left_out} record(s) left out (other bots' games, or without their pair)"] if left_out else []
    games = max(r["games"] for r in rows)
    config = {"bot": args.bot, "baseline": args.baseline, "games": games, "seed": None, "jobs": 0, "seconds": 0.0}
    config["from"] = args.from_file
    if args.json:
        print(json.dumps({"config": config, "matches": rows, "total": total, "notes": notes}, indent=2))
        return 0
    print_table(args.bot, rows, total, config, notes)
    return 0


def _progress(total: int) -> tuple[Any, Any]:
    """A Rich progress bar on a terminal (None and a no-op callback otherwise)."""
    try:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
    except ImportError:
        return None, None
    console = Console(stderr=True)
    if not console.is_terminal:
        return None, None
    progress = Progress(TextColumn("[bold]gauntlet"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(), console=console)
    task = progress.add_task("games", total=total)
    progress.start()
    return progress, lambda rec: progress.update(task, advance=1)


COLUMNS = (
    *("edition", "players", "opponent", "games", "win rate", "95% CI", "score", "opp. score", "turns"),
    *("ms mean", "ms median", "ms p99"),
)


def _cells(row: dict[str, Any]) -> list[str]:
    lo, hi = row["win_rate_ci95"]
    return [
        row["edition"],
        str(row["players"]),
        _opponent(row),
        str(row["games"]),
        f"{row['win_rate']:.1%}",
        f"{lo:.1%}–{hi:.1%}",
        f"{row['score']:.1f}",
        f"{row['opponent_score']:.1f}",
        f"{row['turns']:.1f}",
        f"{row['ms_mean']:.2f}",
        f"{row['ms_median']:.2f}",
        f"{row['ms_p99']:.2f}",
    ]


PAIRED_COLUMNS = (
    *("edition", "players", "opponent", "games", "bot wins", "baseline wins", "bot only", "baseline only"),
    *("p (sign)", "margin A−B", "95% CI", "baseline ms mean"),
)


def _opponent(row: dict[str, Any]) -> str:
    return row["opponent"] if row["players"] == 2 else f"{row['players'] - 1} x {row['opponent']}"


def _paired_cells(row: dict[str, Any]) -> list[str]:
    pr = row["paired"]
    margin = pr["score"]
    ci = margin["ci95"]
    return [
        row["edition"],
        str(row["players"]),
        _opponent(row),
        str(pr["games"]),
        f"{pr['a_win_rate']:.1%}",
        f"{pr['b_win_rate']:.1%}",
        str(pr["a_only"]),
        str(pr["b_only"]),
        f"{pr['p_sign']:.3g}",
        "–" if margin["diff"] is None else f"{margin['diff']:+.1f}",
        "–" if ci is None else f"{ci[0]:+.1f} to {ci[1]:+.1f}",
        f"{row['baseline']['ms_mean']:.2f}",
    ]


def _print_rows(title: str, columns: tuple[str, ...], cells: list[list[str]]) -> None:
    """One table: Rich's where it is installed, plain aligned text otherwise."""
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        table_rows = [list(columns), *cells]
        widths = [max(len(r[i]) for r in table_rows) for i in range(len(columns))]
        print(title)
        for r in table_rows:
            print("  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)))
        return
    con = Console(width=None if Console().is_terminal else 160)
    table = Table(title=title)
    for col in columns:
        table.add_column(col, justify="left" if col in ("edition", "opponent") else "right")
    for r in cells:
        table.add_row(*r)
    con.print(table)


def print_table(bot: str, rows: list[dict[str, Any]], total: dict[str, Any], config: dict[str, Any], notes: list[str]) -> None:
    lo, hi = total["win_rate_ci95"]
    source = f"from {config['from']}" if config.get("from") else f"{config['games']} games a match, seed {config['seed']}"
    _print_rows(f"gauntlet: {bot}, {source}", COLUMNS, [_cells(r) for r in rows])
    played = "" if config.get("from") else f"; {config['seconds']:.1f} s with {config['jobs']} job(s)"
    lines = [
        *notes,
        f"all {total['games']} games: {total['win_rate']:.1%} [{lo:.1%}–{hi:.1%}]; {bot} per decision: mean "
        f"{total['ms_mean']:.2f} ms, median {total['ms_median']:.2f} ms, p99 {total['ms_p99']:.2f} ms over "
        f"{total['decisions']} decisions{played}",
    ]
    baseline = config.get("baseline")
    if baseline:
        title = f"paired: {bot} (A) against the baseline {baseline} (B) on the same deals, seats and opponents"
        _print_rows(title, PAIRED_COLUMNS, [_paired_cells(r) for r in rows])
        pr = total["paired"]
        margin = pr["score"]
        base = total["baseline"]
        ci = "" if margin["ci95"] is None else f" [{margin['ci95'][0]:+.1f} to {margin['ci95'][1]:+.1f}]"
        mdiff = "–" if margin["diff"] is None else f"{margin['diff']:+.1f}"
        lines.append(
            f"paired over all {pr['games']} games: {bot} {pr['a_win_rate']:.1%}, {baseline} {pr['b_win_rate']:.1%}; "
            f"only {bot} won {pr['a_only']}, only {baseline} won {pr['b_only']} (exact sign test p = {pr['p_sign']:.3g}); "
            f"margin A−B {mdiff}{ci}; {baseline} per decision: mean {base['ms_mean']:.2f} ms, "
            f"median {base['ms_median']:.2f} ms, p99 {base['ms_p99']:.2f} ms"
        )
    for line in lines:
        print(line)
