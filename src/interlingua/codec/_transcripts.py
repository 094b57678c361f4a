"""Transcript documents: decode, read from a file, encode."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import msgspec

from ..errors import DocumentError, LimitError, Problem, VersionError
from ..items import ResponseInfo, ResponseRecord, StopReason, Settings, ToolChoice, ToolDefinition, Transcript, Usage
from ._model import DEFAULT_LIMITS, Limits, MINOR, Mode
from ._versions import check_version
from ._json_safety import check_json_safe, split_msgspec_error, syntax_problem
from ._items import _encode_text, decode_one_item


# --------------------------------------------------------------------------- transcripts


class _TranscriptShell(msgspec.Struct, forbid_unknown_fields=True):
    schema_version: str
    items: list[msgspec.Raw]
    tools: list[ToolDefinition] | msgspec.UnsetType = msgspec.UNSET
    tool_choice: ToolChoice | msgspec.UnsetType = msgspec.UNSET
    settings: Settings | msgspec.UnsetType = msgspec.UNSET
    metadata: dict[str, Any] | msgspec.UnsetType = msgspec.UNSET
    usage: Usage | msgspec.UnsetType = msgspec.UNSET
    stop_reason: StopReason | msgspec.UnsetType = msgspec.UNSET
    response: ResponseInfo | msgspec.UnsetType = msgspec.UNSET
    responses: list[ResponseRecord] | msgspec.UnsetType = msgspec.UNSET


class _VersionOnly(msgspec.Struct):
    schema_version: Any = msgspec.UNSET


shell_decoder = msgspec.json.Decoder(_TranscriptShell)
_version_decoder = msgspec.json.Decoder(_VersionOnly)


def read_version(raw: bytes) -> tuple[int, int]:
    try:
        head = _version_decoder.decode(raw)
    except msgspec.ValidationError as exc:
        raise DocumentError(split_msgspec_error(exc, "")) from exc
    if head.schema_version is msgspec.UNSET:
        raise VersionError(Problem("", "missing required field `schema_version`"))
    return check_version(head.schema_version)


def decode_transcript(
    data: bytes | str, *, mode: Mode = "preserving", limits: Limits = DEFAULT_LIMITS, collect: bool = False
) -> Transcript:
    """Decode a transcript document (``{"schema_version", "tools", "tool_choice", "settings", "items", "metadata"}``).

    Args:
        data: The document's JSON.
        mode: ``"preserving"`` or ``"strict"`` (see the module docstring).
        limits: Size and depth bounds.
        collect: Report every invalid item in one :class:`DocumentError` instead of stopping at the
            first; the error's ``partial`` attribute then lists the decoded items (``None`` where one failed).

    Returns:
        A :class:`~interlingua.items.Transcript` whose ``items`` may include :class:`UnknownItem`
        in preserving mode.

    Raises:
        DocumentError: invalid JSON, invalid document or item (with JSON pointers).
        VersionError: missing/malformed ``schema_version`` or a newer major.
        LimitError: a limit was exceeded.
    """
    raw = data.encode() if isinstance(data, str) else bytes(data)
    try:
        _, minor = read_version(raw)
        shell = shell_decoder.decode(raw)
    except msgspec.ValidationError as exc:
        raise DocumentError(split_msgspec_error(exc, "")) from exc
    except msgspec.DecodeError as exc:
        raise DocumentError(syntax_problem(raw, exc)) from exc
    except RecursionError as exc:
        raise LimitError(Problem("", "nesting too deep")) from exc
    newer = minor > MINOR
    items: list[Any] = []
    problems: list[Problem] = []
    for i, r in enumerate(shell.items):
        try:
            items.append(decode_one_item(bytes(r), f"/items/{i}", mode, newer, limits))
        except DocumentError as exc:
            if not collect:
                raise
            problems.extend(exc.problems)
            items.append(None)
    for name in ("tools", "metadata", "tool_choice", "settings", "response"):
        val = getattr(shell, name)
        if val is not msgspec.UNSET:
            check_json_safe(val, f"/{name}", max_depth=limits.max_depth)
    if problems:
        err = DocumentError(problems)
        err.partial = items  # the items that did decode, for further checks
        raise err
    return Transcript(
        schema_version=shell.schema_version,
        items=items,
        tools=shell.tools,
        tool_choice=shell.tool_choice,
        settings=shell.settings,
        metadata=shell.metadata,
        usage=shell.usage,
        stop_reason=shell.stop_reason,
        response=shell.response,
        responses=shell.responses,
    )


def read_transcript(path: str | os.PathLike[str], *, mode: Mode = "preserving", limits: Limits = DEFAULT_LIMITS) -> Transcript:
    """Read a transcript document from a file; errors name the file.

    Raises:
        DocumentError: as :func:`decode_transcript`, with ``file`` set on every problem.
        OSError: the file cannot be read.
    """
    data = Path(path).read_bytes()
    try:
        return decode_transcript(data, mode=mode, limits=limits)
    except DocumentError as exc:
        raise exc.located(file=str(path)) from exc


def encode_transcript(transcript: Transcript, *, indent: int = 0) -> bytes:
    """Encode a transcript document to JSON.

    Args:
        transcript: The document. ``schema_version`` is written as given.
        indent: ``0`` for compact output, else spaces per level.

    Raises:
        DocumentError: something in it is not JSON-safe.
    """
    check_json_safe(transcript, max_depth=10_000)
    out = _encode_text(transcript)
    return msgspec.json.format(out, indent=indent) if indent else out


