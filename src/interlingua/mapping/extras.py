"""Fields a mapper does not model on a request part it does model (issue 13: "unknown fields ->
``provider_data``").

A part of a known type with extra fields keeps its content: the extra fields go to the item's
``provider_data[<mapper name>]``, are written back onto the same part for that mapper only, and every
other mapper reports them dropped (:func:`~interlingua.mapping.settings.own_provider_data`).
"""

from __future__ import annotations

import copy
from collections.abc import Collection, Mapping
from typing import Any

import msgspec

from .report import Report
from .settings import own_provider_data

__all__ = ["as_provider_data", "extra_fields", "merge_own"]


def extra_fields(obj: Mapping[str, Any], known: Collection[str]) -> dict[str, Any]:
    """Deep copies of the fields of ``obj`` whose keys are not in ``known`` (``{}`` when none)."""
    return {k: copy.deepcopy(v) for k, v in obj.items() if k not in known}


def as_provider_data(name: str, extras: Mapping[str, Any]) -> Any:
    """``{name: extras}``, or ``UNSET`` when ``extras`` is empty (for an item's ``provider_data``)."""
    return {name: dict(extras)} if extras else msgspec.UNSET


def merge_own(part: dict[str, Any], item: Any, name: str, report: Report, *, index: int | None, item_type: str) -> dict[str, Any]:
    """Write ``item.provider_data[name]`` back onto the wire ``part`` (fields the part already has win);
    other providers' entries are reported dropped. Returns ``part``."""
    own = own_provider_data(getattr(item, "provider_data", msgspec.UNSET), name, report, what=f"a {item_type} item", index=index, item_type=item_type)
    for key, value in own.items():
        part.setdefault(key, value)
    return part
