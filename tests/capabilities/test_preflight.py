"""Preflight rules: every violation kind, several at once, and the deliberate non-violations."""

from __future__ import annotations

import copy

import msgspec
import pytest

from interlingua.capabilities import check, preflight
from interlingua.codec import UnknownItem, to_builtins
from interlingua.errors import CapabilityError, CapabilityViolation
from interlingua.items import (
    ArtifactRefItem,
    AudioItem,
    Base64Source,
    DocumentItem,
    ErrorItem,
    HandoffCallItem,
    ImageItem,
    ModelCapabilities,
    OpaqueReasoning,
    RawItem,
    ReasoningItem,
    StructuredItem,
    TextItem,
    TextSource,
    ToolCallItem,
    ToolChoice,
    ToolDefinition,
    ToolResultItem,
    Transcript,
    UrlSource,
)

FULL = ModelCapabilities(
    input_modalities=["text", "image", "audio", "document"],
    tools=True,
    parallel_tool_calls=True,
    reasoning=True,
    streaming=True,
    structured_output=True,
    raw_round_trip=True,
)
TEXT_ONLY = ModelCapabilities()  # schema defaults: text only, nothing else


def caps(**changes: object) -> ModelCapabilities:
    return msgspec.structs.replace(FULL, **changes)


def doc(*items: object, tools: list[ToolDefinition] | None = None, tool_choice: ToolChoice | None = None) -> Transcript:
    return Transcript(
        schema_version="1.0",
        items=list(items),  # type: ignore[arg-type]
        tools=tools if tools is not None else msgspec.UNSET,
        tool_choice=tool_choice if tool_choice is not None else msgspec.UNSET,
    )


def user(text: str) -> TextItem:
    return TextItem(text=text, role="user")


def call(cid: str, message: str | None = None) -> ToolCallItem:
    return ToolCallItem(id=cid, name="get_weather", arguments={"city": "Paris"}, message=message if message else msgspec.UNSET)


def result(cid: str, *content: object) -> ToolResultItem:
    return ToolResultItem(call_id=cid, content=list(content) or [TextItem(text="sunny")])  # type: ignore[arg-type]


IMG = ImageItem(source=UrlSource(url="https://example.com/cat.png"), role="user")
AUDIO = AudioItem(source=Base64Source(media_type="audio/wav", data="UklGRg=="), role="user", format="wav")
PDF = DocumentItem(source=Base64Source(media_type="application/pdf", data="JVBERi0="), role="user", media_type="application/pdf")
WEATHER = ToolDefinition(name="get_weather", parameters={"type": "object"})


def violations(t: Transcript, c: ModelCapabilities, **kw: object) -> list[tuple[int | None, str]]:
    return [(v.index, v.item_type) for v in check(t, c, provider=kw.pop("provider", "toy"), **kw)]  # type: ignore[arg-type]


# --------------------------------------------------------------------------- modalities


@pytest.mark.parametrize(
    ("item", "modality"),
    [(IMG, "image"), (AUDIO, "audio"), (PDF, "document"), (DocumentItem(source=TextSource(text="notes"), role="user"), "document")],
)
def test_top_level_media_needs_its_modality(item: object, modality: str) -> None:
    t = doc(user("look"), item)
    found = check(t, caps(input_modalities=["text"]), provider="toy")
    assert [(v.index, v.item_type) for v in found] == [(1, type(item).__struct_config__.tag)]  # type: ignore[attr-defined]
    assert modality in found[0].reason
    others = [m for m in ("text", "image", "audio", "document") if m != modality]
    assert len(check(t, caps(input_modalities=others), provider="toy")) == 1
    assert check(t, caps(input_modalities=["text", modality]), provider="toy") == []


def test_media_nested_in_tool_result_is_checked() -> None:
    t = doc(user("chart?"), call("c1"), result("c1", TextItem(text="here"), ImageItem(source=UrlSource(url="https://x/y.png"))), tools=[WEATHER])
    found = check(t, caps(input_modalities=["text"]), provider="toy")
    assert [(v.index, v.item_type) for v in found] == [(2, "image")]
    assert "tool_result content[1]" in found[0].reason


@pytest.mark.parametrize(
    ("media_type", "modality"),
    [("image/png", "image"), ("audio/mpeg", "audio"), ("application/pdf", "document"), ("text/csv", "document")],
)
def test_artifact_ref_counts_by_media_type(media_type: str, modality: str) -> None:
    t = doc(ArtifactRefItem(uri="s3://bucket/key", media_type=media_type, role="user"))
    found = check(t, caps(input_modalities=["text"]), provider="toy")
    assert [(v.index, v.item_type) for v in found] == [(0, "artifact_ref")]
    assert modality in found[0].reason
    assert check(t, caps(input_modalities=["text", modality]), provider="toy") == []


def test_artifact_ref_without_media_type_is_left_to_the_mapper() -> None:
    assert check(doc(ArtifactRefItem(uri="s3://bucket/key", role="user")), TEXT_ONLY, provider="toy") == []


# --------------------------------------------------------------------------- tools


def test_every_tool_item_and_the_definitions_are_refused_without_tools() -> None:
    t = doc(
        user("weather?"),
        call("c1"),
        result("c1"),
        HandoffCallItem(id="h1", target="billing"),
        tools=[WEATHER],
        tool_choice=ToolChoice(mode="required"),
    )
    assert violations(t, caps(tools=False, parallel_tool_calls=False)) == [
        (1, "tool_call"),
        (2, "tool_result"),
        (3, "handoff_call"),
        (None, "tools"),
        (None, "tool_choice"),
    ]


def test_tool_choice_none_without_tools_is_fine() -> None:
    assert check(doc(user("hi"), tool_choice=ToolChoice(mode="none")), TEXT_ONLY, provider="toy") == []


def test_parallel_calls_sharing_a_message_key() -> None:
    t = doc(user("two cities"), call("a", "m1"), call("b", "m1"), call("c", "m1"), result("a"), result("b"), result("c"), tools=[WEATHER])
    found = check(t, caps(parallel_tool_calls=False), provider="toy")
    assert [(v.index, v.item_type) for v in found] == [(2, "tool_call"), (3, "tool_call")]
    assert "call 2 of 3" in found[0].reason and "items 1-3" in found[0].reason
    assert check(t, FULL, provider="toy") == []


def test_consecutive_calls_without_message_keys_are_one_turn_even_across_reasoning() -> None:
    t = doc(user("q"), ReasoningItem(text="think"), call("a"), ReasoningItem(text="more"), call("b"), tools=[WEATHER])
    assert violations(t, caps(parallel_tool_calls=False)) == [(4, "tool_call")]


def test_calls_with_the_same_message_key_are_one_turn_even_when_split() -> None:
    t = doc(user("q"), call("a", "resp:1"), result("a"), call("b", "resp:1"), tools=[WEATHER])
    assert violations(t, caps(parallel_tool_calls=False)) == [(3, "tool_call")]


def test_sequential_calls_answered_in_between_are_separate_turns() -> None:
    t = doc(user("q"), call("a", "m1"), result("a"), call("b", "m3"), result("b"), tools=[WEATHER])
    assert check(t, caps(parallel_tool_calls=False), provider="toy") == []


def test_error_items_do_not_split_a_turn_but_user_text_does() -> None:
    err = ErrorItem(code="timeout", message="slow")
    assert violations(doc(call("a"), err, call("b"), tools=[WEATHER]), caps(parallel_tool_calls=False)) == [(2, "tool_call")]
    assert violations(doc(call("a"), user("go on"), call("b"), tools=[WEATHER]), caps(parallel_tool_calls=False)) == []


def test_max_tool_calls_per_turn() -> None:
    t = doc(*(call(f"c{i}", "m0") for i in range(4)), tools=[WEATHER])
    found = check(t, caps(max_tool_calls_per_turn=2), provider="toy")
    assert [(v.index, v.item_type) for v in found] == [(2, "tool_call"), (3, "tool_call")]
    assert "at most 2" in found[0].reason


def test_tool_choice_asking_for_parallel_calls() -> None:
    t = doc(user("q"), tools=[WEATHER], tool_choice=ToolChoice(mode="auto", parallel=True))
    assert violations(t, caps(parallel_tool_calls=False)) == [(None, "tool_choice")]


def test_history_with_tool_calls_needs_definitions_when_required() -> None:
    t = doc(user("q"), call("a"), result("a"))
    found = check(t, caps(requires_tool_definitions=True), provider="toy")
    assert [(v.index, v.item_type) for v in found] == [(None, "tools")]
    assert found[0].reason.startswith("the transcript holds tool calls but no tool definitions; toy refuses tool_use blocks without `tools`")
    assert check(doc(user("q"), call("a"), result("a"), tools=[WEATHER]), caps(requires_tool_definitions=True), provider="toy") == []
    assert check(t, caps(requires_tool_definitions=False), provider="toy") == []


# --------------------------------------------------------------------------- raw, streaming


def test_own_raw_items_need_raw_round_trip_foreign_ones_are_the_mappers_business() -> None:
    own = RawItem(provider="toy", value={"type": "web_search_call"})
    foreign = RawItem(provider="other", value={"type": "x"})
    t = doc(user("q"), own, foreign)
    assert violations(t, caps(raw_round_trip=False)) == [(1, "raw")]
    assert check(t, FULL, provider="toy") == []


def test_streaming() -> None:
    t = doc(user("q"))
    assert violations(t, caps(streaming=False), stream=True) == [(None, "stream")]
    assert check(t, caps(streaming=False), provider="toy") == []


# --------------------------------------------------------------------------- deliberate non-violations


def test_reasoning_structured_prefill_and_unknown_items_are_not_violations() -> None:
    t = doc(
        user("q"),
        ReasoningItem(text="hmm", opaque=OpaqueReasoning(namespace="x.sig", issuer="other", value="abc")),
        StructuredItem(data={"answer": 42}),
        UnknownItem(b'{"type":"hologram","x":1}', "hologram"),
        TextItem(text="The answer is", role="assistant"),
    )
    assert check(t, TEXT_ONLY, provider="toy") == []


# --------------------------------------------------------------------------- all together


def test_every_violation_is_listed_together_with_indices() -> None:
    t = doc(
        TextItem(text="be brief", role="system"),
        user("look at these"),
        IMG,
        PDF,
        call("a", "m3"),
        call("b", "m3"),
        result("a", AUDIO.__class__(source=AUDIO.source, format="wav")),
        result("b"),
        RawItem(provider="toy", value={}),
    )
    before = to_builtins(t)
    target = ModelCapabilities(input_modalities=["text", "image"], tools=True, parallel_tool_calls=False, requires_tool_definitions=True)
    with pytest.raises(CapabilityError) as info:
        preflight(t, target, model="toy-1", provider="toy", stream=True)
    err = info.value
    assert err.model == "toy-1"
    assert [(v.index, v.item_type) for v in err.violations] == [
        (3, "document"),
        (5, "tool_call"),
        (6, "audio"),
        (8, "raw"),
        (None, "tools"),
        (None, "stream"),
    ]
    assert all(isinstance(v, CapabilityViolation) for v in err.violations)
    message = str(err)
    assert "cannot take 6 item(s)" in message
    for v in err.violations:
        assert str(v) in message
    assert to_builtins(t) == before  # never mutated


def test_preflight_passes_silently_when_everything_fits() -> None:
    t = doc(user("q"), IMG, call("a"), call("b"), result("a"), result("b"), tools=[WEATHER])
    snapshot = copy.deepcopy(to_builtins(t))
    assert preflight(t, FULL, model="m", provider="toy") is None
    assert to_builtins(t) == snapshot


def test_preflight_without_a_model_names_the_default() -> None:
    with pytest.raises(CapabilityError, match="<toy default>"):
        preflight(doc(IMG), TEXT_ONLY, model=None, provider="toy")
