"""Invalid input is refused before any write; rows that fail to decode are quarantined, never skipped silently."""

from __future__ import annotations

import math

import msgspec
import pytest
import sqlalchemy as sa

from interlingua.errors import DocumentError
from interlingua.items import StopReason, TextItem, ToolCallItem, ToolDefinition, Usage
from interlingua.store import CorruptRowError, CorruptRowWarning, SessionStore
from interlingua.store._schema import ITEMS


async def test_invalid_items_refused_before_any_write(store: SessionStore) -> None:
    sid = await store.create_session()
    await store.append(sid, [TextItem(role="user", text="keep")])
    good = TextItem(role="user", text="fine")
    bad_batches = {
        "plain dict": ([good, {"type": "text", "text": "x"}], "/1"),
        "NaN": ([good, good, ToolCallItem(id="c", name="f", arguments={"x": math.nan})], "/2/arguments/x"),
        "wrong field type": ([TextItem(role="user", text=123)], "/0/text"),  # type: ignore[arg-type]
        "bad role": ([good, TextItem(role="wizard", text="x")], "/1/role"),  # type: ignore[arg-type]
        "bytes": ([TextItem(role="user", text="x", metadata={"b": b"\x00"})], "/0/metadata/b"),
        "not a list": (good, ""),
        "lone surrogate": ([good, TextItem(role="user", text="a\ud800")], "/1/text"),  # the string itself
    }
    for name, (batch, pointer) in bad_batches.items():
        with pytest.raises(DocumentError) as ei:
            await store.append(sid, batch)  # type: ignore[arg-type]
        assert ei.value.problems[0].pointer == pointer, (name, ei.value)
    with pytest.raises(DocumentError, match="Usage"):
        await store.append(sid, [good], usage={"input_tokens": 1})  # type: ignore[arg-type]
    with pytest.raises(DocumentError):
        await store.append(sid, [good], stop_reason=StopReason(reason="bored"))  # type: ignore[arg-type]
    with pytest.raises(DocumentError):
        await store.append(sid, [good], usage=Usage(input_tokens=-1))
    assert [i.text for i in (await store.load(sid)).items] == ["keep"]  # type: ignore[union-attr]
    assert await store.head(sid) == 0


async def test_invalid_session_settings_refused(store: SessionStore) -> None:
    for kwargs in ({"metadata": {"x": math.inf}}, {"metadata": [1]}, {"metadata": {"s": "\udfff"}}, {"tools": [{"description": "no name"}]}, {"tools": "f"}):
        with pytest.raises(DocumentError):
            await store.create_session(**kwargs)  # type: ignore[arg-type]
    assert await store.list_sessions() == []
    sid = await store.create_session(tools=[{"name": "ok", "parameters": {"type": "object"}}])  # type: ignore[list-item]
    assert (await store.get_session(sid)).tools == [ToolDefinition(name="ok", parameters={"type": "object"})]
    with pytest.raises(DocumentError):
        await store.update_session(sid, metadata={1: "x"})  # type: ignore[dict-item]
    assert await store.changes(sid) != [] and len(await store.changes(sid)) == 1


async def test_nul_character(store: SessionStore) -> None:
    sid = await store.create_session()
    item = TextItem(role="user", text="a\x00b")
    if store.backend == "postgresql":
        with pytest.raises(DocumentError, match="U\\+0000"):
            await store.append(sid, [item])
        assert await store.head(sid) == -1
    else:
        await store.append(sid, [item])
        assert (await store.load(sid)).items == [item]
    # An escaped backslash followed by u0000 is ordinary text on both.
    literal = TextItem(role="user", text="\\u0000")
    await store.append(sid, [literal])
    assert (await store.load(sid)).items[-1] == literal


async def _corrupt(store: SessionStore, sid: str, seq: int, **values: object) -> None:
    async with store.engine.begin() as conn:
        await conn.execute(sa.update(ITEMS).where(ITEMS.c.session_id == sid, ITEMS.c.seq == seq).values(**values))


async def test_corrupt_rows_are_quarantined_and_reported(store: SessionStore) -> None:
    from interlingua.store._engine import JsonText

    sid = await store.create_session()
    items = [TextItem(role="user", text=str(i)) for i in range(5)]
    await store.append(sid, items)
    await _corrupt(store, sid, 1, item=JsonText('{"type":"text"}'), raw_json='{"type":"text"}')  # missing `text`
    await _corrupt(store, sid, 3, schema_version="7.0")  # written by a newer major
    with pytest.raises(CorruptRowError) as ei:
        await store.load(sid)
    assert [r.seq for r in ei.value.rows] == [1, 3]
    assert "text" in ei.value.rows[0].reason and "newer" in ei.value.rows[1].reason
    assert "quarantined" in str(ei.value)
    q = await store.quarantined(sid)
    assert [(r.seq, r.session_id) for r in q] == [(1, sid), (3, sid)] and all(r.detected_at for r in q)
    with pytest.raises(CorruptRowError):
        [e async for e in store.stream(sid)]
    with pytest.warns(CorruptRowWarning) as warned:
        t = await store.load(sid, on_corrupt="omit")
    assert t.items == [items[0], items[2], items[4]]
    assert len(warned) == 2
    # The rows are still stored (nothing deleted), seqs stay dense for appends.
    assert await store.append(sid, [TextItem(role="user", text="5")], expected_seq=4) == 5
    async with store.engine.connect() as conn:
        assert (await conn.execute(sa.select(sa.func.count()).select_from(ITEMS).where(ITEMS.c.session_id == sid))).scalar() == 6
    assert len(await store.quarantined()) == 2  # recorded once, however often read


async def test_corrupt_usage_is_reported(store: SessionStore) -> None:
    from interlingua.store._engine import JsonText

    sid = await store.create_session()
    await store.append(sid, [TextItem(role="user", text="x")], usage=Usage(input_tokens=1))
    await _corrupt(store, sid, 0, usage=JsonText('{"input_tokens":"many"}'))
    with pytest.raises(CorruptRowError, match="usage"):
        await store.load(sid)


def test_json_text_is_not_double_encoded() -> None:
    from interlingua.store._engine import JsonText, _json_serializer

    assert _json_serializer(JsonText('{"a":1}')) == '{"a":1}'
    assert _json_serializer({"a": 1}) == '{"a":1}'
    assert msgspec.json.decode(_json_serializer("plain")) == "plain"
