"""The canonical ``video`` item (issue 13 item 5a): Gemini carries it both ways, every other target
refuses it under ``error`` and drops or degrades it with a report that says "video"."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings

from interlingua.capabilities import check, resolve_capabilities
from interlingua.codec import decode_item, encode_item
from interlingua.errors import ConversionError, DocumentError
from interlingua.items import (
    Base64Source,
    ModelCapabilities,
    TextItem,
    ToolCallItem,
    ToolDefinition,
    ToolResultItem,
    Transcript,
    UrlSource,
    VideoItem,
)
from interlingua.mapping.registry import get_mapper
from interlingua.testing.strategies import transcripts

# Real request: pydantic-ai cassette tests/models/cassettes/test_google/
# test_google_model_youtube_video_url_input_with_vendor_metadata.yaml (systemInstruction left out).
YOUTUBE_REQUEST: dict[str, Any] = {
    "contents": [
        {
            "parts": [
                {"text": "Explain me this video in a few sentences"},
                {"fileData": {"fileUri": "https://youtu.be/lCdaVNyHtjU", "mimeType": "video/mp4"}, "videoMetadata": {"fps": 0.2}},
            ],
            "role": "user",
        }
    ]
}
OTHERS = ["openai-chat", "openai-responses", "anthropic", "ollama"]


def _video_transcript() -> Transcript:
    return get_mapper("gemini").decode_request(copy.deepcopy(YOUTUBE_REQUEST)).value


def test_real_youtube_request_is_a_video_item_and_round_trips() -> None:
    conv = get_mapper("gemini").decode_request(copy.deepcopy(YOUTUBE_REQUEST))
    assert not conv.report
    text, video = conv.value.items
    assert isinstance(text, TextItem) and isinstance(video, VideoItem)
    assert video.source == UrlSource(url="https://youtu.be/lCdaVNyHtjU", media_type="video/mp4")
    assert video.role == "user" and video.provider_data == {"gemini": {"videoMetadata": {"fps": 0.2}}}
    back = get_mapper("gemini").encode_request(conv.value)
    assert back.value == YOUTUBE_REQUEST and not back.report


def test_youtube_url_without_mime_type_is_video() -> None:
    body = {"contents": [{"role": "user", "parts": [{"fileData": {"fileUri": "https://www.youtube.com/watch?v=9hE5-98ZeCg"}}]}]}
    (item,) = get_mapper("gemini").decode_request(body).value.items
    assert isinstance(item, VideoItem) and item.source == UrlSource(url="https://www.youtube.com/watch?v=9hE5-98ZeCg")
    assert get_mapper("gemini").encode_request(Transcript(schema_version="1.0", items=[item])).value == body


def test_inline_video_in_a_function_response_is_kept() -> None:
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "go"}]},
            {"role": "model", "parts": [{"functionCall": {"id": "c1", "name": "clip", "args": {}}}]},
            {"role": "user", "parts": [{"functionResponse": {"id": "c1", "name": "clip", "response": {"output": "here"},
                                                             "parts": [{"inlineData": {"mimeType": "video/mp4", "data": "AAAAHGZ0"}}]}}]},
        ]
    }
    conv = get_mapper("gemini").decode_request(copy.deepcopy(body))
    result = conv.value.items[-1]
    assert isinstance(result, ToolResultItem)
    assert result.content[-1] == VideoItem(source=Base64Source(media_type="video/mp4", data="AAAAHGZ0"))
    assert get_mapper("gemini").encode_request(conv.value).value == body


@pytest.mark.parametrize("target", OTHERS)
def test_real_video_to_other_targets_follows_policy_and_says_video(target: str) -> None:
    t = _video_transcript()
    mapper = get_mapper(target)
    with pytest.raises(ConversionError) as err:
        mapper.encode_request(t, model="m")
    assert "video" in str(err.value)
    for policy in ("drop", "degrade"):
        conv = mapper.encode_request(t, model="m", policy=policy)
        entries = [e for e in conv.report if e.item_type == "video"]
        assert any(e.action == ("dropped" if policy == "drop" else "degraded") and "video" in e.reason for e in entries), conv.report.lines()
        assert "youtu.be" not in str(conv.value)
        assert "Explain me this video" in str(conv.value)
        if policy == "degrade":
            assert "[video omitted" in str(conv.value) or "video" in str(conv.value).lower()


@pytest.mark.parametrize("target", OTHERS)
def test_video_inside_a_tool_result_to_other_targets_is_reported(target: str) -> None:
    t = Transcript(
        schema_version="1.0",
        items=[
            TextItem(role="user", text="go"),
            ToolCallItem(id="c1", name="clip", arguments={}),
            ToolResultItem(call_id="c1", name="clip", content=[VideoItem(source=Base64Source(media_type="video/mp4", data="AAAA"))]),
        ],
        tools=[ToolDefinition(name="clip", parameters={"type": "object"})],
    )
    with pytest.raises(ConversionError):
        get_mapper(target).encode_request(t, model="m")
    conv = get_mapper(target).encode_request(t, model="m", policy="drop")
    assert any("video" in e.reason for e in conv.report if e.action == "dropped"), conv.report.lines()
    assert "AAAA" not in str(conv.value)


def test_preflight_checks_the_video_modality() -> None:
    t = _video_transcript()
    no_video = ModelCapabilities(input_modalities=["text", "image"])
    (violation,) = check(t, no_video, provider="openai-chat")
    assert violation.index == 1 and "video input is not supported" in violation.reason
    assert check(t, ModelCapabilities(input_modalities=["text", "video"]), provider="gemini") == []
    nested = Transcript(schema_version="1.0", items=[ToolCallItem(id="c", name="f", arguments={}),
                                                     ToolResultItem(call_id="c", content=[VideoItem(source=Base64Source(media_type="video/mp4", data="AA"))])])
    assert any("video input inside tool_result" in v.reason for v in check(nested, ModelCapabilities(tools=True), provider="gemini"))


def test_model_table_gives_gemini_models_video_and_not_others() -> None:
    assert "video" in resolve_capabilities("gemini", "gemini-2.5-flash").input_modalities
    assert "video" not in resolve_capabilities("anthropic", "claude-sonnet-4-5").input_modalities
    assert "video" not in resolve_capabilities("openai-chat", "gpt-4o").input_modalities


def test_video_item_codec_and_schema() -> None:
    item = VideoItem(role="user", source=UrlSource(url="https://youtu.be/x", media_type="video/mp4"))
    data = encode_item(item)
    assert data == b'{"type":"video","source":{"type":"url","url":"https://youtu.be/x","media_type":"video/mp4"},"role":"user"}'
    assert decode_item(data, mode="strict") == item
    with pytest.raises(DocumentError):
        decode_item(b'{"type":"video","source":{"type":"url","url":"https://youtu.be/x"},"format":"mp4"}', mode="strict")
    with pytest.raises(DocumentError):
        decode_item(b'{"type":"video"}', mode="strict")


@settings(max_examples=40, deadline=None)
@given(transcripts(["text", "video", "tool_call", "tool_result"], capabilities=ModelCapabilities(input_modalities=["text", "video"], tools=True, parallel_tool_calls=True)))
def test_gemini_round_trip_keeps_every_video(t: Transcript) -> None:
    mapper = get_mapper("gemini")
    body = mapper.encode_request(t, policy="drop").value
    back = mapper.decode_request(body).value
    def videos(items: Any) -> list[Any]:
        out = []
        for i in items:
            if isinstance(i, VideoItem):
                out.append(i.source)
            elif isinstance(i, ToolResultItem):
                out += [c.source for c in i.content if isinstance(c, VideoItem)]
        return out
    assert videos(back.items) == videos(t.items)
    assert mapper.encode_request(back, policy="drop").value == body
