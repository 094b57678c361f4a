"""Issue 13 item 4 (Gemini): request shapes the API accepted (recorded 200s) that the mapper refused or
dropped silently. Bodies are trimmed from pydantic-ai cassettes (named per test)."""

from __future__ import annotations

import copy

import msgspec
import pytest

from interlingua.errors import ConversionError
from interlingua.items import ToolDefinition
from interlingua.mapping.registry import get_mapper

gemini = get_mapper("gemini")


def test_tools_as_one_object_is_read_and_written_back_as_one_object() -> None:
    """test_openai/test_multiple_agent_tool_calls.yaml (a google-genai request with ``tools`` as one Tool):
    the layout is kept, so the same wire goes back (lowercase Schema types included), with no report."""
    body = {
        "contents": [{"parts": [{"text": "What is the capital of France?"}], "role": "user"}],
        "tools": {"function_declarations": [{"description": "Get the capital of a country.", "name": "get_capital",
                                             "parameters": {"properties": {"country": {"description": "The country name.", "type": "string"}},
                                                            "required": ["country"], "type": "object"}}]},
    }
    conv = gemini.decode_request(copy.deepcopy(body))
    (tool,) = conv.value.tools
    assert tool.name == "get_capital" and tool.parameters["properties"]["country"]["type"] == "string"
    assert not conv.report, conv.report.lines()
    back = gemini.encode_request(conv.value)
    assert back.value["tools"] == body["tools"] and not back.report
    # a tool added since joins that Tool object; the list form comes back once there are two Tool objects
    t = msgspec.structs.replace(conv.value, tools=[*conv.value.tools, ToolDefinition(name="other", parameters={"type": "object"})])
    tools = gemini.encode_request(t).value["tools"]
    assert isinstance(tools, dict) and [d["name"] for d in tools["function_declarations"]] == ["get_capital", "other"]
    # another target gets the tool and the report that the Gemini layout is not for it
    out = get_mapper("openai-chat").encode_request(conv.value, policy="drop")
    assert [t["function"]["name"] for t in out.value["tools"]] == ["get_capital"]
    assert any("tools" in e.reason and e.action == "dropped" for e in out.report), out.report.lines()


@pytest.mark.parametrize("tools", ["x", 3, [1]])
def test_tools_of_another_type_is_still_refused(tools: object) -> None:
    with pytest.raises(ConversionError):
        gemini.decode_request({"contents": [], "tools": tools})


def test_include_server_side_tool_invocations_round_trips_and_is_reported_elsewhere() -> None:
    """test_google/test_google_model_file_search_grounding_gemini_3_False.yaml, interaction 3."""
    body = {"contents": [{"parts": [{"text": "q"}], "role": "user"}], "toolConfig": {"includeServerSideToolInvocations": True}}
    t = gemini.decode_request(copy.deepcopy(body)).value
    assert gemini.encode_request(t).value["toolConfig"] == body["toolConfig"]
    out = get_mapper("openai-chat").encode_request(t, policy="drop")
    assert any("toolConfig" in e.reason and e.action == "dropped" for e in out.report), out.report.lines()
