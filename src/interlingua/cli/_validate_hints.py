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

__all__ = ["FIRST_LINES", "MAX_JSON_BYTES", "SHOWN", "add_stored_format_hints", "file_kind", "stored_format"]

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


_SQLITE_MAGIC = b"SQLite format 3\x00"


def file_kind(path: str) -> str | None:
    """What file ``path`` is when it cannot be JSON or JSON Lines at all, as the sentence a hint gives.

    A SQLite database (an interlingua session store is one); a ``.jsonl`` file whose first non-blank line
    is only ``{`` or ``[`` (pretty-printed JSON: one value over many lines, so every line fails on its
    own). ``None`` for anything else, an unreadable file included."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(1 << 12)
    except OSError:
        return None
    if head.startswith(_SQLITE_MAGIC):
        return (
            "this is a SQLite database, not JSON: if it is an interlingua session store, "
            f"`interlingua store list --url {path}` lists its sessions and `interlingua store export ID --url {path}` writes one as JSON Lines"
        )
    if path.endswith(".jsonl"):
        for n, line in enumerate(head.splitlines()[:-1] or head.splitlines(), 1):
            if line.strip():
                if line.strip() in (b"{", b"["):
                    return (
                        f"this looks like pretty-printed JSON, not JSON Lines (line {n} holds only {line.strip().decode()!r}): "
                        f"a .jsonl file holds one JSON value a line; `jq -c . {path}` writes it so"
                    )
                break
    return None


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
    hidden = _add_file_kind_hints(result)
    return hidden + _add_format_hints(result)


def _add_file_kind_hints(result: ValidationResult) -> int:
    """A file that cannot be JSON at all (:func:`file_kind`): its problems cut to the first :data:`SHOWN`
    (one for a database), plus the hint."""
    by_file: dict[str, list[int]] = {}
    for i, p in enumerate(result.problems):
        if p.file and p.file != "-" and "this looks like" not in p.message and "this is a" not in p.message:
            by_file.setdefault(p.file, []).append(i)
    drop: set[int] = set()
    hints: dict[int, Problem] = {}
    for file, indexes in by_file.items():
        kind = file_kind(file)
        if kind is None:
            continue
        shown, rest = (indexes[:1], indexes[1:]) if kind.startswith("this is a SQLite") else (indexes[:SHOWN], indexes[SHOWN:])
        drop.update(rest)
        more = f" ({len(rest)} more error{'s' if len(rest) != 1 else ''} of this file not shown)" if rest else ""
        hints[shown[-1]] = Problem("", kind + more, file, None)
    if not hints:
        return 0
    result.problems = [q for i, p in enumerate(result.problems) if i not in drop for q in ((p, hints[i]) if i in hints else (p,))]
    return len(drop) - len(hints)


def _add_format_hints(result: ValidationResult) -> int:
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
