"""``migrate -o``'s writers: session files and format files, written atomically, the reject file, and the clean-up on a signal."""

from __future__ import annotations

import contextlib
import hashlib
import glob
import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import msgspec
import typer

from ..codec import DEFAULT_LIMITS, SCHEMA_VERSION, UnknownItem, check_item_limits, decode_session_header
from ..compat import Migrated
from ..compat._base import SESSION_ID_PREFIX
from ..session_file import header_bytes
from . import stores as _stores
from ..errors import InterlinguaError, LimitError, Problem
from ..mapping import Report
from ..session_rules import session_id_problem
from .common import Record, _Usage, _decoder, _encoder, _item_encoder

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
        problem = session_id_problem(source) if source is not None else None
        if source is not None and problem is None and source not in self.sources:
            self.sources.add(source)
            return source
        sid = self.assign_hashed(hashlib.sha256(_item_encoder.encode(migrated.transcript)))
        if problem is not None:
            migrated.report.add("changed", f"session id {source!r} is not one the store or validate accepts ({problem}); written as session {sid!r}")
        elif source is not None:
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
    """``--to NAME``: each conversation as one line of format ``NAME``'s JSON (see :mod:`.stores`);
    what the format does not keep joins the conversation's report (printed as warnings)."""

    def __init__(self, out: Path, fmt: str, policy: str = "error") -> None:
        super().__init__(out)
        self.format = _stores.FormatSink(self.fh, fmt, policy)

    def write(self, migrated: Migrated, sid: str, extra: dict[str, Any] | None = None) -> bool:
        migrated.report.extend(self.format.write(migrated))
        for _fid, fork, _extra in _stores.fork_transcripts(migrated, sid):
            migrated.report.extend(self.format.write(Migrated(fork, Report(), migrated.format)))
        return True




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

        from ..validation import ItemChecker

        scanner = IntegrityScanner(open_end=True)
        checker = ItemChecker()  # a document validate rejects: the whole path rejects it, saying why
        try:
            encode = _item_encoder.encode
            for item in stream:
                scanner.feed(item)
                if checker.check(item, f"/items/{count + len(batch)}"):
                    return None
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
