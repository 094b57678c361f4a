"""``interlingua migrate`` for agent logs and tree-shaped conversations.

A Claude Code session file or a Codex rollout is one conversation of hundreds of MB: it is read by the
compat readers' bounded path (:class:`~interlingua.compat._logs.LogConversation`) and written item by
item. A conversation with abandoned branches (:class:`~interlingua.compat.Fork`) is written as its
session and one session per branch:

* ``-o``: the branch's session has the header fields ``parent_id`` (the session) and ``fork_seq`` (the
  last seq it shares), and holds the shared items ``0..fork_seq`` then its own, as ``store export``
  writes a fork;
* ``--store``: the session is added, then each branch is :meth:`SessionStore.fork` of it at
  ``fork_seq`` under the id ``<session id>@<branch key>``, and its own items appended.

Memory: ``-o`` spools encoded items to temporary files (flat however long the log); ``--store`` holds
one conversation's canonical items at a time (the store adds a session in one transaction).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import msgspec

from ..codec import SCHEMA_VERSION, check_item_limits
from ..compat import Migrated
from ..compat._logs import LineSource, LogConversation, open_lines
from ..errors import MappingError
from ..items import Transcript
from ..session_rules import session_id_problem
from .stores import fork_id

__all__ = ["LOG_FORMATS", "log_format", "open_log", "write_format", "write_jsonl", "write_store"]

LOG_FORMATS = ("claude-code", "codex")
"""Formats read from a file in bounded memory, one conversation per file."""

_SUFFIXES = (".jsonl", ".ndjson", ".jsonl.zst", ".ndjson.zst")
_encode = msgspec.json.Encoder(enc_hook=lambda obj: msgspec.Raw(obj.raw)).encode
_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder()


def is_log_name(path: Path) -> bool:
    """Whether ``path`` has a JSON Lines name (compressed or not)."""
    return path.name.lower().endswith(_SUFFIXES)


def log_format(path: Path, fmt: str) -> str | None:
    """The log format of ``path``: ``fmt`` when it names one, else detected from its first lines
    (``None``: not a log, read it as before).

    Raises:
        OSError: the file cannot be read.
    """
    if fmt in LOG_FORMATS:
        return fmt
    if fmt != "auto" or not is_log_name(path):
        return None
    from ..compat import _claude_code, _codex

    try:
        fh, close = open_lines(path)
    except MappingError:
        return None
    try:
        first = None
        for n, raw in enumerate(fh):
            if n >= 20:
                break
            if not raw.strip():
                continue
            try:
                value = _decoder.decode(raw)
            except (msgspec.DecodeError, RecursionError):
                return None
            if first is None:
                first = value
                if _codex.looks_like(value):
                    return "codex"
            if _claude_code.looks_like(value):
                return "claude-code"
    finally:
        close()
    return None


def open_log(path: Path, fmt: str) -> tuple[LogConversation, Any]:
    """Index ``path`` as format ``fmt``; returns the conversation and a close function.

    Raises:
        MappingError: the file is not of that format (the message names file and line).
        OSError: the file cannot be read.
    """
    from ..compat import _claude_code, _codex

    fh, close = open_lines(path)
    try:
        source = LineSource(fh, str(path))
        reader = _claude_code if fmt == "claude-code" else _codex
        return reader.conversation(source), close
    except BaseException:
        close()
        raise


def _session_id(conv: LogConversation, digest: Any, ids: Any) -> str:
    source = conv.session_id
    if source is not None and source not in ids.sources and len(source) <= 100 and session_id_problem(source) is None:
        ids.sources.add(source)
        return source
    sid = ids.assign_hashed(digest)
    if source is not None:
        conv.report.add("changed", f"session id {source!r} appears again in this input, or is not one the store or validate accepts (too long, control characters); this copy is session {sid!r}")
    return sid


def _spool(items: Iterator[Any], spool: IO[bytes], digest: Any, start: int = 0) -> tuple[int, int]:
    count = longest = 0
    for item in items:
        enc = _encode(item)
        check_item_limits(item, enc, pointer=f"/items/{start + count}")  # nothing written that validate refuses
        spool.write(enc + b"\n")
        if digest is not None:
            digest.update(enc)
        count += 1
        longest = max(longest, len(enc))
    return count, longest


def _shell(conv: LogConversation) -> Transcript:
    if conv.shell is not None:
        return conv.shell
    return Transcript(schema_version=SCHEMA_VERSION, items=[], metadata=conv.metadata or msgspec.UNSET)


def write_jsonl(sink: Any, conv: LogConversation, ids: Any) -> tuple[int, int, int]:
    """Write ``conv`` and its branches as sessions of the session file of ``sink`` (a ``_JsonlSink``).
    Every session is spooled and checked before any is written. Returns ``(sessions, forks, items)``:
    one session, the number of its forks written, the items of all of them.

    Raises:
        MappingError, LimitError: the conversation (or a branch) is refused; nothing written.
    """
    tmpdir = os.path.dirname(sink.file.tmp) or None if sink.file.tmp else None
    digest = hashlib.sha256()
    spools: list[tuple[str, IO[bytes], int, int, dict[str, Any] | None]] = []
    try:
        main = tempfile.TemporaryFile(dir=tmpdir)
        count, longest = _spool(conv.items(), main, digest)
        if count == 0:
            main.close()
            raise MappingError(f"{conv.format}: no conversation item in this file")
        sid = _session_id(conv, digest, ids)
        spools.append((sid, main, count, longest, None))
        for key, at, own in conv.forks():
            fork = tempfile.TemporaryFile(dir=tmpdir)
            spools.append((fork_id(sid, key), fork, 0, 0, None))
            main.seek(0)
            shared = 0
            for _ in range(at + 1):
                fork.write(main.readline())
                shared += 1
            n, size = _spool(own, fork, None, start=shared)
            if n == 0:  # its only items were dropped (results of calls not in the file)
                spools.pop()
                fork.close()
                conv.report.add("dropped", f"{conv.format}: branch {key!r} has no item left of its own; no fork written")
                continue
            spools[-1] = (fork_id(sid, key), fork, shared + n, max(longest, size), {"parent_id": sid, "fork_seq": at})
        shell = _shell(conv)
        for session_id, spool, n, size, extra in spools:
            spool.seek(0)
            sink.write_spooled(session_id, shell, spool, n, size, extra=extra)
        return 1, len(spools) - 1, sum(s[2] for s in spools)
    finally:
        for s in spools:
            s[1].close()


def write_store(sink: Any, conv: LogConversation, ids: Any) -> tuple[int, int, int, bool]:
    """Add ``conv`` to the store of ``sink`` (a ``_StoreSink``), then fork it once per branch.
    Returns ``(sessions written (0 or 1), forks written, items, created)``; a session or fork already
    there is left alone (counted by the sink as present).

    Raises:
        InterlinguaError: the store refused the conversation or a branch.
    """
    sink.flush_pending()
    items = list(conv.items())
    if not items:
        raise MappingError(f"{conv.format}: no conversation item in this file")
    digest = hashlib.sha256()
    for item in items:
        digest.update(_encode(item))
    sid = _session_id(conv, digest, ids)
    shell = _shell(conv)
    migrated = Migrated(msgspec.structs.replace(shell, items=items), conv.report, conv.format)
    created = sink.add_now(migrated, sid)
    forks, total = 0, len(items) if created else 0
    for key, at, own in conv.forks():
        own_items = list(own)
        if not own_items:
            conv.report.add("dropped", f"{conv.format}: branch {key!r} has no item left of its own; no fork written")
            continue
        if sink.fork_now(sid, at, fork_id(sid, key), own_items):
            forks += 1
            total += at + 1 + len(own_items)
    return int(created), forks, total, created


def write_format(sink: Any, conv: LogConversation) -> tuple[int, int, int]:
    """``--to NAME``: write ``conv`` as one line of format ``NAME`` (``sink.format``, a
    :class:`~.stores.FormatSink`), then each abandoned branch as a line of its own (the shared
    items, then its own), as the session file holds a fork. Every line is made before any is written, so
    a refused branch writes nothing of the conversation. The conversation is read whole (a line of the
    format is one JSON value). Returns ``(sessions, forks, items)``.

    Raises:
        MappingError: no conversation item in the file.
        ConversionError: under policy ``error``, an item the format has no form for.
    """
    from .stores import fork_transcripts

    migrated = conv.materialize()
    if conv.shell is not None:  # tools, settings, stop reason of a conversation read whole
        migrated.transcript = msgspec.structs.replace(conv.shell, items=migrated.transcript.items)
    if not migrated.transcript.items:
        raise MappingError(f"{conv.format}: no conversation item in this file")
    transcripts = [migrated.transcript] + [t for _fid, t, _extra in fork_transcripts(migrated, conv.session_id or "log")]
    lines = []
    for transcript in transcripts:
        written = sink.format.convert(transcript)
        conv.report.extend(written.report)
        lines.append(_encoder.encode(written.value) + b"\n")
    for line in lines:
        sink.fh.write(line)
    return 1, len(transcripts) - 1, sum(len(t.items) for t in transcripts)
