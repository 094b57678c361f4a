"""``migrate -o`` of one long session of a session file, in bounded memory (issue 32).

A session file's session was gathered as a list of envelope dicts and read whole
(:func:`interlingua.compat._interlingua.read`): at 100,000 items a 15 MB file peaked at 165 MB, and a
1 GB session past 6 GB. Past :data:`STREAM_ENVELOPES` envelopes, :func:`interlingua._migrate.records._lines`
keeps only where the session's lines are in the file (:class:`Span`), and :func:`migrate_span` reads
them again one at a time: each envelope is decoded and checked, its item written to a spool file (one
compact item a line), and the session written from the spool
(:meth:`~interlingua._migrate.file_sinks._JsonlSink.write_spooled`): the bytes and the report the whole read
gives. Anything that reader would treat another way -- an envelope of another schema version (upcast,
or a newer minor), seqs out of order, another session's id, an item over the limits, a session id used
before in this run -- returns ``None``, and the caller reads the lines whole, as before.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from ..codec import SCHEMA_VERSION, UnknownItem, check_item_limits, decode_envelope, decode_session_header
from ..errors import DocumentError, LimitError
from ..items import Transcript
from ..mapping.report import Report

__all__ = ["STREAM_ENVELOPES", "Span", "migrate_span", "read_span"]

STREAM_ENVELOPES = 5_000
"""Envelopes of one session held as dicts before the session is read again from the file instead."""

_decoder = msgspec.json.Decoder()


@dataclass(frozen=True)
class Span:
    """Where a session's lines are: ``path``, bytes ``start`` to ``end``."""

    path: Path
    start: int
    end: int


def _lines(span: Span) -> Any:
    with open(span.path, "rb") as fh:
        fh.seek(span.start)
        pos = span.start
        while pos < span.end:
            raw = fh.readline()
            if not raw:
                return
            pos += len(raw)
            if raw.strip():
                yield raw.strip()


def read_span(span: Span) -> list[Any]:
    """The span's records as parsed JSON values (what the whole path reads)."""
    return [_decoder.decode(raw) for raw in _lines(span)]


def migrate_span(span: Span, sink: Any, ids: Any, encode: Any, spool_dir: str | None) -> tuple[str, int, Report] | None:
    """Write the session in ``span`` to ``sink`` (a ``_JsonlSink``) as the whole read writes it.

    ``ids`` is the run's ``_SessionIds``; ``encode`` the compact item encoder. Returns the session
    id, the number of items and the report, or ``None`` when the lines must be read whole (nothing
    is written then).
    """
    from ..compat._interlingua import _report_steps
    from ..compat._upcast import upcast
    from ..conversion import check_limits
    from ..validation import ItemChecker

    checker = ItemChecker()  # a session validate rejects is left to the whole read, which rejects it
    report = Report()
    header = None
    sid: str | None = None
    count = longest = 0
    first = True
    index = 0
    with tempfile.TemporaryFile(dir=spool_dir) as spool:
        batch: list[bytes] = []

        def flush() -> None:
            if batch:
                spool.write(b"\n".join(batch) + b"\n")
                batch.clear()

        try:
            for raw in _lines(span):
                obj = _decoder.decode(raw)
                if not isinstance(obj, dict):
                    return None
                if first and isinstance(obj.get("session"), dict) and "item" not in obj:
                    head, steps = upcast(dict(obj), "header")
                    _report_steps(report, steps, "session header")
                    header = decode_session_header(msgspec.json.encode(head))
                    if header.session.changes is not msgspec.UNSET and len(header.session.changes) > 1:
                        report.add("dropped", "the session's history of metadata/tool changes is not carried; its current settings are")
                    first = False
                    index = 1
                    continue
                first = False
                if obj.get("schema_version") != SCHEMA_VERSION:
                    return None  # upcast, or a newer minor: the whole read reports it
                env = decode_envelope(raw)
                if env.seq != count or (sid is not None and env.session_id != sid) or (header is not None and env.session_id != header.session.id):
                    return None
                sid = env.session_id
                if env.usage is not msgspec.UNSET or env.stop_reason is not msgspec.UNSET:
                    report.add("dropped", "envelope usage/stop_reason has no place on a transcript", index=env.seq)
                item = env.item
                if type(item) is UnknownItem:  # as the whole path holds it: re-encoded from the parsed value
                    item = UnknownItem(msgspec.json.encode(obj["item"]), item.type)
                check_limits((item,))  # as the whole path checks what a reader gives
                if checker.check(item, f"/items/{count}"):
                    return None
                encoded = encode(item)
                check_item_limits(item, encoded, pointer=f"/items/{count}")
                longest = max(longest, len(encoded))
                batch.append(encoded)
                if len(batch) >= 4096:
                    flush()
                count += 1
                index += 1
            flush()
        except (DocumentError, LimitError, msgspec.DecodeError, RecursionError):
            return None
        if sid is None or sid in ids.sources:
            return None  # no envelope, or an id used before: the whole read decides (a content id)
        session = header.session if header is not None else None
        shell = Transcript(
            schema_version=SCHEMA_VERSION, items=[],
            tools=session.tools if session is not None else msgspec.UNSET,
            tool_choice=session.tool_choice if session is not None else msgspec.UNSET,
            metadata=session.metadata if session is not None else msgspec.UNSET,
        )
        try:
            sink.write_spooled(sid, shell, spool, count, longest)
        except LimitError:
            return None
        ids.sources.add(sid)
    return sid, count, report


def spool_dir(sink: Any) -> str | None:
    """The folder of the sink's temporary output (spools go beside it, on the same disk)."""
    tmp = getattr(sink.file, "tmp", None)
    return os.path.dirname(tmp) if tmp else None
