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
import os
import sqlite3
import uuid
from collections.abc import AsyncIterator, Iterable, Sequence
from typing import IO, Any, Literal

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from ..codec import SCHEMA_VERSION, encode_envelope
from ..errors import ConflictError, DocumentError, MigrationRequiredError, SessionExistsError, SessionNotFoundError, StoreError
from ..items import Envelope, ResponseInfo, Settings, StopReason, ToolChoice, ToolDefinition, Transcript, Usage
from ..session_file import response_records
from ._driver import _JSON_NULL, _PAGE, _UNSET, StoreBase, _check_session_id, _insert_sessions_driver, _now, _session_key
from ._engine import JsonText, create_engine, normalize_url, safe_url, sqlite_read_only, translate_errors
from ._import_plan import import_sessions as _import_sessions
from ._import_table import ImportResults
from ._jsonl import header_line
from ._migrate import head_revision, read_state, upgrade_sync
from ._rows import PreparedRow, _relocate, decode_choice, decode_json, decode_settings, decode_tools, format_ts, prepare_rows
from ._schema import ITEMS, QUARANTINE, SESSION_CHANGES, SESSIONS, VERSION_TABLE
from ._types import CorruptRowError, CorruptRowWarning, NewSession, QuarantinedRow, SessionChange, SessionInfo

__all__ = ["SessionStore"]



class SessionStore(StoreBase):
    """Sessions of envelopes in SQLite or PostgreSQL (SQLAlchemy 2 asyncio, Core).

    Open with :meth:`open`; close with :meth:`close` (or ``async with``). Every
    database error is raised as :class:`~interlingua.errors.StoreError` (or a
    subclass); invalid input as :class:`~interlingua.errors.DocumentError`
    before anything is written.
    """

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
                changed["metadata"] = decode_json(r.metadata)
            if r.tools is not None:
                changed["tools"] = decode_tools(r.tools)
            if r.tool_choice is not None:
                changed["tool_choice"] = decode_choice(r.tool_choice)
            if r.settings is not None:
                changed["settings"] = decode_settings(r.settings)
            out.append(SessionChange(int(r.change_no), int(r.effective_seq), format_ts(r.created_at), changed))
        return out

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
        rows = prepare_rows(items, usage=usage, stop_reason=stop_reason, response=response, forbid_nul=self._is_pg, keep_text=self._is_pg)
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

    def _prepare_new(self, new: NewSession, prefix: str) -> tuple[str, dict[str, Any], list[PreparedRow]]:
        """Validate and encode one new session (id, session values, item rows) before any database work."""
        try:
            sid = _check_session_id(new.session_id)
            values = self._session_values(new.metadata, new.tools, new.tool_choice, new.settings, clear_with_null=False)
        except DocumentError as exc:
            if not prefix:
                raise
            raise _relocate(exc, prefix) from exc
        try:
            rows = prepare_rows(
                new.items, usage=new.usage, stop_reason=new.stop_reason, response=new.response, forbid_nul=self._is_pg, keep_text=self._is_pg
            )
        except DocumentError as exc:
            if not prefix:
                raise
            raise _relocate(exc, f"{prefix}/items") from exc
        return sid, values, rows

    async def _add_prepared(self, prepared: list[tuple[str, dict[str, Any], list[PreparedRow]]]) -> list[bool]:
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

    async def _append_rows(self, session_id: str, rows: list[PreparedRow], expected_seq: int | None) -> int:
        if not rows:
            head = await self.head(session_id)
            if expected_seq is not None and head != expected_seq:
                raise ConflictError(session_id, expected_seq, head)
            return head
        now = _now()
        if not self._is_pg:
            return await self._append_sqlite(session_id, rows, expected_seq, now)
        return await self._append_pg(session_id, rows, expected_seq, now)

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

    async def quarantined(self, session_id: str | None = None) -> list[QuarantinedRow]:
        """Rows recorded as failing to decode (all sessions, or one), by session and seq."""
        if session_id is not None:
            session_id = _session_key(session_id)
        stmt = sa.select(QUARANTINE).order_by(QUARANTINE.c.session_id, QUARANTINE.c.seq)
        if session_id is not None:
            stmt = stmt.where(QUARANTINE.c.session_id == session_id)
        async with self._read("reading the quarantine") as conn:
            rows = (await conn.execute(stmt)).all()
        return [QuarantinedRow(r.session_id, int(r.seq), r.reason, format_ts(r.detected_at)) for r in rows]

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
                        state[k] = None if decode_json(v) is None else JsonText(v)
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
        return header_line(await self.get_session(session_id), await self.changes(session_id))

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
    ) -> ImportResults:
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

        Memory does not grow with the number of sessions: between the two passes each session is a
        row of a private temporary SQLite database, and so are the results past the first 1,000.

        Args:
            source: A path or a binary file object.
            new_ids: Import every session as a copy under a new UUID4 id.
            session_ids: Ids to import the sessions under, in file order (a file with more sessions
                than ids is refused before anything is written).

        Returns:
            One :class:`ImportResult` per session, in file order, as an :class:`ImportResults`: a
            read-only sequence (``len``, indexing, iteration, ``==`` with a list, as the list this
            returned before) with the counts ``imported``, ``unchanged`` and ``items``.

        Raises:
            DocumentError: with file and line of the first problem; a fork whose parent is neither
                in the file nor in the store, a ``fork_seq`` beyond the fork's or its parent's items,
                a cycle of forks (nothing written).
            SessionExistsError: a stored session with the same id holds other content.
            StoreError: the file changed between the two passes, or the temporary table cannot be
                written (a full temporary directory).
        """
        return await _import_sessions(self, source, new_ids=new_ids, session_ids=session_ids)
