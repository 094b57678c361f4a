"""Property: transcripts within the Anthropic mapper's supported subset round-trip unchanged.

Subset: leading system text (no message key); alternating user/assistant messages keyed ``m{i}``;
user messages hold the results of every call of the previous assistant message first, then text,
image and document items; assistant messages hold signed or redacted reasoning, text (with
Anthropic citations) and tool calls with ``^[a-zA-Z0-9_-]+$`` ids; tools and tool choice; settings
with an exact Anthropic form (model, max_tokens, sampling within Anthropic's ranges, stop sequences,
a thinking budget or disabled thinking, a JSON Schema output format, stream, Anthropic provider data)
and cache breakpoints on text, image, document, tool_use and tool_result blocks. With a thinking budget, a
last assistant message holding tool calls opens with its signed thinking (the API refuses it otherwise).
"""

from __future__ import annotations

import copy

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interlingua.codec import SCHEMA_VERSION, to_builtins
from interlingua.items import (
    Annotation,
    Base64Source,
    CacheBreakpoint,
    DocumentItem,
    FileSource,
    ImageItem,
    OpaqueReasoning,
    ReasoningItem,
    ReasoningSettings,
    ResponseFormat,
    Settings,
    TextItem,
    TextSource,
    ToolCallItem,
    ToolChoice,
    ToolDefinition,
    ToolResultItem,
    Transcript,
    UrlSource,
)
from interlingua.providers.anthropic import mapper

words = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=20).filter(lambda s: s.strip() != "")
names = st.from_regex(r"[a-zA-Z][a-zA-Z0-9_-]{0,15}", fullmatch=True)
json_leaf = st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.text(max_size=10)
json_value = st.recursive(json_leaf, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=8)
arguments = st.dictionaries(st.text(max_size=8), json_value, max_size=4)

citation = st.builds(
    lambda cited, idx, start, length, title: Annotation(kind="char_location", cited_text=cited, document_index=idx, title=title, start_index=start, end_index=start + length),
    words,
    st.integers(0, 5),
    st.integers(0, 100),
    st.integers(0, 50),
    words,
)
source_image = st.sampled_from(
    [
        Base64Source(media_type="image/png", data="iVBORw0KGgo="),
        UrlSource(url="https://example.com/a.png"),
        FileSource(file_id="file_011", provider="anthropic"),
    ]
)


def text_item(role: str | None, key: str | None, *, cites: bool = False):
    ann = st.lists(citation, max_size=2) if cites else st.just(None)
    return st.builds(
        lambda t, a: TextItem(text=t, **({"role": role} if role else {}), **({"message": key} if key else {}), **({"annotations": a} if a else {})),
        words,
        ann,
    )


def image_item(role: str | None, key: str | None):
    return st.builds(lambda s: ImageItem(source=s, **({"role": role, "message": key} if role else {})), source_image)


def document_item(key: str):
    pdf = st.builds(
        lambda title, cit: DocumentItem(source=Base64Source(media_type="application/pdf", data="JVBERi0="), media_type="application/pdf", role="user", message=key, title=title, citations=cit),
        words,
        st.booleans(),
    )
    text = st.builds(lambda t: DocumentItem(source=TextSource(text=t, media_type="text/plain"), media_type="text/plain", role="user", message=key), words)
    return pdf | text


@st.composite
def transcripts(draw):
    items: list = [draw(text_item("system", None)) for _ in range(draw(st.integers(0, 2)))]
    pending: list[str] = []
    last: tuple[int, str] | None = None
    for i in range(draw(st.integers(1, 6))):
        key = f"m{i}"
        if i % 2 == 0:  # user
            for call_id in pending:
                content = draw(st.lists(text_item(None, None) | image_item(None, None), max_size=2))
                fields = {"is_error": draw(st.booleans())} if draw(st.booleans()) else {}
                items.append(ToolResultItem(call_id=call_id, content=content, message=key, **fields))
            parts = draw(st.lists(text_item("user", key) | image_item("user", key) | document_item(key), min_size=0 if pending else 1, max_size=3))
            if not pending and not parts:
                parts = [TextItem(text="x", role="user", message=key)]
            items.extend(parts)
            pending = []
        else:  # assistant
            last = (len(items), key)  # where the last assistant message starts
            block: list = []
            if draw(st.booleans()):
                if draw(st.booleans()):
                    sig = OpaqueReasoning(namespace="anthropic.signature", issuer="anthropic", value=draw(words))
                    block.append(ReasoningItem(text=draw(words), opaque=sig, message=key))
                else:
                    red = OpaqueReasoning(namespace="anthropic.redacted_thinking", issuer="anthropic", value=draw(words))
                    block.append(ReasoningItem(redacted=True, opaque=red, message=key))
            block.extend(draw(st.lists(text_item("assistant", key, cites=True), max_size=2)))
            for j in range(draw(st.integers(0, 3))):
                call_id = f"toolu_{i}_{j}_{draw(st.from_regex(r'[a-zA-Z0-9_-]{1,8}', fullmatch=True))}"
                block.append(ToolCallItem(id=call_id, name=draw(names), arguments=draw(arguments), message=key))
                pending.append(call_id)
            if not block:
                block = [TextItem(text="ok", role="assistant", message=key)]
            items.extend(block)
    fields = {}
    # a history with tool calls always has its tools: Anthropic refuses tool_use blocks without them
    if draw(st.booleans()) or any(isinstance(it, ToolCallItem) for it in items):
        fields["tools"] = [ToolDefinition(name=draw(names), description=draw(words), parameters={"type": "object", "properties": {}})]
        fields["tool_choice"] = draw(st.sampled_from([ToolChoice(mode="auto"), ToolChoice(mode="required", parallel=False), ToolChoice(mode="none")]))
    for n, item in enumerate(items):
        if hasattr(item, "cache_breakpoint") and draw(st.integers(0, 5)) == 0:
            items[n] = msgspec.structs.replace(item, cache_breakpoint=draw(breakpoints))
    fields["settings"] = draw(request_settings())
    if last is not None and fields["settings"].reasoning is not msgspec.UNSET and fields["settings"].reasoning.budget_tokens is not msgspec.UNSET:
        # with thinking on, a last assistant message holding tool calls opens with its thinking (Anthropic refuses it else)
        start, key = last
        block = [it for it in items[start:] if getattr(it, "message", None) == key]
        if any(isinstance(it, ToolCallItem) for it in block) and not isinstance(block[0], ReasoningItem):
            sig = OpaqueReasoning(namespace="anthropic.signature", issuer="anthropic", value=draw(words))
            items.insert(start, ReasoningItem(text=draw(words), opaque=sig, message=key))
    return Transcript(schema_version=SCHEMA_VERSION, items=items, **fields)


MODEL = "claude-sonnet-4-5"
"""The model every supported transcript was held with (encode with ``model=MODEL``; conformance profile too)."""

breakpoints = st.sampled_from([CacheBreakpoint(), CacheBreakpoint(ttl="5m"), CacheBreakpoint(ttl="1h")])


@st.composite
def request_settings(draw):
    """Settings with an exact Anthropic form (no sampling parameters: the current API has none)."""
    max_tokens = draw(st.integers(1025, 64000))
    fields = {"model": MODEL, "max_output_tokens": max_tokens}
    optional = {
        "stop": st.lists(words, min_size=1, max_size=3),
        "stream": st.booleans(),
        "reasoning": st.integers(1024, max_tokens - 1).map(lambda b: ReasoningSettings(budget_tokens=b)) | st.just(ReasoningSettings(effort="none")),
        "response_format": st.just(ResponseFormat(type="json_schema", schema={"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": False})),
        "provider_data": st.sampled_from([
            {"anthropic": {"metadata": {"user_id": "u"}, "service_tier": "auto"}},
            {"anthropic": {"service_tier": "standard_only", "speed": "fast", "inference_geo": "us", "container": "container_011CZ"}},
        ]),
    }
    for key, strategy in optional.items():
        if draw(st.booleans()):
            fields[key] = draw(strategy)
    return Settings(**fields)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(transcripts())
def test_supported_transcripts_round_trip_unchanged(t):
    before = to_builtins(t)
    enc = mapper.encode_request(t, model=MODEL)
    assert not enc.report, list(enc.report)
    assert to_builtins(t) == before
    body = copy.deepcopy(enc.value)
    dec = mapper.decode_request(enc.value)
    assert enc.value == body, "decode_request mutated its input"
    assert not dec.report, list(dec.report)
    assert to_builtins(dec.value) == before
