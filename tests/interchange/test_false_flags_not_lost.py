"""A tool result with ``is_error: false`` (what a tool that did not fail records) loses nothing when
written to OTel GenAI, pydantic-ai or LangChain: absent means false (found by a new user: one
"degraded ... is_error" warning per tool result)."""

from __future__ import annotations

import pytest

from interlingua.codec import decode_transcript
from interlingua.compat import write
from interlingua.otel import to_otel

DOC = b"""{"schema_version":"1.0","items":[
 {"type":"text","role":"user","text":"weather?"},
 {"type":"tool_call","id":"call_1","name":"get_weather","arguments":{"city":"Paris"}},
 {"type":"tool_result","call_id":"call_1","content":[{"type":"text","text":"18C"}],"is_error":false},
 {"type":"tool_call","id":"call_2","name":"get_weather","arguments":{"city":"Nowhere"}},
 {"type":"tool_result","call_id":"call_2","content":[{"type":"text","text":"no such city"}],"is_error":true}]}"""


@pytest.mark.parametrize("target", ["otel", "pydantic-ai", "langchain"])
def test_is_error_false_is_not_reported_lost(target: str) -> None:
    transcript = decode_transcript(DOC)
    conv = to_otel(transcript, policy="degrade") if target == "otel" else write(transcript, target, policy="degrade")
    about_flag = [str(e) for e in conv.report if "is_error" in str(e) and e.index == 2]
    assert about_flag == []
