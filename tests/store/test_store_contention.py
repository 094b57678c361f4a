"""Writers on one session under contention: a stale ``expected_seq`` fails at once, and many tasks
share a small pool without dying on it (issue 32: PostgreSQL finished 22 of 400 tasks in 150 s,
median append 5.4 s, three died on "QueuePool limit of size 5 overflow 10 reached").

Liveness, not speed: the waits below are generous bounds on something that otherwise hangs until
another transaction ends, never a timing of the store.
"""

from __future__ import annotations

import asyncio

import pytest

from interlingua.errors import ConflictError
from interlingua.items import TextItem
from interlingua.store import SessionStore

pytestmark = pytest.mark.postgres


async def _admin(db_url: str):  # type: ignore[no-untyped-def]
    import asyncpg
    from sqlalchemy.engine import make_url

    return await asyncpg.connect(make_url(db_url).set(drivername="postgresql").render_as_string(hide_password=False))


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_a_stale_writer_fails_while_another_holds_the_row_lock(store: SessionStore, db_url: str) -> None:
    sid = await store.create_session()
    await store.append(sid, [TextItem(role="user", text="first")])  # head 0
    admin = await _admin(db_url)
    tx = admin.transaction()
    await tx.start()
    try:
        # another writer in the middle of its append: the session row is locked, not committed
        await admin.execute("UPDATE interlingua_sessions SET updated_at = now() WHERE id = $1", sid)
        with pytest.raises(ConflictError) as info:
            # expected -1 is already stale (the committed head is 0): no need to wait for the lock
            await asyncio.wait_for(store.append(sid, [TextItem(role="user", text="late")], expected_seq=-1), timeout=60)
        assert info.value.actual == 0
    finally:
        await tx.rollback()
        await admin.close()


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_many_tasks_on_one_head_share_a_small_pool(db_url: str) -> None:
    store = await SessionStore.open(db_url, pool_size=3, max_overflow=0, pool_timeout=60)
    try:
        sid = await store.create_session()

        async def writer(k: int) -> int:
            head = await store.head(sid)
            conflicts = 0
            for _ in range(5):
                while True:
                    try:
                        head = await store.append(sid, [TextItem(role="user", text=f"w{k}")], expected_seq=head)
                        break
                    except ConflictError as exc:
                        conflicts += 1
                        head = exc.actual
            return conflicts

        await asyncio.wait_for(asyncio.gather(*(writer(k) for k in range(24))), timeout=300)
        envs = await store.load_envelopes(sid)
        assert [e.seq for e in envs] == list(range(24 * 5))  # dense, every append there once
    finally:
        await store.close()
