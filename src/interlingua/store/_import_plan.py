"""Importing a session file: each session's plan, and the fork links between them.

A session file written by ``store export`` (or ``migrate -o`` for a tree-shaped history) names, in a
fork's header, the session it was forked from (``parent_id``) and the last seq they share
(``fork_seq``). :func:`link_forks` resolves those links before anything is written: a parent in the
same file (whatever the order of the two in the file), else one the store must already hold, and
refuses a link that cannot hold (see ``adr/0038-response-metadata-and-fork-links-in-the-store.md``).
Pass 2 then writes every parent before its forks (one more pass over the file for a fork that
stands before its parent). Between the passes the sessions are rows of a temporary table
(:class:`~._import_table.PlanTable`), so memory does not grow with their number (issue 32).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Generator, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import IO, Any, Literal, Protocol, cast

import msgspec
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from ..errors import DocumentError, Problem, SessionExistsError, SessionNotFoundError, StoreError
from ..items import Envelope, SessionRecord
from ..session_file import EnvelopeBatch, SeenIds, SessionEnd, SessionPart, SessionStart, iter_session_parts
from ._driver import _UNSET, _check_session_id, _now
from ._rows import PreparedRow, parse_ts, prepare_rows
from ._schema import SESSION_CHANGES, SESSIONS
from ._import_table import ImportResults, PlanRow, PlanTable
from ._types import SessionInfo

__all__ = [
    "ImportPlan",
    "ImportingStore",
    "check_stored_parent",
    "check_stored_parents",
    "import_difference",
    "import_sessions",
    "link_forks",
    "plan_created_at",
    "skip_session",
]


class ImportingStore(Protocol):
    """What importing uses of :class:`~interlingua.store.SessionStore` (typed here without importing it)."""

    _is_pg: bool

    def _write(self, what: str) -> contextlib.AbstractAsyncContextManager[AsyncConnection]: ...

    def _insert(self, table: sa.Table) -> Any: ...

    def _session_values(self, metadata: Any, tools: Any, tool_choice: Any, settings: Any, *, clear_with_null: bool) -> dict[str, Any]: ...

    async def _insert_segments(self, conn: AsyncConnection, segments: list[tuple[str, int, list[PreparedRow]]], now: datetime) -> None: ...

    async def get_session(self, session_id: str) -> SessionInfo: ...

    def stream(self, session_id: str, since_seq: int = 0, *, page_size: int = ...) -> AsyncIterator[Envelope]: ...


@dataclass(slots=True)
class ImportPlan:
    """One session of a file being imported, as pass 2 writes it (one at a time; between the passes
    the sessions are rows of a :class:`~._import_table.PlanTable`).

    Attributes:
        source_id: The session's id in the file.
        target: The id it is stored under.
        header: Its header record, ``None`` for a block of bare envelopes (and between the passes).
        header_line: Line of the header (1-based), when there is one.
        count: Its number of envelopes.
        created_at: The header's ``created_at``, kept as the stored session's creation time.
        parent_id: The stored id of the session it was forked from (``None``: not a fork).
        fork_seq: The last seq it shares with that parent.
        parent_index: Index of the parent's plan when the parent is in the same file.
        index: Its place in the file (0-based).
    """

    source_id: str
    target: str
    header: SessionRecord | None
    header_line: int | None = None
    count: int = 0
    created_at: datetime | None = None
    parent_id: str | None = None
    fork_seq: int | None = None
    parent_index: int | None = None
    index: int = 0

    @classmethod
    def of(cls, row: PlanRow) -> ImportPlan:
        """The plan of a table row (its header is read again in pass 2)."""
        n, source_id, target, header_line, count, parent_id, fork_seq, parent_index, _status = row
        return cls(source_id, target, None, header_line, count, None, parent_id, fork_seq, parent_index, n)


def plan_created_at(plan: ImportPlan, label: str | None) -> None:
    """Set ``plan.created_at`` from its header (pointer ``/session/created_at``).

    Raises:
        DocumentError: not an RFC 3339 timestamp with an offset (file and header line).
    """
    header = plan.header
    if header is None or header.created_at is msgspec.UNSET:
        return
    try:
        plan.created_at = parse_ts(header.created_at, "/session/created_at")
    except DocumentError as exc:
        raise exc.located(file=label, line=plan.header_line) from exc


def _located(plan: ImportPlan, pointer: str, message: str, label: str | None) -> DocumentError:
    return DocumentError(Problem(pointer, message)).located(file=label, line=plan.header_line)


def link_forks(table: PlanTable, label: str | None) -> None:
    """Resolve the fork links of a file's sessions (rows of ``table``) in place. A fork whose
    parent is not in the file is left for :func:`check_stored_parents` (the store must hold it).

    A parent in the file is found by its id in the file and stored under that session's target id
    (so ``new_ids`` and ``session_ids`` keep the links). ``fork_seq`` must lie in ``-1..count - 1``
    of the fork and of an in-file parent. Memory: one page of rows and the chain of forks being
    checked for a cycle, whatever the number of sessions.

    Raises:
        DocumentError: a ``fork_seq`` without ``parent_id`` or the reverse, a fork beyond its own or
            its parent's items, or a cycle of forks (file and header line, pointer ``/session/...``).
    """
    for row, parent, seq in table.links():
        plan = ImportPlan.of(row)
        if parent is None and seq is None:
            continue
        if parent is None or seq is None:
            missing = "parent_id" if parent is None else "fork_seq"
            raise _located(plan, f"/session/{missing}", "a fork's header needs both parent_id and fork_seq", label)
        if seq > plan.count - 1:
            raise _located(plan, "/session/fork_seq", f"fork_seq {seq} is beyond this session's own items (0..{plan.count - 1})", label)
        index = table.index_of(parent)
        if index is None:
            table.set_link(plan.index, parent, seq, None)
            continue
        if index == plan.index:
            raise _located(plan, "/session/parent_id", f"session {plan.source_id!r} names itself as its parent", label)
        parent_plan = ImportPlan.of(table.get(index))
        if seq > parent_plan.count - 1:
            raise _located(
                plan, "/session/fork_seq", f"fork_seq {seq} is beyond the items of its parent {parent!r} in this file (0..{parent_plan.count - 1})", label
            )
        table.set_link(plan.index, parent_plan.target, seq, index)
    cycle = table.first_cycle()
    if cycle is not None:
        plan = ImportPlan.of(table.get(cycle))
        raise _located(plan, "/session/parent_id", f"session {plan.source_id!r} is its own ancestor through parent_id (a cycle of forks)", label)


async def check_stored_parents(store: ImportingStore, table: PlanTable, label: str | None) -> None:
    """Check every fork whose parent is not in the file against the stored parent.

    Raises:
        DocumentError: as :func:`check_stored_parent`, for the first such fork in the file.
    """
    for row in table.rows(where="outside"):
        plan = ImportPlan.of(row)
        check_stored_parent(plan, await _length_or_none(store, cast(str, plan.parent_id)), label)


def check_stored_parent(plan: ImportPlan, length: int | None, label: str | None) -> None:
    """Check a fork whose parent is not in the file against the stored parent (``length``: its
    number of items, ``None`` when the store holds no such session).

    Raises:
        DocumentError: the parent is neither in the file nor in the store, or ``fork_seq`` is beyond its items.
    """
    if length is None:
        raise _located(
            plan,
            "/session/parent_id",
            f"session {plan.source_id!r} is a fork of {plan.parent_id!r}, which is neither in this file nor in the store: "
            "import the parent first, or export both into one file",
            label,
        )
    assert plan.fork_seq is not None
    if plan.fork_seq > length - 1:
        raise _located(plan, "/session/fork_seq", f"fork_seq {plan.fork_seq} is beyond the items of the stored parent {plan.parent_id!r} (0..{length - 1})", label)


def skip_session(parts: Iterator[SessionPart]) -> None:
    """Read past the session ``parts`` is at (its start, batches and end)."""
    for part in parts:
        if isinstance(part, SessionEnd):
            return


async def import_difference(store: ImportingStore, parts: Iterator[SessionPart], plan: ImportPlan) -> str:
    """What differs between the file's session (the rest of ``parts``, read to its end) and the
    stored session of the same id (``""``: nothing), streaming both a page at a time."""
    info = await store.get_session(plan.target)
    differs = ""
    header = plan.header
    for name in ("metadata", "tools", "tool_choice", "settings"):
        given = getattr(header, name) if header is not None else msgspec.UNSET
        if given is not msgspec.UNSET and given != getattr(info, name):
            differs = name.replace("_", " ")
            break
    if not differs and info.length != plan.count:
        differs = f"items ({info.length} stored, {plan.count} in the file)"
    stored = cast("AsyncGenerator[Envelope, None]", store.stream(plan.target)) if not differs else None
    for part in parts:
        if isinstance(part, SessionEnd):
            break
        assert isinstance(part, EnvelopeBatch)
        if stored is None:
            continue  # read on to the session's end
        for b in part.envelopes:
            try:
                a = await anext(stored)
            except StopAsyncIteration:
                a = None
            if a is None or (a.item, a.usage, a.stop_reason, a.response) != (b.item, b.usage, b.stop_reason, b.response):
                differs = f"items (first difference at seq {b.seq})"
                await stored.aclose()
                stored = None
                break
    if stored is not None:
        await stored.aclose()
    return differs

async def import_sessions(
    store: ImportingStore, source: str | os.PathLike[str] | IO[bytes], *, new_ids: bool = False, session_ids: Sequence[str] | None = None
) -> ImportResults:
    """:meth:`SessionStore.import_sessions <interlingua.store.SessionStore.import_sessions>`: check the whole
    file (pass 1), link the forks, then write each session in one transaction (pass 2), parents first.

    Between the passes each session is a row of a :class:`PlanTable` (a private temporary SQLite
    database), not an object: memory does not grow with the number of sessions (issue 32).

    Raises:
        DocumentError, SessionExistsError: as that method.
        StoreError: the file changed between the passes, or the temporary table cannot be written.
    """
    label = str(source) if isinstance(source, (str, os.PathLike)) else getattr(source, "name", None)
    label = str(label) if label is not None else None
    with contextlib.ExitStack() as stack:
        if not isinstance(source, (str, os.PathLike)) and not _seekable(source):
            # Two passes need a file to read twice: spool a stream (stdin) to a temporary file.
            spool = stack.enter_context(tempfile.TemporaryFile())
            shutil.copyfileobj(source, spool)
            source = spool
        table = PlanTable()
        try:
            await _check_file(store, source, table, label, new_ids=new_ids, session_ids=session_ids)
            imported, unchanged, items = await _write_sessions(store, source, table, label)
            return ImportResults.from_table(table, imported=imported, unchanged=unchanged, items=items)
        except BaseException:
            table.close()
            raise


async def _check_file(
    store: ImportingStore, source: str | os.PathLike[str] | IO[bytes], table: PlanTable, label: str | None, *, new_ids: bool, session_ids: Sequence[str] | None
) -> None:
    """Pass 1: the whole file is checked before any session is written (every line, the ids, the
    header values, every row as it will be written), a batch of envelopes at a time; each session
    becomes a row of ``table``; then the fork links are resolved (a parent in the file, else in the store)."""
    now = _now()
    plan: ImportPlan | None = None
    link: tuple[Any, Any] | None = None
    for part in _parts(source, label, table):
        if isinstance(part, SessionStart):
            n = len(table)
            if session_ids is not None:
                if n >= len(session_ids):
                    raise DocumentError(Problem("", f"the file holds more than {len(session_ids)} session(s); import it without an id", label, part.line))
                target = _check_session_id(session_ids[n])
            else:
                target = str(uuid.uuid4()) if new_ids else _located_id(part, label)
            plan = ImportPlan(part.session_id, target, part.header, part.header_line, index=n)
            _located_settings(store, plan, now, label, part.header_line)
            plan_created_at(plan, label)
            header = part.header
            link = None if header is None else tuple(None if v is msgspec.UNSET else v for v in (header.parent_id, header.fork_seq))  # type: ignore[assignment]
            if link == (None, None):
                link = None
        elif isinstance(part, EnvelopeBatch):
            _located_rows(store, part, label)
        else:
            assert plan is not None
            table.append(plan.source_id, plan.target, plan.header_line, part.count, link)
    table.flush()
    link_forks(table, label)
    await check_stored_parents(store, table, label)


async def _write_sessions(store: ImportingStore, source: str | os.PathLike[str] | IO[bytes], table: PlanTable, label: str | None) -> tuple[int, int, int]:
    """Pass 2: each session in one transaction, its rows inserted a batch at a time; a parent before
    its forks (a fork the file holds before its parent is written by one more pass over the file,
    up to the last session left). Returns the numbers of sessions imported and unchanged, and of items."""
    imported = unchanged = items = 0
    last = table.last_pending()
    while last is not None:
        progress = False
        parts = _parts(source, label, _NO_CHECK)  # pass 1 checked that each session appears once
        with contextlib.closing(parts):
            for row in table.rows(stop=last):
                plan = ImportPlan.of(row)
                start = next(parts, None)
                if not isinstance(start, SessionStart) or start.session_id != plan.source_id:
                    raise _changed(label, plan)
                if row[8] is not None or (plan.parent_index is not None and not table.written(plan.parent_index)):
                    skip_session(parts)  # written by an earlier pass, or its parent is still to come
                    continue
                status = await _import_streamed(store, parts, plan, label, start)
                table.set_status(plan.index, status)
                progress = True
                imported += status == "imported"
                unchanged += status == "unchanged"
                items += plan.count
        last = table.last_pending()
        if last is not None and not progress:  # a cycle would stop here; link_forks refuses one
            raise StoreError(f"{label or 'the file'}: forks whose parents can never be written first")
    return imported, unchanged, items


def _changed(label: str | None, plan: ImportPlan) -> StoreError:
    return StoreError(f"{label or 'the file'} changed while it was imported (session {plan.source_id!r} is no longer session {plan.index + 1} of the file)")


class _NoCheck:
    """The ``seen_ids`` of pass 2: pass 1 has checked that each session appears once."""

    def __contains__(self, source_id: object) -> bool:
        return False

    def add(self, source_id: str) -> None:
        pass


_NO_CHECK = _NoCheck()


async def _length_or_none(store: ImportingStore, session_id: str) -> int | None:
    try:
        return (await store.get_session(session_id)).length
    except SessionNotFoundError:
        return None


def _parts(source: str | os.PathLike[str] | IO[bytes], label: str | None, seen: SeenIds) -> Generator[SessionPart, None, None]:
    if not isinstance(source, (str, os.PathLike)):
        source.seek(0)
    return iter_session_parts(source, label=label, seen_ids=seen)


def _located_id(part: SessionStart, label: str | None) -> str:
    try:
        return _check_session_id(part.session_id)
    except DocumentError as exc:
        pointer = "/session/id" if part.header is not None else "/session_id"
        raise DocumentError([Problem(pointer, p.message) for p in exc.problems]).located(file=label, line=part.line) from exc


def _located_settings(store: ImportingStore, plan: ImportPlan, now: datetime, label: str | None, line: int | None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    sess = msgspec.to_builtins(plan.header) if plan.header is not None else {}
    try:
        return _import_settings(store, plan.target, sess, now)
    except DocumentError as exc:
        raise DocumentError([Problem("/session" + p.pointer, p.message) for p in exc.problems]).located(file=label, line=line) from exc


def _located_rows(store: ImportingStore, part: EnvelopeBatch, label: str | None) -> list[PreparedRow]:
    """The batch's rows; a problem is reported at its envelope's line, inside the line."""
    try:
        # Read by a typed decode just now: encoded only, not validated again.
        return prepare_rows(part.envelopes, keep_created_at=True, forbid_nul=store._is_pg, keep_text=store._is_pg, validated=True)
    except DocumentError as exc:
        index, _, rest = exc.problems[0].pointer[1:].partition("/")
        line = part.line_nos[int(index)] if index.isdigit() and int(index) < len(part.line_nos) else None
        raise DocumentError([Problem("/" + rest if rest else "", p.message) for p in exc.problems[:1]]).located(file=label, line=line) from exc


async def _import_streamed(
    store: ImportingStore, parts: Iterator[SessionPart], plan: ImportPlan, label: str | None, start: SessionStart
) -> Literal["imported", "unchanged"]:
    """Import the session ``parts`` is in (pass 2, its start read): one transaction; or compare it
    with the stored one. The header is held only while this session is written."""
    plan.header = start.header
    plan_created_at(plan, label)
    try:
        return await _import_one(store, parts, plan, label, start)
    finally:
        plan.header = None


async def _import_one(store: ImportingStore, parts: Iterator[SessionPart], plan: ImportPlan, label: str | None, start: SessionStart) -> Literal["imported", "unchanged"]:
    now = _now()
    values, change_rows = _located_settings(store, plan, now, label, start.header_line)
    async with store._write("importing a session") as conn:
        inserted = (
            await conn.execute(
                store._insert(SESSIONS)
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
                rows = _located_rows(store, part, label)
                await store._insert_segments(conn, [(plan.target, part.first_seq, rows)], now)
                written += len(rows)
            if written != plan.count:
                raise StoreError(f"{label or 'the file'} changed while it was imported (session {plan.source_id!r}); nothing of it was written")
            return "imported"
    differs = await import_difference(store, parts, plan)
    if differs:
        raise SessionExistsError(plan.target, differs)
    return "unchanged"


def _import_settings(store: ImportingStore, new_id: str, sess: dict[str, Any], now: datetime) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Validate and encode an imported session header's values and change history."""
    values = store._session_values(
        sess.get("metadata"), sess.get("tools"), sess.get("tool_choice"), sess.get("settings"), clear_with_null=False
    )
    change_rows = []
    for j, ch in enumerate(sess.get("changes") or ()):
        cleared = set(ch.get("cleared") or ())
        vals = store._session_values(
            *(None if name in cleared else ch.get(name, _UNSET) for name in ("metadata", "tools", "tool_choice", "settings")),
            clear_with_null=True,
        )
        created = parse_ts(ch["created_at"], f"/changes/{j}/created_at") if "created_at" in ch else now
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
