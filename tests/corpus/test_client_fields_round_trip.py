"""The extra corpus's former silent changes (issue 25, item 2), each on its real recording.

Each body was recorded by another client than pydantic-ai; a same-provider round trip must give it back
as the client sent it (or name the change), and what another target cannot take is reported:

* an OpenRouter request read as plain OpenAI Chat (ruby_llm) keeps ``top_k`` and ``reasoning.max_tokens``;
* a Mistral request with ``"tool_choice": "auto"`` and no tools (the ``mistralai`` client's default, recorded
  by openinference) keeps it;
* an Ollama response's ``function.index`` of each tool call comes back (openinference);
* an empty text read from Gemini goes back to Gemini; one from another source (simonw/llm's OpenAI Chat
  request, an assistant message ``"content": ""`` before its tool call) is left out of a Gemini body and reported;
* bodies kept as recorded: a Bedrock response without ``metrics`` (vercel/ai's trimmed fixture), a Gemini request
  holding ``model`` (ruby_llm's speech call), a Gemini error body (vercel/ai's 429, written back as an error body
  with its safe message, the dropped text and details reported), and a Chat stream repeating the tool name in
  every delta (simonw/llm).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from interlingua.errors import ConversionError
from interlingua.mapping import get_mapper

OPENROUTER_TOP_K = "ruby_llm/openai-chat/chat_with_params_openrouter_claude-haiku-4-5_supports_top_k_param.0.request.json"
OPENROUTER_REASONING = "ruby_llm/openai-chat/chat_openrouter_reasoning_details_round-trip_replays_reasoning_details_across_tool_calls_and_turns.1.request.json"
MISTRAL_AUTO = "openinference/mistral/test_instrumentor__test_synchronous_streaming_chat_completions_emits_expected_span_False_.0.request.json"
OLLAMA_CALL = "openinference/ollama/test_instrumentor__test_chat_with_tool_call.0.response.json"
CHAT_EMPTY_CONTENT = "llm/openai-chat/test_tools__test_tool_use_basic.1.request.json"
GEMINI_EMPTY_TEXT = "llm-gemini/gemini/test_gemini__test_tools_with_gemini_3_thought_signatures.1.request.json"


def _body(root: Path, name: str) -> Any:
    return json.loads((root / name).read_bytes())


def _round_trip(fmt: str, body: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    mapper = get_mapper(fmt)
    dec = mapper.decode_request(body)
    enc = mapper.encode_request(dec.value, model=body.get("model"), policy="error")
    return enc.value, [str(e) for e in [*dec.report, *enc.report]]


def test_openrouter_top_k_read_as_plain_chat_comes_back(corpus_extra_root: Path) -> None:
    body = _body(corpus_extra_root, OPENROUTER_TOP_K)
    assert body["top_k"] == 5
    out, report = _round_trip("openai-chat", body)
    assert out == body and report == []
    # the canonical setting is there for other targets (Anthropic takes no top_k any more: reported)
    t = get_mapper("openai-chat").decode_request(body).value
    assert t.settings.top_k == 5
    to_gemini = get_mapper("gemini").encode_request(t, policy="drop")
    assert to_gemini.value["generationConfig"]["topK"] == 5


def test_openrouter_top_k_is_reported_when_the_value_changed(corpus_extra_root: Path) -> None:
    import msgspec

    body = _body(corpus_extra_root, OPENROUTER_TOP_K)
    t = get_mapper("openai-chat").decode_request(body).value
    edited = msgspec.structs.replace(t, settings=msgspec.structs.replace(t.settings, top_k=7))
    conv = get_mapper("openai-chat").encode_request(edited, model=body["model"], policy="drop")
    assert "top_k" not in conv.value  # the plain OpenAI dialect takes none; the kept 5 is no longer the value
    assert any(e.pointer == "/settings/top_k" for e in conv.report)


def test_openrouter_reasoning_budget_read_as_plain_chat_comes_back(corpus_extra_root: Path) -> None:
    body = _body(corpus_extra_root, OPENROUTER_REASONING)
    assert body["reasoning"] == {"max_tokens": 2000} and "reasoning_effort" not in body
    out, report = _round_trip("openai-chat", body)
    assert out["reasoning"] == {"max_tokens": 2000} and "reasoning_effort" not in out
    assert out == body, report
    t = get_mapper("openai-chat").decode_request(body).value
    assert t.settings.reasoning.budget_tokens == 2000


def test_mistral_tool_choice_auto_without_tools_comes_back(corpus_extra_root: Path) -> None:
    body = _body(corpus_extra_root, MISTRAL_AUTO)
    assert body["tool_choice"] == "auto" and not body.get("tools")
    out, report = _round_trip("mistral", body)
    assert out["tool_choice"] == "auto"
    assert out == body, report


def test_mistral_parallel_tool_calls_alone_writes_no_tool_choice() -> None:
    body = {"model": "mistral-small-latest", "messages": [{"role": "user", "content": "hi"}], "parallel_tool_calls": True}
    t = get_mapper("mistral").decode_request(body).value
    out = get_mapper("mistral").encode_request(t, model=body["model"], policy="drop").value
    assert "tool_choice" not in out


def test_ollama_tool_call_index_comes_back(corpus_extra_root: Path) -> None:
    body = _body(corpus_extra_root, OLLAMA_CALL)
    assert body["message"]["tool_calls"][0]["function"]["index"] == 0
    mapper = get_mapper("ollama")
    dec = mapper.decode_response(body)
    enc = mapper.encode_response(dec.value, model=body["model"], policy="error")
    assert enc.value == body, [str(e) for e in [*dec.report, *enc.report]]


def test_ollama_response_without_index_comes_back_without_it(corpus_extra_root: Path) -> None:
    body = _body(corpus_extra_root, OLLAMA_CALL)
    for call in body["message"]["tool_calls"]:
        del call["function"]["index"]  # what Ollama servers before the index field sent
    mapper = get_mapper("ollama")
    enc = mapper.encode_response(mapper.decode_response(body).value, model=body["model"], policy="error")
    assert enc.value == body


def test_ollama_response_from_another_source_has_no_call_index() -> None:
    """The ``ollama`` Python client's ``Message.ToolCall.Function`` has no ``index``: none is invented."""
    chat = {
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4o",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_a", "type": "function", "function": {"name": "a", "arguments": "{}"}},
            {"id": "call_b", "type": "function", "function": {"name": "b", "arguments": "{\"x\": 1}"}},
        ]}}],
    }
    resp = get_mapper("openai-chat").decode_response(chat).value
    out = get_mapper("ollama").encode_response(resp, policy="drop").value
    assert [set(c["function"]) for c in out["message"]["tool_calls"]] == [{"name", "arguments"}] * 2


def _gemini_texts(body: dict[str, Any]) -> list[str]:
    return [p["text"] for c in body["contents"] for p in c["parts"] if "text" in p]


def test_empty_text_from_another_source_is_left_out_of_gemini_bodies(corpus_extra_root: Path) -> None:
    body = _body(corpus_extra_root, CHAT_EMPTY_CONTENT)
    empty = [m for m in body["messages"] if m.get("content") == ""]
    assert empty, "the recording holds an assistant message with empty content (before its tool call message)"
    t = get_mapper("openai-chat").decode_request(body).value
    for policy in ("drop", "degrade", "error"):
        conv = get_mapper("gemini").encode_request(t, model="gemini-2.5-flash", policy=policy)  # type: ignore[arg-type]
        assert "" not in _gemini_texts(conv.value), policy
        assert any(e.action == "dropped" and "empty text" in e.reason for e in conv.report), policy


def test_empty_text_read_from_gemini_goes_back_to_gemini(corpus_extra_root: Path) -> None:
    body = _body(corpus_extra_root, GEMINI_EMPTY_TEXT)
    assert "" in _gemini_texts(body)
    mapper = get_mapper("gemini")
    dec = mapper.decode_request(body)
    enc = mapper.encode_request(dec.value, model=None, policy="error")
    assert _gemini_texts(enc.value) == _gemini_texts(body)
    assert not any("empty text" in e.reason for e in enc.report)


@pytest.mark.parametrize("name", [CHAT_EMPTY_CONTENT])
def test_empty_text_dropped_for_gemini_is_still_sent_to_other_targets(corpus_extra_root: Path, name: str) -> None:
    """The rule is Gemini's: an OpenAI Chat round trip keeps the empty ``content`` the client sent."""
    body = _body(corpus_extra_root, name)
    out, _ = _round_trip("openai-chat", body)
    assert [m.get("content") for m in out["messages"]] == [m.get("content") for m in body["messages"]]


def test_no_conversion_error_is_needed_for_an_empty_text() -> None:
    """Leaving an empty text out loses nothing, so policy ``error`` does not refuse it."""
    from interlingua.items import TextItem, Transcript

    t = Transcript(schema_version="1.0", items=[TextItem(role="user", text=""), TextItem(role="user", text="hi")])
    try:
        conv = get_mapper("gemini").encode_request(t, policy="error")
    except ConversionError as exc:  # pragma: no cover - the failure message
        pytest.fail(f"refused: {exc}")
    assert _gemini_texts(conv.value) == ["hi"]


# ---------------------------------------------------------------------------------------------- bodies as recorded

BEDROCK_NO_METRICS = "vercel-ai/bedrock-converse/amazon-bedrock-tool-no-args.0.response.json"
GEMINI_MODEL_IN_BODY = "ruby_llm/gemini/speech_basic_functionality_gemini_gemini-2_5-flash-preview-tts_can_speak.0.request.json"
GEMINI_429 = "vercel-ai/gemini/google-429-retry-info.0.response.json"
REPEATED_NAME_STREAM = "llm/openai-chat/test_tools_streaming__test_tools_streaming_variant_a.0.stream.sse"


def test_bedrock_response_without_metrics_comes_back_without_them(corpus_extra_root: Path) -> None:
    body = _body(corpus_extra_root, BEDROCK_NO_METRICS)
    assert "metrics" not in body
    mapper = get_mapper("bedrock-converse")
    dec = mapper.decode_response(body)
    assert mapper.encode_response(dec.value, policy="error").value == body
    # a response from another source gets the required metrics, and that source's metadata is reported
    chat = get_mapper("openai-chat").decode_response({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4o",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "hi"}}],
    }).value
    out = mapper.encode_response(chat, policy="drop")
    assert out.value["metrics"] == {"latencyMs": 0}


def test_gemini_body_holding_model_comes_back_with_it(corpus_extra_root: Path) -> None:
    body = _body(corpus_extra_root, GEMINI_MODEL_IN_BODY)
    assert body["model"] == "gemini-2.5-flash-preview-tts"
    out, report = _round_trip("gemini", body)
    assert out == body, report
    # another target does not get Gemini's body field
    t = get_mapper("gemini").decode_request(body).value
    chat = get_mapper("openai-chat").encode_request(t, model="gpt-4o-mini-tts", policy="drop")
    assert chat.value["model"] == "gpt-4o-mini-tts"
    assert any("gemini" in e.reason and e.action == "dropped" for e in chat.report)


def test_gemini_error_body_comes_back_as_an_error_body(corpus_extra_root: Path) -> None:
    body = _body(corpus_extra_root, GEMINI_429)
    mapper = get_mapper("gemini")
    dec = mapper.decode_response(body)
    out = mapper.encode_response(dec.value, policy="error").value
    assert set(out) == {"error"}
    assert out["error"]["code"] == 429 and out["error"]["status"] == "RESOURCE_EXHAUSTED"
    assert out["error"]["message"] != body["error"]["message"]  # the safe message, never the upstream text
    assert {e.pointer for e in dec.report} == {"/error/message", "/error/details"}
    # what google-genai reads from such an answer (errors.APIError), and the recorded body passes too
    from sdk_oracle.oracle import check_response

    assert check_response("gemini", out) == [] and check_response("gemini", body) == []
    assert check_response("gemini", {"error": {"code": "429", "message": "m", "status": "RESOURCE_EXHAUSTED"}}) == ["/error/code: not a int"]


def test_stream_repeating_the_tool_name_in_every_delta_keeps_it_once(corpus_extra_root: Path) -> None:
    data = (corpus_extra_root / REPEATED_NAME_STREAM).read_bytes()
    assert data.count(b'"name":"llm_version"') >= 2
    from . import _engine

    reference = _engine.accumulate_openai_chat(data)
    assert [name for name, _ in reference.tool_calls] == ["llm_version"]
    assert _engine.check_stream("openai-chat", data, REPEATED_NAME_STREAM).status == "lossless"
