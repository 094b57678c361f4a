"""The ``mistral`` mapper on every real Mistral recording (tests/fixtures/real/mistral) and its wire rules.

Round trips: every recorded request and response decodes with an empty report and comes back to
the same transcript / response after encoding (decode -> encode -> decode), and the re-encoded
request keeps the recorded ids, tool choice and chunks. The recorded stream accumulates to the
items its chunks carry. Rules: 9-character ids, ``tool_choice: "any"``, ``prefix``, thinking chunks,
``document_url``, ``random_seed``, ``finish_reason`` values outside OpenAI's enum, names in output.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from interlingua.codec import SCHEMA_VERSION, to_builtins
from interlingua.errors import ConversionError, InterlinguaError
from interlingua.items import (
    Base64Source,
    DocumentItem,
    OpaqueReasoning,
    RawItem,
    ReasoningItem,
    StopReason,
    TextItem,
    ToolCallItem,
    ToolChoice,
    ToolResultItem,
    Transcript,
    UrlSource,
)
from interlingua.mapping import ModelResponse, get_mapper
from interlingua.streaming import StreamDone, StreamError, TextDelta, collect

REAL = Path(__file__).parents[2] / "fixtures" / "real" / "mistral"
MAPPER = get_mapper("mistral")
REQUESTS = sorted(REAL.glob("*.request.json"))
RESPONSES = sorted(REAL.glob("*.response.json"))
STREAM = REAL / "pai_mistral_mistral_model_thinking_part_iter.0.response.sse"


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _t(*items: Any, **kw: Any) -> Transcript:
    return Transcript(schema_version=SCHEMA_VERSION, items=list(items), **kw)


def test_the_fixture_set_is_what_the_readme_lists() -> None:
    index = _load(REAL / "index.json")
    assert len(REQUESTS) == 62 and len(index) == 62
    listed = {f for entry in index.values() for f in entry["files"]}
    assert listed == {p.name for p in REAL.iterdir()} - {"index.json", "README.md"}


@pytest.mark.parametrize("path", REQUESTS, ids=lambda p: p.name)
def test_recorded_request_round_trips_losslessly(path: Path) -> None:
    body = _load(path)
    decoded = MAPPER.decode_request(body)
    assert decoded.report.entries == []
    encoded = MAPPER.encode_request(decoded.value, model=body["model"])
    assert encoded.report.entries == []
    again = MAPPER.decode_request(encoded.value)
    assert to_builtins(again.value) == to_builtins(decoded.value)
    # What the recording carried comes back as the recording spelled it.
    sent_ids = [c["id"] for m in body["messages"] for c in m.get("tool_calls") or []]
    assert [c["id"] for m in encoded.value["messages"] for c in m.get("tool_calls") or []] == sent_ids
    assert encoded.value.get("tool_choice") == body.get("tool_choice")
    assert [m["role"] for m in encoded.value["messages"]] == [m["role"] for m in body["messages"]]
    kinds = lambda b: [p.get("type") for m in b["messages"] if isinstance(m.get("content"), list) for p in m["content"]]  # noqa: E731
    assert [k for k in kinds(encoded.value)] == [k for k in kinds(body) if k != "text"] or set(kinds(encoded.value)) <= set(kinds(body))


@pytest.mark.parametrize("path", RESPONSES, ids=lambda p: p.name)
def test_recorded_response_round_trips_losslessly(path: Path) -> None:
    body = _load(path)
    decoded = MAPPER.decode_response(body)
    assert decoded.report.entries == []
    response = decoded.value
    assert response.stop_reason is not None and response.stop_reason.raw == body["choices"][0]["finish_reason"]
    assert all(getattr(i, "origin", None) is None or i.origin.provider == "mistral" for i in response.items if getattr(i, "origin", msgspec.UNSET) is not msgspec.UNSET)
    encoded = MAPPER.encode_response(response)
    assert encoded.report.entries == []
    again = MAPPER.decode_response(encoded.value).value
    assert to_builtins(again.to_transcript()) == to_builtins(response.to_transcript())
    assert encoded.value["usage"] == body["usage"]


def test_recorded_thinking_response_is_reasoning_then_text() -> None:
    body = _load(REAL / "pai_mistral_mistral_model_thinking_part.1.response.json")
    response = MAPPER.decode_response(body).value
    assert [type(i).__name__ for i in response.items] == ["ReasoningItem", "TextItem"]
    assert response.items[0].text == body["choices"][0]["message"]["content"][0]["thinking"][0]["text"]
    assert response.items[0].origin.provider == "mistral"
    assert "mistral" in response.items[0].provider_data and "openai-chat" not in response.items[0].provider_data


def test_recorded_stream_accumulates_thinking_then_text() -> None:
    events = collect(MAPPER, STREAM.read_bytes())
    done = events[-1]
    assert isinstance(done, StreamDone)
    response = done.response
    assert [type(i).__name__ for i in response.items] == ["ReasoningItem", "TextItem"]
    chunks = [json.loads(line[6:]) for line in STREAM.read_text().splitlines() if line.startswith("data: {")]
    thinking = "".join(t["text"] for c in chunks for ch in c["choices"] if isinstance(ch["delta"].get("content"), list) for part in ch["delta"]["content"] for t in part["thinking"])
    text = "".join(ch["delta"]["content"] for c in chunks for ch in c["choices"] if isinstance(ch["delta"].get("content"), str))
    assert response.items[0].text == thinking and response.items[1].text == text
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == text
    assert response.usage.total_tokens == chunks[-1]["usage"]["total_tokens"]
    assert response.items[1].origin.provider == "mistral"
    # What the stream accumulated goes back to Mistral as the assistant turn, thinking first.
    body = MAPPER.encode_request(_t(TextItem(role="user", text="How do I cross the street?"), *response.items, TextItem(role="user", text="Thanks")), model="magistral-medium-latest").value
    assistant = body["messages"][1]
    assert assistant["content"][0]["type"] == "thinking" and assistant["content"][0]["thinking"][0]["text"] == thinking
    assert assistant["content"][-1] == {"type": "text", "text": text}


def test_a_cut_stream_is_truncated() -> None:
    data = STREAM.read_bytes()
    cut = data[: data.rfind(b"data: [DONE]")]
    events = collect(MAPPER, cut)
    assert isinstance(events[-1], StreamError) and events[-1].error.code == "truncated"
    assert sum(isinstance(e, (StreamDone, StreamError)) for e in events) == 1


# --------------------------------------------------------------------------- rules


def test_foreign_tool_call_ids_become_nine_alphanumerics_on_call_and_result() -> None:
    transcript = _t(
        TextItem(role="user", text="weather?"),
        ToolCallItem(id="call_ZvBr3kxQ2mN8pLw4", name="get_weather", arguments={"city": "Paris"}),
        ToolCallItem(id="toolu_01A09q90qw90lq917835lq9", name="get_weather", arguments={"city": "Lyon"}),
        ToolResultItem(call_id="toolu_01A09q90qw90lq917835lq9", content=[TextItem(text="rain")]),
        ToolResultItem(call_id="call_ZvBr3kxQ2mN8pLw4", content=[TextItem(text="sun")]),
    )
    out = MAPPER.encode_request(transcript, model="mistral-large-latest")
    calls = out.value["messages"][1]["tool_calls"]
    results = {m["tool_call_id"]: m["content"] for m in out.value["messages"] if m["role"] == "tool"}
    assert all(len(c["id"]) == 9 and c["id"].isalnum() for c in calls)
    assert results == {calls[0]["id"]: "sun", calls[1]["id"]: "rain"}
    assert sum(e.action == "changed" and "id" in e.reason for e in out.report.entries) == 2
    assert MAPPER.encode_request(transcript, model="mistral-large-latest").value == out.value  # deterministic


def test_tool_choice_any_is_required() -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": "x"}], "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}], "tool_choice": "any"}
    transcript = MAPPER.decode_request(body).value
    assert transcript.tool_choice == ToolChoice(mode="required")
    assert MAPPER.encode_request(transcript).value["tool_choice"] == "any"
    assert MAPPER.decode_request({**body, "tool_choice": "required"}).value.tool_choice == ToolChoice(mode="required")
    # An OpenAI Chat "required" goes to Mistral as "any".
    openai = get_mapper("openai-chat").decode_request({**body, "tool_choice": "required"}).value
    assert MAPPER.encode_request(openai, model="m").value["tool_choice"] == "any"


def test_a_final_assistant_message_is_a_prefix() -> None:
    transcript = _t(TextItem(role="user", text="Write a haiku"), TextItem(role="assistant", text="Autumn"))
    body = MAPPER.encode_request(transcript, model="m").value
    assert body["messages"][-1] == {"role": "assistant", "content": "Autumn", "prefix": True}
    back = MAPPER.decode_request(body)
    assert back.report.entries == [] and to_builtins(back.value.items) == to_builtins(MAPPER.decode_request(body).value.items)
    assert [type(i).__name__ for i in back.value.items] == ["TextItem", "TextItem"]
    # prefix true anywhere but last is not the prefill: it is kept as given.
    odd = {"model": "m", "messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b", "prefix": True}, {"role": "user", "content": "c"}]}
    again = MAPPER.encode_request(MAPPER.decode_request(odd).value).value
    assert again["messages"][1].get("prefix") is True and "prefix" not in again["messages"][2]


def test_foreign_reasoning_goes_as_a_thinking_chunk_and_its_signature_stays_behind() -> None:
    transcript = _t(
        TextItem(role="user", text="hi"),
        ReasoningItem(text="Let me think.", opaque=OpaqueReasoning(namespace="anthropic.signature", issuer="anthropic", value="sig-SENTINEL")),
        TextItem(role="assistant", text="Hello."),
        TextItem(role="user", text="more"),
    )
    out = MAPPER.encode_request(transcript, model="m")
    assert out.value["messages"][1]["content"] == [{"type": "thinking", "thinking": [{"type": "text", "text": "Let me think."}]}, {"type": "text", "text": "Hello."}]
    assert "sig-SENTINEL" not in json.dumps(out.value)
    assert any(e.action == "dropped" and e.item_type == "reasoning" for e in out.report.entries)


def test_documents_are_document_url_chunks() -> None:
    url_doc = DocumentItem(role="user", source=UrlSource(url="https://example.com/a.pdf"), title="a.pdf")
    pdf = DocumentItem(role="user", source=Base64Source(media_type="application/pdf", data="JVBERi0x"))
    body = MAPPER.encode_request(_t(TextItem(role="user", text="read"), url_doc, pdf), model="m").value
    assert body["messages"][0]["content"][1:] == [
        {"type": "document_url", "document_url": "https://example.com/a.pdf", "document_name": "a.pdf"},
        {"type": "document_url", "document_url": "data:application/pdf;base64,JVBERi0x"},
    ]
    back = MAPPER.decode_request(body)
    assert back.report.entries == []
    assert to_builtins(back.value.items[1:]) == to_builtins([msgspec.structs.replace(url_doc, message=back.value.items[1].message), msgspec.structs.replace(pdf, message=back.value.items[2].message)])


def test_seed_is_random_seed() -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": "x"}], "random_seed": 42}
    transcript = MAPPER.decode_request(body).value
    assert transcript.settings.seed == 42
    out = MAPPER.encode_request(transcript).value
    assert out["random_seed"] == 42 and "seed" not in out


@pytest.mark.parametrize("finish, reason", [("model_length", "max_tokens"), ("error", "error"), ("length", "max_tokens"), ("tool_calls", "tool_use")])
def test_finish_reasons_outside_openai_enum(finish: str, reason: str) -> None:
    body = _load(RESPONSES[0])
    body = {**body, "choices": [{**body["choices"][0], "finish_reason": finish}]}
    response = MAPPER.decode_response(body).value
    assert response.stop_reason == StopReason(reason=reason, raw=finish)  # type: ignore[arg-type]
    assert MAPPER.encode_response(response).value["choices"][0]["finish_reason"] == finish


def test_openai_chat_raw_items_are_not_sent_to_mistral_and_mistral_ones_are() -> None:
    own = RawItem(provider="mistral", value={"role": "user", "content": "kept"})
    foreign = RawItem(provider="openai-chat", value={"role": "user", "content": "SENTINEL-openai"})
    out = MAPPER.encode_request(_t(TextItem(role="user", text="a"), own, foreign), model="m", policy="drop")
    text = json.dumps(out.value)
    assert "kept" in text and "SENTINEL-openai" not in text
    assert any("openai-chat" in e.reason and e.action == "dropped" for e in out.report.entries)
    # And the reverse: what Mistral produced is not OpenAI's to send.
    decoded = MAPPER.decode_request({"model": "m", "messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b", "weird": 1}, {"role": "user", "content": "c"}]}).value
    assert all(getattr(i, "provider", "mistral") == "mistral" for i in decoded.items)
    openai = get_mapper("openai-chat").encode_request(decoded, model="gpt-4.1", policy="drop").value
    assert "weird" not in json.dumps(openai)


def test_a_refusal_has_no_mistral_form() -> None:
    from interlingua.items import RefusalItem

    response = ModelResponse(items=[RefusalItem(text="I can't help with that.")])
    with pytest.raises(ConversionError):
        MAPPER.encode_response(response, policy="error")
    out = MAPPER.encode_response(response, policy="drop")
    assert "refusal" not in out.value["choices"][0]["message"]
    assert any(e.item_type == "refusal" for e in out.report.entries)


@pytest.mark.parametrize(
    "body",
    [
        {"messages": "not a list"},
        {"messages": [{"role": "assistant", "content": "", "tool_calls": [{"id": "abcDEF123", "type": "function", "function": {"name": "f", "arguments": 7}}]}]},
        {"messages": [{"role": "assistant", "content": [{"type": "thinking", "thinking": "not a list"}]}]},
    ],
)
def test_bad_requests_are_clear_errors_or_reported(body: dict[str, Any]) -> None:
    try:
        out = MAPPER.decode_request(body)
    except InterlinguaError as err:
        assert str(err)
        return
    calls = [i for i in out.value.items if isinstance(i, ToolCallItem)]
    if calls:  # arguments that are no JSON object: kept as raw text with the error, never {}
        assert calls[0].arguments is msgspec.UNSET and calls[0].arguments_raw == "7" and calls[0].arguments_error
        with pytest.raises(InterlinguaError):
            MAPPER.encode_request(out.value, model="m")
        return
    assert out.report.entries, "a body that is not Mistral's is reported"


def test_capabilities_and_registry() -> None:
    from interlingua.mapping import available, sources

    assert "mistral" in available() and "interlingua" in sources()["mistral"]
    caps = MAPPER.capabilities(None)
    assert caps.assistant_prefill is True and caps.reasoning is True and "document" in caps.input_modalities


def test_a_document_comes_back_with_an_empty_title_and_its_media_type_reported() -> None:
    """Found by the conformance suite: an empty title was read back as none, and a media_type (which a
    document_url chunk has no field for) went without a report."""
    doc = DocumentItem(role="user", source=Base64Source(media_type="application/pdf", data="AA=="), media_type="application/pdf", title="")
    out = MAPPER.encode_request(_t(doc), model="m")
    assert [(e.action, e.index, e.pointer) for e in out.report] == [("changed", 0, "/media_type")]
    back = MAPPER.decode_request(out.value).value.items[0]
    assert back.title == "" and back.source == doc.source
