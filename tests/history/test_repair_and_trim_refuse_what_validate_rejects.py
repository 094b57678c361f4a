"""Issue 32: ``repair`` and ``trim`` refuse (exit 1, validate's message: file, line, JSON pointer) an
input ``interlingua validate`` rejects, before doing anything; nothing is written. Each semantic rule
validate enforces is broken once, in a transcript document and in a session file, from stdin and from
a file; the integrity rules (a dangling call: what repair is for) are still repaired."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from interlingua.cli import app

runner = CliRunner()

VALID: dict[str, Any] = {
    "schema_version": "1.0",
    "items": [
        {"type": "text", "text": "weather in Paris?", "role": "user"},
        {"type": "tool_call", "id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}},
        {"type": "tool_result", "call_id": "c1", "content": [{"type": "text", "text": "sunny"}]},
        {"type": "text", "text": "It is sunny.", "role": "assistant"},
    ],
}


def _broken() -> list[tuple[str, dict[str, Any], str]]:
    cases: list[tuple[str, dict[str, Any], str]] = []
    doc = copy.deepcopy(VALID)
    del doc["items"][0]["role"]
    cases.append(("text-without-role", doc, "a top-level text item needs a role"))
    doc = copy.deepcopy(VALID)
    del doc["items"][1]["arguments"]
    cases.append(("tool-call-without-arguments", doc, "a tool_call needs an arguments object"))
    doc = copy.deepcopy(VALID)
    doc["items"][1]["arguments_raw"] = "{"
    cases.append(("arguments-and-raw", doc, "not both"))
    doc = copy.deepcopy(VALID)
    doc["items"][2]["content"][0]["role"] = "user"
    cases.append(("nested-role", doc, "content nested in a result carries no role"))
    doc = copy.deepcopy(VALID)
    doc["items"][3]["id"] = "c1"
    cases.append(("duplicate-id", doc, "duplicate item id"))
    doc = copy.deepcopy(VALID)
    doc["items"][0]["role"] = 5
    cases.append(("role-wrong-type", doc, "/role: "))
    return cases


BROKEN = _broken()


def _session_lines(doc: dict[str, Any]) -> str:
    return "".join(json.dumps({"schema_version": "1.0", "session_id": "s1", "seq": i, "item": it}) + "\n" for i, it in enumerate(doc["items"]))


def _inputs(tmp_path: Path, doc: dict[str, Any], form: str) -> Path:
    if form == "document":
        path = tmp_path / "in.json"
        path.write_text(json.dumps(doc, indent=2))
    else:
        path = tmp_path / "in.jsonl"
        path.write_text(_session_lines(doc))
    return path


COMMANDS = [["repair"], ["trim", "--max-input-tokens", "300"]]


@pytest.mark.parametrize("stdin", [False, True], ids=["file", "stdin"])
@pytest.mark.parametrize("form", ["document", "session"])
@pytest.mark.parametrize("command", COMMANDS, ids=["repair", "trim"])
@pytest.mark.parametrize(("name", "doc", "message"), BROKEN, ids=[b[0] for b in BROKEN])
def test_refused_with_validates_message_and_nothing_written(
    tmp_path: Path, name: str, doc: dict[str, Any], message: str, command: list[str], form: str, stdin: bool
) -> None:
    src = _inputs(tmp_path, doc, form)
    check = runner.invoke(app, ["validate", str(src)])
    assert check.exit_code == 1  # the premise: validate rejects it
    out = tmp_path / "out.json"
    if stdin:
        result = runner.invoke(app, [*command, "-", "-o", str(out)], input=src.read_bytes())
    else:
        result = runner.invoke(app, [*command, str(src), "-o", str(out)])
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert message in result.output
    assert ("-" if stdin else str(src)) in result.output
    assert "nothing to repair" not in result.output
    assert not out.exists()


@pytest.mark.parametrize("form", ["document", "session"])
def test_a_dangling_call_is_still_repaired(tmp_path: Path, form: str) -> None:
    doc = copy.deepcopy(VALID)
    del doc["items"][2:]
    src = _inputs(tmp_path, doc, form)
    out = tmp_path / ("out.json" if form == "document" else "out.jsonl")
    result = runner.invoke(app, ["repair", str(src), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "nothing to repair" not in result.output
    assert runner.invoke(app, ["validate", str(out)]).exit_code == 0


def test_a_valid_input_is_trimmed(tmp_path: Path) -> None:
    src = _inputs(tmp_path, VALID, "document")
    out = tmp_path / "out.json"
    result = runner.invoke(app, ["trim", str(src), "--max-input-tokens", "300", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert runner.invoke(app, ["validate", str(out)]).exit_code == 0
