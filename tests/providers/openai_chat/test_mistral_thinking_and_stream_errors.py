"""Issue 13 item 3: Mistral ``thinking`` content chunks (stream and non-stream) become reasoning and
come back exactly; an error chunk in an OpenAI-compatible stream fails without a format hint."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.items import ReasoningItem, TextItem
from interlingua.mapping.registry import get_mapper
from interlingua.streaming import StreamDone, StreamError, iter_stream
from interlingua.streaming.events import ReasoningDelta, TextDelta

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "real" / "openai_compatible"
chat = get_mapper("openai-chat")


def _sse_reference(data: bytes) -> tuple[str, str]:
    """Thinking and text of the raw events, joined independently of the mapper."""
    thinking, text = [], []
    for line in data.decode().splitlines():
        if not line.startswith("data: ") or line == "data: [DONE]":
            continue
        content = json.loads(line[6:])["choices"][0]["delta"].get("content")
        if isinstance(content, str):
            text.append(content)
        for chunk in content if isinstance(content, list) else []:
            thinking += [t["text"] for t in chunk["thinking"]]
    return "".join(thinking), "".join(text)


def test_mistral_stream_thinking_chunks_become_reasoning() -> None:
    data = (REAL / "pai_mistral_thinking_part_iter.0.response.sse").read_bytes()
    want_thinking, want_text = _sse_reference(data)
    assert want_thinking.startswith("Okay, the user is asking how to cross the") and want_text
    events = list(iter_stream(chat, data))
    assert "".join(e.text for e in events if isinstance(e, ReasoningDelta)) == want_thinking
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == want_text
    done = events[-1]
    assert isinstance(done, StreamDone) and not done.report
    reasoning, text = done.response.items
    assert isinstance(reasoning, ReasoningItem) and reasoning.text == want_thinking
    assert isinstance(text, TextItem) and text.text == want_text
    # written back as Mistral sent it: one thinking chunk, one text chunk
    body = chat.encode_response(done.response).value
    assert body["choices"][0]["message"]["content"] == [
        {"type": "thinking", "thinking": [{"type": "text", "text": want_thinking}]},
        {"type": "text", "text": want_text},
    ]


def test_mistral_non_stream_thinking_chunk_round_trips_exactly() -> None:
    body = json.loads((REAL / "pai_mistral_thinking_part.1.response.json").read_text())
    conv = chat.decode_response(body)
    assert not conv.report
    reasoning, text = conv.value.items
    assert isinstance(reasoning, ReasoningItem) and reasoning.text.startswith("**Analogizing crossing a river**")
    assert isinstance(text, TextItem)
    back = chat.encode_response(conv.value).value
    assert back["choices"][0]["message"]["content"] == body["choices"][0]["message"]["content"]
    # to another provider the reasoning text travels as reasoning
    for target in ("anthropic", "gemini", "openai-responses", "ollama"):
        out = get_mapper(target).encode_response(conv.value, policy="drop")
        carried = reasoning.text[:30] in json.dumps(out.value)
        assert carried or any(e.item_type == "reasoning" and e.action == "dropped" for e in out.report), target
    assert reasoning.text[:30] in json.dumps(get_mapper("gemini").encode_response(conv.value, policy="drop").value)


def test_thinking_chunk_with_several_texts_and_closed_flag_round_trips() -> None:
    content = [{"type": "thinking", "closed": True, "thinking": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}, {"type": "text", "text": "4"}]
    body = {"id": "x", "object": "chat.completion", "created": 1, "model": "magistral-small", "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}]}
    conv = chat.decode_response(body)
    assert conv.value.items[0].text == "ab"
    assert chat.encode_response(conv.value).value["choices"][0]["message"]["content"] == content
    # a thinking chunk of another shape stays raw (kept, reported)
    odd = {**body, "choices": [{**body["choices"][0], "message": {"role": "assistant", "content": [{"type": "thinking", "thinking": "plain"}]}}]}
    assert any("thinking" in e.reason for e in chat.decode_response(odd).report)


def test_error_chunk_fails_the_stream_and_the_cli_gives_no_format_hint() -> None:
    path = REAL / "pai_groq_tool_use_failed_error_streaming.0.response.sse"
    last = list(iter_stream(chat, path.read_bytes()))[-1]
    assert isinstance(last, StreamError) and last.error.code == "invalid_request"
    res = CliRunner().invoke(app, ["convert", "--from", "openai-chat", "--to", "anthropic", "--kind", "stream", str(path)])
    assert res.exit_code == 1
    assert "an error event sent by the provider" in res.stderr and "check --from" not in res.stderr
    # a stream of another format still gets the hint
    other = Path(__file__).resolve().parents[2] / "fixtures" / "real" / "anthropic"
    sse = sorted(other.glob("*.sse"))[0]
    res = CliRunner().invoke(app, ["convert", "--from", "openai-chat", "--to", "anthropic", "--kind", "stream", str(sse)])
    # (it names the format that reads the stream to its end)
    assert res.exit_code == 1 and "try --from anthropic" in res.stderr, res.stderr
