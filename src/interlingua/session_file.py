"""Session files: the one JSON Lines format that ``migrate -o``, ``store export`` and ``store import`` share.

A session file holds zero or more sessions, each a contiguous block::

    {"schema_version": "1.0", "session": {"id": "s1", "tools": [...], "settings": {...}, ...}}   header (optional)
    {"schema_version": "1.0", "session_id": "s1", "seq": 0, "item": {...}}                       envelopes, seq 0, 1, 2, ...
    {"schema_version": "1.0", "session_id": "s1", "seq": 1, "item": {...}, "usage": {...}}
    {"schema_version": "1.0", "session": {"id": "s2", ...}}                                      the next session
    ...

The header line (:class:`~interlingua.items.SessionHeader`) carries what envelopes cannot: the
session's metadata, tools, tool choice, generation settings and change history. Without a header a
block is the envelopes of one ``session_id``; a new ``session_id`` starts the next block. A session's
lines are contiguous and its id appears once per file.

:func:`read_sessions` yields one :class:`SessionBlock` at a time (memory bounded by the largest
session, not the file); :func:`iter_session_parts` streams a session in batches of envelopes (memory
bounded by the batch); :func:`session_lines` writes one. Importing this module loads neither the
store nor SQLAlchemy.
"""

from __future__ import annotations

import io
import os
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Protocol

import msgspec

from .codec import DEFAULT_LIMITS, SCHEMA_VERSION, Item, Limits, Mode, decode_transcript, encode_envelope, iter_jsonl
from .errors import DocumentError, Problem, SessionChoiceError
from .session_rules import check_header, late_header_message
from .validation import ItemChecker
from .items import Envelope, ResponseRecord, SessionHeader, SessionRecord, Settings, StopReason, ToolChoice, ToolDefinition, Transcript, Usage

__all__ = [
    "EnvelopeBatch",
    "SeenIds",
    "SessionBlock",
    "SessionEnd",
    "SessionPart",
    "SessionStart",
    "header_bytes",
    "iter_session_parts",
    "looks_like_session_file",
    "read_conversation",
    "read_sessions",
    "session_lines",
]

_encoder = msgspec.json.Encoder()


@dataclass
class SessionBlock:
    """One session read from a session file.

    Attributes:
        session_id: The session's id (the header's, else the envelopes').
        header: The session record of its header line, or ``None`` when the block has none.
        envelopes: Its envelopes, seq 0, 1, 2, ... in order.
        line: Line number of the block's first line (1-based).
        line_nos: Line number of each envelope.
        header_line: Line number of the header, when there is one.
    """

    session_id: str
    header: SessionRecord | None
    envelopes: list[Envelope] = field(default_factory=list)
    line: int = 0
    line_nos: list[int] = field(default_factory=list)
    header_line: int | None = None

    def transcript(self) -> Transcript:
        """The session as a transcript document: its items, with the header's tools, tool choice,
        settings and metadata, the usage and stop reason of its last envelope, and each response's
        record (:attr:`~interlingua.items.Transcript.responses`, with its metadata). The top-level
        ``response`` stays unset: it marks a document that holds one response's output."""
        h = self.header
        last = self.envelopes[-1] if self.envelopes else None
        return Transcript(
            schema_version=SCHEMA_VERSION,
            items=[e.item for e in self.envelopes],
            tools=h.tools if h is not None else msgspec.UNSET,
            tool_choice=h.tool_choice if h is not None else msgspec.UNSET,
            settings=h.settings if h is not None else msgspec.UNSET,
            metadata=h.metadata if h is not None else msgspec.UNSET,
            usage=last.usage if last is not None else msgspec.UNSET,
            stop_reason=last.stop_reason if last is not None else msgspec.UNSET,
            responses=response_records(self.envelopes),
        )


def response_records(envelopes: Iterable[Envelope]) -> Any:
    """One :class:`~interlingua.items.ResponseRecord` per envelope carrying a response's usage, stop
    reason or metadata (at that envelope's index), for :attr:`Transcript.responses`; ``UNSET`` when none does."""
    out = []
    for i, e in enumerate(envelopes):
        response = getattr(e, "response", msgspec.UNSET)
        if e.usage is not msgspec.UNSET or e.stop_reason is not msgspec.UNSET or response is not msgspec.UNSET:
            out.append(ResponseRecord(item=i, usage=e.usage, stop_reason=e.stop_reason, response=response))
    return out or msgspec.UNSET


def envelope_responses(transcript: Any, count: int | None = None) -> dict[int, dict[str, Any]]:
    """The inverse of :func:`response_records`: per item index, the response fields (``usage``,
    ``stop_reason``, ``response``, each only when set) its envelope carries in a session file.

    Each :attr:`~interlingua.items.Transcript.responses` record goes on its item; the transcript's
    own ``usage``/``stop_reason``/``response`` (the response that ended it) on the last item, over
    a record there. A record whose ``item`` is outside the items is left out (``validate`` reports it).
    ``count``: the number of items, when ``transcript`` holds none of them (a streamed document's shell).
    """
    n = len(transcript.items) if count is None else count
    out: dict[int, dict[str, Any]] = {}
    records = getattr(transcript, "responses", msgspec.UNSET)
    for record in records if isinstance(records, list) else ():
        if 0 <= record.item < n:
            fields = out.setdefault(record.item, {})
            for name in ("usage", "stop_reason", "response"):
                value = getattr(record, name)
                if value is not msgspec.UNSET:
                    fields[name] = value
    if n:
        for name in ("usage", "stop_reason", "response"):
            value = getattr(transcript, name, msgspec.UNSET)
            if value is not msgspec.UNSET and value is not None:
                out.setdefault(n - 1, {})[name] = value
    return {i: {k: f[k] for k in ("usage", "stop_reason", "response") if k in f} for i, f in out.items() if f}


@dataclass
class SessionStart:
    """:func:`iter_session_parts`: a session begins (its header, when it has one)."""

    session_id: str
    header: SessionRecord | None
    line: int
    header_line: int | None = None


@dataclass
class EnvelopeBatch:
    """:func:`iter_session_parts`: consecutive envelopes of the current session.

    Attributes:
        session_id: The session.
        first_seq: Seq of the first envelope (envelopes run ``first_seq, first_seq + 1, ...``).
        envelopes: The envelopes.
        line_nos: Line number of each.
    """

    session_id: str
    first_seq: int
    envelopes: list[Envelope]
    line_nos: list[int]


@dataclass
class SessionEnd:
    """:func:`iter_session_parts`: the current session is complete and valid; ``count`` envelopes."""

    session_id: str
    count: int


SessionPart = SessionStart | EnvelopeBatch | SessionEnd


class SeenIds(Protocol):
    """The session ids :func:`iter_session_parts` has read (a ``set[str]`` is one)."""

    def __contains__(self, session_id: object, /) -> bool: ...

    def add(self, session_id: str, /) -> None: ...

_PART_ENVELOPES = 2000
"""Envelopes per :class:`EnvelopeBatch` (memory is bounded by this many envelopes, not by the session)."""


def iter_session_parts(
    source: str | os.PathLike[str] | IO[bytes],
    *,
    mode: Mode = "preserving",
    limits: Limits = DEFAULT_LIMITS,
    label: str | None = None,
    batch: int = _PART_ENVELOPES,
    semantic: bool = True,
    seen_ids: SeenIds | None = None,
) -> Generator[SessionPart, None, None]:
    """Read a session file as a stream: for each session a :class:`SessionStart`, its envelopes in
    :class:`EnvelopeBatch` es of at most ``batch``, then a :class:`SessionEnd`.

    Memory is bounded by ``batch`` envelopes (and the set of session ids seen), whatever the size of
    a session: this is how ``interlingua store import`` reads a session of a million items. The
    checks are those of :func:`read_sessions`; a problem is raised where it is found, so envelopes
    of a session may have been yielded before an error in a later line of that session (read the
    file once to check it before acting on the parts, as the store's import does).

    ``semantic=False`` leaves out the semantic checks of ``validate`` (ids, a result after its call):
    what ``interlingua repair`` reads, to rewrite a history that breaks them.

    ``seen_ids`` holds the session ids read so far, for the check that each session appears once
    (anything with ``in`` and ``add``; default a new ``set``): the store's import passes one kept
    on disk, so that memory does not grow with the number of sessions either.

    Raises:
        DocumentError: with file and line of the first problem.
    """
    label = label or (str(source) if isinstance(source, (str, os.PathLike)) else getattr(source, "name", None))
    label = str(label) if label is not None else None
    current: SessionStart | None = None
    n = 0  # envelopes of the current session so far
    buf: list[Envelope] = []
    nos: list[int] = []
    seen: SeenIds = set() if seen_ids is None else seen_ids
    count = 0

    def fail(message: str, line: int, pointer: str = "") -> DocumentError:
        return DocumentError(Problem(pointer, message, label, line))

    checker = ItemChecker()

    def start(part: SessionStart) -> SessionStart:
        nonlocal checker
        if part.session_id in seen:
            raise fail(f"session {part.session_id!r} appears twice in the file (a session's lines must be contiguous)", part.line)
        seen.add(part.session_id)
        checker = ItemChecker()  # the semantic checks of `validate`, per session (ids, calls before results)
        return part

    def end(part: SessionStart) -> Iterator[SessionPart]:
        nonlocal buf, nos
        if buf:
            yield EnvelopeBatch(part.session_id, n - len(buf), buf, nos)
            buf, nos = [], []
        yield SessionEnd(part.session_id, n)

    for rec in iter_jsonl(source, mode=mode, limits=limits, errors="yield", file_label=label):
        if rec.error is not None:
            raise rec.error
        if rec.header is not None:
            try:
                check_header(rec.header.session)
            except DocumentError as exc:
                raise exc.located(file=label, line=rec.line) from exc
            if current is not None and current.header is None and current.session_id == rec.header.session.id:
                raise fail(late_header_message(current.session_id, current.line), rec.line)
            if current is not None:
                count += 1
                yield from end(current)
            current = start(SessionStart(rec.header.session.id, rec.header.session, rec.line, rec.line))
            n = 0
            yield current
            continue
        env = rec.envelope
        assert env is not None
        if current is None or (n and env.session_id != current.session_id) or (current.header is None and env.session_id != current.session_id):
            if current is not None:
                count += 1
                yield from end(current)
            current = start(SessionStart(env.session_id, None, rec.line))
            n = 0
            yield current
        elif env.session_id != current.session_id:
            raise fail(f"session_id {env.session_id!r} differs from the header's session {current.session_id!r} (line {current.header_line})", rec.line, "/session_id")
        if env.seq != n:
            other = ""
            if env.seq == 0 and n:
                other = f"; a second conversation of session {env.session_id!r}? each session needs its own id"
            raise fail(f"expected seq {n} in session {env.session_id!r} (seqs run 0, 1, 2, ...), got {env.seq}{other}", rec.line, "/seq")
        found = checker.check(env.item, "/item") if semantic else None
        if found:
            raise DocumentError([p.located(label, rec.line) for p in found])
        buf.append(env)
        nos.append(rec.line)
        n += 1
        if len(buf) >= batch:
            yield EnvelopeBatch(current.session_id, n - len(buf), buf, nos)
            buf, nos = [], []
    if current is not None:
        count += 1
        yield from end(current)
    if count == 0:
        raise DocumentError(Problem("", "no session in the file (it is empty or holds only blank lines)", label))


def read_sessions(
    source: str | os.PathLike[str] | IO[bytes],
    *,
    mode: Mode = "preserving",
    limits: Limits = DEFAULT_LIMITS,
    label: str | None = None,
    semantic: bool = True,
) -> Iterator[SessionBlock]:
    """Read a session file one session at a time.

    Every line is checked: versions, items (``mode``), header fields (no unknown or null fields,
    unique ``change_no``), a header's id matching its envelopes, seqs ``0, 1, 2, ...`` within each
    session, each session appearing once, and the semantic checks of ``interlingua validate`` within
    each session (a top-level content item has a role, item ids are unique, a result follows its call,
    tool-call arguments are an object). A file with no session at all (empty, blank lines
    only) is an error: a file truncated to zero by a crash must not read as an empty session.
    Memory is bounded by the largest session; :func:`iter_session_parts` reads in bounded memory.

    Args:
        source: A path or a binary file object.
        mode: Read mode for the items (``preserving`` keeps unknown item types).
        limits: Size and depth bounds per line.
        label: File name used in error locations (default: the path).
        semantic: ``False`` skips the semantic checks (see :func:`iter_session_parts`).

    Yields:
        :class:`SessionBlock`, in file order. A block is yielded only once it is complete and valid.

    Raises:
        DocumentError: with file and line of the first problem.
    """
    block: SessionBlock | None = None
    for part in iter_session_parts(source, mode=mode, limits=limits, label=label, semantic=semantic):
        if isinstance(part, SessionStart):
            block = SessionBlock(part.session_id, part.header, line=part.line, header_line=part.header_line)
        elif isinstance(part, EnvelopeBatch):
            assert block is not None
            block.envelopes.extend(part.envelopes)
            block.line_nos.extend(part.line_nos)
        else:
            assert block is not None
            yield block
            block = None


def header_bytes(
    session_id: str,
    *,
    metadata: dict[str, Any] | None = None,
    tools: Iterable[ToolDefinition] | None = None,
    tool_choice: ToolChoice | None = None,
    settings: Settings | None = None,
    extra: dict[str, Any] | None = None,
) -> bytes:
    """A session header line (without newline). ``None`` parts are left out (the header has no nulls).

    Args:
        extra: Further :class:`~interlingua.items.SessionRecord` fields (``created_at``, ``parent_id``,
            ``fork_seq``, ``changes``) as JSON-ready values.
    """
    session: dict[str, Any] = {"id": session_id}
    for name, value in (("metadata", metadata), ("tools", list(tools) if tools is not None else None), ("tool_choice", tool_choice), ("settings", settings)):
        if value is not None and value is not msgspec.UNSET:
            session[name] = value
    for name, value in (extra or {}).items():
        if value is not None:
            session[name] = value
    return _encoder.encode({"schema_version": SCHEMA_VERSION, "session": session})


def session_lines(
    session_id: str,
    items: Iterable[Item],
    *,
    header: bytes | None = None,
    usage: Usage | None = None,
    stop_reason: StopReason | None = None,
) -> Iterator[bytes]:
    """The lines (each ending in ``\\n``) of one session: ``header`` if given, then one envelope per item.

    ``usage`` and ``stop_reason`` ride on the last envelope (they belong to the response that ended
    the conversation).
    """
    if header is not None:
        yield header + b"\n"
    listed = list(items)
    last = len(listed) - 1
    for seq, item in enumerate(listed):
        env = Envelope(schema_version=SCHEMA_VERSION, session_id=session_id, seq=seq, item=item)  # type: ignore[arg-type]
        if seq == last:
            if usage is not None:
                env.usage = usage
            if stop_reason is not None:
                env.stop_reason = stop_reason
        yield encode_envelope(env) + b"\n"


def read_conversation(
    source: str | os.PathLike[str] | bytes,
    *,
    session: str | None = None,
    mode: Mode = "preserving",
    limits: Limits = DEFAULT_LIMITS,
    label: str | None = None,
) -> Transcript:
    """Read a transcript document, or one session of a session file, as a transcript.

    Args:
        source: A path, or the content itself (e.g. standard input).
        session: With a session file, the id of the session to take (default: the file's only one).
        label: Name used in error locations (default: the path, or ``-``).

    A ``.jsonl``/``.ndjson`` path, or content whose first line is a session header or an envelope,
    is read as a session file; it must hold exactly one session unless ``session`` names one.
    Anything else is read as a transcript document.

    Raises:
        DocumentError: unreadable content, with file and line; ``session`` not in the file (as for
            an unknown stored session, exit 1 in the CLI).
        SessionChoiceError: (a DocumentError) several sessions and no ``session`` (the message lists
            their ids), or ``session`` given for a transcript document: a usage error (exit 2).
        OSError: the file cannot be read.
    """
    if isinstance(source, bytes):
        data: bytes | None = source
        where = label or "-"
        is_sessions = looks_like_session_file(source[:4096])
    else:
        data = None
        where = label or str(source)
        is_sessions = Path(source).suffix.lower() in (".jsonl", ".ndjson") or looks_like_session_file(_head(Path(source)))
    if not is_sessions:
        if session is not None:
            raise SessionChoiceError(Problem("", f"--session {session!r} given, but this is a transcript document, not a session file", where))
        try:
            return decode_transcript(data if data is not None else Path(source).read_bytes(), mode=mode, limits=limits)  # type: ignore[arg-type]
        except DocumentError as exc:
            raise exc.located(file=where) from exc
    reader: str | os.PathLike[str] | IO[bytes] = io.BytesIO(data) if data is not None else source  # type: ignore[assignment]
    chosen: SessionBlock | None = None
    ids: list[str] = []
    for block in read_sessions(reader, mode=mode, limits=limits, label=where):
        ids.append(block.session_id)
        if session is not None:
            if block.session_id == session:
                return block.transcript()
        elif chosen is None:
            chosen = block
        else:
            raise SessionChoiceError(Problem("", f"the file holds several sessions ({_listing(ids)}, ...): pick one with --session ID", where))
    if session is not None or chosen is None:
        raise DocumentError(Problem("", f"no session {session!r} in the file (it holds {_listing(ids)})", where))
    return chosen.transcript()


def _listing(ids: list[str]) -> str:
    return ", ".join(ids[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")


def _head(path: Path) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read(4096)
    except OSError:
        return b""


def looks_like_session_file(head: bytes) -> bool:
    """Whether content starting with ``head`` (its first few KB) is a session file rather than a document."""
    stripped = head.lstrip()
    first, newline, _rest = stripped.partition(b"\n")
    if not first.startswith(b"{"):
        return False
    if newline:
        # the whole first line is here: decide on its top-level keys, not on substrings (a header's
        # tools may hold "items" in a JSON Schema, a document's text may hold "session_id")
        try:
            value = msgspec.json.decode(first)
        except msgspec.DecodeError:
            value = None
        if isinstance(value, dict):
            return "session_id" in value or (isinstance(value.get("session"), dict) and "items" not in value)
    return b'"session_id"' in first or (b'"session"' in first[:64] and b'"items"' not in first[:64])
