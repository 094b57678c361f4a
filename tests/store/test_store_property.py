"""Property: whatever valid items go in come back with the same JSON bytes; invalid ones are refused whole."""

from __future__ import annotations

import asyncio

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interlingua.codec import encode_item
from interlingua.errors import DocumentError
from interlingua.items import TextItem, ToolCallItem, ToolResultItem
from interlingua.store import SessionStore

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)
texts = st.text(max_size=40)
items = st.one_of(
    st.builds(TextItem, text=texts, role=st.sampled_from(["system", "developer", "user", "assistant"])),
    st.builds(ToolCallItem, id=st.just("call_1"), name=st.just("f"), arguments=st.dictionaries(st.text(max_size=8), json_values, max_size=5)),
    st.builds(ToolResultItem, call_id=st.just("call_1"), content=st.lists(st.builds(TextItem, text=texts), max_size=2)),
)


def _expect_refused(batch: list, backend: str) -> bool:
    for it in batch:
        try:
            data = encode_item(it)
        except Exception:
            return True  # e.g. a lone surrogate
        if backend == "postgresql" and b"\\u0000" in data.replace(b"\\\\", b""):
            return True
    return False


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(batch=st.lists(items, min_size=1, max_size=6))
def test_items_round_trip_exactly(db_url: str, backend: str, batch: list) -> None:
    async def body() -> None:
        store = await SessionStore.open(db_url)
        try:
            sid = await store.create_session()
            if _expect_refused(batch, backend):
                try:
                    await store.append(sid, batch)
                except DocumentError:
                    assert await store.head(sid) == -1
                    return
                raise AssertionError("an unencodable batch was accepted")
            assert await store.append(sid, batch, expected_seq=-1) == len(batch) - 1
            back = (await store.load(sid)).items
            assert [encode_item(i) for i in back] == [encode_item(i) for i in batch]
        finally:
            await store.close()

    asyncio.run(body())
