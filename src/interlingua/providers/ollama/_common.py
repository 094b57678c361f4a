"""Ollama helpers: names, image media type sniffing, tool-call ids."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from ...mapping.wire import json_copy

__all__ = ["DEFAULT_IMAGE_TYPE", "NAME", "error_item", "jcopy", "sniff_image_type", "tag_of"]

NAME = "ollama"
"""Registry name, written into ``origin.provider`` and ``raw.provider``."""

_MAGIC: list[tuple[bytes, str]] = [
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
]

DEFAULT_IMAGE_TYPE = "image/png"
"""Media type assumed when the bytes match no known signature."""


def sniff_image_type(data: str) -> str:
    """Media type of a base64 image from its magic bytes.

    Ollama ``images`` are plain base64 strings without a media type (OLL ``api/types.go`` ``ImageData``).
    PNG (``89 50 4E 47 0D 0A 1A 0A``), JPEG (``FF D8 FF``), GIF (``GIF87a``/``GIF89a``) and WEBP
    (``RIFF....WEBP``) are recognised; anything else (or undecodable text) is ``image/png``.
    """
    head = data[:64]
    head = head[: len(head) - len(head) % 4]
    try:
        raw = base64.b64decode(head, validate=False)
    except (binascii.Error, ValueError):
        return DEFAULT_IMAGE_TYPE
    for magic, media in _MAGIC:
        if raw.startswith(magic):
            return media
    if raw[:4] == b"RIFF" and raw[8:12] == b"WEBP":
        return "image/webp"
    return DEFAULT_IMAGE_TYPE


def jcopy(value: Any) -> Any:
    """A deep copy of a JSON value, so items never alias the caller's input."""
    return json_copy(value)


def error_item(error: Any) -> Any:
    """An Ollama ``{"error": "..."}`` value -> ``ErrorItem`` with a stable code and a safe message.

    Ollama error bodies are free text (OLL ``docs/api/errors.mdx``); the text is not passed on. A text
    saying a model was not found gives ``not_found``, anything else ``provider_error``.
    """
    from ...items import ErrorItem

    text = error if isinstance(error, str) else ""
    if "not found" in text.lower():
        return ErrorItem(code="not_found", message="Ollama reported that the model was not found", retryable=False, provider=NAME)
    return ErrorItem(code="provider_error", message="Ollama reported an error", retryable=False, provider=NAME)


def tag_of(obj: Any) -> str:
    """The canonical ``type`` tag of an item or source struct."""
    return str(type(obj).__struct_config__.tag)
