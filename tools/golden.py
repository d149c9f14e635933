"""Regenerate the golden playthrough files under tests/golden/ — deliberately.

Run this only when a change is meant to alter play (a rule fix, a new legal-action order); say so in
the commit message, since stored games replay through the same engine. A refactor must leave every
file unchanged: ``python -m pytest tests/golden`` checks that.

    python tools/golden.py            # rewrite every file
    python tools/golden.py usa-2p     # rewrite one
"""

from __future__ import annotations

import sys
from pathlib import Path

from ttr.sim.golden import GOLDEN_GAMES, dumps, file_name, playthrough

OUT = Path(__file__).resolve().parent.parent / "tests" / "golden"


def main(argv: list[str]) -> int:
    wanted = set(argv)
    for edition, players in GOLDEN_GAMES:
        name = file_name(edition, players)
        if wanted and name.removesuffix(".jsonl") not in wanted:
            continue
        lines = [dumps(line) for line in playthrough(edition, players)]
        (OUT / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"{name}: {len(lines) - 2} steps")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
