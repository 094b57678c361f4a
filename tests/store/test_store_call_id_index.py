"""Revision 0005 (ADR 0051): the items' call-id index holds only rows that have a call id.

A database at every earlier revision, holding rows with and without call ids, upgrades with every
item, usage and timestamp intact; afterwards the index is partial on both backends, a look-up by
call id still uses it, and the upgraded store appends and finds calls as before.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from interlingua.codec import UnknownItem
from interlingua.errors import MigrationRequiredError
from interlingua.items import ReasoningItem, TextItem, ToolCallItem, ToolResultItem, Usage
from interlingua.store import SessionStore
from interlingua.store._engine import create_engine, normalize_url
from interlingua.store._migrate import upgrade_sync
from interlingua.store._rows import prepare_rows
from interlingua.store._schema import ITEMS, SESSIONS

_INDEX = "ix_interlingua_items_session_id_call_id"
_ITEMS = [
    TextItem(role="user", text="weather in Paris?"),
    ReasoningItem(text="look it up"),
    ToolCallItem(id="call_1", name="weather", arguments={"city": "Paris"}),
    ToolResultItem(call_id="call_1", content=[TextItem(text="12°C")]),
    UnknownItem(b'{"type":"future_call","id":"fc_9","b":2}', "future_call"),
    TextItem(role="assistant", text="12°C in Paris"),
]
_NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


async def _index_sql(conn: AsyncConnection, dialect: str) -> str:
    if dialect == "sqlite":
        sql = "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = :n"
    else:
        sql = "SELECT indexdef FROM pg_indexes WHERE indexname = :n"
    return str((await conn.execute(sa.text(sql), {"n": _INDEX})).scalar_one())


async def _lookup_plan(conn: AsyncConnection, dialect: str) -> str:
    """How the database finds a call's rows by call id (the look-up the index is for)."""
    where = "FROM interlingua_items WHERE session_id = 'old' AND call_id = 'call_1'"
    if dialect == "sqlite":
        rows = (await conn.execute(sa.text(f"EXPLAIN QUERY PLAN SELECT seq {where}"))).all()
        return " ".join(str(r[-1]) for r in rows)
    await conn.execute(sa.text("SET LOCAL enable_seqscan = off"))  # a tiny table: ask whether the index CAN serve it
    return " ".join(r[0] for r in (await conn.execute(sa.text(f"EXPLAIN SELECT seq {where}"))).all())


@pytest.mark.parametrize("revision", ["0001", "0002", "0003", "0004"])
async def test_a_database_at_every_earlier_revision_upgrades_with_its_rows_and_a_partial_index(empty_url: str, revision: str) -> None:
    engine = create_engine(normalize_url(empty_url))
    rows = prepare_rows(_ITEMS, usage=Usage(input_tokens=5, output_tokens=2))
    async with engine.begin() as conn:
        await conn.run_sync(upgrade_sync, revision)
        await conn.execute(sa.insert(SESSIONS).values(id="old", created_at=_NOW, updated_at=_NOW, head_seq=len(rows) - 1))
        values = [r.values("old", i, _NOW) for i, r in enumerate(rows)]
        if revision < "0004":  # the items' `response` column came with 0004
            values = [{k: v for k, v in row.items() if k != "response"} for row in values]
        await conn.execute(sa.insert(ITEMS), values)
        assert "WHERE" not in (await _index_sql(conn, engine.dialect.name)).upper()
    await engine.dispose()

    with pytest.raises(MigrationRequiredError, match=f"revision {revision}"):
        await SessionStore.open(empty_url)
    store = await SessionStore.open(empty_url, upgrade=True)
    try:
        envs = await store.load_envelopes("old")
        assert [e.item for e in envs] == _ITEMS
        assert envs[4].item.raw == b'{"type":"future_call","id":"fc_9","b":2}'  # type: ignore[union-attr]
        assert [e.usage for e in envs][-1] == Usage(input_tokens=5, output_tokens=2)
        assert {e.created_at for e in envs} == {"2026-01-02T03:04:05Z"}
        dialect = store.engine.dialect.name
        async with store.engine.begin() as conn:
            assert "call_id IS NOT NULL" in (await _index_sql(conn, dialect)).replace("(", "").replace(")", "")
            assert _INDEX in await _lookup_plan(conn, dialect)
            stored = (await conn.execute(sa.text("SELECT seq, call_id FROM interlingua_items WHERE session_id = 'old' ORDER BY seq"))).all()
            assert [tuple(r) for r in stored] == [(0, None), (1, None), (2, "call_1"), (3, "call_1"), (4, "fc_9"), (5, None)]
        # the upgraded store appends on, and its new rows are found by call id through the index
        head = await store.append("old", [ToolCallItem(id="call_2", name="weather", arguments={}), TextItem(role="user", text="ok")], expected_seq=5)
        assert head == 7
        async with store.engine.connect() as conn:
            found = (await conn.execute(sa.text("SELECT seq FROM interlingua_items WHERE session_id = 'old' AND call_id = 'call_2'"))).all()
        assert [r[0] for r in found] == [6]
    finally:
        await store.close()


async def test_downgrade_from_0005_restores_the_full_index(empty_url: str) -> None:
    from alembic import command

    from interlingua.store._migrate import alembic_config

    engine = create_engine(normalize_url(empty_url))
    async with engine.begin() as conn:
        await conn.run_sync(upgrade_sync, "0005")
        assert "IS NOT NULL" in (await _index_sql(conn, engine.dialect.name)).upper()

        def down(c: sa.Connection) -> None:
            cfg = alembic_config()
            cfg.attributes["connection"] = c
            command.downgrade(cfg, "0004")

        await conn.run_sync(down)
        assert "WHERE" not in (await _index_sql(conn, engine.dialect.name)).upper()
    await engine.dispose()


async def test_a_new_store_has_the_partial_index(store: SessionStore) -> None:
    """The schema a new store gets (revisions 0001-0005) has the partial index, which the model's
    drift check (Alembic autogenerate) does not compare."""
    async with store.engine.connect() as conn:
        assert "call_id IS NOT NULL" in (await _index_sql(conn, store.engine.dialect.name)).replace("(", "").replace(")", "")
