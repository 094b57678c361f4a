"""The oracle itself: it refuses unknown keys, missing required keys and wrong types on every target,
so ``test_sdk_bodies.py`` cannot pass by accepting everything."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from .bodies import REAL
from .oracle import TARGETS, check_request, check_response, required_keys


def load(rel: str) -> Any:
    return json.loads((REAL / rel).read_text(encoding="utf-8"))


# One valid recorded body of each target: (target, request, response). Gemini requests are built from
# REST names (the recordings use the google-genai SDK's snake_case spellings, see below).
GEMINI_REQUEST = {
    "contents": [{"role": "user", "parts": [{"text": "What is 2+2?"}]}],
    "systemInstruction": {"parts": [{"text": "Be brief."}]},
    "tools": [{"functionDeclarations": [{"name": "add", "parametersJsonSchema": {"type": "object"}}]}],
    "generationConfig": {"thinkingConfig": {"includeThoughts": True}},
}
VALID = {
    "openai-chat": (load("openai_chat/pai_openai_instructions_with_tool_calls.1.request.json"), load("openai_chat/openai_python.completion_parallel_tool_calls.response.json")),
    "openai-responses": (load("openai_responses/pai_openai_responses_thinking_with_tool_calls.1.request.json"), None),
    "anthropic": (load("anthropic/pai_anthropic_parallel_tool_calls.1.request.json"), load("anthropic/pai_anthropic_parallel_tool_calls.0.response.json")),
    "gemini": (GEMINI_REQUEST, load("gemini/pai_google_thinking_part.0.response.json")),
    "ollama": (load("ollama/ollama_docs.chat_tools_history.request.json"), load("ollama/ollama_docs.chat_tools_nostream.response.json")),
    "cohere": (load("cohere/pai_test_tool_choice_matrix_auto_cohere.1.request.json"), load("cohere/pai_test_tool_choice_matrix_auto_cohere.0.response.json")),
}
# A Responses response the SDK accepts: the 2025 recording with the usage field the SDK now requires
# and without ``store``, which the SDK's ``Response`` no longer has.
_resp = load("openai_responses/pai_openai_responses_thinking_with_tool_calls.0.response.json")
_resp["usage"]["input_tokens_details"]["cache_write_tokens"] = 0
del _resp["store"]
VALID["openai-responses"] = (VALID["openai-responses"][0], _resp)

# (target, request or response, JSON pointer of an object inside, a required key of it, a key with a typed value)
NESTED = {
    ("openai-chat", "request"): ("/messages/1", "role", "content"),
    ("openai-chat", "response"): ("/choices/0/message/tool_calls/0/function", "name", "arguments"),
    ("openai-responses", "request"): ("/tools/0", "strict", "name"),
    ("openai-responses", "response"): ("/output/1", "call_id", "name"),
    ("anthropic", "request"): ("/messages/1/content/1", "id", "name"),
    ("anthropic", "response"): ("/content/1", "id", "name"),
    ("gemini", "request"): ("/tools/0/functionDeclarations/0", None, "name"),
    ("gemini", "response"): ("/usageMetadata", None, "promptTokenCount"),
    ("ollama", "request"): ("/messages/1/tool_calls/0/function", "name", "name"),
    ("ollama", "response"): ("/message/tool_calls/0/function", "name", "name"),
    ("cohere", "request"): ("/messages/1/tool_calls/0", "id", "id"),
    ("cohere", "response"): ("/message/tool_calls/0", "id", "id"),
}


def at(body: Any, pointer: str) -> Any:
    for part in pointer.strip("/").split("/"):
        body = body[int(part)] if isinstance(body, list) else body[part]
    return body


def check(target: str, kind: str, body: Any) -> list[str]:
    return check_request(target, body) if kind == "request" else check_response(target, body)


CASES = [(t, k) for t in TARGETS for k in ("request", "response")]


@pytest.mark.parametrize(("target", "kind"), CASES)
def test_a_valid_recorded_body_passes(target: str, kind: str) -> None:
    body = VALID[target][0 if kind == "request" else 1]
    assert check(target, kind, body) == []


@pytest.mark.parametrize(("target", "kind"), CASES)
def test_an_unknown_key_is_refused_at_the_top_and_nested(target: str, kind: str) -> None:
    body = copy.deepcopy(VALID[target][0 if kind == "request" else 1])
    top = dict(body, interlingua_bogus=1)
    assert any("interlingua_bogus" in p for p in check(target, kind, top)), "top-level unknown key accepted"
    pointer, _, _ = NESTED[(target, kind)]
    at(body, pointer)["interlingua_bogus"] = 1
    problems = check(target, kind, body)
    assert any("interlingua_bogus" in p for p in problems), f"unknown key at {pointer} accepted"


@pytest.mark.parametrize(("target", "kind"), [c for c in CASES if NESTED[c][1] is not None])
def test_a_missing_required_key_is_refused(target: str, kind: str) -> None:
    body = copy.deepcopy(VALID[target][0 if kind == "request" else 1])
    pointer, required, _ = NESTED[(target, kind)]
    del at(body, pointer)[required]
    problems = check(target, kind, body)
    assert any(required in p and "missing" in p for p in problems), problems


@pytest.mark.parametrize(("target", "kind"), CASES)
def test_a_wrong_type_is_refused(target: str, kind: str) -> None:
    body = copy.deepcopy(VALID[target][0 if kind == "request" else 1])
    pointer, _, typed = NESTED[(target, kind)]
    at(body, pointer)[typed] = 12345 if isinstance(at(body, pointer)[typed], str) else "12345"
    assert check(target, kind, body) != []


def test_strict_mode_refuses_coercible_values() -> None:
    body = copy.deepcopy(VALID["openai-chat"][0])
    body["temperature"] = "0.5"  # lax pydantic would coerce it
    assert check_request("openai-chat", body) == ["/temperature: float_type: Input should be a valid number"]
    body["temperature"] = 0.5
    body["parallel_tool_calls"] = 1
    assert check_request("openai-chat", body) == ["/parallel_tool_calls: bool_type: Input should be a valid boolean"]


def test_lists_are_validated_item_by_item() -> None:
    """The SDK declares ``messages: Iterable[...]``, which pydantic validates lazily (not at all on
    ``validate_python``); the oracle rebuilds it as a list so every message is checked."""
    body = copy.deepcopy(VALID["openai-chat"][0])
    body["messages"].append({"role": "user", "content": "x", "interlingua_bogus": 1})
    assert any("/messages/" in p and "interlingua_bogus" in p for p in check_request("openai-chat", body))


def test_required_keys_come_from_the_evaluated_annotations() -> None:
    """Under ``from __future__ import annotations`` ``__required_keys__`` misses every ``Required[...]``
    (this is why the oracle computes them)."""
    from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
    from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming
    from openai.types.responses import FunctionToolParam, ResponseInputImageParam
    from openai.types.responses.response_create_params import ResponseCreateParamsStreaming

    assert CompletionCreateParamsNonStreaming.__required_keys__ == frozenset()  # wrong, as the issue says
    assert required_keys(CompletionCreateParamsNonStreaming) == {"messages", "model"}
    assert required_keys(FunctionToolParam) == {"name", "parameters", "strict", "type"}
    assert "detail" in required_keys(ResponseInputImageParam)
    assert required_keys(ResponseCreateParamsStreaming) == {"stream"}
    assert required_keys(MessageCreateParamsNonStreaming) == {"max_tokens", "messages", "model"}


def test_union_errors_name_the_branch_the_body_meant() -> None:
    body = copy.deepcopy(VALID["openai-responses"][0])
    del body["tools"][0]["strict"]
    assert check_request("openai-responses", body) == ["/tools/0/strict: missing: Field required"]


def test_gemini_keys_must_be_the_rest_names() -> None:
    """google-genai models take both spellings; a body must use the REST camelCase names."""
    body = copy.deepcopy(GEMINI_REQUEST)
    body["generationConfig"]["thinkingConfig"] = {"include_thoughts": True}
    assert check_request("gemini", body) == [
        "/generationConfig/thinkingConfig/include_thoughts: extra_forbidden: snake_case key 'include_thoughts': the REST name is 'includeThoughts'"
    ]
    response = copy.deepcopy(VALID["gemini"][1])
    response["usage_metadata"] = response.pop("usageMetadata")
    assert any("usage_metadata" in p for p in check_response("gemini", response))
    # The recordings themselves use the SDK's snake_case (pydantic-ai sends them through google-genai).
    assert any("parameters_json_schema" in p for p in check_request("gemini", load("gemini/pai_google_thinking_part.0.request.json")))


def test_gemini_request_needs_contents() -> None:
    assert check_request("gemini", {"systemInstruction": {"parts": [{"text": "x"}]}}) == ["/contents: missing: Field required"]


def test_ollama_server_keys_are_accepted_only_where_the_server_has_them() -> None:
    body = copy.deepcopy(VALID["ollama"][0])
    body["messages"][2]["tool_call_id"] = "call_1"
    body["messages"][1]["tool_calls"][0]["id"] = "call_1"
    assert check_request("ollama", body) == []
    body["messages"][1]["tool_calls"][0]["function"]["id"] = "call_1"
    assert check_request("ollama", body) != []


def test_ollama_images_must_be_standard_base64() -> None:
    body = copy.deepcopy(load("ollama/ollama_docs.chat_images.request.json"))
    assert check_request("ollama", body) == []
    body["messages"][0]["images"] = ["iVBORw0K-_"]
    assert check_request("ollama", body) == ["/messages/0/images/0: image: not a base64 string"]


def test_ollama_messages_and_options_are_checked_against_the_typed_branches() -> None:
    """``ChatRequest.messages`` also takes any ``Mapping``; the oracle checks the ``Message`` branch."""
    body = copy.deepcopy(VALID["ollama"][0])
    body["messages"][0]["interlingua_bogus"] = 1
    body["options"] = {"num_predict": "many"}
    problems = check_request("ollama", body)
    assert any("/messages/0/interlingua_bogus" in p for p in problems) and any(p.startswith("/options/num_predict") for p in problems)
