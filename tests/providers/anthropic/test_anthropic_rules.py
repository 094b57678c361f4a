"""Each Anthropic wire rule, tested with the input shape that breaks naive mappers."""

from __future__ import annotations

import copy
import dataclasses
import re

import msgspec
import pytest

from interlingua.codec import SCHEMA_VERSION, to_builtins
from interlingua.errors import ConversionError, MalformedArgumentsError, MappingError
from interlingua.items import (
    Annotation,
    AudioItem,
    Base64Source,
    CacheBreakpoint,
    DocumentItem,
    ErrorItem,
    FileSource,
    ImageItem,
    OpaqueReasoning,
    RawItem,
    ReasoningItem,
    ReasoningSettings,
    RefusalItem,
    Settings,
    StopReason,
    StructuredItem,
    TextItem,
    TextSource,
    ToolCallItem,
    ToolChoice,
    ToolDefinition,
    ToolResultItem,
    Transcript,
    UrlSource,
    Usage,
)
from interlingua.mapping import ModelResponse, get_mapper
from interlingua.providers.anthropic import mapper

SIG = OpaqueReasoning(namespace="anthropic.signature", issuer="anthropic", value="EqQBsig==")
ID_RE = re.compile(r"^[a-zA-Z0-9_-]+$")


MODEL = "claude-sonnet-4-5"
BUDGET = Settings(max_output_tokens=1024)
"""The conversation rules below are tested on sendable bodies: a model and a max_tokens, so nothing about settings is reported."""


def transcript(*items, **fields) -> Transcript:
    """A transcript; with the definitions of the tools it calls unless ``tools`` is given (Anthropic
    refuses tool_use blocks without them)."""
    fields.setdefault("settings", BUDGET)
    names = list(dict.fromkeys(i.name for i in items if isinstance(i, ToolCallItem)))
    if names and "tools" not in fields:
        fields["tools"] = [ToolDefinition(name=n, parameters={"type": "object"}) for n in names]
    fields = {k: v for k, v in fields.items() if v is not None}
    return Transcript(schema_version=SCHEMA_VERSION, items=list(items), **fields)


def encode(t: Transcript, **kw):
    before = to_builtins(t)
    kw.setdefault("model", MODEL)
    conv = mapper.encode_request(t, **kw)
    assert to_builtins(t) == before, "encode_request mutated its input"
    return conv


def user(text: str, **kw) -> TextItem:
    return TextItem(text=text, role="user", **kw)


def call(cid: str = "toolu_A", name: str = "get", **kw) -> ToolCallItem:
    return ToolCallItem(id=cid, name=name, arguments={"q": 1}, **kw)


def result(cid: str = "toolu_A", text: str = "ok", **kw) -> ToolResultItem:
    return ToolResultItem(call_id=cid, content=[TextItem(text=text)], **kw)


# --------------------------------------------------------------------------- turn shape


def test_result_then_user_text_becomes_one_user_turn_starting_with_the_result():
    t = transcript(user("hi"), call(), result(), user("and now?"))
    conv = encode(t)
    assert conv.value["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_A", "name": "get", "input": {"q": 1}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_A", "content": "ok"}, {"type": "text", "text": "and now?"}]},
    ]
    assert not conv.report


def test_text_before_result_is_moved_after_it_and_reported():
    t = transcript(user("hi"), call(), user("before"), result())
    conv = encode(t)
    assert conv.value["messages"][2]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_A", "content": "ok"},
        {"type": "text", "text": "before"},
    ]
    assert [e.action for e in conv.report] == ["changed"] and "start of the user message" in conv.report.entries[0].reason


def test_parallel_results_share_one_user_turn():
    t = transcript(user("hi"), call("toolu_A"), call("toolu_B"), result("toolu_A"), result("toolu_B", "two"))
    msgs = encode(t).value["messages"]
    assert len(msgs) == 3
    assert [b["tool_use_id"] for b in msgs[2]["content"]] == ["toolu_A", "toolu_B"]


def test_consecutive_same_role_messages_with_different_keys_stay_apart():
    # Anthropic combines consecutive same-role turns itself: a source that sent two user messages
    # (a recorded pydantic-ai retry) gets them back as two.
    t = transcript(user("a", message="m0"), user("b", message="m1"), TextItem(text="c", role="assistant", message="m2"))
    conv = encode(t)
    assert conv.value["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "a"}]},
        {"role": "user", "content": [{"type": "text", "text": "b"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "c"}]},
    ]
    assert not [e for e in conv.report if e.action == "changed"]


def test_flat_parallel_calls_become_one_assistant_message_and_results_one_user_message():
    # OpenAI Responses keys one message per item. Each tool_use must be answered by the next message
    # (issue 25: assistant[tool_use A], assistant[tool_use B], user[results] is refused), so the calls
    # of the turn are one message; text before the first call keeps its own message.
    t = transcript(
        user("hi", message="m0"),
        TextItem(text="checking", role="assistant", message="m1"),
        call("toolu_A", message="m2"), call("toolu_B", message="m3"),
        result("toolu_A", message="m4"), result("toolu_B", message="m5"),
    )
    conv = encode(t)
    msgs = conv.value["messages"]
    assert [m["role"] for m in msgs] == ["user", "assistant", "assistant", "user"]
    assert [b["id"] for b in msgs[2]["content"]] == ["toolu_A", "toolu_B"]
    assert [b["tool_use_id"] for b in msgs[3]["content"]] == ["toolu_A", "toolu_B"]
    changed = [e for e in conv.report if e.action == "changed"]
    assert sorted((e.index, e.item_type) for e in changed) == [(3, "tool_call"), (4, "tool_result")]


def test_text_after_the_calls_joins_the_calls_message():
    t = transcript(user("hi", message="m0"), call("toolu_A", message="m1"), TextItem(text="one more", role="assistant", message="m2"), call("toolu_B", message="m3"), result("toolu_A", message="m4"), result("toolu_B", message="m5"))
    msgs = encode(t).value["messages"]
    assert [m["role"] for m in msgs] == ["user", "assistant", "user"]
    assert [b["type"] for b in msgs[1]["content"]] == ["tool_use", "text", "tool_use"]


def test_user_text_then_result_in_later_message_is_one_message_results_first():
    t = transcript(user("hi", message="m0"), call("toolu_A", message="m1"), user("note", message="m2"), result("toolu_A", message="m3"))
    conv = encode(t)
    msgs = conv.value["messages"]
    assert msgs[2] == {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_A", "content": "ok"}, {"type": "text", "text": "note"}]}
    assert len(msgs) == 3
    assert any("joined into one message" in e.reason for e in conv.report)


def test_signed_reasoning_then_tool_call_stay_in_one_assistant_turn_before_tool_use():
    t = transcript(
        user("weather?", message="m0"),
        ReasoningItem(text="I should call the tool.", opaque=SIG, message="resp:msg_1"),
        ReasoningItem(redacted=True, opaque=OpaqueReasoning(namespace="anthropic.redacted_thinking", issuer="anthropic", value="RED"), message="resp:msg_1"),
        call(message="resp:msg_2"),  # a different key must not split the turn
        result(),
    )
    msgs = encode(t).value["messages"]
    assert msgs[1] == {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "I should call the tool.", "signature": "EqQBsig=="},
            {"type": "redacted_thinking", "data": "RED"},
            {"type": "tool_use", "id": "toolu_A", "name": "get", "input": {"q": 1}},
        ],
    }
    assert msgs[2]["content"][0]["type"] == "tool_result"


def test_assistant_turn_of_only_tool_use_is_not_padded_with_empty_text():
    t = transcript(user("x"), TextItem(text="", role="assistant"), call(), result())
    conv = encode(t)
    assert conv.value["messages"][1]["content"] == [{"type": "tool_use", "id": "toolu_A", "name": "get", "input": {"q": 1}}]
    assert [(e.action, e.index, e.item_type) for e in conv.report] == [("dropped", 1, "text")]


# --------------------------------------------------------------------------- ids


def test_invalid_tool_id_is_mapped_the_same_on_call_and_result():
    bad = "functions.write_todos:0"
    t = transcript(user("todo"), call(bad, "write_todos"), result(bad))
    conv = encode(t)
    use = conv.value["messages"][1]["content"][0]
    res = conv.value["messages"][2]["content"][0]
    assert use["id"] == res["tool_use_id"] != bad
    assert ID_RE.match(use["id"]) and use["id"].startswith("toolu_")
    assert [e.action for e in conv.report] == ["changed"] and bad in conv.report.entries[0].reason
    # deterministic
    assert encode(t).value == conv.value


def test_derived_id_never_collides_with_a_kept_id():
    bad = "functions.write_todos:0"
    derived = mapper.id_rule.derive(bad)
    t = transcript(user("x"), call(derived), call(bad), result(derived), result(bad))
    ids = [b["id"] for b in encode(t).value["messages"][1]["content"]]
    assert ids[0] == derived and ids[1] != derived and ID_RE.match(ids[1])


def test_valid_foreign_ids_are_kept():
    t = transcript(user("x"), call("call_abc123"), result("call_abc123"))
    conv = encode(t)
    assert conv.value["messages"][1]["content"][0]["id"] == "call_abc123" and not conv.report


# --------------------------------------------------------------------------- empty text, reasoning, raw


@pytest.mark.parametrize("text", ["", "   ", "\n"])
def test_empty_text_is_dropped_and_reported(text):
    t = transcript(user("hello"), user(text), TextItem(text="ok", role="assistant"))
    conv = encode(t)
    assert conv.value["messages"][0]["content"] == [{"type": "text", "text": "hello"}]
    assert [(e.action, e.index) for e in conv.report] == [("dropped", 1)]


def test_message_made_only_of_empty_text_disappears_and_turns_merge():
    t = transcript(user("a"), TextItem(text="", role="assistant"), user("b"))
    conv = encode(t)
    assert conv.value["messages"] == [{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}]
    assert len(conv.report) == 1


def test_foreign_opaque_is_dropped_and_reported_never_turned_into_text():
    gem = OpaqueReasoning(namespace="gemini.thought_signature", issuer="gemini", value="c2lnbmF0dXJl")
    t = transcript(user("q"), ReasoningItem(text="secret chain of thought", opaque=gem), call(), result())
    conv = encode(t)
    assert conv.value["messages"][1]["content"] == [{"type": "tool_use", "id": "toolu_A", "name": "get", "input": {"q": 1}}]
    assert "secret chain of thought" not in repr(conv.value) and "c2lnbmF0dXJl" not in repr(conv.value)
    [entry] = conv.report
    assert entry.action == "dropped" and entry.item_type == "reasoning" and "gemini" in entry.reason


@pytest.mark.parametrize("policy", ["error", "drop", "degrade"])
def test_foreign_and_unsigned_reasoning_is_dropped_under_every_policy(policy):
    t = transcript(user("q"), ReasoningItem(text="think", summary=["s"]), TextItem(text="a", role="assistant"))
    conv = encode(t, policy=policy)
    assert conv.value["messages"][1]["content"] == [{"type": "text", "text": "a"}]
    assert [e.action for e in conv.report] == ["dropped"]


def test_raw_items_go_back_only_to_anthropic():
    srv = {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "x"}}
    t = transcript(
        user("q"),
        RawItem(provider="anthropic", value=srv, role="assistant"),
        RawItem(provider="openai-responses", value={"type": "web_search_call", "id": "ws_1"}, role="assistant"),
        TextItem(text="done", role="assistant"),
    )
    conv = encode(t)
    assert conv.value["messages"][1]["content"] == [srv, {"type": "text", "text": "done"}]
    assert [(e.action, e.item_type) for e in conv.report] == [("dropped", "raw")]


# --------------------------------------------------------------------------- system


def test_system_and_developer_items_go_to_top_level_system():
    t = transcript(TextItem(text="be brief", role="system"), TextItem(text="use tools", role="developer"), user("hi"))
    conv = encode(t)
    assert conv.value["system"] == [{"type": "text", "text": "be brief"}, {"type": "text", "text": "use tools"}]
    assert [e.action for e in conv.report] == ["changed"] and "developer" in conv.report.entries[0].reason


def test_single_system_item_is_sent_as_a_string():
    conv = encode(transcript(TextItem(text="be brief", role="system"), user("hi")))
    assert conv.value["system"] == "be brief" and not conv.report


def test_system_item_in_the_middle_stays_a_system_turn_in_place():
    # Messages API messages[] takes role "system" (anthropic-sdk-python BetaSystemMessageParam; recorded 200s)
    t = transcript(TextItem(text="s0", role="system"), user("hi"), TextItem(text="a", role="assistant"), TextItem(text="now be formal", role="system"), user("ok"))
    conv = encode(t)
    assert conv.value["system"] == "s0"
    assert conv.value["messages"][2] == {"role": "system", "content": [{"type": "text", "text": "now be formal"}]}
    assert [m["role"] for m in conv.value["messages"]] == ["user", "assistant", "system", "user"]
    assert not conv.report


def test_real_mid_conversation_system_turns_round_trip() -> None:
    """pydantic-ai cassette test_anthropic_mid_conversation_system/test_two_mid_conversation_system_prompts_keep_their_order
    (messages trimmed to the system turns and their neighbours)."""
    body = {
        "max_tokens": 4096,
        "model": "claude-opus-4-8",
        "system": "You are a code reviewer.",
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "Review `def add(a, b): return a + b`."}]},
            {"role": "assistant", "content": [{"type": "text", "text": "Looks fine."}]},
            {"role": "system", "content": [{"type": "text", "text": "From now on, every suggestion must include explicit type annotations."}]},
            {"role": "system", "content": [{"type": "text", "text": "Also always state the time complexity."}]},
            {"role": "user", "content": [{"type": "text", "text": "Review it once more."}]},
        ],
    }
    conv = mapper.decode_request(body)
    back = mapper.encode_request(conv.value, model="claude-opus-4-8")
    assert back.value["messages"] == body["messages"] and back.value["system"] == body["system"]
    assert not back.report


def test_tool_addition_in_a_system_turn_round_trips_and_is_reported_elsewhere() -> None:
    """A ``tool_addition`` block (SDK BetaRequestToolAdditionBlockParam) in a mid-conversation system turn."""
    body = {
        "max_tokens": 1024,
        "model": "claude-sonnet-4-5",
        "tools": [{"name": "get_weather", "input_schema": {"type": "object"}, "defer_loading": True}],
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "hi"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "hello"}]},
            {"role": "system", "content": [{"type": "tool_addition", "tool": {"type": "tool_reference", "tool_name": "get_weather"}}]},
            {"role": "user", "content": [{"type": "text", "text": "weather?"}]},
        ],
    }
    conv = mapper.decode_request(body)
    back = mapper.encode_request(conv.value, model="claude-sonnet-4-5")
    assert back.value["messages"] == body["messages"] and not back.report
    from interlingua.mapping.registry import get_mapper

    other = get_mapper("openai-chat").encode_request(conv.value, policy="drop")
    assert any(e.action == "dropped" and e.item_type == "raw" for e in other.report), other.report.lines()


# --------------------------------------------------------------------------- unsupported content


def test_audio_is_unsupported_under_each_policy():
    audio = AudioItem(source=Base64Source(media_type="audio/wav", data="UklGRg=="), role="user", format="wav")
    t = transcript(user("listen"), audio)
    with pytest.raises(ConversionError):
        encode(t)
    dropped = encode(t, policy="drop")
    assert dropped.value["messages"][0]["content"] == [{"type": "text", "text": "listen"}]
    assert [(e.action, e.item_type) for e in dropped.report] == [("dropped", "audio")]
    degraded = encode(t, policy="degrade")
    marker = degraded.value["messages"][0]["content"][1]
    assert marker["type"] == "text" and "audio" in marker["text"] and "UklGRg" not in marker["text"]
    assert [e.action for e in degraded.report] == ["degraded"]


@pytest.mark.parametrize(
    "item",
    [
        ImageItem(source=Base64Source(media_type="image/tiff", data="AAAA"), role="user"),
        ImageItem(source=FileSource(file_id="file-abc", provider="openai-responses"), role="user"),
        DocumentItem(source=Base64Source(media_type="application/msword", data="AAAA"), role="user"),
        ErrorItem(code="server", message="boom"),
        RefusalItem(text="no"),
    ],
)
def test_content_anthropic_cannot_carry_follows_policy(item):
    t = transcript(user("x"), item)
    with pytest.raises(ConversionError):
        encode(t)
    conv = encode(t, policy="drop")
    assert len(conv.report) == 1 and conv.report.entries[0].action == "dropped"


def test_structured_item_is_sent_as_json_text_and_reported():
    t = transcript(user("x"), StructuredItem(data={"a": [1, 2]}))
    conv = encode(t)
    assert conv.value["messages"][1] == {"role": "assistant", "content": [{"type": "text", "text": '{"a":[1,2]}'}]}
    assert [e.action for e in conv.report] == ["changed"]


def test_malformed_arguments_are_refused_or_dropped_with_their_result_never_empty_object():
    bad = ToolCallItem(id="toolu_X", name="f", arguments_raw='{"a": ', arguments_error="truncated")
    t = transcript(user("x"), bad, result("toolu_X"), user("next"))
    with pytest.raises(MalformedArgumentsError):
        encode(t)
    conv = encode(t, policy="drop")
    assert "'input'" not in repr(conv.value["messages"])
    assert conv.value["messages"] == [{"role": "user", "content": [{"type": "text", "text": "x"}, {"type": "text", "text": "next"}]}]
    assert [(e.action, e.item_type) for e in conv.report] == [("dropped", "tool_call"), ("dropped", "tool_result")]


def test_history_with_tool_calls_but_no_tools_is_refused_or_given_definitions():
    # Anthropic refuses tool_use blocks in a request without tools (issue 25): the mapper applies the
    # rule the preflight applies (refused under error, definitions synthesized and reported otherwise)
    t = transcript(user("x"), call(name="get"), result(), tools=None)
    with pytest.raises(ConversionError, match="no tool definitions"):
        encode(t)
    conv = encode(t, policy="drop")
    assert conv.value["tools"] == [{"name": "get", "input_schema": {"type": "object", "additionalProperties": True}}]
    assert [(e.action, e.pointer) for e in conv.report if e.item_type == "tools"] == [("changed", "/tools/0")]
    assert len(conv.value["messages"]) == 3
    caps = mapper.capabilities("claude-sonnet-4-5")
    assert caps.requires_tool_definitions is True and caps.tools and caps.parallel_tool_calls
    assert "audio" not in caps.input_modalities and {"text", "image", "document"} <= set(caps.input_modalities)
    assert caps.reasoning and caps.streaming and caps.prompt_caching and caps.stop_sequences and caps.assistant_prefill and caps.raw_round_trip


def test_model_is_written_only_when_given():
    t = transcript(user("x"))
    without = encode(t, model=None)
    assert "model" not in without.value
    assert [(e.action, e.pointer) for e in without.report] == [("changed", "/model")] and "no 'model'" in without.report.entries[0].reason
    assert encode(t, model="claude-haiku-4-5").value["model"] == "claude-haiku-4-5"


# --------------------------------------------------------------------------- tools and tool choice


def test_tools_keep_input_schema_exactly_and_other_fields_in_provider_data():
    schema = {"type": "object", "properties": {"q": {"type": "string", "x-custom": [1, None]}}, "required": ["q"]}
    body = {
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [
            {"name": "search", "description": "d", "input_schema": schema, "cache_control": {"type": "ephemeral"}},
            {"type": "web_search_20250305", "name": "web_search", "max_uses": 3},
        ],
        "tool_choice": {"type": "any", "disable_parallel_tool_use": True},
    }
    before = copy.deepcopy(body)
    conv = mapper.decode_request(body)
    assert body == before
    t = conv.value
    assert t.tools[0].parameters == schema and t.tools[0].provider_data == {"anthropic": {"cache_control": {"type": "ephemeral"}}}
    assert t.tools[1].parameters is msgspec.UNSET and t.tools[1].provider_data == {"anthropic": {"type": "web_search_20250305", "max_uses": 3}}
    assert t.tool_choice == ToolChoice(mode="required", parallel=False)
    back = encode(t).value
    assert back["tools"] == body["tools"] and back["tool_choice"] == body["tool_choice"]
    assert back["messages"] == body["messages"]  # the client's string content comes back a string (ADR 0027)


def test_foreign_tool_provider_data_is_dropped_and_reported():
    tools = [ToolDefinition(name="f", parameters={"type": "object"}, strict=True, provider_data={"openai": {"type": "function"}})]
    conv = encode(transcript(user("x"), tools=tools))
    assert conv.value["tools"] == [{"name": "f", "input_schema": {"type": "object"}, "strict": True}]
    assert [e.action for e in conv.report] == ["dropped"]


@pytest.mark.parametrize(
    ("wire", "canonical"),
    [
        ({"type": "auto"}, ToolChoice(mode="auto")),
        ({"type": "none"}, ToolChoice(mode="none")),
        ({"type": "any"}, ToolChoice(mode="required")),
        ({"type": "tool", "name": "f", "disable_parallel_tool_use": False}, ToolChoice(mode="tool", name="f", parallel=True)),
    ],
)
def test_tool_choice_both_ways(wire, canonical):
    t = mapper.decode_request({"messages": [], "tool_choice": wire}).value
    assert t.tool_choice == canonical
    assert encode(t).value["tool_choice"] == wire


# --------------------------------------------------------------------------- decoding request blocks


def test_decode_request_block_kinds():
    citation = {"type": "char_location", "cited_text": "grass is green", "document_index": 0, "document_title": None, "start_char_index": 4, "end_char_index": 18}
    page = {"type": "page_location", "cited_text": "water", "document_index": 1, "document_title": "PDF", "start_page_number": 5, "end_page_number": 6}
    body = {
        "system": [{"type": "text", "text": "sys"}, {"type": "text", "text": "cached", "cache_control": {"type": "ephemeral"}}],
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
                    {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}},
                    {"type": "image", "source": {"type": "file", "file_id": "file_01"}},
                    {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0="}, "title": "T", "context": "C", "citations": {"enabled": True}},
                    {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "The grass is green."}},
                    {"type": "document", "source": {"type": "url", "url": "https://example.com/a.pdf"}},
                    {"type": "document", "source": {"type": "file", "file_id": "file_02"}},
                    {"type": "document", "source": {"type": "content", "content": [{"type": "text", "text": "chunk"}]}},
                    {"type": "text", "text": "Summarize."},
                ],
            },
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "hmm", "signature": "sig"},
                    {"type": "text", "text": "The grass is green", "citations": [citation, page]},
                    {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "q"}},
                    {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": [{"type": "web_search_result", "url": "https://x", "title": "X", "encrypted_content": "E", "page_age": None}]},
                    {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "is_error": True, "content": [{"type": "text", "text": "failed"}, {"type": "image", "source": {"type": "url", "url": "https://example.com/e.png"}}]},
                ],
            },
        ],
        "tools": [{"name": "f", "input_schema": {"type": "object"}}],
    }
    before = copy.deepcopy(body)
    conv = mapper.decode_request(body)
    assert body == before
    items = conv.value.items
    kinds = [type(i).__name__ for i in items]
    assert kinds == [
        "TextItem", "TextItem",
        "ImageItem", "ImageItem", "ImageItem", "DocumentItem", "DocumentItem", "DocumentItem", "DocumentItem", "RawItem", "TextItem",
        "ReasoningItem", "TextItem", "RawItem", "RawItem", "ToolCallItem",
        "ToolResultItem",
    ]  # fmt: skip
    assert items[0].role == items[1].role == "system" and items[0].message is msgspec.UNSET
    assert not conv.report  # the cache_control is the item's breakpoint
    assert items[1].cache_breakpoint == CacheBreakpoint() and items[0].cache_breakpoint is msgspec.UNSET
    assert items[2].source == Base64Source(media_type="image/png", data="iVBORw0KGgo=")
    assert items[3].source == UrlSource(url="https://example.com/a.png")
    assert items[4].source == FileSource(file_id="file_01", provider="anthropic")
    assert (items[5].title, items[5].context, items[5].citations, items[5].media_type) == ("T", "C", True, "application/pdf")
    assert items[6].source == TextSource(text="The grass is green.", media_type="text/plain")
    assert items[9].value["source"]["type"] == "content" and items[9].role == "user"
    assert items[11].opaque == OpaqueReasoning(namespace="anthropic.signature", issuer="anthropic", value="sig") and items[11].text == "hmm"
    a0, a1 = items[12].annotations
    assert a0 == Annotation(kind="char_location", cited_text="grass is green", document_index=0, start_index=4, end_index=18, provider_data={"anthropic": {"document_title": None}})
    assert a1.title == "PDF" and a1.provider_data == {"anthropic": {"start_page_number": 5, "end_page_number": 6}}
    assert items[13].provider == "anthropic" and items[13].value["type"] == "server_tool_use"
    res = items[16]
    assert res.is_error is True and [type(c).__name__ for c in res.content] == ["TextItem", "ImageItem"]
    assert res.content[0].role is msgspec.UNSET and res.content[1].role is msgspec.UNSET
    assert {i.message for i in items[2:]} == {"m0", "m1", "m2"}
    # and back: everything returns as it came, with the model and the max_tokens a sendable body needs
    back = encode(conv.value, policy="error").value
    assert back == {"model": MODEL, "max_tokens": 21333, **body}  # the largest the official clients send without streaming


def test_tool_result_with_block_without_canonical_form_is_kept_raw_and_reported():
    block = {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "search_result", "source": "s", "title": "t", "content": [{"type": "text", "text": "x"}]}]}
    body = {"messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}]}, {"role": "user", "content": [block]}], "tools": [{"name": "f", "input_schema": {"type": "object"}}]}
    conv = mapper.decode_request(body)
    raw = conv.value.items[-1]
    assert isinstance(raw, RawItem) and raw.value == block and raw.role == "user"
    assert [e.action for e in conv.report] == ["changed"]
    assert encode(conv.value).value["messages"][2]["content"] == [block]


def test_string_content_and_string_tool_result_content():
    body = {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {"a": 1}}]}, {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1"}]}], "tools": [{"name": "f", "input_schema": {"type": "object"}}]}
    t = mapper.decode_request(body).value
    assert t.items[0] == TextItem(text="hi", role="user", message="m0")
    assert t.items[2] == ToolResultItem(call_id="t1", content=[], message="m2")
    assert encode(t).value["messages"][2]["content"] == [{"type": "tool_result", "tool_use_id": "t1"}]


def test_bad_request_bodies_raise_mapping_error():
    with pytest.raises(MappingError):
        mapper.decode_request({"system": "x"})
    with pytest.raises(MappingError):
        mapper.decode_request({"messages": [{"role": "tool", "content": "x"}]})
    with pytest.raises(MappingError):
        mapper.decode_response({"type": "message"})


def test_kind_of():
    assert mapper.kind_of({"messages": []}) == "request"
    assert mapper.kind_of({"type": "message", "content": []}) == "response"
    assert mapper.kind_of({"type": "message"}) is None
    assert mapper.kind_of({"choices": []}) is None
    assert mapper.kind_of({"contents": []}) is None


# --------------------------------------------------------------------------- responses


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("end_turn", "end_turn"),
        ("max_tokens", "max_tokens"),
        ("stop_sequence", "stop_sequence"),
        ("tool_use", "tool_use"),
        ("pause_turn", "pause"),
        ("refusal", "refusal"),
        ("model_context_window_exceeded", "max_tokens"),
        ("something_new", "other"),
    ],
)
def test_stop_reason_mapping(raw, reason):
    body = {"id": "msg_1", "type": "message", "role": "assistant", "content": [{"type": "text", "text": "x"}], "model": "m", "stop_reason": raw, "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}
    resp = mapper.decode_response(body).value
    assert resp.stop_reason == StopReason(reason=reason, raw=raw)
    assert mapper.encode_response(resp).value["stop_reason"] == (raw if reason != "other" else "end_turn")


def test_foreign_stop_reason_is_translated():
    resp = ModelResponse(items=[TextItem(text="x", role="assistant")], stop_reason=StopReason(reason="max_tokens", raw="length"))
    assert mapper.encode_response(resp).value["stop_reason"] == "max_tokens"
    resp = ModelResponse(items=[TextItem(text="x", role="assistant")], stop_reason=StopReason(reason="content_filter", raw="content_filter"))
    conv = mapper.encode_response(resp)
    assert conv.value["stop_reason"] == "refusal" and [e.action for e in conv.report] == ["changed"]


def test_usage_with_cache_reads_and_writes():
    usage = {"input_tokens": 10, "cache_creation_input_tokens": 200, "cache_read_input_tokens": 3000, "output_tokens": 50, "output_tokens_details": {"thinking_tokens": 20}, "service_tier": "standard"}
    body = {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "model": "m", "stop_reason": "end_turn", "stop_sequence": None, "usage": usage}
    u = mapper.decode_response(body).value.usage
    assert u == Usage(input_tokens=3210, output_tokens=50, reasoning_tokens=20, cache_read_tokens=3000, cache_write_tokens=200, total_tokens=3260, details=usage)
    assert mapper.encode_response(ModelResponse(usage=u)).value["usage"] == usage
    foreign = Usage(input_tokens=3210, output_tokens=50, cache_read_tokens=3000, details={"prompt_tokens": 3210})
    assert mapper.encode_response(ModelResponse(usage=foreign)).value["usage"] == {"input_tokens": 210, "output_tokens": 50, "cache_read_input_tokens": 3000}


def test_refusal_category_and_stop_sequence_are_kept_for_anthropic_and_reported_elsewhere():
    body = {
        "id": "msg_r", "type": "message", "role": "assistant", "content": [], "model": "m",
        "stop_reason": "refusal", "stop_sequence": None,
        "stop_details": {"type": "refusal", "category": "cyber", "explanation": "no"},
        "usage": {"input_tokens": 1, "output_tokens": 0},
    }  # fmt: skip
    conv = mapper.decode_response(body)
    assert conv.value.items == [RefusalItem(text="no", message="resp:msg_r", origin=conv.value.items[0].origin)]
    assert not conv.report
    back = mapper.encode_response(conv.value)
    assert back.value["stop_details"] == {"type": "refusal", "explanation": "no", "category": "cyber"} and back.value["stop_reason"] == "refusal"
    assert not back.report
    body2 = dict(body, stop_reason="stop_sequence", stop_sequence="###", stop_details=None)
    conv2 = mapper.decode_response(body2)
    assert not conv2.report
    assert mapper.encode_response(conv2.value).value["stop_sequence"] == "###"
    # another stop reason: the kept sequence is not written; another provider reports it dropped
    other = msgspec.structs.replace(conv2.value.stop_reason, reason="end_turn", raw="end_turn")
    assert mapper.encode_response(dataclasses.replace(conv2.value, stop_reason=other)).value["stop_sequence"] is None
    chat = get_mapper("openai-chat").encode_response(conv2.value)
    assert any(e.action == "dropped" and e.item_type == "response" and "body" in e.reason for e in chat.report), chat.report.lines()


def test_encode_response_refuses_user_side_items():
    resp = ModelResponse(items=[TextItem(text="hi", role="user")])
    with pytest.raises(ConversionError):
        mapper.encode_response(resp)
    assert mapper.encode_response(resp, policy="drop").value["content"] == []


def test_response_opaque_records_the_model_but_replays_to_another_claude():
    body = {"id": "msg_1", "type": "message", "role": "assistant", "content": [{"type": "thinking", "thinking": "t", "signature": "s"}, {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}], "model": "claude-sonnet-4-20250514", "stop_reason": "tool_use", "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}
    items = mapper.decode_response(body).value.items
    assert items[0].opaque.model == "claude-sonnet-4-20250514"
    t = transcript(user("q"), *items, result("toolu_1"))
    conv = encode(t, model="claude-sonnet-4-0")
    assert conv.value["messages"][1]["content"][0] == {"type": "thinking", "thinking": "t", "signature": "s"} and not conv.report


def test_anthropic_refusal_in_history_is_dropped_and_reported_foreign_one_follows_policy():
    body = {
        "id": "msg_r", "type": "message", "role": "assistant", "content": [{"type": "text", "text": "I can't"}], "model": "m",
        "stop_reason": "refusal", "stop_sequence": None, "stop_details": {"type": "refusal", "explanation": "policy"},
        "usage": {"input_tokens": 1, "output_tokens": 0},
    }  # fmt: skip
    items = mapper.decode_response(body).value.items
    conv = encode(transcript(user("q"), *items, user("why?")))
    assert conv.value["messages"][1] == {"role": "assistant", "content": [{"type": "text", "text": "I can't"}]}
    assert [(e.action, e.item_type) for e in conv.report] == [("dropped", "refusal")]
    with pytest.raises(ConversionError):
        encode(transcript(user("q"), RefusalItem(text="no")))


def test_request_settings_are_kept_in_the_transcript_settings_and_go_back_exactly():
    """User report: max_tokens, thinking, temperature, stop_sequences, metadata were left out silently."""
    body = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 2048,
        "thinking": {"type": "enabled", "budget_tokens": 1024},
        "temperature": 1,
        "stop_sequences": ["END"],
        "metadata": {"user_id": "u1"},
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
    }
    before = copy.deepcopy(body)
    conv = mapper.decode_request(body)
    assert body == before
    assert not conv.report
    assert conv.value.settings == Settings(
        model="claude-sonnet-4-5", max_output_tokens=2048, temperature=1, stop=["END"],
        reasoning=ReasoningSettings(budget_tokens=1024), provider_data={"anthropic": {"metadata": {"user_id": "u1"}}},
    )  # fmt: skip
    back = mapper.encode_request(conv.value, model=conv.value.settings.model, policy="drop")
    # the current Messages API has no temperature (anthropic SDK MessageCreateParams): reported, not sent
    assert [(e.action, e.pointer) for e in back.report] == [("dropped", "/settings/temperature")]
    assert back.value == {k: v for k, v in body.items() if k != "temperature"}


def test_tool_reference_in_a_tool_result_round_trips_and_names_the_tool_elsewhere() -> None:
    """pydantic-ai cassette test_anthropic/test_anthropic_deferred_capability_tool_callable_without_tool_search.yaml, interaction 1."""
    from interlingua.mapping.registry import get_mapper

    result = {"content": [{"tool_name": "lookup_refund_policy", "type": "tool_reference"}], "is_error": False,
              "tool_use_id": "auto_load_0f10f8b659c3c105", "type": "tool_result"}
    body = {
        "max_tokens": 1024,
        "model": "claude-sonnet-4-5",
        "tools": [{"name": "lookup_refund_policy", "input_schema": {"type": "object"}}],
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "refund?"}]},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "auto_load_0f10f8b659c3c105", "name": "load_tool", "input": {"name": "lookup_refund_policy"}}]},
            {"role": "user", "content": [result]},
        ],
    }
    conv = mapper.decode_request(body)
    tr = conv.value.items[-1]
    assert isinstance(tr, ToolResultItem) and tr.content[0].text == "tool reference: lookup_refund_policy"
    back = mapper.encode_request(conv.value, model="claude-sonnet-4-5")
    assert back.value["messages"][2]["content"] == [result] and not back.report
    for target in ("openai-chat", "openai-responses", "gemini", "ollama"):
        out = get_mapper(target).encode_request(conv.value, model="m")
        assert "tool reference: lookup_refund_policy" in str(out.value), target
        assert any("tool_reference" in e.reason for e in out.report), (target, out.report.lines())


def test_stream_keeps_the_matched_stop_sequence_like_the_response():
    """test_settings/test_stop_settings_anthropic.yaml (the response ``stop_sequence: "Paris"``), as a stream."""
    from interlingua.streaming import StreamDone, iter_stream

    events = [
        ("message_start", {"type": "message_start", "message": {"id": "msg_01376yZQxHcw9pER2Ab2SvQb", "type": "message", "role": "assistant", "content": [],
                                                                "model": "claude-sonnet-4-5-20250929", "stop_reason": None, "stop_sequence": None,
                                                                "usage": {"input_tokens": 32, "output_tokens": 1}}}),
        ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "The beautiful city of "}}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "stop_sequence", "stop_sequence": "Paris"}, "usage": {"output_tokens": 5}}),
        ("message_stop", {"type": "message_stop"}),
    ]  # fmt: skip
    import json

    data = "".join(f"event: {e}\ndata: {json.dumps(d)}\n\n" for e, d in events).encode()
    (done,) = [e for e in iter_stream(mapper, data) if isinstance(e, StreamDone)]
    back = mapper.encode_response(done.response).value
    assert back["stop_reason"] == "stop_sequence" and back["stop_sequence"] == "Paris"
