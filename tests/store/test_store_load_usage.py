"""``SessionStore.load()`` gives each response's usage and stop reason (``Transcript.responses``), as a
session file does, so ``render_html``, ``to_otel`` and token counting from Python see them."""

from __future__ import annotations

from interlingua.history import count_tokens
from interlingua.items import StopReason, TextItem, ToolCallItem, ToolDefinition, ToolResultItem, Usage
from interlingua.store import SessionStore
from interlingua.view import render_html

TOOLS = [ToolDefinition(name="weather", parameters={"type": "object"})]


async def test_load_gives_usage_per_response(store: SessionStore) -> None:
    sid = await store.create_session(tools=TOOLS)
    await store.append(sid, [TextItem(role="user", text="Weather in Paris?")])
    await store.append(sid, [ToolCallItem(id="c1", name="weather", arguments={"city": "Paris"})], usage=Usage(input_tokens=321, output_tokens=12), stop_reason=StopReason(reason="tool_use", raw="tool_use"))
    await store.append(sid, [ToolResultItem(call_id="c1", content=[TextItem(text="12 C")])])
    await store.append(sid, [TextItem(role="assistant", text="12 C.")], usage=Usage(input_tokens=350, output_tokens=5), stop_reason=StopReason(reason="end_turn", raw="end_turn"))
    t = await store.load(sid)
    assert [(r.item, r.usage.input_tokens, r.stop_reason.reason) for r in t.responses] == [(1, 321, "tool_use"), (3, 350, "end_turn")]  # type: ignore[union-attr]
    assert t.usage.input_tokens == 350 and t.stop_reason.reason == "end_turn"  # type: ignore[union-attr]
    # each response's usage is shown after it, not only the last
    page = render_html(t)
    assert "input 321" in page and "input 350" in page
    # the session itself is counted exactly: its last request's usage covers all but the final answer
    counted = count_tokens(t)
    assert counted.method == "seeded" and counted.seeded_items == 3
    assert counted.input_tokens == 350 + counted.estimated_tokens


async def test_a_session_without_usage_has_no_records(store: SessionStore) -> None:
    sid = await store.create_session()
    await store.append(sid, [TextItem(role="user", text="hi")])
    t = await store.load(sid)
    assert not t.responses
