"""Every path to a provider applies the same provider rules (issue 25).

A user reaches a provider body through the CLI (``interlingua convert``), :func:`interlingua.convert_request`,
the mapper API (``get_mapper(source).decode_request`` then ``get_mapper(target).encode_request``) or the
:class:`~interlingua.transport.Client` (``generate`` builds the body before anything is sent). The rules
the providers' types cannot see (the calls of one turn in one message, tool definitions for a history
with calls, a text block beside a Bedrock document, tool-message media read and left to the target)
live where every path goes through, so each path gives the same body and the same report, or every
path refuses.

The bodies are derived from real recordings in ``tests/fixtures/real`` (see its README), each changed
in one place to hold the case:

* ``parallel calls``: the recorded Responses request with two consecutive ``function_call`` items, as sent;
* ``no tools``: the recorded Chat request with a call and its result, ``tools``/``tool_choice`` removed;
* ``tool image``: the same request with its tool message as ``[text, image_url]`` parts (the shape
  OpenAI-compatible hosts send, LiteLLM issue #20403);
* ``document only``: the recorded Chat request's user message replaced by a lone PDF ``file`` part.
"""

from __future__ import annotations

import asyncio
import copy
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from interlingua import convert_request
from interlingua.cli import app
from interlingua.errors import InterlinguaError
from interlingua.mapping import Report, get_mapper
from interlingua.transport import Client

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"
RESPONSES = REAL / "openai_responses" / "pai_openai_responses_model_retry.1.request.json"
CHAT = REAL / "openai_chat" / "pai_openai_instructions_with_tool_calls.1.request.json"

MODEL = {
    "anthropic": "claude-sonnet-4-5",
    "gemini": "gemini-2.5-flash",
    "openai-chat": "gpt-4.1",
    "openai-responses": "gpt-4.1",
    "bedrock-converse": "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
    "cohere": "command-a-03-2025",
    "mistral": "mistral-medium-latest",
    "ollama": "qwen3-vl:8b",
}
"""A model of each target that takes what its cases hold (tools; images where a case sends one), so
preflight repairs nothing on its own."""

CONVERSATION = ("system", "messages", "contents", "input", "instructions", "systemInstruction", "tools", "toolConfig", "tool_choice")


def _load(path: Path) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return body


def _no_tools() -> dict[str, Any]:
    body = _load(CHAT)
    body.pop("tools")
    body.pop("tool_choice")
    return body


def _tool_image() -> dict[str, Any]:
    body = _load(CHAT)
    tool = next(m for m in body["messages"] if m["role"] == "tool")
    tool["content"] = [{"type": "text", "text": tool["content"]}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}]
    return body


def _document_only() -> dict[str, Any]:
    body = _load(CHAT)
    body["messages"] = [m for m in body["messages"] if m["role"] in ("system", "user")][:2]
    body["messages"][-1] = {"role": "user", "content": [{"type": "file", "file": {"filename": "report.pdf", "file_data": "data:application/pdf;base64,JVBERi0xLjQK"}}]}
    body.pop("tools")
    body.pop("tool_choice")
    return body


CASES: dict[str, tuple[str, Any, tuple[str, ...]]] = {
    "parallel calls": ("openai-responses", lambda: _load(RESPONSES), ("anthropic", "gemini", "openai-chat", "bedrock-converse", "cohere", "mistral", "ollama")),
    "no tools": ("openai-chat", _no_tools, ("anthropic", "bedrock-converse", "cohere")),
    "tool image": ("openai-chat", _tool_image, ("openai-responses", "anthropic", "gemini", "openai-chat")),
    "document only": ("openai-chat", _document_only, ("bedrock-converse", "anthropic")),
}

PARAMS = [
    pytest.param(case, target, policy, id=f"{case}-{target}-{policy}")
    for case, (_, _, targets) in CASES.items()
    for target in targets
    for policy in ("error", "drop")
]

Outcome = tuple[str, Any, list[str]]
"""``("refused", None, [])`` or ``("ok", conversation part of the body, sorted report lines)``."""


def _conversation(body: dict[str, Any]) -> dict[str, Any]:
    return {k: body[k] for k in CONVERSATION if k in body}


def _lines(report: Report) -> list[str]:
    """The report's entries as text, settings entries left out: settings are each path's own (the
    client sets ``stream`` from its ``stream`` argument, the CLI and ``convert_request`` carry the
    source's), and not the rules compared here."""
    return sorted(str(e) for e in report if e.item_type != "settings" and not (e.pointer or "").startswith("/settings"))


def _is_settings(line: str) -> bool:
    """Whether a printed entry (``action: where: reason``) is about settings (see :func:`_lines`)."""
    where = line.split(": ", 2)[1] if line.count(": ") >= 2 else ""
    return where.startswith("settings") or " settings" in where or "/settings" in where


def _without(lines: list[str], decoded: list[str]) -> list[str]:
    """``lines`` without one occurrence of each line the decode step reported."""
    left = list(lines)
    for line in decoded:
        if line in left:
            left.remove(line)
    return sorted(left)


def _decoded(source: str, body: dict[str, Any]) -> tuple[Any, list[str]]:
    conv = get_mapper(source).decode_request(copy.deepcopy(body))
    return conv.value, _lines(conv.report)


def via_mapper(source: str, body: dict[str, Any], target: str, policy: Any) -> Outcome:
    transcript, _ = _decoded(source, body)
    try:
        conv = get_mapper(target).encode_request(transcript, model=MODEL[target], policy=policy)
    except InterlinguaError:
        return ("refused", None, [])
    return ("ok", _conversation(conv.value), _lines(conv.report))


def via_convert(source: str, body: dict[str, Any], target: str, policy: Any) -> Outcome:
    _, decoded = _decoded(source, body)
    try:
        conv = convert_request(copy.deepcopy(body), source=source, target=target, model=MODEL[target], policy=policy)
    except InterlinguaError:
        return ("refused", None, [])
    return ("ok", _conversation(conv.value), _without(_lines(conv.report), decoded))


def via_cli(source: str, body: dict[str, Any], target: str, policy: Any, tmp_path: Path) -> Outcome:
    _, decoded = _decoded(source, body)
    src = tmp_path / "request.json"
    src.write_text(json.dumps(body), encoding="utf-8")
    res = CliRunner().invoke(app, ["convert", "--from", source, "--to", target, "--policy", policy, "--model", MODEL[target], str(src)])
    if res.exit_code == 1:
        return ("refused", None, [])
    assert res.exit_code == 0, res.output
    warnings = sorted(line.removeprefix("warning: ") for line in res.stderr.splitlines() if line.startswith("warning: ") and not _is_settings(line.removeprefix("warning: ")))
    return ("ok", _conversation(json.loads(res.stdout)), _without(warnings, decoded))


def via_client(source: str, body: dict[str, Any], target: str, policy: Any) -> Outcome:
    transcript, _ = _decoded(source, body)

    async def build() -> Outcome:
        async with Client(target, api_key="test-key", base_url="http://127.0.0.1:9") as client:
            try:
                gen = client.generate(transcript, model=MODEL[target], stream=False, policy=policy)
            except InterlinguaError:
                return ("refused", None, [])
            sent = json.loads(gen._prepared.body)  # the bytes the client would POST (nothing is sent)
            return ("ok", _conversation(sent), _lines(gen.report))

    return asyncio.run(build())


@pytest.mark.parametrize(("case", "target", "policy"), PARAMS)
def test_every_path_gives_the_same_body_and_report(case: str, target: str, policy: str, tmp_path: Path) -> None:
    source, make, _ = CASES[case]
    body = make()
    mapper = via_mapper(source, body, target, policy)
    paths = {
        "convert_request": via_convert(source, body, target, policy),
        "cli": via_cli(source, body, target, policy, tmp_path),
        "client": via_client(source, body, target, policy),
    }
    for name, outcome in paths.items():
        assert outcome[0] == mapper[0], f"{name}: {outcome[0]}, mapper API: {mapper[0]}"
        assert outcome[1] == mapper[1], f"{name} wrote another body than the mapper API"
        assert outcome[2] == mapper[2], f"{name} reported otherwise than the mapper API:\n{outcome[2]}\n{mapper[2]}"


# ---------------------------------------------------------------------------------------------- the rules themselves


def _mapper_body(case: str, target: str, policy: str = "drop") -> tuple[dict[str, Any], Report]:
    source, make, _ = CASES[case]
    transcript, _ = _decoded(source, make())
    conv = get_mapper(target).encode_request(transcript, model=MODEL[target], policy=policy)  # type: ignore[arg-type]
    return conv.value, conv.report


def test_parallel_calls_are_one_anthropic_message_answered_by_the_next() -> None:
    body, report = _mapper_body("parallel calls", "anthropic", "error")
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["user", "assistant", "user"]
    assert [b["type"] for b in body["messages"][1]["content"]] == ["tool_use", "tool_use"]
    assert [b["type"] for b in body["messages"][2]["content"]] == ["tool_result", "tool_result"]
    assert any("joined to the message" in e.reason and e.action == "changed" for e in report)


@pytest.mark.parametrize("target", CASES["parallel calls"][2])
def test_parallel_calls_share_one_assistant_turn_on_every_adjacency_target(target: str) -> None:
    body, _ = _mapper_body("parallel calls", target)
    turns = body.get("messages") or body["contents"]

    def calls(turn: dict[str, Any]) -> int:
        if "parts" in turn:
            return sum("functionCall" in p for p in turn["parts"])
        content = turn.get("content")
        blocks = content if isinstance(content, list) else []
        return len(turn.get("tool_calls") or []) + sum(isinstance(b, dict) and (b.get("type") == "tool_use" or "toolUse" in b) for b in blocks)

    assert sorted(calls(t) for t in turns if calls(t)) == [2]


def test_tool_message_image_is_read_and_reaches_responses_as_input_image() -> None:
    source, make, _ = CASES["tool image"]
    transcript, decoded = _decoded(source, make())
    assert decoded == []
    body, report = _mapper_body("tool image", "openai-responses", "error")
    output = next(i for i in body["input"] if i.get("type") == "function_call_output")["output"]
    assert [p["type"] for p in output] == ["input_text", "input_image"]
    assert not [e for e in report if e.item_type == "image"]


def test_tool_message_image_follows_the_policy_where_the_target_cannot_carry_it() -> None:
    with pytest.raises(InterlinguaError, match="tool messages carry text parts only"):
        _mapper_body("tool image", "openai-chat", "error")
    _, report = _mapper_body("tool image", "openai-chat", "drop")
    assert [(e.action, e.item_type) for e in report if e.item_type == "image"] == [("dropped", "image")]


def test_tool_message_part_without_a_canonical_form_is_dropped_and_reported_while_reading() -> None:
    body = _tool_image()
    tool = next(m for m in body["messages"] if m["role"] == "tool")
    tool["content"].append({"type": "future_part", "future_part": {}})
    conv = get_mapper("openai-chat").decode_request(body)
    assert [(e.action, e.item_type, e.pointer) for e in conv.report] == [("dropped", "future_part", "/messages/3/content/2")]


def test_bedrock_document_gets_a_text_block_beside_it_reported() -> None:
    body, report = _mapper_body("document only", "bedrock-converse", "error")
    content = body["messages"][-1]["content"]
    assert [next(iter(b)) for b in content] == ["document", "text"]
    assert content[1]["text"].strip()
    assert [e.pointer for e in report if e.item_type == "document" and "text block" in e.reason] == [f"/messages/{len(body['messages']) - 1}/content/1"]


def test_bedrock_document_beside_text_is_left_as_it_is() -> None:
    body = {"messages": [{"role": "user", "content": [{"document": {"format": "pdf", "name": "r", "source": {"bytes": "JVBERi0xLjQK"}}}, {"text": "Summarize."}]}]}
    mapper = get_mapper("bedrock-converse")
    back = mapper.encode_request(mapper.decode_request(body).value, model=MODEL["bedrock-converse"])
    assert back.value["messages"] == body["messages"] and not [e for e in back.report if e.item_type == "document"]


@pytest.mark.parametrize("target", ["anthropic", "bedrock-converse", "cohere"])
def test_history_with_calls_and_no_tools_is_refused_or_given_definitions_by_the_mapper(target: str) -> None:
    with pytest.raises(InterlinguaError, match="no tool definitions"):
        _mapper_body("no tools", target, "error")
    body, report = _mapper_body("no tools", target, "drop")
    assert "tools" in body or "toolConfig" in body
    assert [e.pointer for e in report if e.item_type == "tools" and "synthesized" in e.reason] == ["/tools/0"]
