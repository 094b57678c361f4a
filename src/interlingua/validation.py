"""Validation of transcripts and envelope streams: schema, semantics, explanations.

The hot path decodes with the generated msgspec models (:mod:`interlingua.codec`);
this module adds the checks a schema cannot express and, for an item that fails,
a detailed explanation from the published JSON Schemas (jsonschema, Draft 2020-12).

Semantic checks (each a :class:`~interlingua.errors.Problem` with a JSON pointer):

* every ``tool_result`` / ``handoff_result`` refers to an earlier ``tool_call`` / ``handoff_call``;
* item ids are unique (a tool call's ``id`` is its call id, so call ids are unique too);
* roles are legal: content items at the top level carry a ``role``; nested ones do not;
* a ``tool_call`` holds an ``arguments`` object, or the ``arguments_raw`` text it could not parse;
* in a JSON Lines stream, ``seq`` strictly increases within each session.

Beside the problems, the history integrity rules (:mod:`interlingua.history`: dangling calls,
duplicate results, results out of turn, empty texts, reasoning cut from its output) are reported as
:attr:`ValidationResult.warnings` (``interlingua validate --strict`` counts them as errors).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import IO, Any

from typing import TYPE_CHECKING

import msgspec

from .codec import DEFAULT_LIMITS, Item, Limits, Mode, UnknownItem, decode_transcript, iter_jsonl
from .codec._jsonl import jsonl_parts
from .errors import DocumentError, Problem
from .session_rules import check_header
from .items import (
    ArtifactRefItem,
    AudioItem,
    VideoItem,
    DocumentItem,
    HandoffCallItem,
    HandoffResultItem,
    ImageItem,
    InputItem,
    TextItem,
    ToolCallItem,
    ToolResultItem,
    Transcript,
)

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator
    from referencing import Registry

__all__ = [
    "ItemChecker",
    "ValidationResult",
    "check_items",
    "check_transcript",
    "expand_paths",
    "explain",
    "is_interlingua_file",
    "load_schema",
    "schema_names",
    "validate_bytes",
    "validate_path",
]

_CONTENT = (TextItem, ImageItem, AudioItem, VideoItem, DocumentItem, ArtifactRefItem)

# --------------------------------------------------------------------------- JSON Schemas


def _schema_dir() -> Any:
    from importlib import resources  # here, not at import: it costs start-up of every `interlingua validate`

    return resources.files("interlingua") / "schemas"


@cache
def schema_names() -> tuple[str, ...]:
    """Names of the bundled schemas (file stems: ``text``, ``transcript``, ``envelope``, ...)."""
    return tuple(sorted(p.name[:-5] for p in _schema_dir().iterdir() if p.name.endswith(".json")))


@cache
def load_schema(name: str) -> dict[str, Any]:
    """The bundled JSON Schema ``name`` (e.g. ``"transcript"``) as a dict.

    Raises:
        KeyError: no schema by that name.
    """
    if name not in schema_names():
        raise KeyError(f"no schema {name!r}; known: {', '.join(schema_names())}")
    import json

    return json.loads((_schema_dir() / f"{name}.json").read_text(encoding="utf-8"))


@cache
def _registry() -> Registry:
    # jsonschema is imported lazily: it only explains failures, and costs CLI start-up time.
    from referencing import Registry, Resource

    resources_ = [(load_schema(n)["$id"], Resource.from_contents(load_schema(n))) for n in schema_names()]
    return Registry().with_resources(resources_)


@cache
def _validator(name: str) -> Draft202012Validator:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(load_schema(name), registry=_registry())


def explain(instance: Any, schema: str, *, pointer: str = "") -> list[Problem]:
    """Every JSON Schema error of ``instance`` against the bundled schema ``schema``.

    An item is checked against its own type's schema when its ``type`` is known, which
    gives precise messages instead of "not valid under any of the given schemas".

    Args:
        instance: Decoded JSON.
        schema: Schema name (``"transcript"``, ``"envelope"``, ``"text"``, ...).
        pointer: Prefix for the JSON pointers.
    """
    name = schema
    if isinstance(instance, dict) and schema == "item" and instance.get("type") in schema_names():
        name = str(instance["type"])
    if schema == "item" and name == "item":
        return [Problem(pointer, f"unknown item type {instance.get('type') if isinstance(instance, dict) else instance!r}")]
    problems = []
    for err in sorted(_validator(name).iter_errors(instance), key=lambda e: list(e.absolute_path)):
        for leaf in _leaves(err):
            ptr = pointer + "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in leaf.absolute_path)
            problems.append(Problem(ptr, leaf.message if len(leaf.message) < 300 else leaf.message[:297] + "..."))
    return problems


def _leaves(err: Any) -> list[Any]:
    """For a failed ``oneOf`` of tagged variants, the errors of the variant the ``type`` selects."""
    if err.validator != "oneOf" or not err.context or not isinstance(err.instance, dict):
        return [err]
    by_branch: dict[int, list[Any]] = {}
    for sub in err.context:
        by_branch.setdefault(sub.relative_schema_path[0], []).append(sub)
    chosen = [
        subs for subs in by_branch.values()
        if not any(list(s.relative_path) == ["type"] for s in subs)
    ]
    if len(chosen) == 1:
        return [leaf for sub in chosen[0] for leaf in _leaves(sub)]
    return [err]


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
                problems.append(Problem(f"{pointer}/id", f"duplicate item id {item_id!r}"))
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
                problems.append(Problem(f"{pointer}/id", f"duplicate item id {item_id!r}"))
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


class _SessionTable:
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


# --------------------------------------------------------------------------- history integrity

_ERROR_RULES = frozenset(("orphan_result", "duplicate_call_id"))
"""Integrity rules the semantic checks above already report as errors (a result without an earlier
call, a reused id): not repeated as warnings."""


class _Integrity:
    """The history integrity rules over one history fed item by item, as warnings (see
    :class:`~interlingua.history.IntegrityScanner`); ``line`` locates JSON Lines items."""

    __slots__ = ("done", "file", "jsonl", "out", "scanner")

    def __init__(self, out: list[Problem], file: str | None, *, jsonl: bool) -> None:
        from .history._integrity import IntegrityScanner

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


# --------------------------------------------------------------------------- files


@dataclass
class ValidationResult:
    """Outcome of validating inputs.

    Attributes:
        files: Inputs read.
        items: Items checked (including preserved unknown ones).
        problems: Every problem, located by file, line (JSON Lines) and JSON pointer.
        unreadable: Inputs that could not be read at all (missing, not UTF-8 text, I/O error).
        skipped: Files left out because they are not interlingua documents or envelope
            streams (only with ``only_transcripts=True``; see :func:`is_interlingua_file`).
        warnings: Breaks of the history integrity rules (:mod:`interlingua.history`) that the
            schema allows: dangling calls, duplicate results, results out of turn, empty texts,
            reasoning cut from its output. ``ok`` ignores them; ``interlingua validate --strict``
            counts them as errors.
    """

    files: int = 0
    items: int = 0
    problems: list[Problem] = field(default_factory=list)
    unreadable: list[Problem] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when nothing was wrong."""
        return not self.problems and not self.unreadable

    def merge(self, other: ValidationResult) -> None:
        """Add ``other``'s counts and problems to this result."""
        self.files += other.files
        self.items += other.items
        self.problems.extend(other.problems)
        self.unreadable.extend(other.unreadable)
        self.skipped.extend(other.skipped)
        self.warnings.extend(other.warnings)


def _explain_failures(data: bytes, error: DocumentError, schema: str, file: str | None, line: int | None) -> list[Problem]:
    """Replace msgspec's first-error messages by every jsonschema error of the failing items."""
    try:
        doc = msgspec.json.decode(data)
    except (msgspec.DecodeError, RecursionError):
        return [p.located(file, line) for p in error.problems]
    out: list[Problem] = []
    for p in error.problems:
        base = _item_pointer(p.pointer)
        if base is None:
            out.append(p.located(file, line))
            continue
        instance = _resolve(doc, base)
        detailed = explain(instance, "item", pointer=base) if isinstance(instance, dict) else []
        if detailed and "unknown item type" not in p.message:
            out.extend(d.located(file, line) for d in detailed)
        else:
            out.append(p.located(file, line))
    # keep order, drop exact duplicates
    seen: set[tuple[str, str, int | None]] = set()
    unique = []
    for p in out:
        key = (p.pointer, p.message, p.line)
        if key not in seen:
            seen.add(key)
            unique.append(p)
    return unique


def detected_format(problems: Sequence[Problem], data: bytes) -> str | None:
    """The provider or framework format (``interlingua.compat`` names) a document refused for a
    missing ``schema_version`` looks like, or ``None`` (another problem, not detectable, or canonical)."""
    if not any("schema_version" in p.message and p.pointer in ("", "/schema_version") for p in problems):
        return None
    try:
        from .compat import detect_format

        found = detect_format(msgspec.json.decode(data))
    except Exception:  # noqa: BLE001 - a hint is best effort; the problem itself stands
        return None
    return None if found == "interlingua" else found


def with_hint(problems: Sequence[Problem], hint: str) -> list[Problem]:
    """``problems`` with ``hint`` added to the message of each ``schema_version`` problem."""
    return [Problem(p.pointer, p.message + hint, p.file, p.line) if "schema_version" in p.message else p for p in problems]


def _with_format_hint(problems: list[Problem], data: bytes) -> list[Problem]:
    """A document without ``schema_version`` may be a provider payload: say which, and how to convert it."""
    found = detected_format(problems, data)
    if found is None:
        return problems
    return with_hint(problems, f" (this looks like {found} data, not a transcript: convert it with `interlingua convert --from {found} --to canonical FILE` or `interlingua migrate`)")


def _pointer_key(p: Problem) -> list[tuple[int, int | str]]:
    return [(0, int(x)) if x.isdigit() else (1, x) for x in p.pointer.split("/")[1:]]


def _item_pointer(pointer: str) -> str | None:
    parts = pointer.split("/")
    if len(parts) >= 3 and parts[1] == "items" and parts[2].isdigit():
        return "/".join(parts[:3])
    if len(parts) >= 2 and parts[1] == "item":
        return "/item"
    return None


def _resolve(doc: Any, pointer: str) -> Any:
    cur = doc
    for part in pointer.split("/")[1:]:
        if isinstance(cur, list) and part.isdigit() and int(part) < len(cur):
            cur = cur[int(part)]
        elif isinstance(cur, dict) and part in cur:
            cur = cur[part]
        else:
            return None
    return cur


def validate_document_bytes(data: bytes, *, mode: Mode = "preserving", limits: Limits = DEFAULT_LIMITS, file: str | None = None) -> ValidationResult:
    """Validate one transcript document."""
    result = ValidationResult(files=1)
    try:
        transcript = decode_transcript(data, mode=mode, limits=limits, collect=True)
    except DocumentError as exc:
        problems = _explain_failures(data, exc, "transcript", file, None)
        result.problems.extend(_with_format_hint(problems, data))
        if exc.partial is not None:
            result.items = len(exc.partial)
            checker = ItemChecker()
            for i, item in enumerate(exc.partial):
                if item is not None:
                    result.problems.extend(p.located(file) for p in checker.check(item, f"/items/{i}"))
        result.problems.sort(key=_pointer_key)
        return result
    result.items = len(transcript.items)
    result.problems.extend(p.located(file) for p in check_transcript(transcript))
    result.warnings.extend(integrity_warnings(transcript.items, file))
    return result


def _validate_document_file(path: Path, *, mode: Mode, limits: Limits, file: str) -> ValidationResult | None:
    """:func:`validate_document_bytes` of a document file read item by item (bounded memory,
    :class:`~interlingua._docstream.TranscriptStream`); ``None`` when it must be read whole (any
    item that does not decode, or an unusual document: the whole path then reports every problem)."""
    from ._docstream import Fallback, TranscriptStream

    table = _SessionTable()
    problems: list[Problem] = []
    warnings: list[Problem] = []
    integrity = _Integrity(warnings, file, jsonl=False)
    count = 0
    try:
        with open(path, "rb") as fh:
            stream = TranscriptStream(fh, mode=mode, limits=limits)
            for count, item in enumerate(stream, 1):
                integrity.feed(item)
                checker = table.get("")
                before = len(checker.seen)
                found = checker.check(item, f"/items/{count - 1}")
                if found:
                    problems.extend(p.located(file) for p in found)
                if len(checker.seen) != before:
                    table.grew(len(checker.seen) - before)
    except (Fallback, DocumentError):
        return None
    finally:
        table.close()
    shell = stream.shell
    if shell.tools is not msgspec.UNSET:
        names: set[str] = set()
        for i, tool in enumerate(shell.tools):
            if tool.name in names:
                problems.append(Problem(f"/tools/{i}/name", f"duplicate tool name {tool.name!r}", file))
            names.add(tool.name)
    integrity.finish()
    return ValidationResult(files=1, items=count, problems=problems, warnings=warnings)


def validate_jsonl_stream(
    source: str | os.PathLike[str] | IO[bytes],
    *,
    mode: Mode = "preserving",
    limits: Limits = DEFAULT_LIMITS,
    file: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> ValidationResult:
    """Validate a JSON Lines envelope stream line by line, in bounded memory.

    The per-session state the checks need (ids and call ids seen, the last ``seq``) is held in
    memory up to a budget (200,000 ids, 20,000 sessions); past it, the sessions used least
    recently move to a private temporary SQLite database that is deleted at the end, so memory
    stays flat whatever the number of sessions (see docs/benchmarks.md, the memory rows).

    ``progress``, when given with a path, is called now and then with the number of
    bytes read since its last call (for a progress display).
    """
    if progress is not None and isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as fh:
            return _validate_jsonl(fh, source, mode=mode, limits=limits, file=file or str(source), progress=progress)
    return _validate_jsonl(source, source, mode=mode, limits=limits, file=file, progress=None)


def _validate_jsonl(
    reader: Any, source: Any, *, mode: Mode, limits: Limits, file: str | None, progress: Callable[[int], None] | None
) -> ValidationResult:
    table = _SessionTable(**_TABLE_BUDGET)
    try:
        return _validate_jsonl_lines(reader, source, table, mode=mode, limits=limits, file=file, progress=progress)
    finally:
        table.close()


_TABLE_BUDGET: dict[str, int] = {}
"""Overrides of :class:`_SessionTable`'s budget (tests set small ones to exercise spilling)."""


def _validate_jsonl_lines(
    reader: Any, source: Any, table: _SessionTable, *, mode: Mode, limits: Limits, file: str | None, progress: Callable[[int], None] | None
) -> ValidationResult:
    result = ValidationResult(files=1)
    header_session: str | None = None  # the session of the last header while its block lasts
    header_line = 0
    current: str | None = None  # the session whose block the last line belongs to
    problems = result.problems
    reported = 0
    integ_sid: str | None = None
    integrity: _Integrity | None = None
    for n, part in enumerate(jsonl_parts(reader, mode=mode, limits=limits, errors="yield", file_label=file)):
        if progress is not None and (type(part) is tuple or n % 512 == 0):
            pos = reader.tell()
            progress(pos - reported)
            reported = pos
        if type(part) is tuple:  # a block of consecutive lines, each decoded
            first, envs = part
            result.items += len(envs)
            current, header_session = _check_block(table, envs, first, current, header_session, header_line, file, problems)
            for line, env in enumerate(envs, first):
                if env.session_id != integ_sid:
                    if integrity is not None:
                        integrity.finish()
                    integ_sid, integrity = env.session_id, _Integrity(result.warnings, file, jsonl=True)
                integrity.feed(env.item, line)  # type: ignore[union-attr]
            continue
        rec = part
        if rec.header is not None:
            sid = rec.header.session.id
            if current is not None:
                _close(table, current)
            if table.seen(sid):
                problems.append(_twice_problem(sid, file, rec.line))
            table.get(sid)  # a header-only session counts too (it may not appear again)
            current, header_session, header_line = sid, sid, rec.line
            problems.extend(p.located(file, rec.line) for p in _header_problems(rec.header.session))
            continue
        if rec.error is not None:
            result.items += 1
            problems.extend(_line_problems(rec.error, file, rec.line, source))
            continue
        env = rec.envelope
        assert env is not None
        result.items += 1
        if env.session_id != current:
            current, header_session = _switch(table, problems, current, env.session_id, header_session, header_line, file, rec.line)
        checker = table.get(env.session_id)
        prev = checker.seq
        if env.seq != (0 if prev is None else prev + 1):
            problems.append(_seq_problem(env.seq, prev, env.session_id, file, rec.line))
        checker.seq = _next_seq(env.seq, prev)
        before = len(checker.seen)
        problems.extend(p.located(file, rec.line) for p in checker.check(env.item, "/item"))
        if len(checker.seen) != before:
            table.grew(len(checker.seen) - before)
        if env.session_id != integ_sid:
            if integrity is not None:
                integrity.finish()
            integ_sid, integrity = env.session_id, _Integrity(result.warnings, file, jsonl=True)
        integrity.feed(env.item, rec.line)  # type: ignore[union-attr]
    if integrity is not None:
        integrity.finish()
    if progress is not None:
        progress(reader.tell() - reported)
    if result.items == 0 and header_session is None and not problems:
        # as store import refuses it: a file truncated to zero by a crash is not a valid empty stream
        problems.append(Problem("", "no envelope and no session header in the file (it is empty or holds only blank lines)", file))
    return result


def _check_block(
    table: _SessionTable, envs: list[Any], first: int, current: str | None, header_session: str | None, header_line: int, file: str | None, problems: list[Problem]
) -> tuple[str | None, str | None]:
    """The per-line checks of ``_validate_jsonl_lines`` (session blocks and header session through
    :func:`_switch`, ``seq`` 0, 1, 2, ..., :meth:`_CompactChecker.check`) over a block of decoded
    envelopes, in one loop; returns the new ``(current, header_session)``.

    An item the fast path proves clean (no duplicate id, a role where one is needed, its call
    known, well-formed arguments, no role in nested content) only updates the session's state
    here; any other item, and every item of a type not listed in ``_KINDS``, goes through
    :meth:`_CompactChecker.check` itself, which reports exactly what it always did. The fast
    path reads before it writes, so an item handed to ``check`` has changed nothing yet.
    """
    kinds = _KINDS
    unset = msgspec.UNSET
    content_kind, tool_call, handoff_call, tool_result, handoff_result = _CONTENT_KIND, _TOOL_CALL, _HANDOFF_CALL, _TOOL_RESULT, _HANDOFF_RESULT
    id_flag, call_flag, handoff_flag = _ID, _CALL, _HANDOFF
    content_types = _CONTENT
    last_sid: str | None = None
    checker: _CompactChecker = _CompactChecker()
    seen: dict[str, int] = checker.seen
    plain = True  # the session's ids are all in a plain dict (not partly in the spill database)
    for line, env in enumerate(envs, first):
        sid = env.session_id
        if sid != current:
            current, header_session = _switch(table, problems, current, sid, header_session, header_line, file, line)
            last_sid = None  # _switch may have touched the table: fetch the checker again
        if sid != last_sid:
            checker = table.get(sid)
            seen = checker.seen
            plain = type(seen) is dict
            last_sid = sid
        seq = env.seq
        prev = checker.seq
        if seq != (0 if prev is None else prev + 1):
            problems.append(_seq_problem(seq, prev, sid, file, line))
        checker.seq = _next_seq(seq, prev)
        item = env.item
        kind = kinds.get(type(item))
        item_id = getattr(item, "id", unset)
        flags: int | None = None
        if kind is None or not plain:
            clean = False
        elif type(item_id) is str:
            flags = seen.get(item_id)
            clean = flags is None or not flags & id_flag
        else:  # no id; a tool or handoff call always has one (else the general path says what is wrong)
            clean = item_id is unset and kind is not tool_call and kind is not handoff_call
        if clean:
            if kind is content_kind:
                clean = item.role is not unset
            elif kind is tool_call:
                has_args = item.arguments is not unset
                has_raw = item.arguments_raw is not unset
                clean = has_args is not has_raw and (has_raw or item.arguments_error is unset)
            elif kind is tool_result:
                clean = bool(seen.get(item.call_id, 0) & call_flag) and not any(isinstance(sub, content_types) and sub.role is not unset for sub in item.content)
            elif kind is handoff_result:
                clean = bool(seen.get(item.call_id, 0) & handoff_flag) and not any(isinstance(sub, content_types) and sub.role is not unset for sub in item.content)
        if clean:
            if item_id is unset:
                continue
            # a tool or handoff call's id is its call id: the same key
            seen[item_id] = (flags or 0) | (id_flag | call_flag if kind is tool_call else id_flag | handoff_flag if kind is handoff_call else id_flag)
            if flags is None:
                table.grew(1)
                seen = checker.seen  # a spill may have moved this session's older ids to the database
                plain = type(seen) is dict
            continue
        before = len(seen)
        found = checker.check(item, "/item")
        if found:
            problems.extend(p.located(file, line) for p in found)
        grown = len(seen) - before
        if grown:
            table.grew(grown)
            seen = checker.seen
            plain = type(seen) is dict
    return current, header_session


# The session-file rules `store import` applies (interlingua.session_file.iter_session_parts), with
# its messages: one contract for both commands (tests/test_hostile_contract.py runs the same inputs
# through both). A session's lines are one contiguous block, its seqs run 0, 1, 2, ...; a header
# starts a block, and envelopes of another session after a header's own envelopes start a new,
# header-less block.


def _seq_problem(seq: int, prev: int | None, sid: str, file: str | None, line: int) -> Problem:
    n = 0 if prev is None else prev + 1
    other = f"; a second conversation of session {sid!r}? each session needs its own id" if seq == 0 and n else ""
    return Problem("/seq", f"expected seq {n} in session {sid!r} (seqs run 0, 1, 2, ...), got {seq}{other}", file, line)


def _next_seq(seq: int, prev: int | None) -> int:
    """The seq the next line follows: a line with a seq not above the last takes the slot it should
    have had (a repeated line is one problem, not one per later line); a gap goes on from the new seq."""
    return seq if prev is None or seq > prev else prev + 1


def _twice_problem(sid: str, file: str | None, line: int) -> Problem:
    return Problem("", f"session {sid!r} appears twice in the file (a session's lines must be contiguous)", file, line)


def _close(table: _SessionTable, sid: str) -> None:
    """Mark ``sid``'s block as ended, in its ``seq``: ``-1`` (no envelope) or ``-(last seq) - 2``."""
    checker = table.get(sid)
    if checker.seq is None:
        checker.seq = -1
    elif checker.seq >= 0:
        checker.seq = -checker.seq - 2


def _switch(
    table: _SessionTable, problems: list[Problem], current: str | None, sid: str, header_session: str | None, header_line: int, file: str | None, line: int
) -> tuple[str | None, str | None]:
    """An envelope of ``sid`` after a line of ``current``: close ``current``'s block, check ``sid``'s
    block is new (or the header's), and return the new (current, header_session)."""
    if header_session is not None and current == header_session and table.get(current).seq is None:
        # the header's block has no envelope yet: this one must be the header's session
        problems.append(Problem("/session_id", f"session_id {sid!r} differs from the header's session {header_session!r} (line {header_line})", file, line))
        return current, header_session
    if current is not None:
        _close(table, current)
    if table.seen(sid):
        problems.append(_twice_problem(sid, file, line))
        checker = table.get(sid)  # reopened: its seqs go on being checked from where they were
        if checker.seq is not None and checker.seq < 0:
            checker.seq = None if checker.seq == -1 else -checker.seq - 2
    return sid, None


def _header_problems(record: Any) -> list[Problem]:
    """The header checks ``store import`` makes beyond the schema (``change_no`` unique in a session)."""
    try:
        check_header(record)
    except DocumentError as exc:
        return exc.problems
    return []


def _line_problems(error: DocumentError, file: str | None, line: int, source: Any) -> list[Problem]:
    # Re-read the one failing line for a detailed explanation only when it is small.
    if any(p.message.startswith(("last line is truncated", "line is longer")) for p in error.problems):
        return error.problems
    raw = _read_line(source, line)
    if raw is None or len(raw) > 1 << 20:
        return error.problems
    return _explain_failures(raw, DocumentError([Problem(p.pointer, p.message) for p in error.problems]), "envelope", file, line)


def _read_line(source: Any, line: int) -> bytes | None:
    if not isinstance(source, (str, os.PathLike)):
        return None
    try:
        with open(source, "rb") as fh:
            for n, raw in enumerate(fh, 1):
                if n == line:
                    return raw.strip()
    except OSError:
        return None
    return None


def _looks_like_jsonl(data: bytes) -> bool:
    try:
        doc = msgspec.json.decode(data)
    except msgspec.DecodeError:
        return len([ln for ln in data.splitlines() if ln.strip()]) > 1
    except RecursionError:
        return False
    return isinstance(doc, dict) and (("session_id" in doc and "item" in doc) or ("session" in doc and "items" not in doc))


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


def _stdin() -> IO[bytes]:
    import sys

    return sys.stdin.buffer
