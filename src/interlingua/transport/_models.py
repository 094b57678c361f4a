"""Model listing: each provider's list endpoint, normalized to :class:`ModelInfo`.

Sources (response shapes): OpenAI API reference "List models" (``GET /v1/models``: ``{"object": "list",
"data": [{"id", "object", "created", "owned_by"}]}``; OpenAI-compatible hosts answer the same);
Anthropic "List Models" (``GET /v1/models``: ``data[].id, display_name, created_at``, ``max_input_tokens``,
``max_tokens``; pages by ``has_more`` / ``last_id`` -> ``after_id``); Gemini "models.list"
(``GET /v1beta/models``: ``models[].name, displayName, inputTokenLimit, outputTokenLimit,
supportedGenerationMethods``; ``nextPageToken`` -> ``pageToken``); Ollama ``docs/api.md`` "List Local
Models" (``GET /api/tags``: ``models[].name, modified_at, size, details``); Amazon Bedrock
"ListFoundationModels" (``GET /foundation-models`` on the control-plane host ``bedrock.{region}``:
``modelSummaries[].modelId, modelName, providerName, inputModalities, outputModalities``); Cohere
"List Models" (``GET /v1/models``: ``models[].name, context_length, endpoints``; ``next_page_token`` ->
``page_token``); Mistral "List Models" (``GET /v1/models``: ``data[].id, max_context_length,
capabilities``; mistralai SDK ``BaseModelCard``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from ..items import ModelCapabilities

__all__ = ["ModelInfo", "ModelsEndpoint", "catalogue_facts", "models_endpoints"]


@dataclass(frozen=True)
class ModelInfo:
    """One model a provider lists, in one shape for every provider.

    Attributes:
        provider: The client's provider (mapper registry name).
        id: The name to pass as ``model=`` (Gemini's ``models/`` prefix removed).
        display_name: The provider's human-readable name, when it gives one.
        created: When the model was created or released (ISO 8601, UTC), when given.
        owned_by: Owner or vendor (OpenAI ``owned_by``, Bedrock ``providerName``), when given.
        context_window: Most input tokens (Gemini ``inputTokenLimit``, Anthropic ``max_input_tokens``,
            Mistral ``max_context_length``, Cohere ``context_length``), when the list says.
        max_output_tokens: Most output tokens (Gemini ``outputTokenLimit``, Anthropic ``max_tokens``),
            when the list says; else the model table's, when it knows the model.
        input_modalities: What the model takes (Bedrock ``inputModalities``), lower case, when given.
        capabilities: What the model table knows of it (``None``: the model is not in the table).
        raw: The provider's own object, unchanged.
    """

    provider: str
    id: str
    display_name: str | None = None
    created: str | None = None
    owned_by: str | None = None
    context_window: int | None = None
    max_output_tokens: int | None = None
    input_modalities: tuple[str, ...] | None = None
    capabilities: ModelCapabilities | None = None
    raw: dict[str, Any] = dataclasses.field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True)
class ModelsEndpoint:
    """How to list one provider's models.

    Attributes:
        path: Appended to the list's base URL.
        parse: ``(parsed body) -> (models, next page token or None)``.
        page_param: The query parameter carrying the next page token (``None``: one page).
        base_url: ``client base URL -> the list's base URL`` (Bedrock lists on its control-plane host).
    """

    path: str
    parse: Callable[[Any], tuple[list[ModelInfo], str | None]]
    page_param: str | None = None
    base_url: Callable[[str], str] = lambda url: url


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else (int(value) if isinstance(value, float) and value > 0 and value.is_integer() else None)


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _entries(body: Any, key: str) -> list[dict[str, Any]]:
    items = body.get(key) if isinstance(body, dict) else None
    if not isinstance(items, list):
        raise ValueError(f"the list response has no {key!r} array")
    return [e for e in items if isinstance(e, dict)]


def _unix(value: Any) -> str | None:
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        try:
            return datetime.fromtimestamp(value, timezone.utc).isoformat().replace("+00:00", "Z")
        except (OverflowError, OSError, ValueError):  # past year 9999 (``10**40``): not a date
            return None
    return None


def _openai(body: Any) -> tuple[list[ModelInfo], str | None]:
    return [
        ModelInfo("", e["id"], created=_unix(e.get("created")), owned_by=_str(e.get("owned_by")), raw=e) for e in _entries(body, "data") if _str(e.get("id"))
    ], None


def _mistral(body: Any) -> tuple[list[ModelInfo], str | None]:
    out = []
    for e in _entries(body, "data"):
        if _str(e.get("id")):
            out.append(
                ModelInfo("", e["id"], display_name=_str(e.get("name")), created=_unix(e.get("created")), owned_by=_str(e.get("owned_by")), context_window=_int(e.get("max_context_length")), raw=e)
            )
    return out, None


def _anthropic(body: Any) -> tuple[list[ModelInfo], str | None]:
    out = [
        ModelInfo(
            "",
            e["id"],
            display_name=_str(e.get("display_name")),
            created=_str(e.get("created_at")),
            context_window=_int(e.get("max_input_tokens")),
            max_output_tokens=_int(e.get("max_tokens")),
            raw=e,
        )
        for e in _entries(body, "data")
        if _str(e.get("id"))
    ]
    more = isinstance(body, dict) and body.get("has_more") is True
    return out, (_str(body.get("last_id")) if more else None)


def _gemini(body: Any) -> tuple[list[ModelInfo], str | None]:
    out = []
    for e in _entries(body, "models") if isinstance(body, dict) and "models" in body else []:
        name = _str(e.get("name"))
        if name:
            out.append(
                ModelInfo(
                    "",
                    name.removeprefix("models/"),
                    display_name=_str(e.get("displayName")),
                    context_window=_int(e.get("inputTokenLimit")),
                    max_output_tokens=_int(e.get("outputTokenLimit")),
                    raw=e,
                )
            )
    return out, _str(body.get("nextPageToken")) if isinstance(body, dict) else None


def _ollama(body: Any) -> tuple[list[ModelInfo], str | None]:
    return [ModelInfo("", e["name"], created=_str(e.get("modified_at")), raw=e) for e in _entries(body, "models") if _str(e.get("name"))], None


def _bedrock(body: Any) -> tuple[list[ModelInfo], str | None]:
    out = []
    for e in _entries(body, "modelSummaries"):
        if _str(e.get("modelId")):
            modalities = e.get("inputModalities")
            out.append(
                ModelInfo(
                    "",
                    e["modelId"],
                    display_name=_str(e.get("modelName")),
                    owned_by=_str(e.get("providerName")),
                    input_modalities=tuple(str(m).lower() for m in modalities) if isinstance(modalities, list) else None,
                    raw=e,
                )
            )
    return out, None


def _cohere(body: Any) -> tuple[list[ModelInfo], str | None]:
    out = [ModelInfo("", e["name"], context_window=_int(e.get("context_length")), raw=e) for e in _entries(body, "models") if _str(e.get("name"))]
    return out, _str(body.get("next_page_token")) if isinstance(body, dict) else None


def _bedrock_control_plane(url: str) -> str:
    return url.replace("://bedrock-runtime.", "://bedrock.", 1)


def models_endpoints() -> dict[str, ModelsEndpoint]:
    """The list endpoint of each built-in provider, by spec name (``openai-chat:<host>`` uses ``openai-chat``'s)."""
    openai = ModelsEndpoint("/models", _openai)
    return {
        "openai-chat": openai,
        "openai-responses": openai,
        "anthropic": ModelsEndpoint("/v1/models", _anthropic, page_param="after_id"),
        "gemini": ModelsEndpoint("/models", _gemini, page_param="pageToken"),
        "ollama": ModelsEndpoint("/api/tags", _ollama),
        "bedrock-converse": ModelsEndpoint("/foundation-models", _bedrock, base_url=_bedrock_control_plane),
        "cohere": ModelsEndpoint("/v1/models", _cohere, page_param="page_token"),
        "mistral": ModelsEndpoint("/models", _mistral),
    }


def catalogue_facts(provider: str, info: ModelInfo) -> ModelInfo:
    """``info`` with what the model catalogue knows of the model merged in (the list's own values win).

    The one place the remote list meets the catalogue (:func:`interlingua.models.lookup`: the pinned
    catalogue snapshot, the hand-written overrides and the user's own table): its capabilities, and
    its context window, output limit and input modalities where the list leaves them out. A model
    the catalogue does not know keeps ``capabilities=None`` (unknown, not a default's).
    """
    from ..models import lookup

    facts = lookup(provider, info.id)
    if not facts.known:
        return info
    caps = facts.capabilities
    modalities = info.input_modalities
    if modalities is None and isinstance(getattr(caps, "input_modalities", None), list):
        modalities = tuple(caps.input_modalities)
    return dataclasses.replace(
        info,
        capabilities=caps,
        context_window=info.context_window or facts.context_window,
        max_output_tokens=info.max_output_tokens or facts.max_output_tokens,
        input_modalities=modalities,
    )
