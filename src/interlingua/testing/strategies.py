"""Hypothesis strategies for canonical items and transcripts.

Use them in property tests of your own code::

    from hypothesis import given
    from interlingua.testing.strategies import transcripts

    @given(transcripts())
    def test_my_pipeline_keeps_items(t): ...

Restrict them to what a model can take with ``capabilities``::

    from interlingua.items import ModelCapabilities

    @given(transcripts(capabilities=ModelCapabilities(input_modalities=["text"], tools=True)))
    def test_text_and_tools_only(t): ...

Every generated value is valid: it decodes with the models, passes the JSON Schemas
and the semantic checks (results follow their calls, ids are unique, roles legal).
Requires ``hypothesis`` (in the ``dev`` extra).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

try:
    from hypothesis import strategies as st
except ModuleNotFoundError as _exc:
    from ._extra import missing_extra

    raise missing_extra("hypothesis", "interlingua.testing.strategies", _exc) from _exc

from ..codec import SCHEMA_VERSION
from ..items import (
    ArtifactRefItem,
    ModelCapabilities,
    AudioItem,
    Base64Source,
    DocumentItem,
    ErrorItem,
    ImageItem,
    OpaqueReasoning,
    Origin,
    RawItem,
    ReasoningItem,
    ReasoningSettings,
    RefusalItem,
    ResponseFormat,
    Settings,
    StructuredItem,
    TextItem,
    ToolCallItem,
    ToolDefinition,
    ToolResultItem,
    Transcript,
    UrlSource,
    VideoItem,
)

__all__ = ["ITEM_TYPES", "generation_settings", "items", "kinds_for", "json_objects", "json_values", "transcripts"]

ITEM_TYPES = ("text", "image", "audio", "video", "document", "artifact_ref", "tool_call", "tool_result", "reasoning", "structured", "refusal", "error", "raw")
"""Item types :func:`transcripts` can produce."""

_text = st.text(st.characters(codec="utf-8"), max_size=40)
_name = st.from_regex(r"[a-z][a-z0-9_]{0,15}", fullmatch=True)
_b64 = st.binary(min_size=1, max_size=24).map(lambda b: __import__("base64").b64encode(b).decode())

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.floats(allow_nan=False, allow_infinity=False, width=64) | _text,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(_text, children, max_size=4),
    max_leaves=12,
)
"""Any JSON-safe value (finite floats, string keys)."""

json_objects = st.dictionaries(_text, json_values, max_size=5)
"""A JSON-safe object."""


def _content(kind: str, role: str | None) -> st.SearchStrategy[Any]:
    r: dict[str, Any] = {} if role is None else {"role": role}
    if kind == "text":
        return st.builds(lambda t: TextItem(text=t, **r), _text)
    if kind == "image":
        return st.builds(lambda d: ImageItem(source=Base64Source(media_type="image/png", data=d), **r), _b64) | st.builds(
            lambda u: ImageItem(source=UrlSource(url=f"https://example.com/{u}.png"), detail="auto", **r), _name
        )
    if kind == "audio":
        return st.builds(lambda d: AudioItem(source=Base64Source(media_type="audio/wav", data=d), format="wav", **r), _b64)
    if kind == "video":
        return st.builds(lambda d: VideoItem(source=Base64Source(media_type="video/mp4", data=d), **r), _b64) | st.builds(
            lambda u: VideoItem(source=UrlSource(url=f"https://www.youtube.com/watch?v={u}", media_type="video/mp4"), **r), _name
        )
    if kind == "document":
        return st.builds(lambda d, t: DocumentItem(source=Base64Source(media_type="application/pdf", data=d), media_type="application/pdf", title=t, **r), _b64, _text)
    if kind == "artifact_ref":
        return st.builds(lambda n, s: ArtifactRefItem(uri=f"s3://bucket/{n}", media_type="application/octet-stream", size_bytes=s, **r), _name, st.integers(0, 2**40))
    if kind == "structured":
        return st.builds(lambda d: StructuredItem(data=d), json_values)
    raise ValueError(kind)


_ROLES = ("user", "assistant", "system", "developer")
_ISSUERS = ("anthropic", "openai-responses", "gemini")


@st.composite
def _item(draw: st.DrawFn, kind: str, n: int, calls: list[str], nested: Sequence[str] = ("text", "image", "structured")) -> Any:
    if kind in ("text", "image", "audio", "video", "document", "artifact_ref"):
        role = draw(st.sampled_from(_ROLES if kind == "text" else ("user",)))
        return draw(_content(kind, role))
    if kind == "structured":
        return draw(_content("structured", None))
    if kind == "tool_call":
        call_id = f"call_{n}"
        calls.append(call_id)
        return ToolCallItem(id=call_id, name=draw(_name), arguments=draw(json_objects))
    if kind == "tool_result":
        call_id = calls.pop(0)
        content = draw(st.lists(st.sampled_from(tuple(nested)).flatmap(lambda k: _content(k, None)), min_size=1, max_size=3))
        return ToolResultItem(call_id=call_id, content=content, is_error=draw(st.booleans()))
    if kind == "reasoning":
        opaque = draw(st.none() | st.builds(lambda i, v: OpaqueReasoning(namespace=f"{i}.state", issuer=i, value=v), st.sampled_from(_ISSUERS), _text))
        fields: dict[str, Any] = {"text": draw(_text)}
        if opaque is not None:
            fields["opaque"] = opaque
        return ReasoningItem(**fields)
    if kind == "refusal":
        return RefusalItem(text=draw(_text))
    if kind == "error":
        return ErrorItem(code=draw(st.sampled_from(("timeout", "rate_limit", "server"))), message=draw(_text), retryable=draw(st.booleans()))
    if kind == "raw":
        return RawItem(provider=draw(st.sampled_from(_ISSUERS)), value=draw(json_objects))
    raise ValueError(kind)


_MODALITY_KINDS = {"image": "image", "audio": "audio", "video": "video", "document": "document", "artifact_ref": "document"}
"""Item kind -> the input modality it needs (generated artifact refs are octet-stream: preflight counts them as documents)."""


def kinds_for(capabilities: ModelCapabilities, kinds: Sequence[str] = ITEM_TYPES) -> tuple[str, ...]:
    """The item kinds of ``kinds`` a model with ``capabilities`` accepts.

    Input modalities limit ``image``/``audio``/``video``/``document``/``artifact_ref``; ``tools`` limits ``tool_call``/``tool_result``;
    ``reasoning`` limits ``reasoning``.
    """
    modalities = set(capabilities.input_modalities) if isinstance(capabilities.input_modalities, list) else {"text"}
    out = []
    for kind in kinds:
        if kind in _MODALITY_KINDS and _MODALITY_KINDS[kind] not in modalities:
            continue
        if kind in ("tool_call", "tool_result") and not capabilities.tools:
            continue
        if kind == "reasoning" and not capabilities.reasoning:
            continue
        if kind == "text" and "text" not in modalities:
            continue
        out.append(kind)
    return tuple(out)


def items(
    kinds: Sequence[str] = ITEM_TYPES, *, min_size: int = 0, max_size: int = 12, capabilities: ModelCapabilities | None = None
) -> st.SearchStrategy[list[Any]]:
    """A valid list of top-level items drawn from ``kinds``.

    ``tool_result`` items are only generated to answer an earlier ``tool_call`` (so include
    ``tool_call`` when you ask for results). Ids: tool calls get ``call_<n>``.

    Args:
        kinds: Item types to draw from (see :data:`ITEM_TYPES`).
        min_size: Fewest items (fewer only when no kind can follow).
        max_size: Most items.
        capabilities: When given, only what such a model accepts (:func:`kinds_for`); without
            ``parallel_tool_calls`` each call is answered before the next one.

    Raises:
        ValueError: unknown kinds.
    """
    unknown = set(kinds) - set(ITEM_TYPES)
    if unknown:
        raise ValueError(f"unsupported kinds {sorted(unknown)}; choose from {ITEM_TYPES}")
    serial = False
    nested: tuple[str, ...] = ("text", "image", "structured")
    if capabilities is not None:
        kinds = kinds_for(capabilities, kinds)
        nested = tuple(k for k in nested if k != "image" or kinds_for(capabilities, ("image",)))  # images inside results need image input
        serial = not capabilities.parallel_tool_calls

    @st.composite
    def build(draw: st.DrawFn) -> list[Any]:
        size = draw(st.integers(min_size, max_size))
        out: list[Any] = []
        calls: list[str] = []
        for n in range(size):
            options = [k for k in kinds if k != "tool_result" or calls]
            if serial and calls and "tool_result" in kinds:
                options = ["tool_result"]  # answer the one open call first
            elif serial and calls:
                options = [k for k in options if k != "tool_call"]
            if not options:
                break
            out.append(draw(_item(draw(st.sampled_from(options)), n, calls, nested)))
        return out

    return build()


def transcripts(
    kinds: Sequence[str] = ITEM_TYPES, *, max_items: int = 12, with_origin: bool = False, capabilities: ModelCapabilities | None = None
) -> st.SearchStrategy[Transcript]:
    """Valid transcript documents whose items come from ``kinds`` (see :func:`items`).

    Args:
        kinds: Item types to draw from.
        max_items: Most items.
        with_origin: Give some items an ``origin``.
        capabilities: Only what a model with these capabilities accepts (passes
            :func:`interlingua.capabilities.check` for them); see :func:`items`.
    """

    @st.composite
    def build(draw: st.DrawFn) -> Transcript:
        its = draw(items(kinds, max_size=max_items, capabilities=capabilities))
        if with_origin:
            for it in its:
                if hasattr(it, "origin") and draw(st.booleans()):
                    it.origin = Origin(provider="test", item_id=draw(_name))
        tools = [ToolDefinition(name=n, description="tool", parameters={"type": "object"}) for n in sorted({i.name for i in its if isinstance(i, ToolCallItem)})]
        fields: dict[str, Any] = {"schema_version": SCHEMA_VERSION, "items": its}
        if tools:
            fields["tools"] = tools
        return Transcript(**fields)

    return build()


def generation_settings(*, providers: Sequence[str] = ("anthropic", "gemini", "openai-chat", "openai-responses", "ollama")) -> st.SearchStrategy[Settings]:
    """Valid :class:`~interlingua.items.Settings`: any subset of every canonical setting, in range.

    ``provider_data`` is keyed by names drawn from ``providers`` (each holding a small JSON object), so
    a mapper test sees both its own data and other providers' data it must report.
    """
    schema = st.fixed_dictionaries({"type": st.just("object"), "properties": st.dictionaries(_name, st.just({"type": "string"}), max_size=3)})
    fmt = st.one_of(
        st.builds(ResponseFormat, type=st.just("text")),
        st.builds(ResponseFormat, type=st.just("json_object")),
        st.builds(
            lambda name, description, schema, strict: ResponseFormat(type="json_schema", **{k: v for k, v in (("name", name), ("description", description), ("schema", schema), ("strict", strict)) if v is not None}),
            st.none() | _name,
            st.none() | _text,
            st.none() | schema,
            st.none() | st.booleans(),
        ),
    )
    reasoning = st.builds(
        lambda effort, budget, summary, include: ReasoningSettings(**{k: v for k, v in (("effort", effort), ("budget_tokens", budget), ("summary", summary), ("include_thoughts", include)) if v is not None}),
        st.none() | st.sampled_from(["none", "minimal", "low", "medium", "high", "xhigh"]),
        st.none() | st.integers(0, 40000),
        st.none() | st.sampled_from(["auto", "concise", "detailed", "none"]),
        st.none() | st.booleans(),
    )
    number = st.floats(0, 2, allow_nan=False).map(lambda f: round(f, 3))
    fields: dict[str, st.SearchStrategy[Any]] = {
        "model": _name,
        "max_output_tokens": st.integers(1, 200000),
        "temperature": number,
        "top_p": st.floats(0, 1, allow_nan=False).map(lambda f: round(f, 3)),
        "top_k": st.integers(0, 500),
        "stop": st.lists(st.text(st.characters(codec="utf-8"), min_size=1, max_size=8), max_size=4),
        "seed": st.integers(-(2**31), 2**31),
        "presence_penalty": st.floats(-2, 2, allow_nan=False).map(lambda f: round(f, 3)),
        "frequency_penalty": st.floats(-2, 2, allow_nan=False).map(lambda f: round(f, 3)),
        "response_format": fmt,
        "reasoning": reasoning,
        "stream": st.booleans(),
        "provider_data": st.dictionaries(st.sampled_from(list(providers)), st.dictionaries(st.sampled_from(["x_flag", "x_tag"]), st.booleans() | _name, min_size=1, max_size=2), min_size=1, max_size=2),
    }
    return st.fixed_dictionaries({}, optional=fields).map(lambda d: Settings(**d))
