"""Tool-call arguments: JSON text on some wires, an object in canonical form.

Malformed arguments never become ``{}`` (DESIGN.md invariant 4): the call keeps
the raw text in ``arguments_raw`` with the reason in ``arguments_error``.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ..errors import MalformedArgumentsError
from ..items import ToolCallItem
from .report import Policy, Report

__all__ = ["arguments_json", "parse_arguments", "tool_call_from_text"]

_decoder = msgspec.json.Decoder()


def parse_arguments(text: str) -> tuple[dict[str, Any] | None, str | None]:
    """Parse argument text.

    Returns:
        ``(object, None)`` when ``text`` is a JSON object; ``(None, reason)`` otherwise.
        An empty string counts as ``{}`` (providers send it for argument-less calls).
    """
    if not text or text.isspace():  # ``text.strip() == ""`` without copying the text
        return {}, None
    try:
        value = _decoder.decode(text)
    except msgspec.DecodeError as exc:
        return None, f"arguments are not valid JSON: {exc}"
    if not isinstance(value, dict):
        return None, f"arguments are JSON {type(value).__name__}, not an object"
    return value, None


def tool_call_from_text(call_id: str, name: str, text: str, **fields: Any) -> ToolCallItem:
    """Build a tool_call from argument text, keeping malformed text raw (never ``{}``)."""
    args, error = parse_arguments(text)
    if error is None:
        return ToolCallItem(id=call_id, name=name, arguments=args, **fields)  # type: ignore[arg-type]
    return ToolCallItem(id=call_id, name=name, arguments_raw=text, arguments_error=error, **fields)


def arguments_json(item: ToolCallItem, *, policy: Policy, report: Report, index: int | None = None) -> str | None:
    """Argument text for a wire that carries a JSON string.

    A call whose arguments did not parse is sent with its raw text only under policy
    ``degrade`` (reported); under ``error`` it is refused, under ``drop`` ``None`` is
    returned (reported) and the caller leaves the call out.

    Raises:
        MalformedArgumentsError: under policy ``error`` for a call without an arguments object.
    """
    if item.arguments is not msgspec.UNSET:
        return msgspec.json.encode(item.arguments).decode()
    reason = f"tool call {item.id!r} has malformed arguments ({item.arguments_error or 'no arguments object'})"
    if policy == "error":
        raise MalformedArgumentsError(reason, index=index, item_type="tool_call")
    if policy == "drop":
        report.add("dropped", reason, index=index, item_type="tool_call")
        return None
    report.add("degraded", reason + "; sent with its raw text", index=index, item_type="tool_call")
    return item.arguments_raw if isinstance(item.arguments_raw, str) else ""
