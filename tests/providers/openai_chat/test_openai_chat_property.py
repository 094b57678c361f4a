"""Property: transcripts within the supported subset survive transcript -> Chat request -> transcript."""

from __future__ import annotations

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interlingua.codec import SCHEMA_VERSION, to_builtins
from interlingua.items import (
    AudioItem,
    Settings,
    Base64Source,
    DocumentItem,
    ImageItem,
    RawItem,
    ReasoningItem,
    RefusalItem,
    TextItem,
    ToolCallItem,
    ToolChoice,
    ToolDefinition,
    ToolResultItem,
    Transcript,
    UrlSource,
)
from interlingua.providers.openai_chat import OpenAIChatMapper

U = msgspec.UNSET

text = st.text(min_size=1, max_size=20)
b64 = st.from_regex(r"[A-Za-z0-9+/]{4,24}={0,2}", fullmatch=True)
json_scalar = st.one_of(st.none(), st.booleans(), st.integers(-(2**40), 2**40), st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8))
json_value = st.recursive(json_scalar, lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)), max_leaves=8)
arguments = st.dictionaries(st.text(max_size=6), json_value, max_size=4)


@st.composite
def user_items(draw, key: str) -> list:
    def media():
        return st.one_of(
            st.builds(TextItem, text=text),
            st.builds(
                ImageItem,
                source=st.one_of(st.builds(Base64Source, media_type=st.sampled_from(["image/png", "image/jpeg"]), data=b64), st.builds(UrlSource, url=st.from_regex(r"https://example\.com/[a-z]{1,8}\.png", fullmatch=True))),
                detail=st.sampled_from([U, "auto", "low", "high"]),
            ),
            st.sampled_from(["wav", "mp3"]).flatmap(lambda f: st.builds(AudioItem, source=st.builds(Base64Source, media_type=st.just({"wav": "audio/wav", "mp3": "audio/mpeg"}[f]), data=b64), format=st.just(f))),
            b64.flatmap(lambda d: st.builds(DocumentItem, source=st.just(Base64Source(media_type="application/pdf", data=d)), media_type=st.just("application/pdf"), filename=st.sampled_from([U, "a.pdf"]))),
        )

    parts = draw(st.lists(media(), min_size=1, max_size=3))
    items = [msgspec.structs.replace(p, role="user", message=key) for p in parts]
    if draw(st.booleans()):
        items.append(RawItem(provider="openai-chat", role="user", value={"name": draw(st.from_regex(r"[a-z]{1,8}", fullmatch=True))}, message=key))
    return items


@st.composite
def transcripts(draw, dialect: str = "openai") -> Transcript:
    items: list = []
    n = 0
    ids = iter(draw(st.lists(st.from_regex(r"call_[A-Za-z0-9]{1,30}", fullmatch=True), min_size=18, max_size=18, unique=True)))
    for kind in draw(st.lists(st.sampled_from(["system", "developer", "user", "assistant", "calls"]), min_size=1, max_size=6)):
        key = f"m{n}"
        n += 1
        if kind in ("system", "developer"):
            items += [TextItem(text=t, role=kind, message=key) for t in draw(st.lists(text, min_size=1, max_size=2))]
        elif kind == "user":
            items += draw(user_items(key))
        elif kind == "assistant":
            if dialect in ("ollama", "openrouter") and draw(st.booleans()):
                items.append(ReasoningItem(text=draw(text), message=key))
            items += [TextItem(text=t, role="assistant", message=key) for t in draw(st.lists(text, min_size=1, max_size=2))]
            if draw(st.booleans()):
                items.append(RefusalItem(text=draw(text), message=key))
        else:
            if dialect != "openai" and draw(st.booleans()):
                items.append(ReasoningItem(text=draw(text), message=key))
            if draw(st.booleans()):
                items.append(TextItem(text=draw(text), role="assistant", message=key))
            calls = [ToolCallItem(id=next(ids), name=draw(st.from_regex(r"[a-zA-Z_][a-zA-Z0-9_-]{0,10}", fullmatch=True)), arguments=draw(arguments), message=key) for _ in range(draw(st.integers(1, 3)))]
            items += calls
            for call in calls:
                items.append(ToolResultItem(call_id=call.id, content=[TextItem(text=t) for t in draw(st.lists(text, min_size=1, max_size=2))], message=f"m{n}"))
                n += 1
    tools: object = U
    choice: object = U
    if draw(st.booleans()):
        names = draw(st.lists(st.from_regex(r"[a-z_]{1,10}", fullmatch=True), min_size=1, max_size=3, unique=True))
        tools = [
            ToolDefinition(
                name=name,
                description=draw(st.sampled_from([U, "", "does things"])),
                parameters=draw(st.sampled_from([U, {"type": "object", "properties": {"b": {"type": "string"}, "a": {"type": "integer"}}, "required": ["b"]}])),
                strict=draw(st.sampled_from([U, True, False])),
            )
            for name in names
        ]
        mode = draw(st.sampled_from([None, "auto", "none", "required", "tool"]))
        if mode is not None:
            choice = ToolChoice(mode=mode, name=names[0] if mode == "tool" else U, parallel=draw(st.sampled_from([U, True, False])))
    return Transcript(schema_version=SCHEMA_VERSION, items=items, tools=tools, tool_choice=choice)  # type: ignore[arg-type]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), st.sampled_from(["openai", "deepseek", "openrouter", "ollama"]))
def test_supported_subset_round_trips_unchanged(data: st.DataObject, dialect: str) -> None:
    # the model the caller passes back is recorded in the settings of the decoded body
    transcript = msgspec.structs.replace(data.draw(transcripts(dialect)), settings=Settings(model="gpt-test"))
    mapper = OpenAIChatMapper(dialect)  # type: ignore[arg-type]
    before = to_builtins(transcript)
    encoded = mapper.encode_request(transcript, model="gpt-test")
    assert not encoded.report.entries
    decoded = mapper.decode_request(encoded.value)
    assert not decoded.report.entries
    assert to_builtins(decoded.value) == before
    assert to_builtins(transcript) == before  # not mutated
