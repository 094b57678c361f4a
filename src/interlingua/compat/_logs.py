"""Agent logs read in bounded memory: one record a line, a conversation per file.

Claude Code sessions and Codex rollouts are JSON Lines files of hundreds of MB. Their readers see a
file through :class:`LineSource`: a first pass keeps a small index of every line (its offset and the
few fields the reader needs to order it), a second one decodes the lines the conversation needs, one
at a time. What comes out is a :class:`LogConversation`: its metadata and report, then its items as an
iterator (and, for a tree, each abandoned branch's items), so ``interlingua migrate`` writes them
without holding the session. The same readers take a list of parsed records (:class:`ListSource`),
and :meth:`LogConversation.materialize` gives the :class:`~interlingua.compat.Migrated` of
:func:`interlingua.compat.read`.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import msgspec

from ..errors import MappingError
from ..items import Transcript
from ..mapping import Report
from ._base import Fork, Migrated
from ._conform import Conformer

__all__ = ["LineSource", "ListSource", "LogConversation", "from_migrated", "open_lines"]

_decoder = msgspec.json.Decoder()


class ListSource:
    """Parsed records already in memory (the :func:`interlingua.compat.read` path)."""

    def __init__(self, records: list[Any], name: str) -> None:
        self.records = records
        self.name = name

    def __len__(self) -> int:
        return len(self.records)

    def scan(self) -> Iterator[tuple[int, Any]]:
        """``(line number, record)`` for every record (line numbers from 1)."""
        yield from enumerate(self.records, start=1)

    def get(self, i: int) -> Any:
        """Record ``i`` (0-based)."""
        return self.records[i]

    def where(self, i: int) -> str:
        return f"{self.name}[{i}]"


class LineSource:
    """A JSON Lines file read twice: :meth:`scan` decodes each line once (the caller keeps what it
    needs), :meth:`get` decodes one line again by its offset. Blank lines are skipped.

    Raises (from :meth:`scan`):
        MappingError: a line is not JSON (its file, line number and msgspec's reason).
    """

    def __init__(self, fh: IO[bytes], name: str) -> None:
        self.fh = fh
        self.name = name
        self.offsets: list[int] = []
        self.lines: list[int] = []

    def __len__(self) -> int:
        return len(self.offsets)

    def scan(self) -> Iterator[tuple[int, Any]]:
        self.fh.seek(0)
        offset = 0
        for n, raw in enumerate(self.fh, start=1):
            start, offset = offset, offset + len(raw)
            if not raw.strip():
                continue
            try:
                value = _decoder.decode(raw)
            except (msgspec.DecodeError, RecursionError) as exc:
                raise MappingError(f"{self.name}:{n}: not JSON ({exc}); the line starts {raw[:60]!r}") from None
            self.offsets.append(start)
            self.lines.append(n)
            yield n, value

    def get(self, i: int) -> Any:
        self.fh.seek(self.offsets[i])
        return _decoder.decode(self.fh.readline())

    def where(self, i: int) -> str:
        return f"{self.name}:{self.lines[i]}"


def open_lines(path: Path) -> tuple[IO[bytes], Callable[[], None]]:
    """Open a JSON Lines file for :class:`LineSource`; a ``.zst`` file is decompressed to a temporary
    file first (streamed: memory stays flat), removed by the returned close function.

    Raises:
        MappingError: a ``.zst`` file and the ``zstandard`` package is not installed.
        OSError: the file cannot be read.
    """
    if path.suffix.lower() != ".zst":
        fh = open(path, "rb")  # noqa: SIM115 - closed by the returned function
        return fh, fh.close
    try:
        import zstandard
    except ModuleNotFoundError:
        raise MappingError(f"{path}: reading .zst files needs the zstandard package (pip install 'interlingua[zstd]')") from None
    tmp = tempfile.TemporaryFile()  # noqa: SIM115 - closed by the returned function
    with open(path, "rb") as src:
        try:
            zstandard.ZstdDecompressor().copy_stream(src, tmp)
        except zstandard.ZstdError as exc:
            tmp.close()
            raise MappingError(f"{path}: not a readable zstd file ({exc})") from None
    tmp.seek(0)
    return tmp, tmp.close


@dataclass
class LogConversation:
    """One conversation of an agent log, its items still to be read.

    Attributes:
        format: The format name.
        session_id: The source's session id (Claude Code ``sessionId``, Codex ``session_meta.id``).
        metadata: The session metadata (keyed by format name).
        report: Every change made while reading; complete once the items and forks are read.
        main: A function giving the active branch's items, once.
        branches: A function giving ``(key, at, items)`` per abandoned branch; call it after the
            main items are read (``at`` is counted while they are).
    """

    format: str
    session_id: str | None
    metadata: dict[str, Any]
    report: Report
    main: Callable[[], Iterator[Any]]
    branches: Callable[[], Iterator[tuple[str, int, Iterator[Any]]]] = field(default=lambda: iter(()))
    shell: Transcript | None = None
    """Tools, settings, usage and stop reason of a conversation read whole (:func:`from_migrated`)."""

    def items(self) -> Iterator[Any]:
        """The active branch's items, a tool call and its results kept together as
        :func:`~interlingua.mapping.company.keep_company` keeps them (a result whose call is not before
        it, a call repeating an id: dropped, reported), streaming."""
        self._calls: list[tuple[int, str]] = []
        self._conformer = Conformer(self.report, what=f"the {self.format} reader")
        return _company(_conformed(self.main(), self._conformer), self.report, set(), self._calls)

    def forks(self) -> Iterator[tuple[str, int, Iterator[Any]]]:
        """Each abandoned branch ``(key, at, items)``, its calls checked against the shared items'
        calls and its own; call after :meth:`items` is exhausted."""
        calls = getattr(self, "_calls", [])
        conformer = getattr(self, "_conformer", None) or Conformer(self.report, what=f"the {self.format} reader")
        for key, at, own in self.branches():
            seen = {c for i, c in calls if i <= at}
            yield key, at, _company(_conformed(own, conformer, at + 1), self.report, seen, None, where=f"fork {key}: ")

    def materialize(self) -> Migrated:
        """Read everything into a :class:`Migrated` (its forks included)."""
        items = list(self.items())
        forks = [Fork(key, at, list(own)) for key, at, own in self.forks()]
        transcript = Transcript(schema_version=_schema_version(), items=items, metadata=self.metadata or msgspec.UNSET)
        return Migrated(transcript, self.report, self.format, self.session_id, forks)


def _conformed(items: Iterator[Any], conformer: Conformer, start: int = 0) -> Iterator[Any]:
    """``items`` held to the canonical schema limits as they stream (ids renamed, the rest refused)."""
    for j, item in enumerate(items, start):
        yield conformer.item(item, j)


def _company(items: Iterator[Any], report: Report, seen: set[str], calls: list[tuple[int, str]] | None, where: str = "") -> Iterator[Any]:
    from ..items import HandoffCallItem, HandoffResultItem, ToolCallItem, ToolResultItem

    n = 0
    renamed: dict[str, str] = {}  # a reused call id -> the id its latest call got: its results follow it
    for item in items:
        kind = getattr(getattr(type(item), "__struct_config__", None), "tag", None)
        if isinstance(item, ToolCallItem | HandoffCallItem):
            if item.id in seen:
                # the history rules' repair (docs/history.md): the later call and its results get a new id
                k = 2
                while f"{item.id}_{k}" in seen:
                    k += 1
                new = f"{item.id}_{k}"
                report.add("changed", f"{where}a {kind} reuses the call id {item.id!r} of an earlier call; renamed {item.id!r} to {new!r} on the call and its results", item_type=kind if isinstance(kind, str) else None)
                renamed[item.id] = new
                item = msgspec.structs.replace(item, id=new)
            seen.add(item.id)
            if calls is not None:
                calls.append((n, item.id))
        elif isinstance(item, ToolResultItem | HandoffResultItem):
            if item.call_id in renamed:
                item = msgspec.structs.replace(item, call_id=renamed[item.call_id])
            elif item.call_id not in seen:
                report.add("dropped", f"{where}a {kind} for call {item.call_id!r}, which is not before it in this conversation", item_type=kind if isinstance(kind, str) else None)
                continue
        yield item
        n += 1


def _schema_version() -> str:
    from ..codec import SCHEMA_VERSION

    return SCHEMA_VERSION


def not_records(fmt: str, obj: Any) -> MappingError:
    """The error for an input that is not a list of records."""
    from ..mapping.wire import a_json_type

    return MappingError(f"{fmt}: expected a list of log records (one JSON object a line), got {a_json_type(obj)}")



def from_migrated(migrated: Migrated) -> LogConversation:
    """A conversation read whole, with its forks, seen as a :class:`LogConversation` (the one way
    ``interlingua migrate`` writes forks)."""
    t = migrated.transcript
    shell = msgspec.structs.replace(t, items=[])
    meta = dict(t.metadata) if t.metadata is not msgspec.UNSET else {}
    return LogConversation(
        migrated.format, migrated.source_session_id, meta, migrated.report,
        lambda: iter(t.items), lambda: ((f.key, f.at, iter(f.items)) for f in migrated.forks), shell,
    )
