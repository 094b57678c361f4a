"""Reporting the prompt-cache breakpoints a target has no place for (ADR 0044: nothing left out silently).

A ``cache_breakpoint`` on an item (or on a part of a tool result) marks where a provider with explicit
prompt caching (Anthropic ``cache_control``, Bedrock ``cachePoint``) may cache the prompt. A target that
caches on its own or not at all has nowhere to write it: the mapper leaves it out and reports it here.
"""

from __future__ import annotations

from typing import Any

from msgspec import UNSET

from .report import Report

__all__ = ["report_cache_breakpoints"]


def report_cache_breakpoints(item: Any, index: int | None, report: Report, *, why: str) -> None:
    """Report (``dropped``) the breakpoint of ``item`` and of each part of its ``content``, if any.

    Args:
        item: A canonical item.
        index: Its index, for the report.
        report: Where the entries go.
        why: Why the target has no place for it (``OpenAI caches prompts automatically``).
    """
    nested = getattr(item, "content", None)
    for part in [item, *(nested if isinstance(nested, list) else [])]:
        if getattr(part, "cache_breakpoint", UNSET) is not UNSET:
            kind = getattr(type(part).__struct_config__, "tag", None) or type(part).__name__
            report.add("dropped", f"prompt-cache breakpoint left out ({why})", index=index, item_type=str(kind))
