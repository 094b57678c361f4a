"""Repair over a whole session file: every session rewritten, envelopes renumbered, reported per session."""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, Any

import msgspec

from ..codec import SCHEMA_VERSION, encode_envelope
from ..items import Envelope
from ..mapping.report import Policy, Report
from ._integrity import repair_items

__all__ = ["SessionRepair", "iter_repaired_sessions", "repair_session_file"]


@dataclass
class SessionRepair:
    """What :func:`repair_session_file` did to one session.

    Attributes:
        session_id: The session.
        items_in: Its items before.
        items_out: Its items after.
        report: Every change, with the session's item indices (seq before the repair).
    """

    session_id: str
    items_in: int
    items_out: int
    report: Report = field(default_factory=Report)


def _header_line(block: Any) -> bytes:
    from ..items import SessionHeader

    return msgspec.json.encode(SessionHeader(schema_version=SCHEMA_VERSION, session=block.header)) + b"\n"


def repair_session_file(
    source: str | os.PathLike[str] | IO[bytes] | bytes, *, policy: Policy = "degrade", open_end: bool = False, label: str | None = None
) -> tuple[bytes, list[SessionRepair]]:
    """Repair every session of a session file (see :func:`interlingua.history.repair`).

    A session's header is kept as it is; its envelopes are renumbered ``0, 1, 2, ...``; an item kept
    keeps its envelope's ``created_at``, usage, stop reason and response metadata; a stub result gets
    none.

    Args:
        source: A path, a binary file, or the file's content.
        policy: ``drop`` or ``degrade`` (``error`` raises on the first session with a finding).
        open_end: Keep calls still awaiting their results at a session's end.
        label: Name for error locations.

    Returns:
        ``(content, repairs)``: the repaired file's bytes and one :class:`SessionRepair` per session.

    Raises:
        DocumentError: the file is not a readable session file (file and line given).
        IntegrityError: under ``error``, a session breaks the rules.
    """
    reader: Any = io.BytesIO(source) if isinstance(source, bytes) else source
    out = io.BytesIO()
    repairs: list[SessionRepair] = []
    for lines, repaired in iter_repaired_sessions(reader, policy=policy, open_end=open_end, label=label):
        out.write(lines)
        repairs.append(repaired)
    return out.getvalue(), repairs


def iter_repaired_sessions(
    source: str | os.PathLike[str] | IO[bytes], *, policy: Policy = "degrade", open_end: bool = False, label: str | None = None
) -> Iterator[tuple[bytes, SessionRepair]]:
    """:func:`repair_session_file` one session at a time, for files of any size.

    The file is read a session at a time (memory bounded by its largest session, as ``interlingua
    validate`` reads it) and each session's repaired lines are yielded as soon as it is read.
    A problem further on in the file raises only when it is reached: a caller that must not leave
    a half-written result writes to a temporary file and renames it into place at the end (as
    ``interlingua repair`` does).

    Args:
        source: A path or a binary file object.
        policy, open_end, label: As :func:`repair_session_file`.

    Yields:
        ``(lines, repair)``: the session's repaired lines (header first, each ending in ``\n``)
        and its :class:`SessionRepair`, in file order.

    Raises:
        DocumentError: the file is not a readable session file (file and line given).
        IntegrityError: under ``error``, a session breaks the rules.
    """
    from ..session_file import read_sessions

    for block in read_sessions(source, label=label, semantic=False):
        repairs: list[SessionRepair] = []
        lines = b"".join(_repaired_block(block, policy, open_end, repairs))
        yield lines, repairs[0]


def _repaired_block(block: Any, policy: Policy, open_end: bool, repairs: list[SessionRepair]) -> Iterator[bytes]:
    envs = block.envelopes
    items = [e.item for e in envs]
    report = Report()
    new, origin, report = repair_items(items, policy=policy, open_end=open_end, report=report)
    repairs.append(SessionRepair(block.session_id, len(items), len(new), report))
    if block.header is not None:
        yield _header_line(block)
    used: set[int] = set()
    for seq, (item, o) in enumerate(zip(new, origin, strict=True)):
        src = envs[o]
        if item is items[o] and o not in used:
            used.add(o)
            env = msgspec.structs.replace(src, seq=seq)
        else:
            env = Envelope(schema_version=src.schema_version, session_id=block.session_id, seq=seq, item=item, created_at=src.created_at)
            if item is not items[o] and getattr(item, "__struct_config__", None) is getattr(items[o], "__struct_config__", None):
                # the same item changed (a renamed call id): its response's fields stay with it
                env = msgspec.structs.replace(env, usage=src.usage, stop_reason=src.stop_reason, response=src.response)
                used.add(o)
        yield encode_envelope(env) + b"\n"
    # Usage on an item left out goes with it: it described a history that no longer exists (the
    # report names the item).
