"""``interlingua migrate``: stored legacy conversations -> canonical envelopes or stored sessions.

Usage::

    interlingua migrate INPUT... [--from auto|FORMAT] (-o OUT.jsonl | --store URL)
                        [--rejects PATH] [--fail-fast] [--progress/--no-progress] [--quiet]

Inputs are files or directories (read recursively: ``*.json``, ``*.jsonl``, ``*.ndjson``).
A ``.json`` file holds one conversation (or a JSON list of conversations: message lists,
documents or request bodies); a
``.jsonl``/``.ndjson`` file (or a ``.json`` file that is not one JSON value) holds one
conversation a line, or one message a line (then the whole file is one conversation), or
interlingua envelopes (consecutive lines of one session form one conversation; a session
export's header line gives that session its metadata and tools).

Agent logs (a Claude Code session file, a Codex rollout, ``.jsonl.zst`` too) are one conversation
per file, read in bounded memory, and a tree-shaped conversation is written as its session plus one
fork per abandoned branch (see :mod:`._migrate_logs`); an ADK eval set is one conversation per case.

Each conversation is read by :mod:`interlingua.compat` (format detected unless ``--from``
names one) and written as JSON Lines envelopes to ``-o`` (``seq`` from 0, no ``created_at``
so the output is a function of the input; a transcript's ``usage``/``stop_reason`` ride on its
last envelope), or as a session in the store at ``--store``.
The session id is derived from the canonical transcript (:func:`interlingua.compat.session_id_for`),
so re-running on the same input writes the same sessions again instead of new ones.

A record that cannot be read goes to the reject file (``--rejects``, default
``OUT.rejects.jsonl`` beside ``-o``, or ``migrate.rejects.jsonl`` with ``--store``) as one
JSON line ``{"source", "line", "reason", "record"}`` (``record`` is the line's text exactly,
or the parsed value for a whole-file record; the file is replaced on each run) and the run
continues, unless ``--fail-fast``
(then it stops at the first reject; what was migrated before is kept).

With ``--store``, conversations are written in batches, one transaction per batch
(:meth:`~interlingua.store.SessionStore.add_sessions`: all or nothing, never part of a
session), each session under its content-derived id: a conversation already stored by an
earlier run is counted as "already in the store" and left unchanged.

Exit codes: 0 every record migrated; 1 some records rejected; 2 usage error or unreadable
input (missing file, unwritable output, a store that cannot be opened or is not in this build). A summary line (conversations, the
forks of tree-shaped ones counted apart, items, rejects, warnings) goes to stderr at the end; report entries are printed as ``warning:`` lines (the
first 50; the summary counts all).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import glob
import importlib
import os
import re
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Annotated, Any

import msgspec
import typer

from ..codec import DEFAULT_LIMITS, SCHEMA_VERSION, UnknownItem, check_item_limits, decode_session_header
from ..compat import FORMATS, Migrated, read_any
from ..compat import _adk
from . import _migrate_logs as _logs
from ..compat._base import SESSION_ID_PREFIX
from ..session_file import header_bytes
from . import _migrate_stores as _stores
from .convert import PolicyChoice
from ..errors import DocumentError, InterlinguaError, LimitError, Problem
from ..mapping import Report

__all__ = ["migrate", "register"]

_SUFFIXES = (".json", ".jsonl", ".ndjson")
_LINE_SUFFIXES = (".jsonl", ".ndjson")
_MAX_WARNING_LINES = 50
_MALFORMED = (KeyError, TypeError, ValueError, AttributeError, IndexError, msgspec.ValidationError)
_decoder = msgspec.json.Decoder()
_encoder = msgspec.json.Encoder()


def _enc_hook(obj: Any) -> Any:
    if isinstance(obj, UnknownItem):
        return msgspec.Raw(obj.raw)
    raise NotImplementedError(f"{type(obj).__name__} is not JSON-safe")


_item_encoder = msgspec.json.Encoder(enc_hook=_enc_hook)


class _Usage(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass
class Record:
    """One conversation to migrate, or a line that could not be parsed."""

    source: str
    line: int | None
    value: Any = None
    text: str | None = None
    error: str | None = None
    size: int = 0
    stream: Path | None = None
    """A transcript document file to read item by item (``-o`` only; see :func:`_stream_document`)."""
    span: Any = None
    """A long session of a session file, by where its lines are (``-o`` only; see :mod:`._migrate_session`)."""
    log: str | None = None
    """An agent log file (``claude-code``, ``codex``): one conversation read in bounded memory (:mod:`._migrate_logs`)."""


# --------------------------------------------------------------------------- reading inputs


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
    :data:`~._migrate_session.STREAM_ENVELOPES` envelopes is given by where its lines are (a
    :class:`~._migrate_session.Span`), not as a list of dicts."""
    from ._migrate_session import STREAM_ENVELOPES, Span

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
    from ..codec import _syntax_problem

    message = _syntax_problem(raw, exc, one_line=one_line).message
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
    del data  # not held while the conversation is converted and written
    cases = _adk.split(value) if fmt in ("auto", "adk") else None  # issue 26: an ADK eval set, one conversation per case
    if cases:
        for v in cases:
            yield Record(str(path), None, value=v, size=size // len(cases))
        return
    if isinstance(value, list) and value and all(isinstance(v, list) or (isinstance(v, dict) and _classify(v) == "conversation") for v in value):
        for v in value:  # a JSON list of conversations (message lists, documents or request bodies)
            yield Record(str(path), None, value=v, size=size // len(value))
        return
    yield Record(str(path), None, value=value, size=size)


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
        try:
            assert first is not None
            yield Record(source, None, value=value, size=len(first[1]))
            for offset, raw in elements:
                try:
                    yield Record(source, None, value=_decoder.decode(raw), size=len(raw))
                except (msgspec.DecodeError, RecursionError) as exc:
                    yield Record(source, None, text=raw.decode("utf-8", "replace"), error=f"the array element at byte {offset}: {_not_json(raw, exc)}", size=len(raw))
        except _stores.ArrayError as exc:
            yield Record(source, None, error=f"not JSON: at byte {exc.offset}: {exc}")
        finally:
            fh.close()

    return records()


# --------------------------------------------------------------------------- writing


def _given(value: Any) -> Any:
    return None if value is msgspec.UNSET else value


class _SessionIds:
    """Session ids of one run: the source's own, else content-derived.

    The same conversation read again in a later run gets the same id (re-running a migration adds
    nothing); the n-th copy of one conversation within an input gets the content id of the copy
    number too, so two equal conversations are two sessions and the output stays valid.
    """

    def __init__(self) -> None:
        self.seen: dict[bytes, int] = {}
        self.sources: set[str] = set()

    def assign(self, migrated: Migrated) -> str:
        source = migrated.source_session_id
        if source is not None and source not in self.sources:
            self.sources.add(source)
            return source
        sid = self.assign_hashed(hashlib.sha256(_item_encoder.encode(migrated.transcript)))
        if source is not None:
            migrated.report.add("changed", f"session id {source!r} appears again in this input; this copy is session {sid!r}")
        return sid

    def assign_hashed(self, digest: Any) -> str:
        """The content-derived id of a transcript whose compact encoding ``digest`` (a sha256
        object) has hashed: :func:`~interlingua.compat.session_id_from_bytes` of those bytes, or
        of those bytes plus ``#N`` for the N-th copy in this run."""
        key = digest.digest()[:12]
        copy = self.seen.get(key, 0)
        self.seen[key] = copy + 1
        if copy:
            digest = digest.copy()
            digest.update(b"#" + str(copy).encode())
        return SESSION_ID_PREFIX + digest.hexdigest()[:32]


def _usual_mode(path: str) -> None:
    """Give a temporary file the mode a plainly created file would get (mkstemp makes it 0600)."""
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(path, 0o666 & ~umask)


class _AtomicFile:
    """A file written beside its final path (``.NAME.PID.XXXX.tmp``) and renamed into place by
    :meth:`commit`; :meth:`discard` removes it. A run killed with SIGKILL leaves the temporary file
    behind: :func:`_remove_stale` deletes such files of dead processes on the next run."""

    def __init__(self, path: Path) -> None:
        from .._paths import output_target

        try:
            real, in_place = output_target(path)
        except OSError as exc:  # a symlink loop
            raise _Usage(f"cannot write {path}: {exc.strerror or exc}") from exc
        self.path = real
        self.tmp = ""
        if in_place:  # /dev/null, a pipe: written in place, never renamed over
            try:
                self.fh = open(real, "wb")  # noqa: SIM115 - closed by commit/discard
            except OSError as exc:
                raise _Usage(f"cannot write {path}: {exc.strerror or exc}") from exc
            return
        path = real
        directory = path.parent if str(path.parent) else Path(".")
        _remove_stale(path)
        _OWN_TARGETS.add(path)  # before mkstemp: a signal between creating the file and recording it
        try:
            fd, self.tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=directory)
        except OSError as exc:
            raise _Usage(f"cannot write {path}: {exc.strerror or exc}") from exc
        _LIVE.add(self)
        _usual_mode(self.tmp)
        self.fh = os.fdopen(fd, "wb")

    def commit(self) -> None:
        self.fh.close()
        if self.tmp:
            os.replace(self.tmp, self.path)
        _LIVE.discard(self)

    def discard(self) -> None:
        if hasattr(self, "fh"):
            # on a full disk closing flushes and fails again; the descriptor is closed all the same
            with contextlib.suppress(OSError):
                self.fh.close()
        if self.tmp and os.path.exists(self.tmp):
            os.unlink(self.tmp)
        _LIVE.discard(self)


_LIVE: set[_AtomicFile] = set()
"""Temporary files not yet committed; whatever ends the run removes them (see :func:`_terminate_cleanly`)."""

_OWN_TARGETS: set[Path] = set()
"""Every path this process opened an :class:`_AtomicFile` for: at the end of the run, any
``.NAME.<this pid>.*.tmp`` beside them is removed too (one a signal left between ``mkstemp`` and
:data:`_LIVE`, or during a commit)."""


def _discard_all() -> None:
    for leftover in list(_LIVE):
        leftover.discard()
    for path in list(_OWN_TARGETS):
        directory = path.parent if str(path.parent) else Path(".")
        for tmp in directory.glob(f".{glob.escape(path.name)}.{os.getpid()}.*.tmp"):
            with contextlib.suppress(OSError):
                tmp.unlink()


def _remove_stale(path: Path) -> None:
    """Remove temporary files of ``path`` left by runs that were killed (their process is gone)."""
    directory = path.parent if str(path.parent) else Path(".")
    for tmp in directory.glob(f".{path.name}.*.tmp"):
        pid = tmp.name[len(path.name) + 2 :].split(".", 1)[0]
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            with contextlib.suppress(OSError):
                tmp.unlink()
                typer.echo(f"note: removed {tmp}, left by an earlier run that was killed", err=True)
        except OSError:
            continue


class _JsonlSink:
    """Sessions to a session file, written beside it and renamed into place at the end."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.file = _AtomicFile(out)
        self.fh = self.file.fh

    label = "written"

    def write(self, migrated: Migrated, sid: str, extra: dict[str, Any] | None = None) -> bool:
        """Write one conversation as a session (header line, then envelopes), then each of its forks
        as a session whose header names its ``parent_id`` and ``fork_seq``; ``True`` (always: the
        file is written whole each run)."""
        # Everything here came from parsed JSON, so it is JSON-safe: encode once, without the
        # codec's per-object walk (bytes identical to encode_envelope).
        transcript = migrated.transcript
        header = _header_line(sid, transcript, extra)
        head, tails = _envelope_parts(sid, transcript)
        out = bytearray()
        for i, item in enumerate(transcript.items):
            encoded = _item_encoder.encode(item)
            # the readers' limits (depth, item size, inline base64): nothing is written that validate refuses
            check_item_limits(item, encoded, pointer=f"/items/{i}")
            out += _envelope_line(head, i, encoded, tails.get(i, b""))
        self.fh.write(header)
        self.fh.write(out)
        for fid, fork, header_extra in _stores.fork_transcripts(migrated, sid):  # tree-shaped histories: each abandoned branch
            self.write(Migrated(fork, migrated.report, migrated.format), fid, header_extra)
        return True

    def write_spooled(self, sid: str, shell: Any, spool: IO[bytes], count: int, longest: int, extra: dict[str, Any] | None = None) -> None:
        """Write one session whose items are in ``spool``, one compact item a line (see
        :func:`_stream_document`), ``longest`` the longest: the bytes :meth:`write` writes for the
        same transcript, and nothing when a line would be over the limits.

        Raises:
            LimitError: as :meth:`write`.
        """
        header = _header_line(sid, shell, extra)
        tails = _response_tails(shell, count)  # the shell holds no items: placed by the spooled items' count
        head = _envelope_parts(sid, shell)[0]
        longest_tail = max(map(len, tails.values()), default=0)
        if len(head) + len(str(count)) + 9 + longest + longest_tail > DEFAULT_LIMITS.max_line_bytes:
            spool.seek(0)  # perhaps over: check every line exactly before writing any
            for i, line in enumerate(spool):
                _envelope_line(head, i, line[:-1], tails.get(i, b""))
        self.fh.write(header)
        spool.seek(0)
        buf = bytearray()
        item = b',"item":'
        for i, line in enumerate(spool):  # every line is within the limits (checked above)
            tail = tails.get(i)
            if tail is not None:
                buf += head + str(i).encode() + item + line[:-1] + tail + b"}\n"
            else:
                buf += head + str(i).encode() + item + line[:-1] + b"}\n"
            if len(buf) > 1 << 20:
                self.fh.write(buf)
                buf = bytearray()
        self.fh.write(buf)

    def close(self, keep: bool = True) -> None:
        if keep:
            self.file.commit()
        else:
            self.file.discard()


class _FormatFileSink(_JsonlSink):
    """``--to NAME``: each conversation as one line of format ``NAME``'s JSON (see :mod:`._migrate_stores`);
    what the format does not keep joins the conversation's report (printed as warnings)."""

    def __init__(self, out: Path, fmt: str, policy: str = "error") -> None:
        super().__init__(out)
        self.format = _stores.FormatSink(self.fh, fmt, policy)

    def write(self, migrated: Migrated, sid: str, extra: dict[str, Any] | None = None) -> bool:
        migrated.report.extend(self.format.write(migrated))
        for _fid, fork, _extra in _stores.fork_transcripts(migrated, sid):
            migrated.report.extend(self.format.write(Migrated(fork, Report(), migrated.format)))
        return True


_Outcome = tuple[Record, Migrated, "bool | InterlinguaError"]
"""A conversation a sink is done with: its record, the migrated conversation, and ``True`` (written),
``False`` (already there) or the error that refused it."""


def _header_line(sid: str, transcript: Any, extra: dict[str, Any] | None = None) -> bytes:
    """A session's header line (with its newline).

    Raises:
        LimitError: longer than ``max_line_bytes`` (``validate`` and ``store import`` would refuse it).
    """
    line = header_bytes(
        sid,
        metadata=_given(transcript.metadata),
        tools=_given(transcript.tools),
        tool_choice=_given(transcript.tool_choice),
        settings=_given(transcript.settings),
        extra=extra,
    )
    if len(line) > DEFAULT_LIMITS.max_line_bytes:
        raise LimitError(Problem("/session", f"the session header (metadata, tools, settings) is {len(line)} bytes; the limit of a line is {DEFAULT_LIMITS.max_line_bytes}"))
    decode_session_header(line)  # read back as store import and validate will (depth of tools, settings, metadata)
    return line + b"\n"


def _envelope_parts(sid: str, transcript: Any) -> tuple[bytes, dict[int, bytes]]:
    """An envelope line's start (up to ``"seq":``) and, per item index, what follows its item."""
    # Everything here came from parsed JSON, so it is JSON-safe: encode once, without the
    # codec's per-object walk (bytes identical to encode_envelope).
    head = b'{"schema_version":"' + SCHEMA_VERSION.encode() + b'","session_id":' + _item_encoder.encode(sid) + b',"seq":'
    return head, _response_tails(transcript)


def _response_tails(transcript: Any, count: int | None = None) -> dict[int, bytes]:
    """Per item index, its envelope's response fields as JSON members (``,"usage":{...}`` ...): each
    ``responses`` record on its item, the transcript's own usage, stop reason and response metadata
    (the response that ended it) on the last item."""
    from ..session_file import envelope_responses

    return {
        i: b"".join(b',"' + name.encode() + b'":' + _item_encoder.encode(value) for name, value in fields.items())
        for i, fields in envelope_responses(transcript, count).items()
    }


def _envelope_line(head: bytes, i: int, item: bytes, tail: bytes) -> bytes:
    """One envelope line.

    Raises:
        LimitError: the item is over ``max_item_bytes`` or the line over ``max_line_bytes``: what
            ``validate`` and ``store import`` refuse is never written.
    """
    limits = DEFAULT_LIMITS
    if len(item) > limits.max_item_bytes:
        raise LimitError(Problem(f"/items/{i}", f"item is {len(item)} bytes; the limit is {limits.max_item_bytes}"))
    line = head + str(i).encode() + b',"item":' + item + tail + b"}\n"
    if len(line) - 1 > limits.max_line_bytes:
        raise LimitError(Problem(f"/items/{i}", f"its envelope line is {len(line) - 1} bytes; the limit is {limits.max_line_bytes}"))
    return line


def _count(n: int, noun: str) -> str:
    """``1 conversation``, ``2 conversations``."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _newer_minor(version: str) -> bool:
    """Whether ``version`` is a newer minor of this reader's major (read, and reported, whole)."""
    from ..codec import SCHEMA_VERSION

    try:
        major, minor = (int(x) for x in version.split("."))
        ours = tuple(int(x) for x in SCHEMA_VERSION.split("."))
    except ValueError:
        return False
    return major == ours[0] and minor > ours[1]


def _stream_document(record: Record, sink: _JsonlSink, ids: _SessionIds) -> int | None:
    """Migrate a transcript document file read item by item (bounded memory): the items are
    decoded and checked one at a time, encoded to a temporary spool file (one a line) while their
    bytes are hashed for the session id, then written as the session. Returns the number of items,
    or ``None`` when the document must be read whole (the usual path then reports what it reports).

    Raises:
        InterlinguaError: the document is refused (an item over the limits, a line too long).
    """
    from .._docstream import Fallback, TranscriptStream
    from ..items import Transcript

    assert record.stream is not None
    digest = hashlib.sha256()
    count = longest = 0
    with open(record.stream, "rb") as fh, tempfile.TemporaryFile(dir=sink.file.tmp and os.path.dirname(sink.file.tmp) or None) as spool:
        stream = TranscriptStream(fh)
        batch: list[bytes] = []

        def flush() -> None:
            nonlocal count, longest
            if not batch:
                return
            if count == 0:
                digest.update(b'{"schema_version":' + _item_encoder.encode(stream.version) + b',"items":[')
            else:
                digest.update(b",")
            digest.update(b",".join(batch))
            size = max(map(len, batch))
            if size > DEFAULT_LIMITS.max_item_bytes:
                at = next(i for i, enc in enumerate(batch) if len(enc) == size)
                raise LimitError(Problem(f"/items/{count + at}", f"item is {size} bytes; the limit is {DEFAULT_LIMITS.max_item_bytes}"))
            longest = max(longest, size)
            spool.write(b"\n".join(batch) + b"\n")
            count += len(batch)
            batch.clear()

        from ..history._integrity import READER_RULES, IntegrityScanner

        scanner = IntegrityScanner(open_end=True)
        try:
            encode = _item_encoder.encode
            for item in stream:
                scanner.feed(item)
                if type(item) is UnknownItem:  # as the whole path holds it: re-encoded from the parsed value
                    item = UnknownItem(_encoder.encode(_decoder.decode(item.raw)), item.type)
                batch.append(encode(item))
                if len(batch) >= 4096:
                    flush()
            flush()
            if _newer_minor(stream.version):  # the whole path reports what the newer minor is written as
                return None
            if any(f.rule in READER_RULES for f in scanner.findings):  # the whole path applies the readers' rule and reports it
                return None
        except Fallback:
            return None
        shell = stream.shell
        rest = Transcript(
            schema_version=shell.schema_version, items=[], tools=shell.tools, tool_choice=shell.tool_choice, settings=shell.settings,
            metadata=shell.metadata, usage=shell.usage, stop_reason=shell.stop_reason, response=shell.response, responses=getattr(shell, "responses", msgspec.UNSET),
        )
        empty = _item_encoder.encode(rest)
        at = empty.index(b'"items":[') + len(b'"items":[')
        if count == 0:
            digest.update(empty[:at])
        digest.update(empty[at:])
        sink.write_spooled(ids.assign_hashed(digest), rest, spool, count, longest)
    return count


class _StoreSink:
    """Sessions in a :class:`~interlingua.store.SessionStore`, one per conversation.

    Conversations are collected into batches (:data:`_BATCH_SESSIONS` sessions or
    :data:`_BATCH_ITEMS` items) and each batch is written in one transaction
    (:meth:`~interlingua.store.SessionStore.add_sessions`): a handful of statements per batch
    instead of a transaction per conversation, and never part of a session. Ids are
    content-derived, so a conversation migrated by an earlier run is left as it is and counted
    as already present. When a batch is refused (an invalid conversation, a database error),
    its conversations are written one at a time (:meth:`~interlingua.store.SessionStore.add_session`)
    so that only the culprit is rejected.
    """

    label = "stored"

    def __init__(self, url: str, *, fail_fast: bool = False) -> None:
        try:
            store_mod = importlib.import_module("interlingua.store")
        except ModuleNotFoundError as exc:
            raise _Usage("--store needs interlingua.store, which is not available in this build; use -o OUT.jsonl") from exc
        self._store_mod = store_mod
        self.url = url
        self.fail_fast = fail_fast
        self.loop = asyncio.new_event_loop()
        try:
            self.store = self.loop.run_until_complete(store_mod.SessionStore.open(url))
        except InterlinguaError as exc:
            self.loop.close()
            raise _Usage(f"cannot open the store: {exc}") from exc
        self.present = 0
        self.present_forks = 0
        self._early: list[_Outcome] = []
        self.pending: list[tuple[Record, Migrated, Any]] = []
        self.pending_items = 0

    def _new(self, migrated: Migrated, sid: str) -> Any:
        transcript = migrated.transcript
        items: list[Any] = transcript.items
        if transcript.responses:
            # each response's usage, stop reason and metadata on its own last item, as a session file holds them
            from ..items import Envelope
            from ..session_file import envelope_responses

            fields = envelope_responses(transcript)
            items = [Envelope(schema_version=SCHEMA_VERSION, session_id=sid, seq=i, item=item, **fields.get(i, {})) for i, item in enumerate(items)]
        return self._store_mod.NewSession(
            sid,
            items,
            metadata=dict(transcript.metadata) if transcript.metadata is not msgspec.UNSET else None,
            tools=list(transcript.tools) if transcript.tools is not msgspec.UNSET and transcript.tools else None,
            tool_choice=_given(transcript.tool_choice),
            settings=_given(transcript.settings),
            usage=_given(transcript.usage),
            stop_reason=_given(transcript.stop_reason),
            response=_given(transcript.response),
        )

    def submit(self, record: Record, migrated: Migrated, sid: str) -> list[_Outcome]:
        """Queue one conversation; returns the outcomes of a batch when this one completed it."""
        self.pending.append((record, migrated, self._new(migrated, sid)))
        self.pending_items += len(migrated.transcript.items)
        if len(self.pending) >= _BATCH_SESSIONS or self.pending_items >= _BATCH_ITEMS:
            return self.flush()
        return []

    def flush(self) -> list[_Outcome]:
        """Write the queued conversations; their outcomes, in input order."""
        batch, self.pending, self.pending_items = self.pending, [], 0
        early, self._early = self._early, []
        if not batch:
            return early
        try:
            flags = self.loop.run_until_complete(self.store.add_sessions([new for _r, _m, new in batch]))
        except InterlinguaError:
            return early + self._one_by_one(batch)
        return early + [self._count(r, m, created, n.session_id) for (r, m, n), created in zip(batch, flags)]

    def _one_by_one(self, batch: list[tuple[Record, Migrated, Any]]) -> list[_Outcome]:
        out: list[_Outcome] = []
        for record, migrated, new in batch:
            try:
                created = self.loop.run_until_complete(
                    self.store.add_session(
                        new.session_id,
                        new.items,
                        metadata=new.metadata,
                        tools=new.tools,
                        tool_choice=new.tool_choice,
                        settings=new.settings,
                        usage=new.usage,
                        stop_reason=new.stop_reason,
                        response=new.response,
                    )
                )
            except InterlinguaError as exc:
                out.append((record, migrated, exc))
                if self.fail_fast:
                    break  # the run stops here: what follows is not written
                continue
            out.append(self._count(record, migrated, created, new.session_id))
        return out

    # --- issue 26: agent logs and forks (see ._migrate_logs) ---
    def flush_pending(self) -> None:
        """Write the queued batch now (its outcomes are collected by the next :meth:`flush`)."""
        self._early.extend(self.flush())

    def add_now(self, migrated: Migrated, sid: str) -> bool:
        """Add one session now; ``False`` when it is stored already (counted as present).

        Raises:
            InterlinguaError: the store refused it.
        """
        created = self.loop.run_until_complete(self.store.add_sessions([self._new(migrated, sid)]))[0]
        if not created:
            self.present += 1
        return bool(created)

    def fork_now(self, sid: str, at: int, fork_id: str, items: list[Any]) -> bool:
        """Fork ``sid`` at ``at`` as ``fork_id`` and append ``items``; ``False`` when ``fork_id`` is
        stored already with all its items (an earlier run). A fork an earlier run left without its items
        gets them now.

        Raises:
            InterlinguaError: the store refused the fork or its items (the new fork is removed).
        """
        missing = self._store_mod.SessionNotFoundError
        try:
            head = self.loop.run_until_complete(self.store.head(fork_id))
        except missing:
            head = None
        if head is not None and head >= at + len(items):
            self.present_forks += 1
            return False
        if head is None:
            self.loop.run_until_complete(self.store.fork(sid, at, new_session_id=fork_id))
        try:
            if items:
                self.loop.run_until_complete(self.store.append(fork_id, items, expected_seq=at))
        except InterlinguaError:
            if head is None:
                self.loop.run_until_complete(self.store.delete_session(fork_id))
            raise
        return True
    # --- end issue 26 ---

    def _count(self, record: Record, migrated: Migrated, created: bool, sid: str = "") -> _Outcome:
        if not created:
            self.present += 1  # migrated by an earlier run
        if migrated.forks:  # tree-shaped histories: each abandoned branch as store.fork of the session
            try:
                self.loop.run_until_complete(_stores.store_forks(self.store, sid, migrated))
            except InterlinguaError as exc:
                return (record, migrated, exc)
        return (record, migrated, created)

    def close(self, keep: bool = True) -> None:
        try:
            self.loop.run_until_complete(self.store.close())
        finally:
            self.loop.close()


_BATCH_SESSIONS = 500
_BATCH_ITEMS = 5000
"""A ``--store`` batch (one transaction) closes at this many conversations or items, whichever comes first."""


class _Rejects:
    """The reject file: created on the first reject, written atomically, lines in input order.

    Records of one input file can be read out of line order (the lines of a message list are one
    conversation, read when the file ends), so each file's rejects are sorted by line before they
    are written.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.file: _AtomicFile | None = None
        self.count = 0
        self.pending: list[tuple[int, bytes]] = []

    def add(self, record: Record, reason: str, *, copy: bool = True) -> None:
        """Add a reject; ``copy=False`` (a record refused for its size) leaves ``record`` null."""
        entry = {"source": record.source, "line": record.line, "reason": reason, "record": (record.text if record.text is not None else record.value) if copy else None}
        self.pending.append((record.line or 0, _encoder.encode(entry) + b"\n"))
        self.count += 1

    def end_of_file(self) -> None:
        if not self.pending:
            return
        if self.file is None:
            self.file = _AtomicFile(self.path)
        for _, line in sorted(self.pending, key=lambda p: p[0]):
            self.file.fh.write(line)
        self.pending = []

    def close(self, keep: bool = True) -> None:
        if keep:
            self.end_of_file()
        if self.file is not None:
            self.file.commit() if keep else self.file.discard()


# --------------------------------------------------------------------------- command


def _where(record: Record) -> str:
    return f"{record.source}:{record.line}" if record.line is not None else record.source


def _convert(record: Record, fmt: str) -> tuple[Migrated | None, str | None]:
    if record.error is not None:
        return None, record.error
    from ..conversion import check_limits

    try:
        migrated = read_any(record.value, fmt)
        check_limits(migrated.transcript.items, what=f"the {migrated.format or fmt} conversation")
    except LimitError as exc:
        return None, f"{type(exc).__name__}: {exc.located(file=record.source, line=record.line)}"
    except InterlinguaError as exc:
        return None, f"{type(exc).__name__}: {exc}"
    except _MALFORMED as exc:
        return None, f"malformed {fmt if fmt != 'auto' else 'input'}: {type(exc).__name__}: {exc}"
    return migrated, None


def run(
    inputs: list[Path],
    *,
    fmt: str,
    out: Path | None,
    store: str | None,
    rejects: Path | None,
    fail_fast: bool,
    progress: bool | None,
    quiet: bool = False,
    to: str | None = None,
    policy: str | None = None,
) -> int:
    """Migrate ``inputs``; return the exit code (messages go to stderr).

    Raises:
        _Usage: usage error or unreadable input (exit 2).
    """
    if fmt != "auto" and fmt not in FORMATS:
        raise _Usage(f"unknown format {fmt!r}; known: auto, {', '.join(FORMATS)}")
    if (out is None) == (store is None):
        raise _Usage("give exactly one of -o OUT.jsonl or --store URL")
    if to is not None:  # --to NAME: another stored format instead of envelopes (issue 26)
        from ..compat import WRITERS

        if to not in WRITERS:
            raise _Usage(f"no writer for format {to!r}; --to takes one of: {', '.join(WRITERS)}")
        if out is None:
            raise _Usage("--to writes a file: give -o OUT.jsonl, not --store")
    elif policy is not None:
        raise _Usage("--policy applies to --to FORMAT (envelopes keep every item)")
    if any(str(p) == "-" and not p.exists() for p in inputs):
        raise _Usage("migrate reads files and directories, not standard input (-): save the input to a file first, "
                     "or convert one body with `interlingua convert --to canonical -`")
    files = _expand(inputs)
    if out is not None:
        reject_path = rejects if rejects is not None else out.with_name(f"{out.stem}.rejects.jsonl")
    else:
        reject_path = rejects if rejects is not None else Path("migrate.rejects.jsonl")
    # This run's own output and reject file are never inputs (they may sit in an input directory).
    # realpath, not Path.resolve: resolve raises RuntimeError on a symlink loop (a traceback)
    own = {os.path.realpath(p) for p in (out, reject_path) if p is not None}
    files = [f for f in files if os.path.realpath(f) not in own]
    try:
        if reject_path.is_file() and not reject_path.is_symlink():
            reject_path.unlink()  # a reject file left by an earlier run would be mistaken for this run's
        elif reject_path.is_symlink() and Path(os.path.realpath(reject_path)).is_file():
            Path(os.path.realpath(reject_path)).unlink()  # the link stays; the file it names is the old reject file
    except OSError as exc:
        raise _Usage(f"cannot replace {reject_path}: {exc.strerror or exc}") from exc
    total = sum(f.stat().st_size for f in files)
    if out is not None:
        sink: _JsonlSink | _StoreSink = _JsonlSink(out) if to is None else _FormatFileSink(out, to, policy or "error")
        target = str(out)
    else:
        assert store is not None
        sink = _StoreSink(store, fail_fast=fail_fast)
        target = store
    from ._progress import Progress

    bar = Progress("migrating", total=total, quiet=quiet or progress is False, force=progress is True).__enter__()
    reject_file = _Rejects(reject_path)
    ids = _SessionIds()
    conversations = forks = items = warnings = 0  # forks: abandoned branches of trees, counted apart (issue 26)
    shown = 0
    pending = 0
    seen = 0
    stopped = False

    def settle(done: list[_Outcome]) -> bool:
        """Count what a sink is done with; ``True`` when ``--fail-fast`` stops the run."""
        nonlocal conversations, items, warnings, shown
        for rec, mig, result in done:
            if isinstance(result, InterlinguaError):
                reject_file.add(rec, f"{type(result).__name__}: {result}", copy=not isinstance(result, LimitError))
                if fail_fast:
                    typer.echo(f"error: {_where(rec)}: {result}", err=True)
                    return True
                continue
            if result:
                conversations += 1
                items += len(mig.transcript.items)
            for entry in mig.report:
                warnings += 1
                if shown < _MAX_WARNING_LINES:
                    typer.echo(f"warning: {_where(rec)}: {entry}", err=True)
                    shown += 1
        return False

    def write(record: Record, migrated: Migrated) -> list[_Outcome]:
        sid = ids.assign(migrated)
        if isinstance(sink, _StoreSink):
            return sink.submit(record, migrated, sid)
        try:
            return [(record, migrated, sink.write(migrated, sid))]
        except InterlinguaError as exc:
            return [(record, migrated, exc)]

    def flush() -> list[_Outcome]:
        return sink.flush() if isinstance(sink, _StoreSink) else []

    streamable = isinstance(sink, _JsonlSink) and to is None and fmt in ("auto", "interlingua")

    def write_log(record: Record, conv: Any) -> bool:
        """Write one log conversation (and its forks); True to stop (--fail-fast)."""
        nonlocal conversations, forks, items, warnings, shown
        try:
            if isinstance(sink, _FormatFileSink):  # --to NAME: the format's lines, not envelopes
                sessions, branches, count = _logs.write_format(sink, conv)
            elif isinstance(sink, _JsonlSink):
                sessions, branches, count = _logs.write_jsonl(sink, conv, ids)
            else:
                sessions, branches, count, _created = _logs.write_store(sink, conv, ids)
        except InterlinguaError as exc:  # named by its path and line, not copied (a log can be hundreds of MB)
            reject_file.add(record, f"{type(exc).__name__}: {exc}", copy=record.log is None)
            if fail_fast:
                typer.echo(f"error: {_where(record)}: {exc}", err=True)
                return True
            return False
        conversations += sessions
        forks += branches
        items += count
        for entry in conv.report:
            warnings += 1
            if shown < _MAX_WARNING_LINES:
                typer.echo(f"warning: {_where(record)}: {entry}", err=True)
                shown += 1
        return False

    def handle(record: Record) -> bool:
        """Migrate one record; True to stop (--fail-fast)."""
        nonlocal conversations, items, warnings, shown
        if record.log is not None:
            try:
                conv, close = _logs.open_log(Path(record.source), record.log)
            except InterlinguaError as exc:
                reject_file.add(record, f"{type(exc).__name__}: {exc}", copy=False)
                if fail_fast:
                    typer.echo(f"error: {_where(record)}: {exc}", err=True)
                    return True
                return False
            except OSError as exc:
                raise _Usage(f"cannot read {record.source}: {exc.strerror or exc}") from exc
            try:
                return write_log(record, conv)
            finally:
                close()
        if record.stream is not None and isinstance(sink, _JsonlSink):
            try:
                count = _stream_document(record, sink, ids)
            except InterlinguaError as exc:  # refused for its size: named by its path, not copied
                if isinstance(exc, DocumentError):
                    exc = exc.located(file=record.source)
                reject_file.add(record, f"{type(exc).__name__}: {exc}")
                if fail_fast:
                    typer.echo(f"error: {_where(record)}: {exc}", err=True)
                    return True
                return False
            if count is None:  # not the usual shape: the whole-document path decides
                return any(handle(r) for r in _records(record.stream))
            conversations += 1
            items += count
            return False
        if record.span is not None:
            from ._migrate_session import migrate_span, read_span, spool_dir

            assert isinstance(sink, _JsonlSink)
            done = migrate_span(record.span, sink, ids, _item_encoder.encode, spool_dir(sink))
            if done is None:  # not the usual shape: the whole read decides
                return handle(Record(record.source, record.line, value=read_span(record.span), size=record.size))
            _sid, count, report = done
            conversations += 1
            items += count
            for entry in report:
                warnings += 1
                if shown < _MAX_WARNING_LINES:
                    typer.echo(f"warning: {_where(record)}: {entry}", err=True)
                    shown += 1
            return False
        migrated, reason = _convert(record, fmt)
        if migrated is None:
            if fail_fast and settle(flush()):  # what came before is written first
                return True
            reject_file.add(record, reason or "unreadable", copy=not (reason or "").startswith("LimitError"))
            if fail_fast:
                typer.echo(f"error: {_where(record)}: {reason}", err=True)
                return True
            return False
        if migrated.forks:  # issue 26: a tree-shaped conversation, its abandoned branches as forks
            from ..compat._logs import from_migrated

            return write_log(record, from_migrated(migrated))
        return settle(write(record, migrated))

    try:
        for path in files:
            for record in _records(path, streaming=streamable, fmt=fmt):
                pending += record.size
                if handle(record):
                    stopped = True
                    break
                seen += 1
                if seen % 100 == 0:
                    bar.advance(pending, conversations=conversations)
                    pending = 0
            if not stopped and settle(flush()):
                stopped = True
            reject_file.end_of_file()
            if stopped:
                break
        bar.advance(pending, conversations=conversations)
    except BaseException:
        # A crash must not replace an existing output with a partial one.
        bar.close()
        sink.close(keep=False)
        reject_file.close(keep=False)
        raise
    else:
        bar.close()
        # A session file with no session is not a valid one (validate and store import refuse it):
        # with nothing migrated, nothing is written and an existing output stays as it was.
        empty = isinstance(sink, _JsonlSink) and conversations == 0
        sink.close(keep=not empty)
        reject_file.close()
    if warnings > shown:
        typer.echo(f"({warnings - shown} more warnings not shown)", err=True)
    where = f" (rejects in {reject_path})" if reject_file.count else ""
    present = f"; {sink.present} already in the store" if isinstance(sink, _StoreSink) else ""
    if isinstance(sink, _StoreSink) and sink.present_forks:
        present += f" (and {_count(sink.present_forks, 'fork')})"
    also = f" and {_count(forks, 'fork')}" if forks else ""
    typer.echo(
        f"migrated {_count(conversations, 'conversation')}{also} ({_count(items, 'item')}) to {target}{present}; {reject_file.count} rejected{where}; {_count(warnings, 'warning')}"
        + ("; stopped at the first reject (--fail-fast)" if stopped else ""),
        err=True,
    )
    if empty:
        typer.echo(f"error: nothing written to {target}: no conversation was migrated" + ("" if reject_file.count else " (no input record found)"), err=True)
        return 1
    return 1 if reject_file.count else 0


@contextlib.contextmanager
def _terminate_cleanly() -> Iterator[None]:
    """SIGTERM and SIGHUP end the run like Ctrl-C: temporary files are removed, the old output kept."""
    import signal

    def stop(signum: int, frame: Any) -> None:
        raise SystemExit(128 + signum)

    previous = {}
    try:
        for sig in (signal.SIGTERM, signal.SIGHUP):
            previous[sig] = signal.signal(sig, stop)
    except ValueError:  # not the main thread: leave signals alone
        pass
    try:
        yield
    finally:
        for sig in previous:  # a second signal must not cut the clean-up short
            signal.signal(sig, signal.SIG_IGN)
        try:
            _discard_all()
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)


def migrate(
    inputs: Annotated[list[Path], typer.Argument(metavar="INPUT...", help="Files or directories to read (not standard input).", show_default=False)],
    from_: Annotated[str, typer.Option("--from", help=f"Source format: auto, {', '.join(FORMATS)}.")] = "auto",
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Write a session file (JSON Lines: a header line per session, then its envelopes) here.", show_default=False)] = None,
    store: Annotated[str | None, typer.Option("--store", help="Write sessions to the session store at this URL.", show_default=False)] = None,
    rejects: Annotated[Path | None, typer.Option("--rejects", help="Reject file (default: OUT.rejects.jsonl).", show_default=False)] = None,
    fail_fast: Annotated[bool, typer.Option("--fail-fast", help="Stop at the first record that cannot be read.")] = False,
    progress: Annotated[
        bool | None,
        typer.Option("--progress/--no-progress", help="Progress display: forced on, or off (default: shown past a few MB).", show_default=False),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress display (same as --no-progress).")] = False,
    to: Annotated[
        str | None, typer.Option("--to", metavar="FORMAT", help="Write each conversation as this format's JSON, one a line (vercel-ui, vercel-model, openai-finetune, sharegpt, langchain, pydantic-ai) instead of envelopes.", show_default=False)
    ] = None,
    policy: Annotated[
        PolicyChoice | None,
        typer.Option("--policy", help="With --to: what the format cannot take: refuse the conversation (error, the default), leave it out or replace it by a text marker (each reported).", show_default=False),
    ] = None,
) -> None:
    """Migrate stored conversations of legacy formats to canonical envelopes or stored sessions.

    Exit codes: 0 all migrated, 1 some records rejected, 2 usage error or unreadable input.
    """
    try:
        with _terminate_cleanly():
            code = run(inputs, fmt=from_, out=output, store=store, rejects=rejects, fail_fast=fail_fast, progress=progress, quiet=quiet, to=to, policy=policy.value if policy is not None else None)
    except _Usage as exc:
        typer.echo(f"error: {exc.message}", err=True)
        raise typer.Exit(2) from None
    except OSError as exc:
        from ._common import os_error_text

        typer.echo(f"error: {os_error_text(exc, output)}", err=True)
        raise typer.Exit(2) from None
    raise typer.Exit(code)


def register(app: typer.Typer) -> None:
    """Add the ``migrate`` command to ``app``."""
    app.command("migrate")(migrate)
