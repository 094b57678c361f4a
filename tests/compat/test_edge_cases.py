"""Shapes that break naive readers: each rule of the pydantic-ai and LangChain readers."""

from __future__ import annotations

import msgspec
import pytest

from interlingua.codec import to_builtins
from interlingua.compat import read, read_any
from interlingua.errors import MappingError
from interlingua.items import AudioItem, Base64Source, DocumentItem, ImageItem, RawItem, ReasoningItem, TextItem, ToolCallItem, ToolResultItem


def _resp(*parts: dict, **fields: object) -> dict:
    return {"kind": "response", "parts": list(parts), **fields}


def _req(*parts: dict, **fields: object) -> dict:
    return {"kind": "request", "parts": list(parts), **fields}


def test_pydantic_ai_binary_content_picks_the_item_by_media_type() -> None:
    content = [
        {"kind": "binary", "data": "iVBORw0KGgo=", "media_type": "image/png"},
        {"kind": "binary", "data": "UklGRg==", "media_type": "audio/wav"},
        {"kind": "binary", "data": "JVBERi0=", "media_type": "application/pdf"},
        {"kind": "document-url", "url": "https://example.com/a.pdf", "media_type": "application/pdf"},
    ]
    m = read_any([_req({"part_kind": "user-prompt", "content": content})])
    kinds = [type(i) for i in m.transcript.items]
    assert kinds == [ImageItem, AudioItem, DocumentItem, DocumentItem]
    assert m.transcript.items[0].source == Base64Source(media_type="image/png", data="iVBORw0KGgo=")
    assert all(i.role == "user" for i in m.transcript.items)


def test_pydantic_ai_parts_without_canonical_form_stay_raw_and_are_reported() -> None:
    video = {"kind": "video-url", "url": "https://example.com/v.mp4"}
    builtin = {"part_kind": "builtin-tool-call", "tool_name": "web_search", "args": {"query": "x"}, "tool_call_id": "srvtoolu_1", "provider_name": "anthropic"}
    m = read_any([_req({"part_kind": "user-prompt", "content": ["look", video]}), _resp(builtin, provider_name="anthropic")])
    raws = [i for i in m.transcript.items if isinstance(i, RawItem)]
    assert [r.value for r in raws] == [video, builtin]
    assert all(r.provider == "pydantic-ai" for r in raws)
    assert len(m.report) == 2 and all(e.action == "changed" for e in m.report)


def test_pydantic_ai_redacted_thinking_and_gemini_signature() -> None:
    m = read_any(
        [
            _resp({"part_kind": "thinking", "content": "", "id": "redacted_thinking", "signature": "EmwKAhgB", "provider_name": "anthropic"}, provider_name="anthropic"),
            _resp({"part_kind": "thinking", "content": "hmm", "signature": "CiQB0e2K", "provider_name": "google-gla"}, provider_name="google-gla", model_name="gemini-2.5-flash"),
        ]
    )
    redacted, gemini = m.transcript.items
    assert isinstance(redacted, ReasoningItem) and redacted.redacted is True and redacted.opaque.namespace == "anthropic.redacted_thinking"
    assert redacted.text is msgspec.UNSET
    assert gemini.opaque.issuer == "gemini" and gemini.opaque.value == "CiQB0e2K" and gemini.opaque.model == "gemini-2.5-flash"


def test_pydantic_ai_tool_args_null_is_an_empty_object_and_failed_outcome_is_an_error() -> None:
    m = read_any(
        [
            _resp({"part_kind": "tool-call", "tool_name": "now", "args": None, "tool_call_id": "c1"}),
            _req({"part_kind": "tool-return", "tool_name": "now", "content": None, "tool_call_id": "c1", "outcome": "failed"}),
        ]
    )
    call, result = m.transcript.items
    assert call.arguments == {}  # pydantic-ai's own reading of args=None (args_as_dict)
    assert isinstance(result, ToolResultItem) and result.is_error is True and result.metadata == {"pydantic_ai": {"outcome": "failed"}}


def test_pydantic_ai_instructions_emitted_once_while_unchanged() -> None:
    user = {"part_kind": "user-prompt", "content": "hi"}
    m = read_any([_req(user, instructions="A"), _resp({"part_kind": "text", "content": "x"}), _req(user, instructions="A"), _resp({"part_kind": "text", "content": "y"}), _req(user, instructions="B")])
    systems = [i.text for i in m.transcript.items if isinstance(i, TextItem) and i.role == "system"]
    assert systems == ["A", "B"]


def test_pydantic_ai_retry_without_tool_is_user_text() -> None:
    m = read_any([_req({"part_kind": "retry-prompt", "content": "Please answer in JSON.", "tool_call_id": "x"})])
    (item,) = m.transcript.items
    assert isinstance(item, TextItem) and item.role == "user" and item.text == "Please answer in JSON."


@pytest.mark.parametrize(
    "bad",
    [[{"kind": "request"}], [{"kind": "other", "parts": []}], {"kind": "request", "parts": []}],
)
def test_pydantic_ai_malformed_history_is_refused(bad: object) -> None:
    with pytest.raises(MappingError):
        read(bad, "pydantic-ai")


def _ai(**data: object) -> dict:
    return {"type": "ai", "data": {"content": "", "additional_kwargs": {}, "type": "ai", **data}}


def test_langchain_openai_additional_kwargs_tool_calls_and_reasoning() -> None:
    m = read_any(
        [
            _ai(
                additional_kwargs={
                    "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}}],
                    "reasoning": {"id": "rs_1", "type": "reasoning", "summary": [{"type": "summary_text", "text": "plan"}], "encrypted_content": "gAAA"},
                    "reasoning_content": "deep thoughts",
                }
            ),
            {"type": "tool", "data": {"content": [{"type": "text", "text": "ok"}], "tool_call_id": "call_1", "type": "tool", "artifact": {"rows": 3}}},
        ]
    )
    deep, responses, call, result = m.transcript.items
    assert deep.text == "deep thoughts"
    assert responses.summary == ["plan"] and responses.opaque.value == "gAAA" and responses.origin.item_id == "rs_1"
    assert call == ToolCallItem(id="call_1", name="f", arguments={"x": 1}, message="m0")
    assert to_builtins(result)["content"] == [{"type": "text", "text": "ok"}] and result.metadata == {"langchain": {"artifact": {"rows": 3}}}


def test_langchain_image_blocks_and_unknown_blocks() -> None:
    m = read_any(
        [
            {
                "type": "human",
                "data": {
                    "content": [
                        "see",
                        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
                        {"type": "image", "url": "https://example.com/x.png"},
                        {"type": "video", "url": "https://example.com/v.mp4"},
                    ]
                },
            }
        ]
    )
    text, b64, url, raw = m.transcript.items
    assert text.text == "see"
    assert b64.source == Base64Source(media_type="image/png", data="iVBORw0KGgo=")
    assert url.source.url == "https://example.com/x.png"
    assert isinstance(raw, RawItem) and raw.provider == "langchain" and len(m.report) == 1


def test_langchain_tool_message_without_call_id_stays_raw() -> None:
    m = read_any([{"type": "tool", "data": {"content": "x", "type": "tool"}}])
    assert isinstance(m.transcript.items[0], RawItem) and len(m.report) == 1


def test_langchain_non_object_args_stay_raw_never_empty() -> None:
    m = read_any([_ai(tool_calls=[{"name": "g", "args": [1], "id": "c2"}])])
    (call,) = m.transcript.items
    assert call.arguments is msgspec.UNSET and call.arguments_raw == "[1]"


def test_langchain_unknown_type_is_refused() -> None:
    with pytest.raises(MappingError, match="type 'robot'"):
        read([{"type": "robot", "data": {}}], "langchain")


def test_pydantic_ai_tool_return_files_are_media_not_base64_text() -> None:
    image = {"kind": "binary", "data": "iVBORw0KGgo=", "media_type": "image/png"}
    video = {"kind": "video-url", "url": "https://example.com/v.mp4"}
    m = read_any(
        [
            _resp({"part_kind": "tool-call", "tool_name": "snap", "args": {}, "tool_call_id": "c1"}),
            _req({"part_kind": "tool-return", "tool_name": "snap", "content": ["here", image, video, {"w": 1}], "tool_call_id": "c1"}),
        ]
    )
    result = m.transcript.items[1]
    assert to_builtins(result)["content"] == [
        {"type": "text", "text": "here"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
        {"type": "text", "text": '{"w":1}'},
    ]
    assert [e.action for e in m.report] == ["dropped"]


@pytest.mark.parametrize("kind", [["human"], {"a": 1}])
def test_langchain_message_type_of_a_wrong_json_type_is_refused_not_a_type_error(kind: object) -> None:
    """A list or object ``type`` was ``TypeError: unhashable type`` (a traceback in ``convert --from langchain``)."""
    with pytest.raises(MappingError, match="message 0 has type"):
        read([{"type": kind, "data": {"content": "x"}}], "langchain")


def test_langchain_chat_message_with_a_list_role_stays_raw() -> None:
    m = read([{"type": "chat", "data": {"role": ["user"], "content": "x"}}], "langchain")
    assert [type(i) for i in m.transcript.items] == [RawItem] and len(m.report) == 1


@pytest.mark.parametrize("content", [{"kind": ["binary"]}, [{"kind": {"a": 1}}], {"kind": "text", "content": "x"}, None, 5])
def test_pydantic_ai_user_content_of_a_wrong_json_type_stays_raw_and_reported(content: object) -> None:
    """A list ``kind`` was unhashable in the tool-return path; user-prompt content that was neither a string
    nor a list (an object, null, a number) was dropped without a report entry."""
    m = read([_req({"part_kind": "user-prompt", "content": content})], "pydantic-ai")
    assert [type(i) for i in m.transcript.items] == [RawItem] and len(m.report) == 1


@pytest.mark.parametrize("content", [{"kind": ["binary"]}, [{"kind": {"a": 1}}]])
def test_pydantic_ai_tool_return_content_kind_of_a_wrong_json_type_is_its_json_text(content: object) -> None:
    part = {"part_kind": "tool-return", "tool_call_id": "c1", "tool_name": "f", "content": content}
    m = read([_resp({"part_kind": "tool-call", "tool_call_id": "c1", "tool_name": "f", "args": {}}), _req(part)], "pydantic-ai")
    result = m.transcript.items[-1]
    assert isinstance(result, ToolResultItem) and msgspec.json.decode(result.content[0].text) == content
