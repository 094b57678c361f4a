"""Every reader's output passes the canonical schema ``validate`` and ``store import`` apply (issue 32).

The cases are the adversarial round's inputs: ids over 512 characters, empty tool-call ids, empty
image URLs, data that is not base64, and parts whose first item is kept raw (a traceback before).
``migrate -o`` and ``convert --to canonical`` either write what ``validate`` accepts, with every
renamed id reported, or refuse (exit 1) naming the item and field; never a traceback, never exit 0
with an invalid document.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.compat import read
from interlingua.errors import DocumentError
from interlingua.validation import validate_path

L = "v" * 600
_U = {"role": "user", "content": "hi"}
_MU = {"role": "user", "parts": [{"type": "text", "text": "hi"}]}


def _chat_call(i: str) -> list[dict[str, Any]]:
    return [_U, {"role": "assistant", "content": None, "tool_calls": [{"id": i, "type": "function", "function": {"name": "f", "arguments": "{}"}}]}, {"role": "tool", "tool_call_id": i, "content": "r"}]


def _pai_call(i: str) -> list[dict[str, Any]]:
    return [
        {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "hi"}]},
        {"kind": "response", "parts": [{"part_kind": "tool-call", "tool_name": "f", "args": {}, "tool_call_id": i}], "model_name": "m"},
        {"kind": "request", "parts": [{"part_kind": "tool-return", "tool_name": "f", "content": "r", "tool_call_id": i}]},
    ]


def _vm_call(i: str) -> list[dict[str, Any]]:
    return [
        _U,
        {"role": "assistant", "content": [{"type": "tool-call", "toolCallId": i, "toolName": "f", "input": {}}]},
        {"role": "tool", "content": [{"type": "tool-result", "toolCallId": i, "toolName": "f", "output": {"type": "text", "value": "r"}}]},
    ]


def _anthropic_call(i: str) -> list[dict[str, Any]]:
    return [
        _U,
        {"role": "assistant", "content": [{"type": "tool_use", "id": i, "name": "f", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": i, "content": "r"}]},
    ]


def _lc_call(i: str) -> list[dict[str, Any]]:
    return [
        {"type": "human", "data": {"content": "hi"}},
        {"type": "ai", "data": {"content": "", "tool_calls": [{"id": i, "name": "f", "args": {}}]}},
        {"type": "tool", "data": {"content": "r", "tool_call_id": i, "name": "f"}},
    ]


# ids a reader must rename (1a: over 512 characters; 1b: empty): (format, input)
RENAMED = {
    "openai-chat-long": ("openai-chat", {"model": "m", "messages": _chat_call(L)}),
    "anthropic-long": ("anthropic", {"model": "m", "max_tokens": 10, "messages": _anthropic_call(L)}),
    "pydantic-ai-long": ("pydantic-ai", _pai_call(L)),
    "langchain-long": ("langchain", _lc_call(L)),
    "vercel-model-long": ("vercel-model", _vm_call(L)),
    "pydantic-ai-empty": ("pydantic-ai", _pai_call("")),
    "vercel-model-empty": ("vercel-model", _vm_call("")),
}

# no safe repair: refused (1c: empty URLs; 1d: data that is not base64)
REFUSED = {
    "openai-chat-empty-url": ("openai-chat", {"model": "m", "messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": ""}}]}]}, "/source/url"),
    "pydantic-ai-empty-url": ("pydantic-ai", [{"kind": "request", "parts": [{"part_kind": "user-prompt", "content": [{"kind": "image-url", "url": ""}]}]}], "/source/url"),
    "pydantic-ai-bad-base64": ("pydantic-ai", [{"kind": "request", "parts": [{"part_kind": "user-prompt", "content": [{"kind": "binary", "data": "!!!", "media_type": "image/png"}]}]}], "/source/data"),
    "vercel-model-bad-base64": ("vercel-model", [{"role": "user", "content": [{"type": "image", "image": "!!!", "mediaType": "image/png"}]}], "/source/data"),
    "vercel-model-result-bad-base64": (
        "vercel-model",
        [
            _U,
            {"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "a", "toolName": "f", "input": {}}]},
            {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "a", "toolName": "f", "output": {"type": "content", "value": [{"type": "media", "data": "!!", "mediaType": "image/png"}]}}]},
        ],
        "/source/data",
    ),
    "vercel-ui-bad-data-url": ("vercel-ui", [{"role": "user", "parts": [{"type": "file", "mediaType": "image/png", "url": "data:image/png;base64,!!!"}]}], "/source/data"),
    "vercel-ui-data-url-not-base64": ("vercel-ui", [{"role": "user", "parts": [{"type": "file", "mediaType": "image/png", "url": "data:image/png,hello"}]}], "/source/data"),
}

# a part kept raw first in its message: an AttributeError/TypeError traceback before (issue 32, 2)
RAW_FIRST = {
    # the Vercel UI reader keys a message whose id is over the limit by its place
    "vercel-ui-long-message-id": ("vercel-ui", [dict(_MU, id=L), {"role": "assistant", "id": L, "parts": [{"type": "text", "text": "ok"}]}]),
    # the Vercel UI reader keeps a tool part without a call id raw (reported)
    "vercel-ui-empty-call-id": (
        "vercel-ui",
        [_MU, {"role": "assistant", "parts": [{"type": "tool-f", "state": "output-available", "toolCallId": "", "input": {}, "output": "r"}, {"type": "text", "text": "ok"}]}],
    ),
    "vercel-ui-source-url": ("vercel-ui", [_MU, {"role": "assistant", "parts": [{"type": "source-url", "sourceId": "", "url": ""}, {"type": "text", "text": "ok"}]}]),
    "chatgpt-image-pointer": (
        "chatgpt-export",
        {
            "title": "t", "id": "c1", "current_node": "m1",
            "mapping": {
                "root": {"id": "root", "message": None, "parent": None, "children": ["m1"]},
                "m1": {"id": "m1", "parent": "root", "children": [], "message": {"id": "m1", "author": {"role": "user"}, "content": {"content_type": "multimodal_text", "parts": [{"content_type": "image_asset_pointer", "asset_pointer": ""}, "hi"]}}},
            },
        },
    ),
}


@pytest.mark.parametrize("name", sorted(RENAMED))
def test_an_id_out_of_the_schema_limits_is_renamed_and_reported(name: str) -> None:
    fmt, value = RENAMED[name]
    migrated = read(value, fmt)
    for item in migrated.transcript.items:
        for field in ("id", "message", "call_id"):
            v = getattr(item, field, None)
            if isinstance(v, str) and field != "message" or field == "message" and isinstance(v, str) and getattr(item, "type", "") != "error":
                assert 0 < len(v) <= 512, (field, len(v))
    assert any("renamed" in e.reason or "left out" in e.reason for e in migrated.report), migrated.report
    # a call and its result still pair up
    calls = {getattr(it, "id", None) for it in migrated.transcript.items if getattr(it, "type", "") == "tool_call"}
    for it in migrated.transcript.items:
        if getattr(it, "type", "") == "tool_result":
            assert it.call_id in calls


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_value_with_no_safe_repair_is_refused_with_its_pointer(name: str) -> None:
    fmt, value, field = REFUSED[name]
    with pytest.raises(DocumentError) as info:
        read(value, fmt)
    assert any(p.pointer.startswith("/items/") and field in p.pointer for p in info.value.problems), info.value.problems
    assert "nothing was written" in str(info.value)


@pytest.mark.parametrize("name", sorted(RAW_FIRST))
def test_a_raw_first_part_keeps_the_message_and_reads(name: str) -> None:
    from interlingua.items import TextItem

    fmt, value = RAW_FIRST[name]
    migrated = read(value, fmt)
    assert any(isinstance(it, TextItem) and it.text for it in migrated.transcript.items)


@pytest.mark.parametrize("name", sorted({**RENAMED, **REFUSED, **RAW_FIRST}))
def test_migrate_and_convert_write_only_what_validate_accepts(tmp_path: Path, name: str) -> None:
    fmt, value = {**RENAMED, **RAW_FIRST}[name] if name in RENAMED or name in RAW_FIRST else REFUSED[name][:2]
    src = tmp_path / "in.json"
    src.write_text(json.dumps(value))
    runner = CliRunner()
    for args, out in (
        (["migrate", "--from", fmt, "-q", "-o", str(tmp_path / "m.jsonl"), str(src)], tmp_path / "m.jsonl"),
        (["convert", "--from", fmt, "--to", "canonical", "-o", str(tmp_path / "c.json"), str(src)], tmp_path / "c.json"),
    ):
        result = runner.invoke(app, args)
        assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
        if name in REFUSED:
            assert result.exit_code == 1, result.output
            rejects = out.with_name(out.stem + ".rejects.jsonl")
            said = result.output + (rejects.read_text() if rejects.exists() else "")
            assert "/items/" in said and "not a valid canonical item" in said, said
            assert not out.exists() or validate_path([str(out)]).ok
        else:
            assert result.exit_code == 0, result.output
            assert validate_path([str(out)]).ok, validate_path([str(out)]).problems


def test_a_claude_code_uuid_over_512_characters_is_renamed_in_the_message_key(tmp_path: Path) -> None:
    """The message key Claude Code records get from ``uuid``: streamed by migrate, read whole by convert."""
    rec = lambda t, u, parent, msg: {"type": t, "timestamp": "2025-06-14T10:00:00Z", "parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": "/tmp", "sessionId": "s1", "version": "1.0.0", "uuid": u, "message": msg}  # noqa: E731
    src = tmp_path / "s.jsonl"
    src.write_text("\n".join(json.dumps(r) for r in [rec("user", "u" * 600, None, {"role": "user", "content": "hi"}), rec("assistant", "a" * 600, "u" * 600, {"role": "assistant", "content": [{"type": "text", "text": "ok"}]})]) + "\n")
    runner = CliRunner()
    out = tmp_path / "m.jsonl"
    result = runner.invoke(app, ["migrate", "--from", "claude-code", "-o", str(out), str(src)])
    assert result.exit_code == 0, result.output
    assert validate_path([str(out)]).ok
    assert "renamed" in result.output
    result = runner.invoke(app, ["convert", "--from", "claude-code", "--to", "canonical", "-o", str(tmp_path / "c.json"), str(src)])
    assert result.exit_code == 0, result.output
    assert validate_path([str(tmp_path / "c.json")]).ok
