"""Reading ``interlingua convert``'s input and writing its output.

The input is read whole (a file or stdin) and told apart: one JSON body, or a recorded stream (a
``.sse``/``.ndjson`` file, or input shaped like the source format's stream framing). The output is
pretty JSON, written to a temporary file as it is made (:class:`Spool`) and put in place only when
the whole conversion succeeded.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
from pathlib import Path
from typing import IO, Any

import msgspec

from ..codec import syntax_problem
from ..mapping import Mapper
from ._common import write_atomic
from ._convert_formats import Fail

__all__ = ["Spool", "article", "binary", "decode_json", "indent", "is_stream", "looks_like_stream", "pretty", "pretty_to", "read_input", "source_label", "write_output"]

def binary(stream: Any) -> IO[bytes]:
    """The byte stream under a text stream (``sys.stdin``/``sys.stdout``, also under test runners)."""
    buffer: IO[bytes] = getattr(stream, "buffer", stream)
    return buffer


def read_input(source: str) -> bytes:
    if source == "-":
        return binary(sys.stdin).read()
    try:
        return Path(source).read_bytes()
    except OSError as exc:
        raise Fail(2, f"cannot read {source}: {exc.strerror or exc}") from exc


def decode_json(data: bytes, what: str) -> Any:
    try:
        return msgspec.json.decode(data)
    except msgspec.DecodeError as exc:
        # malformed input: exit 1, as for every command (README: 1 invalid or malformed, 2 usage or unreadable)
        raise Fail(1, f"{what} is not JSON: {syntax_problem(data, exc).message}") from exc
    except msgspec.ValidationError as exc:  # a number out of range
        raise Fail(1, f"{what} is not JSON: {exc}") from exc
    except RecursionError as exc:
        raise Fail(1, f"{what}: /: nesting too deep") from exc


def article(name: str) -> str:
    return "an" if name[:1] in "aeiou" else "a"


def source_label(source: str) -> str:
    return "stdin" if source == "-" else source


_STREAM_SUFFIXES = (".sse", ".ndjson")


_SSE_FIELDS = (b"data:", b"event:", b"id:", b"retry:", b":")


def looks_like_stream(mapper: Mapper, data: bytes) -> bool:
    """Whether input that is not one JSON document has the shape of a stream of ``mapper``'s framing:
    SSE starts with a field name; NDJSON has a first line that is a JSON value on its own."""
    text = data.lstrip()
    if mapper.framing == "sse":
        return text.startswith(_SSE_FIELDS)
    first, _, rest = text.partition(b"\n")
    if not rest.strip():
        return False
    try:
        msgspec.json.decode(first)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return False
    return True


def is_stream(mapper: Mapper, source: str, data: bytes) -> bool:
    """A ``.sse``/``.ndjson`` file, or input shaped like the mapper's stream framing, is a stream;
    anything else must be one JSON body (else: invalid JSON, located, exit 1)."""
    if source != "-" and source.lower().endswith(_STREAM_SUFFIXES):
        return True
    try:
        msgspec.json.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        if looks_like_stream(mapper, data):
            return True
        what = exc if isinstance(exc, msgspec.ValidationError) else syntax_problem(data, exc).message
        raise Fail(1, f"{source_label(source)} is not JSON (nor {article(mapper.name)} {mapper.name} stream): {what}") from exc
    except RecursionError as exc:
        raise Fail(1, f"{source_label(source)}: /: nesting too deep") from exc
    return False


def pretty(value: Any) -> bytes:
    return msgspec.json.format(msgspec.json.encode(value), indent=2) + b"\n"


def pretty_to(value: Any, fh: IO[bytes]) -> None:
    """Write :func:`pretty` of ``value`` to ``fh`` without holding the whole text: a dict's members
    one at a time, a list member's elements one at a time (the same bytes, tested)."""
    if not isinstance(value, dict) or not value:
        fh.write(pretty(value))
        return
    fh.write(b"{")
    for n, (key, member) in enumerate(value.items()):
        fh.write((b",\n  " if n else b"\n  ") + msgspec.json.encode(key) + b": ")
        if isinstance(member, list) and member:
            fh.write(b"[")
            for i, element in enumerate(member):
                fh.write((b",\n    " if i else b"\n    ") + indent(msgspec.json.format(msgspec.json.encode(element), indent=2), b"\n    "))
            fh.write(b"\n  ]")
        else:
            fh.write(indent(msgspec.json.format(msgspec.json.encode(member), indent=2), b"\n  "))
    fh.write(b"\n}\n")


def indent(text: bytes, newline: bytes) -> bytes:
    # a newline in JSON text is always formatting (in strings it is escaped)
    return text.replace(b"\n", newline)


class _NamedWrites(io.BufferedRandom):
    """The spool file of ``-o FILE``: a failed write or flush (a full disk) names FILE, the output
    the user asked for (the temporary file beside it is an implementation detail), so the message
    is "FILE: No space left on device", not "cannot write standard output"."""

    target = ""

    def write(self, data: Any) -> int:
        try:
            return super().write(data)
        except OSError as exc:
            exc.filename = exc.filename or self.target
            raise

    def flush(self) -> None:
        try:
            super().flush()
        except OSError as exc:
            exc.filename = exc.filename or self.target
            raise


class Spool:
    """The output, written to a temporary file as it is made (never held whole) and put in place
    (or copied to stdout) only when the conversion succeeded."""

    def __init__(self, out: Path | None) -> None:
        from .._paths import output_target

        self.out = out
        self.tmp: str | None = None
        self.in_place: Path | None = None
        if out is not None:
            real, in_place = output_target(out)
            if in_place:  # /dev/null, a pipe: never renamed over; copied there on success, as stdout is
                self.in_place, out = real, None
        if out is None:
            self.fh: IO[bytes] = tempfile.TemporaryFile()
            return
        from .._migrate.file_sinks import _remove_stale

        _remove_stale(out)  # left by a run that was killed
        try:
            # named with the pid, as migrate names its own: a later run removes it if this one is killed
            fd, self.tmp = tempfile.mkstemp(prefix=f".{out.name}.{os.getpid()}.", suffix=".tmp", dir=out.parent if str(out.parent) else ".")
        except OSError as exc:
            raise Fail(2, f"cannot write {out}: {exc.strerror or exc}") from exc
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(self.tmp, 0o666 & ~umask)
        named = _NamedWrites(io.FileIO(fd, "r+"))
        named.target = os.fspath(out)
        self.fh = named

    def commit(self) -> None:
        if self.in_place is not None:
            import shutil

            self.fh.seek(0)
            with open(self.in_place, "wb") as target:
                shutil.copyfileobj(self.fh, target, 1 << 20)
            self.fh.close()
            return
        if self.out is None:
            import shutil

            self.fh.seek(0)
            stream = binary(sys.stdout)
            shutil.copyfileobj(self.fh, stream, 1 << 20)
            stream.flush()
            self.fh.close()
            return
        self.fh.close()
        assert self.tmp is not None
        os.replace(self.tmp, self.out)
        self.tmp = None

    def discard(self) -> None:
        # closing flushes, and on a full disk the flush fails again: the file is closed all the
        # same (io closes the descriptor before re-raising) and must still be removed
        with contextlib.suppress(OSError):
            self.fh.close()
        if self.tmp is not None and os.path.exists(self.tmp):
            os.unlink(self.tmp)
        self.tmp = None


def write_output(out: Path | None, data: bytes) -> None:
    if out is None:
        stream = binary(sys.stdout)
        stream.write(data)
        stream.flush()
        return
    write_atomic(out, data)
