"""Issue 13 item 2: same-provider response round trips keep what the mapper does not model (ADR 0009).

Each class is checked on a real recorded response of the corpus (skipped when the corpus is absent),
through the canonical DOCUMENT: provider body -> ModelResponse -> transcript JSON bytes ->
ModelResponse -> the same provider's body, compared with the corpus test's equivalences. A second
check converts the same response to another provider and expects the metadata to be reported there.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest

from interlingua.codec import decode_transcript, encode_transcript
from interlingua.items import ToolCallItem
from interlingua.mapping import ModelResponse, get_mapper
from interlingua.mapping.extras import item_fields, keep_fields, response_fields, restore_fields, unknown_fields
from interlingua.mapping.report import Report

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from corpus import _engine  # noqa: E402

CORPUS = _engine.corpus_dir()
needs_corpus = pytest.mark.skipif(not (CORPUS / "corpus.tar.xz").is_file(), reason="the corpus (../shared/corpus) is absent")


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _engine.unpack(tmp_path_factory.mktemp("corpus"))


def _via_document(fmt: str, body: dict[str, Any]) -> tuple[dict[str, Any], Report]:
    mapper = get_mapper(fmt)
    dec = mapper.decode_response(body)
    data = encode_transcript(dec.value.to_transcript())
    back = ModelResponse.from_transcript(decode_transcript(data))
    enc = mapper.encode_response(back, model=body.get("model") or body.get("modelVersion"), policy="error")
    return enc.value, Report([*dec.report, *enc.report])


def _strip_echo(fmt: str, body: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in body.items() if k not in _engine.RESPONSES_ECHO} if fmt == "openai-responses" else body


# (format, corpus file, JSON pointer of the field that used to be lost, what it is)
CASES = [
    ("anthropic", "anthropic/pai__test_native_tool_search_vcr__test_anthropic_native_tool_search.0.response.json", "/content/4/caller", "tool_use.caller"),
    ("anthropic", "anthropic/pai__test_anthropic__test_anthropic_advisor_tool.0.response.json", "/usage/cache_creation", "usage cache_creation"),
    ("anthropic", "anthropic/pai__test_anthropic__test_anthropic_advisor_tool.0.response.json", "/usage/server_tool_use", "usage server_tool_use"),
    ("anthropic", "anthropic/pai__test_code_execution_files_vcr__test_anthropic_code_execution_files.1.response.json", "/container", "container"),
    ("anthropic", "anthropic/pai__test_settings__test_stop_settings_anthropic.0.response.json", "/stop_sequence", "matched stop_sequence"),
    ("openai-chat", "openai-chat/pai__test_snowflake__test_snowflake_llama.0.response.json", "/choices/0/finish_reason", "finish_reason ''"),
    ("openai-chat", "openai-chat/pai__test_snowflake__test_snowflake_llama.0.response.json", "/id", "empty id"),
    ("openai-chat", "openai-chat/pai__test_snowflake__test_snowflake_tool_calling.0.response.json", "/choices/0/message/tool_calls/0/custom", "Snowflake custom"),
    ("openai-chat", "openai-chat/pai__test_openrouter__test_openrouter_preserve_reasoning_block.0.response.json", "/choices/0/native_finish_reason", "choice field"),
    ("openai-chat", "openai-chat/pai__test_mistral__test_image_as_binary_content_tool_response.0.response.json", "/choices/0/message/content", "empty content"),
    ("openai-chat", "openai-chat/pai__test_settings__test_stop_settings_groq.0.response.json", "/x_groq", "gateway field"),
    ("openai-chat", "openai-chat/pai__test_cache_prefix_stability__test_openai_tool_call_roundtrip_wire_stable_ag_ui.0.response.json", "/system_fingerprint", "system_fingerprint"),
    ("openai-responses", "openai-responses/pai__test_openai__test_openai_instructions_with_responses_logprobs.0.response.json", "/output/0/content/0/logprobs", "output_text.logprobs"),
    ("openai-responses", "openai-responses/pai__test_deepseek_responses__test_deepseek_responses_function_tool.0.response.json", "/output/0/id", "DeepSeek item id"),
    ("openai-responses", "openai-responses/pai__test_deepseek_responses__test_deepseek_responses_reasoning_effort.0.response.json", "/output/0/type", "DeepSeek reasoning item"),
    ("openai-responses", "openai-responses/pai__test_bedrock_mantle__test_gpt_oss_responses.0.response.json", "/output/0/status", "Bedrock reasoning status"),
    ("openai-responses", "openai-responses/pai__test_openai_prompt_cache__test_openrouter_responses_prompt_cache_e2e.0.response.json", "/usage/cost", "gateway cost"),
    ("openai-responses", "openai-responses/pai__test_tool_availability_portability__test_tool_availability_portability_matrix_R1-T3-native-search.0.response.json", "/tool_usage", "tool_usage"),
    ("openai-responses", "openai-responses/pai__test_capabilities__TestImageGenerationCapability.test_image_generation_local_fallback.0.response.json", "/output/1/phase", "message phase"),
    ("gemini", "gemini/pai__test_capabilities__TestImageGenerationCapability.test_image_generation_local_fallback_google.0.response.json", "/usageMetadata/promptTokensDetails", "promptTokensDetails"),
    ("gemini", "gemini/pai__test_google__test_google_model_armor_response_template_real_block.0.response.json", "/createTime", "createTime"),
    ("gemini", "gemini/pai__test_ref_sibling_wire_contract__test_ref_sibling_wire_contract_google-structured-dict.0.response.json", "/candidates/0/finishMessage", "finishMessage"),
    ("gemini", "gemini/pai__test_google__test_google_vertex_logprobs.0.response.json", "/candidates/0/logprobsResult", "logprobsResult"),
    ("gemini", "gemini/pai__test_google__test_google_model_safety_settings.0.response.json", "/candidates/0/content", "content without parts"),
]


def _at(body: Any, pointer: str) -> Any:
    for seg in pointer.strip("/").split("/"):
        body = body[int(seg)] if isinstance(body, list) else body[seg]
    return body


@needs_corpus
@pytest.mark.parametrize(("fmt", "file", "pointer", "what"), CASES, ids=[c[3] for c in CASES])
def test_same_provider_round_trip_through_the_document_is_lossless(root: Path, fmt: str, file: str, pointer: str, what: str) -> None:
    body = json.loads((root / file).read_bytes())
    before = copy.deepcopy(body)
    out, report = _via_document(fmt, body)
    assert body == before, "the input was modified"
    assert _at(out, pointer) == _at(body, pointer), what
    diffs = list(_engine.differences(_engine.normalize(fmt, _strip_echo(fmt, body)), _engine.normalize(fmt, _strip_echo(fmt, out))))
    assert diffs == [], [str(d) for d in diffs]


@needs_corpus
@pytest.mark.parametrize(
    ("fmt", "file", "target"),
    [
        ("gemini", "gemini/pai__test_google__test_google_model_armor_response_template_real_block.0.response.json", "openai-chat"),
        ("openai-chat", "openai-chat/pai__test_settings__test_stop_settings_groq.0.response.json", "anthropic"),
        ("anthropic", "anthropic/pai__test_code_execution_files_vcr__test_anthropic_code_execution_files.1.response.json", "openai-responses"),
    ],
)
def test_metadata_is_reported_for_another_provider(root: Path, fmt: str, file: str, target: str) -> None:
    body = json.loads((root / file).read_bytes())
    response = get_mapper(fmt).decode_response(body).value
    conv = get_mapper(target).encode_response(response, model="m", policy="drop")
    reasons = [e.reason for e in conv.report if e.action == "dropped"]
    assert any(r.startswith(f"{fmt} provider data") and "of the response is not for" in r for r in reasons), reasons
    wire = json.dumps(conv.value)
    for key, value in (response.provider_data or {})[fmt].get("body", {}).items():
        if isinstance(value, str) and len(value) > 8:
            assert value not in wire, key  # never copied into another provider's body


def test_finish_reason_outside_the_enum_goes_back_only_to_its_provider() -> None:
    chat = get_mapper("openai-chat")
    body = {"id": "x", "object": "chat.completion", "created": 1, "model": "llama", "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "eos"}]}
    r = chat.decode_response(body).value
    assert (r.stop_reason.reason, r.stop_reason.raw) == ("other", "eos")
    assert chat.encode_response(r).value["choices"][0]["finish_reason"] == "eos"
    anth = get_mapper("anthropic").encode_response(r, model="claude")
    assert anth.value["stop_reason"] == "end_turn" and any("of the response is not for anthropic" in e.reason for e in anth.report)


def test_vertex_integer_finish_reason_is_written_back() -> None:
    gemini = get_mapper("gemini")
    body = {"candidates": [{"content": {"parts": [{"text": "hi"}], "role": "model"}, "finishReason": 1}], "modelVersion": "gemini-2.0-flash"}
    r = gemini.decode_response(body).value
    assert gemini.encode_response(r).value["candidates"][0]["finishReason"] == 1


def test_chat_tool_call_extras_are_not_written_into_a_request() -> None:
    chat = get_mapper("openai-chat")
    body = {"id": "x", "object": "chat.completion", "created": 1, "model": "m", "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": None, "tool_calls": [{"index": 0, "id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}, "custom": {"input": ""}}]}}]}
    r = chat.decode_response(body).value
    call = r.items[0]
    assert isinstance(call, ToolCallItem) and call.provider_data == {"openai-chat": {"index": 0, "custom": {"input": ""}}}
    assert chat.encode_response(r).value["choices"][0]["message"]["tool_calls"][0]["custom"] == {"input": ""}
    req = chat.encode_request(r.to_transcript(), model="m")
    assert req.value["messages"][0]["tool_calls"][0] == {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    assert any(e.action == "dropped" and "custom, index" in e.reason for e in req.report)


def test_the_mechanism() -> None:
    assert unknown_fields({"a": 1, "b": {"c": 2}}, {"a"}) == {"b": {"c": 2}}
    assert unknown_fields(["not", "a", "mapping"], ()) == {}  # type: ignore[arg-type]
    item = ToolCallItem(id="c", name="f", arguments={})
    assert keep_fields(item, "anthropic", {}) is item
    kept = keep_fields(keep_fields(item, "anthropic", {"caller": {"type": "direct"}}), "anthropic", {"x": 1})
    assert kept.provider_data == {"anthropic": {"caller": {"type": "direct"}, "x": 1}}
    report = Report()
    both = msgspec.structs.replace(kept, provider_data={**kept.provider_data, "gemini": {"y": 2}})
    assert item_fields(both, "anthropic", report) == {"caller": {"type": "direct"}, "x": 1}
    assert [e.action for e in report] == ["dropped"] and "gemini" in list(report)[0].reason
    out = {"id": "placeholder", "keep": 1}
    assert restore_fields(out, {"id": "real", "keep": 2, "new": 3}, override=("id",)) == {"id": "real", "keep": 1, "new": 3}
    assert response_fields(None, "gemini", Report()) == {}
