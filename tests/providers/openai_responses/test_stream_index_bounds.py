"""A hostile part index in a Responses stream is a malformed event, not a huge allocation."""

from __future__ import annotations

import pytest

from interlingua.mapping import get_mapper
from interlingua.streaming import StreamError, collect

_HEAD = (
    b'event: response.created\ndata: {"type":"response.created","response":{"id":"r","object":"response","created_at":1,"status":"in_progress","model":"gpt-5","output":[]}}\n\n'
    b'event: response.output_item.added\ndata: {"type":"response.output_item.added","output_index":0,"item":{"type":"message","id":"m","role":"assistant","content":[],"status":"in_progress"}}\n\n'
)


@pytest.mark.parametrize(
    ("event", "field"),
    [
        ('{"type":"response.output_text.delta","output_index":0,"item_id":"m","content_index":123456789012,"delta":"x"}', "content_index"),
        ('{"type":"response.output_text.delta","output_index":0,"item_id":"m","content_index":-3,"delta":"x"}', "content_index"),
        ('{"type":"response.reasoning_summary_text.delta","output_index":0,"item_id":"m","summary_index":99999999,"delta":"x"}', "summary_index"),
    ],
)
def test_an_index_far_past_the_parts_ends_the_stream_with_a_pointer(event: str, field: str) -> None:
    kind = event.split('"type":"')[1].split('"')[0]
    last = collect(get_mapper("openai-responses"), _HEAD + f"event: {kind}\ndata: {event}\n\n".encode())[-1]
    assert isinstance(last, StreamError) and last.error.code == "provider_error"
    assert last.pointer == f"/2/{field}"


def test_the_next_part_index_is_still_taken() -> None:
    event = b'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","output_index":0,"item_id":"m","content_index":0,"delta":"hi"}\n\n'
    last = collect(get_mapper("openai-responses"), _HEAD + event)[-1]
    assert isinstance(last, StreamError) and last.error.code == "truncated"  # no completion marker, but no refusal of the index
