"""Validating a transcript document: :class:`ValidationResult`, schema explanations of failures, format hints."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from ..codec import DEFAULT_LIMITS, Limits, Mode, decode_transcript
from ..errors import DocumentError, Problem
from ._schemas import explain
from ._semantic import ItemChecker, SessionTable, check_transcript
from ._integrity import _Integrity, integrity_warnings

# --------------------------------------------------------------------------- files


@dataclass
class ValidationResult:
    """Outcome of validating inputs.

    Attributes:
        files: Inputs read.
        items: Items checked (including preserved unknown ones).
        problems: Every problem, located by file, line (JSON Lines) and JSON pointer.
        unreadable: Inputs that could not be read at all (missing, not UTF-8 text, I/O error).
        skipped: Files left out because they are not interlingua documents or envelope
            streams (only with ``only_transcripts=True``; see :func:`is_interlingua_file`).
        warnings: Breaks of the history integrity rules (:mod:`interlingua.history`) that the
            schema allows: dangling calls, duplicate results, results out of turn, empty texts,
            reasoning cut from its output. ``ok`` ignores them; ``interlingua validate --strict``
            counts them as errors.
    """

    files: int = 0
    items: int = 0
    problems: list[Problem] = field(default_factory=list)
    unreadable: list[Problem] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when nothing was wrong."""
        return not self.problems and not self.unreadable

    def merge(self, other: ValidationResult) -> None:
        """Add ``other``'s counts and problems to this result."""
        self.files += other.files
        self.items += other.items
        self.problems.extend(other.problems)
        self.unreadable.extend(other.unreadable)
        self.skipped.extend(other.skipped)
        self.warnings.extend(other.warnings)


def _explain_failures(data: bytes, error: DocumentError, schema: str, file: str | None, line: int | None) -> list[Problem]:
    """Replace msgspec's first-error messages by every jsonschema error of the failing items."""
    try:
        doc = msgspec.json.decode(data)
    except (msgspec.DecodeError, RecursionError):
        return [p.located(file, line) for p in error.problems]
    out: list[Problem] = []
    for p in error.problems:
        base = _item_pointer(p.pointer)
        if base is None:
            out.append(p.located(file, line))
            continue
        instance = _resolve(doc, base)
        detailed = explain(instance, "item", pointer=base) if isinstance(instance, dict) else []
        if detailed and "unknown item type" not in p.message:
            out.extend(d.located(file, line) for d in detailed)
        else:
            out.append(p.located(file, line))
    # keep order, drop exact duplicates
    seen: set[tuple[str, str, int | None]] = set()
    unique = []
    for p in out:
        key = (p.pointer, p.message, p.line)
        if key not in seen:
            seen.add(key)
            unique.append(p)
    return unique


def detected_format(problems: Sequence[Problem], data: bytes) -> str | None:
    """The provider or framework format (``interlingua.compat`` names) a document refused for a
    missing ``schema_version`` looks like, or ``None`` (another problem, not detectable, or canonical)."""
    if not any("schema_version" in p.message and p.pointer in ("", "/schema_version") for p in problems):
        return None
    try:
        from ..compat import detect_format

        found = detect_format(msgspec.json.decode(data))
    except Exception:  # noqa: BLE001 - a hint is best effort; the problem itself stands
        return None
    return None if found == "interlingua" else found


def with_hint(problems: Sequence[Problem], hint: str) -> list[Problem]:
    """``problems`` with ``hint`` added to the message of each ``schema_version`` problem."""
    return [Problem(p.pointer, p.message + hint, p.file, p.line) if "schema_version" in p.message else p for p in problems]


def _with_format_hint(problems: list[Problem], data: bytes) -> list[Problem]:
    """A document without ``schema_version`` may be a provider payload: say which, and how to convert it."""
    found = detected_format(problems, data)
    if found is None:
        return problems
    return with_hint(problems, f" (this looks like {found} data, not a transcript: convert it with `interlingua convert --from {found} --to canonical FILE` or `interlingua migrate`)")


def _pointer_key(p: Problem) -> list[tuple[int, int | str]]:
    return [(0, int(x)) if x.isdigit() else (1, x) for x in p.pointer.split("/")[1:]]


def _item_pointer(pointer: str) -> str | None:
    parts = pointer.split("/")
    if len(parts) >= 3 and parts[1] == "items" and parts[2].isdigit():
        return "/".join(parts[:3])
    if len(parts) >= 2 and parts[1] == "item":
        return "/item"
    return None


def _resolve(doc: Any, pointer: str) -> Any:
    cur = doc
    for part in pointer.split("/")[1:]:
        if isinstance(cur, list) and part.isdigit() and int(part) < len(cur):
            cur = cur[int(part)]
        elif isinstance(cur, dict) and part in cur:
            cur = cur[part]
        else:
            return None
    return cur


def validate_document_bytes(data: bytes, *, mode: Mode = "preserving", limits: Limits = DEFAULT_LIMITS, file: str | None = None) -> ValidationResult:
    """Validate one transcript document."""
    result = ValidationResult(files=1)
    try:
        transcript = decode_transcript(data, mode=mode, limits=limits, collect=True)
    except DocumentError as exc:
        problems = _explain_failures(data, exc, "transcript", file, None)
        result.problems.extend(_with_format_hint(problems, data))
        if exc.partial is not None:
            result.items = len(exc.partial)
            checker = ItemChecker()
            for i, item in enumerate(exc.partial):
                if item is not None:
                    result.problems.extend(p.located(file) for p in checker.check(item, f"/items/{i}"))
            result.warnings.extend(_partial_warnings(exc.partial, exc.problems, file))
        result.problems.sort(key=_pointer_key)
        return result
    result.items = len(transcript.items)
    result.problems.extend(p.located(file) for p in check_transcript(transcript))
    result.warnings.extend(integrity_warnings(transcript.items, file))
    return result


_ITEM_RULES = ("empty_text",)
"""Integrity rules decided by one item alone: found beside items that failed to decode."""


def _partial_warnings(partial: Sequence[Any], problems: Sequence[Problem], file: str | None) -> list[Problem]:
    """The integrity warnings of a document some of whose items failed to decode (``None`` in
    ``partial``): a failed item is neutral to the rules, as a preserved unknown item is. When only
    unknown item types failed (``--strict`` refuses them, the preserving reader keeps them as neutral
    items), every rule applies; otherwise a failed call or result would make its partner look broken,
    so only the rules one item decides (:data:`_ITEM_RULES`) are reported."""
    found = integrity_warnings(partial, file)
    if all("unknown item type" in p.message for p in problems):
        return found
    return [w for w in found if any(f"[{rule}]" in w.message for rule in _ITEM_RULES)]


def _validate_document_file(path: Path, *, mode: Mode, limits: Limits, file: str) -> ValidationResult | None:
    """:func:`validate_document_bytes` of a document file read item by item (bounded memory,
    :class:`~interlingua._docstream.TranscriptStream`); ``None`` when it must be read whole (any
    item that does not decode, or an unusual document: the whole path then reports every problem)."""
    from .._docstream import Fallback, TranscriptStream

    table = SessionTable()
    problems: list[Problem] = []
    warnings: list[Problem] = []
    integrity = _Integrity(warnings, file, jsonl=False)
    count = 0
    try:
        with open(path, "rb") as fh:
            stream = TranscriptStream(fh, mode=mode, limits=limits)
            for count, item in enumerate(stream, 1):
                integrity.feed(item)
                checker = table.get("")
                before = len(checker.seen)
                found = checker.check(item, f"/items/{count - 1}")
                if found:
                    problems.extend(p.located(file) for p in found)
                if len(checker.seen) != before:
                    table.grew(len(checker.seen) - before)
    except (Fallback, DocumentError):
        return None
    finally:
        table.close()
    shell = stream.shell
    if shell.tools is not msgspec.UNSET:
        names: set[str] = set()
        for i, tool in enumerate(shell.tools):
            if tool.name in names:
                problems.append(Problem(f"/tools/{i}/name", f"duplicate tool name {tool.name!r}", file))
            names.add(tool.name)
    integrity.finish()
    return ValidationResult(files=1, items=count, problems=problems, warnings=warnings)


