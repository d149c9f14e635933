"""Initial schema: games, seats, actions, events.

Revision ID: 0001
Revises:
Create Date: 2025-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

TZ = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "games",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("edition", sa.String(64), nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("options", sa.Text, nullable=False),
        sa.Column("name", sa.String(100), nullable=True),
        sa.Column("public", sa.Boolean, nullable=False),
        sa.Column("hotseat", sa.Boolean, nullable=False),
        sa.Column("hotseat_token_hash", sa.String(64), nullable=True),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("action_count", sa.Integer, nullable=False),
        sa.Column("position", sa.Text, nullable=False),
        sa.Column("to_move", sa.Integer, nullable=True),
        sa.Column("bot_to_move", sa.Boolean, nullable=False),
        sa.Column("bot_lease_owner", sa.String(64), nullable=True),
        sa.Column("bot_lease_until", TZ, nullable=True),
        sa.Column("created_at", TZ, nullable=False),
        sa.Column("updated_at", TZ, nullable=False),
        sa.Column("finished_at", TZ, nullable=True),
    )
    op.create_index("ix_games_status", "games", ["status", "public"])
    op.create_index("ix_games_bots", "games", ["status", "bot_to_move"])
    op.create_table(
        "seats",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("type", sa.String(8), nullable=False),
        sa.Column("level", sa.String(32), nullable=True),
        sa.Column("name", sa.String(64), nullable=True),
        sa.Column("token_hash", sa.String(64), nullable=True),
        sa.Column("joined", sa.Boolean, nullable=False),
        sa.Column("joined_at", TZ, nullable=True),
    )
    op.create_table(
        "actions",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("idx", sa.Integer, primary_key=True),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("action", sa.Text, nullable=False),
        sa.Column("reveals", sa.Boolean, nullable=False),
        sa.Column("at", TZ, nullable=False),
    )
    op.create_table(
        "events",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("action_idx", sa.Integer, nullable=True),
        sa.Column("player", sa.Integer, nullable=True),
        sa.Column("type", sa.String(32), nullable=False),
        sa.Column("public", sa.Text, nullable=False),
        sa.Column("secret", sa.Text, nullable=True),
        sa.Column("undone", sa.Boolean, nullable=False),
        sa.Column("at", TZ, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("events")
    op.drop_table("actions")
    op.drop_table("seats")
    op.drop_index("ix_games_bots", table_name="games")
    op.drop_index("ix_games_status", table_name="games")
    op.drop_table("games")
