"""What the writers of stored formats (``vercel-ui``, ``vercel-model``, ``openai-finetune``, ``sharegpt``) share.

A writer builds the format's JSON, then reads it back with this package's reader for that format and
compares item by item (:func:`report_round_trip`): every field of an item that does not come back
unchanged is reported for that item, so the report says exactly what a round trip through the
format loses. Transcript fields the format has no place for are reported once each.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import msgspec

from ..items import Transcript
from ..mapping import Report
from ._writing import kind, lost_fields

__all__ = ["START", "Start", "groups", "pd_of", "report_round_trip", "report_unkept"]

U = msgspec.UNSET


class Start(NamedTuple):
    """Where a transcript begins in the longer conversation it is a part of (a window of a long
    conversation written window by window, ADR 0036): what these writers number by place continues
    from there, so the parts written one after another are the whole conversation's bytes and report.

    Attributes:
        item: Items of the whole conversation before the transcript's first item (Vercel UIMessage
            ids of messages without one are ``msg-<index of the message's first item>``).
        message: Messages (array elements) written before the transcript's first one (the readers
            give a message without a key of its own the key of its place: ``m<i>``, ShareGPT ``t<i>``
            and the call ids ``call_t<i>_<n>``; the round-trip check reads the part back numbered from here).

    Report entries keep the transcript's own item indices (the windowed conversion moves them).
    """

    item: int = 0
    message: int = 0


START = Start()
"""A transcript written on its own: numbered from the start."""


def pd_of(item: Any, fmt: str) -> dict[str, Any]:
    """``item.provider_data[fmt]`` (a copy), or ``{}``."""
    pd = getattr(item, "provider_data", U)
    if pd is U or not isinstance(pd, dict):
        return {}
    mine = pd.get(fmt)
    return dict(mine) if isinstance(mine, dict) else {}


def groups(items: list[Any]) -> Iterator[tuple[int, list[Any]]]:
    """Consecutive items sharing a ``message`` key (an item without one is alone), with the index of the first."""
    start = 0
    while start < len(items):
        key = getattr(items[start], "message", U)
        end = start + 1
        if key is not U:
            while end < len(items) and getattr(items[end], "message", U) == key:
                end += 1
        yield start, items[start:end]
        start = end


def report_unkept(report: Report, transcript: Transcript, fmt: str, kept: tuple[str, ...] = ()) -> None:
    """One ``dropped`` entry per transcript field set that ``fmt`` has no place for (those in ``kept`` aside)."""
    for name in ("tools", "tool_choice", "settings", "metadata", "usage", "stop_reason", "response"):
        if name not in kept and getattr(transcript, name, U) not in (U, None):
            report.add("dropped", f"{fmt} has no place for the transcript's {name}")


def report_round_trip(report: Report, fmt: str, original: list[Any], read_back: Callable[[], list[Any]], since: int = 0) -> None:
    """Read the written value back (``read_back``) and report, per item, what does not come back unchanged.

    Items the write dropped under the policy (``dropped`` entries with an item index, among the report's
    entries from ``since`` on, i.e. those this write added) are already reported and not expected back."""
    try:
        back = read_back()
    except Exception as exc:  # noqa: BLE001 - what the writer made must read back; say why it does not
        report.add("changed", f"the {fmt} written does not read back ({type(exc).__name__}: {exc})", pointer="")  # "": the written value as a whole
        return
    dropped = {e.index for e in report.entries[since:] if e.action == "dropped" and e.index is not None}
    kept = [(i, a) for i, a in enumerate(original) if i not in dropped]
    if len(back) != len(kept):
        report.add("changed", f"{len(kept)} items written for {fmt} read back as {len(back)} items", pointer="")
        return
    for (i, a), b in zip(kept, back):
        if not isinstance(a, msgspec.Struct):
            continue
        lost = lost_fields(a, b)
        if getattr(a, "message", U) != getattr(b, "message", U) and "message" not in lost and getattr(a, "message", U) is not U:
            lost.append("message")
        if not lost:
            continue
        t = kind(a)
        if kind(b) != t:
            report.add("changed", f"{fmt} has no {t}: written in a form that reads back as a {kind(b)} item (fields {', '.join(lost)})", index=i, item_type=t)
        else:
            report.add("degraded", f"fields that do not come back from {fmt} unchanged: {', '.join(lost)}", index=i, item_type=t)
