"""Fixtures for the server tests: an app on a fresh SQLite file, with bots moving at once; a scratch
PostgreSQL database for the tests that need one."""

from __future__ import annotations

import os
import secrets
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

sys.path.insert(0, str(Path(__file__).parent))

from serverkit import TEST_RATE_ACTION

from needs import missing
from ttr.server import Settings, create_app


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(
        database_url=f"sqlite:///{tmp_path / 'ttr.sqlite3'}",
        bot_delay=0.0,
        bot_sweep_seconds=0.2,
        undo_window=0.0,  # bots answer at once (tests of the undo window make their own app)
        bot_budget=0.5,
        rate_action=TEST_RATE_ACTION,
        rate_ws_message=TEST_RATE_ACTION,
    )


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as c:
        yield c


@pytest.fixture
def pg_db() -> Iterator[str]:
    """The URL of a PostgreSQL database of this test's own on TTR_TEST_POSTGRES_URL's server, dropped afterwards."""
    server = os.environ.get("TTR_TEST_POSTGRES_URL")
    if not server:
        missing("TTR_TEST_POSTGRES_URL is not set: no PostgreSQL for this test (.ci/run starts one)")
    import psycopg

    name = f"ttr_test_{secrets.token_hex(4)}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    try:
        yield f"{server.rpartition('/')[0]}/{name}"
    finally:
        with psycopg.connect(server, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
