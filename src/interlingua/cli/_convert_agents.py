"""``interlingua convert --from NAME`` for the agent-log and agent-framework formats (issue 26).

``migrate --from`` has read these all along; ``convert`` reads one conversation of them and writes it as
any target (a provider body, canonical, a framework history):

* ``claude-code``, ``codex``: a session file (JSON Lines, ``.jsonl.zst`` too; or stdin), read in bounded
  memory by the compat readers. A Claude Code session's abandoned branches (rewinds, retries, sidechains)
  are not written: the active branch is the conversation, and a report entry names how many branches were
  left out and that ``interlingua migrate`` keeps them (as forks);
* ``adk``: a Session, an eval case, or an eval set of one case (an eval set of several cases is several
  conversations: exit 2, pointing to ``migrate``);
* ``mcp-sampling``: a ``sampling/createMessage`` request, result, or a list of them (one exchange).

None of them has a writer: ``--to`` with one of these names is a usage error.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
import msgspec

from ..compat import Migrated, read
from ..items import Transcript
from ..mapping import Report

__all__ = ["AGENT_FORMATS", "LOG_FORMATS", "read_agent_input"]

LOG_FORMATS = ("claude-code", "codex")
"""Formats whose input is a JSON Lines log file, read in bounded memory."""

AGENT_FORMATS = (*LOG_FORMATS, "adk", "mcp-sampling")
"""The agent-log and agent-framework formats ``convert --from`` takes."""


class SeveralConversations(Exception):
    """The input holds more than one conversation: ``convert`` reads one (exit 2)."""


def read_agent_input(fmt: str, source: str, data: bytes | None, report: Report) -> Transcript:
    """The one conversation of ``source`` (a path, or ``-`` with ``data`` the bytes of stdin) read as
    ``fmt`` (a name of :data:`AGENT_FORMATS`); the reader's report entries join ``report``.

    Raises:
        SeveralConversations: an ADK eval set of several eval cases (the message names ``migrate``).
        MappingError: the input is not of that format (file and line named for logs).
        OSError: the file cannot be read.
        msgspec.DecodeError: a JSON input (``adk``, ``mcp-sampling``) that is not JSON.
    """
    name = "FILE" if source == "-" else source
    export = _web_export(source, data) if fmt == "claude-code" else None
    if export is not None:  # a Claude Code on the web session export: one JSON object, not a log
        migrated = read(export, fmt)
    elif fmt in LOG_FORMATS:
        migrated = _read_log(fmt, source, data)
    else:
        value = msgspec.json.decode(data if data is not None else Path(source).read_bytes())
        if fmt == "adk":
            from ..compat import _adk

            cases = _adk.split(value)
            if cases is not None and len(cases) != 1:
                raise SeveralConversations(
                    f"an ADK eval set of {len(cases)} eval cases is {len(cases)} conversations: convert reads one; "
                    f"use `interlingua migrate {name} --from adk -o OUT.jsonl` for all"
                )
        migrated = read(value, fmt)
    report.extend(migrated.report)
    if migrated.forks:
        report.add(
            "dropped",
            f"{fmt}: {len(migrated.forks)} abandoned branch(es) (rewinds, retries, edits, sidechains) not written: convert writes "
            f"the active branch; `interlingua migrate {name} -o OUT.jsonl` keeps each as a fork of the session",
        )
    return migrated.transcript


def _read_log(fmt: str, source: str, data: bytes | None) -> Migrated:
    from .._migrate import logs as _migrate_logs

    if data is None:
        conv, close = _migrate_logs.open_log(Path(source), fmt)
        try:
            return conv.materialize()
        finally:
            close()
    # stdin: spooled to a temporary file, read as a file is (bounded memory, the same messages)
    fd, tmp = tempfile.mkstemp(suffix=".jsonl")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        conv, close = _migrate_logs.open_log(Path(tmp), fmt)
        try:
            return conv.materialize()
        finally:
            close()
    finally:
        os.unlink(tmp)


_EXPORT_LIMIT = 256 << 20
"""A JSON object file larger than this is not tried as a web export (a log is read line by line instead)."""


def _web_export(source: str, data: bytes | None) -> dict[str, object] | None:
    """The parsed Claude Code on the web export in ``source`` (or ``data``), or ``None``: not one JSON
    object holding a page of session events (a session log, read line by line)."""
    from ..compat._claude_code import is_web_export

    if data is None:
        path = Path(source)
        with open(path, "rb") as fh:
            head = fh.read(64).lstrip()
        if not head.startswith(b"{") or path.stat().st_size > _EXPORT_LIMIT:
            return None
        data = path.read_bytes()
    elif not data.lstrip().startswith(b"{"):
        return None
    try:
        value = msgspec.json.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None  # several lines (a log), or not JSON: the log reader says where
    return value if is_web_export(value) else None
