"""The corpus checker itself: each check must be able to fail (run on the real fixtures, no corpus needed)."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import msgspec
import pytest

from interlingua.mapping import Conversion, Report, get_mapper

from . import _engine
from ._engine import LOSSLESS, REPORTED, SILENT_CHANGE, SILENT_DROP

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"
ROOT = Path(__file__).resolve().parents[2]


def _load(rel: str) -> Any:
    return json.loads((REAL / rel).read_text(encoding="utf-8"))


class _Tampering:
    """A mapper whose ``encode_request``/``encode_response`` output is passed through ``tamper`` (and
    whose report gets ``entries``): the mutation the checks must catch."""

    def __init__(self, name: str, tamper: Any, entries: list[tuple[str, str, str | None, str | None]] = ()) -> None:  # type: ignore[assignment]
        self._inner = get_mapper(name)
        self._tamper = tamper
        self._entries = entries

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._inner, attr)

    def _wrap(self, conv: Conversion[dict[str, Any]]) -> Conversion[dict[str, Any]]:
        value = copy.deepcopy(conv.value)
        self._tamper(value)
        report = Report(list(conv.report))
        for action, reason, item_type, pointer in self._entries:
            report.add(action, reason, item_type=item_type, pointer=pointer)  # type: ignore[arg-type]
        return Conversion(value, report)

    def encode_request(self, *a: Any, **k: Any) -> Conversion[dict[str, Any]]:
        return self._wrap(self._inner.encode_request(*a, **k))

    def encode_response(self, *a: Any, **k: Any) -> Conversion[dict[str, Any]]:
        return self._wrap(self._inner.encode_response(*a, **k))


def _patch(monkeypatch: pytest.MonkeyPatch, name: str, tamper: Any, entries: list[Any] = []) -> None:  # noqa: B006
    real = _engine.get_mapper

    def fake(n: str) -> Any:
        return _Tampering(n, tamper, entries) if n == name else real(n)

    monkeypatch.setattr(_engine, "get_mapper", fake)


# ------------------------------------------------------------------------------------------ diffing


def test_differences_aligns_lists_so_one_dropped_element_is_one_difference() -> None:
    before = {"tools": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}
    after = {"tools": [{"name": "b"}, {"name": "c"}]}
    diffs = list(_engine.differences(before, after))
    assert [(d.pointer, d.kind) for d in diffs] == [("/tools/0", "drop")]


def test_named_follows_pointer_segments_not_string_prefixes() -> None:
    report = Report()
    report.add("dropped", "x", pointer="/messages/1")
    assert _engine.named(_engine.Difference("/messages/1/content", "drop", 1, None), report)
    assert not _engine.named(_engine.Difference("/messages/10/content", "drop", 1, None), report)


def test_classify_equivalences_and_silent_outcomes() -> None:
    fmt = "anthropic"
    base = {"system": "be brief", "messages": [{"role": "user", "content": "hi", "cache": None}]}
    same = {"system": [{"type": "text", "text": "be brief"}], "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]}
    assert _engine.classify(base, same, Report(), "c", "f", fmt=fmt).status == LOSSLESS
    dropped = {"messages": base["messages"]}
    assert _engine.classify(base, dropped, Report(), "c", "f", fmt=fmt).status == SILENT_DROP
    changed = {"system": "be long", "messages": base["messages"]}
    out = _engine.classify(base, changed, Report(), "c", "f", fmt=fmt)
    assert out.status == SILENT_CHANGE and "/system" in out.details[0]
    report = Report()
    report.add("dropped", "system prompt left out", pointer="/system")
    assert _engine.classify(base, dropped, report, "c", "f", fmt=fmt).status == REPORTED


def test_gemini_case_and_default_equivalences() -> None:
    a = {"system_instruction": {"parts": [{"text": "x"}]}, "candidates": [{"index": 0}]}
    b = {"systemInstruction": {"parts": [{"text": "x"}]}, "candidates": [{}]}
    assert _engine.classify(a, b, Report(), "c", "f", fmt="gemini").status == LOSSLESS


# ------------------------------------------------------------------------------------------ round trips


def test_request_roundtrip_of_a_real_request_is_clean_and_a_silent_drop_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    body = _load("anthropic/pai_anthropic_parallel_tool_calls.1.request.json")
    assert not _engine.check_request_roundtrip("anthropic", body, "f").failing

    def drop_last_message(value: dict[str, Any]) -> None:
        value["messages"].pop()

    _patch(monkeypatch, "anthropic", drop_last_message)
    out = _engine.check_request_roundtrip("anthropic", body, "f")
    assert out.status == SILENT_DROP and any(f"/messages/{len(body['messages']) - 1}" in d for d in out.details)


def test_request_roundtrip_catches_an_unreported_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    body = dict(_load("anthropic/pai_anthropic_parallel_tool_calls.1.request.json"), top_k=3)
    real = get_mapper("anthropic")

    class Quiet:
        def __getattr__(self, a: str) -> Any:
            return getattr(real, a)

        def decode_request(self, b: Any) -> Any:
            # the real mapper carries top_k in Transcript.settings: this one loses it without a word
            conv = real.decode_request(b)
            settings = msgspec.structs.replace(conv.value.settings, top_k=msgspec.UNSET)
            return Conversion(msgspec.structs.replace(conv.value, settings=settings), Report(list(conv.report)))

    monkeypatch.setattr(_engine, "get_mapper", lambda n: Quiet() if n == "anthropic" else real)
    out = _engine.check_request_roundtrip("anthropic", body, "f")
    assert out.status == SILENT_DROP and "/top_k" in out.details[0]


def test_response_roundtrip_catches_a_changed_tool_argument(monkeypatch: pytest.MonkeyPatch) -> None:
    body = _load("openai_chat/openai_python.completion_parallel_tool_calls.response.json")

    def tamper(value: dict[str, Any]) -> None:
        value["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = '{"city": "Elsewhere"}'

    _patch(monkeypatch, "openai-chat", tamper)
    out = _engine.check_response_roundtrip("openai-chat", body, "f")
    assert out.failing and any(d.startswith("silent change at /choices/0/message/tool_calls/0/function/arguments") for d in out.details)


def test_responses_echoed_settings_are_outside_the_response_roundtrip() -> None:
    body = _load("openai_responses/pai_openai_responses_thinking_with_tool_calls.0.response.json")
    out = _engine.check_response_roundtrip("openai-responses", body, "f")
    assert not any("/temperature" in d or "/tools" in d for d in out.details)


# ------------------------------------------------------------------------------------------ streams


@pytest.mark.parametrize(
    ("fmt", "rel", "text", "calls"),
    [
        ("anthropic", "anthropic/anthropic_sdk.tool_use_response.sse", None, 1),
        ("openai-chat", "openai_chat/openai_python.stream_parallel_tool_calls.sse", None, 2),
        ("openai-chat", "openai_chat/openai_python.stream_text.sse", True, 0),
        ("openai-responses", "openai_responses/pai_openai_responses_stream.0.response.sse", None, 1),
        ("gemini", "gemini/pai_google_streaming_tool_call_thought_signature.0.response.sse", None, 1),
    ],
)
def test_reference_accumulators_read_real_streams(fmt: str, rel: str, text: bool | None, calls: int | None) -> None:
    data = (REAL / rel).read_bytes()
    ref = _engine.REFERENCE_ACCUMULATORS[fmt](data)
    if text:
        assert ref.text.strip()
    if calls is not None:
        assert len(ref.tool_calls) == calls and all(name for name, _ in ref.tool_calls)
    assert ref.stop is not None
    assert _engine.check_stream(fmt, data, rel).status == LOSSLESS


def test_stream_check_catches_text_the_mapper_lost(monkeypatch: pytest.MonkeyPatch) -> None:
    data = (REAL / "openai_chat/openai_python.stream_text.sse").read_bytes()
    real_iter = _engine.iter_stream

    def lossy(mapper: Any, source: Any) -> Any:
        for ev in real_iter(mapper, source):
            if isinstance(ev, _engine.StreamDone):
                ev.response.items = [i for i in ev.response.items if type(i).__struct_config__.tag != "text"]  # type: ignore[attr-defined]
            yield ev

    monkeypatch.setattr(_engine, "iter_stream", lossy)
    out = _engine.check_stream("openai-chat", data, "f")
    assert out.status == SILENT_DROP and "text" in out.details[0]


def test_mistral_thinking_chunks_are_reasoning_for_the_reference() -> None:
    chunk = {"choices": [{"index": 0, "delta": {"content": [{"type": "thinking", "thinking": [{"type": "text", "text": "hmm"}]}, {"type": "text", "text": "4"}]}}]}
    data = f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode()
    ref = _engine.accumulate_openai_chat(data)
    assert (ref.reasoning, ref.text) == ("hmm", "4")


# ------------------------------------------------------------------------------------------ cross-provider


def test_extractors_find_every_kind_in_a_real_request() -> None:
    body = _load("anthropic/pai_anthropic_parallel_tool_calls.1.request.json")
    c = _engine.extract("anthropic", body)
    assert c.texts and len(c.tool_calls) >= 2 and c.tool_results


def test_cross_catches_a_silently_dropped_tool_call_and_accepts_a_reported_one(monkeypatch: pytest.MonkeyPatch) -> None:
    body = _load("anthropic/pai_anthropic_parallel_tool_calls.1.request.json")
    assert not _engine.check_cross("anthropic", body, "f").failing

    def drop_calls(value: dict[str, Any]) -> None:
        for m in value["messages"]:
            m.pop("tool_calls", None)

    _patch(monkeypatch, "openai-chat", drop_calls)
    out = _engine.check_cross("anthropic", body, "f")
    assert out.status == SILENT_DROP and any("openai-chat" in d and "tool call" in d for d in out.details)

    _patch(monkeypatch, "openai-chat", drop_calls, [("dropped", "tool calls left out", "tool_call", None)])
    assert not _engine.check_cross("anthropic", body, "f").failing


def test_cross_catches_a_dropped_image(monkeypatch: pytest.MonkeyPatch) -> None:
    body = _load("ollama/ollama_docs.chat_images.request.json")
    image = body["messages"][0]["images"][0]
    chat = {"messages": [{"role": "user", "content": [{"type": "text", "text": "what is this?"},
                                                      {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{image}"}}]}]}
    assert _engine.extract("openai-chat", chat).images == [image]
    assert not _engine.check_cross("openai-chat", chat, "f").failing

    def drop_images(value: dict[str, Any]) -> None:
        for m in value["messages"]:
            m.pop("images", None)

    _patch(monkeypatch, "ollama", drop_images)
    out = _engine.check_cross("openai-chat", chat, "f")
    assert out.status == SILENT_DROP and any("ollama" in d and "image" in d for d in out.details)


# ------------------------------------------------------------------------------------------ classes, tools


def test_gap_classes_follow_rule_order() -> None:
    o = _engine.Outcome("response-roundtrip", "f", SILENT_DROP, [
        'silent drop at /created: 1 -> (absent)', 'silent drop at /content/0/caller: {} -> (absent)', "report: x"])
    names = [name for name, _ in _engine.gap_classes(o)]
    assert names[0] == "Anthropic tool_use.caller dropped" and len(names) == 2


def test_gaps_file_renders_as_toml() -> None:
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import gen_corpus_gaps
    finally:
        sys.path.pop(0)
    text = gen_corpus_gaps.render([_engine.Outcome("stream", 'a"b.sse', SILENT_DROP, ["silent drop of reasoning: x"])])
    data = tomllib.loads(text)
    assert data["gap"][0]["files"] == ['a"b.sse'] and data["gap"][0]["issue"] == "13.3"


@pytest.mark.parametrize("tool", ["gen_corpus_gaps.py", "gen_corpus_doc.py"])
def test_tools_skip_without_the_corpus(tool: str, tmp_path: Path) -> None:
    env = {"INTERLINGUA_CORPUS": str(tmp_path), "PATH": "/usr/bin:/bin"}
    run = subprocess.run([sys.executable, f"tools/{tool}", "--check"], cwd=ROOT, capture_output=True, text=True, env=env)
    assert run.returncode == 0 and "corpus not found" in run.stderr


def test_corpus_page_names_the_public_source_only() -> None:
    text = (ROOT / "docs" / "corpus.md").read_text(encoding="utf-8")
    assert "shared" not in text and "pydantic/pydantic-ai" in text


def test_judge_fails_unlisted_failures_and_listed_files_that_pass() -> None:
    bad = _engine.Outcome("stream", "a.sse", SILENT_DROP, ["silent drop of text: x"])
    good = _engine.Outcome("stream", "b.sse", LOSSLESS)
    assert _engine.judge([bad, good], {("stream", "a.sse"): "c"}) == []
    unlisted = _engine.judge([bad], {})
    assert len(unlisted) == 1 and "not known gaps" in unlisted[0] and "a.sse" in unlisted[0]
    fixed = _engine.judge([good], {("stream", "b.sse"): "c"})
    assert len(fixed) == 1 and "gen_corpus_gaps.py" in fixed[0]
    refused = _engine.Outcome("stream", "c.sse", _engine.REFUSED, ["refused: x"])
    assert _engine.judge([refused], {}) == []


def test_a_mapper_exception_that_is_not_an_interlingua_error_is_a_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    body = _load("anthropic/pai_anthropic_parallel_tool_calls.1.request.json")

    def explode(value: dict[str, Any]) -> None:
        raise KeyError("boom")

    _patch(monkeypatch, "anthropic", explode)
    out = _engine.check_request_roundtrip("anthropic", body, "f")
    assert out.status == _engine.CRASH and "KeyError" in out.details[0]
    assert _engine.gap_classes(out)[0][0] == "crash"
