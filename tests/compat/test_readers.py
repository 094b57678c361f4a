"""Each stored format, from realistic examples, to the expected canonical transcript.

The examples under ``examples/`` are written from each format's documentation and public
types (file names say the format); the canonical forms are syrupy snapshots, checked by eye.
Beside the snapshot, each test states the properties that matter: the format is detected,
thinking signatures and provider ids are preserved, tool calls link to results by id, the
input is not mutated, and the session id depends only on the content.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from interlingua.codec import decode_transcript, encode_transcript, to_builtins
from interlingua.compat import FORMATS, Migrated, detect_format, read, read_any, session_id_for
from interlingua.items import ReasoningItem, ToolCallItem, ToolResultItem

EXAMPLES = Path(__file__).parent / "examples"

CASES = {
    "openai_chat.json": "openai-chat",
    "openai_chat_legacy.json": "openai-chat",
    "anthropic.json": "anthropic",
    "gemini.json": "gemini",
    "ollama.json": "ollama",
    "openai_responses.json": "openai-responses",
    "pydantic_ai.json": "pydantic-ai",
    "pydantic_ai_legacy.json": "pydantic-ai",
    "langchain.json": "langchain",
    "langchain_legacy_openai.json": "langchain",
    "bedrock_converse.json": "bedrock-converse",
    "cohere.json": "cohere",
}


def load(name: str) -> Any:
    return json.loads((EXAMPLES / name).read_text(encoding="utf-8"))


def linked(m: Migrated) -> None:
    """Every tool result answers a call that precedes it, by id."""
    seen: set[str] = set()
    for item in m.transcript.items:
        if isinstance(item, ToolCallItem):
            assert item.id not in seen, f"duplicate call id {item.id}"
            seen.add(item.id)
        if isinstance(item, ToolResultItem):
            assert item.call_id in seen, f"result {item.call_id} answers no earlier call"


@pytest.mark.parametrize("name", sorted(CASES))
def test_example_reads_to_the_snapshot(name: str, snapshot) -> None:
    obj = load(name)
    before = copy.deepcopy(obj)
    assert detect_format(obj) == CASES[name]
    m = read_any(obj)
    assert obj == before, "the reader mutated its input"
    assert m.format == CASES[name]
    linked(m)
    # The result is a valid canonical document.
    assert decode_transcript(encode_transcript(m.transcript), mode="strict") == m.transcript
    assert {"transcript": to_builtins(m.transcript), "report": [str(e) for e in m.report]} == snapshot


@pytest.mark.parametrize("name", sorted(CASES))
def test_explicit_format_gives_the_same_result(name: str) -> None:
    obj = load(name)
    assert read(obj, CASES[name]).transcript == read_any(obj).transcript


NAMED_ONLY = {"mistral"}
"""Formats read only when named (not detected): their lists are another format's too; read from the
real fixtures below instead of an example."""


STORED = {d.name for d in (Path(__file__).parents[1] / "fixtures" / "stores").iterdir() if d.is_dir()} - {"langchain-lc"}  # every stored format, agent logs included
"""Stored-conversation formats (issue 26): read from the real files under tests/fixtures/stores/<format>/
(tests/compat/test_stored_conversations.py) instead of an example."""


def test_every_format_has_an_example() -> None:
    assert set(CASES.values()) | {"interlingua"} | NAMED_ONLY | STORED == set(FORMATS)


MISTRAL = sorted((Path(__file__).parents[1] / "fixtures" / "real" / "mistral").glob("*.request.json"))


@pytest.mark.parametrize("path", MISTRAL[:: max(1, len(MISTRAL) // 12)], ids=lambda p: p.name)
def test_mistral_bodies_and_lists_read_as_the_mapper_reads_them(path: Path) -> None:
    from interlingua import convert_request
    from interlingua.compat import read

    body = json.loads(path.read_text())
    expected = convert_request(body, source="mistral", target="canonical").value["items"]
    for obj in (body, body["messages"]):
        m = read(obj, "mistral")
        linked(m)
        items = [msgspec.to_builtins(i) for i in m.transcript.items]
        assert len(items) == len(expected) and [i["type"] for i in items] == [i["type"] for i in expected]


# ----------------------------------------------------------------- properties per format


def _reasoning(m: Migrated) -> list[ReasoningItem]:
    return [i for i in m.transcript.items if isinstance(i, ReasoningItem)]


def test_openai_chat_legacy_function_call_gets_deterministic_ids_linked_to_results() -> None:
    m = read_any(load("openai_chat_legacy.json"))
    calls = [i for i in m.transcript.items if isinstance(i, ToolCallItem)]
    results = [i for i in m.transcript.items if isinstance(i, ToolResultItem)]
    assert [c.id for c in calls] == ["call_function_2", "call_function_6"]
    assert [r.call_id for r in results] == ["call_function_2", "call_function_6"]
    # The truncated arguments stay raw, never {}.
    assert calls[1].arguments is msgspec.UNSET and calls[1].arguments_raw.startswith('{"location": "Paris')
    # The deprecated `functions` list became the transcript's tools.
    assert [t.name for t in m.transcript.tools] == ["get_current_weather"]
    assert read_any(load("openai_chat_legacy.json")).transcript == m.transcript  # deterministic


def test_anthropic_signatures_are_kept_as_opaque_state() -> None:
    obj = load("anthropic.json")
    m = read_any(obj)
    thinking, redacted = _reasoning(m)
    assert thinking.opaque.issuer == "anthropic" and thinking.opaque.value == obj["messages"][1]["content"][0]["signature"]
    assert redacted.redacted is True and redacted.opaque.value == obj["messages"][3]["content"][0]["data"]


def test_gemini_thought_signature_kept_exactly_before_its_call() -> None:
    obj = load("gemini.json")
    m = read_any(obj)
    items = m.transcript.items
    sig = next(i for i, it in enumerate(items) if isinstance(it, ReasoningItem) and it.opaque is not msgspec.UNSET)
    assert items[sig].opaque.value == obj[1]["parts"][1]["thoughtSignature"]
    assert isinstance(items[sig + 1], ToolCallItem) and items[sig + 1].name == "set_light"


def test_responses_ids_and_encrypted_reasoning_are_preserved() -> None:
    obj = load("openai_responses.json")
    m = read_any(obj)
    (reasoning,) = _reasoning(m)
    assert reasoning.origin.item_id == obj[1]["id"] and reasoning.opaque.value == obj[1]["encrypted_content"]
    call = next(i for i in m.transcript.items if isinstance(i, ToolCallItem))
    assert call.id == obj[2]["call_id"] and call.origin.item_id == obj[2]["id"]


def test_pydantic_ai_thinking_signature_and_provider_ids() -> None:
    obj = load("pydantic_ai.json")
    m = read_any(obj)
    (thinking,) = _reasoning(m)
    assert thinking.opaque.namespace == "anthropic.signature"
    assert thinking.opaque.value == obj[1]["parts"][0]["signature"]
    assert thinking.origin.response_id == obj[1]["provider_response_id"]
    call = next(i for i in m.transcript.items if isinstance(i, ToolCallItem))
    assert call.origin.model == "claude-sonnet-4-5-20250929"
    # The retry prompt answers the malformed call as an error result.
    retry = [i for i in m.transcript.items if isinstance(i, ToolResultItem) and i.is_error is True]
    assert [r.call_id for r in retry] == ["toolu_01Hq6sW2eR9tY4uI7oP1aS3d"]
    # Response-level fields are kept, not dropped.
    assert thinking.metadata["pydantic_ai"]["finish_reason"] == "tool_call"


def test_pydantic_ai_older_field_names_vendor_id_and_vendor_details() -> None:
    obj = load("pydantic_ai_legacy.json")
    m = read_any(obj)
    (thinking,) = _reasoning(m)
    assert thinking.opaque.issuer == "openai-responses" and thinking.opaque.namespace == "openai.encrypted_content"
    assert thinking.origin.item_id == "rs_67c4129a8e4c8190a1b2c3d4e5f60718"
    assert thinking.origin.response_id == "resp_67c412983a5c8190a0b1c2d3e4f50617"  # from vendor_id
    assert thinking.metadata["pydantic_ai"]["provider_details"] == {"service_tier": "default"}  # from vendor_details
    call = next(i for i in m.transcript.items if isinstance(i, ToolCallItem))
    assert call.origin.item_id == "fc_67c4129c1d2e8190b2c3d4e5f6071829"


def test_pydantic_ai_new_and_old_names_read_the_same() -> None:
    old = load("pydantic_ai_legacy.json")
    new = copy.deepcopy(old)
    for msg in new:
        if msg["kind"] == "response":
            msg["provider_details"] = msg.pop("vendor_details")
            msg["provider_response_id"] = msg.pop("vendor_id")
    assert read_any(new).transcript == read_any(old).transcript


def test_langchain_tool_calls_invalid_calls_and_thinking() -> None:
    obj = load("langchain.json")
    m = read_any(obj)
    calls = [i for i in m.transcript.items if isinstance(i, ToolCallItem)]
    assert [c.id for c in calls] == ["toolu_01Ab2Cd3Ef4Gh5Ij6Kl7Mn8O", "toolu_01Pq9Rs8Tu7Vw6Xy5Za4Bc3D"]
    # The tool_use content block duplicates tool_calls[0]: read once.
    assert calls[0].arguments == {"a": 3, "b": 12}
    # The invalid call keeps its raw text and LangChain's reason; never {}.
    assert calls[1].arguments is msgspec.UNSET and calls[1].arguments_raw == '{"a": 11, "b": 49'
    assert calls[0].origin.response_id == "msg_01Qr2St3Uv4Wx5Yz6Ab7Cd8E"
    (thinking,) = _reasoning(m)
    assert thinking.opaque.value == obj[2]["data"]["content"][0]["signature"]
    errors = [i for i in m.transcript.items if isinstance(i, ToolResultItem) and i.is_error is True]
    assert [e.call_id for e in errors] == ["toolu_01Pq9Rs8Tu7Vw6Xy5Za4Bc3D"]


def test_langchain_legacy_function_call_links_to_function_message() -> None:
    m = read_any(load("langchain_legacy_openai.json"))
    call = next(i for i in m.transcript.items if isinstance(i, ToolCallItem))
    result = next(i for i in m.transcript.items if isinstance(i, ToolResultItem))
    assert call.id == result.call_id == "call_function_1"
    assert any("archiver" in str(e) for e in m.report)  # the unknown chat role is reported, kept raw


def test_stored_request_body_and_bare_list_read_alike() -> None:
    body = load("anthropic.json")
    bare = read_any(body["messages"])
    whole = read_any(body)
    assert whole.transcript.items[1:] == bare.transcript.items  # the body adds the system prompt
    assert [t.name for t in whole.transcript.tools] == ["get_stock_price"]


# ----------------------------------------------------------------- session ids


def test_session_id_is_content_derived() -> None:
    a = read_any(load("openai_chat.json"))
    b = read_any(load("openai_chat.json"))
    assert a.session_id == b.session_id == session_id_for(a.transcript)
    assert a.session_id.startswith("mig_") and len(a.session_id) == 4 + 32
    changed = load("openai_chat.json")
    changed[-1]["content"] += "!"
    assert read_any(changed).session_id != a.session_id
