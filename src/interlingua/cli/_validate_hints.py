"""``interlingua validate`` on a stored conversation of another format: one hint, not an error per line.

A Claude Code or Codex log, a fine-tuning dataset (JSON Lines), or a JSON array of UIMessages or
ShareGPT records is not an interlingua transcript: ``validate`` refuses each line (``missing required
field `schema_version```) or the whole array (``Expected `object`, got `array```). When the file's first
records are a format ``interlingua migrate`` reads (:func:`interlingua.compat.detect_format`), the
file's problems of that kind are cut to the first :data:`SHOWN` and one more problem says what the
file looks like and the command that reads it. Detection reads at most :data:`FIRST_LINES` lines (or,
for a ``.json`` file, a file of at most :data:`MAX_JSON_BYTES`); a file it cannot place keeps its errors
as they were.
"""

from __future__ import annotations

import json
import os
from typing import Any

from ..errors import Problem
from ..validation import ValidationResult

__all__ = ["FIRST_LINES", "MAX_JSON_BYTES", "SHOWN", "add_stored_format_hints", "stored_format"]

SHOWN = 3
"""Problems of a stored-format file shown before the hint."""
FIRST_LINES = 20
"""JSON Lines read to detect the format."""
MAX_JSON_BYTES = 32 << 20
"""A ``.json`` file larger than this is not read again to detect its format."""
_LINE_BYTES = 4 << 20

_NOT_A_TRANSCRIPT = ("missing required field `schema_version`", "Expected `object`, got `array`")


def _detect(value: Any) -> str | None:
    from ..compat import detect_format

    try:
        found = detect_format(value)
    except Exception:  # noqa: BLE001 - no hint when the format cannot be told; the problems stand
        return None
    return None if found == "interlingua" else found


def stored_format(path: str) -> str | None:
    """The format (``interlingua.compat`` name) of the records at the start of file ``path``, or ``None``.

    JSON Lines: the first :data:`FIRST_LINES` records as one log (Claude Code, Codex), else the first
    record alone (a fine-tuning line). JSON: the value, else its first element (a list of records)."""
    try:
        if os.path.getsize(path) == 0:
            return None
        with open(path, "rb") as fh:
            head = fh.read(1 << 16)
            fh.seek(0)
            stripped = head.lstrip()
            if stripped.startswith(b"[") or (stripped.startswith(b"{") and not _is_jsonl(head)):
                if os.path.getsize(path) > MAX_JSON_BYTES:
                    return None
                value = json.loads(fh.read())
                found = _detect(value)
                if found is None and isinstance(value, list) and value:
                    found = _detect(value[0])
                return found
            records = []
            for _ in range(FIRST_LINES):
                line = fh.readline(_LINE_BYTES)
                if not line:
                    break
                if line.strip():
                    try:
                        records.append(json.loads(line))
                    except ValueError:
                        continue
    except (OSError, ValueError, RecursionError):
        return None
    if not records:
        return None
    return _detect(records) or _detect(records[0])


def _is_jsonl(head: bytes) -> bool:
    """Whether the first line of ``head`` is a whole JSON value (a JSON Lines file)."""
    first = head.split(b"\n", 1)[0]
    try:
        json.loads(first)
    except ValueError:
        return False
    return b"\n" in head.strip()


def add_stored_format_hints(result: ValidationResult) -> int:
    """Cut each stored-format file's "not a transcript" problems in ``result`` to :data:`SHOWN`, plus one hint.

    Returns the number of errors the summary should add to ``len(result.problems)`` to count the file's
    problems as they were (those not shown, less the hints, which are not errors of their own).

    The hint is a problem of its own (no line, pointer ``/``): ``this looks like a <format> file, not
    an interlingua transcript (N more like this not shown): read it with `interlingua migrate --from
    <format> FILE -o OUT.jsonl```. Files whose problems already carry a format hint are left alone."""
    by_file: dict[str, list[int]] = {}
    for i, p in enumerate(result.problems):
        if p.file and p.file != "-" and any(m in p.message for m in _NOT_A_TRANSCRIPT) and "this looks like" not in p.message:
            by_file.setdefault(p.file, []).append(i)
    if not by_file:
        return 0
    drop: set[int] = set()
    hints: dict[int, Problem] = {}
    for file, indexes in by_file.items():
        found = stored_format(file)
        if found is None:
            continue
        shown, rest = indexes[:SHOWN], indexes[SHOWN:]
        drop.update(rest)
        more = f" ({len(rest)} more like {'this' if len(rest) == 1 else 'these'} not shown)" if rest else ""
        hints[shown[-1]] = Problem(
            "",
            f"this looks like {'an' if found[0] in 'aeio' else 'a'} {found} file, not an interlingua transcript{more}: read it with "
            f"`interlingua migrate --from {found} {file} -o OUT.jsonl`",
            file,
            None,
        )
    out: list[Problem] = []
    for i, p in enumerate(result.problems):
        if i in drop:
            continue
        out.append(p)
        if i in hints:
            out.append(hints[i])
    result.problems = out
    return len(drop) - len(hints)
