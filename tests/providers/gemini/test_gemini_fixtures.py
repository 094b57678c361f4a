"""Gemini mapper on every real fixture in tests/fixtures/real/gemini/ (golden round trips, snapshots)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from interlingua.codec import to_builtins
from interlingua.items import ReasoningItem, ToolCallItem
from interlingua.mapping.spelling import without_spelling
from interlingua.providers.gemini import mapper
from interlingua.providers.gemini._common import camel
from interlingua.streaming import StreamDone, StreamError, collect, is_terminal

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "real" / "gemini"
REQUESTS = sorted(REAL.glob("*.request.json"))
RESPONSES = sorted(REAL.glob("*.response.json"))
STREAMS = sorted(REAL.glob("*.response.sse"))


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def normalize_request(body: dict[str, Any]) -> dict[str, Any]:
    """The representation choices the request round trip ignores.

    * ``systemInstruction.role`` comes back as it came (kept in the settings' Gemini provider data).
    * Declaration and generation-config keys are written camelCase (``parameters_json_schema`` ->
      ``parametersJsonSchema``, ``include_thoughts`` -> ``includeThoughts``).
    """
    out = copy.deepcopy(body)
    if "generationConfig" in out:
        out["generationConfig"] = {camel(k): ({camel(a): b for a, b in v.items()} if isinstance(v, dict) else v) for k, v in out["generationConfig"].items()}
    for tool in out.get("tools", []):
        tool["functionDeclarations"] = [
            {("parametersJsonSchema" if k == "parameters_json_schema" else k): v for k, v in d.items()} for d in tool["functionDeclarations"]
        ]
    return out


def test_fixture_files_present() -> None:
    assert len(REQUESTS) == 4 and len(RESPONSES) == 2 and len(STREAMS) == 2


@pytest.mark.parametrize("path", REQUESTS, ids=lambda p: p.name)
def test_request_round_trip(path: Path, snapshot: Any) -> None:
    body = load(path)
    before = copy.deepcopy(body)
    conv = mapper.decode_request(body)
    assert to_builtins(conv.value) == snapshot
    assert not conv.report, list(conv.report)  # every setting is held by Transcript.settings
    settings = conv.value.settings
    assert settings.provider_data["gemini"]["generationConfig"]["responseModalities"] == ["TEXT"]
    if "thinkingConfig" in body["generationConfig"]:
        assert settings.reasoning.include_thoughts is True
    back = mapper.encode_request(conv.value)
    assert back.value == body  # exactly as the client spelled it (snake_case names included: ADR 0027)
    assert normalize_request(mapper.encode_request(without_spelling(conv.value)).value) == normalize_request(body)
    assert not back.report
    assert body == before
    assert mapper.kind_of(body) == "request"


@pytest.mark.parametrize("path", RESPONSES, ids=lambda p: p.name)
def test_response_round_trip(path: Path, snapshot: Any) -> None:
    body = load(path)
    before = copy.deepcopy(body)
    conv = mapper.decode_response(body)
    assert to_builtins(conv.value.to_transcript()) == snapshot
    assert not conv.report
    back = mapper.encode_response(conv.value)
    assert back.value == body
    assert body == before
    assert mapper.kind_of(body) == "response"


def test_thinking_response_items() -> None:
    resp = mapper.decode_response(load(REAL / "pai_google_thinking_part.0.response.json")).value
    kinds = [type(i).__name__ for i in resp.items]
    # thought part, then the signature carried by the text part, then that text part
    assert kinds == ["ReasoningItem", "ReasoningItem", "TextItem"]
    assert resp.items[0].text.startswith("**A Safe Street-Crossing Guide")
    assert resp.items[1].opaque.model == "gemini-3-pro-preview"
    assert {i.message for i in resp.items} == {"resp:ON4gaYT4Gc20qtsP2bSiiQ0"}
    assert resp.stop_reason.reason == "end_turn" and resp.stop_reason.raw == "STOP"
    u = resp.usage
    assert (u.input_tokens, u.output_tokens, u.reasoning_tokens, u.total_tokens) == (29, 736 + 1001, 1001, 1766)


def _equivalent_stream0() -> dict[str, Any]:
    """The non-streamed response equivalent to stream 0 (parts joined, last usage, finishReason)."""
    first = json.loads((REAL / "pai_google_streaming_tool_call_thought_signature.0.response.sse").read_bytes().decode().split("\r\n\r\n")[0][len("data: ") :])
    part = first["candidates"][0]["content"]["parts"][0]
    return {
        "candidates": [{"content": {"parts": [part], "role": "model"}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {
            "promptTokenCount": 29,
            "candidatesTokenCount": 10,
            "totalTokenCount": 241,
            "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 29}],
            "thoughtsTokenCount": 202,
        },
        "modelVersion": "gemini-3-pro-preview",
        "responseId": "QUVVadTSNJ6_qtsPvN7J8Q0",
    }


def _equivalent_stream1() -> dict[str, Any]:
    return {
        "candidates": [{"content": {"parts": [{"text": "The capital of Mexico is Mexico City."}], "role": "model"}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {
            "promptTokenCount": 257,
            "candidatesTokenCount": 8,
            "totalTokenCount": 265,
            "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 257}],
        },
        "modelVersion": "gemini-3-pro-preview",
        "responseId": "REVVabaiCdq4qtsPnZu96Qo",
    }


EQUIVALENT = {
    "pai_google_streaming_tool_call_thought_signature.0.response.sse": _equivalent_stream0,
    "pai_google_streaming_tool_call_thought_signature.1.response.sse": _equivalent_stream1,
}


@pytest.mark.parametrize("path", STREAMS, ids=lambda p: p.name)
def test_stream_equals_equivalent_response(path: Path, snapshot: Any) -> None:
    events = collect(mapper, path.read_bytes())
    assert sum(is_terminal(e) for e in events) == 1
    done = events[-1]
    assert isinstance(done, StreamDone)
    expected = mapper.decode_response(EQUIVALENT[path.name]()).value
    assert done.response.items == expected.items
    assert done.response.usage == expected.usage
    assert done.response.stop_reason == expected.stop_reason
    assert to_builtins(done.response.to_transcript()) == snapshot


@pytest.mark.parametrize("path", STREAMS, ids=lambda p: p.name)
def test_stream_cut_at_every_event_boundary_is_truncated(path: Path) -> None:
    raw = path.read_bytes()
    events = raw.split(b"\r\n\r\n")
    assert len(events) >= 2
    marker = next(i for i, e in enumerate(events) if b"finishReason" in e)
    for cut in range(marker + 1):
        prefix = b"\r\n\r\n".join(events[:cut]) + (b"\r\n\r\n" if cut else b"")
        out = collect(mapper, prefix)
        assert sum(is_terminal(e) for e in out) == 1
        assert isinstance(out[-1], StreamError), cut
        assert out[-1].error.code == "truncated"
    # cut inside the marker event (no blank line yet): the event is not delivered -> truncated
    partial = b"\r\n\r\n".join(events[:marker]) + b"\r\n\r\n" + events[marker][: len(events[marker]) // 2]
    assert collect(mapper, partial)[-1].error.code == "truncated"


def test_stream_deltas_join_to_text() -> None:
    events = collect(mapper, (REAL / "pai_google_streaming_tool_call_thought_signature.1.response.sse").read_bytes())
    text = "".join(e.text for e in events if type(e).__name__ == "TextDelta")
    assert text == "The capital of Mexico is Mexico City."


def test_signature_byte_identical_from_stream_response() -> None:
    """The response SSE carries standard base64 (+/); it is stored and sent back exactly."""
    sig = _equivalent_stream0()["candidates"][0]["content"]["parts"][0]["thoughtSignature"]
    assert "+" in sig and "/" in sig
    done = collect(mapper, (REAL / "pai_google_streaming_tool_call_thought_signature.0.response.sse").read_bytes())[-1]
    reasoning, call = done.response.items
    assert isinstance(reasoning, ReasoningItem) and isinstance(call, ToolCallItem)
    assert reasoning.opaque.value == sig
    assert (reasoning.opaque.namespace, reasoning.opaque.issuer, reasoning.opaque.model) == ("gemini.thought_signature", "gemini", "gemini-3-pro-preview")
    assert reasoning.message == call.message
    body = mapper.encode_response(done.response).value
    part = body["candidates"][0]["content"]["parts"][0]
    assert part["thoughtSignature"] == sig
    assert part["functionCall"] == {"name": "get_country", "args": {}}  # no id: the wire call had none


def test_signature_byte_identical_from_recorded_replay() -> None:
    """The SDK replayed the same bytes URL-safe (-_); that string is kept exactly too."""
    body = load(REAL / "pai_google_streaming_tool_call_thought_signature.1.request.json")
    sig = body["contents"][1]["parts"][0]["thoughtSignature"]
    assert "-" in sig and "_" in sig
    transcript = mapper.decode_request(body).value
    opaque = [i for i in transcript.items if isinstance(i, ReasoningItem)]
    assert [o.opaque.value for o in opaque] == [sig]
    out = mapper.encode_request(transcript, model="gemini-3-pro-preview").value
    assert out["contents"][1]["parts"][0]["thoughtSignature"] == sig


def test_stream_response_replayed_as_next_request() -> None:
    """Response 0 (id-less call + signature) + a tool result -> request like recording 1, without ids."""
    req0 = mapper.decode_request(load(REAL / "pai_google_streaming_tool_call_thought_signature.0.request.json")).value
    done = collect(mapper, (REAL / "pai_google_streaming_tool_call_thought_signature.0.response.sse").read_bytes())[-1]
    call = done.response.items[1]
    from interlingua.items import StructuredItem, ToolResultItem

    result = ToolResultItem(call_id=call.id, content=[StructuredItem(data={"return_value": "Mexico"})])
    transcript = type(req0)(schema_version="1.0", items=[*req0.items, *done.response.items, result], tools=req0.tools, settings=req0.settings)
    out = mapper.encode_request(transcript, model="gemini-3-pro-preview")
    recorded = normalize_request(load(REAL / "pai_google_streaming_tool_call_thought_signature.1.request.json"))
    # the recording has pydantic-ai's client id and the SDK's URL-safe re-encoding; ours keeps the wire form
    recorded["contents"][1]["parts"][0]["functionCall"].pop("id")
    recorded["contents"][1]["parts"][0]["thoughtSignature"] = _equivalent_stream0()["candidates"][0]["content"]["parts"][0]["thoughtSignature"]
    recorded["contents"][2]["parts"][0]["functionResponse"].pop("id")
    assert normalize_request(out.value) == recorded  # the source's snake_case names come back as it spelled them (ADR 0027)
    assert not out.report
