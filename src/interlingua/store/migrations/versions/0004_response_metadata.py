"""Response metadata on item rows (ADR 0038).

An envelope carries, on the last item of a model response, that response's usage, stop reason
and metadata (``response``: the provider's response id, the model that answered and the
response-level fields no canonical field holds). Revision 0001 kept the first two only, so a
session file imported into the store came back without its responses' ids and models. This adds
the ``response`` column (JSON kept as written); rows stored before it have none (NULL), which is
what they held.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_JSON = sa.JSON()  # kept as written (PostgreSQL `json`)


def upgrade() -> None:
    with op.batch_alter_table("interlingua_items") as batch:
        batch.add_column(sa.Column("response", _JSON, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("interlingua_items") as batch:
        batch.drop_column("response")
