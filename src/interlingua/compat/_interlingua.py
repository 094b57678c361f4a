"""interlingua's own formats at any supported schema version.

* A transcript document ``{"schema_version", "items", ...}``: brought to the current major
  through the upcaster chain (:mod:`._upcast`), then decoded in preserving mode (unknown
  item types of a newer minor are kept, never coerced).
* A list of JSON Lines envelopes of one session (``{"schema_version", "session_id", "seq",
  "item", ...}``), optionally led by a session export's header line (``{"schema_version",
  "session": {id, metadata, tools, tool_choice, changes}}``): each upcast and decoded; the
  items in ``seq`` order form the transcript, the header gives its metadata, tools and tool
  choice (the history of their changes is reported as not carried), and the session keeps its id. Per-response ``usage``/``stop_reason`` on envelopes have no
  place on a transcript; they are reported as dropped.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from ..codec import SCHEMA_VERSION, UnknownItem, decode_envelope, decode_session_header, decode_transcript
from ..errors import DocumentError, Problem
from ..items import Transcript
from ..mapping import Report
from ._base import Migrated
from ._upcast import upcast

__all__ = ["FORMAT", "read"]


def _version_key(version: str) -> tuple[int, ...]:
    try:
        return tuple(int(x) for x in version.split("."))
    except ValueError:
        return ()

FORMAT = "interlingua"


def _report_steps(report: Report, steps: list[str], where: str) -> None:
    for step in steps:
        report.add("changed", f"{where} upcast from schema_version {step}")


def _report_newer_minor(report: Report, version: Any, items: list[Any], where: str) -> None:
    """A newer minor version is read as this reader's: say what is written and what is kept."""
    if not isinstance(version, str) or version == SCHEMA_VERSION:
        return
    try:
        major, minor = (int(x) for x in version.split("."))
        cur_major, cur_minor = (int(x) for x in SCHEMA_VERSION.split("."))
    except ValueError:
        return
    if major != cur_major or minor <= cur_minor:
        return
    unknown = sorted({str(i.type) for i in items if isinstance(i, UnknownItem)})
    kept = f"; the item(s) of types this reader does not know ({', '.join(unknown)}) are kept unchanged" if unknown else ""
    report.add("changed", f"{where} of schema_version {version} (a newer minor) written as {SCHEMA_VERSION}, this reader's version{kept}")


def read(obj: Any) -> Migrated:
    """A transcript document, or a list of envelopes of one session -> :class:`Migrated`.

    Raises:
        VersionError: newer major, or an older version no upcaster reads.
        DocumentError: not a valid document or envelope after upcasting.
    """
    report = Report()
    if isinstance(obj, Mapping):
        doc, steps = upcast(dict(obj), "document")
        _report_steps(report, steps, "document")
        transcript = decode_transcript(msgspec.json.encode(doc))
        _report_newer_minor(report, doc.get("schema_version"), transcript.items, "document")
        return Migrated(transcript, report, FORMAT)
    if not isinstance(obj, list) or not obj:
        raise DocumentError(Problem("", "expected a transcript document or a non-empty list of envelopes"))
    header = None
    if isinstance(obj[0], Mapping) and isinstance(obj[0].get("session"), Mapping) and "item" not in obj[0]:
        # A session export's header line: the session's id, metadata, tools and tool choice.
        head, steps = upcast(dict(obj[0]), "header")
        _report_steps(report, steps, "session header")
        header = decode_session_header(msgspec.json.encode(head))
        obj = obj[1:]
        if header.session.changes is not msgspec.UNSET and len(header.session.changes) > 1:
            report.add("dropped", "the session's history of metadata/tool changes is not carried; its current settings are")
    envelopes = []
    for i, raw in enumerate(obj, start=1 if header is not None else 0):
        if not isinstance(raw, Mapping):
            raise DocumentError(Problem(f"/{i}", "envelope is not a JSON object"))
        env_obj, steps = upcast(dict(raw), "envelope")
        _report_steps(report, steps, f"envelope {i}")
        try:
            env = decode_envelope(msgspec.json.encode(env_obj))
        except DocumentError as exc:
            raise DocumentError([Problem(f"/{i}{p.pointer}", p.message) for p in exc.problems]) from exc
        envelopes.append(env)
        if i == (1 if header is not None else 0):
            newest = env_obj.get("schema_version")
        elif isinstance(env_obj.get("schema_version"), str) and env_obj["schema_version"] != newest:
            newest = max(newest, env_obj["schema_version"], key=_version_key) if isinstance(newest, str) else env_obj["schema_version"]
    sessions = {e.session_id for e in envelopes} | ({header.session.id} if header is not None else set())
    if len(sessions) != 1:
        raise DocumentError(Problem("", f"envelopes of {len(sessions)} sessions in one record"))
    envelopes.sort(key=lambda e: e.seq)
    if envelopes:
        _report_newer_minor(report, newest, [e.item for e in envelopes], "envelopes")
    for e in envelopes:
        if e.usage is not msgspec.UNSET or e.stop_reason is not msgspec.UNSET:
            report.add("dropped", "envelope usage/stop_reason has no place on a transcript", index=e.seq)
    session = header.session if header is not None else None
    transcript = Transcript(
        schema_version=SCHEMA_VERSION,
        items=[e.item for e in envelopes],
        tools=session.tools if session is not None else msgspec.UNSET,
        tool_choice=session.tool_choice if session is not None else msgspec.UNSET,
        metadata=session.metadata if session is not None else msgspec.UNSET,
    )
    return Migrated(transcript, report, FORMAT, source_session_id=next(iter(sessions)))
