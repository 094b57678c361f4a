"""SQLite: an append and a load each run as one call on the driver's thread, a connection goes back to
the pool without a rollback round trip, and the batch paths pause the garbage collector. Each must
leave exactly the state the statement-by-statement path leaves: locks released, no transaction
open, the caller's collector setting, driver errors reported as database errors."""

from __future__ import annotations

import gc
import sqlite3
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from interlingua.codec import decode_item
from interlingua.errors import ConflictError, DocumentError, SessionNotFoundError, StoreError
from interlingua.items import TextItem
from interlingua.store import CorruptRowError, SessionStore

CANON = Path(__file__).parent.parent / "fixtures" / "canonical"
VALID = [decode_item(line) for line in (CANON / "valid_items.jsonl").read_bytes().splitlines() if line.strip()]


@pytest.fixture
async def sqlite_store(tmp_path: Path) -> AsyncIterator[tuple[SessionStore, Path]]:
    db = tmp_path / "s.sqlite3"
    store = await SessionStore.open(f"sqlite+aiosqlite:///{db}", create=True)
    try:
        yield store, db
    finally:
        await store.close()


def _write_lock_is_free(db: Path) -> bool:
    """Whether another connection can take the write lock at once (no busy wait)."""
    c = sqlite3.connect(db, timeout=0, isolation_level=None)
    try:
        c.execute("BEGIN IMMEDIATE")
        c.execute("ROLLBACK")
        return True
    except sqlite3.OperationalError as exc:
        assert "locked" in str(exc)
        return False
    finally:
        c.close()


async def test_every_outcome_of_an_append_releases_the_write_lock(sqlite_store: tuple[SessionStore, Path]) -> None:
    store, db = sqlite_store
    sid = await store.create_session(session_id="s")
    assert await store.append(sid, VALID[:3], expected_seq=-1) == 2
    assert _write_lock_is_free(db)
    with pytest.raises(ConflictError) as info:
        await store.append(sid, VALID[:1], expected_seq=0)
    assert info.value.actual == 2
    assert _write_lock_is_free(db)
    with pytest.raises(SessionNotFoundError):
        await store.append("missing", VALID[:1])
    assert _write_lock_is_free(db)
    # a failure after the head moved (a duplicate key, planted by hand) rolls the head back too
    with sqlite3.connect(db) as c:
        c.execute(
            "INSERT INTO interlingua_items (session_id, seq, schema_version, type, created_at, item) "
            "VALUES ('s', 4, '1.0', 'text', '2026-01-01 00:00:00.000000', '{\"type\":\"text\",\"text\":\"x\",\"role\":\"user\"}')"
        )
    with pytest.raises(StoreError, match="appending items failed.*IntegrityError") as err:
        await store.append(sid, VALID[:2])
    assert isinstance(err.value.__cause__, sa.exc.DBAPIError)
    assert isinstance(err.value.__cause__.orig, sqlite3.IntegrityError)
    assert _write_lock_is_free(db)
    assert await store.head(sid) == 2
    with sqlite3.connect(db) as c:
        c.execute("DELETE FROM interlingua_items WHERE session_id = 's' AND seq = 4")
    assert await store.append(sid, VALID[:2], expected_seq=2) == 4
    assert [e.seq for e in await store.load_envelopes(sid)] == [0, 1, 2, 3, 4]


async def test_a_connection_given_back_inside_a_transaction_is_rolled_back(sqlite_store: tuple[SessionStore, Path]) -> None:
    store, db = sqlite_store
    sid = await store.create_session(session_id="s")
    async with store.engine.connect() as conn:
        raw = await conn.get_raw_connection()
        driver = raw.driver_connection
        assert driver is not None
        await driver.execute("BEGIN IMMEDIATE")
        await driver.execute("UPDATE interlingua_sessions SET head_seq = 41 WHERE id = 's'")
        assert driver.in_transaction
        assert not _write_lock_is_free(db)
    # back in the pool: the reset hook rolled the open transaction back
    assert not driver.in_transaction
    assert _write_lock_is_free(db)
    assert await store.head(sid) == -1
    assert await store.append(sid, VALID[:1], expected_seq=-1) == 0


async def test_an_append_and_a_load_are_one_trip_each_to_the_driver_thread(
    sqlite_store: tuple[SessionStore, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """One call on aiosqlite's thread per append and per load: no hop per statement or cursor, and none
    for the pool's rollback-on-return when no transaction is open (the reset hook reads the flag in place)."""
    import aiosqlite

    store, _db = sqlite_store
    sid = await store.create_session(session_id="s")
    await store.append(sid, VALID[:2])  # the pool holds a connection now
    calls: list[str] = []
    original = aiosqlite.Connection._execute

    async def counting(self: aiosqlite.Connection, fn: object, *args: object, **kwargs: object) -> object:
        calls.append(getattr(fn, "__name__", repr(fn)))
        return await original(self, fn, *args, **kwargs)

    monkeypatch.setattr(aiosqlite.Connection, "_execute", counting)
    assert await store.append(sid, VALID[2:5], expected_seq=1) == 4
    assert calls == ["_append_sync"]
    calls.clear()
    assert [e.item for e in await store.load_envelopes(sid)] == VALID[:5]
    assert calls == ["_load_sync"]


@pytest.fixture(params=[True, False], ids=["gc-on", "gc-off"])
def collector(request: pytest.FixtureRequest) -> Iterator[bool]:
    was = gc.isenabled()
    (gc.enable if request.param else gc.disable)()
    try:
        yield request.param
    finally:
        (gc.enable if was else gc.disable)()


async def test_the_callers_collector_setting_survives_every_path(sqlite_store: tuple[SessionStore, Path], collector: bool) -> None:
    store, db = sqlite_store
    sid = await store.create_session(session_id="s")
    await store.append(sid, VALID)
    assert gc.isenabled() is collector
    assert [e.item for e in await store.load_envelopes(sid)] == VALID
    assert gc.isenabled() is collector
    with pytest.raises(DocumentError):
        await store.append(sid, [*VALID, TextItem(text=7)])  # type: ignore[arg-type]
    assert gc.isenabled() is collector
    with sqlite3.connect(db) as c:
        c.execute("UPDATE interlingua_items SET item = '{\"type\": \"text\", \"text\": 5}' WHERE session_id = 's' AND seq = 1")
    with pytest.raises(CorruptRowError):
        await store.load(sid)
    assert gc.isenabled() is collector


@pytest.mark.parametrize(
    ("stored", "readable"),
    [
        (b'{"type":"text","text":"blob","role":"user"}', True),  # JSON as a BLOB: the checked path reads it
        (5, False),  # a number: quarantined
        (None, False),  # NULL (only by hand: the column is NOT NULL, so raw_json carries it)
    ],
    ids=["blob", "integer", "null"],
)
async def test_a_row_whose_item_is_not_text_goes_to_the_checked_path(
    sqlite_store: tuple[SessionStore, Path], stored: object, readable: bool
) -> None:
    store, db = sqlite_store
    sid = await store.create_session(session_id="s")
    await store.append(sid, [TextItem(text=f"t{i}", role="user") for i in range(50)])
    with sqlite3.connect(db) as c:
        if stored is None:  # item is NOT NULL: an empty raw_json is what "no text" looks like there
            c.execute("UPDATE interlingua_items SET raw_json = x'00' WHERE session_id = 's' AND seq = 7")
        else:
            c.execute("UPDATE interlingua_items SET item = ? WHERE session_id = 's' AND seq = 7", (stored,))
    if readable:
        items = (await store.load(sid)).items
        assert len(items) == 50 and items[7] == TextItem(text="blob", role="user")
    else:
        with pytest.raises(CorruptRowError) as info:
            await store.load(sid)
        assert [r.seq for r in info.value.rows] == [7]


async def test_driver_errors_of_a_load_are_store_errors(sqlite_store: tuple[SessionStore, Path]) -> None:
    store, _db = sqlite_store
    sid = await store.create_session(session_id="s")
    await store.append(sid, VALID[:2])
    with pytest.raises(SessionNotFoundError):
        await store.load("missing")
    async with store.engine.begin() as conn:
        await conn.execute(sa.text("DROP TABLE interlingua_quarantine"))
        await conn.execute(sa.text("DROP TABLE interlingua_session_changes"))
        await conn.execute(sa.text("DROP TABLE interlingua_items"))
    with pytest.raises(StoreError, match="loading a session failed.*no such table") as err:
        await store.load(sid)
    assert isinstance(err.value.__cause__, sa.exc.DBAPIError)


async def test_a_cancelled_append_gives_its_connection_back(sqlite_store: tuple[SessionStore, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """An append checks its connection out at the pool, without a SQLAlchemy Connection around it. When
    its caller is cancelled while the driver's thread runs the append, the connection goes back to the
    pool at once (as ``AsyncConnection`` gave it back before, ADR 0020), the function still runs to its
    end on that thread (commit), the next call on the connection queues behind it, and the lock is free."""
    import asyncio
    import threading

    from interlingua.store import _driver

    store, db = sqlite_store
    sid = await store.create_session(session_id="s")
    await store.append(sid, VALID[:1])
    pool = store.engine.sync_engine.pool
    assert pool.checkedout() == 0  # type: ignore[attr-defined]
    entered, release = threading.Event(), threading.Event()
    original = _driver._append_sync

    def stalling(*args: object) -> object:
        entered.set()
        release.wait(30)
        return original(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(_driver, "_append_sync", stalling)
    task = asyncio.create_task(store.append(sid, VALID[1:3], expected_seq=0))
    assert await asyncio.to_thread(entered.wait, 30)
    assert pool.checkedout() == 1  # type: ignore[attr-defined]
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert pool.checkedout() == 0  # type: ignore[attr-defined]
    monkeypatch.setattr(_driver, "_append_sync", original)
    head = asyncio.create_task(store.head(sid))  # the pool's one connection: queued behind the append
    await asyncio.sleep(0.05)
    assert not head.done()
    release.set()
    assert await head == 2  # the cancelled append ran to its end on the driver's thread
    assert _write_lock_is_free(db)
    assert await store.append(sid, VALID[3:4], expected_seq=2) == 3
    assert [e.seq for e in await store.load_envelopes(sid)] == [0, 1, 2, 3]
    assert pool.checkedout() == 0  # type: ignore[attr-defined]


async def test_a_close_runs_to_its_end_in_place_or_in_a_task_of_its_own() -> None:
    """``_driver._to_completion``: a coroutine that never suspends runs in place (no task is made); one
    that suspends runs to its end even when the caller is cancelled meanwhile, which then sees the
    cancellation; its error reaches the caller."""
    import asyncio

    from interlingua.store import _driver

    steps: list[str] = []

    async def quick() -> None:
        steps.append("quick")

    before = len(asyncio.all_tasks())
    await _driver._to_completion(quick())
    assert steps == ["quick"] and len(asyncio.all_tasks()) == before

    loop = asyncio.get_running_loop()
    gates = [loop.create_future(), loop.create_future()]

    async def slow() -> None:
        steps.append("start")
        await gates[0]
        steps.append(f"got {gates[0].result()}")
        await asyncio.sleep(0)  # a bare yield, then another future
        await gates[1]
        steps.append("end")

    caller = asyncio.create_task(_driver._to_completion(slow()))
    await asyncio.sleep(0)
    assert steps[-1] == "start"
    caller.cancel()
    await asyncio.sleep(0)
    assert not caller.done()  # the caller waits for the close to end
    gates[0].set_result(1)
    await asyncio.sleep(0.01)
    gates[1].set_result(None)
    with pytest.raises(asyncio.CancelledError):
        await caller
    assert steps[-2:] == ["got 1", "end"]

    async def failing() -> None:
        await asyncio.sleep(0)
        raise ValueError("in the close")

    with pytest.raises(ValueError, match="in the close"):
        await _driver._to_completion(failing())


async def test_a_connection_given_back_mid_transaction_is_rolled_back_even_if_cancelled(sqlite_store: tuple[SessionStore, Path]) -> None:
    """The close that does suspend (the pool's reset rolls back an open transaction on the driver's
    thread) still ends with the connection back in the pool and the write lock free, cancelled or not."""
    import asyncio

    from sqlalchemy.util import greenlet_spawn

    from interlingua.store import _driver

    store, db = sqlite_store
    sid = await store.create_session(session_id="s")
    pool = store.engine.sync_engine.pool
    for cancel in (False, True):
        fairy = await store.engine.raw_connection()
        call = _driver._driver_caller(fairy, store.engine.dialect)
        assert call is not None
        await call(lambda c: c.execute("BEGIN IMMEDIATE"))
        assert not _write_lock_is_free(db)
        closing = asyncio.create_task(_driver._to_completion(greenlet_spawn(fairy.close)))
        if cancel:
            await asyncio.sleep(0)
            closing.cancel()
            with pytest.raises(asyncio.CancelledError):
                await closing
        else:
            await closing
        assert pool.checkedout() == 0  # type: ignore[attr-defined]
        assert _write_lock_is_free(db)
    assert await store.append(sid, VALID[:1], expected_seq=-1) == 0
