"""History integrity rules reported as warnings beside the problems (``interlingua validate --strict`` counts them)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..errors import Problem

# --------------------------------------------------------------------------- history integrity

_ERROR_RULES = frozenset(("orphan_result", "duplicate_call_id"))
"""Integrity rules the semantic checks above already report as errors (a result without an earlier
call, a reused id): not repeated as warnings."""


class _Integrity:
    """The history integrity rules over one history fed item by item, as warnings (see
    :class:`~interlingua.history.IntegrityScanner`); ``line`` locates JSON Lines items."""

    __slots__ = ("done", "file", "jsonl", "out", "scanner")

    def __init__(self, out: list[Problem], file: str | None, *, jsonl: bool) -> None:
        from ..history._integrity import IntegrityScanner

        self.scanner = IntegrityScanner(open_end=True)
        self.out = out
        self.file = file
        self.jsonl = jsonl
        self.done = 0

    def feed(self, item: Any, line: int | None = None) -> None:
        self.scanner.feed(item, line)
        if len(self.scanner.findings) != self.done:
            self._flush(line)

    def finish(self) -> None:
        self.scanner.finish()
        self._flush(None)

    def _flush(self, line: int | None) -> None:
        found = self.scanner.findings
        for f in found[self.done :]:
            if f.rule in _ERROR_RULES:
                continue
            if self.jsonl:
                at = self.scanner.where.get(f.index, line)
                self.out.append(Problem("/item", f"{f.message} [{f.rule}]", self.file, at))
            else:
                self.out.append(Problem(f"/items/{f.index}", f"{f.message} [{f.rule}]", self.file))
        self.done = len(found)


def integrity_warnings(items: Iterable[Any], file: str | None = None) -> list[Problem]:
    """The integrity warnings of a stored history (``open_end``: calls may await their results at the end)."""
    out: list[Problem] = []
    checker = _Integrity(out, file, jsonl=False)
    for item in items:
        checker.feed(item)
    checker.finish()
    return out


