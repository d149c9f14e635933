"""The whole run: a banner at the end naming what was missing (see tests/needs.py)."""

from __future__ import annotations

from typing import Any

from needs import MISSING


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not MISSING:
        return
    tr = terminalreporter
    tr.write_sep("!", "SOME TESTS DID NOT RUN: missing dependencies", red=True, bold=True)
    for reason, count in sorted(MISSING.items()):
        tr.write_line(f"  {count} test(s) or fixture(s): {reason}", red=True, bold=True)
    tr.write_line("  In CI (CI=true) these are failures. README.md, 'Running the tests', says how to install them.", red=True)
