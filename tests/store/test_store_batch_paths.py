"""The store's batch paths: one typed pass validates an append's items, and a SQLite load reads the rows
from the driver. Each must give exactly what the item-by-item path gives: the same rows, the same
first error (by index) with its pointer, the same envelopes, and the same quarantine on a corrupt row."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interlingua.codec import SCHEMA_VERSION, decode_item
from interlingua.errors import DocumentError
from interlingua.items import Envelope, ResponseInfo, StopReason, TextItem, ToolCallItem, ToolResultItem, Usage
from interlingua.store import CorruptRowError, SessionStore, _rows

CANON = Path(__file__).parent.parent / "fixtures" / "canonical"
VALID = [decode_item(line) for line in (CANON / "valid_items.jsonl").read_bytes().splitlines() if line.strip()]


def _one_by_one(items: list[Any]) -> list[_rows.PreparedRow]:
    """prepare_rows with the batch pass switched off: every item decoded on its own."""
    return [_rows.prepare_rows([it])[0] for it in items]


def test_batch_rows_equal_item_by_item_rows() -> None:
    assert len(VALID) > 5
    assert _rows.prepare_rows(VALID) == _one_by_one(VALID)


def _error(items: list[Any]) -> tuple[str, str]:
    with pytest.raises(DocumentError) as info:
        _rows.prepare_rows(items)
    return info.value.problems[0].pointer, info.value.problems[0].message


@pytest.mark.parametrize("bad_at", [0, 3, len(VALID)])
def test_the_first_badly_typed_item_is_reported_with_its_pointer(bad_at: int) -> None:
    items = [*VALID[:bad_at], TextItem(text=7), *VALID[bad_at:]]  # type: ignore[arg-type]
    pointer, message = _error(items)
    assert pointer == f"/{bad_at}/text"
    assert "Expected `str`" in message


def test_an_earlier_type_error_wins_over_a_later_json_safety_error() -> None:
    """The typed check is deferred to the end of the batch; the order of errors must not change."""
    items = [*VALID[:2], TextItem(text=7), *VALID[2:4], TextItem(text="x", metadata={"n": float("nan")}), *VALID[4:]]  # type: ignore[arg-type]
    assert _error(items)[0] == "/2/text"
    # and the other way round: the JSON-safety error is first
    items = [*VALID[:2], TextItem(text="x", metadata={"n": float("nan")}), TextItem(text=7), *VALID[2:]]  # type: ignore[arg-type]
    assert _error(items)[0] == "/2/metadata/n"


def test_an_earlier_type_error_wins_over_a_later_usage_error() -> None:
    env = Envelope(schema_version="1.0", session_id="s", seq=0, item=VALID[0], usage="not usage")  # type: ignore[arg-type]
    assert _error([TextItem(text=7), env])[0] == "/0/text"  # type: ignore[arg-type]
    assert _error([env, TextItem(text=7)])[0] == "/0/usage"  # type: ignore[arg-type]


async def test_sqlite_load_from_the_driver_equals_the_checked_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "s.sqlite3"
    store = await SessionStore.open(f"sqlite+aiosqlite:///{db}", create=True)
    try:
        sid = await store.create_session(session_id="s")
        for k in range(0, len(VALID), 4):
            await store.append(sid, VALID[k : k + 4])
        fast = await store.load_envelopes(sid)
        fast_since = await store.load_envelopes(sid, since_seq=3)
        monkeypatch.setattr(_rows, "decode_rows_fast", lambda *a, **k: None)
        slow = await store.load_envelopes(sid)
        assert fast == slow
        assert [e.item for e in fast] == VALID
        assert fast_since == slow[3:]
        assert len({e.created_at for e in fast}) >= 2  # several appends, several timestamps, each parsed right
    finally:
        await store.close()


async def test_sqlite_load_of_a_corrupt_row_still_quarantines_it(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite3"
    store = await SessionStore.open(f"sqlite+aiosqlite:///{db}", create=True)
    try:
        sid = await store.create_session(session_id="s")
        await store.append(sid, VALID[:5])
        with sqlite3.connect(db) as c:
            c.execute("UPDATE interlingua_items SET item = ? WHERE session_id = ? AND seq = 2", ('{"type": "text", "text": 5}', sid))
        with pytest.raises(CorruptRowError):
            await store.load(sid)
        assert [q.seq for q in await store.quarantined(sid)] == [2]
        with pytest.warns(Warning):
            envs = await store.load_envelopes(sid, on_corrupt="omit")
        assert [e.seq for e in envs] == [0, 1, 3, 4]
    finally:
        await store.close()


async def test_sqlite_append_advances_the_head_as_sqlalchemy_would(tmp_path: Path) -> None:
    """The driver-level UPDATE of the session row: same head, same timestamp text format, same conflicts."""
    from interlingua.errors import ConflictError, SessionNotFoundError

    db = tmp_path / "s.sqlite3"
    store = await SessionStore.open(f"sqlite+aiosqlite:///{db}", create=True)
    try:
        sid = await store.create_session(session_id="s")
        assert await store.append(sid, VALID[:3], expected_seq=-1) == 2
        assert await store.append(sid, VALID[3:4]) == 3
        with pytest.raises(ConflictError) as info:
            await store.append(sid, VALID[:1], expected_seq=1)
        assert info.value.actual == 3
        with pytest.raises(SessionNotFoundError):
            await store.append("nope", VALID[:1])
        with sqlite3.connect(db) as c:
            created, updated, head = c.execute("SELECT created_at, updated_at, head_seq FROM interlingua_sessions WHERE id = 's'").fetchone()
        assert head == 3
        assert len(created) == len(updated) and updated >= created  # the DateTime column's own text format
        info_ = await store.get_session(sid)
        assert info_.updated_at >= info_.created_at
    finally:
        await store.close()


def test_a_batch_of_several_typed_groups_equals_item_by_item_and_locates_a_bad_item() -> None:
    """A batch over ``_FAST_GROUP_BYTES`` is checked by one typed pass per ~1 MB group: the rows are
    those of the item-by-item path, and a badly typed item in a later group is still found, by index."""
    big = [TextItem(role="user", text=f"{i} " + "x" * 3000) for i in range(800)]  # ~2.4 MB of JSON
    items = [*VALID, *big, *VALID]
    rows = _rows.prepare_rows(items)
    assert sum(len(r.item) + 1 for r in rows) > 2 * _rows._FAST_GROUP_BYTES
    assert rows == _one_by_one(items)
    assert all(type(r.item) is str for r in rows)
    bad_at = len(VALID) + 700
    with_bad = [*items[:bad_at], TextItem(text=7), *items[bad_at:]]  # type: ignore[arg-type]
    assert _error(with_bad)[0] == f"/{bad_at}/text"


_USAGE = Usage(input_tokens=5, output_tokens=2)
_STOP = StopReason(reason="tool_use", raw="tool_calls")
_RESPONSE = ResponseInfo(id="resp_1", model="m-1")


def _checked_path(monkeypatch: pytest.MonkeyPatch, items: list[Any], **kw: Any) -> list[_rows.PreparedRow]:
    """prepare_rows with the whole-batch pass off: every item validated and encoded on its own."""
    with monkeypatch.context() as m:
        m.setattr(_rows, "_prepare_fast", lambda *a, **k: None)
        return _rows.prepare_rows(items, **kw)


@pytest.mark.parametrize(
    "kw",
    [{}, {"usage": _USAGE}, {"stop_reason": _STOP, "response": _RESPONSE}, {"usage": _USAGE, "stop_reason": _STOP, "response": _RESPONSE, "keep_text": True}],
    ids=["plain", "usage", "stop+response", "all+keep_text"],
)
def test_batch_rows_of_plain_items_equal_the_checked_paths_rows(monkeypatch: pytest.MonkeyPatch, kw: dict[str, Any]) -> None:
    """The plain-items batch (columns picked per class, rows built without a per-item loop) gives
    field for field, and type for type, the rows the item-by-item path gives; the response's usage,
    stop reason and metadata on the last row only."""
    items = [*VALID, *VALID]
    fast = _rows.prepare_rows(items, **kw)
    slow = _checked_path(monkeypatch, items, **kw)
    assert fast == slow
    assert [[type(getattr(r, f)) for f in r.__struct_fields__] for r in fast] == [[type(getattr(r, f)) for f in r.__struct_fields__] for r in slow]
    assert {r.type for r in fast} >= {"text", "tool_call", "tool_result"}
    assert any(r.role is None for r in fast) and any(r.role for r in fast) and any(r.call_id for r in fast)
    assert all(r.usage is None and r.stop_reason is None and r.response is None for r in fast[:-1])
    # the same items as envelopes take the envelope loop; the rows are the same
    envs = [Envelope(schema_version=SCHEMA_VERSION, session_id="s", seq=i, item=it) for i, it in enumerate(items)]
    assert _rows.prepare_rows(envs, **kw) == fast


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3),
    max_leaves=8,
)
_texts = st.text(max_size=20)
_items = st.one_of(
    st.builds(TextItem, text=_texts, role=st.sampled_from(["system", "developer", "user", "assistant"])),
    st.builds(TextItem, text=_texts),  # no role (UNSET): stored as NULL
    st.builds(ToolCallItem, id=st.text(min_size=1, max_size=8), name=st.just("f"), arguments=st.dictionaries(st.text(max_size=6), json_values, max_size=3)),
    st.builds(ToolResultItem, call_id=st.text(min_size=1, max_size=8), content=st.lists(st.builds(TextItem, text=_texts), max_size=2)),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batch=st.lists(_items, min_size=1, max_size=8), with_usage=st.booleans())
def test_property_batch_rows_equal_the_checked_paths_rows(monkeypatch: pytest.MonkeyPatch, batch: list[Any], with_usage: bool) -> None:
    kw: dict[str, Any] = {"usage": _USAGE} if with_usage else {}
    try:
        slow = _checked_path(monkeypatch, batch, **kw)
    except DocumentError as exc:  # e.g. a lone surrogate: refused by both, at the same place
        with pytest.raises(DocumentError) as info:
            _rows.prepare_rows(batch, **kw)
        assert info.value.problems[0].pointer == exc.problems[0].pointer
        return
    assert _rows.prepare_rows(batch, **kw) == slow
