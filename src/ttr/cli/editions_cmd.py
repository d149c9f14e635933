"""ttr editions: list the built-in editions and their rule options."""

from __future__ import annotations

import argparse
import json

HELP = "list the editions (maps + rules) and their rule options"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("edition", nargs="?", help="show one edition's rule options in full (id or map file)")


def run(args: argparse.Namespace) -> int:
    from ..editions import BUILTIN, get_edition

    if args.edition:
        ed = get_edition(args.edition)
        print(ed.describe())
        for note in ed.notes:
            print(f"  NOTE: {note}")
        print(json.dumps(ed.raw["rules"], indent=2, ensure_ascii=False))
        return 0
    for eid in BUILTIN:
        ed = get_edition(eid)
        print(f"{eid:8} {ed.describe()}")
        for note in ed.notes:
            print(f"         NOTE: {note}")
    return 0
