"""Dataset tool schemas written with Python type names (``"type": "dict"``, ``"str"``; LLaMA-Factory's
xLAM/Glaive-style tool data) are read as the JSON Schema they mean and reported as changed (issue 26), so
what goes to Ollama or OpenAI is a schema their SDK types and JSON Schema accept."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from interlingua import convert_request
from interlingua.compat import read
from interlingua.compat._schema_types import PYTHON_TYPES, json_schema_types
from tests.sdk_oracle.oracle import check_request

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "stores" / "llamafactory" / "reason_tool_use_demo_3.jsonl"
JSON_TYPES = {"object", "string", "integer", "number", "boolean", "array", "null"}


def _record() -> dict:
    return json.loads(REAL.read_text().splitlines()[0])


def test_the_real_record_has_python_type_names() -> None:
    tools = _record()["tools"]
    assert re.findall(r'"type": "(dict|str)"', tools)  # the independent check: the source is what the issue says


def test_read_as_json_schema_and_reported() -> None:
    record = _record()
    m = read(record, "llamafactory")
    source = json.loads(record["tools"])
    assert [t.name for t in m.transcript.tools] == [t["function"]["name"] for t in source]
    for tool, src in zip(m.transcript.tools, source, strict=True):
        jsonschema.Draft202012Validator.check_schema(tool.parameters)
        assert tool.parameters["type"] == "object"
        assert all(p["type"] in JSON_TYPES for p in tool.parameters["properties"].values())
        assert tool.parameters["required"] == src["function"]["required"]  # moved in from beside parameters
        assert tool.parameters["properties"].keys() == src["function"]["parameters"]["properties"].keys()
    changed = [e for e in m.report if e.action == "changed" and "Python type names" in e.reason]
    assert len(changed) == len(source)
    assert "/tools/0/function/parameters/type: 'dict' -> 'object'" in changed[0].reason
    assert record == _record()  # the input is not changed


@pytest.mark.parametrize("target", ["ollama", "openai-chat"])
def test_the_sdks_take_the_tools(target: str) -> None:
    m = read(_record(), "llamafactory")
    conv = convert_request(m.transcript, source="canonical", target=target, model="m", policy="drop")
    assert check_request(target, conv.value) == []
    for tool in conv.value["tools"]:
        jsonschema.Draft202012Validator.check_schema(tool["function"]["parameters"])


def test_sharegpt_reads_them_too() -> None:
    tools = [{"name": "f", "parameters": {"type": "dict", "properties": {"n": {"type": "int"}, "xs": {"type": "list", "items": {"type": "float"}}}}}]
    m = read({"conversations": [{"from": "human", "value": "hi"}], "tools": json.dumps(tools)}, "sharegpt")
    assert m.transcript.tools[0].parameters == {"type": "object", "properties": {"n": {"type": "integer"}, "xs": {"type": "array", "items": {"type": "number"}}}}
    assert any("Python type names" in e.reason for e in m.report)


def test_a_json_schema_is_left_alone() -> None:
    m = read(json.loads(REAL.read_text().splitlines()[1]), "llamafactory")
    assert not any("Python type names" in e.reason for e in m.report)


_schema = st.recursive(
    st.fixed_dictionaries({"type": st.sampled_from(sorted(PYTHON_TYPES) + sorted(JSON_TYPES) + ["str, optional"])}),
    lambda inner: st.fixed_dictionaries({"type": st.just("dict"), "properties": st.dictionaries(st.text("ab", min_size=1, max_size=3), inner, max_size=3)})
    | st.fixed_dictionaries({"type": st.just("list"), "items": inner}),
    max_leaves=8,
)


@given(_schema)
def test_every_python_name_becomes_a_json_schema_type(schema: dict) -> None:
    before = json.dumps(schema)
    out, changes = json_schema_types(schema)
    assert json.dumps(schema) == before
    jsonschema.Draft202012Validator.check_schema(out)
    python_names = sum(before.count(f'"type": "{t}"') for t in [*PYTHON_TYPES, "str, optional"])
    assert len(changes) == python_names
    assert all(t in JSON_TYPES for t in re.findall(r'"type": "([^"]*)"', json.dumps(out)))
