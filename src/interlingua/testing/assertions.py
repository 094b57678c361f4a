"""``assert_valid_transcript``: schema and semantic validation as a test assertion."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import msgspec

from ..codec import Mode, to_builtins
from ..errors import Problem
from ..mapping.protocol import ModelResponse
from ..validation import validate_bytes, validate_path

__all__ = ["TranscriptAssertionError", "assert_valid_transcript"]


class TranscriptAssertionError(AssertionError):
    """A transcript failed validation; ``problems`` holds each located problem."""

    def __init__(self, message: str, problems: list[Problem]) -> None:
        super().__init__(message)
        self.problems = problems


def _document(obj: Any) -> tuple[bytes, str | None]:
    if isinstance(obj, ModelResponse):
        obj = obj.to_transcript()
    if isinstance(obj, bytes):
        return obj, None
    if isinstance(obj, (msgspec.Struct, dict, list)):
        return msgspec.json.encode(to_builtins(obj) if isinstance(obj, msgspec.Struct) else obj), None
    raise TypeError(f"assert_valid_transcript takes a Transcript, ModelResponse, dict, JSON bytes or a path, not {type(obj).__name__}")


def _where(problem: Problem, doc: Any) -> str:
    """``item 3 (tool_result)`` for pointers under ``/items/<n>``."""
    parts = problem.pointer.split("/")
    if len(parts) >= 3 and parts[1] == "items" and parts[2].isdigit():
        n = int(parts[2])
        kind = None
        if isinstance(doc, dict) and isinstance(doc.get("items"), list) and n < len(doc["items"]) and isinstance(doc["items"][n], dict):
            kind = doc["items"][n].get("type")
        return f"item {n}" + (f" ({kind})" if kind else "")
    return "document"


def assert_valid_transcript(obj: Any, strict: bool = False) -> None:
    """Assert that ``obj`` is a valid transcript document (schema and semantic checks).

    Args:
        obj: A :class:`~interlingua.items.Transcript`, a :class:`~interlingua.mapping.ModelResponse`,
            its JSON as a dict or bytes, or a path (``str``/``PathLike``) to a ``.json`` document or
            ``.jsonl`` envelope stream.
        strict: Refuse unknown item types and fields instead of preserving them.

    Raises:
        TranscriptAssertionError: an ``AssertionError`` listing every problem as
            ``item <n> (<type>) at <JSON pointer>: <message>``.
    """
    __tracebackhide__ = True
    mode: Mode = "strict" if strict else "preserving"
    doc: Any = None
    if isinstance(obj, (str, os.PathLike)):
        path = Path(obj)
        result = validate_path([str(path)], mode=mode)
        if path.suffix == ".json" and path.is_file():
            try:
                doc = msgspec.json.decode(path.read_bytes())
            except msgspec.DecodeError:
                doc = None
    else:
        data, _ = _document(obj)
        result = validate_bytes(data, mode=mode, file=None)
        try:
            doc = msgspec.json.decode(data)
        except msgspec.DecodeError:
            doc = None
    problems = [*result.unreadable, *result.problems]
    if not problems:
        return
    lines = [f"  {_where(p, doc)} at {p.pointer or '/'}: {p.message}" + (f" ({p.file}{':' + str(p.line) if p.line else ''})" if p.file else "") for p in problems]
    raise TranscriptAssertionError(f"invalid transcript ({len(problems)} problem{'s' if len(problems) != 1 else ''}):\n" + "\n".join(lines), problems)
