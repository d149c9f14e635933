"""Schemathesis against a real `ttr serve`: every check (statuses, content types, headers and bodies as the
OpenAPI description documents them — errors in the ErrorBody form —, schema-invalid data refused, 405 with
`Allow`, no 5xx, ...) in every phase, the stateful one included (links between operations), for a bounded time.

Run it by hand for longer: start `ttr serve`, then
`schemathesis --config-file tests/server/schemathesis.toml run http://127.0.0.1:8000/openapi.json --checks all --max-time 600`.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from serverkit import ServerProcess

pytest.importorskip("schemathesis", reason="schemathesis is in the test extra: pip install -e '.[test]'")

CONFIG = Path(__file__).with_name("schemathesis.toml")
BUDGET_S = 40  # schemathesis' own time budget for all its phases; the whole test stays around a minute


@pytest.mark.timeout(BUDGET_S + 180)
def test_schemathesis_all_checks_all_phases_find_nothing(tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    # bots wait a minute before each move: the run creates many bot games and measures the API, not the bots
    server = ServerProcess(str(tmp_path / "ttr.sqlite3"), bot_delay=60, log=log, extra=["--no-limits"]).start()
    try:
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "schemathesis.cli",
                "--config-file",
                str(CONFIG),
                "--no-color",
                "run",
                f"{server.url}/openapi.json",
                "--checks",
                "all",
                "--phases",
                "examples,coverage,fuzzing,stateful",
                "--max-time",
                str(BUDGET_S),
                "--seed",
                "14",
                "--workers",
                "1",
                "--request-timeout",
                "20",
                "--report-dir",
                str(tmp_path / "report"),
            ],
            capture_output=True,
            text=True,
            timeout=BUDGET_S + 150,
            cwd=tmp_path,
            check=False,
        )
    finally:
        server.stop()
    out = run.stdout + run.stderr
    assert run.returncode == 0, out[-12000:]
    assert "Stateful" in out and "Coverage" in out and "Fuzzing" in out, out[-4000:]  # every phase ran
    served = log.read_text(errors="replace")
    assert "Traceback" not in served, served[-4000:]
