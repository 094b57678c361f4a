"""Public strategies restricted by capabilities stay valid and within what the model accepts."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interlingua.capabilities import check
from interlingua.codec import to_builtins
from interlingua.items import ModelCapabilities, ToolCallItem, ToolResultItem
from interlingua.testing import assert_valid_transcript
from interlingua.testing.strategies import ITEM_TYPES, items, kinds_for, transcripts

CAPS = st.builds(
    ModelCapabilities,
    input_modalities=st.lists(st.sampled_from(["text", "image", "audio", "document"]), min_size=1, unique=True),
    tools=st.booleans(),
    parallel_tool_calls=st.booleans(),
    reasoning=st.booleans(),
)


@settings(max_examples=150, deadline=None)
@given(st.data(), CAPS)
def test_restricted_transcripts_are_valid_and_accepted(data: st.DataObject, caps: ModelCapabilities) -> None:
    t = data.draw(transcripts(capabilities=caps, max_items=10))
    assert_valid_transcript(t)
    assert check(t, caps, provider="test-target") == []
    kinds = {to_builtins(i)["type"] for i in t.items}
    assert kinds <= set(kinds_for(caps))


def test_kinds_for() -> None:
    caps = ModelCapabilities(input_modalities=["text"], tools=False, reasoning=False)
    assert set(kinds_for(caps)) == set(ITEM_TYPES) - {"image", "audio", "video", "document", "artifact_ref", "tool_call", "tool_result", "reasoning"}
    assert "image" in kinds_for(ModelCapabilities(input_modalities=["text", "image"]))
    assert "video" in kinds_for(ModelCapabilities(input_modalities=["text", "video"])) and "video" not in kinds_for(ModelCapabilities(input_modalities=["text", "image"]))


@settings(max_examples=40, deadline=None)
@given(transcripts(["text", "tool_call", "tool_result"], capabilities=ModelCapabilities(tools=True, parallel_tool_calls=False), max_items=10))
def test_without_parallel_calls_each_call_is_answered_first(t) -> None:
    open_calls = 0
    for item in t.items:
        if isinstance(item, ToolCallItem):
            assert open_calls == 0
            open_calls += 1
        elif isinstance(item, ToolResultItem):
            open_calls -= 1


def test_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="unsupported kinds"):
        items(["text", "hologram"])
