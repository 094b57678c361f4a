"""Generation settings on sessions and in their change history (ADR 0007).

A session keeps the settings its conversation is held with (model, max output tokens,
temperature, response format, reasoning, ...) beside its metadata and tools, so a replay
uses them unless the caller overrides them. Existing sessions have none (NULL).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_JSON = sa.JSON()  # kept as written (PostgreSQL `json`)


def upgrade() -> None:
    with op.batch_alter_table("interlingua_sessions") as batch:
        batch.add_column(sa.Column("settings", _JSON, nullable=True))
    with op.batch_alter_table("interlingua_session_changes") as batch:
        batch.add_column(sa.Column("settings", _JSON, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("interlingua_session_changes") as batch:
        batch.drop_column("settings")
    with op.batch_alter_table("interlingua_sessions") as batch:
        batch.drop_column("settings")
