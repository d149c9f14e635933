"""Tests that need something outside Python (Chromium, PostgreSQL, root): `missing()` fails the test in
CI (CI=true: there, absence is a defect of the machine set-up) and elsewhere skips it *loudly*: the
reason is collected and printed in a banner at the end of the run (tests/conftest.py), so a local
run never looks greener than it is."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest

MISSING: dict[str, int] = {}  # reason -> tests that did not run because of it


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


def missing(reason: str) -> NoReturn:
    """Stop this test: a failure in CI, a loud skip elsewhere."""
    if in_ci():
        pytest.fail(f"MISSING IN CI: {reason}", pytrace=False)
    MISSING[reason] = MISSING.get(reason, 0) + 1
    pytest.skip(f"SKIPPED LOUDLY: {reason}")
