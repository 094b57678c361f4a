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

__all__ = ["DEFAULT_URL", "BUSY_TIMEOUT_S", "JsonText", "create_engine", "normalize_url", "safe_url", "sqlite_read_only", "translate_errors"]

DEFAULT_URL = "sqlite+aiosqlite:///interlingua.sqlite3"
"""Used when no URL is given and ``INTERLINGUA_STORE_URL`` is unset: a SQLite file in the working directory."""

BUSY_TIMEOUT_S = 30.0
"""How long a SQLite writer waits for another writer's lock before failing."""

CACHE_KIB = 16384
"""Each SQLite connection's page cache, in KiB (``PRAGMA cache_size = -16384``; SQLite's default is
2,000 KiB). An append of 10,000 items (~8 MB) touches ~3,000 pages; with the default cache the
index pages it keeps coming back to were evicted and read again from the WAL on the way, ~10% of
the append's SQLite time. Memory is taken only as pages are read or written, up to this much per
open connection. It changes no durability setting (journal and synchronous are as before)."""


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
    parsed = _parse_url(url)
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
    if backend == "postgresql" and parsed.query:
        parsed = parsed.set(query=_asyncpg_query(parsed.query))
    if backend == "sqlite" and parsed.query:
        # SQLAlchemy ignores them with a warning (SQLite URI options need uri=true, which then reads the
        # path differently): refused, naming the option, instead of a SAWarning and an option quietly unused
        key = next(iter(parsed.query))
        hint = (
            "; the commands that only read (list, show, export, view) open the file read-only themselves"
            if key == "mode" else ""
        )
        raise StoreError(f"unsupported SQLite URL option {key!r}: a SQLite store URL takes no query options (give sqlite:///PATH or PATH){hint}")
    return parsed.set(drivername=f"{backend}+{wanted}").render_as_string(hide_password=False)


def _parse_url(url: str) -> Any:
    """``make_url`` with its errors as :class:`StoreError` naming what is wrong (never the password)."""
    try:
        parsed = make_url(url)
        parsed.port  # noqa: B018 - the port is parsed lazily by some SQLAlchemy versions
    except sa_exc.ArgumentError as exc:
        raise StoreError(f"not a database URL: {exc}") from None
    except ValueError as exc:
        # SQLAlchemy's int() of the port: 'host:abc', or an unclosed IPv6 bracket ('[::1/db' reads ':1' as the port)
        netloc = url.split("://", 1)[-1].split("/")[0].split("@")[-1]
        what = "an IPv6 address needs its closing ']'" if "[" in netloc and "]" not in url else (
            "multiple hosts (h1:p1,h2:p2) are not supported: give one host" if "," in netloc else
            "the port is not a number" if "int()" in str(exc) else str(exc)
        )
        raise StoreError(f"not a database URL: {what}") from None
    port = parsed.port
    if port is not None and not 1 <= port <= 65535:
        # int() read it, but a TCP port is 1-65535: 99999 ended in an OverflowError traceback inside the
        # driver, and 0 quietly meant the default port 5432
        raise StoreError(f"not a database URL: port {port} is out of range (a TCP port is 1 to 65535)")
    return parsed


# libpq connection options (as psql, pg_dump and most URLs copied from them spell them) -> the
# keyword asyncpg.connect() takes. Source: PostgreSQL docs, "Connection Strings" (libpq parameter
# key words); asyncpg API reference, ``asyncpg.connection.connect``.
_LIBPQ_TO_ASYNCPG = {"sslmode": "ssl", "connect_timeout": "timeout"}
_SSLMODES = ("disable", "allow", "prefer", "require", "verify-ca", "verify-full")
# keywords asyncpg.connect() takes that make sense in a URL query (the others are Python objects)
_ASYNCPG_QUERY = {
    "application_name",  # asyncpg: server_settings={"application_name": ...} (moved there by _asyncpg_connect_args)
    "ssl", "timeout", "command_timeout", "statement_cache_size", "max_cached_statement_lifetime",
    "max_cacheable_statement_size", "direct_tls", "target_session_attrs", "krbsrvname", "gsslib",
    "prepared_statement_cache_size", "passfile",
}


def _asyncpg_query(query: Any) -> dict[str, Any]:
    """Translate a PostgreSQL URL's query options to asyncpg's.

    ``sslmode=require`` becomes ``ssl=require`` and ``connect_timeout=10`` ``timeout=10``; asyncpg's own
    names pass through. Anything else is refused here, naming the option, instead of failing later
    inside ``asyncpg.connect()`` with "unexpected keyword argument".

    Raises:
        StoreError: an option asyncpg has no equivalent for, or an ``sslmode`` libpq does not define.
    """
    out: dict[str, Any] = {}
    for key, value in query.items():
        name = _LIBPQ_TO_ASYNCPG.get(key, key)
        if name not in _ASYNCPG_QUERY:
            known = ", ".join(sorted(set(_LIBPQ_TO_ASYNCPG) | _ASYNCPG_QUERY))
            raise StoreError(f"unsupported PostgreSQL URL option {key!r}: the store (asyncpg) takes {known}")
        if name in out:
            raise StoreError(f"PostgreSQL URL option {key!r} given twice (or beside its asyncpg name)")
        if key == "sslmode" and value not in _SSLMODES:
            raise StoreError(f"sslmode={value!r} is not a libpq SSL mode: use one of {', '.join(_SSLMODES)}")
        _typed_option(key, name, value)  # refuse a value of the wrong type now, naming the option
        out[name] = value
    return out


_NUMERIC_OPTIONS = {
    "timeout": float, "command_timeout": float, "max_cached_statement_lifetime": float,
    "statement_cache_size": int, "max_cacheable_statement_size": int,
}


def _typed_option(key: str, name: str, value: Any) -> Any:
    kind = _NUMERIC_OPTIONS.get(name)
    if name == "direct_tls":
        if value not in ("true", "false", "1", "0"):
            raise StoreError(f"PostgreSQL URL option {key}={value!r}: expected true or false")
        return value in ("true", "1")
    if kind is None:
        return value
    try:
        number = kind(value)
    except (TypeError, ValueError):
        raise StoreError(f"PostgreSQL URL option {key}={value!r}: expected a number") from None
    if number != number or number < 0 or number in (float("inf"),):
        raise StoreError(f"PostgreSQL URL option {key}={value!r}: expected a finite number >= 0")
    return number


def _asyncpg_connect_args(parsed: Any) -> tuple[Any, dict[str, Any]]:
    """Move the typed asyncpg options out of the URL's query (where every value is a string) into
    ``connect_args`` with their types; SQLAlchemy's asyncpg dialect passes query values on as text."""
    args = {name: _typed_option(name, name, v) for name, v in parsed.query.items() if name in _NUMERIC_OPTIONS or name == "direct_tls"}
    moved = list(args)
    if "application_name" in parsed.query:  # a server setting in asyncpg (``server_settings``), a keyword in libpq
        args["server_settings"] = {"application_name": parsed.query["application_name"]}
        moved.append("application_name")
    return (parsed.difference_update_query(moved) if moved else parsed), args


def safe_url(url: str) -> str:
    """The URL with any password masked, for messages: ``postgresql://u:***@host:5432/db``.

    The user info runs to the LAST ``@`` of the authority: in ``u:SEC@RET@host`` (a password with a
    raw ``@``, which SQLAlchemy's parser ends at the first ``@``) nothing of ``SEC@RET`` is shown.
    """
    try:
        rendered = make_url(url).render_as_string(hide_password=True)
    except (sa_exc.ArgumentError, ValueError):
        return "<unparseable URL>"
    head, sep, rest = rendered.partition("://")
    if not sep:
        return rendered
    end = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    userinfo, at, hostport = rest[:end].rpartition("@")
    if not at:
        return rendered
    if ":" not in userinfo and "@" not in userinfo:  # a user name alone: nothing to hide
        return rendered
    user = userinfo.partition(":")[0].partition("@")[0]
    return f"{head}://{user}:***@{hostport}{rest[end:]}"


def sqlite_read_only(url: str) -> bool:
    """Whether a SQLite URL names an existing file this process cannot write (read-only media, or a
    file without write permission): such a store is opened read-only, so it can still be listed,
    shown, exported and viewed. Always false for other backends and for files that do not exist."""
    parsed = make_url(url)
    path = parsed.database
    if parsed.get_backend_name() != "sqlite" or not path or path == ":memory:" or parsed.query.get("uri"):
        return False
    if not os.path.isfile(path):
        return False
    folder = os.path.dirname(os.path.abspath(path))
    # access(2) answers EROFS for a read-only file system even to root
    return not os.access(path, os.W_OK) or not os.access(folder, os.W_OK)


def _read_only_sqlite_url(parsed: Any) -> Any:
    """``file:`` URI of a read-only open. On a read-only file system SQLite cannot create the WAL
    index (``-shm``) a WAL database needs, so the file is opened ``immutable`` there, unless a
    non-empty ``-wal`` file holds changes not yet in the database (then only ``mode=ro``, which reads
    them when the index exists). Source: SQLite docs, "URI filenames" and "WAL mode: read-only databases"."""
    path = os.path.abspath(parsed.database)
    folder_ro = False
    with contextlib.suppress(OSError):
        folder_ro = bool(os.statvfs(os.path.dirname(path)).f_flag & os.ST_RDONLY)
    wal = path + "-wal"
    pending = os.path.exists(wal) and os.path.getsize(wal) > 0
    params = "mode=ro&immutable=1" if folder_ro and not pending else "mode=ro"
    from urllib.parse import quote

    return parsed.set(database=f"file:{quote(path)}?{params}", query={"uri": "true"})


def create_engine(url: str, *, read_only: bool = False, pool: dict[str, Any] | None = None) -> AsyncEngine:
    """Create the async engine for a normalised URL (see :func:`normalize_url`).

    ``read_only`` (SQLite): open the file read-only (see :func:`sqlite_read_only`); writes then fail
    with "attempt to write a readonly database". ``pool``: SQLAlchemy pool settings
    (``pool_size``, ``max_overflow``, ``pool_timeout`` in seconds) for the workload's concurrency."""
    kwargs: dict[str, Any] = {"json_serializer": _json_serializer, "json_deserializer": _json_deserializer, **(pool or {})}
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        kwargs["connect_args"] = {"timeout": BUSY_TIMEOUT_S}
        # a returned connection is rolled back by the "reset" hook below, only when a transaction is open
        kwargs["pool_reset_on_return"] = None
        engine = create_async_engine(_read_only_sqlite_url(parsed) if read_only else url, **kwargs)
        _setup_sqlite(engine, read_only=read_only)
        return engine
    parsed, connect_args = _asyncpg_connect_args(parsed)
    if connect_args:
        kwargs["connect_args"] = connect_args
    engine = create_async_engine(parsed, **kwargs)
    _ping_idle_connections(engine)
    return engine


IDLE_PING_S = 10.0
"""A pooled PostgreSQL connection idle longer than this is pinged before use."""


def _ping_idle_connections(engine: AsyncEngine) -> None:
    """Pessimistic disconnect handling for connections that sat idle, not for every checkout.

    ``pool_pre_ping`` pings on every checkout, and asyncpg's adapter pings inside its own
    transaction (BEGIN, ``;``, ROLLBACK): three round trips before a one-round-trip append. A
    connection used within :data:`IDLE_PING_S` is handed out as it is; an older one is pinged,
    and one that fails the ping is replaced (raising ``DisconnectionError`` from the checkout hook
    makes the pool discard it and connect again: SQLAlchemy docs, "Dealing with Disconnects",
    custom pessimistic ping)."""
    import time

    @event.listens_for(engine.sync_engine, "checkin")
    def _on_checkin(_dbapi_conn: Any, record: Any) -> None:
        if record is not None:
            record.info["interlingua_used"] = time.monotonic()

    @event.listens_for(engine.sync_engine, "checkout")
    def _on_checkout(dbapi_conn: Any, record: Any, _proxy: Any) -> None:
        last = record.info.get("interlingua_used")
        if last is None or time.monotonic() - last < IDLE_PING_S:
            return  # new (it just connected), or used moments ago
        try:
            dbapi_conn.ping()
        except Exception as exc:
            raise sa_exc.DisconnectionError(f"idle connection failed its ping: {type(exc).__name__}") from exc


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


def _setup_sqlite(engine: AsyncEngine, *, read_only: bool = False) -> None:
    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        # Take transaction control away from the sqlite3 module (it would BEGIN
        # lazily before DML only); the "begin" hook below emits BEGIN itself.
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        cur.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        cur.execute("PRAGMA foreign_keys = ON")
        cur.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
        if engine.url.database not in (None, "", ":memory:") and not read_only:
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
    except TimeoutError as exc:
        # str(TimeoutError()) is empty: say what timed out
        raise StoreError(
            f"{what} failed on {safe_url(url)}: the database server did not answer in time "
            "(connect_timeout=SECONDS in the URL sets how long to wait)"
        ) from exc
    except (OSError, ConnectionError) as exc:
        raise StoreError(f"{what} failed on {safe_url(url)}: cannot reach the database: {exc or type(exc).__name__}") from exc
    except Exception as exc:
        # asyncpg raises its own errors outside DBAPI wrapping during connect.
        if type(exc).__module__.startswith(("asyncpg", "aiosqlite", "sqlite3")):
            raise StoreError(f"{what} failed on {safe_url(url)}: {type(exc).__name__}: {_first_line(exc)}") from exc
        raise


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    # SQLAlchemy appends the SQL and a background link; keep the driver's message only.
    return text[0] if text else type(exc).__name__

