"""Issue 13: OpenAI Chat and Responses requests and responses come back to the host that sent them as read.

Each class the corpus test found is checked on a real recording of the corpus (skipped when the corpus
is absent), through the canonical DOCUMENT: body -> transcript / ModelResponse -> JSON bytes -> back ->
the same provider's body, compared with the corpus test's equivalences and with no report entry. A
second check sends the same conversation where those fields do not belong (a request for another
model, which may be OpenAI itself, or another provider) and expects them left out and reported.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from interlingua.codec import SCHEMA_VERSION, decode_transcript, encode_transcript
from interlingua.items import TextItem, Transcript
from interlingua.mapping import ModelResponse, Report, get_mapper
from interlingua.mapping.hosted_tools import merge_hosted_tools
from interlingua.providers.openai_chat import OpenAIChatMapper

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from corpus import _engine  # noqa: E402

CORPUS = _engine.corpus_dir()
needs_corpus = pytest.mark.skipif(not (CORPUS / "corpus.tar.xz").is_file(), reason="the corpus (../shared/corpus) is absent")


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _engine.unpack(tmp_path_factory.mktemp("corpus"))


def _load(root: Path, file: str) -> dict[str, Any]:
    return json.loads((root / file).read_bytes())


def _request_via_document(fmt: str, body: dict[str, Any], model: str | None) -> tuple[dict[str, Any], Report, Transcript]:
    mapper = get_mapper(fmt)
    dec = mapper.decode_request(body)
    transcript = decode_transcript(encode_transcript(dec.value))
    enc = mapper.encode_request(transcript, model=model, policy="error")
    return enc.value, Report([*dec.report, *enc.report]), transcript


def _response_via_document(fmt: str, body: dict[str, Any]) -> tuple[dict[str, Any], Report, ModelResponse]:
    mapper = get_mapper(fmt)
    dec = mapper.decode_response(body)
    back = ModelResponse.from_transcript(decode_transcript(encode_transcript(dec.value.to_transcript())))
    enc = mapper.encode_response(back, model=body.get("model"), policy="error")
    return enc.value, Report([*dec.report, *enc.report]), back


def _diffs(fmt: str, before: Any, after: Any) -> list[str]:
    return [str(d) for d in _engine.differences(_engine.normalize(fmt, before), _engine.normalize(fmt, after))]


def _at(body: Any, pointer: str) -> Any:
    for seg in pointer.strip("/").split("/"):
        body = body[int(seg)] if isinstance(body, list) else body[seg]
    return body


# (corpus file, JSON pointer of what used to change, the class)
CHAT_REQUESTS = [
    ("pai__test_cerebras__test_cerebras_thinking_part_survives_multiturn.1.request.json", "/messages/1/reasoning", "Cerebras reasoning"),
    ("pai__test_deepseek__test_deepseek_deferred_capability_with_thinking.1.request.json", "/messages/3/reasoning_content", "DeepSeek reasoning_content"),
    ("pai__test_deepseek__test_deepseek_deferred_capability_with_thinking.1.request.json", "/messages/5/reasoning_content", "DeepSeek empty reasoning_content"),
    ("pai__test_snowflake__test_snowflake_thinking.1.request.json", "/messages/1/reasoning_details", "Snowflake reasoning_details"),
    ("pai__test_cache__test_openrouter_cache_all_settings_real_api.0.request.json", "/messages/0/content/0/cache_control", "OpenRouter cache_control"),
    ("pai__test_tool_choice_matrix__test_tool_choice_matrix_auto-mistral.1.request.json", "/messages/1/tool_calls/0/index", "Mistral tool_calls index"),
    ("pai__test_openrouter__test_openrouter_web_search_tool_full_params.0.request.json", "/tools/0", "OpenRouter server tool"),
    ("pai__test_openrouter__test_openrouter_google_nested_schema.1.request.json", "/messages/1/tool_calls/0/id", "OpenRouter 51-character id"),
]

CHAT_RESPONSES = [
    ("pai__test_thinking_wire_contract__test_reasoning_wire_contract_cerebras-gpt-oss-always-on.0.response.json", "/choices/0/message/reasoning", "Cerebras reasoning"),
    ("pai__test_deepseek__test_deepseek_deferred_capability_with_thinking.0.response.json", "/choices/0/message/reasoning_content", "DeepSeek reasoning_content"),
    ("pai__test_openrouter__test_openrouter_usage.0.response.json", "/choices/0/message/reasoning_details", "OpenRouter reasoning_details"),
    ("pai__test_openai__test_compatible_api_with_tool_calls_without_id.0.response.json", "/choices/0/message/tool_calls/0/id", "empty tool call id"),
    ("pai__test_openrouter__test_openrouter_google_nested_schema.0.response.json", "/choices/0/message/tool_calls/0/id", "OpenRouter 51-character id"),
    ("pai__test_openrouter__test_openrouter_tool_optional_parameters.0.response.json", "/choices/0/message/tool_calls/0/function", "call without arguments"),
]

RESPONSES_REQUESTS = [
    ("pai__test_openai_responses__test_openai_responses_model_web_search_tool.0.request.json", "/tools", "web_search"),
    ("pai__test_openai_responses__test_openai_responses_code_execution_return_image.0.request.json", "/tools", "code_interpreter"),
    ("pai__test_openai_responses__test_openai_responses_model_mcp_server_tool.0.request.json", "/tools", "mcp"),
    ("pai__test_native_tool_search_vcr__test_openai_native_tool_search.0.request.json", "/tools", "namespace and tool_search"),
    ("pai__test_native_tool_search_vcr__test_openai_native_tool_search.0.request.json", "/parallel_tool_calls", "parallel_tool_calls without tool_choice"),
    ("pai__test_openai_responses__test_openai_responses_model_retry.0.request.json", "/instructions", "empty instructions"),
]


@needs_corpus
@pytest.mark.parametrize(("file", "pointer", "what"), CHAT_REQUESTS, ids=[c[2] for c in CHAT_REQUESTS])
def test_chat_request_comes_back_as_read(root: Path, file: str, pointer: str, what: str) -> None:
    body = _load(root, f"openai-chat/{file}")
    before = copy.deepcopy(body)
    out, report, _ = _request_via_document("openai-chat", body, body.get("model"))
    assert body == before, "the input was modified"
    assert _at(out, pointer) == _at(body, pointer), what
    assert _diffs("openai-chat", body, out) == []
    assert report.entries == []


@needs_corpus
@pytest.mark.parametrize(("file", "pointer", "what"), CHAT_RESPONSES, ids=[c[2] for c in CHAT_RESPONSES])
def test_chat_response_comes_back_as_read(root: Path, file: str, pointer: str, what: str) -> None:
    body = _load(root, f"openai-chat/{file}")
    out, report, _ = _response_via_document("openai-chat", body)
    assert _at(out, pointer) == _at(body, pointer), what
    assert _diffs("openai-chat", body, out) == []
    assert [e for e in report if e.action != "changed"] == []  # the empty id is read as a given one ("changed")


@needs_corpus
@pytest.mark.parametrize(("file", "pointer", "what"), RESPONSES_REQUESTS, ids=[c[2] for c in RESPONSES_REQUESTS])
def test_responses_request_comes_back_as_read(root: Path, file: str, pointer: str, what: str) -> None:
    body = _load(root, f"openai-responses/{file}")
    out, report, _ = _request_via_document("openai-responses", body, body.get("model"))
    assert _at(out, pointer) == _at(body, pointer), what
    assert _diffs("openai-responses", body, out) == []
    assert report.entries == []
    assert ("tool_choice" in out) == ("tool_choice" in body)


# ------------------------------------------------------------------------ where the fields do not belong


@needs_corpus
@pytest.mark.parametrize(
    ("file", "fields"),
    [
        ("pai__test_cerebras__test_cerebras_thinking_part_survives_multiturn.1.request.json", ("reasoning",)),
        ("pai__test_deepseek__test_deepseek_deferred_capability_with_thinking.1.request.json", ("reasoning_content",)),
        ("pai__test_snowflake__test_snowflake_thinking.1.request.json", ("reasoning_details",)),
    ],
)
def test_chat_request_reasoning_is_reported_for_another_model(root: Path, file: str, fields: tuple[str, ...]) -> None:
    """For another model (perhaps OpenAI, whose ChatCompletionAssistantMessageParam has no reasoning
    field) the default dialect leaves the host's reasoning out and says so."""
    body = _load(root, f"openai-chat/{file}")
    out, report, _ = _request_via_document("openai-chat", body, "gpt-4.1")
    assert not any(k in m for m in out["messages"] for k in fields)
    assert any(e.action == "dropped" and e.item_type in ("reasoning", "raw") for e in report)


@needs_corpus
def test_chat_response_reasoning_goes_into_responses_only(root: Path) -> None:
    body = _load(root, "openai-chat/pai__test_openrouter__test_openrouter_usage.0.response.json")
    response = get_mapper("openai-chat").decode_response(body).value
    transcript = Transcript(schema_version=SCHEMA_VERSION, items=[TextItem(text="q", role="user"), *response.items, TextItem(text="more", role="user")])
    req = get_mapper("openai-chat").encode_request(transcript, model=body["model"])
    assert not any(k in req.value["messages"][1] for k in ("reasoning", "reasoning_details"))
    assert [e.item_type for e in req.report if e.action == "dropped"].count("reasoning") == 2  # text and details
    # the dialect that takes them back writes them
    again = OpenAIChatMapper("openrouter").encode_request(transcript, model=body["model"]).value["messages"][1]
    assert again["reasoning_details"] == body["choices"][0]["message"]["reasoning_details"]


@needs_corpus
def test_chat_cache_control_and_mistral_index_are_reported_for_another_model(root: Path) -> None:
    cached = _load(root, "openai-chat/pai__test_cache__test_openrouter_cache_all_settings_real_api.0.request.json")
    out, report, _ = _request_via_document("openai-chat", cached, "gpt-4.1")
    assert "cache_control" not in out["messages"][0]["content"][0]
    assert any("cache_control" in e.reason for e in report)
    mistral = _load(root, "openai-chat/pai__test_tool_choice_matrix__test_tool_choice_matrix_auto-mistral.1.request.json")
    out, report, _ = _request_via_document("openai-chat", mistral, "gpt-4.1")
    assert set(out["messages"][1]["tool_calls"][0]) == {"id", "type", "function"}
    assert any("index" in e.reason and e.item_type == "tool_call" for e in report)


@needs_corpus
def test_long_tool_call_id_is_mapped_for_another_model_on_the_call_and_its_result(root: Path) -> None:
    body = _load(root, "openai-chat/pai__test_openrouter__test_openrouter_google_nested_schema.1.request.json")
    assert len(body["messages"][1]["tool_calls"][0]["id"]) > 40
    out, report, _ = _request_via_document("openai-chat", body, "gpt-4.1")
    new_id = out["messages"][1]["tool_calls"][0]["id"]
    assert len(new_id) <= 40 and out["messages"][2]["tool_call_id"] == new_id
    assert any(e.action == "changed" and e.item_type == "tool_call" for e in report)


@needs_corpus
def test_call_without_arguments_gets_an_arguments_object_in_a_request(root: Path) -> None:
    body = _load(root, "openai-chat/pai__test_openrouter__test_openrouter_tool_optional_parameters.0.response.json")
    response = get_mapper("openai-chat").decode_response(body).value
    transcript = Transcript(schema_version=SCHEMA_VERSION, items=[TextItem(text="q", role="user"), *response.items])
    out = get_mapper("openai-chat").encode_request(transcript, model=body["model"])
    assert out.value["messages"][1]["tool_calls"][0]["function"]["arguments"] == "{}"  # required in a request


@needs_corpus
@pytest.mark.parametrize("target", ["openai-chat", "anthropic", "gemini", "ollama"])
def test_responses_builtin_tools_are_reported_elsewhere_and_function_tools_kept(root: Path, target: str) -> None:
    body = _load(root, "openai-responses/pai__test_openai_responses__test_openai_responses_model_web_search_tool.0.request.json")
    transcript = get_mapper("openai-responses").decode_request(body).value
    conv = get_mapper(target).encode_request(transcript, model="m", policy="drop")
    assert "web_search" not in json.dumps(conv.value.get("tools", []))
    assert any(e.action == "dropped" and "openai-responses provider data" in e.reason and "tools" in e.reason for e in conv.report)


@needs_corpus
def test_openrouter_server_tool_keeps_its_place_among_function_tools(root: Path) -> None:
    body = _load(root, "openai-chat/pai__test_openrouter__test_openrouter_web_search_tool_full_params.0.request.json")
    function_tool = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}
    body = {**body, "tools": [function_tool, *body["tools"], {**function_tool, "function": {**function_tool["function"], "name": "g"}}]}
    out, report, transcript = _request_via_document("openai-chat", body, body.get("model"))
    assert out["tools"] == body["tools"] and report.entries == []
    assert [t.name for t in transcript.tools] == ["f", "g"]


def test_merge_hosted_tools_fills_slots_in_order() -> None:
    a, b, c = {"name": "a"}, {"name": "b"}, {"name": "c"}
    hosted = {"type": "web_search"}
    assert merge_hosted_tools([a, b], [None, hosted, None]) == [a, hosted, b]
    assert merge_hosted_tools([a, b, c], [hosted, None]) == [hosted, a, b, c]  # a tool added since: at the end
    assert merge_hosted_tools([], [hosted, None]) == [hosted]  # a tool removed since: its slot goes
    assert merge_hosted_tools([a], None) == [a]


@needs_corpus
def test_empty_instructions_give_way_to_system_text(root: Path) -> None:
    body = _load(root, "openai-responses/pai__test_openai_responses__test_openai_responses_model_retry.0.request.json")
    assert body["instructions"] == ""
    transcript = get_mapper("openai-responses").decode_request(body).value
    with_system = Transcript(
        schema_version=SCHEMA_VERSION, items=[TextItem(text="Be brief.", role="system"), *transcript.items], settings=transcript.settings
    )
    out = get_mapper("openai-responses").encode_request(with_system, model=body["model"])
    assert out.value["instructions"] == "Be brief." and out.report.entries == []
