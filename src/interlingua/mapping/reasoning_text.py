"""The text a target that takes plain reasoning text is sent for a reasoning item (ADR 0044).

A reasoning item may carry its text, a summary of it, or both (OpenAI Responses returns both for models
that expose their reasoning text). A target with one text field for reasoning (Gemini thought parts, Ollama
``thinking``, Cohere ``thinking``, Bedrock ``reasoningText``, the OpenAI-compatible dialects'
``reasoning_content``) is sent the text, or the summary when there is no text; what is not sent is reported.
"""

from __future__ import annotations

from msgspec import UNSET

from ..items import ReasoningItem
from .report import Report

__all__ = ["reasoning_text", "summary_left_out"]


def summary_left_out(item: ReasoningItem, text: str | None) -> bool:
    """Whether sending ``text`` alone for ``item`` leaves out something of its summary.

    A summary that says what the text says (OpenAI Responses returns the same words in ``summary`` and
    ``content`` for some models) loses nothing.
    """
    summary = item.summary if item.summary is not UNSET and item.summary else None
    return summary is not None and "\n\n".join(summary) != (text or "")


def reasoning_text(item: ReasoningItem, report: Report, *, index: int | None, sent_as: str) -> str | None:
    """The reasoning text to send: ``text``, else the summary parts joined by a blank line; ``None`` when neither.

    Args:
        item: The reasoning item.
        report: Where a summary sent as text (``changed``) or left out beside a text that does not say
            the same (``dropped``, :func:`summary_left_out`) is recorded.
        index: The item's index, for the report.
        sent_as: What the target calls the text, for the report (``thinking``, ``thought text``).
    """
    text = item.text if item.text is not UNSET else None
    summary = item.summary if item.summary is not UNSET and item.summary else None
    if summary is None:
        return text
    if text is None:
        report.add("changed", f"reasoning summary sent as {sent_as}", index=index, item_type="reasoning")
        return "\n\n".join(summary)
    if summary_left_out(item, text):
        report.add("dropped", f"reasoning summary left out (the reasoning text is sent as {sent_as})", index=index, item_type="reasoning")
    return text
