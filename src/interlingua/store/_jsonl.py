"""JSON Lines files of one session: the optional session header line and strict reading.

Format (see ``docs/store.md``)::

    {"schema_version": "1.0", "session": {"id", "created_at", "metadata", "tools", "tool_choice", "changes", ...}}   optional
    {"schema_version": "1.0", "session_id": "...", "seq": 0, "item": {...}, ...}                                    one envelope a line
"""

from __future__ import annotations

import os
from typing import IO, Any

import msgspec

from ..codec import SCHEMA_VERSION, check_version, decode_envelope
from ..errors import DocumentError, Problem
from ..items import Envelope
from ._types import SessionChange, SessionInfo

__all__ = ["header_line", "read_jsonl"]


def header_line(info: SessionInfo, changes: list[SessionChange]) -> bytes:
    """The session header record (without newline)."""
    session: dict[str, Any] = {"id": info.id, "created_at": info.created_at}
    for k in ("metadata", "tools", "tool_choice", "parent_id", "fork_seq"):
        v = getattr(info, k)
        if v is not None:
            session[k] = v
    if changes:
        session["changes"] = [
            {"change_no": c.change_no, "effective_seq": c.effective_seq, "created_at": c.created_at, **c.changed} for c in changes
        ]
    return msgspec.json.encode({"schema_version": SCHEMA_VERSION, "session": session})


class _Header(msgspec.Struct, forbid_unknown_fields=True):
    schema_version: str
    session: dict[str, Any]


class _Change(msgspec.Struct):
    change_no: int
    effective_seq: int
    created_at: str | msgspec.UnsetType = msgspec.UNSET


class _SessionShape(msgspec.Struct):
    """Shape check of the header's session object (values are validated on import)."""

    id: str | msgspec.UnsetType = msgspec.UNSET
    metadata: dict[str, Any] | None = None
    tools: list[Any] | None = None
    changes: list[_Change] | msgspec.UnsetType = msgspec.UNSET


def read_jsonl(source: str | os.PathLike[str] | IO[bytes], label: str | None) -> tuple[dict[str, Any], list[Envelope], list[int]]:
    """Read and check a whole file: the header (if any) and envelopes with seqs 0..n-1 of one session.

    Returns:
        The header's session object (``{}`` without a header; ``"_line"`` holds its line
        number), the envelopes, and the line number of each envelope.

    Raises:
        DocumentError: with file and line of the first problem.
    """
    owned = isinstance(source, (str, os.PathLike))
    try:
        fh: IO[bytes] = open(source, "rb") if isinstance(source, (str, os.PathLike)) else source  # noqa: SIM115
    except OSError as exc:
        raise DocumentError(Problem("", f"cannot read: {exc.strerror or exc}", label)) from exc
    sess: dict[str, Any] = {}
    envs: list[Envelope] = []
    line_nos: list[int] = []
    session_ids: set[str] = set()
    try:
        for line_no, line in enumerate(fh, 1):
            stripped = line.strip()
            if not stripped:
                continue
            try:
                if not envs and not sess and b'"session"' in stripped[:4096] and b'"item"' not in stripped:
                    try:
                        hdr = msgspec.json.decode(stripped, type=_Header)
                    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
                        raise DocumentError(Problem("", f"invalid session header: {exc}")) from exc
                    check_version(hdr.schema_version)
                    try:
                        msgspec.convert(hdr.session, _SessionShape)
                    except msgspec.ValidationError as exc:
                        raise DocumentError(Problem("/session", f"invalid session header: {exc}")) from exc
                    sess = hdr.session or {"_": None}
                    sess["_line"] = line_no
                    continue
                env = decode_envelope(stripped)
                if env.seq != len(envs):
                    raise DocumentError(Problem("/seq", f"expected seq {len(envs)} (seqs must run 0, 1, 2, ... in order), got {env.seq}"))
                session_ids.add(env.session_id)
                if len(session_ids) > 1:
                    raise DocumentError(Problem("/session_id", f"more than one session in the file ({', '.join(sorted(session_ids))})"))
            except DocumentError as exc:
                if not line.endswith(b"\n"):
                    exc = DocumentError([Problem(p.pointer, f"last line is truncated (no newline): {p.message}") for p in exc.problems])
                raise exc.located(file=label, line=line_no) from exc
            envs.append(env)
            line_nos.append(line_no)
    finally:
        if owned:
            fh.close()
    sess.pop("_", None)
    return sess, envs, line_nos

