"""The plans of one import, in a private temporary SQLite database, and what the import returns.

``store import`` reads a session file twice (checked whole, then written). Between the passes it
needs, per session, a few values: its ids in the file and in the store, its header line, its number
of items, its fork link, and after pass 2 whether it was imported or left unchanged. Held as one
Python object per session (plus the result objects), a file of 270,000 sessions took 254 MB (issue
32). They are rows of a table in a private temporary SQLite database instead: SQLite keeps a few MB
of it in memory and writes the rest to a temporary file of its own, deleted when the connection
closes (``sqlite3.connect("")``, as ``validate``'s spill database). Memory is flat in the number of
sessions; see ``adr/0050-import-plans-in-a-temporary-table.md``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from typing import Any, Literal, overload

from ..errors import StoreError
from ._types import ImportResult

__all__ = ["ImportResults", "PlanRow", "PlanTable"]

_STATUS = {1: "imported", 2: "unchanged"}
_CODE = {"imported": 1, "unchanged": 2}

KEEP = 1000
"""Results an :class:`ImportResults` holds in memory (the first ones); the rest are read from its table."""

PAGE = 512
"""Rows a :class:`PlanTable` holds before writing them, and reads at a time (tests set small ones)."""

PlanRow = tuple[int, str, str, "int | None", int, "str | None", "int | None", "int | None", "int | None"]
"""``(index, source_id, target, header_line, count, parent_id, fork_seq, parent_index, status)``: one
session of the file (index: 0-based place in the file; status: ``None`` until written, 1 imported,
2 unchanged)."""

_ROW = "n, source_id, target, header_line, count, parent_id, fork_seq, parent_index, status"


class PlanTable:
    """One import's sessions, one row each, in file order, in a private temporary SQLite database.

    Rows are added a page at a time (``page`` rows held in memory before they are written). The
    table is also the set of the session ids read so far (``in`` and ``add``, as
    :func:`~interlingua.session_file.iter_session_parts` takes ``seen_ids``), so the check that a
    session appears once in the file does not hold every id in memory either.

    Raises:
        StoreError: SQLite cannot keep the table (a full temporary disk): every method.
    """

    def __init__(self, *, page: int | None = None) -> None:
        self.page = page or PAGE
        self.size = 0
        self.pending: list[tuple[Any, ...]] = []
        self.pending_ids: set[str] = set()
        self.opened: str | None = None  # the id of the session being read (its row comes at its end)
        try:
            # "" is a private temporary database: in SQLite's page cache while small, then in a
            # temporary file of its own, deleted when the connection closes.
            self.db: sqlite3.Connection | None = sqlite3.connect("", isolation_level=None, check_same_thread=False)
            for pragma in ("cache_size = -2048", "journal_mode = OFF", "synchronous = OFF"):
                self.db.execute(f"PRAGMA {pragma}")
            self.db.execute(
                "CREATE TABLE plans (n INTEGER PRIMARY KEY, source_id TEXT NOT NULL UNIQUE, target TEXT NOT NULL, header_line INTEGER,"
                " count INTEGER NOT NULL, link_parent TEXT, link_seq INTEGER, linked INTEGER NOT NULL, parent_id TEXT, fork_seq INTEGER,"
                " parent_index INTEGER, outside INTEGER NOT NULL DEFAULT 0, acyclic INTEGER NOT NULL DEFAULT 0, status INTEGER)"
            )
        except sqlite3.Error as exc:
            raise _failed(exc) from exc

    def _conn(self) -> sqlite3.Connection:
        if self.db is None:
            raise StoreError("the import's session table was closed")
        return self.db

    def _run(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        try:
            return self._conn().execute(sql, args).fetchall()
        except sqlite3.Error as exc:
            raise _failed(exc) from exc

    # -- the set of session ids read so far (iter_session_parts' `seen_ids`) --------------------

    def __contains__(self, source_id: object) -> bool:
        if source_id == self.opened or source_id in self.pending_ids:
            return True
        return bool(self._run("SELECT 1 FROM plans WHERE source_id = ?", (source_id,)))

    def add(self, source_id: str) -> None:
        """A session ``source_id`` starts (its row is added at its end, by :meth:`append`)."""
        self.opened = source_id

    # -- rows --------------------------------------------------------------------------------

    def __len__(self) -> int:
        return self.size

    def append(self, source_id: str, target: str, header_line: int | None, count: int, link: tuple[Any, Any] | None) -> None:
        """Add the next session of the file. ``link``: its header's ``(parent_id, fork_seq)`` as
        written (``None`` each where absent), ``None`` without a fork link."""
        parent, seq = link if link is not None else (None, None)
        self.pending.append((self.size, source_id, target, header_line, count, parent, seq, int(link is not None)))
        self.pending_ids.add(source_id)
        self.size += 1
        if self.opened == source_id:
            self.opened = None
        if len(self.pending) >= self.page:
            self.flush()

    def flush(self) -> None:
        """Write the rows added since the last flush."""
        if not self.pending:
            return
        try:
            conn = self._conn()
            conn.execute("BEGIN")
            conn.executemany(
                "INSERT INTO plans (n, source_id, target, header_line, count, link_parent, link_seq, linked) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                self.pending,
            )
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            raise _failed(exc) from exc
        self.pending = []
        self.pending_ids = set()

    def get(self, index: int) -> PlanRow:
        """The row of the session at ``index``."""
        self.flush()
        return tuple(self._run(f"SELECT {_ROW} FROM plans WHERE n = ?", (index,))[0])

    def index_of(self, source_id: str) -> int | None:
        """The index of the session whose id in the file is ``source_id`` (``None``: not in the file)."""
        self.flush()
        rows = self._run("SELECT n FROM plans WHERE source_id = ?", (source_id,))
        return int(rows[0][0]) if rows else None

    def rows(self, *, start: int = 0, stop: int | None = None, where: str = "1") -> Iterator[PlanRow]:
        """The rows in file order (indexes ``start`` to ``stop``, matching ``where``), read a page at a time."""
        self.flush()
        after = start - 1
        last = self.size - 1 if stop is None else stop
        while True:
            page = self._run(f"SELECT {_ROW} FROM plans WHERE n > ? AND n <= ? AND ({where}) ORDER BY n LIMIT ?", (after, last, self.page))
            yield from page
            if len(page) < self.page:
                return
            after = page[-1][0]

    def links(self) -> Iterator[tuple[PlanRow, Any, Any]]:
        """The sessions whose header has a fork link, with ``parent_id`` and ``fork_seq`` as written
        (``None`` where absent), in file order, a page at a time."""
        self.flush()
        after = -1
        while True:
            page = self._run(
                f"SELECT {_ROW}, link_parent, link_seq FROM plans WHERE n > ? AND linked ORDER BY n LIMIT ?", (after, self.page)
            )
            for row in page:
                yield tuple(row[:9]), row[9], row[10]
            if len(page) < self.page:
                return
            after = page[-1][0]

    def set_link(self, index: int, parent_id: str, fork_seq: int, parent_index: int | None) -> None:
        """Record a resolved fork link (``parent_index``: the parent's index in the file, ``None``
        for a parent the store must hold)."""
        self._run(
            "UPDATE plans SET parent_id = ?, fork_seq = ?, parent_index = ?, outside = ? WHERE n = ?",
            (parent_id, fork_seq, parent_index, int(parent_index is None), index),
        )

    def first_cycle(self) -> int | None:
        """The index of the first session (file order) whose chain of in-file parents runs into a
        cycle, ``None`` when there is none. Each session's chain is walked once (a session found
        to end at a root is marked), holding only the chain being walked."""
        for row in self.rows(where="parent_index IS NOT NULL AND NOT acyclic"):
            start = row[0]
            chain = [start]
            seen = {start}
            at = row[7]
            while at is not None:
                parent, acyclic = self._run("SELECT parent_index, acyclic FROM plans WHERE n = ?", (at,))[0]
                if acyclic:
                    break
                if at in seen:
                    return start
                seen.add(at)
                chain.append(at)
                at = parent
            try:
                self._conn().executemany("UPDATE plans SET acyclic = 1 WHERE n = ?", ((n,) for n in chain))
            except sqlite3.Error as exc:
                raise _failed(exc) from exc
        return None

    def set_status(self, index: int, status: Literal["imported", "unchanged"]) -> None:
        """Record that the session at ``index`` was written (or found already stored)."""
        self._run("UPDATE plans SET status = ? WHERE n = ?", (_CODE[status], index))

    def written(self, index: int) -> bool:
        """Whether the session at ``index`` has been written (or found already stored)."""
        return self._run("SELECT status FROM plans WHERE n = ?", (index,))[0][0] is not None

    def last_pending(self) -> int | None:
        """The index of the last session not written yet (``None``: all written)."""
        rows = self._run("SELECT max(n) FROM plans WHERE status IS NULL")
        return None if rows[0][0] is None else int(rows[0][0])

    def close(self) -> None:
        """Close the database (its temporary file goes with it)."""
        if self.db is not None:
            self.db.close()
            self.db = None


def _failed(exc: sqlite3.Error) -> StoreError:
    return StoreError(f"the import's temporary session table failed ({exc}); is the temporary directory full? (TMPDIR, SQLITE_TMPDIR)")


def _result(row: Sequence[Any]) -> ImportResult:
    return ImportResult(row[2], _STATUS[row[8]], row[4], row[1])  # type: ignore[arg-type]


class ImportResults(Sequence[ImportResult]):
    """What :meth:`SessionStore.import_sessions <interlingua.store.SessionStore.import_sessions>` did:
    one :class:`ImportResult` per session of the file, in file order, and their counts.

    A read-only sequence, used as the list returned before: ``len(results)``, ``results[0]``,
    slices (a list), iteration, unpacking (``[one] = results``) and ``==`` with a list of
    :class:`ImportResult`. It holds the first 1,000 results in memory; those past them are read
    from the import's private temporary database a page at a time when iterated or indexed, so
    importing a file of 270,000 sessions does not hold 270,000 objects. That database stays open
    while the object lives (a few MB at most, on disk past that) or until :meth:`close`.

    Attributes:
        imported: Number of sessions written now.
        unchanged: Number of sessions that were already stored with this content.
        items: Number of items in the file's sessions (imported and unchanged).
    """

    __slots__ = ("_first", "_size", "_table", "imported", "items", "unchanged")

    def __init__(self, first: list[ImportResult], size: int, table: PlanTable | None, *, imported: int, unchanged: int, items: int) -> None:
        self._first = first
        self._size = size
        self._table = table
        self.imported = imported
        self.unchanged = unchanged
        self.items = items

    @classmethod
    def from_table(cls, table: PlanTable, *, imported: int, unchanged: int, items: int) -> ImportResults:
        """The results of an import whose every row of ``table`` is written; the table is closed
        here when its first 1,000 rows are all of it, else kept for the rest."""
        first = [_result(row) for row in table.rows(stop=KEEP - 1)]
        keep = table if len(table) > len(first) else None
        if keep is None:
            table.close()
        return cls(first, len(table), keep, imported=imported, unchanged=unchanged, items=items)

    def __len__(self) -> int:
        return self._size

    @overload
    def __getitem__(self, index: int) -> ImportResult: ...

    @overload
    def __getitem__(self, index: slice) -> list[ImportResult]: ...

    def __getitem__(self, index: int | slice) -> ImportResult | list[ImportResult]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._size))]
        i = index + self._size if index < 0 else index
        if not 0 <= i < self._size:
            raise IndexError("import result index out of range")
        if i < len(self._first):
            return self._first[i]
        return _result(self._rest().get(i))

    def __iter__(self) -> Iterator[ImportResult]:
        yield from self._first
        if self._size > len(self._first):
            for row in self._rest().rows(start=len(self._first)):
                yield _result(row)

    def _rest(self) -> PlanTable:
        if self._table is None or self._table.db is None:
            raise StoreError(f"the results past the first {len(self._first)} of this import were closed (ImportResults.close)")
        return self._table

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, (str, bytes)):
            return NotImplemented
        return len(other) == self._size and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<ImportResults: {self._size} session(s), {self.imported} imported, {self.unchanged} unchanged, {self.items} item(s)>"

    def close(self) -> None:
        """Let go of the temporary database (the results past the first 1,000 can no longer be read)."""
        if self._table is not None:
            self._table.close()
