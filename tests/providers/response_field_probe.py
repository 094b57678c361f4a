"""What a mapper does with one item field in a RESPONSE body, found by running it (ADR 0044, response direction).

The response-side twin of :mod:`item_field_probe`: each kind has candidate items, the model-produced forms
first (an assistant's image or audio, each provider's own raw output item); a mapper's *base* item of a kind
is the first candidate its ``encode_response`` writes with an empty report (the kind is carried natively in a
response body). A field is probed by setting it on the base item, encoding the response under policy
``degrade`` and decoding the body again with the same mapper's ``decode_response``.

The response holds the probed item alone (a tool result follows its call), with a stop reason and usage, so
that every report entry of the encoding is about the probed item.
"""

from __future__ import annotations

from typing import Any

import msgspec

from interlingua.codec import decode_item
from interlingua.errors import InterlinguaError
from interlingua.items import StopReason, Usage
from interlingua.mapping import ModelResponse

from .item_field_probe import _CALL, CANDIDATES, MODEL

_ASSISTANT_OUTPUT: dict[str, list[str]] = {
    "image": ['{"type":"image","role":"assistant","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}'],
    "audio": ['{"type":"audio","role":"assistant","format":"wav","source":{"type":"base64","media_type":"audio/wav","data":"UklGRg=="},"transcript":"hi"}'],
    "error": [
        '{"type":"error","code":"provider_error","message":"Ollama reported an error","retryable":false,"provider":"ollama"}',
        '{"type":"error","code":"server","message":"Gemini reported INTERNAL (HTTP 500)","retryable":true,"status":500,"provider":"gemini"}',
        '{"type":"error","code":"server","message":"OpenAI Responses response failed (code server_error)","retryable":true,"provider":"openai-responses"}',
    ],
    "raw": [
        '{"type":"raw","provider":"openai-chat","value":{"type":"custom","id":"call_1","custom":{"name":"grammar","input":"x"}}}',
        '{"type":"raw","provider":"ollama","value":{"role":"assistant","content":"hi","images":null,"x_custom":1}}',
        '{"type":"raw","provider":"cohere","value":{"type":"x_custom","text":"hi"}}',
        '{"type":"raw","provider":"mistral","value":{"type":"x_custom","text":"hi"}}',
    ],
}

RESPONSE_CANDIDATES: dict[str, list[str]] = {kind: _ASSISTANT_OUTPUT.get(kind, []) + texts for kind, texts in CANDIDATES.items()}
"""Candidate items per kind for a response body: what a model produces first, then the request candidates."""


def response(item: Any) -> ModelResponse:
    """A minimal response around ``item``: the call before a tool result, a stop reason and usage (Cohere and
    Mistral require both in their bodies and report writing defaults)."""
    kind = item.__struct_config__.tag
    items: list[Any] = [decode_item(_CALL)] if kind == "tool_result" else []
    items.append(item)
    stop = StopReason(reason="tool_use" if kind == "tool_call" else "end_turn")
    return ModelResponse(items=items, stop_reason=stop, usage=Usage(input_tokens=3, output_tokens=2, total_tokens=5))


def encode(mapper: Any, item: Any) -> Any:
    """``mapper.encode_response`` of :func:`response` under policy ``degrade`` (``None``: refused)."""
    try:
        return mapper.encode_response(response(item), model=MODEL.get(mapper.name, "test-model"), policy="degrade")
    except InterlinguaError:
        return None


def about(conv: Any) -> list[str]:
    """The report entries of an encoding (every one is about the probed item: the response holds nothing else)."""
    return [str(e) for e in conv.report]


def base_item(mapper: Any, kind: str) -> Any:
    """The first candidate of ``kind`` that ``mapper`` writes natively in a response body, or ``None``."""
    for text in RESPONSE_CANDIDATES[kind]:
        item = decode_item(text)
        conv = encode(mapper, item)
        if conv is not None and not about(conv) and _same_kind_back(mapper, conv, kind):
            return item
    return None


def _same_kind_back(mapper: Any, conv: Any, kind: str) -> bool:
    try:
        back = mapper.decode_response(conv.value).value
    except InterlinguaError:
        return False
    return any(i.__struct_config__.tag == kind for i in back.items)


def decoded_value(mapper: Any, conv: Any, item: Any, name: str) -> Any:
    """The field ``name`` of the probed item as the mapper reads its own response body back (``UNSET`` when not found)."""
    try:
        back = mapper.decode_response(conv.value).value
    except InterlinguaError:
        return msgspec.UNSET
    kind = item.__struct_config__.tag
    same = [i for i in back.items if i.__struct_config__.tag == kind]
    return getattr(same[-1], name, msgspec.UNSET) if same else msgspec.UNSET
