"""The whole run: a banner at the end naming what was missing (see tests/needs.py)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from needs import MISSING


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not MISSING:
        return
    tr = terminalreporter
    skipped: Counter[str] = Counter()
    for rep in tr.stats.get("skipped", []):
        message = rep.longrepr[2] if isinstance(rep.longrepr, tuple) else str(rep.longrepr)
        for reason in MISSING:
            if reason in message:
                skipped[reason] += 1
    tr.write_sep("!", "SOME TESTS DID NOT RUN: missing dependencies", red=True, bold=True)
    for reason in sorted(MISSING):
        tr.write_line(f"  {skipped[reason] or 'some'} test(s) skipped: {reason}", red=True, bold=True)
    tr.write_line("  Under CI=true these are failures. README.md (Quick start) says what the tests need.", red=True)
