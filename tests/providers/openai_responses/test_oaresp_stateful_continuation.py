"""A Responses request that continues provider-stored state (``previous_response_id``, ``conversation``).

The usual continuation of a tool call on the Responses API sends only the ``function_call_output`` items
and points at the response that made the calls (OpenAI function-calling guide, "previous_response_id").
Such a result answers a call the request does not hold: it is kept as a ``raw`` item of the wire item
as sent, so the same provider gets the request back unchanged, every other target drops it reported,
and a result without its call never enters a canonical history.

The requests are made from a real recorded request (pydantic-ai's ``model_retry`` cassette, two parallel
calls and their outputs) cut where a continuing client cuts it: after the calls.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from interlingua import convert_request
from interlingua.errors import ConversionError
from interlingua.items import RawItem, ToolCallItem, ToolResultItem
from interlingua.mapping import get_mapper

from tests.sdk_oracle.oracle import check_request

REAL = Path(__file__).parents[2] / "fixtures" / "real" / "openai_responses"
WHOLE = json.loads((REAL / "pai_openai_responses_model_retry.1.request.json").read_text())
CUT = next(i for i, it in enumerate(WHOLE["input"]) if it.get("type") == "function_call_output")


def _continuation(state: dict[str, Any], keep_calls: int = 0) -> dict[str, Any]:
    body = copy.deepcopy(WHOLE)
    calls = [it for it in body["input"][:CUT] if it.get("type") == "function_call"]
    body["input"] = calls[:keep_calls] + body["input"][CUT:]
    body.update(state)
    return body


STATES = [{"previous_response_id": "resp_68a4f0c2b1d48190a1b2c3d4e5f60718"}, {"conversation": "conv_68a4f0c2b1d48190"}]


@pytest.mark.parametrize("state", STATES, ids=lambda s: next(iter(s)))
def test_results_of_stored_calls_are_kept_raw_and_go_back_unchanged(state: dict[str, Any]) -> None:
    body = _continuation(state)
    mapper = get_mapper("openai-responses")
    decoded = mapper.decode_request(body)
    outputs = [it for it in body["input"] if it["type"] == "function_call_output"]
    raws = [it for it in decoded.value.items if isinstance(it, RawItem)]
    assert [r.value for r in raws] == outputs
    assert not any(isinstance(it, ToolResultItem) for it in decoded.value.items)
    assert sum("held in the provider's stored state" in e.reason for e in decoded.report.entries) == len(outputs)
    again = convert_request(body, source="openai-responses", target="openai-responses", policy="error")
    assert again.value == body
    assert check_request("openai-responses", again.value) == []


def test_a_result_whose_call_is_in_the_request_stays_a_tool_result() -> None:
    """Only the results of calls the request does not hold are kept raw: with one of the two calls sent
    again, its result is a canonical tool result and the other's is raw."""
    body = _continuation(STATES[0], keep_calls=1)
    items = get_mapper("openai-responses").decode_request(body).value.items
    (call,) = [it for it in items if isinstance(it, ToolCallItem)]
    (result,) = [it for it in items if isinstance(it, ToolResultItem)]
    (raw,) = [it for it in items if isinstance(it, RawItem)]
    assert result.call_id == call.id and raw.value["call_id"] != call.id


def test_without_stored_state_a_result_without_its_call_is_still_dropped() -> None:
    body = _continuation({})
    conversion = convert_request(body, source="openai-responses", target="canonical", policy="drop")
    assert conversion.value["items"] == []
    assert any("no earlier tool_call" in e.reason for e in conversion.report.entries)


def test_another_provider_cannot_continue_stored_state() -> None:
    with pytest.raises(ConversionError):
        convert_request(_continuation(STATES[0]), source="openai-responses", target="anthropic", model="claude-sonnet-4-5", policy="error")
