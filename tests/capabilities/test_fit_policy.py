"""``--policy`` governs preflight modality violations (issue 14), over every entry of the model table.

``error`` refuses listing every offending item; ``drop`` leaves each out and reports it; ``degrade``
puts the short text marker in its place and reports it. Checked on :func:`interlingua.capabilities.fit`
and through the whole pipeline (:func:`interlingua.convert_request`, the body decoded back).
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import interlingua as il
from interlingua.capabilities import default_table, fit
from interlingua.errors import CapabilityError
from interlingua.items import (
    AudioItem,
    Base64Source,
    DocumentItem,
    ImageItem,
    ModelCapabilities,
    TextItem,
    ToolCallItem,
    ToolDefinition,
    ToolResultItem,
    Transcript,
)
from interlingua.mapping import get_mapper

ENTRIES = [e for e in default_table().entries if {"image", "audio", "document"} - set(e.capabilities.input_modalities or [])]
MEDIA = ("image", "audio", "document")
SETTINGS = settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


def test_the_table_has_models_missing_each_modality() -> None:
    for need in MEDIA:
        assert any(need not in (e.capabilities.input_modalities or []) for e in ENTRIES), need


def _media(kind: str, role: str | None, key: str | None) -> Any:
    extra: dict[str, Any] = {}
    if role is not None:
        extra = {"role": role, "message": key}
    if kind == "image":
        return ImageItem(source=Base64Source(media_type="image/png", data="iVBORw0KGgo="), **extra)
    if kind == "audio":
        return AudioItem(source=Base64Source(media_type="audio/wav", data="UklGRg=="), format="wav", **extra)
    return DocumentItem(source=Base64Source(media_type="application/pdf", data="JVBERi0xLjQ="), media_type="application/pdf", **extra)


@st.composite
def cases(draw: st.DrawFn) -> tuple[Any, Transcript]:
    """A table entry and a conversation of user text, user media and (where the model takes tools)
    one call per assistant turn whose result holds text or media."""
    entry = draw(st.sampled_from(ENTRIES))
    items: list[Any] = [TextItem(text="hello", role="user", message="m0")]
    calls = 0
    for n in range(1, draw(st.integers(1, 6)) + 1):
        key = f"m{n}"
        slot = draw(st.sampled_from(["media", "text", "tool"] if entry.capabilities.tools else ["media", "text"]))
        if slot == "media":
            items.append(TextItem(text="look at this", role="user", message=key))
            items.append(_media(draw(st.sampled_from(MEDIA)), "user", key))
        elif slot == "text":
            items.append(TextItem(text="ok", role="assistant", message=key))
            items.append(TextItem(text="go on", role="user", message=f"{key}u"))
        else:
            calls += 1
            call_id = f"call_{calls}"
            items.append(ToolCallItem(id=call_id, name="lookup", arguments={"q": n}, message=key))
            inner = draw(st.sampled_from(["text", *MEDIA]))
            content = [TextItem(text="found")] if inner == "text" else [TextItem(text="found"), _media(inner, None, None)]
            items.append(ToolResultItem(call_id=call_id, content=content, message=f"{key}r"))
    tools = [ToolDefinition(name="lookup", parameters={"type": "object"})] if calls else msgspec.UNSET
    return entry, Transcript(schema_version="1.0", items=items, tools=tools)


def _offending(t: Transcript, caps: ModelCapabilities) -> list[tuple[int, str, bool]]:
    """``(top-level index, modality, nested)`` of every item or part the model cannot take."""
    allowed = set(caps.input_modalities or ["text"])
    out: list[tuple[int, str, bool]] = []
    for i, item in enumerate(t.items):
        kind = item.__struct_config__.tag
        if kind in MEDIA and kind not in allowed:
            out.append((i, kind, False))
        if isinstance(item, ToolResultItem):
            out.extend((i, p.__struct_config__.tag, True) for p in item.content if p.__struct_config__.tag in MEDIA and p.__struct_config__.tag not in allowed)
    return out


def _modalities(items: list[Any]) -> set[str]:
    found: set[str] = set()
    for item in items:
        kind = item.__struct_config__.tag if hasattr(item, "__struct_config__") else None
        if kind in MEDIA:
            found.add(kind)
        if isinstance(item, ToolResultItem):
            found |= _modalities(list(item.content))
    return found


@SETTINGS
@given(cases())
def test_error_refuses_listing_every_offending_item(case: tuple[Any, Transcript]) -> None:
    entry, t = case
    bad = _offending(t, entry.capabilities)
    if not bad:
        assert fit(t, entry.capabilities, model="m", provider=entry.provider).transcript is t
        return
    with pytest.raises(CapabilityError) as info:
        fit(t, entry.capabilities, model="m", provider=entry.provider, policy="error")
    got = [(v.index, v.item_type) for v in info.value.violations]
    assert got == [(i, kind) for i, kind, _ in bad]


@SETTINGS
@given(cases())
def test_drop_leaves_each_offending_item_out_and_reports_it(case: tuple[Any, Transcript]) -> None:
    entry, t = case
    before = msgspec.json.encode(t)
    bad = _offending(t, entry.capabilities)
    out = fit(t, entry.capabilities, model="m", provider=entry.provider, policy="drop")
    assert msgspec.json.encode(t) == before, "fit mutated its input"
    allowed = set(entry.capabilities.input_modalities or [])
    assert _modalities(list(out.transcript.items)) <= allowed
    assert [(e.action, e.index, e.item_type) for e in out.report] == [("dropped", i, kind) for i, kind, _ in bad]
    # what is left is the input without the offending top-level items, in order, each mapped back
    dropped = {i for i, _, nested in bad if not nested}
    assert out.origin == [i for i in range(len(t.items)) if i not in dropped]
    for i, item in enumerate(out.transcript.items):
        assert item.__struct_config__.tag == t.items[out.origin[i]].__struct_config__.tag


@SETTINGS
@given(cases())
def test_degrade_puts_the_marker_in_place_and_reports_it(case: tuple[Any, Transcript]) -> None:
    entry, t = case
    bad = _offending(t, entry.capabilities)
    out = fit(t, entry.capabilities, model="m", provider=entry.provider, policy="degrade")
    assert len(out.transcript.items) == len(t.items) and out.origin == list(range(len(t.items)))
    assert [(e.action, e.index, e.item_type) for e in out.report] == [("degraded", i, kind) for i, kind, _ in bad]
    for i, kind, nested in bad:
        marker = f"[{kind} omitted: the model takes no {kind} input]"
        got = out.transcript.items[i]
        if nested:
            assert isinstance(got, ToolResultItem) and marker in [p.text for p in got.content if isinstance(p, TextItem)]
        else:
            assert isinstance(got, TextItem) and got.text == marker
            assert (got.role, got.message) == (t.items[i].role, t.items[i].message)


@SETTINGS
@given(cases(), st.sampled_from(["error", "drop", "degrade"]))
def test_the_whole_pipeline_follows_the_policy_for_every_table_model(case: tuple[Any, Transcript], policy: str) -> None:
    entry, t = case
    bad = _offending(t, entry.capabilities)
    resolver = lambda provider, model: entry.capabilities  # noqa: E731 - the entry under test, whatever its pattern
    if policy == "error" and bad:
        with pytest.raises(CapabilityError):
            il.convert_request(t, source="canonical", target=entry.provider, model="m", resolver=resolver)
        return
    try:
        conv = il.convert_request(t, source="canonical", target=entry.provider, model="m", policy=policy, resolver=resolver)  # type: ignore[arg-type]
    except il.ConversionError:
        assert policy == "error" and not bad  # a wire-format rule (e.g. media inside a tool result), not preflight
        return
    action = {"drop": "dropped", "degrade": "degraded"}.get(policy)
    modality_entries = [e for e in conv.report if e.reason.split(" ")[0] in MEDIA and "is not supported by 'm'" in e.reason]
    assert [(e.action, e.index, e.item_type) for e in modality_entries] == [(action, i, kind) for i, kind, _ in bad]
    back = get_mapper(entry.provider).decode_request(conv.value).value
    assert _modalities(list(back.items)) <= set(entry.capabilities.input_modalities or [])
    if policy == "degrade":
        text = json.dumps(conv.value)
        for kind in {k for _, k, _ in bad}:
            assert text.count(f"[{kind} omitted: the model takes no {kind} input]") == sum(1 for _, k, _ in bad if k == kind)
