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


class _StreamIntegrity:
    """The integrity rules over a JSON Lines stream: one :class:`_Integrity` per run of envelopes of
    one session (a new one whenever ``session_id`` changes), its warnings located by line.

    ``sid`` is the session of the current run; the block loop of ``validate`` reads ``scanner`` and
    ``current`` to feed items without a call per item through :meth:`feed` (see ``_check_block``)."""

    __slots__ = ("current", "file", "out", "sid")

    def __init__(self, out: list[Problem], file: str | None) -> None:
        self.out = out
        self.file = file
        self.sid: str | None = None
        self.current: _Integrity | None = None

    def switch(self, sid: str) -> _Integrity:
        """End the current run (its warnings) and start one for ``sid``."""
        if self.current is not None:
            self.current.finish()
        self.sid = sid
        self.current = _Integrity(self.out, self.file, jsonl=True)
        return self.current

    def feed(self, sid: str, item: Any, line: int) -> None:
        """The next envelope's item (``line``: its line number)."""
        current = self.current if sid == self.sid else self.switch(sid)
        current.feed(item, line)  # type: ignore[union-attr]

    def finish(self) -> None:
        """End of the stream: the last run's warnings."""
        if self.current is not None:
            self.current.finish()
            self.current = None


def integrity_warnings(items: Iterable[Any], file: str | None = None) -> list[Problem]:
    """The integrity warnings of a stored history (``open_end``: calls may await their results at the end)."""
    out: list[Problem] = []
    checker = _Integrity(out, file, jsonl=False)
    for item in items:
        checker.feed(item)
    checker.finish()
    return out


