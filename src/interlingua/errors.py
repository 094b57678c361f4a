"""The interlingua error tree.

Every error the library raises on purpose derives from :class:`InterlinguaError`::

    InterlinguaError
    ├── DocumentError            a document or line is not a valid transcript/envelope
    │   ├── VersionError         schema_version missing, malformed or of a newer major
    │   └── LimitError           a configured limit (depth, size, base64) was exceeded
    ├── MappingError             a conversion between formats cannot be done
    │   ├── UnknownFormatError   no mapper or format by that name
    │   ├── FormatMismatchError  the input plainly belongs to another format than the one named
    │   ├── StreamFailedError    a recorded stream ended in an error (truncated, provider error)
    │   ├── CapabilityError      preflight: the target model cannot take some items
    │   ├── ConversionError      policy `error` met content the target cannot carry
    │   │   └── MalformedInputError  a provider body or stream event has a wrongly typed field
    │   └── MalformedArgumentsError  tool-call arguments are not a JSON object
    ├── StoreError               the session store failed
    │   ├── ConflictError        optimistic concurrency: the head moved
    │   ├── SessionExistsError   an import names a stored session with other content
    │   ├── SessionNotFoundError no session with that id
    │   └── MigrationRequiredError  the database is at an older revision
    └── TransportError           an HTTP exchange with a provider failed (carries a stable code)

Foreign errors (msgspec, SQLAlchemy, httpx) are translated where those
libraries are called, always ``raise ... from exc``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "CapabilityError",
    "CapabilityViolation",
    "ConflictError",
    "ConversionError",
    "DocumentError",
    "FormatMismatchError",
    "InterlinguaError",
    "LimitError",
    "MalformedArgumentsError",
    "MalformedInputError",
    "MappingError",
    "MigrationRequiredError",
    "Problem",
    "SessionExistsError",
    "SessionChoiceError",
    "SessionNotFoundError",
    "StoreError",
    "StreamFailedError",
    "TransportError",
    "UnknownFormatError",
    "VersionError",
]


class InterlinguaError(Exception):
    """Root of every error interlingua raises on purpose."""


@dataclass(frozen=True)
class Problem:
    """One located problem in an input.

    Attributes:
        pointer: RFC 6901 JSON pointer inside the document (or line), ``""`` for the root.
        message: One-line reason.
        file: Path of the input, ``"-"`` for stdin, ``None`` when not from a file.
        line: 1-based line number for JSON Lines input, else ``None``.
    """

    pointer: str
    message: str
    file: str | None = None
    line: int | None = None

    def located(self, file: str | None = None, line: int | None = None) -> Problem:
        """Return a copy with ``file``/``line`` filled in where not already set."""
        return Problem(self.pointer, self.message, self.file or file, self.line or line)

    def __str__(self) -> str:
        where = self.file or "<input>"
        if self.line is not None:
            where += f":{self.line}"
        return f"{where}: {self.pointer or '/'}: {self.message}"


class DocumentError(InterlinguaError):
    """A transcript document or envelope line is not valid.

    Attributes:
        problems: Every problem found, each with file, line and JSON pointer.
    """

    def __init__(self, problems: list[Problem] | Problem | str) -> None:
        if isinstance(problems, str):
            problems = [Problem("", problems)]
        elif isinstance(problems, Problem):
            problems = [problems]
        self.problems: list[Problem] = list(problems)
        self.partial: list[Any] | None = None
        super().__init__("; ".join(str(p) for p in self.problems) or "invalid document")

    def located(self, file: str | None = None, line: int | None = None) -> DocumentError:
        """Return the same kind of error with file and line filled into every problem."""
        err = type(self).__new__(type(self))
        DocumentError.__init__(err, [p.located(file, line) for p in self.problems])
        return err


class VersionError(DocumentError):
    """``schema_version`` is missing, malformed, or of a newer major version than this reader."""


class SessionChoiceError(DocumentError):
    """Which session of a session file to read is not settled: the file holds several and none was
    named, or one was named for a transcript document. The file itself may be valid; the CLI treats
    this as a usage error (exit 2)."""


class LimitError(DocumentError):
    """A configured limit (nesting depth, item size, inline base64 size) was exceeded."""


class MappingError(InterlinguaError):
    """A conversion between a provider format and the canonical form cannot be done."""


class UnknownFormatError(MappingError, LookupError):
    """No mapper or format is registered under that name; the message lists the known ones."""


class FormatMismatchError(MappingError):
    """The input plainly belongs to another format: the named format's ``kind_of`` rejects it and
    another registered format's accepts it.

    Attributes:
        source: The format the caller named.
        likely: The format whose ``kind_of`` accepts the input.
        kind: What ``likely`` takes it for (``request`` or ``response``).
        keys: The input's top-level keys (sorted, at most eight), for the message.
    """

    def __init__(self, source: str, likely: str, kind: str, keys: list[str]) -> None:
        self.source = source
        self.likely = likely
        self.kind = kind
        self.keys = list(keys)
        a = "an" if source[:1] in "aeiou" else "a"
        b = "an" if likely[:1] in "aeiou" else "a"
        super().__init__(f"not {a} {source} request or response body (top-level keys: {', '.join(self.keys)}); it looks like {b} {likely} {kind}")


class StreamFailedError(MappingError):
    """A recorded stream ended in an error event instead of its completion (a cut stream is ``truncated``).

    Attributes:
        format: The stream's wire format.
        code: The stable error code (``truncated``, ``provider_error``, ...; ``schemas/error_code.json``).
        detail: The error's message.
        pointer: Where in the stream a malformed event is, when known.
        events: How many content events (text, reasoning, tool calls, ...) the stream gave before it
            failed, when known (0: nothing in it was read as this format's content, so the format
            may be the wrong one).
    """

    def __init__(self, format: str, code: str, detail: str, *, pointer: str | None = None, events: int | None = None) -> None:
        self.format = format
        self.code = code
        self.detail = detail
        self.pointer = pointer
        self.events = events
        super().__init__(f"the {format} stream failed: {code}: {detail}" + (f" (at {pointer})" if pointer else ""))


@dataclass(frozen=True)
class CapabilityViolation:
    """One item a target model cannot take.

    Attributes:
        index: Index of the item in the transcript (``None`` for transcript-level problems such as tools).
        item_type: The item's ``type`` (or ``"tools"``, ``"tool_choice"``).
        reason: Why the model cannot take it.
    """

    index: int | None
    item_type: str
    reason: str

    def __str__(self) -> str:
        where = f"item {self.index}" if self.index is not None else "transcript"
        return f"{where} ({self.item_type}): {self.reason}"


class CapabilityError(MappingError):
    """Preflight found items the target model cannot take; nothing was sent.

    Attributes:
        model: The target model.
        violations: Every offending item.
    """

    def __init__(self, model: str, violations: list[CapabilityViolation]) -> None:
        self.model = model
        self.violations = list(violations)
        lines = "\n".join(f"  - {v}" for v in self.violations)
        super().__init__(f"model {model!r} cannot take {len(self.violations)} item(s):\n{lines}")


class ConversionError(MappingError):
    """Under policy ``error``, the target format cannot carry some content.

    Attributes:
        index: Index of the offending item in the source, when known.
        reason: What cannot be carried.
    """

    def __init__(self, reason: str, *, index: int | None = None, item_type: str | None = None) -> None:
        self.index = index
        self.item_type = item_type
        self.reason = reason
        where = f"item {index}" if index is not None else "input"
        if item_type:
            where += f" ({item_type})"
        super().__init__(f"{where}: {reason}")


class IntegrityError(ConversionError):
    """A history breaks the integrity rules (dangling calls, orphan results, reused call ids, results
    out of turn, empty texts, reasoning cut from its output) and the policy is ``error``.

    Attributes:
        findings: Every :class:`~interlingua.history.Finding`, by item index.
    """

    def __init__(self, findings: list[Any]) -> None:
        self.findings = list(findings)
        first = self.findings[0] if self.findings else None
        lines = "\n".join(f"  - {f}" for f in self.findings)
        super().__init__(
            f"the history is not sendable ({len(self.findings)} integrity problem(s); repair it with policy drop or degrade, "
            f"or `interlingua repair`):\n{lines}",
            index=first.index if first is not None else None,
        )


class BudgetError(InterlinguaError):
    """A history does not fit a token budget (a model's context window, or ``trim``'s
    ``max_input_tokens``); the message gives the figures. Nothing was sent."""


class MalformedArgumentsError(ConversionError):
    """A tool call's arguments are not a JSON object and the target needs one."""


class MalformedInputError(ConversionError):
    """A provider request/response body or stream event does not have the documented shape.

    Raised by the mappers' decoders and stream accumulators when a field has the wrong JSON type
    (``"content": null`` where an array is documented, ``"type": []``), instead of a
    ``TypeError``/``KeyError`` from deep inside the decoder.

    Attributes:
        pointer: RFC 6901 JSON pointer of the offending field inside the body or event (``""`` for the root).
        reason: What is wrong there (safe: names JSON types, never echoes the value).
        provider: Wire format name, when known.
    """

    def __init__(self, pointer: str, reason: str, *, provider: str | None = None) -> None:
        self.pointer = pointer
        self.provider = provider
        super().__init__(reason)
        what = f"malformed {provider} input" if provider else "malformed input"
        Exception.__init__(self, f"{what}: {pointer or '/'}: {reason}")


class StoreError(InterlinguaError):
    """The session store failed (database unreachable, corrupt row, bad URL)."""


class ConflictError(StoreError):
    """An append expected a head sequence that is no longer the head.

    Attributes:
        session_id: The session.
        expected: The head the caller expected.
        actual: The real head (``-1`` for an empty session).
    """

    def __init__(self, session_id: str, expected: int, actual: int) -> None:
        self.session_id = session_id
        self.expected = expected
        self.actual = actual
        super().__init__(f"session {session_id}: expected head {expected}, actual head {actual}")


class SessionExistsError(StoreError):
    """An import names a session that exists with different content (items, tools, settings or metadata).

    Attributes:
        session_id: The session.
    """

    def __init__(self, session_id: str, what: str) -> None:
        self.session_id = session_id
        super().__init__(
            f"session {session_id} exists with different {what}: nothing imported for it "
            "(import with --new-id for a copy under a new id, or delete the stored session first: "
            f"`interlingua store delete --url URL {session_id}`)"
        )


class SessionNotFoundError(StoreError, LookupError):
    """No session with that id."""


class MigrationRequiredError(StoreError):
    """The database is at an older schema revision; run ``interlingua store upgrade``."""


@dataclass
class TransportError(InterlinguaError):
    """An exchange with a provider failed.

    Attributes:
        code: Stable error code (see ``schemas/error_code.json``).
        message: Short, safe message; never the raw upstream body.
        status: HTTP status, when there was a response.
        provider: Wire format name.
        retryable: Whether retrying may succeed.
    """

    code: str
    message: str
    status: int | None = None
    provider: str | None = None
    retryable: bool = False
    details: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        super().__init__(self.__str__())

    def __str__(self) -> str:
        status = f" (HTTP {self.status})" if self.status else ""
        return f"{self.code}{status}: {self.message}"
