"""A request with no conversation item left is not sendable: refused (exit 1) with a clear message;
a tool_result that names no call is bad input naming its JSON pointer."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from interlingua import convert_request
from interlingua.cli import app
from interlingua.errors import ConversionError, MalformedInputError
from interlingua.mapping import available

runner = CliRunner()
EMPTY = {"model": "x", "messages": []}
TARGETS = [t for t in available() if t not in ("anthropic",)]


@pytest.mark.parametrize("target", TARGETS + ["anthropic"])
@pytest.mark.parametrize("policy", ["error", "drop", "degrade"])
def test_no_messages_is_refused_for_every_target(target: str, policy: str) -> None:
    with pytest.raises(ConversionError, match="nothing to send"):
        convert_request(EMPTY, source="anthropic", target=target, model="m", policy=policy)  # type: ignore[arg-type]


def test_empty_request_cli_exits_1() -> None:
    result = runner.invoke(app, ["convert", "-", "--from", "anthropic", "--to", "openai-chat"], input=json.dumps(EMPTY))
    assert result.exit_code == 1
    assert "nothing to send" in result.stderr and result.stdout == ""


def test_everything_dropped_is_refused() -> None:
    """Every item read is dropped by the target (a raw Anthropic block cannot go to OpenAI Chat)."""
    body = {"model": "x", "messages": [{"role": "user", "content": [{"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}]}]}
    with pytest.raises(ConversionError, match=r"nothing to send.*1 item\(s\) read were all dropped"):
        convert_request(body, source="anthropic", target="openai-chat", model="gpt-4o", policy="drop")


def test_a_request_with_something_left_still_converts() -> None:
    body = {"model": "x", "messages": [{"role": "user", "content": [{"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}, {"type": "text", "text": "hi"}]}]}
    out = convert_request(body, source="anthropic", target="openai-chat", model="gpt-4o", policy="drop")
    assert out.value["messages"] == [{"role": "user", "content": "hi"}]


@pytest.mark.parametrize(("block", "got"), [({"type": "tool_result"}, "none"), ({"type": "tool_result", "tool_use_id": 3}, "a number")])
def test_tool_result_without_tool_use_id_is_bad_input_with_pointer(block: dict[str, object], got: str) -> None:
    body = {"model": "x", "messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}, {"role": "user", "content": [block]}]}
    with pytest.raises(MalformedInputError) as info:
        convert_request(body, source="anthropic", target="openai-chat", model="gpt-4o")
    assert info.value.pointer == "/messages/2/content/0/tool_use_id"
    assert got in str(info.value)


def test_an_empty_tool_use_id_with_no_empty_call_before_it_is_an_orphan_result() -> None:
    """An empty id is linked by position to an earlier call with an empty id (``mapping.empty_ids``);
    with none before it, the result answers no call: dropped and reported, as every reader drops one."""
    body = {"model": "x", "messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}, {"role": "user", "content": [{"type": "tool_result", "tool_use_id": ""}]}]}
    out = convert_request(body, source="anthropic", target="openai-chat", model="gpt-4o")
    assert out.value["messages"] == body["messages"][:2]
    (entry,) = [e for e in out.report.entries if e.item_type == "tool_result"]
    assert entry.action == "dropped" and "no earlier tool_call" in entry.reason and entry.index == 2


def test_tool_result_without_tool_use_id_cli() -> None:
    """The user's case."""
    body = {"model": "x", "messages": [{"role": "user", "content": [{"type": "tool_result"}]}]}
    result = runner.invoke(app, ["convert", "-", "--from", "anthropic", "--to", "openai-chat"], input=json.dumps(body))
    assert result.exit_code == 1
    assert "/messages/0/content/0/tool_use_id" in result.stderr and "Traceback" not in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize("target", available())
@pytest.mark.parametrize("content", [123, {"text": "hi"}, True])
def test_a_message_whose_only_content_was_malformed_leaves_nothing_for_any_target(target: str, content: object) -> None:
    # a new user's case: Chat content of the wrong type was reported dropped, yet the OpenAI targets
    # sent an empty message in its place (exit 0) while the others refused: no empty text stands in now
    body = {"model": "x", "messages": [{"role": "user", "content": content}]}
    with pytest.raises(ConversionError, match="nothing to send"):
        convert_request(body, source="openai-chat", target=target, model="m", policy="drop")


def test_an_empty_chat_message_of_the_source_still_comes_back() -> None:
    body = {"model": "x", "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": ""}, {"role": "user", "content": "again"}]}
    out = convert_request(body, source="openai-chat", target="openai-chat")
    assert out.value["messages"] == body["messages"]
