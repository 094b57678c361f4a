"""Preflight on transcripts built by hand from real recorded requests (no provider mapper needed).

The helpers below follow the canonical conventions (system text first, ``message``
keys ``m{i}``) only as far as these two fixtures need; they are not mappers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from interlingua.capabilities import check, preflight, resolve_capabilities
from interlingua.errors import CapabilityError
from interlingua.items import Base64Source, ImageItem, TextItem, ToolCallItem, ToolDefinition, ToolResultItem, Transcript

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"


def _anthropic_history(body: dict[str, Any]) -> Transcript:
    items: list[Any] = [TextItem(text=body["system"], role="system")] if isinstance(body.get("system"), str) else []
    for i, msg in enumerate(body["messages"]):
        for block in msg["content"]:
            key = f"m{i}"
            if block["type"] == "text":
                items.append(TextItem(text=block["text"], role=msg["role"], message=key))
            elif block["type"] == "tool_use":
                items.append(ToolCallItem(id=block["id"], name=block["name"], arguments=block["input"], message=key))
            elif block["type"] == "tool_result":
                content = block["content"] if isinstance(block["content"], list) else [{"type": "text", "text": block["content"]}]
                items.append(ToolResultItem(call_id=block["tool_use_id"], content=[TextItem(text=c["text"]) for c in content], message=key))
            else:  # pragma: no cover - the fixture holds only these
                raise AssertionError(block["type"])
    tools = [ToolDefinition(name=t["name"], parameters=t["input_schema"]) for t in body["tools"]]
    return Transcript(schema_version="1.0", items=items, tools=tools)


def _ollama_history(body: dict[str, Any]) -> Transcript:
    items: list[Any] = []
    for i, msg in enumerate(body["messages"]):
        items.append(TextItem(text=msg["content"], role=msg["role"], message=f"m{i}"))
        for data in msg.get("images") or []:
            items.append(ImageItem(source=Base64Source(media_type="image/png", data=data), role=msg["role"], message=f"m{i}"))
    return Transcript(schema_version="1.0", items=items)


@pytest.fixture
def parallel() -> tuple[Transcript, dict[str, Any]]:
    body = json.loads((REAL / "anthropic" / "pai_anthropic_parallel_tool_calls.1.request.json").read_text(encoding="utf-8"))
    return _anthropic_history(body), body


def test_recorded_parallel_history_fits_the_model_it_was_sent_to(parallel: tuple[Transcript, dict[str, Any]]) -> None:
    transcript, body = parallel
    caps = resolve_capabilities("anthropic", body["model"])
    preflight(transcript, caps, model=body["model"], provider="anthropic")


def test_recorded_history_without_its_tools_is_refused_where_definitions_are_required(parallel: tuple[Transcript, dict[str, Any]]) -> None:
    transcript, body = parallel
    bare = msgspec.structs.replace(transcript, tools=msgspec.UNSET)
    with pytest.raises(CapabilityError) as info:
        preflight(bare, resolve_capabilities("anthropic", body["model"]), model=body["model"], provider="anthropic")
    assert [(v.index, v.item_type) for v in info.value.violations] == [(None, "tools")]
    assert "anthropic refuses tool_use blocks without `tools`" in str(info.value)
    # A wire format that does not need definitions takes the same history.
    assert check(bare, resolve_capabilities("openai-chat", "gpt-4.1"), provider="openai-chat") == []


def test_recorded_parallel_calls_against_one_call_per_turn(parallel: tuple[Transcript, dict[str, Any]]) -> None:
    transcript, _ = parallel
    serial = msgspec.structs.replace(resolve_capabilities("anthropic", "claude-haiku-4-5"), parallel_tool_calls=False)
    found = check(transcript, serial, provider="anthropic")
    calls = [i for i, it in enumerate(transcript.items) if isinstance(it, ToolCallItem)]
    assert len(calls) == 4
    assert [v.index for v in found] == calls[1:]
    assert [v.reason.split(";")[0] for v in found] == [f"call {n} of 4 in one assistant turn (items {calls[0]}-{calls[-1]})" for n in (2, 3, 4)]


def test_recorded_tool_history_against_a_model_without_tools(parallel: tuple[Transcript, dict[str, Any]]) -> None:
    transcript, _ = parallel
    found = check(transcript, resolve_capabilities("ollama", "llama3:8b"), provider="ollama")
    tool_items = [i for i, it in enumerate(transcript.items) if isinstance(it, (ToolCallItem, ToolResultItem))]
    assert [v.index for v in found] == [*tool_items, None]
    assert found[-1].item_type == "tools"


def test_recorded_image_request_needs_a_vision_model() -> None:
    body = json.loads((REAL / "ollama" / "ollama_docs.chat_images.request.json").read_text(encoding="utf-8"))
    transcript = _ollama_history(body)
    assert check(transcript, resolve_capabilities("ollama", body["model"]), provider="ollama") == []
    found = check(transcript, resolve_capabilities("ollama", "mistral:7b"), provider="ollama")
    assert [(v.index, v.item_type) for v in found] == [(1, "image")]
