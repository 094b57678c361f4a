"""Reading ``migrate``'s inputs: files and directories -> :class:`~.common.Record` s, and one record -> a migrated conversation."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import msgspec

from ..codec import SCHEMA_VERSION
from ..compat import Migrated, read_any
from ..compat import _adk
from . import logs as _logs
from . import stores as _stores
from ..errors import DocumentError, InterlinguaError
from .common import Record, _LINE_SUFFIXES, _MALFORMED, _SUFFIXES, _Usage, _decoder

def _why_unreadable(path: Path) -> str:
    """Why ``path`` is neither a directory nor a regular file: the OS's reason (a symlink loop, no
    such file, ...) or what it is (a named pipe or a device is not read)."""
    try:
        os.stat(path)
    except OSError as exc:
        return (exc.strerror or str(exc)).lower()
    return "not a regular file or directory"


def _expand(inputs: list[Path]) -> list[Path]:
    files: list[Path] = []
    for p in inputs:
        if p.is_dir():
            files.extend(sorted(f for f in p.rglob("*") if f.is_file() and (f.suffix.lower() in _SUFFIXES or _logs.is_log_name(f))))
        elif p.is_file():
            files.append(p)
        else:
            raise _Usage(f"cannot read {p}: {_why_unreadable(p)}")
    return files


def _classify(value: Any) -> str:
    """``conversation``, ``envelope``, ``message`` or ``invalid`` for one parsed JSONL line."""
    if isinstance(value, list):
        return "conversation"
    if not isinstance(value, dict):
        return "invalid"
    if "session_id" in value and "item" in value:
        return "envelope"
    if "schema_version" in value and isinstance(value.get("session"), dict):
        return "header"
    if ("schema_version" in value and "items" in value) or any(isinstance(value.get(k), list) for k in ("messages", "contents", "input")):
        return "conversation"
    if _stores.is_conversation(value):  # stored conversations (issue 26): ChatGPT, Claude.ai, ShareGPT records
        return "conversation"
    return "message"


def _lines(path: Path, fh: IO[bytes], *, streaming: bool = False) -> Iterator[Record]:
    """The records of a JSON Lines file: each session's header and envelopes together, each
    conversation line, the other message lines together. With ``streaming``, a session past
    :data:`~.session.STREAM_ENVELOPES` envelopes is given by where its lines are (a
    :class:`~.session.Span`), not as a list of dicts."""
    from .session import STREAM_ENVELOPES, Span

    source = str(path)
    messages: list[Any] = []
    messages_size = 0
    first_message = None
    envelopes: list[Any] = []
    env_start = 0
    env_session = None
    env_size = 0
    env_offset = offset = 0  # where the session's first line starts; where the current line starts
    env_count = 0
    spanned = False

    def flush_envelopes() -> Iterator[Record]:
        nonlocal envelopes, env_session, env_size, env_count, spanned
        if spanned:
            yield Record(source, env_start, span=Span(path, env_offset, offset), size=env_size)
        elif envelopes:
            yield Record(source, env_start, value=envelopes, size=env_size)
        envelopes, env_session, env_size, env_count, spanned = [], None, 0, 0, False

    for n, raw in enumerate(fh, start=1):
        at, offset = offset, offset + len(raw)
        stripped = raw.strip()
        if not stripped:
            continue
        text = raw.decode("utf-8", "replace").rstrip("\r\n")
        try:
            value = _decoder.decode(stripped)
        except msgspec.DecodeError as exc:
            offset = at
            yield from flush_envelopes()
            offset = at + len(raw)
            yield Record(source, n, text=text, error=_not_json(stripped, exc, one_line=True), size=len(raw))
            continue
        except RecursionError:
            offset = at
            yield from flush_envelopes()
            offset = at + len(raw)
            yield Record(source, n, text=text, error="nesting too deep", size=len(raw))
            continue
        kind = _classify(value)
        if kind == "header":  # a session export's header: leads that session's envelopes
            offset = at
            yield from flush_envelopes()
            offset = at + len(raw)
            envelopes, env_start, env_session, env_size, env_offset, env_count = [value], n, value["session"].get("id"), len(raw), at, 1
            continue
        if kind == "envelope":
            if env_session is not None and value.get("session_id") != env_session:
                offset = at
                yield from flush_envelopes()
                offset = at + len(raw)
            if not envelopes and not spanned:
                env_start, env_offset = n, at
            env_session = value.get("session_id")
            env_count += 1
            if spanned:
                pass
            elif streaming and env_count > STREAM_ENVELOPES:
                envelopes, spanned = [], True  # read again from the file, one envelope at a time
            else:
                envelopes.append(value)
            env_size += len(raw)
            continue
        offset = at
        yield from flush_envelopes()
        offset = at + len(raw)
        if kind == "conversation":
            yield Record(source, n, value=value, text=text, size=len(raw))
        elif kind == "invalid":
            yield Record(source, n, text=text, error=f"a JSON {type(value).__name__} is neither a conversation nor a message", size=len(raw))
        else:
            if first_message is None:
                first_message = n
            messages.append(value)
            messages_size += len(raw)
    yield from flush_envelopes()
    if messages:
        yield Record(source, first_message, value=messages, size=messages_size)


def _not_json(raw: bytes, exc: Exception, *, one_line: bool = False) -> str:
    """A reject reason for a record that is not JSON, located as convert and validate locate it
    (msgspec says "Input data was truncated" for a lone surrogate escape, which read as a cut file)."""
    from ..codec._json_safety import syntax_problem

    message = syntax_problem(raw, exc, one_line=one_line).message
    return "not JSON: " + message.removeprefix("invalid JSON ").removeprefix("invalid JSON: ")


# a transcript document of the current major, as interlingua writes it: read item by item
_DOCUMENT_HEAD = re.compile(rb'\A\s*\{\s*"schema_version"\s*:\s*"' + SCHEMA_VERSION.split(".")[0].encode() + rb'\.[0-9]+"\s*,\s*"items"\s*:')


def _records(path: Path, *, streaming: bool = False, fmt: str = "auto") -> Iterator[Record]:
    try:
        log = _logs.log_format(path, fmt)  # issue 26: agent logs, one conversation per file
        if log is not None:
            yield Record(str(path), None, log=log, size=path.stat().st_size)
            return
        if path.suffix.lower() in _LINE_SUFFIXES:
            with open(path, "rb") as fh:
                # a pretty-printed JSON value (``convert --to canonical -o X.jsonl`` writes one): its
                # first line, a lone ``{`` or ``[``, is never a JSON Lines record; read it whole
                head = fh.read(4096).lstrip()
                if head.split(b"\n", 1)[0].strip() not in (b"{", b"["):
                    fh.seek(0)
                    yield from _lines(path, fh, streaming=streaming)
                    return
        if streaming:
            with open(path, "rb") as fh:
                head = fh.read(4096)
            if _DOCUMENT_HEAD.match(head):
                yield Record(str(path), None, stream=path, size=path.stat().st_size)
                return
        if path.suffix.lower() == ".json" and path.stat().st_size >= _stores.STREAM_JSON_ARRAYS_FROM:
            streamed = _array_records(path)  # a large conversations.json: an element at a time (issue 26)
            if streamed is not None:
                yield from streamed
                return
        data = path.read_bytes()
    except OSError as exc:
        raise _Usage(f"cannot read {path}: {exc.strerror or exc}") from exc
    try:
        value = _decoder.decode(data)
    except msgspec.DecodeError as exc:
        if data.strip().count(b"\n") >= 1:
            import io

            yield from _lines(path, io.BytesIO(data))
        else:
            yield Record(str(path), None, text=data.decode("utf-8", "replace"), error=_not_json(data, exc), size=len(data))
        return
    except RecursionError:
        yield Record(str(path), None, text=data.decode("utf-8", "replace"), error="nesting too deep", size=len(data))
        return
    size = len(data)
    cases = _adk.split(value) if fmt in ("auto", "adk") else None  # issue 26: an ADK eval set, one conversation per case
    if cases:
        del data
        for v in cases:
            yield Record(str(path), None, value=v, size=size // len(cases))
        return
    if isinstance(value, list) and value and all(isinstance(v, list) or (isinstance(v, dict) and _classify(v) == "conversation") for v in value):
        lines = _element_lines(data, len(value))
        del data  # not held while the conversations are converted and written
        for v, line in zip(value, lines, strict=True):  # a JSON list of conversations (message lists, documents or request bodies)
            yield Record(str(path), line, value=v, size=size // len(value))
        return
    del data  # not held while the conversation is converted and written
    yield Record(str(path), None, value=value, size=size)  # the whole file: no line


def _element_lines(data: bytes, count: int) -> list[int | None]:
    """The line (1-based) where each of the ``count`` elements of the JSON array ``data`` starts
    (``None`` each when the array's structure cannot be read here)."""
    import io

    lines: list[int | None] = []
    line, at = 1, 0
    try:
        for offset, _raw in _stores.iter_json_array(io.BytesIO(data)):
            line += data.count(b"\n", at, offset)
            at = offset
            lines.append(line)
    except _stores.ArrayError:
        return [None] * count
    return lines if len(lines) == count else [None] * count


class _LineCounter:
    """Lines of a file at increasing byte offsets, counted by a second read of the file (chunks of
    1 MiB; nothing held): the line where each element of a large JSON array starts."""

    def __init__(self, path: Path) -> None:
        self.fh: IO[bytes] | None = open(path, "rb")  # noqa: SIM115 - closed by close()
        self.at = 0
        self.line = 1

    def line_at(self, offset: int) -> int | None:
        fh = self.fh
        if fh is None or offset < self.at:
            return None
        while self.at < offset:
            chunk = fh.read(min(offset - self.at, 1 << 20))
            if not chunk:
                return None
            self.line += chunk.count(b"\n")
            self.at += len(chunk)
        return self.line

    def close(self) -> None:
        if self.fh is not None:
            self.fh.close()
            self.fh = None


def _array_records(path: Path) -> Iterator[Record] | None:
    """The conversations of a large JSON array file, decoded one at a time; ``None`` when the file is not an
    array whose first element is a conversation (the whole-file path then decides)."""
    fh = open(path, "rb")  # noqa: SIM115 - closed by the generator, or here
    elements = _stores.iter_json_array(fh)
    try:
        first = next(elements, None)
        value = _decoder.decode(first[1]) if first is not None else None
    except (_stores.ArrayError, msgspec.DecodeError, RecursionError):
        fh.close()
        return None
    if not (isinstance(value, list) or (isinstance(value, dict) and _classify(value) == "conversation")):
        fh.close()
        return None

    def records() -> Iterator[Record]:
        source = str(path)
        lines = _LineCounter(path)
        try:
            assert first is not None
            yield Record(source, lines.line_at(first[0]), value=value, size=len(first[1]))
            for offset, raw in elements:
                line = lines.line_at(offset)
                try:
                    yield Record(source, line, value=_decoder.decode(raw), size=len(raw))
                except (msgspec.DecodeError, RecursionError) as exc:
                    yield Record(source, line, text=raw.decode("utf-8", "replace"), error=f"the array element at byte {offset}: {_not_json(raw, exc)}", size=len(raw))
        except _stores.ArrayError as exc:
            yield Record(source, lines.line_at(exc.offset), error=f"not JSON: at byte {exc.offset}: {exc}")
        finally:
            fh.close()
            lines.close()

    return records()




def _check_semantics(migrated: Migrated) -> None:
    """What migrate writes passes ``interlingua validate`` (issue 32): the items read, and each fork's,
    get validation's semantic checks (a top-level text item with no role, a tool_call with no
    arguments, a tool_result with no earlier tool_call, ...), as ``convert --from canonical`` does.

    Raises:
        DocumentError: the problems, at ``/items/<i>`` of the conversation read.
    """
    from ..validation import ItemChecker, check_transcript

    problems = check_transcript(migrated.transcript)
    items = migrated.transcript.items
    for n, fork in enumerate(migrated.forks):  # a fork is written as the shared items, then its own
        checker = ItemChecker()
        for i, item in enumerate(items[: fork.at + 1]):
            checker.check(item, f"/items/{i}")
        for j, item in enumerate(fork.items):
            problems.extend(checker.check(item, f"/forks/{n}/items/{j}"))
    if problems:
        raise DocumentError(problems)


def _convert(record: Record, fmt: str) -> tuple[Migrated | None, str | None]:
    if record.error is not None:
        return None, record.error
    from ..conversion import check_limits

    try:
        migrated = read_any(record.value, fmt)
        check_limits(migrated.transcript.items, what=f"the {migrated.format or fmt} conversation")
        _check_semantics(migrated)
    except DocumentError as exc:  # a limit, or a document refused: where (the file, the record's line)
        return None, f"{type(exc).__name__}: {exc.located(file=record.source, line=record.line)}"
    except InterlinguaError as exc:
        return None, f"{type(exc).__name__}: {exc}"
    except _MALFORMED as exc:
        return None, f"malformed {fmt if fmt != 'auto' else 'input'}: {type(exc).__name__}: {exc}"
    return migrated, None
