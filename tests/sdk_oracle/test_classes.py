"""One test per class of bodies the providers' SDK types refused, each on the real case that showed it.

Every test checks the body with the oracle, the specific field the SDK type requires, and what the
report says (a change of meaning is reported; a representation choice is not).
"""

from __future__ import annotations

import base64
import json
from typing import Any

import msgspec

from interlingua.items import Base64Source, DocumentItem, ImageItem, RefusalItem, TextItem
from interlingua.mapping import get_mapper

from .bodies import REAL, continuation, decoded_response
from .oracle import check_request, check_response


def load(rel: str) -> Any:
    return json.loads((REAL / rel).read_text(encoding="utf-8"))


def request_from(source: str, rel: str, target: str, policy: str = "drop"):
    transcript = get_mapper(source).decode_request(load(rel)).value
    return get_mapper(target).encode_request(transcript, model="gpt-5", policy=policy)


def response_to(source: str, rel: str, target: str, policy: str = "drop"):
    _, response = decoded_response(source, REAL / rel)
    assert response is not None
    return get_mapper(target).encode_response(response, policy=policy)


def requests_only(problems: list[str]) -> list[str]:
    return [p for p in problems if not p.startswith("/max_tokens")]  # Anthropic max_tokens: issue 12 item 3


# --- OpenAI Responses -----------------------------------------------------------------------------


def test_function_tool_from_another_provider_is_written_non_strict():
    """``FunctionToolParam.strict`` is Required and an omitted ``strict`` makes Responses try strict mode:
    Anthropic's (non-strict) tools are written ``strict: false``, with no report (same meaning)."""
    conv = request_from("anthropic", "anthropic/pai_anthropic_parallel_tool_calls.0.request.json", "openai-responses")
    assert check_request("openai-responses", conv.value) == []
    assert [t["strict"] for t in conv.value["tools"]] == [False] * len(conv.value["tools"]) and conv.value["tools"]
    assert not [e for e in conv.report if e.item_type == "tool"]


def test_function_tool_keeps_its_own_strict_value():
    """A source's own ``strict`` is kept: Chat's strict tool stays strict, Responses' own too."""
    chat = request_from("openai-chat", "openai_chat/pai_openai_instructions_with_tool_calls.0.request.json", "openai-responses")
    assert [t["strict"] for t in chat.value["tools"]] == [True]
    own = request_from("openai-responses", "openai_responses/pai_openai_responses_stream.0.request.json", "openai-responses")
    assert [t["strict"] for t in own.value["tools"]] == [True]
    assert check_request("openai-responses", chat.value) == [] and check_request("openai-responses", own.value) == []


def test_input_image_without_detail_is_written_auto():
    """``ResponseInputImageParam.detail`` is Required; Ollama images carry none: "auto" (the API default)
    is written, and not reported (it does not change what the model sees)."""
    body = load("ollama/ollama_docs.chat_images.request.json")
    transcript = get_mapper("ollama").decode_request(body).value
    image = next(i for i in transcript.items if isinstance(i, ImageItem))
    assert image.detail is msgspec.UNSET
    conv = get_mapper("openai-responses").encode_request(transcript, model="gpt-5")
    parts = [p for m in conv.value["input"] if isinstance(m.get("content"), list) for p in m["content"]]
    assert [p["detail"] for p in parts if p["type"] == "input_image"] == ["auto"]
    assert check_request("openai-responses", conv.value) == []
    assert not [e for e in conv.report if e.item_type == "image"]


def test_input_image_keeps_a_given_detail():
    transcript = get_mapper("ollama").decode_request(load("ollama/ollama_docs.chat_images.request.json")).value
    items = [ImageItem(source=i.source, role=i.role, detail="low", message=i.message) if isinstance(i, ImageItem) else i for i in transcript.items]
    conv = get_mapper("openai-responses").encode_request(transcript.__class__(schema_version="1.0", items=items), model="gpt-5")
    parts = [p for m in conv.value["input"] if isinstance(m.get("content"), list) for p in m["content"]]
    assert [p["detail"] for p in parts if p["type"] == "input_image"] == ["low"]


def test_assistant_refusal_from_another_provider_is_easy_assistant_text():
    """A Chat refusal continued on Responses. ``ResponseInputItemParam.Message`` has no assistant role and
    ``ResponseOutputMessageParam`` requires the provider's ``id`` and ``status``: the refusal goes as an
    ``EasyInputMessageParam`` ``{role: assistant, content: <text>}``, reported as changed."""
    rel = "openai_chat/openai_python.completion_refusal.response.json"
    _, response = decoded_response("openai-chat", REAL / rel)
    assert response is not None and any(isinstance(i, RefusalItem) for i in response.items)
    refusal = next(i for i in response.items if isinstance(i, RefusalItem))
    conv = get_mapper("openai-responses").encode_request(continuation("openai-chat", REAL / rel, response), model="gpt-5")
    assert check_request("openai-responses", conv.value) == []
    assert {"role": "assistant", "content": refusal.text} in conv.value["input"]
    assert [e.action for e in conv.report if e.item_type == "refusal"] == ["changed"]
    for policy in ("error", "drop", "degrade"):  # a representation, not a loss: every policy writes it
        assert get_mapper("openai-responses").encode_request(continuation("openai-chat", REAL / rel, response), model="gpt-5", policy=policy).value == conv.value


def test_assistant_refusal_with_a_responses_message_id_stays_a_refusal_part():
    """The same refusal with this provider's ``msg_`` id is an output message (``ResponseOutputMessageParam``)."""
    from interlingua.items import Origin, Transcript

    rel = "openai_chat/openai_python.completion_refusal.response.json"
    _, response = decoded_response("openai-chat", REAL / rel)
    assert response is not None
    refusal = next(i for i in response.items if isinstance(i, RefusalItem))
    own = msgspec.structs.replace(refusal, origin=Origin(provider="openai-responses", item_id="msg_abc"), message="m1")
    t = Transcript(schema_version="1.0", items=[TextItem(role="user", text="hi"), own])
    conv = get_mapper("openai-responses").encode_request(t, model="gpt-5")
    assert conv.value["input"][1] == {"type": "message", "role": "assistant", "id": "msg_abc", "status": "completed", "content": [{"type": "refusal", "refusal": refusal.text}]}
    assert check_request("openai-responses", conv.value) == [] and not list(conv.report)


def test_anthropic_refusal_stream_continued_on_responses():
    rel = "anthropic/anthropic_sdk.refusal_response.sse"
    _, response = decoded_response("anthropic", REAL / rel)
    assert response is not None
    conv = get_mapper("openai-responses").encode_request(continuation("anthropic", REAL / rel, response), model="gpt-5", policy="drop")
    assert check_request("openai-responses", conv.value) == []
    assert all(m.get("role") != "assistant" or isinstance(m.get("content"), str) or "id" in m for m in conv.value["input"])


def test_responses_response_body_has_every_required_field():
    """``Response.created_at``, ``parallel_tool_calls``, ``tool_choice`` and ``tools`` are required;
    an Anthropic response re-encoded as a Responses object has them."""
    conv = response_to("anthropic", "anthropic/pai_anthropic_parallel_tool_calls.0.response.json", "openai-responses")
    body = conv.value
    assert check_response("openai-responses", body) == []
    assert (body["created_at"], body["parallel_tool_calls"], body["tool_choice"], body["tools"]) == (0, True, "auto", [])
    assert body["usage"]["input_tokens_details"] == {"cached_tokens": 0, "cache_write_tokens": 0}  # both Required


def test_responses_error_code_is_one_the_sdk_takes():
    """``ResponseError.code`` is a closed Literal: Ollama's error (canonical ``provider_error``) is written
    ``server_error`` and reported as changed."""
    conv = response_to("ollama", "ollama/ollama_docs.chat_stream_final_done.json", "openai-responses")
    assert check_response("openai-responses", conv.value) == []
    from interlingua.items import ErrorItem
    from interlingua.mapping.protocol import ModelResponse

    err = ModelResponse(items=[ErrorItem(code="provider_error", message="Ollama error", retryable=False)])
    failed = get_mapper("openai-responses").encode_response(err)
    assert failed.value["status"] == "failed" and failed.value["error"]["code"] == "server_error"
    assert check_response("openai-responses", failed.value) == []
    assert [(e.action, e.item_type) for e in failed.report] == [("changed", "error")]
    limited = get_mapper("openai-responses").encode_response(ModelResponse(items=[ErrorItem(code="rate_limit", message="slow down", retryable=True)]))
    assert limited.value["error"]["code"] == "rate_limit_exceeded" and not list(limited.report)


def test_anthropic_web_search_citations_become_url_citations():
    """Anthropic ``web_search_result_location`` citations have a URL and title but no span: on Responses
    (``AnnotationURLCitation``: url, title, start_index, end_index Required) and Chat (``Annotation.url_citation``)
    they are url citations over the whole text they are on, reported as changed."""
    rel = "corpus/anthropic/pai__test_anthropic__test_anthropic_web_search_tool.0.response.json"
    _, response = decoded_response("anthropic", REAL / rel)
    assert response is not None
    cited = [i for i in response.items if isinstance(i, TextItem) and i.annotations]
    assert cited and {a.kind for i in cited for a in i.annotations} == {"web_search_result_location"}
    n = sum(len(i.annotations) for i in cited)

    responses = get_mapper("openai-responses").encode_response(response, policy="drop")
    assert check_response("openai-responses", responses.value) == []
    anns = [(p["text"], a) for o in responses.value["output"] if o["type"] == "message" for p in o["content"] if p["type"] == "output_text" for a in p["annotations"]]
    assert len(anns) == n and all(a["type"] == "url_citation" and (a["start_index"], a["end_index"]) == (0, len(text)) for text, a in anns)
    assert any("url_citation" in e.reason for e in responses.report if e.action == "changed")

    chat = get_mapper("openai-chat").encode_response(response, policy="drop")
    assert check_response("openai-chat", chat.value) == []
    chat_anns = chat.value["choices"][0]["message"]["annotations"]
    assert len(chat_anns) == n and all(a["type"] == "url_citation" and set(a["url_citation"]) == {"url", "title", "start_index", "end_index"} for a in chat_anns)
    content = chat.value["choices"][0]["message"]["content"]
    assert all(0 <= a["url_citation"]["start_index"] < a["url_citation"]["end_index"] <= len(content) for a in chat_anns)


def test_responses_url_citations_keep_their_span_on_chat():
    rel = "corpus/openai_responses/pai__test_openai_responses__test_openai_include_raw_annotations_non_streaming.0.response.json"
    src = load(rel)
    wire = [a for o in src["output"] if o["type"] == "message" for p in o["content"] for a in p.get("annotations", [])]
    assert wire and all(a["type"] == "url_citation" for a in wire)
    conv = response_to("openai-responses", rel, "openai-chat")
    assert check_response("openai-chat", conv.value) == []
    got = [a["url_citation"] for a in conv.value["choices"][0]["message"]["annotations"]]
    assert [(a["start_index"], a["end_index"], a["url"]) for a in got] == [(a["start_index"], a["end_index"], a["url"]) for a in wire]
    same = response_to("openai-responses", rel, "openai-responses")
    assert [a for o in same.value["output"] if o["type"] == "message" for p in o["content"] for a in p["annotations"]] == wire


def test_annotation_kinds_a_target_has_not_are_dropped_and_reported():
    """A Responses ``file_path`` annotation has no Chat form; an Anthropic ``char_location`` none on Responses."""
    from interlingua.items import Annotation
    from interlingua.mapping.protocol import ModelResponse

    text = TextItem(role="assistant", text="see the file", annotations=[Annotation(kind="file_path", file_id="file-1", provider_data={"index": 3})])
    chat = get_mapper("openai-chat").encode_response(ModelResponse(items=[text]))
    assert "annotations" not in chat.value["choices"][0]["message"] and [e.action for e in chat.report] == ["dropped"]
    own = get_mapper("openai-responses").encode_response(ModelResponse(items=[text]))
    assert own.value["output"][0]["content"][0]["annotations"] == [{"type": "file_path", "file_id": "file-1", "index": 3}]
    assert check_response("openai-responses", own.value) == []
    char = TextItem(role="assistant", text="quoted", annotations=[Annotation(kind="char_location", cited_text="q", document_index=0)])
    conv = get_mapper("openai-responses").encode_response(ModelResponse(items=[char]))
    assert conv.value["output"][0]["content"][0]["annotations"] == [] and [e.action for e in conv.report] == ["dropped"]


# --- Gemini ---------------------------------------------------------------------------------------


def test_gemini_url_safe_inline_data_is_standard_base64_in_the_transcript():
    """The google-genai SDK sends ``inlineData.data`` URL-safe (``-``/``_``); a canonical ``Base64Source``
    is the standard alphabet, which Ollama ``images`` (Go ``[]byte``), Anthropic ``source.data`` and data
    URLs need. Same bytes; nothing reported."""
    rel = "corpus/gemini/pai__test_google__test_google_model_document_url_input.1.request.json"
    body = load(rel)
    wire = next(p["inlineData"]["data"] for c in body["contents"] for p in c["parts"] if "inlineData" in p)
    assert "-" in wire or "_" in wire
    conv = get_mapper("gemini").decode_request(body)
    doc = next(i for i in conv.value.items if isinstance(i, DocumentItem))
    assert isinstance(doc.source, Base64Source)
    assert base64.b64decode(doc.source.data, validate=True) == base64.urlsafe_b64decode(wire)
    assert not [e for e in conv.report if e.item_type == "document"]
    for target in ("anthropic", "openai-chat", "openai-responses", "gemini"):
        out = get_mapper(target).encode_request(conv.value, model="m", policy="drop")
        # back to Gemini, the client's URL-safe spelling of the same bytes (ADR 0027)
        assert (wire if target == "gemini" else doc.source.data) in json.dumps(out.value), target
        assert requests_only(check_request(target, out.value)) == [], target


def test_gemini_schema_parameters_are_json_schema_in_the_transcript():
    """A Gemini ``parameters`` ``Schema`` uses ``Type`` names (``OBJECT``); canonical parameters are JSON
    Schema (``object``), which Ollama's ``Tool.Function.Parameters.type`` (``Literal['object']``),
    OpenAI and Anthropic take. Back to Gemini it is a ``Schema`` again, unchanged."""
    rel = "corpus/gemini/pai__test_google__test_google_model_thinking_part_iter.0.request.json"
    body = load(rel)
    decl = body["tools"][0]["functionDeclarations"][0]
    assert decl["parameters"]["type"] == "OBJECT"
    transcript = get_mapper("gemini").decode_request(body).value
    assert transcript.tools[0].parameters == {"properties": {}, "type": "object"}
    for target in ("ollama", "openai-chat", "openai-responses", "anthropic"):
        out = get_mapper(target).encode_request(transcript, model="m", policy="drop")
        assert requests_only(check_request(target, out.value)) == [], target
        assert '"OBJECT"' not in json.dumps(out.value)
    back = get_mapper("gemini").encode_request(transcript, policy="drop").value
    assert back["tools"][0]["functionDeclarations"][0] == decl


def test_gemini_schema_conversion_is_recursive_and_inverts():
    from interlingua.providers.gemini._request import json_schema_to_schema, schema_to_json_schema

    schema = {
        "type": "OBJECT",
        "properties": {"type": {"type": "STRING", "nullable": True, "enum": ["OBJECT"]}, "xs": {"type": "ARRAY", "items": {"type": "INTEGER"}}},
        "required": ["type"],
    }
    json_schema = schema_to_json_schema(schema)
    assert json_schema == {
        "type": "object",
        "properties": {"type": {"type": ["string", "null"], "enum": ["OBJECT"]}, "xs": {"type": "array", "items": {"type": "integer"}}},
        "required": ["type"],
    }
    assert json_schema_to_schema(json_schema) == schema


def test_cited_anthropic_answer_continued_on_responses_is_one_easy_message_per_text():
    """Anthropic's web-search answer is one assistant message of several cited text blocks. With no
    Responses message id it cannot be an output message; each text is an ``EasyInputMessageParam``
    (texts kept in order, message boundary and citations reported)."""
    rel = "corpus/anthropic/pai__test_anthropic__test_anthropic_web_search_tool.0.response.json"
    _, response = decoded_response("anthropic", REAL / rel)
    assert response is not None
    texts = [i.text for i in response.items if isinstance(i, TextItem)]
    conv = get_mapper("openai-responses").encode_request(continuation("anthropic", REAL / rel, response), model="gpt-5", policy="drop")
    assert check_request("openai-responses", conv.value) == []
    sent = [m["content"] for m in conv.value["input"] if m.get("role") == "assistant"]
    assert sent == [t for t in texts if t]
    actions = {(e.action, e.item_type) for e in conv.report}
    assert ("changed", "text") in actions and ("dropped", "text") in actions


def test_anthropic_server_tool_on_other_providers_is_reported():
    """An Anthropic server tool (``advisor_20260301``: no ``input_schema``) is a tool definition whose
    fields live in ``provider_data["anthropic"]``. Elsewhere it can only be a function tool without
    parameters (Responses: ``FunctionToolParam.parameters`` is Required, written ``null``); every target
    reports that the Anthropic fields are left out."""
    rel = "corpus/anthropic/pai__test_anthropic__test_anthropic_advisor_tool.0.request.json"
    assert load(rel)["tools"][0]["type"] == "advisor_20260301"
    for target in ("openai-chat", "openai-responses", "gemini", "ollama"):
        conv = request_from("anthropic", rel, target, policy="error")
        assert check_request(target, conv.value) == [], target
        assert any(e.action == "dropped" and "'anthropic'" in e.reason and "advisor" in e.reason for e in conv.report), target
    responses = request_from("anthropic", rel, "openai-responses")
    assert responses.value["tools"] == [{"type": "function", "name": "advisor", "parameters": None, "strict": False}]
    same = request_from("anthropic", rel, "anthropic")
    assert same.value["tools"] == load(rel)["tools"] and not [e for e in same.report if e.item_type in ("tool", "tools")]
