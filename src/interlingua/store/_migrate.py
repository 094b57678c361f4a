"""Schema revisions: checking a database against the head and upgrading it.

The Alembic scripts live inside the package (:mod:`interlingua.store.migrations`)
so an installed wheel can migrate; see ``adr/0003-session-store.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from typing import Literal

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.ext.asyncio import AsyncConnection

from ._schema import METADATA, VERSION_TABLE

__all__ = ["SchemaState", "alembic_config", "head_revision", "read_state", "upgrade_sync"]


def alembic_config(url: str | None = None) -> Config:
    """An Alembic config pointing at the packaged scripts (no ini file needed)."""
    cfg = Config()
    cfg.set_main_option("script_location", str(resources.files("interlingua.store") / "migrations"))
    if url is not None:
        cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def head_revision() -> str:
    """The newest revision this interlingua knows."""
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head


@dataclass(frozen=True)
class SchemaState:
    """Where a database stands.

    Attributes:
        revision: The revision recorded in the database, ``None`` when none is.
        status: ``"current"``, ``"empty"`` (no store tables at all), ``"older"``,
            ``"unknown"`` (a revision this interlingua does not know, e.g. from a newer
            release), ``"unversioned"`` (store tables without a recorded revision) or
            ``"corrupt"`` (the version table holds more than one row; the store's revisions
            are linear, so it must hold exactly one).
        revisions: Every revision the version table holds (more than one only when ``corrupt``).
    """

    revision: str | None
    status: Literal["current", "empty", "older", "unknown", "unversioned", "corrupt"]
    revisions: tuple[str, ...] = ()


def _state(sync_conn: sa.Connection) -> SchemaState:
    ctx = MigrationContext.configure(sync_conn, opts={"version_table": VERSION_TABLE})
    # get_current_heads reads every row; get_current_revision raises alembic's CommandError on more than one
    heads = tuple(ctx.get_current_heads())
    if len(heads) > 1:
        return SchemaState(None, "corrupt", tuple(sorted(heads)))
    rev = heads[0] if heads else None
    script = ScriptDirectory.from_config(alembic_config())
    if rev is None:
        names = set(sa.inspect(sync_conn).get_table_names())
        if names & set(METADATA.tables):
            return SchemaState(None, "unversioned")
        return SchemaState(None, "empty")
    if rev == script.get_current_head():
        return SchemaState(rev, "current", heads)
    try:
        script.get_revision(rev)
    except Exception:
        return SchemaState(rev, "unknown", heads)
    return SchemaState(rev, "older", heads)


async def read_state(conn: AsyncConnection) -> SchemaState:
    """Read the database's :class:`SchemaState`."""
    return await conn.run_sync(_state)


def upgrade_sync(sync_conn: sa.Connection, revision: str = "head") -> None:
    """Apply revisions up to ``revision`` on an open synchronous connection (inside ``run_sync``)."""
    cfg = alembic_config()
    cfg.attributes["connection"] = sync_conn
    command.upgrade(cfg, revision)
