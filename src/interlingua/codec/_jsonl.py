"""JSON Lines envelope streams: envelopes, session headers, the bounded-memory reader and its block path, the writer."""

from __future__ import annotations

import io
import itertools
import operator
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Any, Literal

import msgspec

from ..errors import DocumentError, LimitError, Problem
from ..items import Base64Source, Envelope, SessionHeader, ResponseInfo, StopReason, Usage
from ._model import DEFAULT_LIMITS, Limits, MINOR, Mode, SCHEMA_VERSION, _ITEM_CLASSES
from ._json_safety import _MEDIA_CLASSES, _depth, check_base64, check_json_safe, item_too_deep, split_msgspec_error, syntax_problem
from ._items import _checked_encode, _item_decoder, decode_one_item
from ._transcripts import read_version
from ._line_shape import header_lines, line_shape


# --------------------------------------------------------------------------- envelopes / JSON Lines


class _EnvelopeShell(msgspec.Struct, forbid_unknown_fields=True):
    schema_version: str
    session_id: str
    seq: int
    item: msgspec.Raw
    created_at: str | msgspec.UnsetType = msgspec.UNSET
    usage: Usage | msgspec.UnsetType = msgspec.UNSET
    stop_reason: StopReason | msgspec.UnsetType = msgspec.UNSET
    response: ResponseInfo | msgspec.UnsetType = msgspec.UNSET


_envelope_shell_decoder = msgspec.json.Decoder(_EnvelopeShell)


_envelope_decoder = msgspec.json.Decoder(Envelope)


def _decode_envelope_fast(raw: bytes, limits: Limits) -> Envelope | None:
    """One typed pass for an ordinary line of this exact version; ``None`` sends it down the careful path.

    The careful path (version first, then the frame, then the item) gives the precise error
    and preserves unknown items; most lines never need it.
    """
    if len(raw) > limits.max_item_bytes:
        return None
    try:
        env = _envelope_decoder.decode(raw)
    except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
        return None
    if env.schema_version != SCHEMA_VERSION or env.seq < 0 or not env.session_id:
        return None
    item = env.item
    if item_too_deep(item, limits.max_depth, level=2) or (
        env.usage is not msgspec.UNSET and type(env.usage.details) is dict and 3 + _depth(env.usage.details, limits.max_depth) > limits.max_depth
    ):
        return None
    if isinstance(item, _MEDIA_CLASSES) or getattr(item, "content", None):
        try:
            check_base64(item, "/item", limits)
        except (LimitError, DocumentError):
            return None
    return env


def decode_envelope(data: bytes | str, *, mode: Mode = "preserving", limits: Limits = DEFAULT_LIMITS) -> Envelope:
    """Decode one JSON Lines envelope (``{"schema_version", "session_id", "seq", "created_at", "item"}``).

    Raises:
        DocumentError, VersionError, LimitError: with JSON pointers inside the line.
    """
    raw = data.encode() if isinstance(data, str) else bytes(data)
    if len(raw) > limits.max_line_bytes:
        raise LimitError(Problem("", f"line is {len(raw)} bytes; the limit is {limits.max_line_bytes}"))
    fast = _decode_envelope_fast(raw, limits)
    if fast is not None:
        return fast
    try:
        _, minor = read_version(raw)
        shell = _envelope_shell_decoder.decode(raw)
    except msgspec.ValidationError as exc:
        raise DocumentError(split_msgspec_error(exc, "")) from exc
    except msgspec.DecodeError as exc:
        raise DocumentError(syntax_problem(raw, exc, one_line=True)) from exc
    except RecursionError as exc:
        raise LimitError(Problem("", "nesting too deep")) from exc
    if shell.seq < 0:
        raise DocumentError(Problem("/seq", f"seq must be >= 0, got {shell.seq}"))
    if not shell.session_id:
        raise DocumentError(Problem("/session_id", "session_id must not be empty"))
    from ..session_rules import session_id_problem  # the store's rule: validate and store import agree

    if (why := session_id_problem(shell.session_id)) is not None:
        raise DocumentError(Problem("/session_id", why))
    item = decode_one_item(bytes(shell.item), "/item", mode, minor > MINOR, limits)
    return Envelope(
        schema_version=shell.schema_version,
        session_id=shell.session_id,
        seq=shell.seq,
        item=item,  # type: ignore[arg-type]
        created_at=shell.created_at,
        usage=shell.usage,
        stop_reason=shell.stop_reason,
        response=shell.response,
    )


def encode_envelope(envelope: Envelope) -> bytes:
    """Encode one envelope as a compact JSON line (without the newline).

    Raises:
        DocumentError: something in it is not JSON-safe.
    """
    return _checked_encode(envelope)


@dataclass(frozen=True)
class JsonlRecord:
    """One line of a JSON Lines stream read by :func:`iter_jsonl` with ``errors="yield"``.

    Attributes:
        line: 1-based line number.
        envelope: The decoded envelope, or ``None`` when the line is invalid (or is the header).
        error: The problem with the line, or ``None``.
        header: The session header, when this line is one (a session file has one per session).
    """

    line: int
    envelope: Envelope | None
    error: DocumentError | None
    header: SessionHeader | None = None


_header_decoder = msgspec.json.Decoder(SessionHeader)


def _looks_like_header(raw: bytes) -> bool:
    return raw.startswith(b"{") and b'"session"' in raw[:64] and b'"item"' not in raw[:4096]


def decode_session_header(data: bytes | str) -> SessionHeader:
    """Decode a session header line of a session file (``{"schema_version", "session": {...}}``).

    Raises:
        DocumentError, VersionError: with JSON pointers inside the line.
    """
    raw = data.encode() if isinstance(data, str) else bytes(data)
    try:
        read_version(raw)
        header = _header_decoder.decode(raw)
    except msgspec.ValidationError as exc:
        raise DocumentError(split_msgspec_error(exc, "")) from exc
    except msgspec.DecodeError as exc:
        raise DocumentError(syntax_problem(raw, exc, one_line=True)) from exc
    except RecursionError as exc:
        raise LimitError(Problem("", "nesting too deep")) from exc
    for name in ("metadata", "tools", "tool_choice", "settings"):
        value = getattr(header.session, name)
        if value is not msgspec.UNSET:
            check_json_safe(value, f"/session/{name}")
    return header


def _open_binary(source: str | os.PathLike[str] | IO[bytes]) -> tuple[IO[bytes], bool]:
    if isinstance(source, (str, os.PathLike)):
        return open(source, "rb"), True  # noqa: SIM115
    return source, False


def iter_jsonl(
    source: str | os.PathLike[str] | IO[bytes],
    *,
    mode: Mode = "preserving",
    limits: Limits = DEFAULT_LIMITS,
    errors: Literal["raise", "yield"] = "raise",
    file_label: str | None = None,
) -> Iterator[Any]:
    """Read a JSON Lines envelope stream in bounded memory (one line at a time).

    Blank lines are skipped. A last line without a newline is read; if it does not
    parse it is reported as truncated. Session header lines
    (:class:`~interlingua.items.SessionHeader`, as ``interlingua store export`` and ``migrate -o``
    write before each session, see :mod:`interlingua.session_file`) are checked and skipped
    (``errors="yield"`` yields each as a record with ``header`` set).

    Args:
        source: A path or a binary file object.
        mode: Read mode for the items.
        limits: Bounds; a line over ``max_line_bytes`` is an error without being read whole.
        errors: ``"raise"`` yields :class:`~interlingua.items.Envelope` and raises the first
            :class:`DocumentError`; ``"yield"`` yields a :class:`JsonlRecord` for every line.
        file_label: Name used in error locations (default: the path).

    Raises:
        DocumentError: (``errors="raise"``) with file and line set.
    """
    parts = jsonl_parts(source, mode=mode, limits=limits, errors=errors, file_label=file_label)
    if errors == "raise":
        # the envelopes of a block are handed out by C iterators, not resumed Python generators
        return itertools.chain.from_iterable(part[1] if type(part) is tuple else (part,) for part in parts)
    return _records(parts)


def _records(parts: Iterator[Any]) -> Iterator[Any]:
    for part in parts:
        if type(part) is not tuple:
            yield part
        else:
            for n, env in enumerate(part[1], part[0]):
                yield JsonlRecord(n, env, None)


def jsonl_parts(
    source: str | os.PathLike[str] | IO[bytes],
    *,
    mode: Mode,
    limits: Limits,
    errors: Literal["raise", "yield"],
    file_label: str | None,
) -> Iterator[Any]:
    """:func:`iter_jsonl`'s reader: yields what it yields, except that a block of lines read in one
    pass comes as one ``(first line number, [Envelope, ...])`` tuple (consecutive lines)."""
    fh, owned = _open_binary(source)
    label = file_label or (str(source) if isinstance(source, (str, os.PathLike)) else getattr(fh, "name", None))
    label = str(label) if label is not None else None
    state = _JsonlState()

    def careful(line: bytes) -> Iterator[Any]:
        """One line the slow, precise way (``line`` holds its ``\n`` unless it is the last)."""
        state.line_no += 1
        line_no = state.line_no
        if len(line) - line.endswith(b"\n") > limits.max_line_bytes:
            err: DocumentError = LimitError(Problem("", f"line is longer than {limits.max_line_bytes} bytes", label, line_no))
            # Skip the rest of the over-long line without holding it.
            while not line.endswith(b"\n"):
                line = fh.readline(1 << 20)
                if not line:
                    break
            if errors == "raise":
                raise err
            yield JsonlRecord(line_no, None, err)
            return
        stripped = line.strip()
        if not stripped:
            return
        if _looks_like_header(stripped):
            state.seen_content = True
            try:
                header = decode_session_header(stripped)
            except DocumentError as exc:
                # a header and an envelope have disjoint required keys: a line that reads as a plain
                # envelope is one, wherever the word "session" is (the block path reads it so too)
                env = _decode_envelope_fast(stripped, limits)
                if env is not None:
                    yield env if errors == "raise" else JsonlRecord(line_no, env, None)
                    return
                located = exc.located(file=label, line=line_no)
                if errors == "raise":
                    raise located from exc
                yield JsonlRecord(line_no, None, located)
                return
            if errors == "yield":
                yield JsonlRecord(line_no, None, None, header)
            return
        state.seen_content = True
        try:
            env = decode_envelope(stripped, mode=mode, limits=limits)
        except DocumentError as exc:
            located = exc.located(file=label, line=line_no)
            if not line.endswith(b"\n"):
                located = DocumentError(
                    [Problem(p.pointer, f"last line is truncated (no newline, does not parse): {p.message}", p.file, p.line) for p in located.problems]
                )
            if errors == "raise":
                raise located from exc
            yield JsonlRecord(line_no, None, located)
            return
        yield env if errors == "raise" else JsonlRecord(line_no, env, None)

    # Blocks of whole lines go through one typed msgspec pass (`_decode_block`) when a cheap test
    # proves the per-line checks would pass; any doubt sends the block down `careful`, line by line.
    batch_ok = _BLOCK_BYTES <= min(limits.max_line_bytes, limits.max_item_bytes, limits.max_base64_bytes)

    def whole_lines(buf: bytes | bytearray, start: int, end: int) -> Iterator[Any]:
        """The lines ``buf[start:end]`` (``end`` one past the last line end of ``buf``; ``start`` 0 or
        one past a line end): one typed pass when the proofs hold, else the line-by-line path."""
        while not state.seen_content and start < end:
            nl = buf.find(b"\n", start) + 1
            yield from careful(bytes(buf[start:nl]))
            start = nl
        if start >= end:
            return
        # The whole span first when no line of it may be a session header (`header_lines`: the
        # candidate lines, compiled when it could be built; a header never decodes as an envelope,
        # its required `session` key is no Envelope field). A span with candidates is cut into runs
        # at them first, not decoded whole only to fail at its first header.
        candidates = header_lines(buf, start, end)
        whole = batch_ok and not candidates
        envs = _decode_block(buf, limits, start, end) if whole else None
        if envs is not None:
            first = state.line_no + 1
            state.line_no += len(envs)
            yield (first, envs)
            return
        # (the runs are read where they are: spans of the block, no copy)
        for run_start, run_end, is_header in _header_spans(buf, start, end, candidates):
            if is_header:  # a session header line (session files hold one per session)
                yield from careful(bytes(buf[run_start:run_end]))
                continue
            again = run_start == start and run_end == end and whole  # the whole span did not decode
            envs = _decode_block(buf, limits, run_start, run_end) if batch_ok and not again else None
            if envs is None:
                for line in bytes(buf[run_start:run_end]).split(b"\n")[:-1]:
                    yield from careful(line + b"\n")
                continue
            first = state.line_no + 1
            state.line_no += len(envs)
            yield (first, envs)

    # Blocks are read into one buffer, reused (a fresh 1 MB bytes per read costs its pages
    # again each time). Only for the io module's own readers: any other file object is read with
    # `read`, which a wrapper may count or transform (a `readinto` passed through to the file
    # under it would go around that).
    readinto = fh.readinto if type(fh) in _READINTO_TYPES else None  # type: ignore[attr-defined]
    buffer = bytearray(_BLOCK_BYTES) if readinto is not None else None
    try:
        pending = b""
        while True:
            # Each block is decoded where it was read (no copy): only the line it shares with the
            # previous block (`pending` + its first line) is joined, and read on its own.
            # (a short last block is read in the buffer too: its `size` bytes, no copy)
            block: bytes | bytearray
            if buffer is None or readinto is None:
                block = fh.read(_BLOCK_BYTES)
                size = len(block)
            else:
                block = buffer
                size = readinto(buffer) or 0
            if not size:
                if pending:
                    yield from careful(pending)
                break
            start = block.find(b"\n", 0, size) + 1
            if start == 0:
                # no line end in a whole block: a long line; finish it with the bounded line reader
                data = pending + block[:size]
                yield from careful(data + fh.readline(max(limits.max_line_bytes + 1 - len(data), 1)))
                pending = b""
                continue
            if pending:
                head = pending + block[:start]
                yield from whole_lines(head, 0, len(head))
            else:
                start = 0
            cut = block.rfind(b"\n", 0, size) + 1
            pending = bytes(block[cut:size])
            yield from whole_lines(block, start, cut)
    finally:
        if owned:
            fh.close()


_HEADER_LINE = re.compile(rb'(?m)^\{[^\n]{0,48}"session"[^\n]*\n')


def _header_runs(data: bytes) -> Iterator[tuple[bytes, bool]]:
    """``data`` (whole lines) cut into runs of envelope lines and single session header lines (see :func:`_header_spans`)."""
    for start, end, is_header in _header_spans(data, 0, len(data)):
        yield data[start:end], is_header


def _header_spans(data: bytes | bytearray, start: int, end: int, candidates: list[int] | None = None) -> Iterator[tuple[int, int, bool]]:
    """``data[start:end]`` (whole lines; ``start`` a line start) cut into spans ``(start, end, is_header)``
    of envelope lines and single session header lines.

    A header line is what ``_HEADER_LINE`` matches (a line starting with ``{`` that has ``"session"``
    within its first 49 bytes and ends with a line end) and :func:`_looks_like_header` accepts. The
    lines ``_HEADER_LINE`` matches are ``candidates`` (default: ``header_lines(data, start, end)``,
    compiled when it could be built; its pure form searches for ``"session"``, one search per line
    that holds it), not the regex's, which tries every byte as a line start (it was most of the time
    a session file took to read: 2.6x a bare envelope stream)."""
    run = start
    for line_start in header_lines(data, start, end) if candidates is None else candidates:
        line_end = data.find(b"\n", line_start, end) + 1
        if _looks_like_header(bytes(data[line_start:line_end]).strip()):
            if line_start > run:
                yield run, line_start, False
            yield line_start, line_end, True
            run = line_end
    if run < end:
        yield run, end, False


_READINTO_TYPES = (io.BufferedReader, io.BytesIO, io.FileIO)


class _JsonlState:
    __slots__ = ("line_no", "seen_content")

    def __init__(self) -> None:
        self.line_no = 0
        self.seen_content = False


_BLOCK_BYTES = 1 << 20
"""Bytes read at a time by :func:`iter_jsonl` (a block never holds a line longer than this)."""

_schema_version_of = operator.attrgetter("schema_version")


def decode_items_block(data: bytes, count: int, limits: Limits = DEFAULT_LIMITS) -> list[Any] | None:
    """Decode ``count`` items, one JSON object per line of ``data`` (``\n``-joined, no final newline),
    in one typed msgspec pass; ``None`` unless every one would pass :func:`decode_item` unchanged
    (known type, types, nesting depth, size limits), by the same proofs as :func:`_decode_block`."""
    if len(data) > min(limits.max_item_bytes, limits.max_base64_bytes):
        return None
    if data[:1] != b"{" or data[-1:] != b"}":
        return None
    # every line end between `}` and `{` (pairs == lines: the data has no final line end)
    lines, pairs, deep = line_shape(data, 0, len(data), max(limits.max_depth - 1, 1))
    if pairs != lines or deep or lines != count - 1:
        return None
    try:
        items: list[Any] = _item_decoder.decode_lines(data)
    except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
        return None
    if len(items) != count:
        return None
    if not _decoded_base64_ok(items, limits):
        return None  # the line-by-line path locates the bad data
    return items


def _decode_block(data: bytes | bytearray, limits: Limits, start: int = 0, end: int | None = None) -> list[Envelope] | None:
    """Decode a block of whole JSON Lines (``data[start:end]``, which ends with ``\n``) in one typed msgspec pass.

    ``start`` is a line start and ``end`` (default ``len(data)``) one past a line end; the lines
    are read where they are (a memoryview of the span: no copy; the pure-Python line check copies
    a span that is not the lines after the first line end of ``data`` up to its last).

    Returns the envelopes only when this proves each line would pass :func:`decode_envelope`'s
    fast path unchanged, else ``None`` (the caller then reads the block line by line, which
    locates every problem):

    * in the block's punctuation (``{}[],:`` and line ends, everything else skipped: counted by
      ``_line_shape.line_shape``, compiled when it could be built), every line end but the last has ``}`` before it and ``{`` after it, and
      the block starts with ``{``. In valid JSON (msgspec decodes the whole block) a line end inside
      a value always has another punctuation mark on one side (two adjacent tokens of one value are
      never a ``}`` then a ``{``, and a string or number next to the line end has a ``,``, ``:``,
      ``[`` or ``]`` beside it), so every line end is between two values and none spans two lines;
      with as many values as line ends, each line holds one. (Whitespace around a value is allowed:
      the line-by-line path strips it too.);
    * every line holds fewer than ``max_depth - 1`` opening brackets (``{`` or ``[``, strings
      included), so no item or usage can nest deeper than the limit;
    * the block is no longer than the line, item and base64 limits (the caller's block size),
      so no line, item or base64 string can exceed them;
    * msgspec decodes every line as an :class:`~interlingua.items.Envelope` (types, ``seq >= 0``,
      non-empty ``session_id``, known item types only) and every ``schema_version`` is exactly
      :data:`SCHEMA_VERSION`.
    """
    if end is None:
        end = len(data)
    if data[start : start + 1] != b"{":
        return None
    view: bytes | bytearray | memoryview = memoryview(data)[start:end] if start or end != len(data) else data  # read where they are
    # (each `}\n{` of the punctuation holds one line end, so one fewer of them than line ends puts
    # all but the last between `}` and `{`; see `_line_shape`: compiled when it could be built)
    lines, pairs, deep = line_shape(data, start, end, max(limits.max_depth - 1, 1))
    if pairs != lines - 1 or deep:
        return None
    try:
        envs: list[Envelope] = _envelope_decoder.decode_lines(view)
    except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
        return None
    if len(envs) != lines:
        return None
    if any(map(SCHEMA_VERSION.__ne__, map(_schema_version_of, envs))):
        return None
    if not _decoded_base64_ok(list(map(_item_of, envs)), limits):
        return None  # the line-by-line path locates the bad data
    return envs


def _base64_ok(item: Any, limits: Limits) -> bool:
    if not (isinstance(item, _MEDIA_CLASSES) or getattr(item, "content", None)):
        return True
    try:
        check_base64(item, "", limits)
    except (LimitError, DocumentError):
        return False
    return True


_MEDIA_TYPES = frozenset(_MEDIA_CLASSES)
_CONTENT_HOLDERS = frozenset(c for c in _ITEM_CLASSES.values() if "content" in c.__struct_fields__)  # type: ignore[attr-defined]
"""Item classes with a ``content`` list (:func:`check_base64` looks into its media items)."""
_item_of = operator.attrgetter("item")
_content_of = operator.attrgetter("content")


def _decoded_base64_ok(items: list[Any], limits: Limits) -> bool:
    """:func:`_base64_ok` for every item of a typed decode (exact item classes, never ``UnknownItem``).

    The same answer, by class, without searching the text for a ``base64`` tag (a search for the
    tag, or for a ``\\u`` escape that could spell it, costs up to a pass over the bytes as long as
    a ``bytes.translate``; this looks at the decoded items instead). The classes are picked in C
    (``map(type, ...)``): a media item runs the check when its source is a ``Base64Source``; the
    ``content`` of all items that have one is looked at in one pass, and only when it holds a
    media item do those items run the check one by one."""
    types = list(map(type, items))
    for item in itertools.compress(items, map(_MEDIA_TYPES.__contains__, types)):
        if type(item.source) is Base64Source and not _base64_ok(item, limits):
            return False
    holders = list(itertools.compress(items, map(_CONTENT_HOLDERS.__contains__, types)))
    if holders and not _MEDIA_TYPES.isdisjoint(map(type, itertools.chain.from_iterable(map(_content_of, holders)))):
        return all(_base64_ok(item, limits) for item in holders)
    return True


def write_jsonl(envelopes: Iterable[Envelope], dest: str | os.PathLike[str] | IO[bytes]) -> int:
    """Write envelopes as JSON Lines (one compact envelope and ``\\n`` per line).

    A path is written to a temporary file beside it and renamed into place, so a
    failure leaves no half-written file.

    Returns:
        The number of lines written.

    Raises:
        DocumentError: an envelope is not JSON-safe (nothing is written to a path).
    """
    if isinstance(dest, (str, os.PathLike)):
        from .._paths import output_target

        path, in_place = output_target(dest)
        if in_place:  # /dev/null, a pipe: written as it is, never renamed over
            with open(path, "wb") as fh:
                return write_jsonl(envelopes, fh)
        tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
        try:
            with open(tmp, "wb") as fh:
                n = write_jsonl(envelopes, fh)
            os.replace(tmp, path)
        finally:
            if tmp.exists():
                tmp.unlink()
        return n
    n = 0
    for env in envelopes:
        dest.write(encode_envelope(env) + b"\n")
        n += 1
    return n
