"""The issue's end-to-end promise on both backends: a transcript converted from a real provider
payload is imported, forked, exported and loaded back identical."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from interlingua.codec import encode_item
from interlingua.mapping import get_mapper
from interlingua.store import SessionStore

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"
PAYLOADS = [
    ("anthropic", "anthropic/pai_anthropic_parallel_tool_calls.1.request.json"),
    ("openai-responses", "openai_responses/pai_openai_responses_thinking_with_tool_calls.1.request.json"),
    ("gemini", "gemini/pai_google_streaming_tool_call_thought_signature.1.request.json"),
    ("openai-chat", "openai_chat/pai_openai_instructions_with_tool_calls.1.request.json"),
    ("ollama", "ollama/ollama_docs.chat_tools_history.request.json"),
]


@pytest.mark.parametrize(("fmt", "rel"), PAYLOADS, ids=[p[0] for p in PAYLOADS])
async def test_real_payload_import_fork_export_load(store: SessionStore, tmp_path: Path, fmt: str, rel: str) -> None:
    transcript = get_mapper(fmt).decode_request(json.loads((REAL / rel).read_text())).value
    items = transcript.items
    original = [encode_item(i) for i in items]
    tools = None if transcript.tools is msgspec.UNSET else transcript.tools
    choice = None if transcript.tool_choice is msgspec.UNSET else transcript.tool_choice
    sid = await store.create_session({"source": rel}, tools=tools, tool_choice=choice)
    assert await store.append(sid, items, expected_seq=-1) == len(items) - 1

    path = tmp_path / "s.jsonl"
    await store.export_jsonl(sid, path)
    imported = await store.import_jsonl(path)
    back = await store.load(imported)
    assert [encode_item(i) for i in back.items] == original
    assert (back.tools if back.tools is not msgspec.UNSET else None) == tools
    assert (back.tool_choice if back.tool_choice is not msgspec.UNSET else None) == choice

    at = len(items) // 2
    fork = await store.fork(imported, at)
    forked = await store.load(fork)
    assert [encode_item(i) for i in forked.items] == original[: at + 1]

    # The same conversation still maps back to its provider unchanged. The store does not keep the
    # transcript's generation settings yet (issue 12 item 1, session header), so they are compared apart.
    conversation = msgspec.structs.replace(transcript, settings=msgspec.UNSET)
    again = get_mapper(fmt).encode_request(back).value
    assert again == get_mapper(fmt).encode_request(conversation).value
