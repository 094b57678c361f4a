"""The SQLite append writes its rows through the driver: the stored values must be exactly what
SQLAlchemy's own insert binds (timestamps, JSON text, NULLs), and a bad batch still writes nothing."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from interlingua.codec import decode_item
from interlingua.errors import DocumentError
from interlingua.items import Envelope, StopReason, TextItem, Usage
from interlingua.store import SessionStore, _rows

CANON = Path(__file__).parent.parent / "fixtures" / "canonical"
VALID = [decode_item(line) for line in (CANON / "valid_items.jsonl").read_bytes().splitlines() if line.strip()]


def _rows_of(path: Path, sid: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as c:
        return c.execute("SELECT * FROM interlingua_items WHERE session_id = ? ORDER BY seq", (sid,)).fetchall()


async def test_driver_insert_stores_what_sqlalchemy_would(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite3"
    store = await SessionStore.open(f"sqlite+aiosqlite:///{db}", create=True)
    try:
        usage = Usage(input_tokens=3, output_tokens=4)
        envs = [
            Envelope(schema_version="1.0", session_id="x", seq=0, item=VALID[0], created_at="2026-01-02T03:04:05.123456+02:00"),
            *VALID[1:],
        ]
        fast = await store.create_session(session_id="fast")
        await store.append(fast, envs, usage=usage, stop_reason=StopReason(reason="end_turn", raw="end_turn"))
        # the same prepared rows through SQLAlchemy's insert (the path the driver insert replaces)
        slow = await store.create_session(session_id="slow")
        rows = _rows.prepare_rows(envs, usage=usage, stop_reason=StopReason(reason="end_turn", raw="end_turn"), keep_created_at=False)
        now = datetime.now(UTC)
        async with store._write("test") as conn:
            head = await store._advance(conn, slow, len(rows), -1, now)
            await store._insert_rows(conn, slow, head - len(rows) + 1, rows, now)
        a, b = _rows_of(db, "fast"), _rows_of(db, "slow")
        assert len(a) == len(b) == len(VALID)
        for ra, rb in zip(a, b):
            assert ra[1:6] == rb[1:6] and ra[7:] == rb[7:]  # all but session id and the append time
            assert type(ra[6]) is type(rb[6]) is str and len(ra[6]) == len(rb[6])  # same timestamp text format
        assert a[-1][9] is not None and a[0][9] is None  # usage on the last row only, SQL NULL elsewhere
        loaded = await store.load_envelopes(fast)
        assert [e.item for e in loaded] == VALID
        assert loaded[-1].usage == usage
    finally:
        await store.close()


async def test_bad_item_in_a_batch_still_writes_nothing(tmp_path: Path) -> None:
    store = await SessionStore.open(f"sqlite+aiosqlite:///{tmp_path / 's.sqlite3'}", create=True)
    try:
        sid = await store.create_session()
        bad = TextItem(text=b"bytes are not text", role="user")  # type: ignore[arg-type]
        with pytest.raises(DocumentError, match="/150"):
            await store.append(sid, [*([TextItem(text="ok", role="user")] * 150), bad])
        with pytest.raises(DocumentError, match="/3/role"):
            await store.append(sid, [*([TextItem(text="ok", role="user")] * 3), TextItem(text="x", role="robot")])  # type: ignore[arg-type]
        assert await store.head(sid) == -1
        assert (await store.load(sid)).items == []
    finally:
        await store.close()


@pytest.mark.parametrize(
    "tampered",
    [
        '{"type":"text","text":"a","role":"user"} {"type":"text","text":"b","role":"user"}',  # two objects in one row
        '{"type":"tool_call","id":"c","name":"f","arguments":{"a":' + "[" * 70 + "1" + "]" * 70 + "}}",  # too deep
        '{"type":"text","text":"a","role":"robot"}',  # invalid value
        "",  # empty
    ],
)
async def test_load_fast_path_still_quarantines_a_tampered_row(tmp_path: Path, tampered: str) -> None:
    from interlingua.store import CorruptRowError

    db = tmp_path / "s.sqlite3"
    store = await SessionStore.open(f"sqlite+aiosqlite:///{db}", create=True)
    try:
        sid = await store.create_session()
        await store.append(sid, [TextItem(text=f"t{i}", role="user") for i in range(300)])
        with sqlite3.connect(db) as c:
            c.execute("UPDATE interlingua_items SET item = ? WHERE session_id = ? AND seq = 137", (tampered, sid))
        with pytest.raises(CorruptRowError) as info:
            await store.load(sid)
        assert [r.seq for r in info.value.rows] == [137]
        with pytest.warns(Warning):
            loaded = await store.load(sid, on_corrupt="omit")
        assert len(loaded.items) == 299
    finally:
        await store.close()


async def test_load_of_a_row_with_a_raw_newline_between_tokens_reads_it(tmp_path: Path) -> None:
    # valid JSON the block proof cannot accept: the row-by-row path reads it
    db = tmp_path / "s.sqlite3"
    store = await SessionStore.open(f"sqlite+aiosqlite:///{db}", create=True)
    try:
        sid = await store.create_session()
        await store.append(sid, [TextItem(text=f"t{i}", role="user") for i in range(300)])
        with sqlite3.connect(db) as c:
            c.execute("UPDATE interlingua_items SET item = ? WHERE session_id = ? AND seq = 5", ('{"type":"text","text":"n",\n"role":"user"}', sid))
        items = (await store.load(sid)).items
        assert len(items) == 300 and items[5] == TextItem(text="n", role="user")
    finally:
        await store.close()
