"""Gemini Part members set to ``null`` mean the field's default (proto3 JSON mapping: "null is an accepted
value for all field types and treated as the default value of the corresponding field type"), so a part
written with every field (ADK eval sets, SDK ``model_dump()``) is read as the part it is, and written back
to Gemini as it was.

Real case: the user and model contents of the ADK travel-concierge eval sets (google/adk-samples, see
tests/fixtures/stores/README.md), given to the Gemini mapper as a ``contents`` request: each part has
``"inline_data": null, "function_call": null, ...`` beside its ``text``; the mapper kept every one raw,
with no report.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from interlingua.items import RawItem, TextItem
from interlingua.mapping import get_mapper

STORES = Path(__file__).resolve().parents[2] / "fixtures" / "stores" / "adk"
FILES = ["travel_concierge_inspire.test.json", "travel_concierge_pretrip.test.json"]


def _contents(name: str) -> list[dict[str, Any]]:
    data = json.loads((STORES / name).read_text(encoding="utf-8"))
    out: list[dict[str, Any]] = []
    for case in data["eval_cases"]:
        for turn in case["conversation"]:
            for key in ("user_content", "final_response"):
                content = turn.get(key)
                if content and content.get("parts"):
                    out.append(content)
    return out


@pytest.mark.parametrize("name", FILES)
def test_parts_with_null_members_are_read_as_their_kind_and_come_back(name: str) -> None:
    contents = _contents(name)
    texts = [p["text"] for c in contents for p in c["parts"] if isinstance(p.get("text"), str) and p["text"]]
    assert texts and all(None in p.values() for c in contents for p in c["parts"])  # the real shape
    body = {"contents": contents}
    mapper = get_mapper("gemini")
    decoded = mapper.decode_request(body)
    items = decoded.value.items
    assert not [i for i in items if isinstance(i, RawItem)]
    assert [i.text for i in items if isinstance(i, TextItem)] == texts  # every text, in order
    back = mapper.encode_request(decoded.value, policy="error").value
    assert back["contents"] == contents


def test_a_part_whose_only_non_null_member_is_unknown_stays_raw() -> None:
    part = {"text": None, "somethingNew": {"x": 1}}
    items = get_mapper("gemini").decode_request({"contents": [{"role": "user", "parts": [part]}]}).value.items
    assert [type(i) for i in items] == [RawItem]


def test_the_newest_sdk_dump_of_text_call_and_response_reads_and_comes_back() -> None:
    # another source of the same shape: google-genai's own ``Content.model_dump(mode="json")`` writes
    # every Part field, and the functionCall/functionResponse bodies' unset fields (id, partial_args,
    # will_continue, scheduling, ...), as null
    types = pytest.importorskip("google.genai.types")
    contents = [
        types.Content(role="user", parts=[types.Part(text="What is the weather in Paris?")]).model_dump(mode="json"),
        types.Content(role="model", parts=[types.Part(function_call=types.FunctionCall(name="get_weather", args={"city": "Paris"}))]).model_dump(mode="json"),
        types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(name="get_weather", response={"temp": 21}))]).model_dump(mode="json"),
    ]
    assert None in contents[1]["parts"][0]["function_call"].values()  # the shape this test is about
    mapper = get_mapper("gemini")
    decoded = mapper.decode_request({"contents": contents})
    assert [type(i).__name__ for i in decoded.value.items] == ["TextItem", "ToolCallItem", "ToolResultItem"]
    call = decoded.value.items[1]
    assert call.name == "get_weather" and call.arguments == {"city": "Paris"}
    assert mapper.encode_request(decoded.value, policy="drop").value["contents"] == contents
