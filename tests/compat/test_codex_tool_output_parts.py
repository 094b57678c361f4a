"""Codex tool outputs written with ``output_text`` parts go to the Responses API as the ``input_text``
parts its request types take (``ResponseCustomToolCallOutputParam.output``: a string or a list of
``input_text``/``input_image``/``input_file``; issue 26), checked by the openai SDK's own types."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from interlingua import convert_request
from interlingua.compat import read
from tests.sdk_oracle.oracle import check_request

CODEX = Path(__file__).resolve().parents[1] / "fixtures" / "stores" / "codex" / "sessions"
REAL = next((CODEX / "2026" / "01" / "02").glob("rollout-*11111111*.jsonl"))


def _records() -> list[dict]:
    return [json.loads(line) for line in REAL.read_text().splitlines() if line.strip()]


def _body(records: list[dict]) -> dict:
    m = read(records, "codex")
    return convert_request(m.transcript, source="canonical", target="openai-responses", model="gpt-4.1", policy="drop").value


def test_the_real_rollout_is_accepted_by_the_sdk_types() -> None:
    records = _records()
    source = [r["payload"] for r in records if r.get("type") == "response_item" and r["payload"].get("type") == "custom_tool_call_output"]
    assert source and source[0]["output"][0]["type"] == "output_text"  # what Codex wrote
    body = _body(records)
    assert check_request("openai-responses", body) == []
    outputs = [i for i in body["input"] if i.get("type") == "custom_tool_call_output"]
    assert [o["output"] for o in outputs] == [[{"type": "input_text", "text": p["text"]} for p in s["output"]] for s in source]
    assert records == _records()  # the input is not changed


def test_the_change_is_reported() -> None:
    m = read(_records(), "codex")
    assert any("'output_text' parts read as 'input_text'" in e.reason and e.action == "changed" for e in m.report)


@pytest.mark.parametrize("kind", ["custom_tool_call_output", "function_call_output"])
def test_both_output_kinds(kind: str) -> None:
    call_kind = "custom_tool_call" if kind.startswith("custom") else "function_call"
    call = {"type": call_kind, "name": "t", "call_id": "c1", **({"input": "x"} if call_kind == "custom_tool_call" else {"arguments": "{}"})}
    records = [
        {"timestamp": "t", "type": "session_meta", "payload": {"id": "s"}},
        {"timestamp": "t", "type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}},
        {"timestamp": "t", "type": "response_item", "payload": call},
        {"timestamp": "t", "type": "response_item", "payload": {"type": kind, "call_id": "c1", "output": [{"type": "output_text", "text": "ok"}, {"type": "output_text", "text": "!"}]}},
    ]
    body = _body(records)
    assert check_request("openai-responses", body) == []
    text = json.dumps(body)
    assert "output_text" not in text and text.count('"input_text"') >= 2
