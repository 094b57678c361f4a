"""Shared constants and small helpers of the OpenAI Chat Completions mapper.

Sources (see the providers' API references): openai-python ``types/chat``
(``chat_completion*.py``, ``completion_usage.py``) and the provider pages cited per rule.
"""

from __future__ import annotations

import re
from typing import Any, Literal, TypeAlias

import msgspec

from ...hosts import HOSTS
from ...items import Base64Source, OpaqueReasoning, StopReason, UrlSource, Usage
from ...mapping.ids import IdRule
from ...mapping.vendor_models import VendorModels

__all__ = [
    "OPENAI_MODELS",
    "ARGUMENTS_ABSENT_KEY",
    "CACHE_CONTROL_KEY",
    "DIALECTS",
    "Dialect",
    "FINISH_TO_STOP",
    "HINT_KEYS",
    "ID_RULE",
    "ISSUER",
    "NAME",
    "OPENROUTER_ISSUER",
    "OPENROUTER_NAMESPACE",
    "REASONING_FIELDS_KEY",
    "REQUEST_FIELDS_KEY",
    "STOP_TO_FINISH",
    "WIRE_ID_KEY",
    "data_url",
    "parse_data_url",
    "stop_reason",
    "usage_from_wire",
    "usage_to_wire",
]

NAME = "openai-chat"
"""Registry name, ``origin.provider`` and ``raw.provider`` of this wire format."""

ISSUER = "openai-chat"
"""Issuer string of this mapper (OpenAI Chat itself issues no opaque reasoning state)."""

OPENROUTER_ISSUER = "openrouter"
"""Issuer of OpenRouter ``reasoning_details`` (replayed only in the ``openrouter`` dialect)."""

OPENROUTER_NAMESPACE = "openrouter.reasoning_details"
"""Opaque namespace of OpenRouter ``message.reasoning_details`` (the whole list, as received)."""

Dialect: TypeAlias = str
"""Which OpenAI-compatible endpoint a request is written for: a name of :data:`interlingua.hosts.HOSTS`.

Reading accepts every dialect's fields; the dialect only decides how reasoning is written back:

* ``openai``: OpenAI Chat accepts no reasoning input; reasoning is dropped and reported.
* ``deepseek``: ``reasoning_content`` on assistant turns with tool calls (required there,
  ignored elsewhere; api-docs.deepseek.com/guides/thinking_mode).
* ``openrouter``: ``reasoning`` text plus ``reasoning_details`` replayed as received
  (opaque, issuer ``openrouter``; openrouter.ai reasoning-tokens docs).
* ``ollama``: ``reasoning`` text (Ollama ``openai/openai.go``; PAI ``test_ollama_cloud_tool_output``).
* ``mistral``: the engine of the built-in ``mistral`` mapper (``interlingua.providers.mistral``),
  which turns the ``reasoning`` text this dialect writes into a ``thinking`` content chunk.
* the OpenAI-compatible hosts: one entry each, rules and sources, in :data:`interlingua.hosts.HOSTS`.
"""

DIALECTS: tuple[Dialect, ...] = tuple(HOSTS)
"""Every dialect name, in host-registry order (:data:`interlingua.hosts.HOSTS`)."""

ID_RULE = IdRule("openai-chat", max_length=40, prefix="call_")
"""OpenAI Chat ``tool_calls[].id``: at most 40 characters (vercel/ai#8132, Portkey gateway#1062, autogen#6377)."""

# Keys of an item's ``provider_data["openai-chat"]`` that record how the wire held it, so the same
# wire is written back (ADR 0009; issue 13). They are read by this mapper only, never written as fields.

HINT_KEYS = frozenset({"reasoning_fields", "request_fields", "wire_id", "cache_control_read"})
"""The hint keys below (never copied onto the wire as fields)."""

REASONING_FIELDS_KEY = "reasoning_fields"
"""On a reasoning item: the message fields it was read from (``reasoning_content``, ``reasoning``,
``reasoning_details``). An OpenAI-compatible host's reasoning goes back in the same fields in every
dialect; reasoning without it is written as the dialect says."""

REQUEST_FIELDS_KEY = "request_fields"
"""On a tool call read from a request: its fields with no canonical form (Mistral replays
``tool_calls[].index``), written back into requests too. Fields read from a response (no such key)
go back into response bodies only (``ChatCompletionMessageToolCallParam`` is ``{id, type, function}``)."""

WIRE_ID_KEY = "wire_id"
"""On a tool call: the wire id when :data:`ID_RULE` refuses it (longer than 40 characters, which
OpenRouter issues and takes back; an empty id of a compatible host's response). Written back
unchanged while the canonical id is the one read (the empty id: in a response body only)."""

CACHE_CONTROL_KEY = "cache_control_read"
"""On a content item: its part had ``cache_control`` (OpenRouter's Anthropic-style breakpoint), so the
breakpoint goes back as ``cache_control`` in every dialect, not only ``openrouter``."""

ARGUMENTS_ABSENT_KEY = "arguments_absent"
"""In a tool call's ``function`` fields: the call had no ``arguments`` key (read as ``{}``); written
back without one while the arguments are still ``{}``."""

FINISH_TO_STOP: dict[str, str] = {
    "stop": "end_turn",
    "length": "max_tokens",
    "tool_calls": "tool_use",
    "content_filter": "content_filter",
    "function_call": "tool_use",
}
"""``finish_reason`` (openai-python ``chat_completion.py`` ``Choice.finish_reason``) -> canonical stop reason."""

STOP_TO_FINISH: dict[str, str] = {
    "end_turn": "stop",
    "max_tokens": "length",
    "tool_use": "tool_calls",
    "content_filter": "content_filter",
    "stop_sequence": "stop",
    "refusal": "stop",
}
"""Canonical stop reason -> ``finish_reason`` when the raw value is not a Chat value."""

# data:<media type>;base64,<data> with nothing else: anything richer stays a URL so it round-trips.
_DATA_URL = re.compile(r"^data:([A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+);base64,(.*)$", re.DOTALL)


def parse_data_url(url: str) -> Base64Source | None:
    """``data:<type>;base64,<data>`` -> :class:`Base64Source`; ``None`` for any other URL."""
    m = _DATA_URL.match(url)
    if m is None:
        return None
    return Base64Source(media_type=m.group(1), data=m.group(2))


def data_url(source: Base64Source) -> str:
    """:class:`Base64Source` -> ``data:<type>;base64,<data>``."""
    return f"data:{source.media_type};base64,{source.data}"


def image_source(url: str) -> Base64Source | UrlSource:
    """An ``image_url.url`` as a canonical source (data URL -> base64, else URL)."""
    return parse_data_url(url) or UrlSource(url=url)


def stop_reason(finish_reason: Any) -> StopReason | None:
    """``finish_reason`` -> :class:`StopReason` (unknown values -> ``other``, raw kept)."""
    if not isinstance(finish_reason, str):
        return None
    return StopReason(reason=FINISH_TO_STOP.get(finish_reason, "other"), raw=finish_reason)  # type: ignore[arg-type,unused-ignore]


def finish_reason(stop: StopReason | None) -> str | None:
    """:class:`StopReason` -> ``finish_reason``.

    The raw value is written only when it is a Chat value that maps back to the same canonical
    reason (another provider's ``end_turn`` or Ollama's ``stop`` on a tool call is not); otherwise
    the value comes from the canonical reason.
    """
    if stop is None:
        return None
    raw = stop.raw if isinstance(stop.raw, str) else None
    if raw is not None and FINISH_TO_STOP.get(raw) == stop.reason:
        return raw
    return STOP_TO_FINISH.get(stop.reason, "stop")


def _int(value: Any) -> int | msgspec.UnsetType:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else msgspec.UNSET


def usage_from_wire(usage: Any) -> Usage | None:
    """``usage`` (openai-python ``completion_usage.py``) -> :class:`Usage`.

    ``prompt_tokens`` already includes cached tokens, ``completion_tokens`` includes reasoning;
    ``details`` keeps the record exactly as given.
    """
    if not isinstance(usage, dict):
        return None
    prompt: dict[str, Any] = usage["prompt_tokens_details"] if isinstance(usage.get("prompt_tokens_details"), dict) else {}
    completion: dict[str, Any] = usage["completion_tokens_details"] if isinstance(usage.get("completion_tokens_details"), dict) else {}
    return Usage(
        input_tokens=_int(usage.get("prompt_tokens")),
        output_tokens=_int(usage.get("completion_tokens")),
        reasoning_tokens=_int(completion.get("reasoning_tokens")),
        cache_read_tokens=_int(prompt.get("cached_tokens")),
        cache_write_tokens=_int(prompt.get("cache_write_tokens")),
        total_tokens=_int(usage.get("total_tokens")),
        details=msgspec.json.decode(msgspec.json.encode(usage)),
    )


_COUNTS = ("input_tokens", "output_tokens", "reasoning_tokens", "cache_read_tokens", "cache_write_tokens", "total_tokens")


def _same_counts(a: Usage | None, b: Usage) -> bool:
    return a is not None and all(getattr(a, f) == getattr(b, f) for f in _COUNTS)


def usage_to_wire(usage: Usage) -> dict[str, Any]:
    """:class:`Usage` -> ``usage``.

    ``details`` is written back as given only when it is a Chat usage record (it has
    ``prompt_tokens`` and decodes to the same counts); another provider's record is not copied.
    """
    details = usage.details
    if isinstance(details, dict) and "prompt_tokens" in details and _same_counts(usage_from_wire(details), usage):
        return msgspec.json.decode(msgspec.json.encode(details))
    out: dict[str, Any] = {}
    inp = usage.input_tokens if isinstance(usage.input_tokens, int) else 0
    outp = usage.output_tokens if isinstance(usage.output_tokens, int) else 0
    out["prompt_tokens"] = inp
    out["completion_tokens"] = outp
    out["total_tokens"] = usage.total_tokens if isinstance(usage.total_tokens, int) else inp + outp
    prompt: dict[str, Any] = {}
    if isinstance(usage.cache_read_tokens, int):
        prompt["cached_tokens"] = usage.cache_read_tokens
    if isinstance(usage.cache_write_tokens, int):
        prompt["cache_write_tokens"] = usage.cache_write_tokens
    if prompt:
        out["prompt_tokens_details"] = prompt
    if isinstance(usage.reasoning_tokens, int):
        out["completion_tokens_details"] = {"reasoning_tokens": usage.reasoning_tokens}
    return out


def openrouter_opaque(details: list[Any]) -> OpaqueReasoning:
    """OpenRouter ``reasoning_details`` (the whole list, as received) as opaque state."""
    return OpaqueReasoning(namespace=OPENROUTER_NAMESPACE, issuer=OPENROUTER_ISSUER, value=msgspec.json.decode(msgspec.json.encode(details)))


OPENAI_MODELS = VendorModels(
    "openai",
    ("gpt-*", "o[1-9]*", "chatgpt-*", "codex-*", "computer-use-*", "ft:gpt-*", "ft:o[1-9]*"),
)
"""OpenAI's own models (GPT, the o-series, ChatGPT, Codex, computer use; fine-tuned ``ft:`` ids): the same
ids on Chat Completions and Responses (platform.openai.com/docs/models), so the model carries between the two.
OpenAI-compatible hosts (dialects) declare none: their ids are the host's."""
