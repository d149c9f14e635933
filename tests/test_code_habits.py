"""Code habits that CI enforces through the test suite: lint, formatting, strict typing of the engine,
and the README's Python example actually running."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _run(*cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("args", [("check", "."), ("format", "--check", ".")], ids=["ruff-check", "ruff-format"])
def test_ruff(args: tuple[str, ...]) -> None:
    ruff = shutil.which("ruff")
    assert ruff, "ruff is not installed (pip install -e '.[test]')"
    out = _run(ruff, *args)
    assert out.returncode == 0, out.stdout + out.stderr


def test_engine_and_editions_are_strictly_typed() -> None:
    out = _run(sys.executable, "-m", "mypy", "--strict", "src/ttr/engine", "src/ttr/editions")
    assert out.returncode == 0, out.stdout + out.stderr


def test_readme_python_example_runs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.S)
    assert blocks, "the README has no Python example"
    for code in blocks:
        exec(compile(code, "README.md", "exec"), {"__name__": "readme"})
