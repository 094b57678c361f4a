"""Cohere v2 chat response <-> model response (Cohere API reference "Chat" (v2); cohere-python ``V2ChatResponse``).

``{id, finish_reason, message: {role, content?, tool_plan?, tool_calls?, citations?}, usage?, logprobs?}``:

* ``message`` -> output items (message key ``"resp"``, origin ``{provider "cohere"}``; rules in :mod:`._messages`).
* ``finish_reason`` -> stop reason (``COMPLETE`` end_turn, ``STOP_SEQUENCE``, ``MAX_TOKENS``,
  ``TOOL_CALL`` tool_use, ``ERROR``/``TIMEOUT`` error, others ``other``; raw value kept).
* ``usage`` -> usage (``tokens``, ``cached_tokens``; the record as given in ``details``).
* ``id`` -> response id; every other top-level field (``logprobs``, ...) and unknown message fields
  go to the response's ``provider_data["cohere"]`` and are written back to Cohere only (ADR 0009).
  The response carries no model name.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Mapping
from typing import Any

import msgspec

from ...codec import Item
from ...errors import ConversionError
from ...items import Origin
from ...mapping.extras import response_fields, restore_fields, unknown_fields
from ...mapping.protocol import Conversion, ModelResponse
from ...mapping.report import Policy, Report
from ...mapping.wire import guarded
from ...mapping.empty_ids import links_empty_ids
from ._common import NAME, decode_usage, encode_usage, finish_reason, stop_reason
from ._messages import MessageDecoder, MessageEncoder

UNSET = msgspec.UNSET

__all__ = ["decode_response", "encode_response"]

_TOP = {"id", "finish_reason", "message", "usage"}
_MESSAGE = {"role", "content", "tool_plan", "tool_calls", "citations"}


@links_empty_ids
@guarded(NAME, "response")
def decode_response(body: Mapping[str, Any]) -> Conversion[ModelResponse]:
    """Cohere v2 chat response body -> model response (rules in the module docstring).

    Raises:
        ConversionError: ``body`` is not an object or has no ``message`` object.
    """
    if not isinstance(body, Mapping) or not isinstance(body.get("message"), Mapping):
        raise ConversionError("Cohere chat response has no 'message' object")
    report = Report()
    msg = body["message"]
    rid = body.get("id") if isinstance(body.get("id"), str) and body.get("id") else None
    dec = MessageDecoder(report, origin=Origin(provider=NAME, response_id=rid or UNSET))
    items: list[Item] = dec.decode({"role": "assistant", **{k: v for k, v in msg.items() if k in _MESSAGE and k != "role"}}, 0, "resp", "/message")
    kept = unknown_fields(body, _TOP)
    extra_msg = unknown_fields(msg, _MESSAGE)
    if extra_msg:
        kept["message"] = extra_msg
    if msg.get("role", "assistant") != "assistant":
        kept.setdefault("message", {})["role"] = msg.get("role")
    if "id" in body and rid is None:
        kept["id"] = body["id"]
    fr = body.get("finish_reason")
    stop = stop_reason(fr) if isinstance(fr, str) and fr else None
    if "finish_reason" in body and stop is None:
        kept["finish_reason"] = body["finish_reason"]
    usage = decode_usage(body.get("usage"))
    if "usage" in body and usage is None:
        kept["usage"] = body["usage"]
    return Conversion(ModelResponse(items=items, usage=usage, stop_reason=stop, response_id=rid, provider_data={NAME: kept} if kept else None), report)


def encode_response(response: ModelResponse, *, model: str | None = None, policy: Policy = "error") -> Conversion[dict[str, Any]]:
    """Model response -> Cohere v2 chat response body.

    Items of another role than assistant have no place in a response (reported). ``model`` is not
    written: Cohere responses do not carry one. ``id`` and ``finish_reason`` are required
    (``V2ChatResponse``): without a response id one is derived from the content (a UUID of its
    SHA-256); without a stop reason ``COMPLETE`` (``TOOL_CALL`` with calls) is written, reported.
    """
    report = Report()
    enc = MessageEncoder(policy, report)
    for idx, item in enumerate(response.items):
        enc.add(idx, item)
    message: dict[str, Any] = {"role": "assistant"}
    for n, m in enumerate(enc.finish()):
        if m.get("role") != "assistant":
            report.add("dropped", f"{m.get('role')} message has no place in a Cohere response", index=n)
            continue
        if len(message) > 1:
            report.add("changed", "several assistant messages merged into one response message", index=n)
        for key, value in m.items():
            if key == "role":
                continue
            if key in ("content", "tool_calls", "citations") and key in message:
                existing = message[key] if isinstance(message[key], list) else [{"type": "text", "text": message[key]}]
                message[key] = existing + (value if isinstance(value, list) else [{"type": "text", "text": value}])
            else:
                message[key] = value
    if isinstance(message.get("content"), str):
        message["content"] = [{"type": "text", "text": message["content"]}]  # responses always hold parts (V2ChatResponse)
    own = response_fields(response.provider_data, NAME, report)
    restore_fields(message, own.pop("message", {}))
    body: dict[str, Any] = {}
    if response.response_id:
        body["id"] = response.response_id
    else:  # required (V2ChatResponse.id): derived from the content, so the same response gets the same id
        body["id"] = str(uuid.UUID(hashlib.sha256(msgspec.json.encode(message)).hexdigest()[:32]))
    if response.stop_reason is not None:
        body["finish_reason"] = finish_reason(response.stop_reason, report)
    else:
        body["finish_reason"] = "TOOL_CALL" if message.get("tool_calls") else "COMPLETE"
        report.add("changed", f"no stop reason: finish_reason {body['finish_reason']} written (Cohere requires one)", item_type="stop_reason")
    body["message"] = message
    if response.usage is not None:
        body["usage"] = encode_usage(response.usage)
    restore_fields(body, own)
    return Conversion(body, report)
