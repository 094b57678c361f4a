"""Fixtures for the transport tests: a scripted local server and a small transcript."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from interlingua.codec import decode_transcript
from interlingua.items import Transcript

from ._server import Reply, ScriptedServer

REAL = Path(__file__).parent.parent / "fixtures" / "real"

SENTINEL = "sk-SENTINEL-7f3a9c1e-do-not-leak"

# provider -> (recorded stream file, response media type)
STREAMS = {
    "openai-chat": ("openai_chat/openai_python.stream_text.sse", "text/event-stream"),
    "openai-responses": ("openai_responses/pai_openai_responses_stream.1.response.sse", "text/event-stream"),
    "anthropic": ("anthropic/anthropic_sdk.basic_response.sse", "text/event-stream"),
    "gemini": ("gemini/pai_google_streaming_tool_call_thought_signature.1.response.sse", "text/event-stream"),
    "ollama": ("ollama/ollama_docs.chat_stream_text.response.ndjson", "application/x-ndjson"),
}

RESPONSES = {
    "openai-chat": "openai_chat/openai_python.completion_text.response.json",
    "openai-responses": "openai_responses/pai_openai_responses_thinking_with_tool_calls.1.response.json",
    "anthropic": "anthropic/pai_anthropic_parallel_tool_calls.1.response.json",
    "gemini": "gemini/pai_google_thinking_part.1.response.json",
    "ollama": "ollama/ollama_docs.chat_tools_nostream.response.json",
}


def chunks_of(data: bytes, size: int = 97) -> list[bytes]:
    """Cut ``data`` at arbitrary byte offsets (not event boundaries)."""
    return [data[i : i + size] for i in range(0, len(data), size)]


def stream_reply(provider: str, **kw: object) -> Reply:
    path, media = STREAMS[provider]
    return Reply(200, headers={"content-type": media}, chunks=chunks_of((REAL / path).read_bytes()), **kw)  # type: ignore[arg-type]


@pytest.fixture
def transcript() -> Transcript:
    return decode_transcript(b'{"schema_version":"1.0","items":[{"type":"text","role":"system","text":"Be brief."},{"type":"text","role":"user","text":"hi"}]}')


@pytest.fixture
def serve() -> Iterator[object]:
    """``serve(replies) -> ScriptedServer`` started for the test, stopped after it."""
    started: list[ScriptedServer] = []

    def start(replies: list[Reply]) -> ScriptedServer:
        srv = ScriptedServer(replies).__enter__()
        started.append(srv)
        return srv

    yield start
    for srv in started:
        srv.__exit__(None, None, None)
