"""Fields the mapper does not model, on objects it does model: kept, and written back to the same provider.

The rule (issue 13, ADR 0009) is written once here and used by every mapper's response, block, part
and item code:

* Decoding: :func:`unknown_fields` splits a wire object into what the mapper models and the rest;
  the rest goes into the canonical object's ``provider_data`` under the mapper's name
  (:func:`keep_fields` for an item, :class:`~interlingua.mapping.protocol.ModelResponse`
  ``provider_data`` for response-level fields).
* Encoding: :func:`item_fields` reads a canonical item's own fields back (every other provider's
  entry is reported as ``dropped``) and :func:`restore_fields` writes them into the wire object:
  a key the encoder did not write is added; a key it wrote from canonical data keeps the
  encoder's value unless ``override`` says the encoder only wrote a placeholder there (a response's
  ``created: 0``).

Shapes: ``provider_data`` is ``{<mapper name>: {<wire key>: <JSON value>, ...}, ...}``.
"""

from __future__ import annotations

import copy
from collections.abc import Collection, Mapping
from typing import Any, TypeVar

import msgspec

from .report import Report
from .settings import own_provider_data

__all__ = ["as_provider_data", "item_fields", "keep_fields", "merge_own", "response_fields", "restore_fields", "unknown_fields"]

S = TypeVar("S")


def unknown_fields(obj: Mapping[str, Any], known: Collection[str]) -> dict[str, Any]:
    """A deep copy of the fields of ``obj`` whose key is not in ``known`` (``{}`` when none or ``obj`` is no mapping)."""
    if not isinstance(obj, Mapping):
        return {}
    return {k: copy.deepcopy(v) for k, v in obj.items() if k not in known}


def keep_fields(item: S, name: str, fields: Mapping[str, Any]) -> S:
    """``item`` (a canonical Struct with ``provider_data``) with ``fields`` added to ``provider_data[name]``.

    Returns ``item`` itself when ``fields`` is empty; existing own fields are kept (``fields`` wins on a
    shared key); other providers' entries are left as they are.
    """
    if not fields:
        return item
    current = getattr(item, "provider_data", msgspec.UNSET)
    data: dict[str, Any] = dict(current) if isinstance(current, dict) else {}
    own = dict(data.get(name) or {})
    own.update(copy.deepcopy(dict(fields)))
    data[name] = own
    return msgspec.structs.replace(item, provider_data=data)  # type: ignore[type-var]


def item_fields(item: Any, name: str, report: Report, *, index: int | None = None, what: str | None = None) -> dict[str, Any]:
    """The own ``provider_data`` fields of a canonical item (a deep copy); other providers' entries are reported as dropped."""
    item_type = getattr(item, "type", None) or getattr(getattr(type(item), "__struct_config__", None), "tag", None)
    return own_provider_data(
        getattr(item, "provider_data", msgspec.UNSET), name, report, what=what or f"a {item_type} item", index=index, item_type=item_type
    )


def restore_fields(out: dict[str, Any], fields: Mapping[str, Any], *, override: Collection[str] = ()) -> dict[str, Any]:
    """Write kept ``fields`` back into the wire object ``out`` (in place; returned for chaining).

    A key ``out`` lacks is added; a key in ``override`` replaces the encoder's value (a placeholder the
    encoder had to write); any other key ``out`` already holds keeps the encoder's value (it came from
    canonical data, which wins). Keys are appended in the order given after the encoder's own.
    """
    for key, value in fields.items():
        if key not in out or key in override:
            out[key] = copy.deepcopy(value)
    return out


def response_fields(provider_data: Mapping[str, Any] | None, name: str, report: Report) -> dict[str, Any]:
    """The own response-level fields of a :class:`~interlingua.mapping.protocol.ModelResponse` (a deep copy).

    Every other provider's entry is reported as ``dropped`` (item type ``response``): the metadata of
    a Gemini response means nothing in an OpenAI body.
    """
    return own_provider_data(dict(provider_data) if provider_data else msgspec.UNSET, name, report, what="the response", item_type="response")


# Request-part helpers (the same rule seen from a part's side).


def as_provider_data(name: str, extras: Mapping[str, Any]) -> Any:
    """``{name: extras}``, or ``UNSET`` when ``extras`` is empty (for an item's ``provider_data``)."""
    return {name: dict(extras)} if extras else msgspec.UNSET


def merge_own(
    part: dict[str, Any], item: Any, name: str, report: Report, *, index: int | None, item_type: str, skip: Collection[str] = ()
) -> dict[str, Any]:
    """Write ``item.provider_data[name]`` back onto the wire ``part`` (fields the part already has win);
    other providers' entries are reported dropped. Keys in ``skip`` (a mapper's own hints about how
    the wire held the item, not wire fields) are not written. Returns ``part``."""
    own = item_fields(item, name, report, index=index, what=f"a {item_type} item")
    return restore_fields(part, {k: v for k, v in own.items() if k not in skip})

