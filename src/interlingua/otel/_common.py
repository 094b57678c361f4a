"""Names and tables the OpenTelemetry GenAI reader and writer share (semantic conventions 1.41.0)."""

from __future__ import annotations

from typing import Any

import msgspec

from ..items import (
    ArtifactSource,
    AudioItem,
    Base64Source,
    DocumentItem,
    FileSource,
    HandoffCallItem,
    HandoffResultItem,
    ImageItem,
    RawItem,
    ReasoningItem,
    RefusalItem,
    StructuredItem,
    TextItem,
    TextSource,
    ToolCallItem,
    ToolResultItem,
    UrlSource,
    VideoItem,
)


FORMAT = "otel"
"""The format name (``convert --from otel`` / ``--to otel``; ``raw.provider`` of parts kept as they were)."""

SEMCONV_VERSION = "1.41.0"
"""The semantic-conventions release these rules follow."""

INPUT_MESSAGES = "gen_ai.input.messages"
OUTPUT_MESSAGES = "gen_ai.output.messages"
SYSTEM_INSTRUCTIONS = "gen_ai.system_instructions"
TOOL_DEFINITIONS = "gen_ai.tool.definitions"

U: Any = msgspec.UNSET

_PROVIDER_NAMES = {
    "openai-chat": "openai",
    "openai-responses": "openai",
    "anthropic": "anthropic",
    "gemini": "gcp.gemini",
    "bedrock-converse": "aws.bedrock",
    "mistral": "mistral_ai",
}
"""interlingua format name -> ``gen_ai.provider.name`` well-known value (others are written as they are)."""

_TO_FINISH = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "tool_use": "tool_call",
    "content_filter": "content_filter",
    "refusal": "content_filter",
    "error": "error",
}
_FROM_FINISH = {"stop": "end_turn", "length": "max_tokens", "content_filter": "content_filter", "tool_call": "tool_use", "error": "error"}
_CANONICAL_STOPS = frozenset({"end_turn", "max_tokens", "stop_sequence", "tool_use", "refusal", "content_filter", "pause", "error", "other"})

_SETTINGS = (
    ("model", "gen_ai.request.model"),
    ("max_output_tokens", "gen_ai.request.max_tokens"),
    ("temperature", "gen_ai.request.temperature"),
    ("top_p", "gen_ai.request.top_p"),
    ("top_k", "gen_ai.request.top_k"),
    ("stop", "gen_ai.request.stop_sequences"),
    ("seed", "gen_ai.request.seed"),
    ("presence_penalty", "gen_ai.request.presence_penalty"),
    ("frequency_penalty", "gen_ai.request.frequency_penalty"),
    ("stream", "gen_ai.request.stream"),
)
_USAGE = (
    ("input_tokens", "gen_ai.usage.input_tokens"),
    ("output_tokens", "gen_ai.usage.output_tokens"),
    ("reasoning_tokens", "gen_ai.usage.reasoning.output_tokens"),
    ("cache_read_tokens", "gen_ai.usage.cache_read.input_tokens"),
    ("cache_write_tokens", "gen_ai.usage.cache_creation.input_tokens"),
)
_MEDIA = (ImageItem, AudioItem, VideoItem, DocumentItem)
_ASSISTANT_SIDE = (ToolCallItem, ReasoningItem, RefusalItem, StructuredItem, HandoffCallItem)


def _kind(item: Any) -> str:
    """The canonical ``type`` of an item (its struct tag)."""
    tag = getattr(getattr(type(item), "__struct_config__", None), "tag", None)
    if isinstance(tag, str):
        return tag
    other = getattr(item, "type", None)  # an UnknownItem preserved from a newer minor version
    return other if isinstance(other, str) else "unknown"


def _builtins(item: Any) -> dict[str, Any]:
    out: dict[str, Any] = msgspec.to_builtins(item)
    return out


# =========================================================================== canonical -> OTel


def _role(item: Any) -> str | None:
    """The OTel message role of an item (``None``: no message carries it)."""
    if isinstance(item, ToolResultItem | HandoffResultItem):
        return "tool"
    if isinstance(item, _ASSISTANT_SIDE):
        return "assistant"
    role = getattr(item, "role", U)
    if isinstance(role, str):
        return role
    return "assistant" if isinstance(item, RawItem) else None


def _modality(item: Any) -> str:
    kind = _kind(item)
    return kind if kind in ("image", "audio", "video") else "document"


def _media_part(item: Any) -> dict[str, Any]:
    src = item.source
    modality = _modality(item)
    mime = getattr(src, "media_type", U)
    if mime is U and isinstance(item, DocumentItem):
        mime = item.media_type
    part: dict[str, Any]
    if isinstance(src, Base64Source):
        part = {"type": "blob", "modality": modality, "mime_type": src.media_type, "content": src.data}
    elif isinstance(src, UrlSource):
        part = {"type": "uri", "modality": modality, "uri": src.url}
    elif isinstance(src, ArtifactSource):
        part = {"type": "uri", "modality": modality, "uri": src.uri}
    elif isinstance(src, FileSource):
        part = {"type": "file", "modality": modality, "file_id": src.file_id}
    elif isinstance(src, TextSource):
        return {"type": "text", "content": src.text}
    else:  # pragma: no cover - the Source union is closed
        raise TypeError(type(src).__name__)
    if isinstance(mime, str) and "mime_type" not in part:
        part["mime_type"] = mime
    return part


def _content_parts(content: list[Any]) -> list[dict[str, Any]]:
    """Parts for the content of a tool result (items without role)."""
    out = []
    for c in content:
        if isinstance(c, TextItem):
            out.append({"type": "text", "content": c.text})
        elif isinstance(c, _MEDIA):
            out.append(_media_part(c))
        elif isinstance(c, StructuredItem):
            out.append({"type": "text", "content": msgspec.json.encode(c.data).decode()})
        else:
            out.append({"type": "text", "content": msgspec.json.encode(_builtins(c)).decode()})
    return out


def _response_value(content: list[Any]) -> Any:
    if not content:
        return ""
    if len(content) == 1 and isinstance(content[0], TextItem):
        return content[0].text
    return _content_parts(content)
