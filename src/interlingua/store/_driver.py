"""The SQLite and PostgreSQL fast paths under :class:`~interlingua.store.SessionStore`.

The module-level functions bind and run the store's statements through the database driver itself
(aiosqlite's worker thread for SQLite, asyncpg for PostgreSQL) where SQLAlchemy's per-statement
overhead dominated; :class:`StoreBase` holds the store's connection, transaction and write/read
paths built on them (dispatching on the dialect). The public API is :class:`SessionStore`
(``_store.py``); import planning lives in ``_import_plan.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import unicodedata
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Generator, Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

import msgspec
import sqlalchemy as sa
from sqlalchemy import exc as sa_exc
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlalchemy.util import greenlet_spawn

from ..errors import ConflictError, DocumentError, Problem, SessionNotFoundError
from ..items import Envelope
from ._engine import JsonText, translate_errors
from ._rows import (
    ROW_COLUMNS,
    PreparedRow,
    decode_choice,
    decode_json,
    decode_row,
    decode_rows_fast,
    decode_settings,
    decode_tools,
    encode_choice,
    encode_json,
    encode_settings,
    encode_tools,
    format_ts,
    row_tuple,
)
from ._schema import ITEMS, QUARANTINE, SESSIONS
from ._types import CorruptRowError, CorruptRowWarning, QuarantinedRow, SessionInfo

__all__ = ["StoreBase"]

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

_INSERT_PLAIN_ITEMS_SQL = (
    f"INSERT INTO {ITEMS.name} ({', '.join(_ITEM_COLUMNS)}) "
    f"VALUES ({', '.join(f'NULLIF(?, {_NO_VALUE})' if c in ('role', 'call_id') else 'NULL' if c in _NULLABLE_ITEM_COLUMNS else '?' for c in _ITEM_COLUMNS)})"
)
""":data:`_INSERT_ITEMS_SQL` for a *plain* row, one with no ``raw_json``, ``usage``, ``stop_reason``
or ``response`` (all but a response's last item, in the common case): those four are the literal
NULL, so a row binds 8 parameters, not 12. Binding a parameter and its ``NULLIF`` cost the driver
and the virtual machine ~2,000 instructions a row of a 10,000-item append (callgrind); a whole
append's rows were ~15% faster to insert this way."""
_PLAIN_ROW_WIDTH = 8


_SELECT_ITEMS_SQL = (
    # ROW_COLUMNS; the item's text as UTF-8 bytes (CAST of text is the stored bytes as they
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


async def _to_completion(coro: Coroutine[Any, Any, Any]) -> None:
    """Await ``coro`` to its end even if the caller is cancelled meanwhile (then re-raise the
    cancellation): what SQLAlchemy's ``AsyncConnection`` does for its own close, so a connection is
    never left half given back to its pool.

    ``coro`` is first run in place up to its first suspension: a connection given back with no
    transaction open, kept by the pool, never suspends, and then no task is made (a task and its
    shield were ~35 us of each store call, ~8% of loading a 30-item session). Only a close that does
    suspend (a rollback, a connection closed on its way out of the pool) goes on in a task of its own.
    """
    try:
        first = coro.send(None)
    except StopIteration:
        return
    except BaseException:
        coro.close()
        raise
    task = asyncio.ensure_future(_resume(coro, first))
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


class _Yield:
    """An awaitable that hands ``value`` (what a suspended coroutine yielded, e.g. the future it waits
    for) to the task running it, as that coroutine's own ``await`` would have."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __await__(self) -> Generator[Any, None, None]:
        yield self.value


async def _resume(coro: Coroutine[Any, Any, Any], pending: Any) -> Any:
    """Run the rest of ``coro``, suspended on ``pending``, in the current task: each value it yields is
    passed to the task and it is resumed when the task is woken, as if the task ran it from the start."""
    while True:
        try:
            await _Yield(pending)
        except BaseException as exc:  # thrown into the task (never a cancellation: the task is shielded)
            try:
                pending = coro.throw(exc)
            except StopIteration as stop:
                return stop.value
            continue
        try:
            pending = coro.send(None)
        except StopIteration as stop:
            return stop.value


def _item_bind_processors(dialect: Any) -> tuple[Any, Any, Any, Any, Any]:
    """Each item column's own bind processor (created_at, item, usage, stop_reason, response) for ``dialect``."""
    return tuple(ITEMS.c[c].type._cached_bind_processor(dialect) for c in ("created_at", "item", "usage", "stop_reason", "response"))  # type: ignore[return-value]


def _item_params(segments: Sequence[tuple[str, int, list[PreparedRow]]], now_v: Any, procs: tuple[Any, Any, Any, Any, Any]) -> list[tuple[Any, ...]]:
    """The :data:`_INSERT_ITEMS_SQL` parameters (12 a row) of the rows of ``segments``, in seq order:
    :func:`_item_batches`'s, a plain row's four missing values bound as :data:`_NO_VALUE`."""
    pad = (_NO_VALUE,) * (len(_ITEM_COLUMNS) - _PLAIN_ROW_WIDTH)
    return [p if len(p) == len(_ITEM_COLUMNS) else p + pad for _sql, params in _item_batches(segments, now_v, procs) for p in params]


def _item_batches(
    segments: Sequence[tuple[str, int, list[PreparedRow]]], now_v: Any, procs: tuple[Any, Any, Any, Any, Any]
) -> list[tuple[str, list[tuple[Any, ...]]]]:
    """The rows of ``segments`` (``(session_id, first seq, rows)``) as ``(statement, parameters)``
    runs in seq order, each run one ``executemany``: a run of plain rows (no ``raw_json``, ``usage``,
    ``stop_reason`` or ``response``) binds 8 values a row to :data:`_INSERT_PLAIN_ITEMS_SQL`, a run
    of the others 12 to :data:`_INSERT_ITEMS_SQL`.

    The values are exactly what SQLAlchemy would bind: each column's own bind processor (the
    dialect's ``DateTime`` text format, the JSON serializer) applied once per value. A row's item is
    its JSON text already (the JSON serializer would hand it back as the same text), so it is bound
    as it is. Every text goes to the driver as an exact ``str`` and a missing value as
    :data:`_NO_VALUE` (see there: neither then takes the driver's adapter path).
    """
    ts, js_item, js_usage, js_stop, js_resp = procs
    none = _NO_VALUE
    plain_sql, full_sql = _INSERT_PLAIN_ITEMS_SQL, _INSERT_ITEMS_SQL
    batches: list[tuple[str, list[tuple[Any, ...]]]] = []
    run: list[tuple[Any, ...]] = []
    sql: str | None = None
    for session_id, first, rows in segments:
        sid = session_id if type(session_id) is str else str(session_id)
        for j, r in enumerate(rows, first):
            item = r.item
            if type(item) is not str:
                item = str(item) if isinstance(item, str) else (_exact_text(js_item(item)) if js_item else item)
            role, call_id, created = r.role, r.call_id, r.created_at
            values = (
                sid,
                j,
                r.schema_version,
                r.type,
                none if role is None else role,
                none if call_id is None else call_id,
                now_v if created is None else (ts(created) if ts else created),
                item,
            )
            raw, usage, stop, resp = r.raw_json, r.usage, r.stop_reason, r.response
            if raw is None and usage is None and stop is None and resp is None:
                if sql is not plain_sql:
                    run, sql = [], plain_sql
                    batches.append((sql, run))
                run.append(values)
                continue
            if sql is not full_sql:
                run, sql = [], full_sql
                batches.append((sql, run))
            run.append(
                values
                + (
                    none if raw is None else raw,
                    none if usage is None else _exact_text(js_usage(usage) if js_usage else usage),
                    none if stop is None else _exact_text(js_stop(stop) if js_stop else stop),
                    none if resp is None else _exact_text(js_resp(resp) if js_resp else resp),
                )
            )
    return batches


def _exact_text(value: Any) -> Any:
    """A ``str`` subclass (e.g. :class:`JsonText`) as an exact ``str``, anything else unchanged."""
    return str(value) if isinstance(value, str) and type(value) is not str else value


def _append_sync(db: Any, session_id: str, rows: list[PreparedRow], expected: int | None, now_v: Any, procs: Any) -> tuple[int | None, int | None]:
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
        for sql, params in _item_batches([(session_id, head - n + 1, rows)], now_v, procs):
            db.executemany(sql, params)
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
    and its item rows ``since_seq..head`` (:data:`ROW_COLUMNS`) in one read transaction.
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


async def _insert_rows_driver(conn: AsyncConnection, segments: Sequence[tuple[str, int, list[PreparedRow]]], now: datetime) -> None:
    """SQLite: rows of one or several sessions as ``executemany`` of pre-built tuples through the driver.

    ``segments`` holds ``(session_id, first seq, rows)``. The values are exactly what SQLAlchemy
    would bind: each column's own bind processor (the dialect's ``DateTime`` text format, the JSON
    serializer that passes the store's already-encoded :class:`JsonText` through) is applied here
    once per value, without building a parameter dict and compiling parameters per row.
    """
    procs = _item_bind_processors(conn.dialect)
    ts = procs[0]
    for sql, params in _item_batches(segments, ts(now) if ts else now, procs):
        for start in range(0, len(params), _DRIVER_CHUNK):
            await conn.exec_driver_sql(sql, params[start : start + _DRIVER_CHUNK])


_SESSION_COLUMNS = ("id", "created_at", "updated_at", "head_seq", "metadata", "tools", "tool_choice", "settings")
_INSERT_SESSIONS_SQL = (
    f"INSERT INTO {SESSIONS.name} ({', '.join(_SESSION_COLUMNS)}) VALUES ({', '.join('?' * len(_SESSION_COLUMNS))}) ON CONFLICT (id) DO NOTHING"
)


async def _insert_sessions_driver(conn: AsyncConnection, batch: Sequence[tuple[str, dict[str, Any], list[PreparedRow]]], now: datetime) -> set[str]:
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
    from ..session_rules import session_id_problem  # one rule with the envelope schema (validate, store import)

    problem = session_id_problem(session_id)
    if problem is not None:
        raise DocumentError(Problem("/session_id", problem))
    return _session_key(session_id)  # type: ignore[arg-type]  # a str: session_id_problem said so


class StoreBase:
    """The connection plumbing and driver fast paths of :class:`~interlingua.store.SessionStore` (its base class)."""

    def __init__(self, engine: AsyncEngine, url: str) -> None:
        """Use :meth:`open`."""
        self._engine = engine
        self._url = url
        self._is_pg = engine.dialect.name == "postgresql"
        self._read_only = False


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


    def _session_values(self, metadata: Any, tools: Any, tool_choice: Any, settings: Any, *, clear_with_null: bool) -> dict[str, Any]:
        """Encode the given session values; ``_UNSET`` -> unchanged (SQL NULL), ``None`` -> cleared."""
        out: dict[str, Any] = {}
        for name, value, enc in (
            ("metadata", metadata, self._enc_metadata),
            ("tools", tools, encode_tools),
            ("tool_choice", tool_choice, encode_choice),
            ("settings", settings, encode_settings),
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
        return encode_json(value, pointer)

    async def _require(self, conn: AsyncConnection, session_id: str) -> Any:
        row = (await conn.execute(sa.select(SESSIONS).where(SESSIONS.c.id == session_id))).one_or_none()
        if row is None:
            raise SessionNotFoundError(f"no session {session_id!r}")
        return row

    @staticmethod
    def _info(row: Any) -> SessionInfo:
        return SessionInfo(
            id=row.id,
            created_at=format_ts(row.created_at),
            updated_at=format_ts(row.updated_at),
            head_seq=int(row.head_seq),
            metadata=decode_json(row.metadata),
            tools=decode_tools(row.tools),
            tool_choice=decode_choice(row.tool_choice),
            settings=decode_settings(row.settings),
            parent_id=row.parent_id,
            fork_seq=None if row.fork_seq is None else int(row.fork_seq),
        )

    async def _insert_sessions_pg(self, conn: AsyncConnection, batch: list[tuple[str, dict[str, Any], list[PreparedRow]]], now: datetime) -> set[str]:
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

    async def _insert_segments(self, conn: AsyncConnection, segments: list[tuple[str, int, list[PreparedRow]]], now: datetime) -> None:
        """Insert the rows of several sessions (``(session_id, first seq, rows)`` each) in a few statements."""
        if self._is_pg:
            params = [r.values(sid, first + j, now) for sid, first, rows in segments for j, r in enumerate(rows)]
            for start in range(0, len(params), _CHUNK):
                await conn.execute(sa.insert(ITEMS), params[start : start + _CHUNK])
        else:
            await _insert_rows_driver(conn, segments, now)

    async def _append_pg(self, session_id: str, rows: list[PreparedRow], expected: int | None, now: datetime) -> int:
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

    async def _append_sqlite(self, session_id: str, rows: list[PreparedRow], expected: int | None, now: datetime) -> int:
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
    async def _insert_rows(conn: AsyncConnection, session_id: str, first: int, rows: list[PreparedRow], now: datetime) -> None:
        for start in range(0, len(rows), _CHUNK):
            chunk = rows[start : start + _CHUNK]
            await conn.execute(sa.insert(ITEMS), [r.values(session_id, first + start + j, now) for j, r in enumerate(chunk)])

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
            fast = decode_rows_fast(session_id, raw, parse_created=parse or _as_is)
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
        fast = decode_rows_fast(session_id, [row_tuple(r) for r in rows])
        if fast is not None:
            return fast
        envs: list[Envelope] = []
        bad: list[QuarantinedRow] = []
        for row in rows:
            try:
                envs.append(decode_row(session_id, row))
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
