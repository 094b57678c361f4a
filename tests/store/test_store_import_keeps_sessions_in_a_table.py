"""``store import`` keeps each session of the file as a row of a private temporary SQLite table between
its two passes, and returns :class:`ImportResults` (issue 32: one plan and one result object per
session took a 1 GB file of 270,000 sessions to 254 MB). Pages and the number of results held in
memory are set small here, so the rows, fork links, the once-per-file check and the results all go
through the table as they do for a big file."""

from __future__ import annotations

import asyncio
import io
import uuid
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.errors import DocumentError, StoreError
from interlingua.session_file import header_bytes
from interlingua.store import ImportResult, ImportResults, SessionStore, _import_table

runner = CliRunner()


def _write(path: Path, sessions: list[tuple[str, int, dict[str, object]]]) -> Path:
    """``sessions``: (id, number of text items, extra header fields) in file order."""
    with open(path, "wb") as fh:
        for sid, n, extra in sessions:
            fh.write(header_bytes(sid, metadata={"n": n}, extra=extra) + b"\n")
            for s in range(n):
                role = "user" if s % 2 == 0 else "assistant"
                fh.write(b'{"schema_version":"1.0","session_id":"%s","seq":%d,"item":{"type":"text","role":"%s","text":"%s %d"}}\n' % (sid.encode(), s, role.encode(), sid.encode(), s))
    return path


@pytest.fixture
def small_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_import_table, "PAGE", 2)
    monkeypatch.setattr(_import_table, "KEEP", 3)


async def test_results_past_those_held_are_read_from_the_table(store: SessionStore, tmp_path: Path, small_pages: None) -> None:
    ids = [f"s{n}" for n in range(10)]
    path = _write(tmp_path / "f.jsonl", [(sid, n % 3 + 1, {}) for n, sid in enumerate(ids)])
    results = await store.import_sessions(path)
    expected = [ImportResult(sid, "imported", n % 3 + 1, sid) for n, sid in enumerate(ids)]
    assert isinstance(results, ImportResults)
    # the list it returned before: length, indexes, slices, iteration, equality both ways
    assert len(results) == 10 and list(results) == expected and results == expected and expected == results
    assert results[0] == expected[0] and results[7] == expected[7] and results[-1] == expected[-1]
    assert results[2:6] == expected[2:6] and results[::-3] == expected[::-3]
    assert [r.session_id for r in results] == ids and results.index(expected[8]) == 8 and expected[5] in results
    with pytest.raises(IndexError):
        results[10]
    assert (results.imported, results.unchanged, results.items) == (10, 0, sum(n % 3 + 1 for n in range(10)))
    assert repr(results) == "<ImportResults: 10 session(s), 10 imported, 0 unchanged, 19 item(s)>"
    # only the first 3 are objects; closing lets go of the table holding the rest
    assert len(results._first) == 3
    results.close()
    assert results[2] == expected[2]
    with pytest.raises(StoreError, match="closed"):
        results[3]
    again = await store.import_sessions(path)
    assert [r.status for r in again] == ["unchanged"] * 10 and (again.imported, again.unchanged) == (0, 10)
    assert {i.id: i.metadata for i in await store.list_sessions()} == {sid: {"n": n % 3 + 1} for n, sid in enumerate(ids)}


async def test_one_session_unpacks_and_holds_no_table(store: SessionStore, tmp_path: Path) -> None:
    path = _write(tmp_path / "one.jsonl", [("only", 2, {})])
    [result] = await store.import_sessions(path)
    assert result == ImportResult("only", "imported", 2, "only")
    results = await store.import_sessions(path, new_ids=True)
    assert results._table is None and results[0].source_id == "only" and results[0].session_id != "only"
    assert await store.import_jsonl(path) == "only"


async def test_a_session_twice_is_refused_when_its_first_rows_are_in_the_table(store: SessionStore, tmp_path: Path, small_pages: None) -> None:
    path = _write(tmp_path / "dup.jsonl", [("a", 1, {}), ("b", 1, {}), ("c", 1, {}), ("d", 1, {}), ("a", 1, {})])
    with pytest.raises(DocumentError, match="session 'a' appears twice") as err:
        await store.import_sessions(path)
    assert err.value.problems[0].line == 9
    assert await store.list_sessions() == []


def _reference_cycle(parents: dict[int, int | None]) -> int | None:
    """The first session (file order) whose chain of parents runs into a cycle, walked as the import
    did when it held every plan in a list."""
    for n in sorted(parents):
        seen = {n}
        at = parents[n]
        while at is not None:
            if at in seen:
                return n
            seen.add(at)
            at = parents[at]
    return None


@st.composite
def _forests(draw: st.DrawFn) -> tuple[list[tuple[str, int, dict[str, object]]], dict[int, int | None]]:
    """Sessions in a shuffled file order, each either a root or a fork of an earlier-made session
    (sometimes re-pointed to make a cycle), with item counts and fork seqs that fit."""
    size = draw(st.integers(2, 9))
    counts = [draw(st.integers(1, 3)) for _ in range(size)]
    made: list[int | None] = [None]
    for n in range(1, size):
        made.append(draw(st.one_of(st.none(), st.integers(0, n - 1))))
    if draw(st.booleans()) and size >= 2:  # a cycle: an earlier session names a later one as its parent
        a = draw(st.integers(0, size - 2))
        b = draw(st.integers(a + 1, size - 1))
        chain: set[int] = set()
        at: int | None = b
        while at is not None:
            chain.add(at)
            at = made[at]
        if a in chain:
            made[a] = b
    order = draw(st.permutations(range(size)))
    place = {made_no: file_no for file_no, made_no in enumerate(order)}
    sessions = []
    parents: dict[int, int | None] = {}
    for made_no in order:
        parent = made[made_no]
        extra: dict[str, object] = {}
        if parent is not None:
            extra = {"parent_id": f"s{parent}", "fork_seq": draw(st.integers(-1, min(counts[made_no], counts[parent]) - 1))}
        sessions.append((f"s{made_no}", counts[made_no], extra))
        parents[place[made_no]] = None if parent is None else place[parent]
    return sessions, parents


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(forest=_forests(), new_ids=st.booleans())
def test_fork_links_through_the_table_are_those_of_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, forest: tuple[list, dict], new_ids: bool) -> None:
    """Forks before or after their parents, across pages of 2 rows: every link restored (under the
    new ids with ``new_ids``); a cycle refused naming the session the list-held plans named, nothing written."""
    monkeypatch.setattr(_import_table, "PAGE", 2)
    monkeypatch.setattr(_import_table, "KEEP", 2)
    sessions, parents = forest
    work = tmp_path / uuid.uuid4().hex
    work.mkdir()
    path = _write(work / "f.jsonl", sessions)

    async def body() -> None:
        store = await SessionStore.open(f"sqlite+aiosqlite:///{work / 's.sqlite3'}", create=True)
        try:
            cycle = _reference_cycle(parents)
            if cycle is not None:
                with pytest.raises(DocumentError, match="cycle of forks") as err:
                    await store.import_sessions(path, new_ids=new_ids)
                assert f"session {sessions[cycle][0]!r} is its own ancestor" in str(err.value)
                assert await store.list_sessions() == []
                return
            results = await store.import_sessions(path, new_ids=new_ids)
            assert [r.source_id for r in results] == [s[0] for s in sessions] and {r.status for r in results} == {"imported"}
            stored = {r.source_id: r.session_id for r in results}
            info = {i.id: i for i in await store.list_sessions()}
            for sid, _n, extra in sessions:
                got = info[stored[sid]]
                parent = extra.get("parent_id")
                assert (got.parent_id, got.fork_seq) == ((stored[parent], extra["fork_seq"]) if parent else (None, None))
        finally:
            await store.close()

    asyncio.run(body())


class _ChangesAfterPassOne(io.BytesIO):
    """A file whose second read (pass 2) finds other sessions (``then``: as long as ``first``)."""

    def __init__(self, first: bytes, then: bytes) -> None:
        super().__init__(first)
        self.then = then
        self.reads = 0

    def seek(self, pos: int, whence: int = 0) -> int:
        if pos == 0 and whence == 0:
            self.reads += 1
            if self.reads == 2:
                super().seek(0)
                super().write(self.then)
        return super().seek(pos, whence)


async def test_a_file_changed_between_the_passes_is_a_store_error(store: SessionStore, tmp_path: Path) -> None:
    first = _write(tmp_path / "a.jsonl", [("a", 1, {}), ("b", 1, {})]).read_bytes()
    then = _write(tmp_path / "b.jsonl", [("a", 1, {}), ("c", 1, {})]).read_bytes()
    with pytest.raises(StoreError, match=r"changed while it was imported \(session 'b' is no longer session 2"):
        await store.import_sessions(_ChangesAfterPassOne(first, then))
    assert [i.id for i in await store.list_sessions()] == ["a"]  # each session is its own transaction


class _FullDisk:
    """A sqlite3 connection whose writes of many rows fail as on a full temporary directory."""

    def __init__(self, real: object) -> None:
        self.real = real

    def executemany(self, *args: object) -> object:
        import sqlite3

        raise sqlite3.OperationalError("database or disk is full")

    def __getattr__(self, name: str) -> object:
        return getattr(self.real, name)


def test_a_full_temporary_directory_is_a_clean_error_and_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sqlite3

    monkeypatch.setattr(_import_table, "PAGE", 2)
    real = sqlite3.connect
    monkeypatch.setattr(_import_table.sqlite3, "connect", lambda *a, **k: _FullDisk(real(*a, **k)))
    path = _write(tmp_path / "f.jsonl", [("a", 1, {}), ("b", 1, {}), ("c", 1, {})])
    url = f"sqlite+aiosqlite:///{tmp_path / 's.sqlite3'}"
    res = runner.invoke(app, ["store", "import", "-q", "--url", url, str(path)])
    assert res.exit_code == 2 and res.stdout == ""
    assert "the import's temporary session table failed (database or disk is full)" in res.stderr and "Traceback" not in res.stderr
    monkeypatch.undo()
    res = runner.invoke(app, ["store", "list", "--json", "--url", url])
    assert res.exit_code == 0 and res.stdout == ""  # nothing written


def test_cli_prints_every_id_past_those_held(tmp_path: Path, small_pages: None) -> None:
    ids = [f"s{n}" for n in range(7)]
    path = _write(tmp_path / "f.jsonl", [(sid, 1, {}) for sid in ids])
    url = f"sqlite+aiosqlite:///{tmp_path / 's.sqlite3'}"
    res = runner.invoke(app, ["store", "import", "-q", "--url", url, str(path)])
    assert res.exit_code == 0 and res.stdout.split() == ids
    res = runner.invoke(app, ["store", "import", "-q", "--url", url, str(path)])
    assert res.exit_code == 0 and res.stdout.split() == ids
    assert res.stderr.count("already stored with this content; left unchanged") == 7
