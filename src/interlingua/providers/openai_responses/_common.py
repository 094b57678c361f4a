"""Constants and small helpers shared by the OpenAI Responses request, response and stream modules.

Sources: OAI = openai/openai-python at e43b422 (see docs/providers/openai_responses.md).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any

import msgspec

from ...items import Annotation, Base64Source, ErrorItem, Origin, UrlSource
from ...mapping.ids import IdRule

__all__ = [
    "FILE_PROVIDER",
    "ID_RULE",
    "ISSUER",
    "NAME",
    "NAMESPACE",
    "annotation_from_wire",
    "annotation_to_wire",
    "data_url",
    "error_item",
    "is_own_origin",
    "origin",
    "own_item_id",
    "parse_data_url",
    "plain",
    "url_or_data",
    "UNSET",
]

UNSET = msgspec.UNSET

NAME = "openai-responses"
"""Registry name; also ``origin.provider`` and ``raw.provider``."""

ISSUER = "openai-responses"
"""Issuer written into ``reasoning.opaque.issuer`` and accepted back."""

NAMESPACE = "openai.encrypted_content"
"""Opaque namespace of a reasoning item's ``encrypted_content``."""

FILE_PROVIDER = "openai"
"""``FileSource.provider`` for OpenAI file ids (one file store serves Chat and Responses)."""

ID_RULE = IdRule(NAME, max_length=64, prefix="call_")
"""``call_id`` is at most 64 characters (error ``string_above_max_length``; the providers' API references, id constraints)."""

_DATA_URL = re.compile(r"^data:(?P<mt>[^;,]+)(?P<params>(?:;[^;,]+)*);base64,(?P<data>.*)$", re.DOTALL)

_ANNOTATION_FIELDS = ("url", "title", "start_index", "end_index", "file_id")


def plain(value: Any) -> Any:
    """A deep copy of JSON-like input, so canonical values never alias the caller's objects."""
    return copy.deepcopy(value)


def origin(item_id: Any = None, *, model: str | None = None, response_id: str | None = None) -> Origin | msgspec.UnsetType:
    """``Origin`` for an item of this provider, or UNSET when there is nothing to record."""
    if not isinstance(item_id, str) and not model and not response_id:
        return UNSET
    return Origin(
        provider=NAME,
        model=model if model else UNSET,
        response_id=response_id if response_id else UNSET,
        item_id=item_id if isinstance(item_id, str) and item_id else UNSET,
    )


def is_own_origin(value: Origin | msgspec.UnsetType) -> bool:
    """Whether ``value`` names this provider (its item ids may be sent back)."""
    return isinstance(value, Origin) and value.provider == NAME


def own_item_id(value: Origin | msgspec.UnsetType, prefix: str) -> str | None:
    """The provider item id of an item made by this provider, when it has the expected prefix."""
    if is_own_origin(value) and isinstance(value.item_id, str) and value.item_id.startswith(prefix):  # type: ignore[union-attr]
        return value.item_id  # type: ignore[union-attr]
    return None


def parse_data_url(url: str) -> Base64Source | None:
    """``data:<media type>;base64,<data>`` -> :class:`Base64Source`; ``None`` for anything else.

    A data URL with extra parameters (``;charset=...``) is not parsed, so it round-trips as a URL.
    """
    m = _DATA_URL.match(url)
    if m is None or m.group("params"):
        return None
    return Base64Source(media_type=m.group("mt"), data=m.group("data"))


def data_url(source: Base64Source) -> str:
    """:class:`Base64Source` -> ``data:<media type>;base64,<data>``."""
    return f"data:{source.media_type};base64,{source.data}"


def url_or_data(url: str) -> Base64Source | UrlSource:
    """An ``image_url``/``file_url`` value as a canonical source."""
    return parse_data_url(url) or UrlSource(url=url)


def annotation_from_wire(raw: Mapping[str, Any]) -> Annotation:
    """An ``output_text`` annotation (OAI ``response_output_text.py``: ``url_citation``, ``file_citation``,
    ``container_file_citation``, ``file_path``) -> :class:`Annotation`.

    Fields with a canonical slot go there; every other field (``filename``, ``index``,
    ``container_id``, new ones) is kept in ``provider_data`` so the annotation round-trips.
    """
    known: dict[str, Any] = {}
    rest: dict[str, Any] = {}
    for key, value in raw.items():
        if key == "type":
            continue
        if key in _ANNOTATION_FIELDS and isinstance(value, (str, int)) and not isinstance(value, bool):
            if key in ("start_index", "end_index") and (not isinstance(value, int) or value < 0):
                rest[key] = plain(value)
            else:
                known[key] = value
        else:
            rest[key] = plain(value)
    return Annotation(kind=str(raw.get("type") or "unknown"), provider_data=rest if rest else UNSET, **known)


def annotation_to_wire(annotation: Annotation) -> dict[str, Any]:
    """:class:`Annotation` -> an ``output_text`` annotation (inverse of :func:`annotation_from_wire`)."""
    out: dict[str, Any] = {"type": annotation.kind}
    for key in _ANNOTATION_FIELDS:
        value = getattr(annotation, key)
        if value is not UNSET:
            out[key] = value
    if annotation.provider_data is not UNSET:
        for key, value in annotation.provider_data.items():
            out.setdefault(key, plain(value))
    return out


_ERROR_CODES = {
    "rate_limit_exceeded": "rate_limit",
    "server_error": "server",
}


def error_item(code: Any, *, what: str = "response failed") -> ErrorItem:
    """A safe :class:`ErrorItem` for a Responses error code (OAI ``response_error.py``).

    ``rate_limit_exceeded`` -> ``rate_limit`` and ``server_error`` -> ``server`` (both retryable);
    any other code -> ``provider_error``. The message is built from the code only: the
    provider's free-text ``message`` is never passed on (DESIGN.md invariant 5).
    """
    raw = code if isinstance(code, str) and code else "unknown"
    stable = _ERROR_CODES.get(raw, "provider_error")
    safe = re.sub(r"[^A-Za-z0-9_.-]", "", raw)[:64] or "unknown"
    return ErrorItem(
        code=stable,  # type: ignore[arg-type]
        message=f"OpenAI Responses {what} (code {safe})",
        retryable=stable in ("rate_limit", "server"),
        provider=NAME,
    )
