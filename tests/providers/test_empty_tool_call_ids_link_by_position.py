"""An empty tool-call id (``"id": ""`` on the call, ``""`` on its result) is one rule in every provider
decoder: the call gets a generated id, its result the same id (linked by position), both reported.

Before, OpenAI Chat renamed the call but kept its result as a raw item with the empty id (they no longer
linked), Anthropic refused the whole conversation, and Cohere and OpenAI Responses kept the call raw.
The cases are every real request fixture holding an answered call, with that call's id emptied on the
call and on its result.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from interlingua import convert_request
from interlingua.cli import app
from interlingua.items import ToolCallItem, ToolResultItem
from interlingua.mapping import get_mapper
from interlingua.mapping.empty_ids import EMPTY_ID_PREFIX, link_empty_ids
from interlingua.mapping.report import Report
from interlingua.validation import validate_document_bytes

REAL = Path(__file__).parent.parent / "fixtures" / "real"
DIRS = {
    "anthropic": "anthropic",
    "bedrock_converse": "bedrock-converse",
    "cohere": "cohere",
    "gemini": "gemini",
    "mistral": "mistral",
    "ollama": "ollama",
    "openai_chat": "openai-chat",
    "openai_compatible": "openai-chat",
    "openai_responses": "openai-responses",
    "openrouter": "openai-chat",
}
ID_KEYS = frozenset(("id", "toolUseId", "tool_use_id", "tool_call_id", "call_id"))
runner = CliRunner()


def _blank(value: Any, call_id: str) -> int:
    """Empty every id field of ``value`` equal to ``call_id`` (in place); how many."""
    n = 0
    if isinstance(value, dict):
        for k in list(value):
            if k in ID_KEYS and value[k] == call_id:
                value[k] = ""
                n += 1
            else:
                n += _blank(value[k], call_id)
    elif isinstance(value, list):
        for v in value:
            n += _blank(v, call_id)
    return n


def _cases() -> list[tuple[str, Path, str]]:
    out = []
    for folder, fmt in DIRS.items():
        for path in sorted((REAL / folder).glob("*.request.json")):
            try:
                items = get_mapper(fmt).decode_request(json.loads(path.read_text())).value.items
            except Exception:  # noqa: BLE001 - a fixture another test is about
                continue
            answered = {i.call_id for i in items if isinstance(i, ToolResultItem)}
            call = next((i for i in items if isinstance(i, ToolCallItem) and i.id in answered), None)
            if call is not None and _blank(json.loads(path.read_text()), call.id) >= 2:
                out.append((fmt, path, call.id))
    return out


CASES = _cases()


def test_every_provider_has_a_case() -> None:
    assert {fmt for fmt, _, _ in CASES} >= {"anthropic", "bedrock-converse", "cohere", "gemini", "mistral", "openai-chat", "openai-responses"}


@pytest.mark.parametrize(("fmt", "path", "call_id"), CASES, ids=[f"{p.parent.name}/{p.name}" for _, p, _ in CASES])
def test_an_empty_id_links_the_call_and_its_result(fmt: str, path: Path, call_id: str) -> None:
    original = get_mapper(fmt).decode_request(json.loads(path.read_text())).value.items
    body = json.loads(path.read_text())
    _blank(body, call_id)
    conv = get_mapper(fmt).decode_request(body)
    items = conv.value.items
    assert len(items) == len(original)
    at = next(n for n, i in enumerate(original) if isinstance(i, ToolCallItem) and i.id == call_id)
    result_at = next(n for n, i in enumerate(original) if isinstance(i, ToolResultItem) and i.call_id == call_id)
    call, result = items[at], items[result_at]
    assert isinstance(call, ToolCallItem) and isinstance(result, ToolResultItem)
    assert call.id.startswith(EMPTY_ID_PREFIX) and result.call_id == call.id
    assert call.name == original[at].name and call.arguments == original[at].arguments  # type: ignore[attr-defined]
    changed = [(e.index, e.item_type) for e in conv.report if e.action == "changed" and "empty" in e.reason]
    assert (at, "tool_call") in changed and (result_at, "tool_result") in changed
    # no other item changed kind or id
    for n, (a, b) in enumerate(zip(original, items, strict=True)):
        if n not in (at, result_at):
            assert type(a) is type(b) and getattr(a, "id", None) == getattr(b, "id", None)
    # validate --strict finds nothing the body with its ids had not
    def strict(b: Any) -> list[str]:
        found = validate_document_bytes(json.dumps(convert_request(b, source=fmt, target="canonical").value).encode(), mode="strict")
        return [f"{p.pointer}: {p.message}" for p in (*found.problems, *found.warnings)]

    assert strict(body) == strict(json.loads(path.read_text()))


@pytest.mark.parametrize("target", ["anthropic", "openai-chat", "openai-responses", "gemini", "bedrock-converse", "mistral", "cohere"])
def test_the_new_users_openai_chat_case_converts_to_every_provider(target: str, tmp_path: Path) -> None:
    body = json.loads((REAL / "openai_chat" / "pai_openai_instructions_with_tool_calls.1.request.json").read_text())
    body["messages"][2]["tool_calls"][0]["id"] = ""
    body["messages"][3]["tool_call_id"] = ""
    src = tmp_path / "q.json"
    src.write_text(json.dumps(body))
    res = runner.invoke(app, ["convert", str(src), "--from", "openai-chat", "--to", target])
    assert res.exit_code == 0, res.output
    assert "tool_call with an empty id; given 'call_empty_1'" in res.stderr
    assert "linked to the tool_call with an empty id at item 2 by position" in res.stderr
    assert "kept as a raw item" not in res.stderr


def test_the_anthropic_case_is_no_longer_refused(tmp_path: Path) -> None:
    body = json.loads((REAL / "anthropic" / "pai_anthropic_parallel_tool_calls.1.request.json").read_text())
    blocks = [b for m in body["messages"] for b in (m["content"] if isinstance(m["content"], list) else [])]
    first = next(b for b in blocks if b.get("type") == "tool_use")
    _blank(body, first["id"])
    src = tmp_path / "a.json"
    src.write_text(json.dumps(body))
    res = runner.invoke(app, ["convert", str(src), "--from", "anthropic", "--to", "canonical"])
    assert res.exit_code == 0, res.output
    out = tmp_path / "c.json"
    out.write_text(res.stdout)
    assert runner.invoke(app, ["validate", "--strict", str(out)]).exit_code == 0


def test_position_links_several_empty_ids_in_order_and_leaves_an_unmatched_result() -> None:
    def call(n: int) -> ToolCallItem:
        return ToolCallItem(id="", name=f"f{n}", arguments={})

    def result(text: str) -> ToolResultItem:
        from interlingua.items import TextItem

        return ToolResultItem(call_id="", content=[TextItem(text=text)])

    items = [call(1), call(2), result("one"), result("two"), result("extra"), ToolCallItem(id="call_empty_1", name="g", arguments={})]
    report = Report()
    out = link_empty_ids(items, report)
    assert out is not None and items[0].id == ""  # the input is not mutated
    assert [i.id if isinstance(i, ToolCallItem) else i.call_id for i in out] == ["call_empty_1_2", "call_empty_2", "call_empty_1_2", "call_empty_2", "", "call_empty_1"]
    assert out[4].call_id == ""  # no call left for it: the company rule drops it later, reported
    assert [(e.action, e.index) for e in report] == [("changed", 0), ("changed", 1), ("changed", 2), ("changed", 3)]
    assert link_empty_ids(out[:4], Report()) is None
