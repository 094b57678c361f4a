"""Alembic environment of the session store (async template).

Three ways in:

* from :func:`interlingua.store.upgrade` / ``SessionStore.open(upgrade=True)`` /
  ``interlingua store upgrade``: a synchronous connection (from
  ``AsyncConnection.run_sync``) arrives in ``config.attributes["connection"]``;
* from the ``alembic`` command with ``-x url=...`` or ``sqlalchemy.url`` set:
  an async engine with ``NullPool`` is made here, migrations run through
  ``run_sync`` and the engine is disposed at the end;
* offline (``alembic upgrade head --sql``): SQL is printed for the URL.
"""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy import pool
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine

from interlingua.store._schema import METADATA, VERSION_TABLE

config = context.config
target_metadata = METADATA


def _url() -> str:
    url = context.get_x_argument(as_dictionary=True).get("url") or config.get_main_option("sqlalchemy.url")
    if not url:
        raise RuntimeError("no database URL: pass -x url=... or set sqlalchemy.url")
    from interlingua.store._engine import normalize_url

    return normalize_url(url)


def _configure(connection: Connection | None = None, **kw: object) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        version_table=VERSION_TABLE,
        render_as_batch=True,  # SQLite cannot ALTER most things; batch mode copies tables
        compare_type=True,
        **kw,  # type: ignore[arg-type]
    )


def run_migrations_offline() -> None:
    _configure(url=_url(), literal_binds=True, dialect_opts={"paramstyle": "named"})
    with context.begin_transaction():
        context.run_migrations()


def do_run_migrations(connection: Connection) -> None:
    _configure(connection)
    with context.begin_transaction():
        context.run_migrations()


async def run_async_migrations() -> None:
    engine = create_async_engine(_url(), poolclass=pool.NullPool)
    try:
        async with engine.begin() as conn:
            await conn.run_sync(do_run_migrations)
    finally:
        await engine.dispose()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        do_run_migrations(connection)
    else:
        asyncio.run(run_async_migrations())


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
