"""Validating bytes, files, directories and stdin: the entry points ``interlingua validate`` calls."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO

import msgspec

from ..codec import DEFAULT_LIMITS, Limits, Mode
from ..errors import Problem
from ._documents import ValidationResult, _validate_document_file, validate_document_bytes
from ._streams import _looks_like_jsonl, validate_jsonl_stream

def validate_bytes(data: bytes, *, mode: Mode = "preserving", limits: Limits = DEFAULT_LIMITS, file: str | None = "-") -> ValidationResult:
    """Validate bytes that hold either a transcript document or a JSON Lines stream (auto-detected)."""
    if _looks_like_jsonl(data):
        import io

        return validate_jsonl_stream(io.BytesIO(data), mode=mode, limits=limits, file=file)
    return validate_document_bytes(data, mode=mode, limits=limits, file=file)


def expand_paths(paths: Iterable[str]) -> Iterator[tuple[str, Path | None]]:
    """The inputs :func:`validate_path` reads: ``(label, path)``, ``path`` ``None`` for ``-`` (stdin).

    A directory gives its ``*.json`` and ``*.jsonl`` files (recursively, sorted), or itself
    when it has none (then reported as unreadable).
    """
    return _expand(paths)


_SNIFF_BYTES = 1 << 16


def is_interlingua_file(path: str | os.PathLike[str]) -> bool:
    """Whether a file looks like an interlingua transcript document or envelope stream.

    The content decides, not the name: a ``.jsonl`` file whose first non-blank line names
    ``"schema_version"`` or ``"session_id"``; any other file that mentions
    ``"schema_version"`` or is a JSON object with an ``"items"`` member. ``package.json``,
    ``tsconfig.json`` (also with comments) or editor settings are not. A transcript
    broken badly enough to lose all of these is not recognised either: that is the price
    of checking only transcripts in a repository that holds other JSON.

    Raises:
        OSError: the file cannot be read.
    """
    p = Path(path)
    if p.suffix == ".jsonl":
        with open(p, "rb") as fh:
            for raw in fh:
                if raw.strip():
                    head = raw[:_SNIFF_BYTES]
                    return b'"schema_version"' in head or b'"session_id"' in head
        return False
    data = p.read_bytes()
    if b'"schema_version"' in data:
        return True
    try:
        doc = msgspec.json.decode(data)
    except (msgspec.DecodeError, RecursionError):
        return False
    return isinstance(doc, dict) and "items" in doc


def _expand(paths: Iterable[str]) -> Iterator[tuple[str, Path | None]]:
    for p in paths:
        if p == "-":
            yield p, None
            continue
        path = Path(p)
        if path.is_dir():
            found = sorted(q for q in path.rglob("*") if q.is_file() and q.suffix in (".json", ".jsonl"))
            if not found:
                yield p, path  # reported as unreadable: a directory with nothing to validate
            yield from ((str(q), q) for q in found)
        else:
            yield p, path


def validate_path(
    paths: Iterable[str],
    *,
    mode: Mode = "preserving",
    limits: Limits = DEFAULT_LIMITS,
    stdin: IO[bytes] | None = None,
    only_transcripts: bool = False,
    progress: Callable[[int], None] | None = None,
) -> ValidationResult:
    """Validate files, directories (``*.json`` documents and ``*.jsonl`` streams, recursively) and ``-`` (stdin).

    A ``.jsonl`` file is read as a stream in bounded memory; anything else as a document.
    Missing or unreadable inputs are collected in :attr:`ValidationResult.unreadable`.

    Args:
        only_transcripts: Leave out files that are not interlingua documents or envelope
            streams (:func:`is_interlingua_file`), listing them in
            :attr:`ValidationResult.skipped` (for a pre-commit hook in a repository that
            holds other JSON). stdin is always validated.
        progress: Called with the number of bytes done since its last call.
    """
    result = ValidationResult()
    for label, path in _expand(paths):
        try:
            if path is None:
                data = (stdin or _stdin()).read()
                result.merge(validate_bytes(data, mode=mode, limits=limits, file=label))
            elif path.is_dir():
                raise IsADirectoryError(label)
            elif (special := _special_file(path)) is not None:
                # a named pipe or a device is never opened: it would be read twice, or never end
                result.unreadable.append(Problem("", f"{special}, not a regular file: give it on standard input (-)", label))
            elif only_transcripts and not is_interlingua_file(path):
                result.skipped.append(label)
                if progress is not None:
                    progress(path.stat().st_size)
            elif path.suffix == ".jsonl":
                if not path.is_file():
                    raise FileNotFoundError(f"no such file: {label}")
                result.merge(validate_jsonl_stream(path, mode=mode, limits=limits, file=label, progress=progress))
            else:
                streamed = _validate_document_file(path, mode=mode, limits=limits, file=label)
                if streamed is not None:
                    result.merge(streamed)
                    if progress is not None:
                        progress(path.stat().st_size)
                    continue
                data = path.read_bytes()
                result.merge(validate_document_bytes(data, mode=mode, limits=limits, file=label))
                if progress is not None:
                    progress(len(data))
        except FileNotFoundError:
            result.unreadable.append(Problem("", "no such file or directory", label))
        except IsADirectoryError:
            result.unreadable.append(Problem("", "is a directory with no .json or .jsonl files", label))
        except PermissionError:
            result.unreadable.append(Problem("", "permission denied", label))
        except OSError as exc:
            result.unreadable.append(Problem("", f"cannot read: {exc.strerror or exc}", label))
    return result


def _special_file(path: Path) -> str | None:
    """What ``path`` is when it exists and is not a regular file or directory (``a named pipe``,
    ``a device``, ``a socket``), else ``None``. Symbolic links are followed."""
    import stat

    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a socket" if stat.S_ISSOCK(mode) else "not a regular file"


def _stdin() -> IO[bytes]:
    import sys

    return sys.stdin.buffer
