"""Browser tests: a real `ttr serve` subprocess (temporary SQLite file, bots without delay) and Debian's
Chromium driven by Playwright. Without a browser every test fails in CI and skips loudly elsewhere (tests/needs.py).

Chromium: $TTR_CHROMIUM, else /usr/bin/chromium. Never `playwright install`: we use the system browser.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from browser_helpers import CHROMIUM_ARGS, ApiFailure, Server, chromium_path, free_port

from needs import missing


@pytest.fixture(scope="session")
def chromium() -> str:
    path = chromium_path()
    if path is None:
        missing("browser tests need Chromium: set TTR_CHROMIUM or install Debian's chromium (apt-get install -y chromium)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing("browser tests need the Python package 'playwright' (pip install -e '.[browser]')")
    return path


@pytest.fixture(scope="module")
def server(chromium: str, tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Iterator[Server]:
    """`ttr serve` on a free port with its own SQLite file; bots play at once. Per module, so nothing is left
    running while the rest of the test suite goes on. A module's ``SERVE_ARGS`` (a list) are added to the
    command line, e.g. short expiry times."""
    data = tmp_path_factory.mktemp("ttr-serve")
    port = free_port()
    log = (data / "serve.log").open("wb")
    env = {**os.environ, "TTR_DATA_DIR": str(data)}
    if env.get("PYTHONPATH"):  # the server runs in a temporary directory: a relative PYTHONPATH=src would miss
        env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(x) for x in env["PYTHONPATH"].split(os.pathsep))
    env.pop("TTR_DATABASE_URL", None)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ttr",
            "serve",
            "--port",
            str(port),
            "--db",
            str(data / "ttr.sqlite3"),
            "--bot-delay",
            "0",
            "--undo-window",
            "0",
            "--no-access-log",
            "--log-level",
            "warning",
            "--no-limits",  # one browser creates a module's worth of games within a minute or two
            *getattr(request.module, "SERVE_ARGS", []),
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
        cwd=str(data),
    )
    srv = Server(f"http://127.0.0.1:{port}", proc)
    deadline = time.monotonic() + 40
    while True:
        try:
            srv.api("GET", "/api/editions")
            break
        except (OSError, ApiFailure):
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail(f"ttr serve did not start:\n{(data / 'serve.log').read_text(errors='replace')}")
            time.sleep(0.2)
    yield srv
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


@pytest.fixture(scope="module")
def browser(chromium: str) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def new_page(browser: Any) -> Iterator[Callable[..., Any]]:
    """Open pages in fresh browser contexts (own storage); fails the test on any uncaught page error."""
    contexts = []
    errors: list[str] = []

    def make(locale: str = "en-US", width: int = 1400, height: int = 900) -> Any:
        phone = width < 600  # a phone-sized window is a phone: touch events, no hover (as a real one)
        ctx = browser.new_context(viewport={"width": width, "height": height}, locale=locale, has_touch=phone, is_mobile=phone)
        contexts.append(ctx)
        page = ctx.new_page()
        page.set_default_timeout(30000)  # generous: CI machines may be busy
        page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
        page.on(
            "console",
            lambda m: (
                errors.append(f"console: {m.text}") if m.type == "error" and "Failed to load resource" not in m.text else None
            ),
        )
        return page

    yield make
    for ctx in contexts:
        ctx.close()
    assert errors == []
