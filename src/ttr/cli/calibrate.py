"""ttr calibrate: the bot calibration ladder (ttr.sim.calibrate). Bots of every level play rated games among
themselves through the tournament runner, rated with the server's openskill model, anchored so that the
medium bot's mu is a new account's; writes the JSON the lobby shows ("medium ≈ 25.0": each level's mu)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

HELP = "play the bot calibration ladder and write the bots' ratings (shipped as ttr/server/bot_ratings.json)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    from ..sim.calibrate import LEVEL_ORDER, SHIPPED

    p.add_argument("--edition", default="usa", help="edition of the ladder's games")
    p.add_argument("--players", type=int, default=2, help="players per game (every combination of levels plays)")
    p.add_argument("--levels", default=",".join(LEVEL_ORDER), help="comma-separated bot levels to rate")
    p.add_argument("--games", type=int, default=8, help="games per combination of quick levels (seat-rotated)")
    p.add_argument(
        "--slow-games",
        type=int,
        default=2,
        help="games per combination that includes a max bot (about 50 CPU seconds a game)",
    )
    p.add_argument(
        "--slow-vs",
        default=None,
        help="comma-separated levels a max bot plays against (a reduced schedule, e.g. 'hard'; default: every level)",
    )
    p.add_argument("--seed", type=int, default=1, help="first deal seed")
    p.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="worker processes")
    p.add_argument("--records", metavar="FILE", help="also write every game's record to this .jsonl file")
    p.add_argument("--from-records", metavar="FILE", help="rate the games of a .jsonl written by --records (no play)")
    p.add_argument("--out", default=str(SHIPPED), help="the JSON file to write; '-' prints it")


def run(args: argparse.Namespace) -> int:
    from ..bots import LEVELS
    from ..sim.calibrate import calibrate

    levels = [lv.strip() for lv in args.levels.split(",") if lv.strip()]
    unknown = [lv for lv in levels if lv not in LEVELS]
    if unknown:
        print(f"ttr calibrate: unknown level(s) {', '.join(unknown)} (known: {', '.join(LEVELS)})", file=sys.stderr)
        return 2
    if args.games < 0 or args.slow_games < 0:
        print("ttr calibrate: --games and --slow-games must not be negative", file=sys.stderr)
        return 2
    try:
        slow_vs = [lv.strip() for lv in args.slow_vs.split(",") if lv.strip()] if args.slow_vs else None
        old = None
        if args.from_records:
            with open(args.from_records, encoding="utf-8") as f:
                old = [json.loads(line) for line in f if line.strip()]
        out = open(args.records, "w", encoding="utf-8") if args.records else None  # noqa: SIM115
        try:
            doc = calibrate(
                args.edition,
                args.players,
                levels,
                args.games,
                args.slow_games,
                args.seed,
                args.jobs,
                on_record=(lambda rec: out.write(json.dumps(rec, sort_keys=True) + "\n")) if out else None,
                slow_vs=slow_vs,
                records=old,
            )
        finally:
            if out:
                out.close()
    except ValueError as exc:
        print(f"ttr calibrate: {exc}", file=sys.stderr)
        return 2
    text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    if args.out == "-":
        sys.stdout.write(text)
    else:
        Path(args.out).write_text(text, encoding="utf-8")
        print(f"wrote {args.out}", file=sys.stderr)
    for lv, r in doc["levels"].items():
        extra = f"sigma {r['sigma']:.2f}, ordinal {r['ordinal']:.2f}, {r['games']} games, {r['wins']} won"
        print(f"{lv:>7} ≈ {r['mu']:6.2f}  ({extra})")
    print(f"{doc['schedule']['games']} games in {doc['seconds']} s", file=sys.stderr)
    return 0
