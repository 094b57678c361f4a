"""OpenAI Chat response bodies <-> :class:`ModelResponse`.

Source: openai-python ``types/chat/chat_completion.py`` (``{id, object:"chat.completion", created,
model, choices:[{index, message, finish_reason, logprobs}], usage, system_fingerprint,
service_tier}``), ``chat_completion_message.py`` and ``completion_usage.py``.
Only ``choices[0]`` is canonical; further choices are reported as dropped.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from ...errors import ConversionError
from ...items import Origin, ReasoningItem
from ...mapping.extras import response_fields, restore_fields, unknown_fields
from ...mapping.ids import IdMap, IdRule
from ...mapping.protocol import ModelResponse
from ...mapping.report import Policy, Report
from ...mapping.wire import guarded
from ._common import NAME, Dialect, finish_reason, stop_reason, usage_from_wire, usage_to_wire
from ._decode import MessageDecoder
from ._encode import MessageEncoder

__all__ = ["decode_response", "encode_response", "response_key"]

U = msgspec.UNSET


def response_key(response_id: str | None) -> str:
    """The ``message`` key of a response's items: ``resp:<id>`` (``resp`` without an id)."""
    return f"resp:{response_id}" if response_id else "resp"


@guarded("openai-chat", "response")
def decode_response(body: Mapping[str, Any], report: Report, dialect: Dialect = "openai") -> ModelResponse:
    """Response body -> output items of ``choices[0].message``, usage, stop reason.

    ``dialect`` decides which reasoning fields need a hint to be written back (see ``MessageDecoder``).

    Raises:
        ConversionError: ``body`` is not an object or has no ``choices`` list (not a Chat response).
    """
    if not isinstance(body, Mapping):
        raise ConversionError("OpenAI Chat response is not an object")
    if not isinstance(body.get("choices"), list):
        raise ConversionError("OpenAI Chat response has no 'choices' list")
    response_id = body.get("id") if isinstance(body.get("id"), str) and body.get("id") else None
    model = body.get("model") if isinstance(body.get("model"), str) and body.get("model") else None
    origin = Origin(provider=NAME, model=model if model else U, response_id=response_id if response_id else U)
    decoder = MessageDecoder(report, origin, dialect=dialect)
    choices = body.get("choices") if isinstance(body.get("choices"), list) else []
    items: list[Any] = []
    stop = None
    if choices:
        choice = choices[0] if isinstance(choices[0], dict) else {}
        message = choice.get("message")
        if isinstance(message, dict):
            items = decoder.assistant(message, index=0, key=response_key(response_id))
            if model:
                # OpenRouter reasoning_details are bound to the model that produced them.
                items = [
                    msgspec.structs.replace(it, opaque=msgspec.structs.replace(it.opaque, model=model))
                    if isinstance(it, ReasoningItem) and it.opaque is not U and it.opaque.model is U
                    else it
                    for it in items
                ]
        stop = stop_reason(choice.get("finish_reason"))
        for extra in range(1, len(choices)):
            report.add("dropped", "only choices[0] is canonical; further choices left out", index=extra, pointer=f"/choices/{extra}")
    # Response-level fields no canonical field holds (ADR 0009): the body's metadata (``created``,
    # ``system_fingerprint``, ``service_tier``, gateway fields), choices[0]'s and its message's.
    kept: dict[str, Any] = {}
    top = unknown_fields(body, {"choices", "usage"} | ({"id"} if response_id else set()) | ({"model"} if model else set()))
    if top:
        kept["body"] = top
    if choices and isinstance(choices[0], dict):
        choice_extra = unknown_fields(choices[0], ("message", "finish_reason", "index"))
        if "finish_reason" in choices[0] and choices[0]["finish_reason"] != finish_reason(stop):
            choice_extra["finish_reason"] = choices[0]["finish_reason"]  # outside OpenAI's enum ("eos", "", null)
        if choice_extra:
            kept["choice"] = choice_extra
        message = choices[0].get("message")
        message_extra = unknown_fields(message, _MESSAGE_KEYS) if isinstance(message, dict) else {}
        if isinstance(message, dict) and message.get("refusal") == "":
            message_extra["refusal"] = ""
        if isinstance(message, dict) and message.get("content") == "":
            message_extra["content"] = ""  # an empty text, which no item holds
        if isinstance(message, dict) and isinstance(message.get("content"), list) and message["content"] and all(
            isinstance(p, dict) and set(p) <= {"type", "text"} and p.get("text") == "" for p in message["content"]
        ):
            message_extra["content"] = message["content"]  # an empty content list (Mistral ``[{"text": ""}]``)
        if message_extra:
            kept["message"] = message_extra
    return ModelResponse(
        items=items,
        usage=usage_from_wire(body.get("usage")),
        stop_reason=stop,
        model=model,
        response_id=response_id,
        provider_data={NAME: kept} if kept else None,
    )


# ``choices[0].message`` keys the message decoder models (openai-python ``chat_completion_message.py``
# and the compatible hosts' reasoning fields).
_MESSAGE_KEYS = frozenset(
    {"role", "content", "refusal", "tool_calls", "function_call", "annotations", "audio", "reasoning", "reasoning_content", "reasoning_details"}
)


def encode_response(response: ModelResponse, *, dialect: Dialect, rule: IdRule, model: str | None, policy: Policy, report: Report) -> dict[str, Any]:
    """:class:`ModelResponse` -> ``chat.completion`` body (``created`` is 0: not canonical).

    Raises:
        ConversionError: under policy ``error``, for content OpenAI Chat cannot carry.
        MalformedArgumentsError: under policy ``error``, for a tool call without an arguments object.
    """
    ids = IdMap(rule, report)
    encoder = MessageEncoder(dialect=dialect, policy=policy, report=report, ids=ids, model=model or response.model, response=True)
    items = [it for it in response.items]
    for i, item in enumerate(items):
        role = getattr(item, "role", U)
        if role not in (U, "assistant"):
            report.add("dropped", f"a response holds assistant output only, not {role} content", index=i)
    kept = [it for it in items if getattr(it, "role", U) in (U, "assistant")]
    # One response message: every kept item goes into one assistant group.
    kept = [msgspec.structs.replace(it, message="resp") if isinstance(it, msgspec.Struct) and hasattr(it, "message") else it for it in kept]  # type: ignore[type-var,unused-ignore]
    messages = encoder.messages(kept)
    if len(messages) > 1:
        report.add("changed", "response items spread over several messages; only the first is written")
    message = messages[0] if messages else {"role": "assistant", "content": None, "refusal": None}
    body: dict[str, Any] = {
        "id": response.response_id or "chatcmpl-interlingua",
        "object": "chat.completion",
        "created": 0,
        "model": model or response.model or "",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason(response.stop_reason) or "stop"}],
    }
    if response.usage is not None:
        body["usage"] = usage_to_wire(response.usage)
    own = response_fields(response.provider_data, NAME, report)
    restore_fields(body, own.get("body") or {}, override=("id", "object", "created", "model"))
    restore_fields(body["choices"][0], own.get("choice") or {}, override=("finish_reason",))
    restore_fields(message, own.get("message") or {}, override=("content", "refusal"))
    return body
