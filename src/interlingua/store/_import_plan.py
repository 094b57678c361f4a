"""Importing a session file: one plan per session, and the fork links between them.

A session file written by ``store export`` (or ``migrate -o`` for a tree-shaped history) names, in a
fork's header, the session it was forked from (``parent_id``) and the last seq they share
(``fork_seq``). :func:`link_forks` resolves those links before anything is written: a parent in the
same file (whatever the order of the two in the file), else one the store must already hold, and
refuses a link that cannot hold (see ``adr/0038-response-metadata-and-fork-links-in-the-store.md``).
:func:`import_rounds` then gives the order that writes every parent before its forks.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, cast

import msgspec

from ..errors import DocumentError, Problem
from ..items import Envelope, SessionRecord
from ..session_file import EnvelopeBatch, SessionEnd, SessionPart
from . import _rows

if TYPE_CHECKING:
    from ._store import SessionStore

__all__ = ["ImportPlan", "check_stored_parent", "import_difference", "import_rounds", "link_forks", "plan_created_at", "skip_session"]


@dataclass
class ImportPlan:
    """One session of a file being imported: found in pass 1, written in pass 2.

    Attributes:
        source_id: The session's id in the file.
        target: The id it is stored under.
        header: Its header record, ``None`` for a block of bare envelopes.
        header_line: Line of the header (1-based), when there is one.
        count: Its number of envelopes.
        created_at: The header's ``created_at``, kept as the stored session's creation time.
        parent_id: The stored id of the session it was forked from (``None``: not a fork).
        fork_seq: The last seq it shares with that parent.
        parent_index: Index of the parent's plan when the parent is in the same file.
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


def plan_created_at(plan: ImportPlan, label: str | None) -> None:
    """Set ``plan.created_at`` from its header (pointer ``/session/created_at``).

    Raises:
        DocumentError: not an RFC 3339 timestamp with an offset (file and header line).
    """
    header = plan.header
    if header is None or header.created_at is msgspec.UNSET:
        return
    try:
        plan.created_at = _rows.parse_ts(header.created_at, "/session/created_at")
    except DocumentError as exc:
        raise exc.located(file=label, line=plan.header_line) from exc


def _located(plan: ImportPlan, pointer: str, message: str, label: str | None) -> DocumentError:
    return DocumentError(Problem(pointer, message)).located(file=label, line=plan.header_line)


def link_forks(plans: list[ImportPlan], label: str | None) -> list[int]:
    """Resolve the fork links of a file's sessions in place; return the indexes of the forks whose
    parent is not in the file (the caller checks the store holds it, with :func:`check_stored_parent`).

    A parent in the file is found by its id in the file and stored under that session's target id
    (so ``new_ids`` and ``session_ids`` keep the links). ``fork_seq`` must lie in ``-1..count - 1``
    of the fork and of an in-file parent.

    Raises:
        DocumentError: a ``fork_seq`` without ``parent_id`` or the reverse, a fork beyond its own or
            its parent's items, or a cycle of forks (file and header line, pointer ``/session/...``).
    """
    by_source = {p.source_id: n for n, p in enumerate(plans)}
    outside: list[int] = []
    for n, plan in enumerate(plans):
        header = plan.header
        if header is None:
            continue
        parent, seq = header.parent_id, header.fork_seq
        if parent is msgspec.UNSET and seq is msgspec.UNSET:
            continue
        if parent is msgspec.UNSET or seq is msgspec.UNSET:
            missing = "parent_id" if parent is msgspec.UNSET else "fork_seq"
            raise _located(plan, f"/session/{missing}", "a fork's header needs both parent_id and fork_seq", label)
        if seq > plan.count - 1:
            raise _located(plan, "/session/fork_seq", f"fork_seq {seq} is beyond this session's own items (0..{plan.count - 1})", label)
        plan.fork_seq = seq
        index = by_source.get(parent)
        if index is None:
            plan.parent_id = parent
            outside.append(n)
            continue
        if index == n:
            raise _located(plan, "/session/parent_id", f"session {plan.source_id!r} names itself as its parent", label)
        parent_plan = plans[index]
        if seq > parent_plan.count - 1:
            raise _located(
                plan, "/session/fork_seq", f"fork_seq {seq} is beyond the items of its parent {parent!r} in this file (0..{parent_plan.count - 1})", label
            )
        plan.parent_index = index
        plan.parent_id = parent_plan.target
    for n, plan in enumerate(plans):
        seen = {n}
        at = plan.parent_index
        while at is not None:
            if at in seen:
                raise _located(plan, "/session/parent_id", f"session {plan.source_id!r} is its own ancestor through parent_id (a cycle of forks)", label)
            seen.add(at)
            at = plans[at].parent_index
    return outside


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


def import_rounds(plans: list[ImportPlan], done: set[int]) -> list[int]:
    """The plans (indexes, in file order) one pass over the file can import now: not done, and
    their parent (if in the file) done or earlier in this same pass."""
    ready: list[int] = []
    now = set(done)
    for n, plan in enumerate(plans):
        if n in done:
            continue
        if plan.parent_index is None or plan.parent_index in now:
            ready.append(n)
            now.add(n)
    return ready


def skip_session(parts: Iterator[SessionPart]) -> None:
    """Read past the session ``parts`` is at (its start, batches and end)."""
    for part in parts:
        if isinstance(part, SessionEnd):
            return


async def import_difference(store: SessionStore, parts: Iterator[SessionPart], plan: ImportPlan) -> str:
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
