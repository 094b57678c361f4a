"""The request mappers' direct paths for the usual shapes change nothing.

OpenAI Chat's message decoder reads the usual message shapes directly (``MessageDecoder.plain``), and
Anthropic's request encoder writes the usual items directly (``_request._DIRECT``). These tests run
the real recorded requests, and generated messages and transcripts close to those shapes (extra keys,
wrong types, empty and whitespace text, ids a target refuses, provider data, cache breakpoints), once
as shipped and once through the general path only, and demand the same items or body, the same report
and the same error: a direct path may only skip work the general path would find unneeded.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interlingua.items import CacheBreakpoint, ImageItem, ReasoningItem, TextItem, ToolCallItem, ToolResultItem, Transcript, UrlSource
from interlingua.mapping import get_mapper
from interlingua.mapping.report import Report
from interlingua.providers.anthropic import _request as anthropic_request
from interlingua.providers.openai_chat._decode import MessageDecoder

U = msgspec.UNSET
REAL = Path(__file__).parent.parent / "fixtures" / "real"


def _bodies() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for path in sorted(REAL.rglob("*.json")):
        try:
            body = json.loads(path.read_text())
        except (ValueError, UnicodeDecodeError):
            continue
        if isinstance(body, dict) and isinstance(body.get("messages"), list):
            out.append((f"{path.parent.name}/{path.name}", body))
    return out


BODIES = _bodies()
CHAT_BODIES = [(n, b) for n, b in BODIES if get_mapper("openai-chat").kind_of(b) == "request"]


def _decode_both(msg: Any, index: int = 0) -> tuple[Any, Any, bool]:
    """(items and report entries read as shipped, the same through the general path, whether ``plain`` read it)."""
    results = []
    for plain in (True, False):
        report = Report()
        decoder = MessageDecoder(report, request=True)
        try:
            items: Any = decoder.message(msg, index=index, key=f"m{index}", plain=plain)
        except Exception as exc:  # noqa: BLE001 - the same failure is demanded of both
            items = ("error", type(exc).__name__, str(exc))
        results.append((items, [str(e) for e in report]))
    hit = isinstance(msg, dict) and MessageDecoder(Report(), request=True).plain(msg, "m") is not None
    return results[0], results[1], hit


def test_chat_plain_messages_read_as_the_general_path_reads_them() -> None:
    hits = 0
    for name, body in CHAT_BODIES:
        for i, msg in enumerate(body["messages"]):
            shipped, general, hit = _decode_both(msg, i)
            assert shipped == general, (name, i)
            hits += hit
    assert hits >= 50, f"only {hits} recorded messages took the direct path: the test no longer exercises it"


_IDS = st.sampled_from(["call_abc123", "toolu_01", "", "x" * 41, "id with space", 7, None])
_TEXT = st.sampled_from(["hello", "", "  ", "\n", "{\"a\": 1}"])
_ARGS = st.sampled_from(['{"a": 1}', "", "  ", "not json", "[1, 2]", '"s"', {"a": 1}, None, 3])


@st.composite
def _call(draw: Any) -> Any:
    entry: dict[str, Any] = {}
    if draw(st.booleans()) or draw(st.booleans()):
        entry["id"] = draw(_IDS)
    kind = draw(st.sampled_from(["function", "function", "custom", None]))
    if kind is not None:
        entry["type"] = kind
    if draw(st.integers(0, 5)):
        fn: dict[str, Any] = {}
        if draw(st.integers(0, 5)):
            fn["name"] = draw(st.sampled_from(["get_weather", "", 1]))
        if draw(st.integers(0, 5)):
            fn["arguments"] = draw(_ARGS)
        if not draw(st.integers(0, 6)):
            fn["index"] = 0
        entry["function"] = fn
    else:
        entry["function"] = draw(st.sampled_from([None, "f", []]))
    if not draw(st.integers(0, 6)):
        entry["index"] = 0
    return entry if draw(st.integers(0, 10)) else draw(st.sampled_from(["call", 1, None]))


@st.composite
def _message(draw: Any) -> Any:
    msg: dict[str, Any] = {}
    if draw(st.integers(0, 10)):
        msg["role"] = draw(st.sampled_from(["user", "system", "developer", "assistant", "assistant", "tool", "tool", "function", "model", 1, None]))
    if draw(st.integers(0, 6)):
        msg["content"] = draw(st.one_of(_TEXT, st.sampled_from([None, 1, [], [{"type": "text", "text": "a"}], {"text": "a"}])))
    if draw(st.integers(0, 2)) == 0:
        msg["tool_call_id"] = draw(_IDS)
    if draw(st.integers(0, 2)) == 0:
        msg["tool_calls"] = draw(st.one_of(st.lists(_call(), max_size=3), st.sampled_from([None, {}, "x"])))
    for extra, values in (("name", ["bob"]), ("reasoning_content", ["", "thought"]), ("refusal", ["no", ""]), ("annotations", [[]]), ("audio", [None])):
        if not draw(st.integers(0, 8)):
            msg[extra] = draw(st.sampled_from(values))
    return msg if draw(st.integers(0, 20)) else draw(st.sampled_from([[], "m", None]))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_message())
def test_chat_generated_messages_read_alike(msg: Any) -> None:
    shipped, general, _ = _decode_both(msg)
    assert shipped == general


# --------------------------------------------------------------------------- Anthropic encoder


def _encode_both(monkeypatch: pytest.MonkeyPatch, transcript: Transcript, policy: Any, model: str | None = "claude-sonnet-4-5") -> tuple[Any, Any]:
    an = get_mapper("anthropic")
    out = []
    for direct in (True, False):
        with monkeypatch.context() as m:
            m.setattr(anthropic_request, "_DIRECT", direct)
            try:
                c = an.encode_request(transcript, model=model, policy=policy)
                out.append((c.value, [str(e) for e in c.report]))
            except Exception as exc:  # noqa: BLE001 - the same failure is demanded of both
                out.append(("error", type(exc).__name__, str(exc)))
    return out[0], out[1]


def test_anthropic_encoder_direct_path_on_real_requests(monkeypatch: pytest.MonkeyPatch) -> None:
    compared = 0
    for name, body in BODIES:
        for source in ("openai-chat", "anthropic"):
            try:
                transcript = get_mapper(source).decode_request(body).value
            except Exception:  # noqa: BLE001 - a body of the other format
                continue
            for policy in ("drop", "degrade", "error"):
                shipped, general = _encode_both(monkeypatch, transcript, policy)
                assert shipped == general, (name, source, policy)
                compared += 1
    assert compared >= 100


_MESSAGE_KEYS = st.sampled_from([U, U, "m0", "m1", "m2"])
_PD = st.sampled_from([U, U, U, {"anthropic": {"x": 1}}, {"openai-chat": {"y": 2}}, {}])
_CB = st.sampled_from([U, U, U, CacheBreakpoint(), CacheBreakpoint(ttl="1h")])


@st.composite
def _item(draw: Any) -> Any:
    kind = draw(st.sampled_from(["text", "text", "text", "call", "call", "result", "result", "image", "reasoning"]))
    key = draw(_MESSAGE_KEYS)
    if kind == "text":
        return TextItem(
            text=draw(_TEXT), role=draw(st.sampled_from(["user", "assistant", "assistant", "system", "developer", U])), message=key,
            provider_data=draw(_PD), cache_breakpoint=draw(_CB), annotations=draw(st.sampled_from([U, U, U, []])),
        )
    call_id = draw(st.sampled_from(["toolu_1", "toolu_2", "call 3", "call_4"]))
    if kind == "call":
        if draw(st.integers(0, 6)):
            return ToolCallItem(id=call_id, name="f", arguments={"a": [1, {"b": None}]}, message=key, provider_data=draw(_PD), cache_breakpoint=draw(_CB))
        return ToolCallItem(id=call_id, name="f", arguments_raw="{bad", arguments_error="not JSON", message=key)
    if kind == "result":
        parts = draw(st.lists(st.one_of(
            st.builds(TextItem, text=_TEXT, provider_data=_PD, cache_breakpoint=_CB),
            st.just(ImageItem(source=UrlSource(url="https://example.com/a.png"))),
        ), max_size=3))
        return ToolResultItem(call_id=call_id, content=parts, message=key, is_error=draw(st.sampled_from([U, True, False])), provider_data=draw(_PD), cache_breakpoint=draw(_CB))
    if kind == "image":
        return ImageItem(source=UrlSource(url="https://example.com/a.png"), role=draw(st.sampled_from(["user", "assistant", U])), message=key)
    return ReasoningItem(text="thinking", message=key)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.lists(_item(), max_size=12), st.sampled_from(["drop", "degrade", "error"]))
def test_anthropic_encoder_generated_transcripts_alike(monkeypatch: pytest.MonkeyPatch, items: list[Any], policy: Any) -> None:
    shipped, general = _encode_both(monkeypatch, Transcript(schema_version="1.0", items=items), policy)
    assert shipped == general


def test_the_direct_paths_are_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    """The direct paths really run on the usual shapes (else the comparisons above compare a path with itself)."""
    body = {"messages": [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "w", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
    ], "tools": [{"type": "function", "function": {"name": "w", "parameters": {"type": "object"}}}]}
    decoder = MessageDecoder(Report(), request=True)
    assert all(decoder.plain(m, "m") is not None for m in body["messages"])
    transcript = get_mapper("openai-chat").decode_request(body).value
    calls = []
    real_speaker = anthropic_request.speaker
    monkeypatch.setattr(anthropic_request, "speaker", lambda item: calls.append(item) or real_speaker(item))
    get_mapper("anthropic").encode_request(transcript, model="claude-sonnet-4-5")
    assert calls == []  # every item written directly
    monkeypatch.setattr(anthropic_request, "_DIRECT", False)
    get_mapper("anthropic").encode_request(transcript, model="claude-sonnet-4-5")
    assert len(calls) == 3


# --------------------------------------------------------------------------- id reservation, report entries


def test_ids_reserved_later_map_as_reserved_up_front() -> None:
    """``IdMap.reserve_later`` gives every id the mapping ``reserve`` gives, and lists the ids only when one is derived."""
    import dataclasses

    from interlingua.mapping.ids import IdMap
    from interlingua.providers.anthropic._blocks import ID_RULE

    ids = ["toolu_1", "call 3", "toolu_2", "call 3", "x.y", "toolu_1"]
    eager = IdMap(ID_RULE, Report())
    eager.reserve(ids)
    asked: list[int] = []
    lazy = IdMap(ID_RULE, Report())
    lazy.reserve_later(lambda: asked.append(1) or ids)
    assert [lazy.get(i, index=n) for n, i in enumerate(ids)] == [eager.get(i, index=n) for n, i in enumerate(ids)]
    assert asked == [1]
    assert [str(e) for e in lazy.report] == [str(e) for e in eager.report] and len(lazy.report) == 2  # type: ignore[union-attr]
    valid = IdMap(ID_RULE, Report())
    valid.reserve_later(lambda: asked.append(2) or ["toolu_9"])
    assert valid.get("toolu_9") == "toolu_9" and asked == [1]  # every id valid: the list is never made
    # a report entry stays a frozen dataclass: equal, hashable, replaceable, not assignable
    entry = next(iter(eager.report))  # type: ignore[arg-type]
    assert dataclasses.replace(entry, reason=entry.reason) == entry and hash(entry) == hash(dataclasses.replace(entry))
    with pytest.raises(dataclasses.FrozenInstanceError):
        entry.reason = "x"  # type: ignore[misc]
