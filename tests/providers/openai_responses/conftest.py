"""Fixtures for the OpenAI Responses mapper tests.

``wire`` normalizes Responses JSON so that round-trip comparisons ignore only the
representation choices listed in :data:`REPRESENTATION_CHOICES` (fields and spellings with no
canonical equivalent that do not change the conversation).
"""

from __future__ import annotations

import copy
import json
import types
from pathlib import Path
from typing import Any

import pytest

from interlingua.mapping import get_mapper

DIR = Path(__file__).parents[2] / "fixtures" / "real" / "openai_responses"

REPRESENTATION_CHOICES = (
    "instructions '' is the same as no instructions",
    "a string input is one user message",
    "a message may omit type:'message'; string content == one input_text (user/system/developer) or output_text (assistant) part",
    "assistant parts are written as output_text (input_text in an assistant message is read as text)",
    "status of messages, function calls, outputs and reasoning items is not kept",
    "output_text logprobs are not kept; annotations default to []",
    "a function_call_output list holding one input_text == its string",
    "null description/parameters/strict on a function tool == absent",
    "tool_choice absent == 'auto'",
    "function_call arguments are compared as parsed JSON (the shared arguments_json re-serializes them compactly)",
)
"""What the request/response round-trip tests ignore, and why it does not change the conversation."""

CONVERSATION_KEYS = ("instructions", "input", "tools", "tool_choice", "parallel_tool_calls")
RESPONSE_KEYS = ("id", "object", "status", "model", "output", "usage", "incomplete_details", "error")


def _norm_part(part: Any, assistant: bool) -> Any:
    if not isinstance(part, dict):
        return part
    part = dict(part)
    if part.get("type") in ("input_text", "output_text") and assistant:
        part["type"] = "output_text"
        part.pop("logprobs", None)
        part.setdefault("annotations", [])
    return part


def _norm_item(item: Any) -> Any:
    if not isinstance(item, dict):
        return item
    item = copy.deepcopy(item)
    kind = item.get("type")
    if kind in (None, "message") and "role" in item:
        item["type"] = "message"
        assistant = item["role"] == "assistant"
        content = item.get("content")
        if isinstance(content, str):
            content = [{"type": "output_text" if assistant else "input_text", "text": content}]
        if isinstance(content, list):
            item["content"] = [_norm_part(p, assistant) for p in content]
        item.pop("status", None)
    elif kind in ("function_call", "function_call_output", "reasoning"):
        item.pop("status", None)
        if kind == "function_call" and isinstance(item.get("arguments"), str):
            try:
                item["arguments"] = json.loads(item["arguments"]) if item["arguments"].strip() else {}
            except ValueError:
                pass
        if kind == "function_call_output":
            out = item.get("output")
            if isinstance(out, list) and len(out) == 1 and isinstance(out[0], dict) and set(out[0]) == {"type", "text"} and out[0]["type"] == "input_text":
                item["output"] = out[0]["text"]
    return item


def normalize_request(body: dict[str, Any]) -> dict[str, Any]:
    """The conversation part of a request body, in one spelling."""
    out: dict[str, Any] = {k: copy.deepcopy(body[k]) for k in CONVERSATION_KEYS if k in body}
    if out.get("instructions") == "":
        del out["instructions"]
    if isinstance(out.get("input"), str):
        out["input"] = [{"role": "user", "content": out["input"]}]
    out["input"] = [_norm_item(i) for i in out.get("input", [])]
    for tool in out.get("tools", []):
        for key in ("description", "parameters", "strict"):
            if key in tool and tool[key] is None:
                del tool[key]
    if "tool_choice" not in out and ("tools" in out or "parallel_tool_calls" in out):
        out["tool_choice"] = "auto"
    return out


def normalize_response(body: dict[str, Any]) -> dict[str, Any]:
    """The fields of a Response object the mapper carries, in one spelling."""
    out = {k: copy.deepcopy(body.get(k)) for k in RESPONSE_KEYS}
    out["output"] = [_norm_item(i) for i in out["output"] or []]
    return out


@pytest.fixture(scope="session")
def oar():
    """The registered ``openai-responses`` mapper."""
    return get_mapper("openai-responses")


@pytest.fixture(scope="session")
def wire():
    """Normalizers for round-trip comparisons."""
    return types.SimpleNamespace(request=normalize_request, response=normalize_response, choices=REPRESENTATION_CHOICES)


@pytest.fixture(scope="session")
def oar_dir() -> Path:
    """The real OpenAI Responses fixtures."""
    return DIR
