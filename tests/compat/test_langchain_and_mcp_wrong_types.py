"""Issue 32: the LangChain and MCP sampling readers given a wrong JSON type anywhere: read, or a clear
:class:`~interlingua.errors.InterlinguaError` naming where (a JSON pointer) - never a TypeError
(``invalid_tool_calls: true``, ``additional_kwargs.reasoning.summary: 5``, ``toolChoice: {"mode": {}}``).
Exhaustive over every member of real stored files (tests/fixtures/stores, tests/compat/examples) and
of a message list that holds every member the LangChain reader looks at."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.compat import read
from interlingua.errors import InterlinguaError

HERE = Path(__file__).parent
STORES = HERE.parent / "fixtures" / "stores"
WRONG: list[Any] = [5, True, None, "x", 1.5, {}, [], {"a": {}}, [{}]]

# every member the LangChain reader reads, once (messages_to_dict form)
EVERY_MEMBER: list[dict[str, Any]] = [
    {"type": "system", "data": {"content": "Be brief."}},
    {"type": "human", "data": {"content": [{"type": "text", "text": "hi"}, {"type": "image_url", "image_url": {"url": "https://example.com/a.png", "detail": "low"}},
                                           {"type": "image", "base64": "aGk=", "mime_type": "image/png"}]}},
    {"type": "ai", "data": {
        "content": [{"type": "thinking", "thinking": "t", "signature": "s"}, {"type": "redacted_thinking", "data": "r"},
                    {"type": "tool_use", "id": "u1", "name": "f", "input": {"a": 1}}, {"type": "text", "text": "ok"}],
        "additional_kwargs": {"reasoning_content": "rc", "reasoning": {"id": "rs_1", "summary": [{"type": "summary_text", "text": "s"}], "encrypted_content": "e"},
                              "function_call": {"name": "g", "arguments": "{}"}},
        "response_metadata": {"model_provider": "anthropic", "model_name": "claude", "id": "msg_1"},
        "tool_calls": [{"name": "f2", "args": {"b": 2}, "id": "c1", "type": "tool_call"}],
        "invalid_tool_calls": [{"name": "f3", "args": "{", "id": "c2", "error": "bad"}],
        "usage_metadata": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}, "id": "run-1"}},
    {"type": "tool", "data": {"content": "r", "tool_call_id": "c1", "name": "f2", "status": "error", "artifact": {"k": 1}}},
    {"type": "ai", "data": {"content": "", "additional_kwargs": {"tool_calls": [{"id": "c3", "type": "function", "function": {"name": "h", "arguments": "{}"}}]}}},
    {"type": "function", "data": {"content": "x", "name": "g"}},
]


def _pointers(value: Any, at: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield at
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _pointers(v, (*at, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _pointers(v, (*at, i))


def _put(doc: Any, at: tuple[Any, ...], value: Any) -> Any:
    if not at:
        return value
    out = copy.deepcopy(doc)
    node = out
    for k in at[:-1]:
        node = node[k]
    node[at[-1]] = value
    return out


def _every_wrong_type(fmt: str, doc: Any) -> None:
    read(doc, fmt)  # the premise: the file itself reads
    failures = []
    for at in _pointers(doc):
        for wrong in WRONG:
            try:
                read(_put(doc, at, wrong), fmt)
            except InterlinguaError:
                pass
            except Exception as exc:  # noqa: BLE001 - the class under test: anything else is the bug
                failures.append(f"/{'/'.join(map(str, at))} = {wrong!r}: {type(exc).__name__}: {exc}")
    assert not failures, failures[:10]


LANGCHAIN_FILES = [*sorted((STORES / "langchain-lc").glob("*.json")), HERE / "examples" / "langchain.json", HERE / "examples" / "langchain_legacy_openai.json"]


@pytest.mark.parametrize("path", LANGCHAIN_FILES, ids=lambda p: p.name)
def test_langchain_stored_file_every_member_wrong_typed(path: Path) -> None:
    _every_wrong_type("langchain", json.loads(path.read_text()))


def test_langchain_every_member_the_reader_reads_wrong_typed() -> None:
    _every_wrong_type("langchain", EVERY_MEMBER)


@pytest.mark.parametrize("path", sorted((STORES / "mcp-sampling").glob("*.json")), ids=lambda p: p.name)
def test_mcp_sampling_stored_file_every_member_wrong_typed(path: Path) -> None:
    _every_wrong_type("mcp-sampling", json.loads(path.read_text()))


@pytest.mark.parametrize(
    ("fmt", "doc", "pointer"),
    [
        ("langchain", [{"type": "ai", "data": {"content": "x", "invalid_tool_calls": True}}], "/0/data/invalid_tool_calls"),
        ("langchain", [{"type": "ai", "data": {"content": "x", "additional_kwargs": {"reasoning": {"summary": 5}}}}], "/0/data/additional_kwargs/reasoning/summary"),
        ("mcp-sampling", {"messages": [{"role": "user", "content": {"type": "text", "text": "q"}}], "maxTokens": 5, "toolChoice": {"mode": {}}}, "/params/toolChoice/mode"),
        ("mcp-sampling", {"messages": [{"role": "user", "content": {"type": "text", "text": "q"}}], "maxTokens": 5, "toolChoice": ["auto"]}, "/params/toolChoice"),
    ],
    ids=["invalid_tool_calls-true", "reasoning-summary-5", "toolChoice-mode-object", "toolChoice-list"],
)
def test_the_issue_cases_are_refused_with_a_pointer(tmp_path: Path, fmt: str, doc: Any, pointer: str) -> None:
    with pytest.raises(InterlinguaError, match=pointer):
        read(doc, fmt)
    src = tmp_path / "in.json"
    src.write_text(json.dumps(doc))
    result = CliRunner().invoke(app, ["convert", str(src), "--from", fmt, "--to", "canonical"])
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert pointer in result.output


def test_an_mcp_tool_choice_mode_of_a_newer_revision_is_kept() -> None:
    doc = {"messages": [{"role": "user", "content": {"type": "text", "text": "q"}}], "maxTokens": 5, "toolChoice": {"mode": "only", "name": "f"}}
    migrated = read(doc, "mcp-sampling")
    assert migrated.transcript.metadata["mcp-sampling"]["toolChoice"] == {"mode": "only", "name": "f"}
