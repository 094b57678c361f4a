"""The Mistral mapper keeps the interlingua mapper contract (the conformance suite).

This is all a plugin author writes: a profile of the supported subset and a subclass.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import strategies as st

from interlingua.codec import SCHEMA_VERSION
from interlingua.items import TextItem, ToolCallItem, ToolDefinition, ToolResultItem, Transcript
from interlingua.testing.conformance import ConformanceProfile, MapperConformance
from interlingua_mistral import mapper

DATA = Path(__file__).parent / "data"
text = st.text(min_size=1, max_size=20)
call_ids = st.from_regex(r"[a-zA-Z0-9]{9}", fullmatch=True)
arguments = st.dictionaries(st.text(max_size=6), st.none() | st.booleans() | st.integers(-99, 99) | st.text(max_size=6), max_size=3)


@st.composite
def supported_transcripts(draw: st.DrawFn) -> Transcript:
    """System text, then user/assistant turns; assistant text and calls; one text per tool result."""
    items: list = []
    n = 0
    if draw(st.booleans()):
        items.append(TextItem(role="system", text=draw(text), message="m0"))
        n = 1
    for _ in range(draw(st.integers(1, 3))):
        items += [TextItem(role="user", text=t, message=f"m{n}") for t in draw(st.lists(text, min_size=1, max_size=2))]
        n += 1
        calls = [ToolCallItem(id=i, name="get_weather", arguments=a, message=f"m{n}") for i, a in draw(st.lists(st.tuples(call_ids, arguments), max_size=2, unique_by=lambda x: x[0]))]
        reply = [TextItem(role="assistant", text=draw(text), message=f"m{n}")] if draw(st.booleans()) or not calls else []
        items += reply + calls
        n += 1
        for call in calls:
            items.append(ToolResultItem(call_id=call.id, content=[TextItem(text=draw(text))], message=f"m{n}"))
            n += 1
    tools = [ToolDefinition(name="get_weather", description="weather", parameters={"type": "object"})]
    return Transcript(schema_version=SCHEMA_VERSION, items=items, tools=tools)


class TestMistralConformance(MapperConformance):
    mapper = mapper
    profile = ConformanceProfile(
        transcripts=supported_transcripts(),
        streams=sorted(DATA.glob("*.sse")),
        malformed_samples=[{"messages": [{"role": "assistant", "content": "", "tool_calls": [{"id": "abcDEF123", "type": "function", "function": {"name": "f", "arguments": '{"a": '}}]}]}],
    )
