"""A real Cohere v2 response as the SSE events Cohere documents for it, written apart from the mapper.

Event shapes: Cohere docs "A Guide to Streaming Responses" and "RAG Streaming" (v2), and
cohere-python ``V2ChatStreamResponse``: ``message-start``; per content part ``content-start``,
``content-delta`` (text or thinking in pieces), ``content-end``; ``tool-plan-delta`` pieces; per tool
call ``tool-call-start`` (id, name, empty arguments), ``tool-call-delta`` pieces, ``tool-call-end``;
per citation ``citation-start``/``citation-end``; ``message-end`` with ``finish_reason`` and ``usage``.
"""

from __future__ import annotations

import json
from typing import Any


def _pieces(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c % (len(text) + 1) for c in cuts} | {0, len(text)})
    return [text[a:b] for a, b in zip(points, points[1:]) if text[a:b]] or [""]


def sse_of(response: dict[str, Any], cuts: list[int] | None = None) -> bytes:
    """The documented event sequence for ``response``; ``cuts`` are where text is split into deltas."""
    cuts = cuts or [3, 17, 40]
    msg = response["message"]
    events: list[dict[str, Any]] = [
        {"id": response["id"], "type": "message-start", "delta": {"message": {"role": "assistant", "content": [], "tool_plan": "", "tool_calls": [], "citations": []}}}
    ]
    if msg.get("tool_plan"):
        events += [{"type": "tool-plan-delta", "delta": {"message": {"tool_plan": p}}} for p in _pieces(msg["tool_plan"], cuts)]
    for i, part in enumerate(msg.get("content") or []):
        key = "thinking" if part["type"] == "thinking" else "text"
        events.append({"type": "content-start", "index": i, "delta": {"message": {"content": {"type": part["type"], key: ""}}}})
        events += [{"type": "content-delta", "index": i, "delta": {"message": {"content": {key: p}}}} for p in _pieces(part[key], cuts)]
        events.append({"type": "content-end", "index": i})
    for i, call in enumerate(msg.get("tool_calls") or []):
        fn = call["function"]
        events.append({"type": "tool-call-start", "index": i, "delta": {"message": {"tool_calls": {"id": call["id"], "type": "function", "function": {"name": fn["name"], "arguments": ""}}}}})
        events += [{"type": "tool-call-delta", "index": i, "delta": {"message": {"tool_calls": {"function": {"arguments": p}}}}} for p in _pieces(fn.get("arguments", ""), cuts)]
        events.append({"type": "tool-call-end", "index": i})
    for i, cite in enumerate(msg.get("citations") or []):
        events.append({"type": "citation-start", "index": i, "delta": {"message": {"citations": cite}}})
        events.append({"type": "citation-end", "index": i})
    end: dict[str, Any] = {"finish_reason": response["finish_reason"]}
    if "usage" in response:
        end["usage"] = response["usage"]
    events.append({"type": "message-end", "delta": end})
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)
