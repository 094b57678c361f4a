"""The preflight's per-model class tables (ADR 0045) decide the same as the per-item passes they skip.

``fit``/``check`` run their per-item passes only when the model's table says an item class present
can need them, and the integrity rules skip their scan for a request holding no call, result or
reasoning. Each test runs the same input both ways, the table's way and with the per-item passes
forced, and compares everything that comes out: the fitted transcript, the report entries in order,
the item origins, or the refusal with every violation.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interlingua.capabilities import _preflight
from interlingua.capabilities import check, fit
from interlingua.codec import SCHEMA_VERSION
from interlingua.errors import CapabilityError, IntegrityError
from interlingua.history import _integrity
from interlingua.history import repair_items
from interlingua.items import ImageItem, ModelCapabilities, TextItem, ToolCallItem, ToolResultItem, Transcript
from interlingua.testing.model_strategies import ITEM_CLASSES, from_model

SETTINGS = settings(max_examples=80, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

MODALITIES = ["text", "image", "audio", "video", "document"]

capabilities = st.builds(
    ModelCapabilities,
    input_modalities=st.lists(st.sampled_from(MODALITIES), unique=True, max_size=5).map(lambda m: ["text", *[x for x in m if x != "text"]]),
    tools=st.booleans(),
    parallel_tool_calls=st.booleans(),
    requires_tool_definitions=st.booleans(),
    raw_round_trip=st.booleans(),
    max_tool_calls_per_turn=st.one_of(st.just(msgspec.UNSET), st.integers(1, 3)),
)


@st.composite
def transcripts(draw: st.DrawFn) -> Transcript:
    """Items of a few classes at a time (so conversations the tables let through are common), ids
    drawn from a small pool (so calls and results pair up, or repeat, or dangle)."""
    classes = draw(st.lists(st.sampled_from(ITEM_CLASSES), min_size=1, max_size=4, unique=True))
    ids = st.sampled_from(["c1", "c2", "c3"])
    items: list[Any] = []
    for item in draw(st.lists(st.one_of([from_model(c) for c in classes]), max_size=8)):
        changes = {f: draw(ids) for f in ("id", "call_id") if f in item.__struct_fields__ and isinstance(getattr(item, f), str)}
        items.append(msgspec.structs.replace(item, **changes) if changes else item)
    return Transcript(schema_version=SCHEMA_VERSION, items=items)


def _outcome(fn: Any) -> Any:
    """What a call gives, comparable: its value's JSON, report and origin, or the refusal."""
    try:
        fitted = fn()
    except (CapabilityError, IntegrityError) as exc:
        return ("refused", type(exc).__name__, str(exc))
    if isinstance(fitted, list):  # check()
        return ("violations", [str(v) for v in fitted])
    if isinstance(fitted, tuple):  # repair_items()
        items, origin, report = fitted
        return ("repaired", msgspec.json.encode(items), origin, [str(e) for e in report])
    return ("fitted", msgspec.json.encode(fitted.transcript), [str(e) for e in fitted.report], fitted.origin)


def _both(fn: Any) -> tuple[Any, Any]:
    fast = _outcome(fn)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(_preflight, "_item_pass_needed", lambda *a: True)
        m.setattr(_integrity, "_QUIET", frozenset())
        slow = _outcome(fn)
    return fast, slow


@SETTINGS
@given(transcript=transcripts(), caps=capabilities, policy=st.sampled_from(["error", "drop", "degrade"]), stream=st.booleans())
def test_fit_is_the_same_with_and_without_the_tables(transcript: Transcript, caps: ModelCapabilities, policy: Any, stream: bool) -> None:
    fast, slow = _both(lambda: fit(transcript, caps, model="m", provider="anthropic", policy=policy, stream=stream))
    assert fast == slow


@SETTINGS
@given(transcript=transcripts(), caps=capabilities)
def test_check_is_the_same_with_and_without_the_tables(transcript: Transcript, caps: ModelCapabilities) -> None:
    fast, slow = _both(lambda: check(transcript, caps, provider="anthropic"))
    assert fast == slow


@SETTINGS
@given(transcript=transcripts(), policy=st.sampled_from(["error", "drop", "degrade"]))
def test_send_rules_are_the_same_with_and_without_the_quiet_classes(transcript: Transcript, policy: Any) -> None:
    fast, slow = _both(lambda: repair_items(transcript.items, policy=policy, open_end=False, sending=True))
    assert fast == slow


def _image() -> ImageItem:
    return msgspec.convert({"type": "image", "role": "user", "source": {"type": "url", "url": "https://example.com/a.png"}}, ImageItem)


def test_the_table_lets_a_fitting_conversation_through_and_stops_at_what_needs_a_look() -> None:
    """The decision itself, on the cases it is for (so the agreement above is not between two slow paths)."""
    text_only = ModelCapabilities(input_modalities=["text"], tools=True)
    vision = ModelCapabilities(input_modalities=["text", "image"], tools=True)
    call = ToolCallItem(id="c1", name="f", arguments={})
    with_image = ToolResultItem(call_id="c1", content=[_image()])
    plain = [TextItem(text="hi", role="user"), call, ToolResultItem(call_id="c1", content=[TextItem(text="ok")])]

    def needed(items: list[Any], caps: ModelCapabilities) -> bool:
        allowed: set[str] = set(caps.input_modalities) if isinstance(caps.input_modalities, list) else {"text"}
        return _preflight._item_pass_needed(items, caps, allowed, set(map(type, items)))

    assert not needed(plain, text_only)
    assert needed([*plain, _image()], text_only)  # an image for a text-only model
    assert not needed([*plain, _image()], vision)
    assert needed([call, with_image], text_only)  # an image inside a tool result
    assert not needed([call, with_image], vision)
    assert needed(plain, ModelCapabilities(input_modalities=["text"], tools=False))  # tool items for a model without tools


def test_the_real_case_a_text_and_tools_conversation_fits_without_the_item_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Chat conversation with a tool call and its result, sent to Claude: the synthesized tool definition is reported, nothing is left out."""
    from interlingua import convert_request

    body = {
        "model": "gpt-4.1",
        "messages": [
            {"role": "user", "content": "What is the weather in Paris?"},
            {"role": "assistant", "content": None, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "weather", "arguments": '{"city":"Paris"}'}}]},
            {"role": "tool", "tool_call_id": "call_1", "content": "18 C, cloudy"},
        ],
    }
    calls: list[bool] = []
    real = _preflight._item_pass_needed

    def spy(*a: Any) -> bool:
        calls.append(real(*a))
        return calls[-1]

    monkeypatch.setattr(_preflight, "_item_pass_needed", spy)
    out = convert_request(body, source="openai-chat", target="anthropic", model="claude-sonnet-4-5", policy="drop")
    assert calls and not any(calls)
    assert [e.pointer for e in out.report if e.item_type == "tools"] == ["/tools/0"]
    assert not [e for e in out.report if e.action in ("dropped", "degraded")]
    assert out.value["tools"][0]["name"] == "weather"
