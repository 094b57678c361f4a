"""Tables of the session store (SQLAlchemy Core).

The Alembic revisions in :mod:`interlingua.store.migrations` own the database
schema; this module describes the head revision so the store's queries and the
migration drift test (autogenerate finds no difference) share one definition.

Tables::

    interlingua_sessions          one row per session: head_seq, metadata, tools, settings
    interlingua_items             one row per envelope, primary key (session_id, seq); usage, stop
                                  reason and response metadata on a response's last item; the
                                  (session_id, call_id) index holds the rows that have a call id
    interlingua_session_changes   metadata/tools/settings history, at the seq where each took effect
    interlingua_quarantine        rows that failed to decode, with the reason
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

__all__ = ["ITEMS", "JSON_DOC", "JSON_TEXT", "METADATA", "QUARANTINE", "SESSIONS", "SESSION_CHANGES", "VERSION_TABLE"]

VERSION_TABLE = "interlingua_alembic_version"
"""Alembic's version table; named so it cannot clash with an application's own Alembic history."""

METADATA = sa.MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)

JSON_DOC = sa.JSON(none_as_null=True).with_variant(postgresql.JSONB(none_as_null=True), "postgresql")
"""The item column: JSON on SQLite (stored as text), JSONB on PostgreSQL (queryable)."""

JSON_TEXT = sa.JSON(none_as_null=True)
"""Everything else: JSON kept as written (SQLite text, PostgreSQL ``json``), so key
order survives: it matters in tool parameter schemas (structured output follows
property order) and in provider usage records kept "exactly as given"."""

_TS = sa.DateTime(timezone=True)

SESSIONS = sa.Table(
    "interlingua_sessions",
    METADATA,
    sa.Column("id", sa.String(128), primary_key=True),
    sa.Column("created_at", _TS, nullable=False),
    sa.Column("updated_at", _TS, nullable=False),
    # Seq of the last item, -1 while empty. Every append moves it with one
    # conditional UPDATE; that row is the lock that serialises writers.
    sa.Column("head_seq", sa.BigInteger, nullable=False),
    sa.Column("metadata", JSON_TEXT, nullable=True),
    sa.Column("tools", JSON_TEXT, nullable=True),
    sa.Column("tool_choice", JSON_TEXT, nullable=True),
    sa.Column("settings", JSON_TEXT, nullable=True),
    sa.Column("parent_id", sa.String(128), nullable=True),
    sa.Column("fork_seq", sa.BigInteger, nullable=True),
    sa.Index(None, "created_at"),
)

ITEMS = sa.Table(
    "interlingua_items",
    METADATA,
    sa.Column("session_id", sa.String(128), sa.ForeignKey("interlingua_sessions.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("seq", sa.BigInteger, primary_key=True),
    sa.Column("schema_version", sa.String(16), nullable=False),
    sa.Column("type", sa.String(64), nullable=False),
    sa.Column("role", sa.String(32), nullable=True),
    sa.Column("call_id", sa.String, nullable=True),
    sa.Column("created_at", _TS, nullable=False),
    sa.Column("item", JSON_DOC, nullable=False),
    # Exact JSON text of the item where `item` may not keep it: unknown items
    # (written back byte for byte) and every item on PostgreSQL, whose JSONB
    # sorts keys and re-renders numbers (1e20 -> 100000000000000000000, -0.0 -> 0.0).
    # Reads prefer it; `item` serves queries.
    sa.Column("raw_json", sa.Text, nullable=True),
    sa.Column("usage", JSON_TEXT, nullable=True),
    sa.Column("stop_reason", JSON_TEXT, nullable=True),
    # ResponseInfo (id, model, provider_data) of the response whose last item this is (revision 0004).
    sa.Column("response", JSON_TEXT, nullable=True),
    # Only rows with a call id (revision 0005, ADR 0051): a look-up by call id never matches NULL,
    # so the entries of the other items (most of a conversation) were written on every append for nothing.
    sa.Index(None, "session_id", "call_id", sqlite_where=sa.text("call_id IS NOT NULL"), postgresql_where=sa.text("call_id IS NOT NULL")),
)

SESSION_CHANGES = sa.Table(
    "interlingua_session_changes",
    METADATA,
    sa.Column("session_id", sa.String(128), sa.ForeignKey("interlingua_sessions.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("change_no", sa.Integer, primary_key=True),
    # The first item seq the change applies to (the session's length when it was made).
    sa.Column("effective_seq", sa.BigInteger, nullable=False),
    sa.Column("created_at", _TS, nullable=False),
    # Each holds the full new value, or NULL when that part did not change.
    sa.Column("metadata", JSON_TEXT, nullable=True),
    sa.Column("tools", JSON_TEXT, nullable=True),
    sa.Column("tool_choice", JSON_TEXT, nullable=True),
    sa.Column("settings", JSON_TEXT, nullable=True),
)

QUARANTINE = sa.Table(
    "interlingua_quarantine",
    METADATA,
    sa.Column("session_id", sa.String(128), sa.ForeignKey("interlingua_sessions.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("seq", sa.BigInteger, primary_key=True),
    sa.Column("detected_at", _TS, nullable=False),
    sa.Column("reason", sa.Text, nullable=False),
)
