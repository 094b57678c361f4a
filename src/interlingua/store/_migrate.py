"""Schema revisions: checking a database against the head and upgrading it.

The Alembic scripts live inside the package (:mod:`interlingua.store.migrations`)
so an installed wheel can migrate; see ``adr/0003-session-store.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Literal

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from ._schema import METADATA, VERSION_TABLE

if TYPE_CHECKING:
    from alembic.config import Config

__all__ = ["HEAD", "SchemaState", "alembic_config", "head_revision", "read_state", "upgrade_sync"]

HEAD = "0005"
"""The newest revision in :mod:`interlingua.store.migrations` (a test checks it against the scripts).

Opening a store at this revision needs no Alembic: :func:`read_state` reads the version table
itself and loads Alembic (about 0.3 s of start-up) only for any other state."""


def alembic_config(url: str | None = None) -> Config:
    """An Alembic config pointing at the packaged scripts (no ini file needed)."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(resources.files("interlingua.store") / "migrations"))
    if url is not None:
        cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def head_revision() -> str:
    """The newest revision this interlingua knows."""
    from alembic.script import ScriptDirectory

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


def _at_head(sync_conn: sa.Connection) -> bool:
    """Whether the version table records exactly :data:`HEAD` (plain SQL, no Alembic)."""
    if not sa.inspect(sync_conn).has_table(VERSION_TABLE):
        return False
    versions = [r[0] for r in sync_conn.execute(sa.text(f"SELECT version_num FROM {VERSION_TABLE}")).all()]
    return versions == [HEAD]


def _state(sync_conn: sa.Connection) -> SchemaState:
    if _at_head(sync_conn):
        return SchemaState(HEAD, "current")
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

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
    from alembic import command

    cfg = alembic_config()
    cfg.attributes["connection"] = sync_conn
    command.upgrade(cfg, revision)
