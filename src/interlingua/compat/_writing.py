"""What the writers back to other frameworks share: the check that names every field a write loses.

A writer (``pydantic-ai``, ``langchain``) writes each canonical item as that framework's part or
message, then reads that piece alone back with the framework's reader in this package and compares:
every field of the item that does not come back unchanged is named in a report entry for that item
(``degraded`` when the item kept its type, ``changed`` when it reads back as another type). So the
report says exactly what a round trip through the framework loses, item by item.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ..mapping import Report

__all__ = ["call_arguments", "kind", "lost_fields", "report_loss"]


def call_arguments(item: Any, report: Report, fmt: str, index: int | None = None) -> Any:
    """A tool call's arguments for a written form: a copy of its ``arguments`` object, else its
    ``arguments_raw`` text; a tool call with neither (the schema allows it, validate does not) is
    written with an empty object ``{}`` and the change reported, never an unset value (issue 32:
    ``TypeError: Object of type UnsetType is not JSON serializable``)."""
    import copy

    if item.arguments is not msgspec.UNSET:
        return copy.deepcopy(item.arguments)
    if item.arguments_raw is not msgspec.UNSET:
        return item.arguments_raw
    report.add("changed", f"a tool_call with no arguments written to {fmt} with empty arguments {{}}", index=index, item_type="tool_call")
    return {}


def kind(item: Any) -> str:
    """The canonical ``type`` of an item (its struct tag)."""
    tag = getattr(getattr(type(item), "__struct_config__", None), "tag", None)
    if isinstance(tag, str):
        return tag
    other = getattr(item, "type", None)  # an UnknownItem preserved from a newer minor version
    return other if isinstance(other, str) else "unknown"


def lost_fields(original: Any, back: Any) -> list[str]:
    """Top-level fields ``original`` has that ``back`` does not reproduce (the ``message`` key aside).

    Every difference of a field the item had counts, ``is_error: false`` read back as absent too: the
    canonical document would not come back identical. A field the item did not have and the reader
    fills in (a tool result's ``name`` from its call, an ``origin``, a format's ``provider_data``
    record of how it was written) is nothing the write lost: a report names only fields the item had."""
    a: dict[str, Any] = msgspec.to_builtins(original)
    b: dict[str, Any] = msgspec.to_builtins(back) if back is not None else {}
    return sorted(k for k in a if k != "message" and a[k] != b.get(k))


def report_loss(report: Report, fmt: str, original: Any, back: list[Any], index: int) -> None:
    """Add one entry for ``original`` (item ``index``) when ``back`` (what the reader made of its piece) differs."""
    if not isinstance(original, msgspec.Struct):
        return  # an unknown item preserved from a newer version: it went through the policy, reported there
    t = kind(original)
    if len(back) != 1:
        report.add("changed", f"written for {fmt} in a form that reads back as {len(back)} items", index=index, item_type=t)
        return
    lost = lost_fields(original, back[0])
    if not lost:
        return
    if kind(back[0]) != t:
        report.add("changed", f"{fmt} has no {t}: written in a form that reads back as a {kind(back[0])} item (fields {', '.join(lost)})", index=index, item_type=t)
    else:
        report.add("degraded", f"fields that do not come back from {fmt} unchanged: {', '.join(lost)}", index=index, item_type=t)
