"""Writers back to pydantic-ai and LangChain, checked by the real libraries (test-only dependencies).

Every real fixture's transcript is written, loaded by the library (pydantic-ai
``ModelMessagesTypeAdapter.validate_json``; LangChain ``messages_from_dict``), dumped again by the
library and read back with interlingua's reader: what comes back equals the source transcript except
where the writer's report names the difference (:func:`._roundtrip.unreported`).
"""

from __future__ import annotations

import base64
import copy
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from interlingua.history._integrity import READER_RULES, check_history
from hypothesis import given, settings
from hypothesis import strategies as st

from interlingua.compat import read, write
from interlingua.errors import ConversionError, UnknownFormatError
from interlingua.items import (
    Base64Source,
    ErrorItem,
    ImageItem,
    OpaqueReasoning,
    Origin,
    ReasoningItem,
    TextItem,
    ToolCallItem,
    ToolResultItem,
    Transcript,
    UrlSource,
)

from ._roundtrip import load, real_fixture_paths, unreported

pydantic_ai_messages = pytest.importorskip("pydantic_ai.messages")
lc_messages = pytest.importorskip("langchain_core.messages")

FIXTURES = real_fixture_paths()


def through_pydantic_ai(value: list[dict[str, Any]]) -> list[Any]:
    """Load with pydantic-ai and dump again: the JSON pydantic-ai itself would store."""
    adapter = pydantic_ai_messages.ModelMessagesTypeAdapter
    loaded = adapter.validate_json(json.dumps(value))
    assert len(loaded) == len(value)
    dumped: list[Any] = json.loads(adapter.dump_json(loaded))
    return dumped


def through_langchain(value: list[dict[str, Any]]) -> list[Any]:
    loaded = lc_messages.messages_from_dict(copy.deepcopy(value))
    assert len(loaded) == len(value)
    dumped: list[Any] = json.loads(json.dumps(lc_messages.messages_to_dict(loaded)))
    return dumped


LOADERS = {"pydantic-ai": through_pydantic_ai, "langchain": through_langchain}

# What the libraries add on load (defaults such as pydantic-ai's timestamps, LangChain's
# empty response_metadata) lands in the reader's metadata: that is not a difference of the conversation.
_LIBRARY_DEFAULTS = ("metadata",)


def _without_library_defaults(t: Transcript, source: Transcript) -> Transcript:
    items = []
    for i, item in enumerate(t.items):
        src_meta = source.items[i].metadata if i < len(source.items) and hasattr(source.items[i], "metadata") else msgspec.UNSET
        if hasattr(item, "metadata") and item.metadata is not msgspec.UNSET:
            item = msgspec.structs.replace(item, metadata=src_meta if src_meta is not msgspec.UNSET else msgspec.UNSET)
        items.append(item)
    return msgspec.structs.replace(t, items=items)


@pytest.mark.parametrize("fmt", sorted(LOADERS))  # the framework writers, loaded by the frameworks themselves (the stored-format writers: tests/compat/test_stored_conversations.py)
@pytest.mark.parametrize(("source", "path"), FIXTURES, ids=[p.name for _, p in FIXTURES])
def test_real_fixture_goes_to_the_framework_and_back(fmt: str, source: str, path: Path) -> None:
    t = load(source, path)
    before = msgspec.json.encode(t)
    out = write(t, fmt, policy="drop")
    assert msgspec.json.encode(t) == before, "write mutated its input"
    # Our own output read back: every difference is reported.
    back = read(json.loads(json.dumps(out.value)), fmt).transcript
    problems = unreported(t, back, out.report)
    assert not problems, "\n".join(problems)
    # The library reads it and, dumped again, it says the same (library defaults aside).
    again = read(LOADERS[fmt](out.value), fmt).transcript
    assert [msgspec.to_builtins(i) for i in _without_library_defaults(again, back).items] == [msgspec.to_builtins(i) for i in back.items]


def test_pydantic_ai_objects_hold_the_conversation() -> None:
    m = pydantic_ai_messages
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n").decode()
    t = Transcript(
        schema_version="1.0",
        items=[
            TextItem(text="Be brief.", role="system", message="a"),
            TextItem(text="What is this?", role="user", message="b"),
            ImageItem(source=Base64Source(media_type="image/png", data=png), role="user", message="b"),
            ImageItem(source=UrlSource(url="https://example.com/cat.jpg"), role="user", message="b"),
            ReasoningItem(text="look", opaque=OpaqueReasoning(namespace="anthropic.signature", issuer="anthropic", value="SIG"), message="c", origin=Origin(provider="anthropic", model="claude-x", response_id="msg_1")),
            ToolCallItem(id="toolu_1", name="lookup", arguments={"q": "cat"}, message="c", origin=Origin(provider="anthropic", model="claude-x", response_id="msg_1")),
            ToolCallItem(id="toolu_2", name="lookup", arguments_raw="{bad", arguments_error="not JSON", message="c"),
            ToolResultItem(call_id="toolu_1", content=[TextItem(text="a cat")], message="d"),
            ToolResultItem(call_id="toolu_2", content=[TextItem(text="failed")], is_error=True, message="d"),
            TextItem(text="A cat.", role="assistant", message="e"),
        ],
    )
    out = write(t, "pydantic-ai")
    msgs = m.ModelMessagesTypeAdapter.validate_json(json.dumps(out.value))
    req0, req1, resp, req2, resp2 = msgs
    assert isinstance(req0.parts[0], m.SystemPromptPart) and req0.parts[0].content == "Be brief."
    user = req1.parts[0]
    assert isinstance(user, m.UserPromptPart) and user.content[0] == "What is this?"
    assert isinstance(user.content[1], m.BinaryContent) and user.content[1].data == b"\x89PNG\r\n\x1a\n"
    assert isinstance(user.content[2], m.ImageUrl) and user.content[2].url == "https://example.com/cat.jpg"
    think, call, bad = resp.parts
    assert isinstance(think, m.ThinkingPart) and (think.signature, think.provider_name) == ("SIG", "anthropic")
    assert resp.model_name == "claude-x" and resp.provider_response_id == "msg_1" and resp.provider_name == "anthropic"
    assert isinstance(call, m.ToolCallPart) and call.args_as_dict() == {"q": "cat"} and call.tool_call_id == "toolu_1"
    assert bad.args == "{bad"  # malformed arguments stay raw text, never {}
    ok, failed = req2.parts
    assert isinstance(ok, m.ToolReturnPart) and (ok.tool_name, ok.content, ok.outcome) == ("lookup", "a cat", "success")
    assert failed.outcome == "failed"
    assert resp2.parts[0].content == "A cat."


def test_langchain_objects_hold_the_conversation() -> None:
    m = lc_messages
    t = Transcript(
        schema_version="1.0",
        items=[
            TextItem(text="Be brief.", role="system"),
            TextItem(text="Rules.", role="developer"),
            TextItem(text="What is this?", role="user", message="b"),
            ImageItem(source=Base64Source(media_type="image/png", data="iVBORw0KGgo="), role="user", message="b"),
            ReasoningItem(text="look", opaque=OpaqueReasoning(namespace="anthropic.signature", issuer="anthropic", value="SIG"), message="c", origin=Origin(provider="anthropic", model="claude-x")),
            TextItem(text="Checking.", role="assistant", message="c", origin=Origin(provider="anthropic", model="claude-x")),
            ToolCallItem(id="toolu_1", name="lookup", arguments={"q": "cat"}, message="c"),
            ToolCallItem(id="toolu_2", name="lookup", arguments_raw="{bad", arguments_error="not JSON", message="c"),
            ToolResultItem(call_id="toolu_1", content=[TextItem(text="a cat")], name="lookup"),
            ToolResultItem(call_id="toolu_2", content=[TextItem(text="failed")], is_error=True),
        ],
    )
    out = write(t, "langchain")
    sys_, dev, human, ai, tool1, tool2 = m.messages_from_dict(out.value)
    assert isinstance(sys_, m.SystemMessage) and sys_.content == "Be brief."
    assert isinstance(dev, m.ChatMessage) and dev.role == "developer"
    assert isinstance(human, m.HumanMessage) and human.content[1] == {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
    assert isinstance(ai, m.AIMessage)
    assert ai.content[0] == {"type": "thinking", "thinking": "look", "signature": "SIG"}
    assert ai.content[1] == {"type": "text", "text": "Checking."}
    assert ai.tool_calls == [{"name": "lookup", "args": {"q": "cat"}, "id": "toolu_1", "type": "tool_call"}]
    assert ai.invalid_tool_calls[0]["args"] == "{bad"
    assert ai.response_metadata["model_provider"] == "anthropic" and ai.response_metadata["model_name"] == "claude-x"
    assert isinstance(tool1, m.ToolMessage) and (tool1.tool_call_id, tool1.content, tool1.name, tool1.status) == ("toolu_1", "a cat", "lookup", "success")
    assert tool2.status == "error"


@pytest.mark.parametrize("fmt", sorted(LOADERS))  # the framework writers, loaded by the frameworks themselves (the stored-format writers: tests/compat/test_stored_conversations.py)
def test_policy_applies_to_items_without_a_form(fmt: str) -> None:
    t = Transcript(schema_version="1.0", items=[TextItem(text="hi", role="user"), ErrorItem(code="server", message="boom")])
    with pytest.raises(ConversionError) as exc:
        write(t, fmt)
    assert exc.value.index == 1
    dropped = write(t, fmt, policy="drop")
    assert [(e.action, e.index) for e in dropped.report] == [("dropped", 1)]
    degraded = write(t, fmt, policy="degrade")
    assert "omitted" in json.dumps(degraded.value)
    LOADERS[fmt](degraded.value)


@pytest.mark.parametrize("value", [{"type": [], "data": {}}, {"type": {"a": 1}}, {"type": None}])
def test_raw_items_with_a_type_that_is_no_string_follow_the_policy(value: dict[str, Any]) -> None:
    """A raw item whose value has a list or object ``type`` was a TypeError (unhashable) in the LangChain writer."""
    from interlingua.items import RawItem

    t = Transcript(schema_version="1.0", items=[TextItem(text="hi", role="user"), RawItem(provider="bedrock-converse", value=value)])
    out = write(t, "langchain", policy="degrade")
    LOADERS["langchain"](out.value)
    assert out.report and {e.index for e in out.report} == {1}


def test_unknown_writer() -> None:
    with pytest.raises(UnknownFormatError):
        write(Transcript(schema_version="1.0", items=[]), "gemini")


@pytest.mark.parametrize("fmt", sorted(LOADERS))  # the framework writers, loaded by the frameworks themselves (the stored-format writers: tests/compat/test_stored_conversations.py)
def test_order_kept_where_the_framework_holds_parts_by_kind(fmt: str) -> None:
    # LangChain keeps an ai message's content before its tool calls: text after a call splits the message.
    t = Transcript(
        schema_version="1.0",
        items=[
            TextItem(text="q", role="user"),
            ToolCallItem(id="c1", name="f", arguments={}, message="r"),
            TextItem(text="after the call", role="assistant", message="r"),
        ],
    )
    out = write(t, fmt)
    back = read(LOADERS[fmt](out.value), fmt).transcript
    assert [type(i).__name__ for i in back.items] == ["TextItem", "ToolCallItem", "TextItem"]
    assert not unreported(t, read(out.value, fmt).transcript, out.report)


_text = st.text(max_size=15)
_items = st.lists(
    st.one_of(
        st.builds(lambda t, r: TextItem(text=t, role=r), _text, st.sampled_from(["user", "assistant", "system"])),
        st.builds(lambda i, a: ToolCallItem(id=f"c{i}", name="f", arguments=a), st.integers(0, 3), st.dictionaries(st.text(max_size=4), st.integers(), max_size=2)),
        st.builds(lambda i, t, e: ToolResultItem(call_id=f"c{i}", name="f", content=[TextItem(text=t)] if t else [], is_error=True if e else msgspec.UNSET), st.integers(0, 3), _text, st.booleans()),
        st.builds(lambda t: ReasoningItem(text=t), st.text(min_size=1, max_size=15)),
    ),
    max_size=8,
)


@pytest.mark.parametrize("fmt", sorted(LOADERS))  # the framework writers, loaded by the frameworks themselves (the stored-format writers: tests/compat/test_stored_conversations.py)
@given(items=_items)
@settings(max_examples=40, deadline=None)
def test_property_every_difference_is_reported(fmt: str, items: list[Any]) -> None:
    t = Transcript(schema_version="1.0", items=items)
    out = write(t, fmt, policy="drop")
    LOADERS[fmt](out.value)
    migrated = read(json.loads(json.dumps(out.value)), fmt)
    if any(f.rule in READER_RULES for f in check_history(items)):
        # a history validate refuses (a result without its call, a reused call id): the reader
        # applies the integrity rules, so what comes back is valid, each change reported there
        assert not [f for f in check_history(migrated.transcript.items) if f.rule in READER_RULES]
        assert any(e.pointer and e.pointer.startswith("/items/") for e in migrated.report)
        return
    assert not unreported(t, migrated.transcript, out.report)


@pytest.mark.parametrize("fmt", sorted(LOADERS))  # the framework writers, loaded by the frameworks themselves (the stored-format writers: tests/compat/test_stored_conversations.py)
def test_unknown_items_of_a_newer_version_follow_the_policy(fmt: str) -> None:
    from interlingua.codec import decode_transcript

    t = decode_transcript(b'{"schema_version":"1.0","items":[{"type":"text","role":"user","text":"hi"},{"type":"hologram","x":1}]}')
    with pytest.raises(ConversionError):
        write(t, fmt)
    out = write(t, fmt, policy="degrade")
    assert [(e.action, e.index) for e in out.report] == [("degraded", 1)]
    LOADERS[fmt](out.value)
