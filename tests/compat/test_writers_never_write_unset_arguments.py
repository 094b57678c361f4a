"""Issue 32: a tool_call with neither ``arguments`` nor ``arguments_raw`` (the schema allows it, validate
does not) written by every framework writer: JSON-serialisable output (no ``UnsetType``), the change
reported at the item, never a TypeError. migrate refuses such input earlier; a library caller of
:func:`interlingua.compat.write` still gets a sound result."""

from __future__ import annotations

import json

import pytest

from interlingua.compat import WRITERS, write
from interlingua.items import TextItem, ToolCallItem, ToolResultItem, Transcript

TRANSCRIPT = Transcript(
    schema_version="1.0",
    items=[
        TextItem(text="weather in Paris?", role="user"),
        ToolCallItem(id="c1", name="get_weather"),
        ToolResultItem(call_id="c1", content=[TextItem(text="sunny")]),
        TextItem(text="It is sunny.", role="assistant"),
    ],
)


@pytest.mark.parametrize("fmt", WRITERS)
def test_a_call_without_arguments_is_written_and_reported(fmt: str) -> None:
    conv = write(TRANSCRIPT, fmt, policy="degrade")
    json.dumps(conv.value)  # raises TypeError on an UnsetType
    notes = [e for e in conv.report.entries if e.index == 1 and "arguments" in e.reason]
    assert notes, [str(e) for e in conv.report.entries]


@pytest.mark.parametrize("fmt", WRITERS)
def test_raw_arguments_are_written_as_text(fmt: str) -> None:
    call = ToolCallItem(id="c1", name="get_weather", arguments_raw='{"city": "Par', arguments_error="truncated")
    transcript = Transcript(schema_version="1.0", items=[TRANSCRIPT.items[0], call, *TRANSCRIPT.items[2:]])
    conv = write(transcript, fmt, policy="degrade")
    assert "city" in json.dumps(conv.value) and "Par" in json.dumps(conv.value)  # the raw text kept (possibly JSON-quoted again)
