"""Semantic checks a schema cannot express: call/result pairing, unique ids, legal roles, tool call arguments."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from ..codec import Item, UnknownItem
from ..errors import Problem
from ..items import ArtifactRefItem, AudioItem, VideoItem, DocumentItem, HandoffCallItem, HandoffResultItem, ImageItem, InputItem, TextItem, ToolCallItem, ToolResultItem, Transcript

_CONTENT = (TextItem, ImageItem, AudioItem, VideoItem, DocumentItem, ArtifactRefItem)

# --------------------------------------------------------------------------- semantic checks


@dataclass
class ItemChecker:
    """Incremental semantic checks over the items of one transcript or session.

    Feed items in order with :meth:`check`; state (ids seen, calls seen) carries over,
    so a JSON Lines session can be checked line by line in bounded memory per id.
    """

    ids: set[str] = field(default_factory=set)
    calls: set[str] = field(default_factory=set)
    handoffs: set[str] = field(default_factory=set)

    def check(self, item: Item, pointer: str) -> list[Problem]:
        """Problems of one top-level item at ``pointer``."""
        kind = _KINDS.get(type(item))
        if kind is None:  # UnknownItem, or a subclass: the general path
            if isinstance(item, UnknownItem):
                return []
            kind = next((k for cls, k in _KINDS.items() if isinstance(item, cls)), _OTHER)
        problems: list[Problem] = []
        item_id = getattr(item, "id", msgspec.UNSET)
        if type(item_id) is str or isinstance(item_id, str):
            if item_id in self.ids:
                problems.append(Problem(f"{pointer}/id", _duplicate_id(item_id, kind)))
            self.ids.add(item_id)
        if kind is _CONTENT_KIND:
            if item.role is msgspec.UNSET:  # type: ignore[union-attr]
                problems.append(Problem(pointer, f"a top-level {_type(item)} item needs a role"))
        elif kind is _TOOL_CALL:
            self.calls.add(item.id)  # type: ignore[union-attr, arg-type]
            problems.extend(_check_arguments(item, pointer))  # type: ignore[arg-type]
        elif kind is _HANDOFF_CALL:
            self.handoffs.add(item.id)  # type: ignore[union-attr, arg-type]
        elif kind is _TOOL_RESULT:
            if item.call_id not in self.calls:  # type: ignore[union-attr]
                problems.append(Problem(f"{pointer}/call_id", f"tool_result refers to {item.call_id!r}, which is not an earlier tool_call"))  # type: ignore[union-attr]
            problems.extend(_check_nested(item.content, f"{pointer}/content"))  # type: ignore[union-attr]
        elif kind is _HANDOFF_RESULT:
            if item.call_id not in self.handoffs:  # type: ignore[union-attr]
                problems.append(Problem(f"{pointer}/call_id", f"handoff_result refers to {item.call_id!r}, which is not an earlier handoff_call"))  # type: ignore[union-attr]
            problems.extend(_check_nested(item.content, f"{pointer}/content"))  # type: ignore[union-attr]
        return problems


_CONTENT_KIND, _TOOL_CALL, _HANDOFF_CALL, _TOOL_RESULT, _HANDOFF_RESULT, _OTHER = "content", "tool_call", "handoff_call", "tool_result", "handoff_result", "other"
_KINDS: dict[type, str] = {
    **{cls: _CONTENT_KIND for cls in _CONTENT},
    ToolCallItem: _TOOL_CALL,
    HandoffCallItem: _HANDOFF_CALL,
    ToolResultItem: _TOOL_RESULT,
    HandoffResultItem: _HANDOFF_RESULT,
}
"""Item class -> which checks apply (one dict look-up instead of a chain of isinstance)."""
for _cls in InputItem.__origin__.__args__:  # type: ignore[attr-defined]
    _KINDS.setdefault(_cls, _OTHER)


_ID, _CALL, _HANDOFF = 1, 2, 4


def _duplicate_id(item_id: str, kind: str) -> str:
    """The duplicate-id message; a call reusing an id says so (``repair`` renames a reused call id)."""
    if kind in (_TOOL_CALL, _HANDOFF_CALL):
        return f"duplicate item id {item_id!r} (a {kind} reusing an id: `interlingua repair` renames it)"
    return f"duplicate item id {item_id!r}"


class _CompactChecker:
    """:class:`ItemChecker`'s checks with one dict per session (``id -> flags``) instead of three sets.

    ``validate_jsonl_stream`` keeps one checker per session for the whole file, so its size is what
    grows with the number of sessions: a dict of a session's ids is about a third of three sets.
    The problems it reports are :class:`ItemChecker`'s, in the same order (tested against it).
    """

    __slots__ = ("seen", "seq")

    def __init__(self) -> None:
        self.seen: dict[str, int] = {}
        self.seq: int | None = None

    def check(self, item: Item, pointer: str) -> list[Problem]:
        kind = _KINDS.get(type(item))
        if kind is None:
            if isinstance(item, UnknownItem):
                return []
            kind = next((k for cls, k in _KINDS.items() if isinstance(item, cls)), _OTHER)
        problems: list[Problem] = []
        seen = self.seen
        item_id = getattr(item, "id", msgspec.UNSET)
        if type(item_id) is str or isinstance(item_id, str):
            flags = seen.get(item_id)
            if flags is not None and flags & _ID:
                problems.append(Problem(f"{pointer}/id", _duplicate_id(item_id, kind)))
            seen[item_id] = (flags or 0) | _ID
        if kind is _CONTENT_KIND:
            if item.role is msgspec.UNSET:  # type: ignore[union-attr]
                problems.append(Problem(pointer, f"a top-level {_type(item)} item needs a role"))
        elif kind is _TOOL_CALL:
            seen[item.id] = seen.get(item.id, 0) | _CALL  # type: ignore[union-attr, index, arg-type]
            problems.extend(_check_arguments(item, pointer))  # type: ignore[arg-type]
        elif kind is _HANDOFF_CALL:
            seen[item.id] = seen.get(item.id, 0) | _HANDOFF  # type: ignore[union-attr, index, arg-type]
        elif kind is _TOOL_RESULT:
            if not seen.get(item.call_id, 0) & _CALL:  # type: ignore[union-attr]
                problems.append(Problem(f"{pointer}/call_id", f"tool_result refers to {item.call_id!r}, which is not an earlier tool_call"))  # type: ignore[union-attr]
            problems.extend(_check_nested(item.content, f"{pointer}/content"))  # type: ignore[union-attr]
        elif kind is _HANDOFF_RESULT:
            if not seen.get(item.call_id, 0) & _HANDOFF:  # type: ignore[union-attr]
                problems.append(Problem(f"{pointer}/call_id", f"handoff_result refers to {item.call_id!r}, which is not an earlier handoff_call"))  # type: ignore[union-attr]
            problems.extend(_check_nested(item.content, f"{pointer}/content"))  # type: ignore[union-attr]
        return problems


class _SpilledIds(dict[str, int]):
    """The ``id -> flags`` dict of a session whose state was partly moved to the spill database:
    a key not held here is looked up there (and kept here once found)."""

    __slots__ = ("db", "sid")

    def __init__(self, db: Any, sid: str) -> None:
        super().__init__()
        self.db = db
        self.sid = sid

    def get(self, key: str, default: Any = None) -> Any:
        value = dict.get(self, key)
        if value is None:
            row = self.db.execute("SELECT flags FROM ids WHERE sid = ? AND key = ?", (self.sid, key)).fetchone()
            if row is None:
                return default
            value = row[0]
            dict.__setitem__(self, key, value)
        return value


class SessionTable:
    """Per-session state of one JSON Lines validation (a :class:`_CompactChecker` each: ids, call
    ids, last ``seq``), in bounded memory.

    At most ``max_entries`` ids and ``max_sessions`` sessions are held in memory; past either, the
    sessions used least recently are moved to a private temporary SQLite database (deleted when
    the validation ends) and looked up there when they come back. A single session larger than
    ``max_entries`` keeps only its newest ids in memory and finds the others there. So memory stays
    flat whatever the number of sessions or items; a file of many sessions spills to disk about
    100 bytes per id. The checks and their problems are the same as with everything in memory
    (tested with small budgets).
    """

    def __init__(self, max_entries: int = 200_000, max_sessions: int = 20_000) -> None:
        from collections import OrderedDict

        self.live: OrderedDict[str, _CompactChecker] = OrderedDict()
        self.entries = 0
        self.max_entries = max_entries
        self.max_sessions = max_sessions
        self.db: Any = None
        self.last: str | None = None
        self.spills = 0
        self.block_line = 0
        """The line the current session block began on (the late-header message names it)."""

    def get(self, sid: str) -> _CompactChecker:
        """The checker of session ``sid`` (a new one for a session not seen before)."""
        checker = self.live.get(sid)
        if checker is not None:
            if sid != self.last:
                self.live.move_to_end(sid)
                self.last = sid
            return checker
        checker = self._revive(sid) if self.db is not None else None
        if checker is None:
            checker = _CompactChecker()
        self.live[sid] = checker
        self.last = sid
        self.entries += len(checker.seen)
        if len(self.live) > self.max_sessions:
            self.spill()
        return checker

    def seen(self, sid: str) -> bool:
        """Whether session ``sid`` has state here (in memory or spilled)."""
        if sid in self.live:
            return True
        return self.db is not None and self.db.execute("SELECT 1 FROM sessions WHERE sid = ?", (sid,)).fetchone() is not None

    def grew(self, n: int) -> None:
        """``n`` ids were added to the checker last returned."""
        self.entries += n
        if self.entries > self.max_entries:
            self.spill()

    def _open(self) -> Any:
        if self.db is None:
            import sqlite3

            # "" is a private temporary database on disk, deleted when the connection closes
            self.db = sqlite3.connect("", isolation_level=None)
            self.db.execute("PRAGMA cache_size = -4096")
            self.db.execute("PRAGMA journal_mode = OFF")
            self.db.execute("PRAGMA synchronous = OFF")
            self.db.execute("CREATE TABLE sessions (sid TEXT PRIMARY KEY, seq INTEGER) WITHOUT ROWID")
            self.db.execute("CREATE TABLE ids (sid TEXT, key TEXT, flags INTEGER NOT NULL, PRIMARY KEY (sid, key)) WITHOUT ROWID")
        return self.db

    def _revive(self, sid: str) -> _CompactChecker | None:
        row = self.db.execute("SELECT seq FROM sessions WHERE sid = ?", (sid,)).fetchone()
        if row is None:
            return None
        checker = _CompactChecker()
        checker.seen = _SpilledIds(self.db, sid)
        checker.seq = row[0]
        return checker

    def spill(self) -> None:
        """Move the least recently used sessions (and, if need be, the older ids of the current
        one) to the database until memory holds half the budget."""
        db = self._open()
        self.spills += 1
        db.execute("BEGIN")
        try:
            while self.live and (len(self.live) > 1) and (self.entries > self.max_entries // 2 or len(self.live) > self.max_sessions // 2):
                sid, checker = self.live.popitem(last=False)
                self._write(db, sid, checker)
                self.entries -= len(checker.seen)
            if self.entries > self.max_entries // 2 and self.live:  # one session holds the lot
                sid, checker = next(reversed(self.live.items()))
                self._write(db, sid, checker)
                self.entries -= len(checker.seen)
                checker.seen = _SpilledIds(db, sid)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    @staticmethod
    def _write(db: Any, sid: str, checker: _CompactChecker) -> None:
        db.execute("INSERT OR REPLACE INTO sessions VALUES (?, ?)", (sid, checker.seq))
        if checker.seen:
            db.executemany("INSERT OR REPLACE INTO ids VALUES (?, ?, ?)", ((sid, k, v) for k, v in checker.seen.items()))

    def close(self) -> None:
        """Drop the state (and the spill database)."""
        self.live.clear()
        if self.db is not None:
            self.db.close()
            self.db = None


def _type(item: Any) -> str:
    return item.__struct_config__.tag


def _check_arguments(item: ToolCallItem, pointer: str) -> list[Problem]:
    has_args = item.arguments is not msgspec.UNSET
    has_raw = item.arguments_raw is not msgspec.UNSET
    if has_args and has_raw:
        return [Problem(f"{pointer}/arguments_raw", "a tool_call has either an arguments object or the arguments_raw text it could not parse, not both")]
    if not has_args and not has_raw:
        return [Problem(pointer, "a tool_call needs an arguments object (or arguments_raw for text that did not parse)")]
    if item.arguments_error is not msgspec.UNSET and not has_raw:
        return [Problem(f"{pointer}/arguments_error", "arguments_error is only meaningful with arguments_raw")]
    return []


def _check_nested(content: Iterable[Any], pointer: str) -> list[Problem]:
    return [
        Problem(f"{pointer}/{i}/role", "content nested in a result carries no role")
        for i, sub in enumerate(content)
        if isinstance(sub, _CONTENT) and sub.role is not msgspec.UNSET
    ]


def check_items(items: Iterable[Item], *, pointer: str = "/items") -> list[Problem]:
    """Semantic problems of a list of items (see the module docstring)."""
    checker = ItemChecker()
    problems: list[Problem] = []
    for i, item in enumerate(items):
        problems.extend(checker.check(item, f"{pointer}/{i}"))
    return problems


def check_transcript(transcript: Transcript) -> list[Problem]:
    """Semantic problems of a transcript document (items, plus duplicate tool names)."""
    problems = check_items(transcript.items)
    if transcript.tools is not msgspec.UNSET:
        seen: set[str] = set()
        for i, tool in enumerate(transcript.tools):
            if tool.name in seen:
                problems.append(Problem(f"/tools/{i}/name", f"duplicate tool name {tool.name!r}"))
            seen.add(tool.name)
    return problems


