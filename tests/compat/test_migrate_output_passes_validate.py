"""Issue 32: whatever ``migrate`` writes passes ``interlingua validate``; a canonical conversation that
validate rejects (a top-level text item with no role, a tool_call with no arguments, a tool_result with
no earlier tool_call) is a reject record, exit 1 when nothing migrated, for every target format and for
every way migrate reads it (the whole document, the document item by item, session lines, a long
session read from its span)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import interlingua._migrate.session as spans
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


def _mutations() -> list[tuple[str, dict[str, Any]]]:
    """Every document with one optional-by-schema but semantically required member removed or changed."""
    out: list[tuple[str, dict[str, Any]]] = []
    for i, item in enumerate(VALID["items"]):
        for key in item:
            if key == "type":
                continue
            doc = copy.deepcopy(VALID)
            del doc["items"][i][key]
            out.append((f"items{i}-no-{key}", doc))
    doc = copy.deepcopy(VALID)
    doc["items"][2]["call_id"] = "c9"
    out.append(("result-of-no-call", doc))
    doc = copy.deepcopy(VALID)
    doc["items"][2]["content"][0]["role"] = "user"
    out.append(("nested-role", doc))
    doc = copy.deepcopy(VALID)
    doc["items"][3]["id"] = doc["items"][1]["id"]
    out.append(("duplicate-id", doc))
    return out


MUTATIONS = _mutations()


def _run(*args: Any) -> Any:
    return runner.invoke(app, list(map(str, args)), catch_exceptions=False)


def test_the_issue_cases_are_rejected(tmp_path: Path) -> None:
    src = tmp_path / "x.json"
    src.write_text(json.dumps({"schema_version": "1.0", "items": [{"type": "text", "text": "hi"}]}))
    out = tmp_path / "o.jsonl"
    result = _run("migrate", src, "-o", out)
    assert result.exit_code == 1, result.output
    assert not out.exists()
    reject = json.loads((tmp_path / "o.rejects.jsonl").read_text())
    assert "/items/0: a top-level text item needs a role" in reject["reason"]
    assert "x.json" in reject["reason"]


@pytest.mark.parametrize("to", ["canonical", "langchain", "pydantic-ai", "sharegpt", "vercel-ui", "vercel-model", "openai-finetune"])
@pytest.mark.parametrize(("name", "doc"), MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_every_output_of_a_mutated_document_passes_validate(tmp_path: Path, name: str, doc: dict[str, Any], to: str) -> None:
    src = tmp_path / "doc.json"
    src.write_text(json.dumps(doc, indent=2))
    out = tmp_path / ("o.jsonl" if to == "canonical" else "o.json")
    args: list[Any] = ["migrate", src, "-o", out] + ([] if to == "canonical" else ["--to", to])
    result = _run(*args)
    rejects = tmp_path / f"{out.stem}.rejects.jsonl"
    valid = _run("validate", src).exit_code == 0
    if valid:  # a change validate accepts (an optional member): migrated
        assert result.exit_code == 0, result.output
    if result.exit_code == 0:
        if not valid:  # repaired by a reader rule (an orphan result left out): said
            assert "warning:" in result.output
        if to == "canonical":
            check = _run("validate", out)
            assert check.exit_code == 0, check.output
    else:
        assert result.exit_code == 1, result.output
        assert not out.exists()
        assert "/items/" in json.loads(rejects.read_text())["reason"]
    if name in ("items0-no-role", "items3-no-role", "items1-no-arguments"):  # the issue's cases: never repaired
        assert result.exit_code == 1, result.output


@pytest.mark.parametrize("threshold", [1, 10_000])
@pytest.mark.parametrize(("name", "doc"), MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_session_lines_validate_rejects_are_rejected(tmp_path: Path, name: str, doc: dict[str, Any], threshold: int) -> None:
    """The same items as a session's envelope lines; ``threshold`` 1 reads the session from its span."""
    src = tmp_path / "s.jsonl"
    src.write_text("".join(json.dumps({"schema_version": "1.0", "session_id": "s1", "seq": i, "item": it}) + "\n" for i, it in enumerate(doc["items"])))
    valid = _run("validate", src).exit_code == 0
    out = tmp_path / "o.jsonl"
    old = spans.STREAM_ENVELOPES
    spans.STREAM_ENVELOPES = threshold
    try:
        result = _run("migrate", src, "-o", out)
    finally:
        spans.STREAM_ENVELOPES = old
    if valid:
        assert result.exit_code == 0, result.output
    if result.exit_code == 0:
        assert _run("validate", out).exit_code == 0
    else:
        assert result.exit_code == 1, result.output
        assert not out.exists()
    if name in ("items0-no-role", "items3-no-role", "items1-no-arguments"):
        assert result.exit_code == 1, result.output


def test_a_fork_validate_would_reject_is_refused() -> None:
    """A tree-shaped source's abandoned branch is written as its own session (the shared items, then
    its own): its items get the same checks, the shared ones counted (a result of a shared call is fine)."""
    from interlingua._migrate.records import _check_semantics
    from interlingua.codec import decode_transcript
    from interlingua.compat._base import Fork, Migrated
    from interlingua.errors import DocumentError
    from interlingua.items import TextItem, ToolResultItem
    from interlingua.mapping import Report

    transcript = decode_transcript(json.dumps(VALID).encode())
    good = Fork(key="b1", at=1, items=[ToolResultItem(call_id="c1", content=[TextItem(text="rainy")])])
    _check_semantics(Migrated(transcript, Report(), "claude-code", forks=[good]))
    bad = Fork(key="b2", at=1, items=[TextItem(text="no role")])
    with pytest.raises(DocumentError, match="/forks/0/items/0: a top-level text item needs a role"):
        _check_semantics(Migrated(transcript, Report(), "claude-code", forks=[bad]))
