"""Fixtures for the server tests: an app on a fresh SQLite file, with bots moving at once."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

sys.path.insert(0, str(Path(__file__).parent))

from ttr.server import Settings, create_app


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(
        database_url=f"sqlite:///{tmp_path / 'ttr.sqlite3'}",
        bot_delay=0.0,
        bot_sweep_seconds=0.2,
        undo_window=0.0,  # bots answer at once (tests of the undo window make their own app)
        bot_budget=0.5,
    )


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as c:
        yield c
