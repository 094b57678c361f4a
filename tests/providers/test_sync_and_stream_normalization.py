"""A non-streamed response and the stream of the same exchange decode to the same transcript (issue 25).

True pairs: a Responses stream ends with ``response.completed`` holding the whole response body, so the
accumulated stream and ``decode_response`` of that body must be equal (items, usage, stop reason, model, id
and ``provider_data``). Chat Completions streams hold no such body: there the pairs recorded side by side
(openai-python's ``completion_*`` and ``stream_*`` fixtures) must keep the same fields, and every
response-level field of a recorded stream's chunks (``created``, ``system_fingerprint``, ``service_tier``,
gateway fields) must be in the accumulated response, as the non-stream decoder keeps the body's.
"""

from __future__ import annotations

import json
import os
import tarfile
from pathlib import Path
from typing import Any

import pytest

from interlingua.codec import to_builtins
from interlingua.mapping import get_mapper
from interlingua.mapping.protocol import ModelResponse
from interlingua.streaming import StreamDone, collect

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"
CORPUS = Path(os.environ.get("INTERLINGUA_CORPUS") or REAL.parents[3] / "shared" / "corpus") / "corpus.tar.xz"


@pytest.fixture(scope="module")
def corpus_streams(tmp_path_factory: pytest.TempPathFactory) -> Path | None:
    """The corpus's recorded streams, unpacked once for this module (``None`` without the corpus)."""
    if not CORPUS.exists():
        return None
    dest = tmp_path_factory.mktemp("streams")
    with tarfile.open(CORPUS) as tar:
        members = [m for m in tar.getmembers() if m.name.endswith(".sse")]
        tar.extractall(dest, members=members, filter="data")
    return dest


def _corpus_streams(fmt: str, root: Path | None) -> list[Path]:
    return sorted((root / fmt).glob("*.sse")) if root is not None else []


def _final(fmt: str, data: bytes) -> ModelResponse:
    events = collect(get_mapper(fmt), data)
    assert isinstance(events[-1], StreamDone), events[-1]
    return events[-1].response  # type: ignore[return-value]


def _unspelled(value: Any) -> Any:
    """``value`` without the source's kept spelling (``wire_spelling``, ADR 0027): a decoded body keeps how
    its client wrote it; a stream has no such body. The canonical values are what must agree."""
    if isinstance(value, dict):
        return {k: _unspelled(v) for k, v in value.items() if k != "wire_spelling"}
    if isinstance(value, list):
        return [_unspelled(v) for v in value]
    return value


def _same(a: ModelResponse, b: ModelResponse) -> dict[str, Any]:
    fields = ("items", "usage", "stop_reason", "model", "response_id", "provider_data")
    plain = {f: (_unspelled(to_builtins(getattr(a, f))), _unspelled(to_builtins(getattr(b, f)))) for f in fields}
    return {f: pair for f, pair in plain.items() if pair[0] != pair[1]}


def _completed(data: bytes) -> dict[str, Any] | None:
    for line in data.decode("utf-8").splitlines():
        if line.startswith("data:") and '"response.completed"' in line:
            return json.loads(line[5:])["response"]  # type: ignore[no-any-return]
    return None


def test_responses_stream_and_its_completed_body_decode_the_same(corpus_streams: Path | None) -> None:
    paths = sorted(REAL.glob("openai_responses/*.sse")) + _corpus_streams("openai-responses", corpus_streams)
    mapper = get_mapper("openai-responses")
    pairs = 0
    for path in paths:
        data = path.read_bytes()
        body = _completed(data)
        if body is None:
            continue
        pairs += 1
        assert _same(_final("openai-responses", data), mapper.decode_response(body).value) == {}, path.name
    assert pairs >= 2


@pytest.mark.parametrize("kind", ["text", "refusal", "parallel_tool_calls"])
def test_chat_completion_and_stream_recorded_side_by_side_keep_the_same_fields(kind: str) -> None:
    mapper = get_mapper("openai-chat")
    sync = mapper.decode_response(json.loads((REAL / f"openai_chat/openai_python.completion_{kind}.response.json").read_text())).value
    stream = _final("openai-chat", (REAL / f"openai_chat/openai_python.stream_{kind}.sse").read_bytes())

    def shape(r: ModelResponse) -> dict[str, list[str]]:
        return {part: sorted(v) for part, v in _unspelled(to_builtins(r.provider_data or {}))["openai-chat"].items()}

    assert shape(sync) == shape(stream) == {"body": ["created", "object", "system_fingerprint"], "choice": ["logprobs"]}


_CHUNK_ONLY = {"id", "model", "choices", "usage", "object", "obfuscation"}


def test_every_chat_stream_keeps_its_chunks_response_level_fields(corpus_streams: Path | None) -> None:
    paths = sorted(REAL.glob("openai_chat/*.sse")) + sorted(REAL.glob("openrouter/*.sse")) + _corpus_streams("openai-chat", corpus_streams)
    checked = 0
    for path in paths:
        data = path.read_bytes()
        expected: dict[str, Any] = {}
        for line in data.decode("utf-8").splitlines():
            if not line.startswith("data:") or line[5:].strip() in ("", "[DONE]"):
                continue
            chunk = json.loads(line[5:])
            if not isinstance(chunk, dict) or "error" in chunk:
                continue
            for key, value in chunk.items():
                if key not in _CHUNK_ONLY and (value is not None or key not in expected):
                    expected[key] = value
        events = collect(get_mapper("openai-chat"), data)
        if not isinstance(events[-1], StreamDone):
            continue
        kept = ((events[-1].response.provider_data or {}).get("openai-chat") or {}).get("body") or {}
        assert set(expected) <= set(kept), f"{path.name}: {sorted(set(expected) - set(kept))}"
        for key in ("created", "system_fingerprint", "service_tier"):
            if key in expected:
                assert kept[key] == expected[key], (path.name, key)
        checked += 1
    assert checked >= 4


def _fields_kept(fmt: str, response: ModelResponse) -> set[str]:
    return {f"{part}.{k}" for part, v in ((response.provider_data or {}).get(fmt) or {}).items() if isinstance(v, dict) for k in v}


@pytest.mark.parametrize(
    ("fmt", "stream", "fields"),
    [
        # a code-execution stream: message_delta carries the container, as a non-stream Message's top level does
        ("anthropic", "anthropic/pai__test_anthropic__test_anthropic_code_execution_tool_stream.0.response.sse", {"body.container"}),
        # compaction: message_delta's context_management
        ("anthropic", "anthropic/pai__test_anthropic__test_anthropic_compaction_usage_with_cache_streaming.0.response.sse", {"body.context_management"}),
        # Vertex: every chunk carries createTime, as the non-stream GenerateContentResponse does
        ("gemini", "gemini/pai__test_google__test_google_vertex_service_tier_flex_stream.0.response.sse", {"body.createTime"}),
    ],
)
def test_anthropic_and_gemini_streams_keep_the_fields_their_non_stream_bodies_keep(corpus_streams: Path | None, fmt: str, stream: str, fields: set[str]) -> None:
    if corpus_streams is None:
        pytest.skip("corpus not available")
    data = (corpus_streams / stream).read_bytes()
    kept = _fields_kept(fmt, _final(fmt, data))
    assert fields <= kept
    # the same field in a recorded non-stream body is kept under the same name by decode_response
    mapper = get_mapper(fmt)
    field = next(iter(fields)).split(".", 1)[1]
    body = {"anthropic": {"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": [], "stop_reason": "end_turn", "usage": {"input_tokens": 1, "output_tokens": 1}},
            "gemini": {"candidates": [{"content": {"parts": [{"text": "x"}], "role": "model"}, "finishReason": "STOP"}]}}[fmt]
    streamed = ((_final(fmt, data).provider_data or {})[fmt])["body"][field]
    assert next(iter(fields)) in _fields_kept(fmt, mapper.decode_response({**body, field: streamed}).value)
