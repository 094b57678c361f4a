"""Validating a JSON Lines envelope stream in bounded memory: ``seq`` order per session, the block fast path."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import IO, Any

import msgspec

from ..codec import DEFAULT_LIMITS, Limits, Mode
from ..codec._jsonl import jsonl_parts
from ..errors import DocumentError, Problem
from ..session_rules import check_header, late_header_message
from ._semantic import SessionTable, _CALL, _CONTENT, _CONTENT_KIND, _CompactChecker, _HANDOFF, _HANDOFF_CALL, _HANDOFF_RESULT, _ID, _KINDS, _TOOL_CALL, _TOOL_RESULT
from ._integrity import _StreamIntegrity
from ._documents import ValidationResult, _explain_failures

def validate_jsonl_stream(
    source: str | os.PathLike[str] | IO[bytes],
    *,
    mode: Mode = "preserving",
    limits: Limits = DEFAULT_LIMITS,
    file: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> ValidationResult:
    """Validate a JSON Lines envelope stream line by line, in bounded memory.

    The per-session state the checks need (ids and call ids seen, the last ``seq``) is held in
    memory up to a budget (200,000 ids, 20,000 sessions); past it, the sessions used least
    recently move to a private temporary SQLite database that is deleted at the end, so memory
    stays flat whatever the number of sessions (see docs/benchmarks.md, the memory rows).

    ``progress``, when given with a path, is called now and then with the number of
    bytes read since its last call (for a progress display).
    """
    if progress is not None and isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as fh:
            return _validate_jsonl(fh, source, mode=mode, limits=limits, file=file or str(source), progress=progress)
    return _validate_jsonl(source, source, mode=mode, limits=limits, file=file, progress=None)


def _validate_jsonl(
    reader: Any, source: Any, *, mode: Mode, limits: Limits, file: str | None, progress: Callable[[int], None] | None
) -> ValidationResult:
    table = SessionTable(**_TABLE_BUDGET)
    try:
        return _validate_jsonl_lines(reader, source, table, mode=mode, limits=limits, file=file, progress=progress)
    finally:
        table.close()


_TABLE_BUDGET: dict[str, int] = {}
"""Overrides of :class:`SessionTable`'s budget (tests set small ones to exercise spilling)."""


def _validate_jsonl_lines(
    reader: Any, source: Any, table: SessionTable, *, mode: Mode, limits: Limits, file: str | None, progress: Callable[[int], None] | None
) -> ValidationResult:
    result = ValidationResult(files=1)
    header_session: str | None = None  # the session of the last header while its block lasts
    header_line = 0
    current: str | None = None  # the session whose block the last line belongs to
    problems = result.problems
    reported = 0
    integrity = _StreamIntegrity(result.warnings, file)
    for n, part in enumerate(jsonl_parts(reader, mode=mode, limits=limits, errors="yield", file_label=file)):
        if progress is not None and (type(part) is tuple or n % 512 == 0):
            pos = reader.tell()
            progress(pos - reported)
            reported = pos
        if type(part) is tuple:  # a block of consecutive lines, each decoded
            first, envs = part
            result.items += len(envs)
            current, header_session = _check_block(table, envs, first, current, header_session, header_line, file, problems, integrity)
            continue
        rec = part
        if rec.header is not None:
            sid = rec.header.session.id
            late = current == sid and header_session is None
            if current is not None:
                _close(table, current)
            if late:
                problems.append(Problem("", late_header_message(sid, table.block_line), file, rec.line))
                _reopen(table, sid)
            elif table.seen(sid):
                problems.append(_twice_problem(sid, file, rec.line))
                _reopen(table, sid)
            else:
                table.block_line = rec.line
            table.get(sid)  # a header-only session counts too (it may not appear again)
            current, header_session, header_line = sid, sid, rec.line
            problems.extend(p.located(file, rec.line) for p in _header_problems(rec.header.session))
            continue
        if rec.error is not None:
            result.items += 1
            problems.extend(_line_problems(rec.error, file, rec.line, source))
            continue
        env = rec.envelope
        assert env is not None
        result.items += 1
        if env.session_id != current:
            current, header_session = _switch(table, problems, current, env.session_id, header_session, header_line, file, rec.line)
        checker = table.get(env.session_id)
        prev = checker.seq
        if env.seq != (0 if prev is None else prev + 1):
            problems.append(_seq_problem(env.seq, prev, env.session_id, file, rec.line))
        checker.seq = _next_seq(env.seq, prev)
        before = len(checker.seen)
        problems.extend(p.located(file, rec.line) for p in checker.check(env.item, "/item"))
        if len(checker.seen) != before:
            table.grew(len(checker.seen) - before)
        integrity.feed(env.session_id, env.item, rec.line)
    integrity.finish()
    if progress is not None:
        progress(reader.tell() - reported)
    if result.items == 0 and header_session is None and not problems:
        # as store import refuses it: a file truncated to zero by a crash is not a valid empty stream
        problems.append(Problem("", "no envelope and no session header in the file (it is empty or holds only blank lines)", file))
    return result


def _check_block(
    table: SessionTable,
    envs: list[Any],
    first: int,
    current: str | None,
    header_session: str | None,
    header_line: int,
    file: str | None,
    problems: list[Problem],
    integrity: _StreamIntegrity,
) -> tuple[str | None, str | None]:
    """The per-line checks of ``_validate_jsonl_lines`` (session blocks and header session through
    :func:`_switch`, ``seq`` 0, 1, 2, ..., :meth:`_CompactChecker.check`, the integrity rules
    through ``integrity``) over a block of decoded envelopes, in one loop; returns the new
    ``(current, header_session)``.

    An item the fast path proves clean (no duplicate id, a role where one is needed, its call
    known, well-formed arguments, no role in nested content) only updates the session's state
    here; any other item, and every item of a type not listed in ``_KINDS``, goes through
    :meth:`_CompactChecker.check` itself, which reports exactly what it always did. The fast
    path reads before it writes, so an item handed to ``check`` has changed nothing yet.
    """
    kinds = _KINDS
    unset = msgspec.UNSET
    content_kind, tool_call, handoff_call, tool_result, handoff_result = _CONTENT_KIND, _TOOL_CALL, _HANDOFF_CALL, _TOOL_RESULT, _HANDOFF_RESULT
    id_flag, call_flag, handoff_flag = _ID, _CALL, _HANDOFF
    content_types = _CONTENT
    last_sid: str | None = None
    checker: _CompactChecker = _CompactChecker()
    seen: dict[str, int] = checker.seen
    plain = True  # the session's ids are all in a plain dict (not partly in the spill database)
    # the integrity rules, fed here rather than through `integrity.feed` (a call less per item)
    integ = integrity.current
    integ_sid = integrity.sid if integ is not None else None
    scan_feed: Any = None
    findings: list[Any] = []
    if integ is not None:
        scan_feed, findings = integ.scanner.feed, integ.scanner.findings
    for line, env in enumerate(envs, first):
        sid = env.session_id
        item = env.item
        if sid != integ_sid:
            integ = integrity.switch(sid)
            integ_sid = sid
            scan_feed, findings = integ.scanner.feed, integ.scanner.findings
        scan_feed(item, line)
        if len(findings) != integ.done:  # type: ignore[union-attr]
            integ._flush(line)  # type: ignore[union-attr]
        if sid != current:
            current, header_session = _switch(table, problems, current, sid, header_session, header_line, file, line)
            last_sid = None  # _switch may have touched the table: fetch the checker again
        if sid != last_sid:
            checker = table.get(sid)
            seen = checker.seen
            plain = type(seen) is dict
            last_sid = sid
        seq = env.seq
        prev = checker.seq
        if seq != (0 if prev is None else prev + 1):
            problems.append(_seq_problem(seq, prev, sid, file, line))
        checker.seq = seq if prev is None or seq > prev else prev + 1  # `_next_seq` inline
        kind = kinds.get(type(item))
        item_id = getattr(item, "id", unset)
        flags: int | None = None
        if kind is None or not plain:
            clean = False
        elif type(item_id) is str:
            flags = seen.get(item_id)
            clean = flags is None or not flags & id_flag
        else:  # no id; a tool or handoff call always has one (else the general path says what is wrong)
            clean = item_id is unset and kind is not tool_call and kind is not handoff_call
        if clean:
            if kind is content_kind:
                clean = item.role is not unset
            elif kind is tool_call:
                has_args = item.arguments is not unset
                has_raw = item.arguments_raw is not unset
                clean = has_args is not has_raw and (has_raw or item.arguments_error is unset)
            elif kind is tool_result:
                clean = bool(seen.get(item.call_id, 0) & call_flag) and not any(isinstance(sub, content_types) and sub.role is not unset for sub in item.content)
            elif kind is handoff_result:
                clean = bool(seen.get(item.call_id, 0) & handoff_flag) and not any(isinstance(sub, content_types) and sub.role is not unset for sub in item.content)
        if clean:
            if item_id is unset:
                continue
            # a tool or handoff call's id is its call id: the same key
            seen[item_id] = (flags or 0) | (id_flag | call_flag if kind is tool_call else id_flag | handoff_flag if kind is handoff_call else id_flag)
            if flags is None:
                table.grew(1)
                seen = checker.seen  # a spill may have moved this session's older ids to the database
                plain = type(seen) is dict
            continue
        before = len(seen)
        found = checker.check(item, "/item")
        if found:
            problems.extend(p.located(file, line) for p in found)
        grown = len(seen) - before
        if grown:
            table.grew(grown)
            seen = checker.seen
            plain = type(seen) is dict
    return current, header_session


# The session-file rules `store import` applies (interlingua.session_file.iter_session_parts), with
# its messages: one contract for both commands (tests/test_hostile_contract.py runs the same inputs
# through both). A session's lines are one contiguous block, its seqs run 0, 1, 2, ...; a header
# starts a block, and envelopes of another session after a header's own envelopes start a new,
# header-less block.


def _seq_problem(seq: int, prev: int | None, sid: str, file: str | None, line: int) -> Problem:
    n = 0 if prev is None else prev + 1
    other = f"; a second conversation of session {sid!r}? each session needs its own id" if seq == 0 and n else ""
    return Problem("/seq", f"expected seq {n} in session {sid!r} (seqs run 0, 1, 2, ...), got {seq}{other}", file, line)


def _next_seq(seq: int, prev: int | None) -> int:
    """The seq the next line follows: a line with a seq not above the last takes the slot it should
    have had (a repeated line is one problem, not one per later line); a gap goes on from the new seq."""
    return seq if prev is None or seq > prev else prev + 1


def _twice_problem(sid: str, file: str | None, line: int) -> Problem:
    return Problem("", f"session {sid!r} appears twice in the file (a session's lines must be contiguous)", file, line)


def _close(table: SessionTable, sid: str) -> None:
    """Mark ``sid``'s block as ended, in its ``seq``: ``-1`` (no envelope) or ``-(last seq) - 2``."""
    checker = table.get(sid)
    if checker.seq is None:
        checker.seq = -1
    elif checker.seq >= 0:
        checker.seq = -checker.seq - 2


def _switch(
    table: SessionTable, problems: list[Problem], current: str | None, sid: str, header_session: str | None, header_line: int, file: str | None, line: int
) -> tuple[str | None, str | None]:
    """An envelope of ``sid`` after a line of ``current``: close ``current``'s block, check ``sid``'s
    block is new (or the header's), and return the new (current, header_session)."""
    if header_session is not None and current == header_session and table.get(current).seq is None:
        # the header's block has no envelope yet: this one must be the header's session
        problems.append(Problem("/session_id", f"session_id {sid!r} differs from the header's session {header_session!r} (line {header_line})", file, line))
        return current, header_session
    if current is not None:
        _close(table, current)
    if table.seen(sid):
        problems.append(_twice_problem(sid, file, line))
        _reopen(table, sid)
    table.block_line = line
    return sid, None


def _reopen(table: SessionTable, sid: str) -> None:
    """A session's block met again: its seqs go on being checked from where they were."""
    checker = table.get(sid)
    if checker.seq is not None and checker.seq < 0:
        checker.seq = None if checker.seq == -1 else -checker.seq - 2


def _header_problems(record: Any) -> list[Problem]:
    """The header checks ``store import`` makes beyond the schema (``change_no`` unique in a session)."""
    try:
        check_header(record)
    except DocumentError as exc:
        return exc.problems
    return []


def _line_problems(error: DocumentError, file: str | None, line: int, source: Any) -> list[Problem]:
    # Re-read the one failing line for a detailed explanation only when it is small.
    if any(p.message.startswith(("last line is truncated", "line is longer")) for p in error.problems):
        return error.problems
    raw = _read_line(source, line)
    if raw is None or len(raw) > 1 << 20:
        return error.problems
    return _explain_failures(raw, DocumentError([Problem(p.pointer, p.message) for p in error.problems]), "envelope", file, line)


def _read_line(source: Any, line: int) -> bytes | None:
    if not isinstance(source, (str, os.PathLike)):
        return None
    try:
        with open(source, "rb") as fh:
            for n, raw in enumerate(fh, 1):
                if n == line:
                    return raw.strip()
    except OSError:
        return None
    return None


def _looks_like_jsonl(data: bytes) -> bool:
    try:
        doc = msgspec.json.decode(data)
    except msgspec.DecodeError:
        return len([ln for ln in data.splitlines() if ln.strip()]) > 1
    except RecursionError:
        return False
    return isinstance(doc, dict) and (("session_id" in doc and "item" in doc) or ("session" in doc and "items" not in doc))


