"""Concurrent writers: tasks and processes never produce gaps, duplicates or lost items."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from interlingua.items import TextItem
from interlingua.store import ConflictError, SessionStore

SRC = str(Path(__file__).resolve().parents[2] / "src")


async def test_fifty_appenders_at_the_same_head(store: SessionStore) -> None:
    sid = await store.create_session()
    await store.append(sid, [TextItem(role="user", text="start")], expected_seq=-1)

    async def writer(i: int) -> int:
        return await store.append(sid, [TextItem(role="assistant", text=f"w{i}-a"), TextItem(role="assistant", text=f"w{i}-b")], expected_seq=0)

    results = await asyncio.gather(*(writer(i) for i in range(50)), return_exceptions=True)
    wins = [r for r in results if isinstance(r, int)]
    conflicts = [r for r in results if isinstance(r, ConflictError)]
    assert wins == [2], results
    assert len(conflicts) == 49
    assert all(c.expected == 0 and c.actual == 2 for c in conflicts)
    envs = await store.load_envelopes(sid)
    assert [e.seq for e in envs] == [0, 1, 2]
    winner = results.index(2)
    assert [e.item.text for e in envs[1:]] == [f"w{winner}-a", f"w{winner}-b"]  # type: ignore[union-attr]


async def test_unconditional_appenders_interleave_whole_batches(store: SessionStore) -> None:
    sid = await store.create_session()

    async def writer(i: int) -> None:
        for j in range(3):
            await store.append(sid, [TextItem(role="user", text=f"{i}.{j}.{k}") for k in range(4)])

    await asyncio.gather(*(writer(i) for i in range(20)))
    envs = await store.load_envelopes(sid)
    assert [e.seq for e in envs] == list(range(20 * 3 * 4))
    texts = [e.item.text for e in envs]  # type: ignore[union-attr]
    assert sorted(texts) == sorted(f"{i}.{j}.{k}" for i in range(20) for j in range(3) for k in range(4))
    for start in range(0, len(texts), 4):  # each batch is contiguous and in order
        batch = texts[start : start + 4]
        assert [t.rsplit(".", 1)[0] for t in batch] == [batch[0].rsplit(".", 1)[0]] * 4
        assert [t.rsplit(".", 1)[1] for t in batch] == ["0", "1", "2", "3"]


_PROC_WRITER = textwrap.dedent(
    """
    import asyncio, sys
    from interlingua.items import TextItem
    from interlingua.store import ConflictError, SessionStore

    async def main(url, sid, tag, n):
        store = await SessionStore.open(url)
        done = 0
        try:
            while done < n:
                head = await store.head(sid)
                try:
                    await store.append(sid, [TextItem(role="user", text=f"{tag}.{done}.{k}") for k in range(3)], expected_seq=head)
                    done += 1
                except ConflictError:
                    pass
        finally:
            await store.close()

    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])))
    """
)


async def test_concurrent_writer_processes(store: SessionStore, db_url: str) -> None:
    sid = await store.create_session()
    env = {**os.environ, "PYTHONPATH": SRC}
    procs = [
        await asyncio.create_subprocess_exec(sys.executable, "-c", _PROC_WRITER, db_url, sid, f"p{i}", "5", env=env) for i in range(3)
    ]
    codes = await asyncio.wait_for(asyncio.gather(*(p.wait() for p in procs)), timeout=240)
    assert codes == [0, 0, 0]
    envs = await store.load_envelopes(sid)
    assert [e.seq for e in envs] == list(range(3 * 5 * 3))
    texts = [e.item.text for e in envs]  # type: ignore[union-attr]
    assert sorted(texts) == sorted(f"p{i}.{j}.{k}" for i in range(3) for j in range(5) for k in range(3))


_KILLED_WRITER = textwrap.dedent(
    """
    import asyncio, sys, time
    from sqlalchemy import event
    from interlingua.items import TextItem
    from interlingua.store import SessionStore, _driver

    async def main(url, sid):
        store = await SessionStore.open(url)
        inserts = []

        @event.listens_for(store.engine.sync_engine, "after_cursor_execute")
        def stall(conn, cursor, statement, parameters, context, executemany):
            if statement.lstrip().upper().startswith("INSERT INTO INTERLINGUA_ITEMS"):
                inserts.append(1)
                if len(inserts) == 2:  # two chunks of the batch are in, the rest is not
                    print("MID-BATCH", flush=True)
                    time.sleep(120)

        # SQLite: the append runs on the driver's thread, each run of its rows an iterable that
        # executemany consumes
        orig = _driver._item_batches

        def stalling_batches(*args, **kwargs):
            def rows(params):
                for i, p in enumerate(params):
                    if i == 2500:  # half the batch is in, the rest is not
                        print("MID-BATCH", flush=True)
                        time.sleep(120)
                    yield p
            (sql, params), *rest = orig(*args, **kwargs)
            assert len(params) > 2500
            return [(sql, rows(params)), *rest]

        _driver._item_batches = stalling_batches
        # PostgreSQL: the append is one statement sent straight to asyncpg; stall it inside the
        # statement (after the head UPDATE took the row lock), where the test kills the writer
        _driver._PG_APPEND_EXPECTED_SQL = _driver._PG_APPEND_EXPECTED_SQL.replace("FROM adv, unnest(", "FROM adv, pg_sleep(120) AS stall, unnest(")
        if store.backend == "postgresql":
            print("MID-BATCH", flush=True)
        await store.append(sid, [TextItem(role="user", text=f"doomed {i}") for i in range(5000)], expected_seq=1)

    asyncio.run(main(sys.argv[1], sys.argv[2]))
    """
)


async def test_writer_killed_mid_batch_leaves_nothing(store: SessionStore, db_url: str) -> None:
    sid = await store.create_session()
    await store.append(sid, [TextItem(role="user", text="a"), TextItem(role="user", text="b")])
    proc = subprocess.Popen(
        [sys.executable, "-c", _KILLED_WRITER, db_url, sid],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": SRC},
    )
    try:
        line = await asyncio.wait_for(asyncio.to_thread(proc.stdout.readline), timeout=120)  # type: ignore[union-attr]
        assert line.strip() == b"MID-BATCH", proc.stderr.read() if proc.poll() is not None else line  # type: ignore[union-attr]
        if store.backend == "postgresql":
            # the statement is running on the server: kill the process, and its backend as a crash
            # of the client's host would end it (the server notices a dead client only when it writes)
            import asyncpg
            from sqlalchemy.engine import make_url

            dsn = make_url(db_url).set(drivername="postgresql").render_as_string(hide_password=False)
            admin = await asyncpg.connect(dsn)
            try:
                for _ in range(400):
                    pids = await admin.fetch("SELECT pid FROM pg_stat_activity WHERE query LIKE '%pg_sleep(120) AS stall%' AND pid <> pg_backend_pid()")
                    if pids:
                        break
                    await asyncio.sleep(0.05)
                assert pids, "the stalled append never reached the server"
                # a stale writer does not wait for the lock holder's statement to end: it queues
                # on the row lock only, and fails as soon as the lock is released (below)
                os.kill(proc.pid, signal.SIGKILL)
                await admin.execute("SELECT pg_terminate_backend($1)", pids[0]["pid"])
            finally:
                await admin.close()
        else:
            os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.kill()
        proc.communicate()  # reaps it and closes the pipes
    assert proc.returncode == -signal.SIGKILL
    # The dead writer's transaction is gone; appends continue densely.
    assert await store.head(sid) == 1
    assert await store.append(sid, [TextItem(role="user", text="c")], expected_seq=1) == 2
    envs = await store.load_envelopes(sid)
    assert [(e.seq, e.item.text) for e in envs] == [(0, "a"), (1, "b"), (2, "c")]  # type: ignore[union-attr]


@pytest.mark.parametrize("n", [1])
async def test_many_sessions_in_parallel_do_not_block_each_other(store: SessionStore, n: int) -> None:
    sids = [await store.create_session() for _ in range(10)]
    await asyncio.gather(*(store.append(s, [TextItem(role="user", text=s)], expected_seq=-1) for s in sids))
    for s in sids:
        assert [i.text for i in (await store.load(s)).items] == [s]  # type: ignore[union-attr]
