"""docs/rules.md names the test that checks each rule and Ruling: those tests must exist."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")


def defined_tests() -> set[str]:
    names: set[str] = set()
    for path in (ROOT / "tests").rglob("test_*.py"):
        names |= set(re.findall(r"^def (test_\w+)", path.read_text(encoding="utf-8"), re.M))
    return names


def test_every_test_named_in_the_rules_doc_exists() -> None:
    named = set(re.findall(r"`(test_\w+)`", DOC))
    assert len(named) > 100
    assert named <= defined_tests(), sorted(named - defined_tests())


def test_every_test_file_named_in_the_rules_doc_exists() -> None:
    files = set(re.findall(r"`(tests/[\w/]+\.py)`", DOC))
    assert files and all((ROOT / f).exists() for f in files), files


def test_every_ruling_row_names_a_test() -> None:
    rules, rulings_table = DOC.split("## All Rulings", 1)
    rows = [line for line in rules.splitlines() if line.startswith("| ") and "**Ruling" in line]
    rows += [line for line in rulings_table.splitlines() if line.startswith("| ") and not line.startswith("| Ruling |")]
    assert len(rows) >= 10
    for line in rows:
        assert "`test_" in line, f"a Ruling without a test: {line}"
