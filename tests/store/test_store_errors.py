"""Foreign errors become StoreError at the boundary; URLs are normalised; secrets stay out of messages."""

from __future__ import annotations

import asyncio
import socket

import pytest
import sqlalchemy as sa

from interlingua.errors import InterlinguaError
from interlingua.items import TextItem
from interlingua.store import SessionStore, StoreError, normalize_url
from interlingua.store._engine import translate_errors


def _closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


async def test_unreachable_postgres_is_a_store_error_without_the_password() -> None:
    url = f"postgresql+asyncpg://user:s3cret-pw@127.0.0.1:{_closed_port()}/db"
    with pytest.raises(StoreError) as ei:
        await SessionStore.open(url)
    assert "s3cret-pw" not in str(ei.value) and "***" in str(ei.value)
    assert ei.value.__cause__ is not None


async def test_unopenable_sqlite_file_is_a_store_error(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(StoreError, match="opening the store|reading the schema"):
        await SessionStore.open(tmp_path / "no" / "such" / "dir" / "x.sqlite3")
    # aiosqlite stops the worker thread of a failed connect without awaiting it; give the
    # thread time to report back before this test's event loop closes (else it warns later).
    await asyncio.sleep(0.2)


async def test_database_errors_mid_operation_are_translated(store: SessionStore) -> None:
    sid = await store.create_session()
    async with store.engine.begin() as conn:
        await conn.execute(sa.text("DROP TABLE interlingua_quarantine"))
        await conn.execute(sa.text("DROP TABLE interlingua_session_changes"))
        await conn.execute(sa.text("DROP TABLE interlingua_items"))
    with pytest.raises(StoreError, match="appending items failed") as ei:
        await store.append(sid, [TextItem(role="user", text="x")])
    # SQLite: through SQLAlchemy (DBAPIError); PostgreSQL: asyncpg's own error (the append is sent to the driver directly)
    cause = ei.value.__cause__
    assert isinstance(cause, sa.exc.DBAPIError) or type(cause).__module__.startswith("asyncpg"), cause
    assert "interlingua_items" in str(ei.value) or "no such table" in str(ei.value), ei.value


def test_translate_errors_maps_every_foreign_kind() -> None:
    cases = [
        sa.exc.OperationalError("SELECT 1", {}, Exception("disk I/O error")),
        sa.exc.IntegrityError("INSERT", {}, Exception("UNIQUE constraint failed")),
        sa.exc.TimeoutError("QueuePool limit"),
        sa.exc.InterfaceError("x", {}, Exception("closed")),
        ConnectionRefusedError(111, "refused"),
        OSError("boom"),
    ]
    for exc in cases:
        with pytest.raises(StoreError) as ei:
            with translate_errors("postgresql+asyncpg://u:pw@h/db", "doing it"):
                raise exc
        assert ei.value.__cause__ is exc and "pw@" not in str(ei.value)
    with pytest.raises(KeyError):  # programming errors pass through untouched
        with translate_errors("sqlite+aiosqlite:///x", "doing it"):
            raise KeyError("k")
    with pytest.raises(InterlinguaError):
        with translate_errors("sqlite+aiosqlite:///x", "doing it"):
            raise InterlinguaError("own errors pass through")


def test_normalize_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("INTERLINGUA_STORE_URL", raising=False)
    assert normalize_url(None) == "sqlite+aiosqlite:///interlingua.sqlite3"
    monkeypatch.setenv("INTERLINGUA_STORE_URL", "postgres://u@h/d")
    assert normalize_url(None) == "postgresql+asyncpg://u@h/d"
    assert normalize_url("chats.db") == "sqlite+aiosqlite:///chats.db"
    assert normalize_url("sqlite:////abs/x.db") == "sqlite+aiosqlite:////abs/x.db"
    assert normalize_url("postgresql://u:p@h:5/d") == "postgresql+asyncpg://u:p@h:5/d"
    for bad in ("mysql://u@h/d", "postgresql+psycopg2://u@h/d", "sqlite+pysqlite:///x", "sqlite+aiosqlite://", "sqlite:///:memory:"):
        with pytest.raises(StoreError, match="unsupported|not supported"):
            normalize_url(bad)


def test_public_surface() -> None:
    import interlingua.errors as errors
    import interlingua.store as store

    assert sorted(store.__all__) == [
        "ConflictError", "CorruptRowError", "CorruptRowWarning", "DEFAULT_URL", "ImportResult", "ImportResults", "MigrationRequiredError", "NewSession", "QuarantinedRow",
        "SessionChange", "SessionExistsError", "SessionInfo", "SessionNotFoundError", "SessionStore", "StoreError", "head_revision",
        "normalize_url", "upgrade",
    ]
    for name in ("ConflictError", "SessionExistsError", "SessionNotFoundError", "MigrationRequiredError", "StoreError"):
        assert getattr(store, name) is getattr(errors, name)
    assert issubclass(store.CorruptRowError, errors.StoreError)
    assert store.SessionStore.__module__ == "interlingua.store"


async def test_missing_driver_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "asyncpg", None)  # import asyncpg -> ModuleNotFoundError
    with pytest.raises(StoreError, match=r"interlingua\[postgres\]"):
        await SessionStore.open("postgresql+asyncpg://u@127.0.0.1:1/d")
