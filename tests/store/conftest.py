"""Store test fixtures: every store test runs against SQLite and PostgreSQL.

PostgreSQL tests read ``INTERLINGUA_TEST_PG_URL`` (start a throwaway server with
``eval "$(.ci/postgres.sh start)"``). Without it they skip, except under
``CI=true`` where a missing server is a failure. Each test gets its own
database (created and dropped here).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import uuid
from collections.abc import AsyncIterator, Iterator

import pytest
from sqlalchemy.engine import make_url

from interlingua.store import SessionStore

PG_ENV = "INTERLINGUA_TEST_PG_URL"


def pg_base_url() -> str:
    url = os.environ.get(PG_ENV)
    if not url:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true but {PG_ENV} is not set: the PostgreSQL store tests must run under CI (.ci/postgres.sh)")
        pytest.skip(f"{PG_ENV} not set (start a server with: eval \"$(.ci/postgres.sh start)\")")
    return url


async def _pg_admin(base: str, sql: str) -> None:
    import asyncpg

    dsn = make_url(base).set(drivername="postgresql", database="postgres").render_as_string(hide_password=False)
    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def backend(request: pytest.FixtureRequest) -> str:
    return request.param


_TEMPLATE: dict[str, str] = {}


@pytest.fixture(scope="session")
def _pg_template_cleanup() -> Iterator[dict[str, str]]:
    yield _TEMPLATE
    if _TEMPLATE:
        asyncio.run(_pg_admin(_TEMPLATE["base"], f'DROP DATABASE IF EXISTS "{_TEMPLATE["name"]}" WITH (FORCE)'))


async def _pg_template(base: str) -> str:
    """A database migrated to head, copied for each test (faster than migrating each time)."""
    if not _TEMPLATE:
        name = f"il_tmpl_{uuid.uuid4().hex[:12]}"
        await _pg_admin(base, f'CREATE DATABASE "{name}"')
        store = await SessionStore.open(make_url(base).set(database=name).render_as_string(hide_password=False))
        await store.close()
        _TEMPLATE.update(base=base, name=name)
    return _TEMPLATE["name"]


@contextlib.asynccontextmanager
async def _pg_database(template: str | None) -> AsyncIterator[str]:
    base = pg_base_url()
    name = f"il_test_{uuid.uuid4().hex[:12]}"
    tmpl = f' TEMPLATE "{await _pg_template(base)}"' if template else ""
    await _pg_admin(base, f'CREATE DATABASE "{name}"{tmpl}')
    try:
        yield make_url(base).set(database=name).render_as_string(hide_password=False)
    finally:
        await _pg_admin(base, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
async def db_url(backend: str, tmp_path, _pg_template_cleanup) -> AsyncIterator[str]:  # type: ignore[no-untyped-def]
    """URL of a fresh database of the parametrised backend, at the head revision (SQLite: created on open)."""
    if backend == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'store.sqlite3'}"
        return
    async with _pg_database(template="head") as url:
        yield url


@pytest.fixture
async def empty_url(backend: str, tmp_path) -> AsyncIterator[str]:  # type: ignore[no-untyped-def]
    """URL of a fresh, empty database (no tables) of the parametrised backend."""
    if backend == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'empty.sqlite3'}"
        return
    async with _pg_database(template=None) as url:
        yield url


@pytest.fixture
async def store(db_url: str) -> AsyncIterator[SessionStore]:
    s = await SessionStore.open(db_url)
    try:
        yield s
    finally:
        await s.close()


@pytest.fixture
def sqlite_url(tmp_path) -> Iterator[str]:  # type: ignore[no-untyped-def]
    yield f"sqlite+aiosqlite:///{tmp_path / 'cli.sqlite3'}"
