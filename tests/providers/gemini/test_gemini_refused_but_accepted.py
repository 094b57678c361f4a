"""Issue 13 item 4 (Gemini): request shapes the API accepted (recorded 200s) that the mapper refused or
dropped silently. Bodies are trimmed from pydantic-ai cassettes (named per test)."""

from __future__ import annotations

import copy

import pytest

from interlingua.errors import ConversionError
from interlingua.mapping.registry import get_mapper

gemini = get_mapper("gemini")


def test_tools_as_one_object_is_read_and_the_list_form_reported() -> None:
    """test_openai/test_multiple_agent_tool_calls.yaml (a google-genai request with ``tools`` as one Tool)."""
    body = {
        "contents": [{"parts": [{"text": "What is the capital of France?"}], "role": "user"}],
        "tools": {"function_declarations": [{"description": "Get the capital of a country.", "name": "get_capital",
                                             "parameters": {"properties": {"country": {"description": "The country name.", "type": "string"}},
                                                            "required": ["country"], "type": "object"}}]},
    }
    conv = gemini.decode_request(copy.deepcopy(body))
    (tool,) = conv.value.tools
    assert tool.name == "get_capital" and tool.parameters["properties"]["country"]["type"] == "string"
    assert [e.action for e in conv.report] == ["changed"] and "one object" in conv.report.entries[0].reason
    back = gemini.encode_request(conv.value).value
    assert isinstance(back["tools"], list) and len(back["tools"]) == 1
    assert [d["name"] for d in back["tools"][0]["functionDeclarations"]] == ["get_capital"]


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
