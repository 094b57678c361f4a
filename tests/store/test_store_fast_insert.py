"""The SQLite append writes its rows through the driver: the stored values must be exactly what
SQLAlchemy's own insert binds (timestamps, JSON text, NULLs), and a bad batch still writes nothing."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from interlingua.codec import decode_item
from interlingua.errors import DocumentError
from interlingua.codec import UnknownItem
from interlingua.items import Envelope, ResponseInfo, StopReason, TextItem, ToolCallItem, ToolResultItem, Usage
from interlingua.store import SessionStore, _driver, _rows

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
        info = ResponseInfo(id="msg_1", model="m-1", provider_data={"anthropic": {"type": "message"}})
        await store.append(fast, envs, usage=usage, stop_reason=StopReason(reason="end_turn", raw="end_turn"), response=info)
        # the same prepared rows through SQLAlchemy's insert (the path the driver insert replaces)
        slow = await store.create_session(session_id="slow")
        rows = _rows.prepare_rows(envs, usage=usage, stop_reason=StopReason(reason="end_turn", raw="end_turn"), response=info, keep_created_at=False)
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
        assert a[-1][11] is not None and a[0][11] is None  # response metadata likewise
        loaded = await store.load_envelopes(fast)
        assert [e.item for e in loaded] == VALID
        assert loaded[-1].usage == usage and loaded[-1].response == info
    finally:
        await store.close()


_COLUMNS = ("seq", "schema_version", "type", "role", "call_id", "item", "raw_json", "usage", "stop_reason", "response")


def _typed_rows(path: Path, sid: str) -> list[tuple[object, ...]]:
    """Every item column but the append time, each with its SQLite storage class (NULL, text, ...)."""
    cols = ", ".join(f"{c}, typeof({c})" for c in _COLUMNS)
    with sqlite3.connect(path) as c:
        return c.execute(f"SELECT {cols} FROM interlingua_items WHERE session_id = ? ORDER BY seq", (sid,)).fetchall()


async def test_missing_values_are_sql_null_and_texts_stay_texts(tmp_path: Path) -> None:
    """The driver insert binds a missing value as 0 and turns it into NULL in SQL: the stored values
    and storage classes are SQLAlchemy's, NULL where a value is missing, and a text that looks like
    the placeholder (the call id "0", a role, an unknown item's raw JSON, usage) stays that text."""
    db = tmp_path / "s.sqlite3"
    store = await SessionStore.open(f"sqlite+aiosqlite:///{db}", create=True)
    try:
        items = [
            TextItem(role="user", text="0"),
            ToolCallItem(id="0", name="f", arguments={}),
            ToolResultItem(call_id="0", content=[TextItem(text="0")]),
            UnknownItem(b'{"type":"x_future","role":"0","call_id":"0"}'),
            *VALID,
        ]
        stop = StopReason(reason="end_turn", raw="0")
        fast = await store.create_session(session_id="fast")
        info = ResponseInfo(id="0")
        await store.append(fast, items, usage=Usage(input_tokens=0), stop_reason=stop, response=info)
        slow = await store.create_session(session_id="slow")
        rows = _rows.prepare_rows(items, usage=Usage(input_tokens=0), stop_reason=stop, response=info)
        now = datetime.now(UTC)
        async with store._write("test") as conn:
            head = await store._advance(conn, slow, len(rows), -1, now)
            await store._insert_rows(conn, slow, head - len(rows) + 1, rows, now)
        a, b = _typed_rows(db, "fast"), _typed_rows(db, "slow")
        assert a == b and len(a) == len(items)
        by_seq = {r[0]: dict(zip([x for c in _COLUMNS for x in (c, f"typeof({c})")], r)) for r in a}
        assert by_seq[0]["role"] == "user" and by_seq[0]["call_id"] is None and by_seq[0]["typeof(call_id)"] == "null"
        assert by_seq[1]["call_id"] == "0" and by_seq[1]["typeof(call_id)"] == "text" and by_seq[1]["role"] is None
        assert by_seq[2]["call_id"] == "0" and by_seq[2]["typeof(call_id)"] == "text"
        assert by_seq[3]["role"] == by_seq[3]["call_id"] == "0" and by_seq[3]["raw_json"] == '{"type":"x_future","role":"0","call_id":"0"}'
        assert all(r["typeof(raw_json)"] == "null" for s, r in by_seq.items() if s != 3)
        last = by_seq[len(items) - 1]
        assert last["typeof(usage)"] == last["typeof(stop_reason)"] == last["typeof(response)"] == "text" and '"raw":"0"' in str(last["stop_reason"])
        assert last["response"] == '{"id":"0"}'
        assert all(r["typeof(usage)"] == r["typeof(stop_reason)"] == r["typeof(response)"] == "null" for s, r in by_seq.items() if s != len(items) - 1)
        assert all(r["typeof(item)"] == "text" for r in by_seq.values())
        assert [e.item for e in await store.load_envelopes(fast)][:3] == items[:3]
    finally:
        await store.close()


def test_driver_parameters_are_exact_types() -> None:
    """Every value :func:`_driver._item_params` binds is an exact ``int`` or ``str`` (no ``None``, no
    ``str`` subclass such as JsonText): the driver binds those without its adapter path."""
    rows = _rows.prepare_rows(
        [*VALID, UnknownItem(b'{"type":"x_future"}')], usage=Usage(input_tokens=1), stop_reason=StopReason(reason="end_turn", raw="x"), response=ResponseInfo(id="r")
    )
    procs = (lambda v: "ts", *(lambda v: str(v),) * 4)
    params = _driver._item_params([(_rows.JsonText("sid"), 0, rows)], "now", procs)  # type: ignore[arg-type]
    assert len(params) == len(rows)
    assert {type(v) for p in params for v in p} == {int, str}
    assert all(p[9] == p[10] == p[11] == 0 for p in params[:-1]) and params[-1][9] != 0 and params[-1][11] != 0  # usage, stop_reason, response: on the last row only
    assert {p[0] for p in params} == {"sid"} and all(type(p[0]) is str for p in params)


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


def test_plain_rows_bind_eight_values_and_the_rest_twelve_in_seq_order() -> None:
    """:func:`_driver._item_batches` splits the rows into runs: a row with no raw JSON, usage, stop
    reason or response binds its first 8 values to the statement that writes those four as NULL; any
    other row all 12. Together the runs are every row of :func:`_driver._item_params`, in seq order."""
    unknown = UnknownItem(b'{"type":"x_future"}')
    rows = _rows.prepare_rows([*VALID, unknown, *VALID], usage=Usage(input_tokens=1), stop_reason=StopReason(reason="end_turn", raw="x"))
    procs = (lambda v: "ts", *(lambda v: str(v),) * 4)
    segments = [("sid", 7, rows)]
    full = _driver._item_params(segments, "now", procs)  # type: ignore[arg-type]
    batches = _driver._item_batches(segments, "now", procs)  # type: ignore[arg-type]
    assert [sql for sql, _p in batches] == [_driver._INSERT_PLAIN_ITEMS_SQL, _driver._INSERT_ITEMS_SQL] * 2
    assert [len(p) for _sql, p in batches] == [len(VALID), 1, len(VALID) - 1, 1]  # the unknown item, then the last row
    flat = [p for _sql, params in batches for p in params]
    assert [p[:8] for p in flat] == [p[:8] for p in full] and [p[1] for p in flat] == list(range(7, 7 + len(rows)))
    for sql, params in batches:
        width = 8 if sql == _driver._INSERT_PLAIN_ITEMS_SQL else 12
        assert sql.count("?") == width and all(len(p) == width for p in params)
    plain_seqs = {p[1] for p in flat if len(p) == 8}
    assert all((p[8:] == (0, 0, 0, 0)) == (p[1] in plain_seqs) for p in full)  # plain: exactly the rows with none of the four
    assert {type(v) for p in flat for v in p} == {int, str}


async def test_sqlite_connections_keep_their_durability_settings_with_a_larger_page_cache(tmp_path: Path) -> None:
    """Every pooled SQLite connection: WAL journal, ``synchronous = NORMAL`` (1), foreign keys on, the
    busy timeout, and a 16 MiB page cache (the only setting the append's speed work changed)."""
    from interlingua.store._engine import BUSY_TIMEOUT_S, CACHE_KIB

    store = await SessionStore.open(f"sqlite+aiosqlite:///{tmp_path / 's.sqlite3'}", create=True)
    try:
        async with store.engine.connect() as conn:
            got = {p: (await conn.exec_driver_sql(f"PRAGMA {p}")).scalar() for p in ("journal_mode", "synchronous", "foreign_keys", "busy_timeout", "cache_size")}
        assert got == {"journal_mode": "wal", "synchronous": 1, "foreign_keys": 1, "busy_timeout": int(BUSY_TIMEOUT_S * 1000), "cache_size": -CACHE_KIB}
    finally:
        await store.close()
