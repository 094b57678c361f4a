"""Item fields a response body has no place for are reported, not dropped silently (issue 30, ADR 0044).

Each class the response-direction property test (``test_response_item_field_tables.py``) found, on a real
recorded response: the response is decoded, the field is set as a transcript carries it (a prompt-cache
breakpoint kept from the request the text was later sent in; an error item from another provider), and
``encode_response`` must write the same body as without the field and say what it left out.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from interlingua.items import CacheBreakpoint, ErrorItem, TextItem
from interlingua.mapping import ModelResponse, get_mapper
from interlingua.providers.openai_chat import DIALECTS, OpenAIChatMapper

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"


def _body(path: str) -> dict[str, Any]:
    return json.loads((REAL / path).read_text())


def _with_breakpoint(response: ModelResponse) -> tuple[ModelResponse, list[int]]:
    """``response`` with a breakpoint on each text item (and the indexes of those), the input left unchanged."""
    items = [msgspec.structs.replace(i, cache_breakpoint=CacheBreakpoint(ttl="5m")) if isinstance(i, TextItem) else i for i in response.items]
    marked = [n for n, i in enumerate(items) if isinstance(i, TextItem)]
    assert marked, "the fixture has a text item"
    return ModelResponse(items, response.usage, response.stop_reason, response.model, response.response_id, response.provider_data), marked


def _breakpoint_entries(report: Any) -> list[Any]:
    return [e for e in report if e.action == "dropped" and "prompt-cache breakpoint" in e.reason]


CASES = [
    ("gemini", get_mapper("gemini"), "gemini/pai_google_thinking_part.0.response.json"),
    ("openai-chat", get_mapper("openai-chat"), "openai_chat/openai_python.completion_text.response.json"),
    ("openai-chat-tools", get_mapper("openai-chat"), "openai_chat/pai_openai_instructions_with_tool_calls.1.response.json"),
    ("mistral", get_mapper("mistral"), "mistral/pai_mistral_image_as_binary_content_tool_response.1.response.json"),
    *[(f"openai-chat:{d}", OpenAIChatMapper(dialect=d), "openai_chat/openai_python.completion_text.response.json") for d in DIALECTS if d not in ("openai", "mistral")],
]


@pytest.mark.parametrize(("mapper", "fixture"), [(m, f) for _, m, f in CASES], ids=[c[0] for c in CASES])
def test_a_cache_breakpoint_a_response_body_cannot_hold_is_reported(mapper: Any, fixture: str) -> None:
    """Gemini parts and a chat.completion message (content a string) have no cache_control: the body is the
    one written without the breakpoint, and the report names each text item whose breakpoint was left out."""
    response = mapper.decode_response(_body(fixture)).value
    marked, indexes = _with_breakpoint(response)
    before = msgspec.json.encode(marked.items)
    plain = mapper.encode_response(response, policy="degrade")
    conv = mapper.encode_response(marked, policy="degrade")
    assert conv.value == plain.value
    entries = _breakpoint_entries(conv.report)
    assert [e.index for e in entries] == indexes
    assert all(e.item_type == "text" for e in entries)
    assert not _breakpoint_entries(plain.report)
    assert msgspec.json.encode(marked.items) == before  # the input is not changed


def test_the_breakpoint_stays_where_a_response_body_holds_it() -> None:
    """Anthropic and Bedrock response bodies write it back (cache_control / cachePoint) and read it again: no report."""
    for name, fixture in (("anthropic", "gemini/pai_google_thinking_part.0.response.json"),):
        response = get_mapper("gemini").decode_response(_body(fixture)).value
        marked, indexes = _with_breakpoint(response)
        mapper = get_mapper(name)
        conv = mapper.encode_response(marked, policy="degrade")
        assert not _breakpoint_entries(conv.report)
        back = mapper.decode_response(conv.value).value.items
        assert [i.cache_breakpoint for i in back if isinstance(i, TextItem)] == [CacheBreakpoint(ttl="5m")] * len(indexes)


def _error(body: dict[str, Any], fmt: str) -> ErrorItem:
    (item,) = get_mapper(fmt).decode_response(body).value.items
    assert isinstance(item, ErrorItem)
    return item


def test_an_error_item_a_gemini_error_body_cannot_keep_is_reported() -> None:
    """Ollama's documented error body, as a Gemini error body: its code has no status of its own there (read
    back as the 500's `server`, retryable), and the report says so; Gemini's own error item goes back unreported."""
    item = _error(_body("ollama/ollama_docs.error.response.json"), "ollama")
    gemini = get_mapper("gemini")
    conv = gemini.encode_response(ModelResponse(items=[item]), policy="error")
    assert conv.value["error"]["code"] == 500 and conv.value["error"]["status"] == "INTERNAL"
    (entry,) = conv.report
    assert entry.action == "changed" and entry.index == 0 and entry.item_type == "error"
    assert "code 'provider_error' (read back as 'server')" in entry.reason and "retryable False (read back as True)" in entry.reason
    own = _error(conv.value, "gemini")
    again = gemini.encode_response(ModelResponse(items=[own]), policy="error")
    assert again.value == gemini.encode_response(ModelResponse(items=[own])).value and not again.report
    assert {k: again.value["error"][k] for k in ("code", "status")} == {"code": 500, "status": "INTERNAL"}


def test_an_error_item_an_ollama_error_body_cannot_keep_is_reported() -> None:
    """A Gemini error item (code, retryable, HTTP status) as Ollama's {error: text}: all three are reported;
    Ollama's own documented error goes back as it was, unreported."""
    ollama = get_mapper("ollama")
    docs = _body("ollama/ollama_docs.error.response.json")
    own = _error(docs, "ollama")
    same = ollama.encode_response(ModelResponse(items=[own]), policy="error")
    assert not same.report
    gemini_body = get_mapper("gemini").encode_response(ModelResponse(items=[own])).value
    item = _error(gemini_body, "gemini")
    conv = ollama.encode_response(ModelResponse(items=[item]), policy="error")
    assert conv.value == {"error": item.message}
    (entry,) = conv.report
    assert entry.action == "changed" and entry.index == 0
    for lost in ("code 'server'", "retryable True", "status 500"):
        assert lost in entry.reason


def test_an_error_item_a_responses_error_object_cannot_keep_is_reported() -> None:
    """Ollama's documented error, by way of a Gemini error body (code server, retryable, HTTP 500), as a
    Responses error object {code, message}: the code is written (server_error), the HTTP status has no place
    and is reported; the Responses API's own error item goes back unreported."""
    gemini_body = get_mapper("gemini").encode_response(ModelResponse(items=[_error(_body("ollama/ollama_docs.error.response.json"), "ollama")])).value
    item = _error(gemini_body, "gemini")
    responses = get_mapper("openai-responses")
    conv = responses.encode_response(ModelResponse(items=[item]), policy="error")
    assert conv.value["status"] == "failed" and conv.value["error"]["code"] == "server_error"
    (entry,) = conv.report
    assert entry.action == "changed" and entry.index == 0 and entry.reason.endswith("does not keep the item's status 500")
    own = _error(conv.value, "openai-responses")
    assert not responses.encode_response(ModelResponse(items=[own]), policy="error").report
