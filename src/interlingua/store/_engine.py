"""Engines, URLs and the translation of driver errors into :class:`StoreError`.

SQLite (aiosqlite): WAL journal, a busy timeout so concurrent writers wait
instead of failing, foreign keys on, and transactions begun explicitly
(``BEGIN IMMEDIATE`` for writes) rather than by the sqlite3 module's implicit
rules. PostgreSQL (asyncpg): plain READ COMMITTED; the conditional UPDATE of
the session row is the lock.

JSON columns bind and return JSON *text*: the store encodes and decodes with
msgspec itself (:class:`JsonText` passes through unchanged), never through
:mod:`json`.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

import msgspec
import sqlalchemy as sa
from sqlalchemy import event, exc as sa_exc
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from ..errors import InterlinguaError, StoreError

__all__ = ["DEFAULT_URL", "BUSY_TIMEOUT_S", "JsonText", "create_engine", "normalize_url", "safe_url", "translate_errors"]

DEFAULT_URL = "sqlite+aiosqlite:///interlingua.sqlite3"
"""Used when no URL is given and ``INTERLINGUA_STORE_URL`` is unset: a SQLite file in the working directory."""

BUSY_TIMEOUT_S = 30.0
"""How long a SQLite writer waits for another writer's lock before failing."""


class JsonText(str):
    """JSON text already encoded by the store; bound to JSON/JSONB columns unchanged."""

    __slots__ = ()


def _json_serializer(value: Any) -> str:
    if isinstance(value, JsonText):
        return str(value)
    return msgspec.json.encode(value).decode()


def _json_deserializer(text: str | bytes) -> str:
    # Hand the text back; the store decodes it with typed msgspec decoders.
    return text.decode() if isinstance(text, bytes) else text


def normalize_url(url: str | os.PathLike[str] | None) -> str:
    """Turn a user URL or path into an async SQLAlchemy URL.

    ``None`` -> ``$INTERLINGUA_STORE_URL`` or :data:`DEFAULT_URL`; a plain path ->
    a SQLite file; ``sqlite://`` -> ``sqlite+aiosqlite://``; ``postgresql://`` and
    ``postgres://`` -> ``postgresql+asyncpg://``.

    Raises:
        StoreError: an unsupported backend or driver.
    """
    if url is None:
        url = os.environ.get("INTERLINGUA_STORE_URL") or DEFAULT_URL
    url = os.fspath(url)
    if "://" not in url:
        return f"sqlite+aiosqlite:///{url}"
    try:
        parsed = make_url(url)
    except sa_exc.ArgumentError as exc:
        raise StoreError(f"not a database URL: {exc}") from exc
    backend = parsed.get_backend_name()
    if backend == "postgres":
        backend = "postgresql"
    driver = parsed.get_driver_name() if "+" in parsed.drivername else None
    wanted = {"sqlite": "aiosqlite", "postgresql": "asyncpg"}.get(backend)
    if wanted is None:
        raise StoreError(f"unsupported database backend {backend!r}: use sqlite+aiosqlite:// or postgresql+asyncpg://")
    if driver not in (None, wanted):
        raise StoreError(f"unsupported driver {driver!r} for {backend}: the store needs {backend}+{wanted}://")
    if backend == "sqlite" and (parsed.database in (None, "", ":memory:") or parsed.query.get("mode") == "memory"):
        # One shared connection cannot hold concurrent transactions; the store needs a file.
        raise StoreError("in-memory SQLite is not supported by the session store: use a file (a temporary directory will do)")
    return parsed.set(drivername=f"{backend}+{wanted}").render_as_string(hide_password=False)


def safe_url(url: str) -> str:
    """The URL with any password masked, for messages."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except sa_exc.ArgumentError:
        return "<unparseable URL>"


def create_engine(url: str) -> AsyncEngine:
    """Create the async engine for a normalised URL (see :func:`normalize_url`)."""
    kwargs: dict[str, Any] = {"json_serializer": _json_serializer, "json_deserializer": _json_deserializer}
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        kwargs["connect_args"] = {"timeout": BUSY_TIMEOUT_S}
        # a returned connection is rolled back by the "reset" hook below, only when a transaction is open
        kwargs["pool_reset_on_return"] = None
        engine = create_async_engine(url, **kwargs)
        _setup_sqlite(engine)
        return engine
    kwargs["pool_pre_ping"] = True
    return create_async_engine(url, **kwargs)


def _set_wal(cur: Any) -> None:
    """Switch a file database to WAL. The switch needs an exclusive lock and SQLite may refuse it
    at once (without the busy handler) while another connection switches or reads, so retry."""
    import sqlite3
    import time

    for attempt in range(100):
        try:
            cur.execute("PRAGMA journal_mode")
            row = cur.fetchone()
            if row and str(row[0]).lower() == "wal":
                return
            cur.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or attempt == 99:
                raise
            time.sleep(0.05)


def _setup_sqlite(engine: AsyncEngine) -> None:
    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        # Take transaction control away from the sqlite3 module (it would BEGIN
        # lazily before DML only); the "begin" hook below emits BEGIN itself.
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        cur.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        cur.execute("PRAGMA foreign_keys = ON")
        if engine.url.database not in (None, "", ":memory:"):
            _set_wal(cur)
            cur.execute("PRAGMA synchronous = NORMAL")
        cur.close()

    @event.listens_for(engine.sync_engine, "reset")
    def _on_reset(dbapi_conn: Any, _record: Any, state: Any) -> None:
        # What the pool's rollback-on-return does, without a round trip to the driver's thread when
        # no transaction is open (the store's transactions end before their connection goes back):
        # aiosqlite's ``in_transaction`` reads the connection's autocommit flag in place.
        if not state.asyncio_safe:
            return  # the pool cannot await here (a garbage-collected connection); it is terminated
        try:
            open_txn = bool(dbapi_conn.driver_connection.in_transaction)
        except (AttributeError, ValueError):  # not aiosqlite, or closed: do what the pool would
            open_txn = True
        if open_txn:
            dbapi_conn.rollback()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(conn: sa.Connection) -> None:
        # Writers take the write lock up front, so a transaction that has read
        # never has to upgrade its lock (which in WAL mode fails at once
        # instead of waiting for the busy timeout).
        conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get("interlingua_write") else "BEGIN")


@contextlib.contextmanager
def translate_errors(url: str, what: str) -> Iterator[None]:
    """Translate SQLAlchemy, driver and OS errors raised inside into :class:`StoreError`.

    Errors of interlingua's own tree pass through unchanged. The message names the
    operation and the URL with its password masked; never the SQL parameters.
    """
    try:
        yield
    except InterlinguaError:
        raise
    except sa_exc.DBAPIError as exc:
        orig = exc.orig if exc.orig is not None else exc
        raise StoreError(f"{what} failed on {safe_url(url)}: {type(orig).__name__}: {_first_line(orig)}") from exc
    except sa_exc.SQLAlchemyError as exc:
        raise StoreError(f"{what} failed on {safe_url(url)}: {type(exc).__name__}: {_first_line(exc)}") from exc
    except (OSError, ConnectionError) as exc:
        raise StoreError(f"{what} failed on {safe_url(url)}: cannot reach the database: {exc}") from exc
    except Exception as exc:
        # asyncpg raises its own errors outside DBAPI wrapping during connect.
        if type(exc).__module__.startswith(("asyncpg", "aiosqlite", "sqlite3")):
            raise StoreError(f"{what} failed on {safe_url(url)}: {type(exc).__name__}: {_first_line(exc)}") from exc
        raise


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    # SQLAlchemy appends the SQL and a background link; keep the driver's message only.
    return text[0] if text else type(exc).__name__

