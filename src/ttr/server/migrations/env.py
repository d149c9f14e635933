"""Alembic environment: runs on the connection handed over by ``ttr.server.db.migrate``."""

from __future__ import annotations

from alembic import context

from ttr.server.db import metadata

connection = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - only through ttr.server.db.migrate
    raise RuntimeError("run migrations through ttr.server.db.migrate(), which passes a connection")
context.configure(connection=connection, target_metadata=metadata, render_as_batch=connection.dialect.name == "sqlite")
with context.begin_transaction():
    context.run_migrations()
