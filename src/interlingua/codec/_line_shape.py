"""The figures of the JSON Lines block proof: line ends, line ends between two objects, brackets per line.

:func:`line_shape` is the compiled ``interlingua.codec._linecheck`` when it was built at install
time (a C compiler was there) and importable, else :func:`pure_line_shape`; the choice is made once,
at import. ``INTERLINGUA_PURE_PYTHON=1`` in the environment forces the pure path (CI runs the codec
tests both ways). Both give the same answer for every input (tests/core/test_line_check_paths.py).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable

_KEEP_STRUCTURE = bytes(b for b in range(256) if b not in b"{}[],:\n")
"""Delete table: what is left of a block is its JSON punctuation and line ends (~5% of the bytes)."""
_KEEP_BRACKETS = bytes(b for b in range(256) if b not in b"{[\n")
_ONE_BRACKET = bytes.maketrans(b"[", b"{")


@functools.lru_cache(maxsize=8)
def _bracket_run(n: int) -> bytes:
    return b"{" * n


def pure_line_shape(data: bytes | bytearray, start: int, end: int, limit: int) -> tuple[int, int, bool]:
    """The proof's three figures for ``data[start:end]``, in Python's C string routines.

    Let S be the span's JSON punctuation (its bytes ``{}[],:`` and ``\\n``, everything else deleted).

    Returns:
        ``(lines, pairs, deep)``: ``lines`` the line ends in the span; ``pairs`` the occurrences
        of ``}\\n{`` in S (each holds one line end: the line ends that lie between a ``}`` and a
        ``{`` with no other punctuation between); ``deep`` whether some line of the span holds
        ``limit`` or more opening brackets (``{`` or ``[``, inside strings too). ``0 <= start <=
        end <= len(data)`` is the caller's to ensure.

    When the span runs from the start of ``data`` or one past its first line end to one past its
    last line end, the punctuation of the whole of ``data`` is computed (no copy of the span) and
    cut at its first and last line ends; any other span is copied first.
    """
    if start == 0 and end == len(data):
        structure = data.translate(None, _KEEP_STRUCTURE)
    elif (start == 0 or data.find(b"\n") + 1 == start) and data.rfind(b"\n") + 1 == end:
        structure = data.translate(None, _KEEP_STRUCTURE)
        structure = structure[structure.find(b"\n") + 1 if start else 0 : structure.rfind(b"\n") + 1]
    else:
        structure = bytes(memoryview(data)[start:end]).translate(None, _KEEP_STRUCTURE)
    # with `[` written as `{`, a line holding n opening brackets holds n `{` in a row
    brackets = structure.translate(_ONE_BRACKET, _KEEP_BRACKETS)
    return brackets.count(b"\n"), structure.count(b"}\n{"), _bracket_run(limit) in brackets


def pure_header_hint(data: bytes | bytearray, start: int, end: int) -> bool:
    """Whether ``data[start:end]`` may hold a session header line: it holds ``"session"`` (quotes included).

    Only a hint for the reader: a span without one is decoded whole first (a header line never
    decodes as an envelope, so a wrong hint costs time, never a different result). The compiled
    hint looks only within the first 50 bytes of each line, where a header line has the word.
    """
    return data.find(b'"session"', start, end) >= 0


_HEADER_WORD = b'"session"'


def pure_header_lines(data: bytes | bytearray, start: int, end: int) -> list[int]:
    """The starts (offsets into ``data``) of the lines of ``data[start:end]`` that may be session
    header lines, in order: the line starts with ``{``, holds ``"session"`` (quotes included: an
    envelope's key is ``"session_id"``) starting within its first 50 bytes, and ends with a line
    end within the span. ``start`` is a line start; ``0 <= start <= end <= len(data)``.

    Found by C-speed searches for the word, one per line that holds it (the first one of a line
    decides: a later one is further from its start). The reader checks each candidate line itself
    (``codec._jsonl._header_spans``); a span without a candidate holds no header line.
    """
    out: list[int] = []
    pos = data.find(_HEADER_WORD, start, end)
    while pos >= 0:
        line_start = data.rfind(b"\n", start, pos) + 1 or start
        line_end = data.find(b"\n", pos, end) + 1
        if not line_end:
            break  # a last line without its line end is no header line
        if pos - line_start <= 49 and data[line_start : line_start + 1] == b"{":
            out.append(line_start)
        pos = data.find(_HEADER_WORD, line_end, end)
    return out


_Shape = Callable[[bytes | bytearray, int, int, int], tuple[int, int, bool]]
_Hint = Callable[[bytes | bytearray, int, int], bool]
_Lines = Callable[[bytes | bytearray, int, int], list[int]]


def _choose() -> tuple[_Shape, _Hint, _Lines, bool]:
    if os.environ.get("INTERLINGUA_PURE_PYTHON", "") not in ("", "0"):
        return pure_line_shape, pure_header_hint, pure_header_lines, False
    try:
        from ._linecheck import header_hint, header_lines, line_shape  # type: ignore[import-not-found,unused-ignore]
    except ImportError:  # not built (no compiler at install time, or INTERLINGUA_NO_EXTENSIONS=1; or built before header_lines)
        return pure_line_shape, pure_header_hint, pure_header_lines, False
    return line_shape, header_hint, header_lines, True


line_shape, header_hint, header_lines, ACCELERATED = _choose()
"""``line_shape(data, start, end, limit) -> (lines, pairs, deep)`` (see :func:`pure_line_shape`),
``header_hint(data, start, end) -> bool`` (see :func:`pure_header_hint`), ``header_lines(data,
start, end) -> [line start, ...]`` (see :func:`pure_header_lines`), and whether they are the
compiled ones."""
