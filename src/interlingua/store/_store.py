"""The async :class:`SessionStore`.

Seq allocation and conflict detection (see ``adr/0003-session-store.md``): an
append is one transaction that first moves the session's ``head_seq`` with a
single conditional ``UPDATE ... SET head_seq = head_seq + n WHERE id = :id
[AND head_seq = :expected] RETURNING head_seq`` and then inserts the rows at
the seqs that UPDATE reserved. The UPDATE takes the row lock (PostgreSQL) or
the database write lock (SQLite, ``BEGIN IMMEDIATE``), so writers queue; a
writer whose expectation no longer holds updates no row and gets
:class:`ConflictError`. The primary key ``(session_id, seq)`` is the backstop
against duplicates. A failure anywhere rolls the whole batch back.
"""

from __future__ import annotations

import asyncio
import contextlib
import unicodedata
import os
import sqlite3
from dataclasses import dataclass
import shutil
import tempfile
import uuid
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable, Generator, Iterable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, Literal, cast

import msgspec
import sqlalchemy as sa
from sqlalchemy import exc as sa_exc
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlalchemy.util import greenlet_spawn

from ..codec import SCHEMA_VERSION, encode_envelope
from ..errors import ConflictError, DocumentError, MigrationRequiredError, Problem, SessionExistsError, SessionNotFoundError, StoreError
from ..items import Envelope, ResponseInfo, Settings, StopReason, ToolChoice, ToolDefinition, Transcript, Usage
from . import _jsonl, _rows
from ._engine import JsonText, create_engine, normalize_url, safe_url, sqlite_read_only, translate_errors
from ._migrate import head_revision, read_state, upgrade_sync
from ._schema import ITEMS, QUARANTINE, SESSION_CHANGES, SESSIONS, VERSION_TABLE
from ..session_file import EnvelopeBatch, SessionEnd, SessionPart, SessionStart, iter_session_parts, response_records
from ._import_plan import ImportPlan, check_stored_parent, import_difference, import_rounds, link_forks, plan_created_at, skip_session
from ._types import CorruptRowError, CorruptRowWarning, ImportResult, NewSession, QuarantinedRow, SessionChange, SessionInfo

__all__ = ["SessionStore"]

_UNSET: Any = msgspec.UNSET
_CHUNK = 1000

_PG_APPEND = """
WITH adv AS (
    UPDATE interlingua_sessions SET head_seq = head_seq + $2, updated_at = $3
    WHERE id = $1{cond}
    RETURNING head_seq
), ins AS (
    INSERT INTO interlingua_items
        (session_id, seq, schema_version, type, role, call_id, created_at, item, raw_json, usage, stop_reason, response)
    SELECT $1, adv.head_seq - $2 + r.ord, r.sv, r.ty, r.ro, r.ci, coalesce(r.ca, $3), r.it::jsonb, r.rj, r.us::json, r.sr::json, r.rs::json
    FROM adv, unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::timestamptz[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[])
        WITH ORDINALITY AS r(sv, ty, ro, ci, ca, it, rj, us, sr, rs, ord)
)
SELECT head_seq FROM adv
"""
_PG_APPEND_SQL = _PG_APPEND.format(cond="")
_PG_APPEND_EXPECTED_SQL = _PG_APPEND.format(cond=" AND head_seq = $14")
"""One append on PostgreSQL in one statement: the conditional head UPDATE (the lock that orders
writers) and the INSERT of every row, numbered from the new head, as columns passed as arrays.
Data-modifying CTEs run exactly once whether or not the outer query reads them (PostgreSQL docs,
"WITH Queries: Data-Modifying Statements in WITH"); the INSERT reads ``adv``, so when the UPDATE
matches no row (stale ``expected_seq``, no session) nothing is inserted."""
_DRIVER_CHUNK = _CHUNK
_SESSIONS_PER_INSERT = 500
_PAGE = 500
_JSON_NULL = JsonText("null")
_SESSION_ID_MAX = 128


def _now() -> datetime:
    return datetime.now(UTC)


_ITEM_COLUMNS = ("session_id", "seq", "schema_version", "type", "role", "call_id", "created_at", "item", "raw_json", "usage", "stop_reason", "response")
_NULLABLE_ITEM_COLUMNS = frozenset(("role", "call_id", "raw_json", "usage", "stop_reason", "response"))
_NO_VALUE = 0
"""What :func:`_item_params` binds for a missing (SQL NULL) value of a nullable item column, which
:data:`_INSERT_ITEMS_SQL` turns into NULL (``NULLIF(?, 0)``). These columns hold text or NULL, and a
text never equals the integer 0, so NULLIF returns every text unchanged.

Why not bind ``None``: Python's ``sqlite3`` module binds an exact ``int``, ``float``, ``str`` or
``bytearray`` as it is, but sends every other value, ``None`` and ``str`` subclasses included,
through its adapter protocol first (a ``(type, protocol)`` key built and looked up, then
``__adapt__`` and ``__conform__`` looked up; on CPython 3.11 the failed look-up on the protocol type
formats an ``AttributeError`` and drops it). With four or five NULLs per row that was ~17,000
instructions a row, ~35% of ``executemany`` (callgrind, 9,078 rows); ``NULLIF`` costs the virtual
machine a small fraction of that. Stored values and their types are the same (a test compares them
with SQLAlchemy's own insert)."""
_INSERT_ITEMS_SQL = (
    f"INSERT INTO {ITEMS.name} ({', '.join(_ITEM_COLUMNS)}) "
    f"VALUES ({', '.join(f'NULLIF(?, {_NO_VALUE})' if c in _NULLABLE_ITEM_COLUMNS else '?' for c in _ITEM_COLUMNS)})"
)


_SELECT_ITEMS_SQL = (
    # _rows.ROW_COLUMNS; the item's text as UTF-8 bytes (CAST of text is the stored bytes as they
    # are), so it is neither decoded into a str nor encoded again for the typed decode; NULL
    # unless it is text, which sends the load to the checked path
    "SELECT seq, schema_version, created_at, "
    "CASE WHEN typeof(COALESCE(raw_json, item)) = 'text' THEN CAST(COALESCE(raw_json, item) AS BLOB) END, usage, stop_reason, response "
    f"FROM {ITEMS.name} WHERE session_id = ? AND seq >= ? AND seq <= ? ORDER BY seq"
)


_ADVANCE_SQL = f"UPDATE {SESSIONS.name} SET head_seq = head_seq + ?, updated_at = ? WHERE id = ? RETURNING head_seq"
_ADVANCE_EXPECTED_SQL = f"UPDATE {SESSIONS.name} SET head_seq = head_seq + ?, updated_at = ? WHERE id = ? AND head_seq = ? RETURNING head_seq"


def _as_is(value: Any) -> Any:
    return value


_HEAD_SQL = f"SELECT head_seq FROM {SESSIONS.name} WHERE id = ?"


def _driver_caller(fairy: Any, dialect: Any) -> Callable[..., Awaitable[Any]] | None:
    """``call(fn, *args)`` runs ``fn(sqlite3_connection, *args)`` on aiosqlite's worker thread (the
    thread that owns the connection) in one hop, or ``None`` when the driver is not aiosqlite.

    ``fairy`` is a pooled connection (SQLAlchemy's pool proxy). aiosqlite runs every call of a
    connection on one thread through ``Connection._execute`` (its own cursor methods are built on
    it); the store holds the pooled connection for the call, so nothing else uses it meanwhile.
    """
    driver: Any = fairy.driver_connection
    execute = getattr(driver, "_execute", None)
    if execute is None or not hasattr(type(driver), "_conn"):
        return None

    async def call(fn: Callable[..., Any], *args: Any) -> Any:
        try:
            return await execute(fn, driver._conn, *args)
        except sqlite3.Error as exc:
            # wrapped as SQLAlchemy wraps a driver error, so callers see one kind of database error
            raise sa_exc.DBAPIError.instance(None, None, exc, sqlite3.Error, dialect=dialect) from exc

    return call


async def _to_completion(coro: Awaitable[Any]) -> None:
    """Await ``coro`` in a task of its own to its end even if the caller is cancelled meanwhile (then
    re-raise the cancellation): what SQLAlchemy's ``AsyncConnection`` does for its own close, so a
    connection is never left half given back to its pool."""
    task = asyncio.ensure_future(coro)
    cancelled: BaseException | None = None
    while True:
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError as exc:
            if task.done():
                raise
            cancelled = exc
        else:
            break
    if cancelled is not None:
        raise cancelled


def _item_bind_processors(dialect: Any) -> tuple[Any, Any, Any, Any, Any]:
    """Each item column's own bind processor (created_at, item, usage, stop_reason, response) for ``dialect``."""
    return tuple(ITEMS.c[c].type._cached_bind_processor(dialect) for c in ("created_at", "item", "usage", "stop_reason", "response"))  # type: ignore[return-value]


def _item_params(segments: Sequence[tuple[str, int, list[_rows.PreparedRow]]], now_v: Any, procs: tuple[Any, Any, Any, Any, Any]) -> list[tuple[Any, ...]]:
    """The ``_INSERT_ITEMS_SQL`` parameters of the rows of ``segments`` (``(session_id, first seq, rows)``).

    The values are exactly what SQLAlchemy would bind: each column's own bind processor (the
    dialect's ``DateTime`` text format, the JSON serializer) applied once per value. A row's item is
    its JSON text already (the JSON serializer would hand it back as the same text), so it is bound
    as it is. Every text goes to the driver as an exact ``str`` and a missing value as
    :data:`_NO_VALUE` (see there: neither then takes the driver's adapter path).
    """
    ts, js_item, js_usage, js_stop, js_resp = procs
    none = _NO_VALUE
    params: list[tuple[Any, ...]] = []
    append = params.append
    for session_id, first, rows in segments:
        sid = session_id if type(session_id) is str else str(session_id)
        for j, r in enumerate(rows, first):
            item = r.item
            if type(item) is not str:
                item = str(item) if isinstance(item, str) else (_exact_text(js_item(item)) if js_item else item)
            usage, stop, resp = r.usage, r.stop_reason, r.response
            append(
                (
                    sid,
                    j,
                    r.schema_version,
                    r.type,
                    none if r.role is None else r.role,
                    none if r.call_id is None else r.call_id,
                    now_v if r.created_at is None else (ts(r.created_at) if ts else r.created_at),
                    item,
                    none if r.raw_json is None else r.raw_json,
                    none if usage is None else _exact_text(js_usage(usage) if js_usage else usage),
                    none if stop is None else _exact_text(js_stop(stop) if js_stop else stop),
                    none if resp is None else _exact_text(js_resp(resp) if js_resp else resp),
                )
            )
    return params


def _exact_text(value: Any) -> Any:
    """A ``str`` subclass (e.g. :class:`JsonText`) as an exact ``str``, anything else unchanged."""
    return str(value) if isinstance(value, str) and type(value) is not str else value


def _append_sync(db: Any, session_id: str, rows: list[_rows.PreparedRow], expected: int | None, now_v: Any, procs: Any) -> tuple[int | None, int | None]:
    """One append on the driver's thread (``db`` is the ``sqlite3`` connection, in autocommit mode as
    the engine's connect hook leaves it): ``BEGIN IMMEDIATE`` (the write lock, waiting up to the busy
    timeout), the conditional head UPDATE, ``executemany`` of the rows at the seqs it reserved,
    ``COMMIT``; a failure anywhere rolls all of it back.

    Returns ``(new head, None)``, or ``(None, actual head)`` when the head is not ``expected``, or
    ``(None, None)`` when there is no such session (nothing written either way).
    """
    n = len(rows)
    db.execute("BEGIN IMMEDIATE")
    try:
        if expected is None:
            got = db.execute(_ADVANCE_SQL, (n, now_v, session_id)).fetchall()
        else:
            got = db.execute(_ADVANCE_EXPECTED_SQL, (n, now_v, session_id, expected)).fetchall()
        if not got:
            actual = db.execute(_HEAD_SQL, (session_id,)).fetchall()
            db.execute("ROLLBACK")
            return None, int(actual[0][0]) if actual else None
        head = int(got[0][0])
        db.executemany(_INSERT_ITEMS_SQL, _item_params([(session_id, head - n + 1, rows)], now_v, procs))
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    return head, None


_SESSION_COLUMN_NAMES = tuple(c.name for c in SESSIONS.c)
_SELECT_SESSION_SQL = f"SELECT {', '.join(_SESSION_COLUMN_NAMES)} FROM {SESSIONS.name} WHERE id = ?"
_HEAD_INDEX = _SESSION_COLUMN_NAMES.index("head_seq")


def _load_sync(db: Any, session_id: str, since_seq: int) -> tuple[tuple[Any, ...] | None, list[tuple[Any, ...]]]:
    """A load's reads on the driver's thread (``db`` is the ``sqlite3`` connection): the session row
    and its item rows ``since_seq..head`` (:data:`_rows.ROW_COLUMNS`) in one read transaction.
    ``(None, [])`` when there is no such session."""
    db.execute("BEGIN")
    try:
        found = db.execute(_SELECT_SESSION_SQL, (session_id,)).fetchall()
        rows = db.execute(_SELECT_ITEMS_SQL, (session_id, since_seq, found[0][_HEAD_INDEX])).fetchall() if found else []
    finally:
        if db.in_transaction:
            db.execute("COMMIT")  # a read: nothing to keep or undo
    return (found[0] if found else None), rows


class _SessionRow:
    """A session row read through the driver, its values processed as SQLAlchemy's result would be."""

    __slots__ = _SESSION_COLUMN_NAMES

    def __init__(self, values: tuple[Any, ...], procs: tuple[Any, ...]) -> None:
        for name, proc, value in zip(_SESSION_COLUMN_NAMES, procs, values):
            setattr(self, name, value if value is None or proc is None else proc(value))


def _session_row(values: tuple[Any, ...], dialect: Any) -> _SessionRow:
    """:class:`_SessionRow` of a driver tuple, with each column type's own result processor for ``dialect``."""
    return _SessionRow(values, tuple(c.type._cached_result_processor(dialect, None) for c in SESSIONS.c))


async def _insert_rows_driver(conn: AsyncConnection, segments: Sequence[tuple[str, int, list[_rows.PreparedRow]]], now: datetime) -> None:
    """SQLite: rows of one or several sessions as ``executemany`` of pre-built tuples through the driver.

    ``segments`` holds ``(session_id, first seq, rows)``. The values are exactly what SQLAlchemy
    would bind: each column's own bind processor (the dialect's ``DateTime`` text format, the JSON
    serializer that passes the store's already-encoded :class:`JsonText` through) is applied here
    once per value, without building a parameter dict and compiling parameters per row.
    """
    procs = _item_bind_processors(conn.dialect)
    ts = procs[0]
    params = _item_params(segments, ts(now) if ts else now, procs)
    for start in range(0, len(params), _DRIVER_CHUNK):
        await conn.exec_driver_sql(_INSERT_ITEMS_SQL, params[start : start + _DRIVER_CHUNK])


_SESSION_COLUMNS = ("id", "created_at", "updated_at", "head_seq", "metadata", "tools", "tool_choice", "settings")
_INSERT_SESSIONS_SQL = (
    f"INSERT INTO {SESSIONS.name} ({', '.join(_SESSION_COLUMNS)}) VALUES ({', '.join('?' * len(_SESSION_COLUMNS))}) ON CONFLICT (id) DO NOTHING"
)


async def _insert_sessions_driver(conn: AsyncConnection, batch: Sequence[tuple[str, dict[str, Any], list[_rows.PreparedRow]]], now: datetime) -> set[str]:
    """SQLite: the batch's session rows whose ids are not stored yet; returns the ids it created.

    Runs inside a write transaction, which on SQLite holds the database write lock from its
    ``BEGIN IMMEDIATE``: no other writer can add one of these ids between the look-up and the
    insert. Two statements for the whole batch, whatever its size (pre-bound tuples through the
    driver, as :func:`_insert_rows_driver`), so no statement is compiled per batch length.
    """
    ids = [sid for sid, _v, _r in batch]
    stored: set[str] = set()
    for start in range(0, len(ids), _SESSIONS_PER_INSERT):
        chunk = ids[start : start + _SESSIONS_PER_INSERT]
        sql = f"SELECT id FROM {SESSIONS.name} WHERE id IN ({', '.join('?' * len(chunk))})"
        stored.update(r[0] for r in (await conn.exec_driver_sql(sql, tuple(chunk))).all())
    dialect = conn.dialect
    procs = {c: SESSIONS.c[c].type._cached_bind_processor(dialect) for c in _SESSION_COLUMNS[4:] + ("created_at",)}
    ts = procs["created_at"]
    now_v = ts(now) if ts else now

    def js(column: str, value: Any) -> Any:
        proc = procs[column]
        return value if value is None or proc is None else proc(value)

    params = [
        (sid, now_v, now_v, len(rows) - 1, *(js(c, values[c]) for c in _SESSION_COLUMNS[4:]))
        for sid, values, rows in batch
        if sid not in stored
    ]
    if params:
        await conn.exec_driver_sql(_INSERT_SESSIONS_SQL, params)
    return {p[0] for p in params}


def _session_key(session_id: str) -> str:
    """The stored form of a session id: Unicode NFC.

    ``café`` typed on macOS (NFD, ``e`` + U+0301) and on Linux (NFC, U+00E9) is one session;
    without this the store kept two sessions that list identically. Ids are normalised on every
    call that takes one, so either spelling finds the session.

    Raises:
        DocumentError: the id holds a lone surrogate (bytes that are not UTF-8, as a shell passes
            them through ``surrogateescape``).
    """
    if type(session_id) is str and session_id.isascii():
        return session_id
    if not isinstance(session_id, str):
        return session_id  # the callers' own type checks say what is wrong
    try:
        session_id.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise DocumentError(
            Problem("/session_id", f"a session id must be valid Unicode text: character {exc.start} is not (bytes that are not UTF-8?)")
        ) from None
    return unicodedata.normalize("NFC", session_id)


def _check_session_id(session_id: object) -> str:
    if not isinstance(session_id, str) or not session_id or len(session_id) > _SESSION_ID_MAX:
        raise DocumentError(Problem("/session_id", f"a session id is a non-empty string of at most {_SESSION_ID_MAX} characters"))
    if any(ord(c) < 32 or ord(c) == 127 for c in session_id):
        raise DocumentError(Problem("/session_id", "a session id must not contain control characters"))
    return _session_key(session_id)


class SessionStore:
    """Sessions of envelopes in SQLite or PostgreSQL (SQLAlchemy 2 asyncio, Core).

    Open with :meth:`open`; close with :meth:`close` (or ``async with``). Every
    database error is raised as :class:`~interlingua.errors.StoreError` (or a
    subclass); invalid input as :class:`~interlingua.errors.DocumentError`
    before anything is written.
    """

    def __init__(self, engine: AsyncEngine, url: str) -> None:
        """Use :meth:`open`."""
        self._engine = engine
        self._url = url
        self._is_pg = engine.dialect.name == "postgresql"
        self._read_only = False

    # ------------------------------------------------------------------ lifecycle

    @classmethod
    async def open(
        cls,
        url: str | os.PathLike[str] | None = None,
        *,
        upgrade: bool = False,
        create: bool = True,
        pool_size: int | None = None,
        max_overflow: int | None = None,
        pool_timeout: float | None = None,
    ) -> SessionStore:
        """Open a store.

        Args:
            url: ``sqlite+aiosqlite:///path``, ``postgresql+asyncpg://...``, a plain file
                path (SQLite), or ``None`` for ``$INTERLINGUA_STORE_URL`` or
                ``./interlingua.sqlite3``.
            upgrade: Apply pending schema revisions to a database at an older revision.
            create: Create the schema in a database that holds none of the store's tables.
            pool_size: Connections kept open (SQLAlchemy's default: 5). Size it to the number of
                concurrent tasks that use this store: a PostgreSQL append holds a connection for
                one statement, so a pool smaller than the task count only queues them.
            max_overflow: Connections opened beyond ``pool_size`` under load (default 10).
            pool_timeout: Seconds a task waits for a free connection before
                :class:`~interlingua.errors.StoreError` (default 30).

        Raises:
            MigrationRequiredError: the database is at an older revision (and ``upgrade``
                is false), or empty (and ``create`` is false). The message names the
                ``interlingua store upgrade`` command to run.
            StoreError: unreachable database, unsupported URL, or a revision this
                interlingua does not know (written by a newer release).
        """
        norm = normalize_url(url)
        with translate_errors(norm, "opening the store"):
            read_only = sqlite_read_only(norm)
            pool = {k: v for k, v in (("pool_size", pool_size), ("max_overflow", max_overflow), ("pool_timeout", pool_timeout)) if v is not None}
            try:
                engine = create_engine(norm, read_only=read_only, pool=pool)
            except ModuleNotFoundError as exc:
                extra = " (pip install 'interlingua[postgres]')" if exc.name == "asyncpg" else ""
                raise StoreError(f"the database driver {exc.name} is not installed{extra}") from exc
        store = cls(engine, norm)
        store._read_only = read_only
        try:
            await store._check_schema(upgrade=upgrade, create=create)
        except BaseException:
            await engine.dispose()
            raise
        return store

    async def _check_schema(self, *, upgrade: bool, create: bool) -> None:
        with translate_errors(self._url, "reading the schema revision"):
            async with self._engine.connect() as conn:
                state = await read_state(conn)
        cmd = f"interlingua store upgrade --url '{safe_url(self._url)}'"
        if state.status == "current":
            return
        if state.status == "corrupt":
            head = head_revision()
            raise StoreError(
                f"the database at {safe_url(self._url)} records {len(state.revisions)} schema revisions "
                f"({', '.join(state.revisions)}) in table {VERSION_TABLE}, which must hold exactly one row (the store's "
                f"revisions are linear). Repair: keep the row of the revision the tables are at (this interlingua's newest "
                f"is {head}) and delete the others, e.g. DELETE FROM {VERSION_TABLE} WHERE version_num <> '{head}'; "
                f"then run `{cmd}`"
            )
        if state.status == "unknown":
            raise StoreError(
                f"the database at {safe_url(self._url)} is at schema revision {state.revision}, which this interlingua "
                f"does not know (its newest is {head_revision()}); upgrade interlingua"
            )
        if state.status == "unversioned":
            raise MigrationRequiredError(
                f"the database at {safe_url(self._url)} holds session store tables but no recorded revision "
                f"(table {VERSION_TABLE} is missing or empty); it was not created by the store's migrations"
            )
        if state.status == "older" and not upgrade:
            raise MigrationRequiredError(
                f"the database at {safe_url(self._url)} is at schema revision {state.revision}; this interlingua needs "
                f"{head_revision()}. Run `{cmd}` (or open with upgrade=True)"
            )
        if state.status == "empty" and not create:
            raise MigrationRequiredError(f"the database at {safe_url(self._url)} has no session store schema. Run `{cmd}`")
        if self._read_only:
            what = "has no session store schema" if state.status == "empty" else f"is at an older schema revision ({state.revision})"
            raise StoreError(f"the database at {safe_url(self._url)} {what} and cannot be written here (read-only file or file system)")
        await self.upgrade()

    async def upgrade(self) -> None:
        """Apply every pending schema revision (safe to run concurrently; writers are serialised)."""
        async with self._write("upgrading the schema") as conn:
            if self._is_pg:
                # Concurrent upgraders wait here; the second one then finds nothing to do.
                await conn.execute(sa.text("SELECT pg_advisory_xact_lock(7260218374512)"))
            await conn.run_sync(upgrade_sync)

    async def close(self) -> None:
        """Close every pooled connection."""
        await self._engine.dispose()

    async def __aenter__(self) -> SessionStore:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def url(self) -> str:
        """The database URL with any password masked."""
        return safe_url(self._url)

    @property
    def read_only(self) -> bool:
        """True when the SQLite file could not be opened for writing (read-only media or permissions):
        reads work, writes raise :class:`~interlingua.errors.StoreError`."""
        return self._read_only

    @property
    def backend(self) -> str:
        """``"sqlite"`` or ``"postgresql"``."""
        return self._engine.dialect.name

    @property
    def engine(self) -> AsyncEngine:
        """The underlying SQLAlchemy engine (for tests and operations; the schema belongs to the store)."""
        return self._engine

    # ------------------------------------------------------------------ transactions

    @contextlib.asynccontextmanager
    async def _write(self, what: str) -> AsyncIterator[AsyncConnection]:
        with translate_errors(self._url, what):
            async with self._engine.connect() as conn:
                await conn.execution_options(interlingua_write=True)
                async with conn.begin():
                    yield conn

    @contextlib.asynccontextmanager
    async def _read(self, what: str, *, snapshot: bool = False) -> AsyncIterator[AsyncConnection]:
        with translate_errors(self._url, what):
            async with self._engine.connect() as conn:
                if snapshot and self._is_pg:
                    await conn.execution_options(isolation_level="REPEATABLE READ")
                async with conn.begin():
                    yield conn

    @contextlib.asynccontextmanager
    async def _on_driver_thread(self) -> AsyncIterator[Callable[..., Awaitable[Any]] | None]:
        """SQLite: a pooled connection as the ``call`` of :func:`_driver_caller` (``None`` when the
        driver is not aiosqlite), checked out at the pool (``AsyncEngine.raw_connection``: the same
        connect hook, pragmas and pool limits) without a SQLAlchemy ``Connection`` around it, which
        the driver-thread calls do not use: its construction, events and close were ~100 us an
        append or load, more than the driver-thread hop itself. Given back to the pool (its reset
        hook: a rollback only if a transaction is open) when the block ends, even on cancellation.
        Errors are translated by the caller (``translate_errors``)."""
        fairy = await self._engine.raw_connection()
        try:
            yield _driver_caller(fairy, self._engine.dialect)
        finally:
            await _to_completion(greenlet_spawn(fairy.close))

    def _insert(self, table: sa.Table) -> Any:
        return (postgresql.insert if self._is_pg else sqlite.insert)(table)

    # ------------------------------------------------------------------ sessions

    async def create_session(
        self,
        metadata: dict[str, Any] | None = None,
        *,
        session_id: str | None = None,
        tools: Sequence[ToolDefinition] | None = None,
        tool_choice: ToolChoice | None = None,
        settings: Settings | None = None,
    ) -> str:
        """Create an empty session.

        Idempotent when ``session_id`` is given: if that session exists, its id is
        returned and it is left unchanged (metadata and tools are not overwritten).

        Args:
            metadata: Caller-owned JSON-safe object.
            session_id: The id to use (default: a new UUID4 string).
            tools: Tool definitions the conversation is held with.
            tool_choice: Tool choice.
            settings: Generation settings the conversation is held with (ADR 0007).

        Returns:
            The session id.

        Raises:
            DocumentError: invalid id, metadata or tools (nothing written).
        """
        sid = _check_session_id(session_id) if session_id is not None else str(uuid.uuid4())
        values = self._session_values(metadata, tools, tool_choice, settings, clear_with_null=False)
        now = _now()
        async with self._write("creating a session") as conn:
            stmt = (
                self._insert(SESSIONS)
                .values(id=sid, created_at=now, updated_at=now, head_seq=-1, **values)
                .on_conflict_do_nothing(index_elements=["id"])
                .returning(SESSIONS.c.id)
            )
            created = (await conn.execute(stmt)).scalar_one_or_none()
            if created is not None and any(v is not None for v in values.values()):
                await conn.execute(
                    sa.insert(SESSION_CHANGES).values(session_id=sid, change_no=0, effective_seq=0, created_at=now, **values)
                )
        return sid

    def _session_values(self, metadata: Any, tools: Any, tool_choice: Any, settings: Any, *, clear_with_null: bool) -> dict[str, Any]:
        """Encode the given session values; ``_UNSET`` -> unchanged (SQL NULL), ``None`` -> cleared."""
        out: dict[str, Any] = {}
        for name, value, enc in (
            ("metadata", metadata, self._enc_metadata),
            ("tools", tools, _rows.encode_tools),
            ("tool_choice", tool_choice, _rows.encode_choice),
            ("settings", settings, _rows.encode_settings),
        ):
            if value is _UNSET:
                out[name] = None
            elif value is None:
                out[name] = _JSON_NULL if clear_with_null else None
            else:
                out[name] = enc(value, f"/{name}")
        return out

    @staticmethod
    def _enc_metadata(value: Any, pointer: str) -> JsonText:
        if not isinstance(value, dict):
            raise DocumentError(Problem(pointer, f"metadata must be an object, got {type(value).__name__}"))
        return _rows.encode_json(value, pointer)

    async def update_session(
        self,
        session_id: str,
        *,
        metadata: dict[str, Any] | None = _UNSET,
        tools: Sequence[ToolDefinition] | None = _UNSET,
        tool_choice: ToolChoice | None = _UNSET,
        settings: Settings | None = _UNSET,
    ) -> int:
        """Change a session's metadata, tools, tool choice or settings (each replaced whole; ``None`` clears).

        The change is recorded in the session's history at the seq where it takes
        effect (the session's length now), see :meth:`changes`.

        Returns:
            The effective seq (the seq the next appended item will get).

        Raises:
            SessionNotFoundError; DocumentError: invalid values (nothing written).
        """
        session_id = _session_key(session_id)
        values = self._session_values(metadata, tools, tool_choice, settings, clear_with_null=True)
        now = _now()
        async with self._write("updating a session") as conn:
            new = {k: (sa.null() if v is _JSON_NULL else v) for k, v in values.items() if v is not None}
            stmt = (
                sa.update(SESSIONS)
                .where(SESSIONS.c.id == session_id)
                .values(updated_at=now, **new)
                .returning(SESSIONS.c.head_seq)
            )
            head = (await conn.execute(stmt)).scalar_one_or_none()
            if head is None:
                raise SessionNotFoundError(f"no session {session_id!r}")
            if not new:
                return int(head) + 1
            last = (
                await conn.execute(sa.select(sa.func.max(SESSION_CHANGES.c.change_no)).where(SESSION_CHANGES.c.session_id == session_id))
            ).scalar_one_or_none()
            await conn.execute(
                sa.insert(SESSION_CHANGES).values(
                    session_id=session_id,
                    change_no=0 if last is None else int(last) + 1,
                    effective_seq=int(head) + 1,
                    created_at=now,
                    **values,
                )
            )
        return int(head) + 1

    async def changes(self, session_id: str) -> list[SessionChange]:
        """The session's metadata, tools, tool choice and settings history, oldest first.

        Raises:
            SessionNotFoundError: no session has this id.
        """
        session_id = _session_key(session_id)
        async with self._read("reading session changes") as conn:
            await self._require(conn, session_id)
            rows = (
                await conn.execute(
                    sa.select(SESSION_CHANGES).where(SESSION_CHANGES.c.session_id == session_id).order_by(SESSION_CHANGES.c.change_no)
                )
            ).all()
        out = []
        for r in rows:
            changed: dict[str, Any] = {}
            if r.metadata is not None:
                changed["metadata"] = _rows.decode_json(r.metadata)
            if r.tools is not None:
                changed["tools"] = _rows.decode_tools(r.tools)
            if r.tool_choice is not None:
                changed["tool_choice"] = _rows.decode_choice(r.tool_choice)
            if r.settings is not None:
                changed["settings"] = _rows.decode_settings(r.settings)
            out.append(SessionChange(int(r.change_no), int(r.effective_seq), _rows.format_ts(r.created_at), changed))
        return out

    async def _require(self, conn: AsyncConnection, session_id: str) -> Any:
        row = (await conn.execute(sa.select(SESSIONS).where(SESSIONS.c.id == session_id))).one_or_none()
        if row is None:
            raise SessionNotFoundError(f"no session {session_id!r}")
        return row

    @staticmethod
    def _info(row: Any) -> SessionInfo:
        return SessionInfo(
            id=row.id,
            created_at=_rows.format_ts(row.created_at),
            updated_at=_rows.format_ts(row.updated_at),
            head_seq=int(row.head_seq),
            metadata=_rows.decode_json(row.metadata),
            tools=_rows.decode_tools(row.tools),
            tool_choice=_rows.decode_choice(row.tool_choice),
            settings=_rows.decode_settings(row.settings),
            parent_id=row.parent_id,
            fork_seq=None if row.fork_seq is None else int(row.fork_seq),
        )

    async def get_session(self, session_id: str) -> SessionInfo:
        """One session's :class:`SessionInfo`.

        Raises:
            SessionNotFoundError: no session has this id.
        """
        session_id = _session_key(session_id)
        async with self._read("reading a session") as conn:
            return self._info(await self._require(conn, session_id))

    async def head(self, session_id: str) -> int:
        """The session's head seq (``-1`` when empty).

        Raises:
            SessionNotFoundError: no session has this id.
        """
        session_id = _session_key(session_id)
        return (await self.get_session(session_id)).head_seq

    async def list_sessions(self, *, limit: int = 100, offset: int = 0, parent_id: str | None = None) -> list[SessionInfo]:
        """Sessions, newest first (then by id).

        Args:
            limit: At most this many.
            offset: Skip this many.
            parent_id: Only forks of this session.
        """
        stmt = sa.select(SESSIONS).order_by(SESSIONS.c.created_at.desc(), SESSIONS.c.id).limit(limit).offset(offset)
        if parent_id is not None:
            stmt = stmt.where(SESSIONS.c.parent_id == parent_id)
        async with self._read("listing sessions") as conn:
            rows = (await conn.execute(stmt)).all()
        return [self._info(r) for r in rows]

    async def delete_session(self, session_id: str) -> None:
        """Delete a session with its items, history and quarantine records (forks are kept).

        Raises:
            SessionNotFoundError: no session has this id.
        """
        session_id = _session_key(session_id)
        async with self._write("deleting a session") as conn:
            for table in (QUARANTINE, SESSION_CHANGES, ITEMS):
                await conn.execute(sa.delete(table).where(table.c.session_id == session_id))
            n = (await conn.execute(sa.delete(SESSIONS).where(SESSIONS.c.id == session_id))).rowcount
            if not n:
                raise SessionNotFoundError(f"no session {session_id!r}")

    # ------------------------------------------------------------------ append

    async def append(
        self,
        session_id: str,
        items: Sequence[Any],
        expected_seq: int | None = None,
        *,
        usage: Usage | None = None,
        stop_reason: StopReason | None = None,
        response: ResponseInfo | None = None,
    ) -> int:
        """Append a batch of items, all or nothing.

        Args:
            session_id: The session.
            items: Canonical items, :class:`~interlingua.codec.UnknownItem` (kept
                unchanged) or :class:`~interlingua.items.Envelope` (its version, usage, stop
                reason and response metadata are kept; its session id, seq and timestamp are not).
            expected_seq: When given, the append succeeds only if the session's head
                is this seq (``-1`` for an empty session).
            usage: Usage of the response that produced the batch; stored on the last item.
            stop_reason: Its stop reason; stored on the last item.
            response: Its metadata (provider response id, model, response-level fields); stored
                on the last item.

        Returns:
            The new head seq (seq of the last appended item).

        Raises:
            DocumentError: an item is invalid (pointer ``/<index>``); nothing written.
            VersionError: an envelope of a newer major schema version.
            ConflictError: the head is not ``expected_seq`` (``.actual`` holds it).
            SessionNotFoundError: no such session.
        """
        session_id = _session_key(session_id)
        rows = _rows.prepare_rows(items, usage=usage, stop_reason=stop_reason, response=response, forbid_nul=self._is_pg, keep_text=self._is_pg)
        return await self._append_rows(session_id, rows, expected_seq)

    async def add_session(
        self,
        session_id: str,
        items: Sequence[Any],
        *,
        metadata: dict[str, Any] | None = None,
        tools: Sequence[ToolDefinition] | None = None,
        tool_choice: ToolChoice | None = None,
        settings: Settings | None = None,
        usage: Usage | None = None,
        stop_reason: StopReason | None = None,
        response: ResponseInfo | None = None,
    ) -> bool:
        """Create a session holding ``items`` in one transaction, unless ``session_id`` exists.

        :meth:`create_session` and :meth:`append` in one transaction (all or nothing),
        idempotent by id; :meth:`add_sessions` does the same for many sessions at once.

        Returns:
            ``True`` when the session was created, ``False`` when a session with that id exists
            (it is left unchanged).

        Raises:
            DocumentError: invalid id, values or items (nothing written).
        """
        new = NewSession(session_id, items, metadata, tools, tool_choice, settings, usage, stop_reason, response)
        return (await self._add_prepared([self._prepare_new(new, "")]))[0]

    async def add_sessions(self, sessions: Iterable[NewSession]) -> list[bool]:
        """Create many sessions, each holding its items, in one transaction; ids that exist are left alone.

        The bulk path of ``interlingua migrate --store``: every session is validated first (nothing
        is written when one is invalid), then all of them go in one transaction, a few statements
        for the whole batch (one multi-row insert of the sessions, one ``executemany`` of their
        items): all or nothing for the batch, so never part of a session. A session whose id is
        stored already, or appears earlier in the batch, is skipped (``False``) and left unchanged.

        Args:
            sessions: :class:`~interlingua.store.NewSession` values. Keep a batch to what fits in
                memory comfortably (the caller's choice; ``migrate`` sends a few thousand items).

        Returns:
            One flag per session, in order: ``True`` when it was created.

        Raises:
            DocumentError: an invalid session, pointer ``/<n>/...`` (``/<n>/items/<i>/...`` for
                an item); nothing written.
        """
        prepared = [self._prepare_new(new, f"/{n}") for n, new in enumerate(sessions)]
        return await self._add_prepared(prepared)

    def _prepare_new(self, new: NewSession, prefix: str) -> tuple[str, dict[str, Any], list[_rows.PreparedRow]]:
        """Validate and encode one new session (id, session values, item rows) before any database work."""
        try:
            sid = _check_session_id(new.session_id)
            values = self._session_values(new.metadata, new.tools, new.tool_choice, new.settings, clear_with_null=False)
        except DocumentError as exc:
            if not prefix:
                raise
            raise _rows._relocate(exc, prefix) from exc
        try:
            rows = _rows.prepare_rows(
                new.items, usage=new.usage, stop_reason=new.stop_reason, response=new.response, forbid_nul=self._is_pg, keep_text=self._is_pg
            )
        except DocumentError as exc:
            if not prefix:
                raise
            raise _rows._relocate(exc, f"{prefix}/items") from exc
        return sid, values, rows

    async def _add_prepared(self, prepared: list[tuple[str, dict[str, Any], list[_rows.PreparedRow]]]) -> list[bool]:
        if not prepared:
            return []
        # The first of several sessions with one id wins, as if they were added one by one.
        first: dict[str, int] = {}
        for n, (sid, _values, _rows_) in enumerate(prepared):
            first.setdefault(sid, n)
        batch = [prepared[n] for n in sorted(first.values())]
        now = _now()
        async with self._write("adding sessions") as conn:
            if self._is_pg:
                created = await self._insert_sessions_pg(conn, batch, now)
            else:
                created = await _insert_sessions_driver(conn, batch, now)
            if created:
                changes = [
                    {"session_id": sid, "change_no": 0, "effective_seq": 0, "created_at": now, **values}
                    for sid, values, _r in batch
                    if sid in created and any(v is not None for v in values.values())
                ]
                if changes:
                    await conn.execute(sa.insert(SESSION_CHANGES), changes)
                segments = [(sid, 0, rows) for sid, _v, rows in batch if sid in created and rows]
                if segments:
                    await self._insert_segments(conn, segments, now)
        return [sid in created and first[sid] == n for n, (sid, _v, _r) in enumerate(prepared)]

    async def _insert_sessions_pg(self, conn: AsyncConnection, batch: list[tuple[str, dict[str, Any], list[_rows.PreparedRow]]], now: datetime) -> set[str]:
        """PostgreSQL: multi-row ``INSERT ... ON CONFLICT DO NOTHING RETURNING id`` (safe against a
        concurrent writer of the same id); the ids it created."""
        created: set[str] = set()
        for start in range(0, len(batch), _SESSIONS_PER_INSERT):
            chunk = batch[start : start + _SESSIONS_PER_INSERT]
            stmt = (
                self._insert(SESSIONS)
                .values([{"id": sid, "created_at": now, "updated_at": now, "head_seq": len(rows) - 1, **values} for sid, values, rows in chunk])
                .on_conflict_do_nothing(index_elements=["id"])
                .returning(SESSIONS.c.id)
            )
            created.update((await conn.execute(stmt)).scalars())
        return created

    async def _insert_segments(self, conn: AsyncConnection, segments: list[tuple[str, int, list[_rows.PreparedRow]]], now: datetime) -> None:
        """Insert the rows of several sessions (``(session_id, first seq, rows)`` each) in a few statements."""
        if self._is_pg:
            params = [r.values(sid, first + j, now) for sid, first, rows in segments for j, r in enumerate(rows)]
            for start in range(0, len(params), _CHUNK):
                await conn.execute(sa.insert(ITEMS), params[start : start + _CHUNK])
        else:
            await _insert_rows_driver(conn, segments, now)

    async def _append_rows(self, session_id: str, rows: list[_rows.PreparedRow], expected_seq: int | None) -> int:
        if not rows:
            head = await self.head(session_id)
            if expected_seq is not None and head != expected_seq:
                raise ConflictError(session_id, expected_seq, head)
            return head
        now = _now()
        if not self._is_pg:
            return await self._append_sqlite(session_id, rows, expected_seq, now)
        return await self._append_pg(session_id, rows, expected_seq, now)

    async def _append_pg(self, session_id: str, rows: list[_rows.PreparedRow], expected: int | None, now: datetime) -> int:
        """PostgreSQL: the whole append as ONE statement (:data:`_PG_APPEND_SQL`, the head UPDATE
        and the row INSERT in one data-modifying CTE), sent straight to asyncpg outside any
        transaction block, so it commits on its own: one round trip, and the session row's lock is
        held only while that statement runs. A writer queued behind it with a stale
        ``expected_seq`` finds the head moved as soon as the lock is released and fails at once
        with :class:`ConflictError`; before, each append held the lock across four round trips
        (BEGIN, UPDATE, INSERT, COMMIT) and writers queued on it for seconds."""
        columns: tuple[list[Any], ...] = ([], [], [], [], [], [], [], [], [], [])
        sv, ty, ro, ci, ca, it, rj, us, sr, rs = columns
        for r in rows:
            sv.append(r.schema_version)
            ty.append(r.type)
            ro.append(r.role)
            ci.append(r.call_id)
            ca.append(r.created_at)
            it.append(str(r.item))
            rj.append(r.raw_json)
            us.append(None if r.usage is None else str(r.usage))
            sr.append(None if r.stop_reason is None else str(r.stop_reason))
            rs.append(None if r.response is None else str(r.response))
        with translate_errors(self._url, "appending items"):
            fairy = await self._engine.raw_connection()
            try:
                driver: Any = fairy.driver_connection
                if expected is None:
                    head = await driver.fetchval(_PG_APPEND_SQL, session_id, len(rows), now, *columns)
                else:
                    head = await driver.fetchval(_PG_APPEND_EXPECTED_SQL, session_id, len(rows), now, *columns, expected)
                if head is None:
                    actual = await driver.fetchval("SELECT head_seq FROM interlingua_sessions WHERE id = $1", session_id)
            finally:
                await _to_completion(greenlet_spawn(fairy.close))
        if head is not None:
            return int(head)
        if actual is None:
            raise SessionNotFoundError(f"no session {session_id!r}")
        raise ConflictError(session_id, expected if expected is not None else -1, int(actual))

    async def _append_sqlite(self, session_id: str, rows: list[_rows.PreparedRow], expected: int | None, now: datetime) -> int:
        """SQLite: the whole append (``BEGIN IMMEDIATE``, the head UPDATE, the inserts, ``COMMIT``) in one
        call on the driver's worker thread, instead of a thread hop per statement (and several per
        cursor). The same statements, locks and checks as the PostgreSQL path; see :func:`_append_sync`."""
        with translate_errors(self._url, "appending items"):
            async with self._on_driver_thread() as call:
                if call is not None:
                    dialect = self._engine.dialect
                    ts = SESSIONS.c.updated_at.type._cached_bind_processor(dialect)
                    now_v = ts(now) if ts else now
                    procs = _item_bind_processors(dialect)
                    head, actual = await call(_append_sync, session_id, rows, expected, now_v, procs)
                    if head is not None:
                        return head
                    if actual is None:
                        raise SessionNotFoundError(f"no session {session_id!r}")
                    raise ConflictError(session_id, expected if expected is not None else -1, actual)
        # not aiosqlite underneath: statement by statement
        async with self._write("appending items") as conn:
            head = await self._advance(conn, session_id, len(rows), expected, now)
            await self._insert_segments(conn, [(session_id, head - len(rows) + 1, rows)], now)
        return head

    async def _advance(self, conn: AsyncConnection, session_id: str, n: int, expected: int | None, now: datetime) -> int:
        if self._is_pg:
            stmt = sa.update(SESSIONS).where(SESSIONS.c.id == session_id)
            if expected is not None:
                stmt = stmt.where(SESSIONS.c.head_seq == expected)
            stmt = stmt.values(head_seq=SESSIONS.c.head_seq + n, updated_at=now).returning(SESSIONS.c.head_seq)
            head = (await conn.execute(stmt)).scalar_one_or_none()
        else:
            # SQLite: the same UPDATE ... RETURNING through the driver (no statement built and compiled
            # per append); the timestamp bound by the column type's own processor, as SQLAlchemy would.
            ts = SESSIONS.c.updated_at.type._cached_bind_processor(conn.dialect)
            params: tuple[Any, ...] = (n, ts(now) if ts else now, session_id)
            sql = _ADVANCE_SQL if expected is None else _ADVANCE_EXPECTED_SQL
            if expected is not None:
                params = (*params, expected)
            head = (await conn.exec_driver_sql(sql, params)).scalar_one_or_none()
        if head is not None:
            return int(head)
        actual = (await conn.execute(sa.select(SESSIONS.c.head_seq).where(SESSIONS.c.id == session_id))).scalar_one_or_none()
        if actual is None:
            raise SessionNotFoundError(f"no session {session_id!r}")
        raise ConflictError(session_id, expected if expected is not None else -1, int(actual))

    @staticmethod
    async def _insert_rows(conn: AsyncConnection, session_id: str, first: int, rows: list[_rows.PreparedRow], now: datetime) -> None:
        for start in range(0, len(rows), _CHUNK):
            chunk = rows[start : start + _CHUNK]
            await conn.execute(sa.insert(ITEMS), [r.values(session_id, first + start + j, now) for j, r in enumerate(chunk)])

    # ------------------------------------------------------------------ read

    async def load(
        self, session_id: str, since_seq: int = 0, *, on_corrupt: Literal["raise", "omit"] = "raise"
    ) -> Transcript:
        """Load a session as a transcript document (items in seq order from ``since_seq``).

        The transcript carries the session's current tools, tool choice, settings and
        metadata, and per response (each item stored with a usage, stop reason or response
        metadata) a :class:`~interlingua.items.ResponseRecord` in ``responses`` (its item index,
        usage, stop reason, ``response``: id, model, provider fields); ``usage``/``stop_reason``
        are the last item's, as a session file's transcript has them. The top-level ``response``
        stays unset (it marks a document holding one response's output, not a conversation). The envelopes themselves: :meth:`load_envelopes`. ``schema_version`` is the newest among the rows
        (at least this library's).

        Args:
            on_corrupt: A row that fails to decode is recorded in the quarantine table
                either way. ``"raise"``: raise :class:`CorruptRowError`. ``"omit"``: leave
                it out and warn (:class:`CorruptRowWarning`) for each.

        Raises:
            SessionNotFoundError: no session has this id.
            CorruptRowError: a stored row cannot be read back.
        """
        session_id = _session_key(session_id)
        info, envs = await self._load(session_id, since_seq, on_corrupt)
        version = max({e.schema_version for e in envs}, key=lambda v: tuple(int(p) for p in v.split(".")), default=SCHEMA_VERSION)
        if tuple(int(p) for p in version.split(".")) < tuple(int(p) for p in SCHEMA_VERSION.split(".")):
            version = SCHEMA_VERSION
        return Transcript(
            schema_version=version,
            items=[e.item for e in envs],
            tools=info.tools if info.tools is not None else _UNSET,
            tool_choice=info.tool_choice if info.tool_choice is not None else _UNSET,
            settings=info.settings if info.settings is not None else _UNSET,
            metadata=info.metadata if info.metadata is not None else _UNSET,
            usage=envs[-1].usage if envs else _UNSET,
            stop_reason=envs[-1].stop_reason if envs else _UNSET,
            responses=response_records(envs),
        )

    async def load_envelopes(
        self, session_id: str, since_seq: int = 0, *, on_corrupt: Literal["raise", "omit"] = "raise"
    ) -> list[Envelope]:
        """The session's envelopes (with usage, stop reason, timestamps), in seq order. Raises as :meth:`load`."""
        session_id = _session_key(session_id)
        return (await self._load(session_id, since_seq, on_corrupt))[1]

    async def _load(self, session_id: str, since_seq: int, on_corrupt: str) -> tuple[SessionInfo, list[Envelope]]:
        if not self._is_pg:
            # SQLite: the session row and the item rows read in one call on the driver's thread (one
            # read transaction, a consistent snapshot), the rows unprocessed (the timestamp column
            # is parsed once per distinct value), decoded in one typed pass. On any doubt (a row of
            # another version, one that does not decode) the checked path below runs.
            with translate_errors(self._url, "loading a session"):
                async with self._on_driver_thread() as call:
                    dialect: Any = None
                    if call is not None:
                        srow, raw = await call(_load_sync, session_id, since_seq)
                        dialect = self._engine.dialect
                if call is None:
                    async with self._engine.connect() as conn, conn.begin():
                        srow = await self._require(conn, session_id)
                        raw = (await conn.exec_driver_sql(_SELECT_ITEMS_SQL, (session_id, since_seq, srow.head_seq))).all()
            if srow is None:
                raise SessionNotFoundError(f"no session {session_id!r}")
            info = self._info(srow if dialect is None else _session_row(srow, dialect))
            parse = ITEMS.c.created_at.type._cached_result_processor(self._engine.dialect, None)
            fast = _rows.decode_rows_fast(session_id, raw, parse_created=parse or _as_is)
            if fast is not None:
                return info, fast
        async with self._read("loading a session", snapshot=True) as conn:
            info = self._info(await self._require(conn, session_id))
            rows = (
                await conn.execute(
                    sa.select(ITEMS)
                    .where(ITEMS.c.session_id == session_id, ITEMS.c.seq >= since_seq, ITEMS.c.seq <= info.head_seq)
                    .order_by(ITEMS.c.seq)
                )
            ).all()
        envs = await self._decode_rows(session_id, rows, on_corrupt)
        return info, envs

    async def _decode_rows(self, session_id: str, rows: Iterable[Any], on_corrupt: str) -> list[Envelope]:
        rows = rows if isinstance(rows, list) else list(rows)
        fast = _rows.decode_rows_fast(session_id, [_rows.row_tuple(r) for r in rows])
        if fast is not None:
            return fast
        envs: list[Envelope] = []
        bad: list[QuarantinedRow] = []
        for row in rows:
            try:
                envs.append(_rows.decode_row(session_id, row))
            except (DocumentError, msgspec.MsgspecError, ValueError, TypeError) as exc:
                bad.append(QuarantinedRow(session_id, int(row.seq), str(exc) or type(exc).__name__))
        if bad:
            await self._quarantine(bad)
            if on_corrupt == "raise":
                raise CorruptRowError(session_id, bad)
            for b in bad:
                warnings.warn(f"session {session_id}: left out quarantined row {b}", CorruptRowWarning, stacklevel=4)
        return envs

    async def _quarantine(self, rows: list[QuarantinedRow]) -> None:
        now = _now()
        async with self._write("quarantining rows") as conn:
            stmt = self._insert(QUARANTINE).on_conflict_do_nothing(index_elements=["session_id", "seq"])
            await conn.execute(
                stmt, [{"session_id": r.session_id, "seq": r.seq, "detected_at": now, "reason": r.reason} for r in rows]
            )

    async def quarantined(self, session_id: str | None = None) -> list[QuarantinedRow]:
        """Rows recorded as failing to decode (all sessions, or one), by session and seq."""
        if session_id is not None:
            session_id = _session_key(session_id)
        stmt = sa.select(QUARANTINE).order_by(QUARANTINE.c.session_id, QUARANTINE.c.seq)
        if session_id is not None:
            stmt = stmt.where(QUARANTINE.c.session_id == session_id)
        async with self._read("reading the quarantine") as conn:
            rows = (await conn.execute(stmt)).all()
        return [QuarantinedRow(r.session_id, int(r.seq), r.reason, _rows.format_ts(r.detected_at)) for r in rows]

    async def stream(self, session_id: str, since_seq: int = 0, *, page_size: int = _PAGE) -> AsyncIterator[Envelope]:
        """Yield the session's envelopes in seq order, reading ``page_size`` rows at a time.

        No connection is held between pages. Items appended while streaming are
        yielded if they land before the stream reaches the head.

        Raises:
            SessionNotFoundError; CorruptRowError: at the first page holding a row that does not decode.
        """
        session_id = _session_key(session_id)
        async with self._read("streaming a session") as conn:
            await self._require(conn, session_id)
        next_seq = since_seq
        while True:
            async with self._read("streaming a session") as conn:
                rows = (
                    await conn.execute(
                        sa.select(ITEMS)
                        .where(ITEMS.c.session_id == session_id, ITEMS.c.seq >= next_seq)
                        .order_by(ITEMS.c.seq)
                        .limit(page_size)
                    )
                ).all()
            if not rows:
                return
            for env in await self._decode_rows(session_id, rows, "raise"):
                yield env
            next_seq = int(rows[-1].seq) + 1

    # ------------------------------------------------------------------ fork

    async def fork(self, session_id: str, at_seq: int, *, new_session_id: str | None = None) -> str:
        """Copy a session's items ``0..at_seq`` into a new session.

        The fork gets the metadata, tools, tool choice and settings in effect after item
        ``at_seq`` (and that part of the change history); ``parent_id`` and
        ``fork_seq`` record where it came from.

        Args:
            at_seq: Last seq to keep, ``-1`` (empty fork) up to the head.
            new_session_id: Id for the fork (default: a new UUID4 string).

        Returns:
            The new session id.

        Raises:
            SessionNotFoundError; StoreError: ``at_seq`` outside ``-1..head`` or the new id exists.
        """
        session_id = _session_key(session_id)
        new_id = _check_session_id(new_session_id) if new_session_id is not None else str(uuid.uuid4())
        now = _now()
        async with self._write("forking a session") as conn:
            src = await self._require(conn, session_id)
            if not -1 <= at_seq <= int(src.head_seq):
                raise StoreError(f"cannot fork session {session_id} at seq {at_seq}: its items are 0..{int(src.head_seq)}")
            changes = (
                await conn.execute(
                    sa.select(SESSION_CHANGES)
                    .where(SESSION_CHANGES.c.session_id == session_id, SESSION_CHANGES.c.effective_seq <= at_seq + 1)
                    .order_by(SESSION_CHANGES.c.change_no)
                )
            ).all()
            # Every setting ever given is in the history (creation, updates, imports, the
            # 0002 backfill), so folding it up to the fork point gives the state there.
            state: dict[str, Any] = {"metadata": None, "tools": None, "tool_choice": None, "settings": None}
            for ch in changes:
                for k in state:
                    v = getattr(ch, k)
                    if v is not None:
                        state[k] = None if _rows.decode_json(v) is None else JsonText(v)
            inserted = (
                await conn.execute(
                    self._insert(SESSIONS)
                    .values(id=new_id, created_at=now, updated_at=now, head_seq=at_seq, parent_id=session_id, fork_seq=at_seq, **state)
                    .on_conflict_do_nothing(index_elements=["id"])
                    .returning(SESSIONS.c.id)
                )
            ).scalar_one_or_none()
            if inserted is None:
                raise StoreError(f"cannot fork into {new_id!r}: a session with that id exists")
            if changes:
                await conn.execute(
                    sa.insert(SESSION_CHANGES),
                    [
                        {
                            "session_id": new_id,
                            "change_no": ch.change_no,
                            "effective_seq": ch.effective_seq,
                            "created_at": ch.created_at,
                            **{k: (JsonText(getattr(ch, k)) if getattr(ch, k) is not None else None) for k in state},
                        }
                        for ch in changes
                    ],
                )
            cols = [c for c in ITEMS.c if c.name != "session_id"]
            await conn.execute(
                sa.insert(ITEMS).from_select(
                    ["session_id", *(c.name for c in cols)],
                    sa.select(sa.literal(new_id, sa.String), *cols).where(ITEMS.c.session_id == session_id, ITEMS.c.seq <= at_seq),
                )
            )
        return new_id

    # ------------------------------------------------------------------ JSON Lines

    async def export_jsonl(self, session_id: str, dest: str | os.PathLike[str] | IO[bytes], *, header: bool = True) -> int:
        """Write a session as JSON Lines: one envelope a line, in seq order.

        With ``header`` (default) the first line is a session record
        ``{"schema_version", "session": {"id", "metadata", "tools", "tool_choice",
        "changes", ...}}`` so metadata and tools survive :meth:`import_jsonl`;
        without it the file is a plain envelope stream (as
        :func:`interlingua.codec.iter_jsonl` reads) and those are left out.

        A path is written to a temporary file and renamed into place.

        Returns:
            The number of envelope lines.

        Raises:
            SessionNotFoundError; CorruptRowError: a row does not decode (no file is left behind).
        """
        session_id = _session_key(session_id)
        if isinstance(dest, (str, os.PathLike)):
            from .._paths import output_target

            path, in_place = output_target(dest)
            if in_place:  # /dev/null, a pipe: written as it is, never renamed over
                with open(path, "wb") as fh:
                    return await self.export_jsonl(session_id, fh, header=header)
            tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}")
            try:
                with open(tmp, "wb") as fh:
                    n = await self.export_jsonl(session_id, fh, header=header)
                os.replace(tmp, path)
            finally:
                if tmp.exists():
                    tmp.unlink()
            return n
        if header:
            dest.write(await self._header_line(session_id) + b"\n")
        n = 0
        async for env in self.stream(session_id):
            dest.write(encode_envelope(env) + b"\n")
            n += 1
        return n

    async def _header_line(self, session_id: str) -> bytes:
        return _jsonl.header_line(await self.get_session(session_id), await self.changes(session_id))

    async def import_jsonl(self, source: str | os.PathLike[str] | IO[bytes], *, session_id: str | None = None) -> str:
        """Import the one session of a session file (see :mod:`interlingua.session_file`).

        Like :meth:`import_sessions`, under the file's session id (idempotent), or as a copy under
        ``session_id`` when given.

        Returns:
            The session id.

        Raises:
            DocumentError: the file holds no session or several (use :meth:`import_sessions`), or a
                problem with file and line (nothing written).
            SessionExistsError: the id exists with different content.
        """
        results = await self.import_sessions(source, session_ids=[session_id] if session_id is not None else None)
        return results[0].session_id

    async def import_sessions(
        self,
        source: str | os.PathLike[str] | IO[bytes],
        *,
        new_ids: bool = False,
        session_ids: Sequence[str] | None = None,
    ) -> list[ImportResult]:
        """Import every session of a session file (as ``migrate -o`` and :meth:`export_jsonl` write).

        The whole file is checked before anything is written (versions, items, header fields, seqs
        ``0, 1, 2, ...``, each session once), one session in memory at a time; then each session is
        written in one transaction: all or nothing per session. Errors name the file and line.
        Timestamps, usage, stop reasons and response metadata are kept, and so are the header's
        ``created_at`` and fork link (``parent_id``, ``fork_seq``): a fork's parent is the session of
        that id in the file (imported first, wherever it stands in the file; under its new id with
        ``new_ids``/``session_ids``), else the stored session of that id.

        A session is imported under the id in the file. Re-importing the same content is a no-op
        (status ``unchanged``); different content under a stored id is a :class:`SessionExistsError`.

        Args:
            source: A path or a binary file object.
            new_ids: Import every session as a copy under a new UUID4 id.
            session_ids: Ids to import the sessions under, in file order (a file with more sessions
                than ids is refused before anything is written).

        Returns:
            One :class:`ImportResult` per session, in file order.

        Raises:
            DocumentError: with file and line of the first problem; a fork whose parent is neither
                in the file nor in the store, a ``fork_seq`` beyond the fork's or its parent's items,
                a cycle of forks (nothing written).
            SessionExistsError: a stored session with the same id holds other content.
        """
        label = str(source) if isinstance(source, (str, os.PathLike)) else getattr(source, "name", None)
        label = str(label) if label is not None else None
        with contextlib.ExitStack() as stack:
            if not isinstance(source, (str, os.PathLike)) and not _seekable(source):
                # Two passes need a file to read twice: spool a stream (stdin) to a temporary file.
                spool = stack.enter_context(tempfile.TemporaryFile())
                shutil.copyfileobj(source, spool)
                source = spool
            # Pass 1: the whole file is checked before any session is written (every line, the ids,
            # the header values, every row as it will be written), a batch of envelopes at a time.
            plans: list[ImportPlan] = []
            now = _now()
            for part in self._parts(source, label):
                if isinstance(part, SessionStart):
                    n = len(plans)
                    if session_ids is not None:
                        if n >= len(session_ids):
                            raise DocumentError(Problem("", f"the file holds more than {len(session_ids)} session(s); import it without an id", label, part.line))
                        target = _check_session_id(session_ids[n])
                    else:
                        target = str(uuid.uuid4()) if new_ids else self._located_id(part, label)
                    plan = ImportPlan(part.session_id, target, part.header, part.header_line)
                    self._located_settings(plan, now, label, part.header_line)
                    plan_created_at(plan, label)
                    plans.append(plan)
                elif isinstance(part, EnvelopeBatch):
                    self._located_rows(part, label)
                else:
                    plans[-1].count = part.count
            # Fork links: a parent in the file, else in the store; checked before anything is written.
            for n in link_forks(plans, label):
                check_stored_parent(plans[n], await self._length_or_none(cast(str, plans[n].parent_id)), label)
            # Pass 2: each session in one transaction, its rows inserted a batch at a time; a parent
            # before its forks (a fork the file holds before its parent takes one more pass).
            results: list[ImportResult | None] = [None] * len(plans)
            done: set[int] = set()
            while len(done) < len(plans):
                ready = set(import_rounds(plans, done))
                parts = self._parts(source, label)
                with contextlib.closing(parts):
                    last = max(ready)
                    for n, plan in enumerate(plans[: last + 1]):
                        if n in ready:
                            results[n] = await self._import_streamed(parts, plan, label)
                            done.add(n)
                        else:
                            skip_session(parts)
            return cast("list[ImportResult]", results)

    async def _length_or_none(self, session_id: str) -> int | None:
        try:
            return (await self.get_session(session_id)).length
        except SessionNotFoundError:
            return None

    @staticmethod
    def _parts(source: str | os.PathLike[str] | IO[bytes], label: str | None) -> Generator[SessionPart, None, None]:
        if not isinstance(source, (str, os.PathLike)):
            source.seek(0)
        return iter_session_parts(source, label=label)

    @staticmethod
    def _located_id(part: SessionStart, label: str | None) -> str:
        try:
            return _check_session_id(part.session_id)
        except DocumentError as exc:
            pointer = "/session/id" if part.header is not None else "/session_id"
            raise DocumentError([Problem(pointer, p.message) for p in exc.problems]).located(file=label, line=part.line) from exc

    def _located_settings(self, plan: ImportPlan, now: datetime, label: str | None, line: int | None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        sess = msgspec.to_builtins(plan.header) if plan.header is not None else {}
        try:
            return self._import_settings(plan.target, sess, now)
        except DocumentError as exc:
            raise DocumentError([Problem("/session" + p.pointer, p.message) for p in exc.problems]).located(file=label, line=line) from exc

    def _located_rows(self, part: EnvelopeBatch, label: str | None) -> list[_rows.PreparedRow]:
        """The batch's rows; a problem is reported at its envelope's line, inside the line."""
        try:
            # Read by a typed decode just now: encoded only, not validated again.
            return _rows.prepare_rows(part.envelopes, keep_created_at=True, forbid_nul=self._is_pg, keep_text=self._is_pg, validated=True)
        except DocumentError as exc:
            index, _, rest = exc.problems[0].pointer[1:].partition("/")
            line = part.line_nos[int(index)] if index.isdigit() and int(index) < len(part.line_nos) else None
            raise DocumentError([Problem("/" + rest if rest else "", p.message) for p in exc.problems[:1]]).located(file=label, line=line) from exc

    async def _import_streamed(self, parts: Iterator[SessionPart], plan: ImportPlan, label: str | None) -> ImportResult:
        """Import the session ``parts`` is at (pass 2): one transaction; or compare it with the stored one."""
        start = next(parts)
        assert isinstance(start, SessionStart) and start.session_id == plan.source_id, "the file changed between the two passes"
        now = _now()
        values, change_rows = self._located_settings(plan, now, label, start.header_line)
        async with self._write("importing a session") as conn:
            inserted = (
                await conn.execute(
                    self._insert(SESSIONS)
                    .values(
                        id=plan.target,
                        created_at=plan.created_at or now,
                        updated_at=now,
                        head_seq=plan.count - 1,
                        parent_id=plan.parent_id,
                        fork_seq=plan.fork_seq,
                        **values,
                    )
                    .on_conflict_do_nothing(index_elements=["id"])
                    .returning(SESSIONS.c.id)
                )
            ).scalar_one_or_none()
            if inserted is not None:
                if change_rows:
                    await conn.execute(sa.insert(SESSION_CHANGES), change_rows)
                written = 0
                for part in parts:
                    if isinstance(part, SessionEnd):
                        break
                    assert isinstance(part, EnvelopeBatch)
                    rows = self._located_rows(part, label)
                    await self._insert_segments(conn, [(plan.target, part.first_seq, rows)], now)
                    written += len(rows)
                if written != plan.count:
                    raise StoreError(f"{label or 'the file'} changed while it was imported (session {plan.source_id!r}); nothing of it was written")
                return ImportResult(plan.target, "imported", plan.count, plan.source_id)
        differs = await import_difference(self, parts, plan)
        if differs:
            raise SessionExistsError(plan.target, differs)
        return ImportResult(plan.target, "unchanged", plan.count, plan.source_id)

    def _import_settings(self, new_id: str, sess: dict[str, Any], now: datetime) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """Validate and encode an imported session header's values and change history."""
        values = self._session_values(
            sess.get("metadata"), sess.get("tools"), sess.get("tool_choice"), sess.get("settings"), clear_with_null=False
        )
        change_rows = []
        for j, ch in enumerate(sess.get("changes") or ()):
            cleared = set(ch.get("cleared") or ())
            vals = self._session_values(
                *(None if name in cleared else ch.get(name, _UNSET) for name in ("metadata", "tools", "tool_choice", "settings")),
                clear_with_null=True,
            )
            created = _rows.parse_ts(ch["created_at"], f"/changes/{j}/created_at") if "created_at" in ch else now
            change_rows.append(
                {"session_id": new_id, "change_no": ch["change_no"], "effective_seq": ch["effective_seq"], "created_at": created, **vals}
            )
        if not change_rows and any(v is not None for v in values.values()):
            change_rows.append({"session_id": new_id, "change_no": 0, "effective_seq": 0, "created_at": now, **values})
        return values, change_rows


def _seekable(fh: IO[bytes]) -> bool:
    try:
        return bool(fh.seekable())
    except (AttributeError, OSError, ValueError):
        return False
