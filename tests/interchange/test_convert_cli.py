"""``interlingua convert`` with a framework format on one side: --from/--to otel, pydantic-ai, langchain."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.compat import read
from interlingua.otel import from_otel

from ._roundtrip import REAL
from .test_otel import validate

runner = CliRunner()
ANTHROPIC = REAL / "anthropic" / "pai_anthropic_parallel_tool_calls.1.request.json"
SPAN = Path(__file__).parent / "spans" / "logfire_openai.test_responses_api.1.json"


def cli(*args: str, input: bytes | str | None = None):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["convert", *args], input=input, catch_exceptions=False)


def test_provider_request_to_otel_is_schema_valid(tmp_path: Path) -> None:
    out = tmp_path / "span.json"
    res = cli("--from", "anthropic", "--to", "otel", str(ANTHROPIC), "-o", str(out))
    assert res.exit_code == 0, res.output
    attrs = json.loads(out.read_text())
    validate(attrs)
    calls = [p for m in attrs["gen_ai.input.messages"] for p in m["parts"] if p["type"] == "tool_call"]
    results = [p for m in attrs["gen_ai.input.messages"] for p in m["parts"] if p["type"] == "tool_call_response"]
    assert calls and sorted(c["id"] for c in calls) == sorted(r["id"] for r in results)
    assert "warning: dropped: tool_choice: no gen_ai attribute holds it" in res.stderr


@pytest.mark.parametrize("fmt", ["pydantic-ai", "langchain"])
def test_to_a_framework_and_back_to_the_provider(fmt: str, tmp_path: Path) -> None:
    out = tmp_path / "history.json"
    res = cli("--from", "anthropic", "--to", fmt, str(ANTHROPIC), "-o", str(out))
    assert res.exit_code == 0, res.output
    assert "tool definitions" in res.stderr  # reported: a message history has no place for them
    history = json.loads(out.read_text())
    assert read(history, fmt).transcript.items
    back = cli("--from", fmt, "--to", "anthropic", "--model", "claude-sonnet-4-5", "--policy", "degrade", str(out))
    assert back.exit_code == 0, back.output
    body = json.loads(back.stdout)
    original = json.loads(ANTHROPIC.read_text())
    assert [m["role"] for m in body["messages"]] == [m["role"] for m in original["messages"]]


def test_recorded_span_to_canonical_and_to_a_provider() -> None:
    attrs = json.dumps(json.loads(SPAN.read_text())["attributes"])
    res = cli("--from", "otel", "--to", "canonical", input=attrs)
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["response"]["id"].startswith("resp_") and doc["items"][-1]["role"] == "assistant"
    chat = cli("--from", "otel", "--to", "openai-chat", "--model", "gpt-4.1", input=attrs)
    assert chat.exit_code == 0, chat.output
    assert [m["role"] for m in json.loads(chat.stdout)["messages"]] == ["user", "assistant", "tool", "assistant"]


def test_framework_to_framework() -> None:
    attrs = json.dumps(json.loads(SPAN.read_text())["attributes"])
    res = cli("--from", "otel", "--to", "langchain", input=attrs)
    assert res.exit_code == 0, res.output
    assert [m["type"] for m in json.loads(res.stdout)] == ["human", "ai", "tool", "ai"]
    again = cli("--from", "langchain", "--to", "otel", input=res.stdout)
    assert again.exit_code == 0, again.output
    assert from_otel(json.loads(again.stdout)).value.items[0].text == "What is the weather like in Paris today?"


@pytest.mark.parametrize(
    ("args", "stdin", "code", "message"),
    [
        (["--from", "otel", "--to", "canonical"], "{not json", 1, "the otel input is not JSON"),
        (["--from", "otel", "--to", "canonical"], '{"gen_ai.input.messages": [{"role": "user", "parts": [{"type": "text"}]}]}', 1, "/gen_ai.input.messages/0/parts/0/content"),
        (["--from", "pydantic-ai", "--to", "otel"], '{"not": "a list"}', 1, "pydantic-ai: expected a list"),
        (["--from", "langchain", "--to", "otel"], '[{"type": "nope", "data": {}}]', 1, "langchain: message 0 has type 'nope'"),
        (["--from", "otel", "--to", "nope"], "{}", 2, "unknown format 'nope'"),
        (["--from", "otel", "--to", "canonical", "--session", "s1"], "{}", 2, "--session"),
    ],
)
def test_bad_input_is_a_clear_error(args: list[str], stdin: str, code: int, message: str, tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    res = cli(*args, "-o", str(out), input=stdin)
    assert res.exit_code == code, res.output
    assert message in res.stderr and "Traceback" not in res.stderr
    assert not out.exists()  # nothing half-written


def test_policy_error_refuses_and_writes_nothing(tmp_path: Path) -> None:
    doc = {"schema_version": "1.0", "items": [{"type": "text", "role": "user", "text": "hi"}, {"type": "error", "code": "server", "message": "boom"}]}
    src = tmp_path / "t.json"
    src.write_text(json.dumps(doc))
    out = tmp_path / "out.json"
    for fmt in ("otel", "pydantic-ai", "langchain"):
        res = cli("--from", "canonical", "--to", fmt, str(src), "-o", str(out))
        assert res.exit_code == 1 and "error item has no" in res.stderr, (fmt, res.output)
        assert not out.exists()
        ok = cli("--from", "canonical", "--to", fmt, "--policy", "drop", str(src))
        assert ok.exit_code == 0 and "warning: dropped: item 1" in ok.stderr
