"""Clocks: a game's time control and the deadline of the seat to move; seats taken over by a bot or dropped.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("clock", sa.Text, nullable=True))
        batch.add_column(sa.Column("deadline", sa.DateTime(timezone=True), nullable=True))
        batch.create_index("ix_games_deadline", ["deadline"])
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("away", sa.Boolean, nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("dropped", sa.Boolean, nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("dropped")
        batch.drop_column("away")
    with op.batch_alter_table("games") as batch:
        batch.drop_index("ix_games_deadline")
        batch.drop_column("deadline")
        batch.drop_column("clock")
