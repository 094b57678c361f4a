"""Ollama mapper on every native /api/chat fixture (tests/fixtures/real/ollama/ollama_docs.*).

The ``pai_ollama_cloud_*`` files are Ollama's OpenAI-compatible endpoint (openai-chat mapper), not tested here.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from interlingua.codec import to_builtins
from interlingua.items import ImageItem, ToolCallItem, ToolResultItem
from interlingua.providers.ollama import mapper
from interlingua.streaming import StreamDone, StreamError, TextDelta, ToolCallComplete, collect, is_terminal

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "real" / "ollama"
REQUESTS = sorted(REAL.glob("ollama_docs.*.request.json"))
RESPONSES = sorted([*REAL.glob("ollama_docs.*.response.json"), REAL / "ollama_docs.chat_stream_final_done.json"])
STREAMS = sorted(REAL.glob("ollama_docs.*.ndjson"))



def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def normalize_response(body: dict[str, Any]) -> dict[str, Any]:
    """Representation choices the response round trip ignores: ``images: null`` (``created_at`` comes back
    from the response's provider data)."""
    out = copy.deepcopy(body)
    if out.get("message", {}).get("images", 0) is None:
        del out["message"]["images"]
    return out


def test_fixture_files_present() -> None:
    assert len(REQUESTS) == 5 and len(RESPONSES) == 5 and len(STREAMS) == 3


@pytest.mark.parametrize("path", REQUESTS, ids=lambda p: p.name)
def test_request_round_trip(path: Path, snapshot: Any) -> None:
    body = load(path)
    before = copy.deepcopy(body)
    conv = mapper.decode_request(body)
    assert to_builtins(conv.value) == snapshot
    assert not conv.report  # settings are kept (issue 12), not reported
    back = mapper.encode_request(conv.value, model=body["model"])
    # a body without stream streams (Ollama's default): the round trip says so explicitly
    assert back.value == {"stream": True, **body}
    assert not back.report
    assert body == before
    assert mapper.kind_of(body) == "request"


@pytest.mark.parametrize("path", [p for p in RESPONSES if p.name != "ollama_docs.error.response.json"], ids=lambda p: p.name)
def test_response_round_trip(path: Path, snapshot: Any) -> None:
    body = load(path)
    before = copy.deepcopy(body)
    conv = mapper.decode_response(body)
    assert to_builtins(conv.value.to_transcript()) == snapshot
    assert not conv.report
    assert mapper.encode_response(conv.value).value == body  # exactly, `"images": null` included (ADR 0027)
    assert body == before
    assert mapper.kind_of(body) == "response"


def test_error_body_is_error_item() -> None:
    body = load(REAL / "ollama_docs.error.response.json")
    resp = mapper.decode_response(body).value
    (err,) = resp.items
    assert (err.code, err.provider, resp.stop_reason.reason) == ("provider_error", "ollama", "error")
    assert "failed to generate" not in err.message  # upstream text is not passed on
    assert set(mapper.encode_response(resp).value) == {"error"}


def test_history_links_tool_message_to_idless_call() -> None:
    t = mapper.decode_request(load(REAL / "ollama_docs.chat_tools_history.request.json")).value
    call = next(i for i in t.items if isinstance(i, ToolCallItem))
    result = next(i for i in t.items if isinstance(i, ToolResultItem))
    assert call.id == "ollama_m1_c0" and result.call_id == call.id and result.name == "get_weather"


def test_image_media_type_sniffed() -> None:
    t = mapper.decode_request(load(REAL / "ollama_docs.chat_images.request.json")).value
    img = next(i for i in t.items if isinstance(i, ImageItem))
    assert img.source.media_type == "image/png"


def test_tool_call_response_stop_reason() -> None:
    resp = mapper.decode_response(load(REAL / "ollama_docs.chat_tools_nostream.response.json")).value
    assert resp.stop_reason.reason == "tool_use" and resp.stop_reason.raw == "stop"
    assert resp.usage.input_tokens == 169 and resp.usage.output_tokens == 18


EQUIVALENT = {
    "ollama_docs.chat_stream_text.response.ndjson": lambda: {
        **load_lines("ollama_docs.chat_stream_text.response.ndjson")[-1],
        "message": {"role": "assistant", "content": "The"},
    },
    "ollama_docs.chat_stream_tools.response.ndjson": lambda: {
        **load_lines("ollama_docs.chat_stream_tools.response.ndjson")[-1],
        "message": {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Tokyo"}}}]},
    },
}


def load_lines(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (REAL / name).read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize("name", sorted(EQUIVALENT))
def test_stream_equals_equivalent_response(name: str, snapshot: Any) -> None:
    events = collect(mapper, (REAL / name).read_bytes())
    assert sum(is_terminal(e) for e in events) == 1
    done = events[-1]
    assert isinstance(done, StreamDone)
    expected = mapper.decode_response(EQUIVALENT[name]()).value
    assert done.response.items == expected.items
    assert done.response.usage == expected.usage and done.response.stop_reason == expected.stop_reason
    assert [e.item for e in events if isinstance(e, ToolCallComplete)] == [i for i in expected.items if isinstance(i, ToolCallItem)]
    assert to_builtins(done.response.to_transcript()) == snapshot


@pytest.mark.parametrize("name", sorted(EQUIVALENT))
def test_stream_cut_at_every_line_is_truncated(name: str) -> None:
    raw = (REAL / name).read_bytes()
    lines = raw.splitlines(keepends=True)
    for cut in range(len(lines)):
        out = collect(mapper, b"".join(lines[:cut]))
        assert sum(is_terminal(e) for e in out) == 1
        assert isinstance(out[-1], StreamError) and out[-1].error.code == "truncated", cut
    # the done line cut in half is not valid JSON: an error, never success
    half = b"".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2]
    assert isinstance(collect(mapper, half)[-1], StreamError)


@pytest.mark.parametrize("name", sorted(EQUIVALENT))
def test_last_line_without_trailing_newline_is_read(name: str) -> None:
    raw = (REAL / name).read_bytes().rstrip(b"\n")
    assert not raw.endswith(b"\n")
    assert isinstance(collect(mapper, raw)[-1], StreamDone)
    # and byte by byte
    assert isinstance(collect(mapper, [raw[i : i + 1] for i in range(len(raw))])[-1], StreamDone)


def test_midstream_error_line_is_stream_error() -> None:
    events = collect(mapper, (REAL / "ollama_docs.generate_stream_midstream_error.ndjson").read_bytes())
    last = events[-1]
    assert isinstance(last, StreamError) and last.error.code == "provider_error"
    assert "encountered" not in last.error.message
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == " Yes.Ican"
    assert [i.text for i in last.partial.items] == [" Yes.Ican"]
    assert sum(is_terminal(e) for e in events) == 1


@pytest.mark.parametrize("path", sorted(REAL.glob("pai_ollama_cloud_*.request.json")), ids=lambda p: p.name)
def test_an_openai_compatible_request_read_as_ollama_names_its_format(path: Path) -> None:
    """Ollama Cloud's ``/v1/chat/completions`` requests (``tool_choice``: a Chat Completions field that
    ``ollama._types.ChatRequest`` lacks) are not ``/api/chat`` bodies: read as ``ollama`` they are refused
    with the hint to read them as ``openai-chat``, as their responses already were."""
    from interlingua import convert_request
    from interlingua.errors import FormatMismatchError

    body = json.loads(path.read_text())
    assert mapper.kind_of(body) is None
    with pytest.raises(FormatMismatchError) as info:
        convert_request(body, source="ollama", target="ollama")
    assert info.value.likely == "openai-chat"
    assert convert_request(body, source="openai-chat", target="openai-chat").value == body


def test_native_requests_are_still_ollama_requests() -> None:
    native = [p for p in sorted(REAL.glob("*.request.json")) if not p.name.startswith("pai_ollama_cloud_")]
    assert native
    for path in native:
        assert mapper.kind_of(json.loads(path.read_text())) == "request", path.name
