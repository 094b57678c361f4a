"""Migrations: the schema they build matches the models; old databases upgrade with every item intact."""

from __future__ import annotations

import msgspec
import sqlalchemy as sa
import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from interlingua.errors import MigrationRequiredError, StoreError
from interlingua.items import TextItem, ToolCallItem, ToolDefinition, Usage
from interlingua.codec import UnknownItem
from interlingua.store import SessionStore, head_revision, upgrade
from interlingua.store._engine import JsonText, create_engine, normalize_url
from interlingua.store._migrate import upgrade_sync
from interlingua.store._rows import prepare_rows
from interlingua.store._schema import ITEMS, METADATA, SESSIONS, VERSION_TABLE


def _without(values: dict, *names: str) -> dict:
    return {k: v for k, v in values.items() if k not in names}


def _diff(sync_conn: sa.Connection) -> list:
    ctx = MigrationContext.configure(sync_conn, opts={"compare_type": True, "version_table": VERSION_TABLE})
    return compare_metadata(ctx, METADATA)


async def test_migrated_schema_matches_the_models(store: SessionStore) -> None:
    async with store.engine.connect() as conn:
        assert await conn.run_sync(_diff) == []
        rev = (await conn.execute(sa.text(f"SELECT version_num FROM {VERSION_TABLE}"))).scalar_one()
    assert rev == head_revision() == "0005"


async def test_downgrade_and_upgrade_again(empty_url: str) -> None:
    from alembic import command

    from interlingua.store._migrate import alembic_config

    await upgrade(empty_url)
    engine = create_engine(normalize_url(empty_url))

    def down(c: sa.Connection) -> None:
        cfg = alembic_config()
        cfg.attributes["connection"] = c
        command.downgrade(cfg, "base")

    async with engine.begin() as conn:
        await conn.run_sync(down)
    async with engine.connect() as conn:
        assert not set(await conn.run_sync(lambda c: sa.inspect(c).get_table_names())) & set(METADATA.tables)
    await engine.dispose()
    assert await upgrade(empty_url) == head_revision()


async def test_database_at_first_revision_with_data_upgrades_intact(empty_url: str) -> None:
    engine = create_engine(normalize_url(empty_url))
    items = [
        TextItem(role="user", text="hello"),
        ToolCallItem(id="call_1", name="f", arguments={"a": [1, 2]}),
        UnknownItem(b'{"type":"future_thing","b":2,"a":1}', "future_thing"),
    ]
    rows = prepare_rows(items, usage=Usage(input_tokens=3))
    async with engine.begin() as conn:
        await conn.run_sync(upgrade_sync, "0001")
        from datetime import UTC, datetime

        now = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
        for sid, meta in (("old-1", JsonText('{"team":"x"}')), ("old-2", None)):
            await conn.execute(
                sa.insert(SESSIONS).values(
                    id=sid, created_at=now, updated_at=now, head_seq=len(rows) - 1, metadata=meta,
                    tools=JsonText('[{"name":"f","parameters":{"type":"object"}}]') if meta else None,
                )
            )
            # the columns revision 0001 has (`response` came with 0004)
            await conn.execute(sa.insert(ITEMS), [_without(r.values(sid, i, now), "response") for i, r in enumerate(rows)])
    await engine.dispose()

    with pytest.raises(MigrationRequiredError) as ei:
        await SessionStore.open(empty_url)
    msg = str(ei.value)
    assert "revision 0001" in msg and "0005" in msg and "interlingua store upgrade --url" in msg

    store = await SessionStore.open(empty_url, upgrade=True)
    try:
        for sid in ("old-1", "old-2"):
            envs = await store.load_envelopes(sid)
            assert [e.item for e in envs] == items
            assert envs[2].item.raw == b'{"type":"future_thing","b":2,"a":1}'  # type: ignore[union-attr]
            assert envs[-1].usage == Usage(input_tokens=3)
            assert envs[0].created_at == "2026-01-02T03:04:05Z"
        t = await store.load("old-1")
        assert t.metadata == {"team": "x"} and t.tools == [ToolDefinition(name="f", parameters={"type": "object"})]
        ch = await store.changes("old-1")
        assert [(c.change_no, c.effective_seq, c.changed["metadata"]) for c in ch] == [(0, 0, {"team": "x"})]
        assert await store.changes("old-2") == []
        # And the upgraded database works on.
        assert await store.append("old-1", [TextItem(role="user", text="more")], expected_seq=2) == 3
        async with store.engine.connect() as conn:
            assert await conn.run_sync(_diff) == []
    finally:
        await store.close()


async def test_empty_database_without_create_names_the_command(empty_url: str) -> None:
    with pytest.raises(MigrationRequiredError, match="interlingua store upgrade --url"):
        await SessionStore.open(empty_url, create=False)
    store = await SessionStore.open(empty_url)  # create=True (default) builds the schema
    await store.close()
    store = await SessionStore.open(empty_url, create=False)
    await store.close()


async def test_unknown_revision_and_unversioned_tables_are_refused(empty_url: str) -> None:
    await upgrade(empty_url)
    engine = create_engine(normalize_url(empty_url))
    async with engine.begin() as conn:
        await conn.execute(sa.text(f"UPDATE {VERSION_TABLE} SET version_num = '9999'"))
    with pytest.raises(StoreError, match="9999.*does not know.*upgrade interlingua"):
        await SessionStore.open(empty_url, upgrade=True)
    async with engine.begin() as conn:
        await conn.execute(sa.text(f"DELETE FROM {VERSION_TABLE}"))
    await engine.dispose()
    with pytest.raises(MigrationRequiredError, match="no recorded revision"):
        await SessionStore.open(empty_url)


async def test_concurrent_opens_of_an_empty_database(empty_url: str) -> None:
    import asyncio

    stores = await asyncio.gather(*(SessionStore.open(empty_url) for _ in range(4)))
    for s in stores:
        await s.close()


async def test_database_at_0003_with_data_upgrades_and_then_keeps_response_metadata(empty_url: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Revision 0004 adds the items' ``response`` column: rows stored before keep their items, usage and
    stop reason (and have no response metadata); the upgraded store stores and exports it."""
    from datetime import UTC, datetime

    from interlingua.items import ResponseInfo, StopReason

    engine = create_engine(normalize_url(empty_url))
    items = [TextItem(role="user", text="hello"), TextItem(role="assistant", text="hi")]
    rows = prepare_rows(items, usage=Usage(input_tokens=7, output_tokens=1), stop_reason=StopReason(reason="end_turn", raw="end_turn"))
    now = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    async with engine.begin() as conn:
        await conn.run_sync(upgrade_sync, "0003")
        await conn.execute(sa.insert(SESSIONS).values(id="old", created_at=now, updated_at=now, head_seq=1))
        await conn.execute(sa.insert(ITEMS), [_without(r.values("old", i, now), "response") for i, r in enumerate(rows)])
    await engine.dispose()

    with pytest.raises(MigrationRequiredError, match="revision 0003"):
        await SessionStore.open(empty_url)
    store = await SessionStore.open(empty_url, upgrade=True)
    try:
        t = await store.load("old")
        assert t.items == items and t.usage == Usage(input_tokens=7, output_tokens=1) and t.stop_reason.reason == "end_turn"  # type: ignore[union-attr]
        assert t.response is msgspec.UNSET and [r.response for r in t.responses] == [msgspec.UNSET]  # type: ignore[union-attr]
        info = ResponseInfo(id="msg_2", model="claude-haiku-4-5")
        await store.append("old", [TextItem(role="user", text="again")])
        await store.append("old", [TextItem(role="assistant", text="hi again")], usage=Usage(input_tokens=12), response=info)
        t = await store.load("old")
        assert [(r.item, r.response) for r in t.responses] == [(1, msgspec.UNSET), (3, info)]  # type: ignore[union-attr]
        out = tmp_path / "old.jsonl"
        await store.export_jsonl("old", out)
        assert '"response":{"id":"msg_2","model":"claude-haiku-4-5"}' in out.read_text().splitlines()[-1]
        async with store.engine.connect() as conn:
            assert await conn.run_sync(_diff) == []
    finally:
        await store.close()
