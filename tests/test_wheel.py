"""The package as a user installs it: a wheel built from this checkout, installed (not editable) into a
fresh virtual environment, runs `ttr serve` (lobby page, static files, map data, Alembic migrations),
`ttr simulate`, `ttr replay` and `ttr compare` from the installed copy, and carries every data file.

To stay fast and offline the wheel is built without build isolation and installed with --no-deps into
a venv that sees this environment's packages (--system-site-packages); PYTHONPATH is dropped and the
commands run outside the checkout, so only the installed ttr can be imported.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(cmd: list[str], cwd: Path, env: dict[str, str], timeout: float = 240) -> subprocess.CompletedProcess[str]:
    res = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert res.returncode == 0, f"{' '.join(cmd)} failed:\n{res.stdout[-3000:]}\n{res.stderr[-3000:]}"
    return res


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, str], Path]]:
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "checkout"  # a copy, so the build leaves no build/ or egg-info in the checkout
    shutil.copytree(ROOT / "src", src / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TTR_COMPILE", "TTR_DATABASE_URL")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    dist = tmp / "dist"
    cmd = [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--skip-dependency-check", "--outdir", str(dist), str(src)]
    _run(cmd, tmp, env)
    wheels = list(dist.glob("ttr-*.whl"))
    assert len(wheels) == 1, wheels
    venv_dir = tmp / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", str(venv_dir)], tmp, env)
    py = venv_dir / "bin" / "python"
    _run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps", "--no-index", str(wheels[0])], tmp, env)
    work = tmp / "work"
    work.mkdir()
    env["PATH"] = f"{venv_dir / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    yield venv_dir, env, work


def test_the_installed_package_is_the_wheel_and_carries_every_data_file(venv: tuple[Path, dict[str, str], Path]) -> None:
    venv_dir, env, work = venv
    code = "import ttr, pathlib; print(pathlib.Path(ttr.__file__).parent)"
    res = _run([str(venv_dir / "bin" / "python"), "-c", code], work, env)
    installed = Path(res.stdout.strip())
    assert installed.is_relative_to(venv_dir), installed  # not the editable checkout
    source = ROOT / "src" / "ttr"
    wanted = {p.relative_to(source) for p in source.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    have = {p.relative_to(installed) for p in installed.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    assert wanted - have == set(), f"missing from the wheel: {sorted(map(str, wanted - have))}"


def test_simulate_replay_and_report_template_from_the_wheel(venv: tuple[Path, dict[str, str], Path]) -> None:
    venv_dir, env, work = venv
    ttr = str(venv_dir / "bin" / "ttr")
    cmd = [ttr, "simulate", "--games", "3", "--players", "2", "--bots", "racer", "--jobs", "1", "--out", "g.jsonl"]
    res = _run(cmd, work, env)
    assert "win rate" in res.stdout
    res = _run([ttr, "replay", "g.jsonl"], work, env)
    assert "3 record(s) replayed and checked, 0 failed" in res.stdout
    code = "from ttr.sim import labreport; print(labreport.render('T', ['x'], [labreport.section('s', 'Mine')]))"
    res = _run([str(venv_dir / "bin" / "python"), "-c", code], work, env)  # the report template came with the wheel
    assert "<h2>Mine</h2>" in res.stdout and "opens from disk with no network" in res.stdout


def test_serve_from_the_wheel(venv: tuple[Path, dict[str, str], Path]) -> None:
    venv_dir, env, work = venv
    with contextlib.closing(__import__("socket").socket()) as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    db = work / "serve.sqlite3"
    log = open(work / "serve.log", "wb")  # noqa: SIM115 - open while the server runs
    proc = subprocess.Popen(
        [str(venv_dir / "bin" / "ttr"), "serve", "--port", str(port), "--db", str(db), "--no-access-log"],
        cwd=work,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, (work / "serve.log").read_text()
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(url + "/api/editions", timeout=2).status_code == 200:
                    break
            assert time.monotonic() < deadline, "ttr serve did not start"
            time.sleep(0.2)
        lobby = httpx.get(url + "/", timeout=10)
        assert lobby.status_code == 200 and '<script type="module" src="/static/js/main.js">' in lobby.text
        assert "not installed" not in lobby.text
        js = httpx.get(url + "/static/js/main.js", timeout=10)
        assert js.status_code == 200 and "javascript" in js.headers["content-type"] and len(js.text) > 100
        assert httpx.get(url + "/static/css/app.css", timeout=10).status_code == 200
        assert httpx.get(url + "/docs", timeout=10).status_code == 200
        europe = httpx.get(url + "/api/editions/europe/map", timeout=10).json()
        assert any(r["tunnel"] for r in europe["routes"]) and len(europe["cities"]) > 40
        assert {e["id"] for e in httpx.get(url + "/api/editions", timeout=10).json()} == {"usa", "europe", "nordic", "marklin"}
        with contextlib.closing(sqlite3.connect(db)) as con:  # the Alembic migrations ran
            assert con.execute("select version_num from alembic_version").fetchone()[0]
            tables = {r[0] for r in con.execute("select name from sqlite_master where type = 'table'")}
        assert "games" in tables, tables
    finally:
        proc.terminate()
        proc.wait(20)
        log.close()
