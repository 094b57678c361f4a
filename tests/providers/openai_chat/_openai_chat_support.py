"""Helpers for the openai-chat mapper tests: fixture lists, dialects, wire normalisation."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "real"


def fixture_files(suffix: str) -> list[Path]:
    """Every real fixture of the Chat wire (OpenAI, OpenRouter, Ollama's OpenAI-compatible layer)."""
    files = sorted((REAL / "openai_chat").glob(f"*{suffix}"))
    files += sorted((REAL / "openrouter").glob(f"*{suffix}"))
    files += sorted((REAL / "ollama").glob(f"pai_ollama_cloud_*{suffix}"))
    return files


def dialect_of(path: Path) -> str:
    """The dialect a recorded fixture was exchanged in."""
    if path.parent.name == "openrouter":
        return "openrouter"
    if path.parent.name == "ollama":
        return "ollama"
    return "openai"


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


# Representation choices the round trip ignores (BRIEF: listed here, each with its reason).
REQUEST_SETTINGS_IGNORED = {"stream", "n", "stream_options", "temperature"}
"""Generation settings: not part of a transcript."""

RESPONSE_FIELDS_IGNORED = {"created", "system_fingerprint", "service_tier", "provider"}
"""Response envelope fields with no canonical equivalent that do not change the conversation
(``provider`` is OpenRouter's upstream name)."""

CHOICE_FIELDS_IGNORED = {"logprobs", "native_finish_reason"}
"""Choice fields: log probabilities (not requested) and OpenRouter's upstream finish reason."""


def _norm_call(call: dict[str, Any]) -> dict[str, Any]:
    call = copy.deepcopy(call)
    call.pop("index", None)  # Ollama adds index inside non-stream tool calls
    fn = call.get("function")
    if isinstance(fn, dict) and isinstance(fn.get("arguments"), str):
        try:
            fn["arguments"] = json.loads(fn["arguments"])  # whitespace inside the JSON text is not kept
        except ValueError:
            pass
    return call


def _norm_message(msg: dict[str, Any], *, response: bool) -> dict[str, Any]:
    msg = copy.deepcopy(msg)
    if msg.get("annotations") == []:
        del msg["annotations"]  # an empty list says nothing
    if response:
        if msg.get("content") == "":
            msg["content"] = None  # no text: written as null
        msg.setdefault("refusal", None)  # written as null when absent
        msg.setdefault("content", None)
    if "tool_calls" in msg:
        msg["tool_calls"] = [_norm_call(c) for c in msg["tool_calls"]]
    return msg


def norm_request(body: dict[str, Any]) -> dict[str, Any]:
    out = {k: copy.deepcopy(v) for k, v in body.items() if k not in REQUEST_SETTINGS_IGNORED}
    out["messages"] = [_norm_message(m, response=False) for m in out.get("messages", [])]
    return out


def norm_response(body: dict[str, Any]) -> dict[str, Any]:
    out = {k: copy.deepcopy(v) for k, v in body.items() if k not in RESPONSE_FIELDS_IGNORED}
    choices = []
    for c in out.get("choices", []):
        c = {k: v for k, v in c.items() if k not in CHOICE_FIELDS_IGNORED}
        c["message"] = _norm_message(c["message"], response=True)
        choices.append(c)
    out["choices"] = choices
    return out


def sse_events(raw: bytes) -> list[bytes]:
    """Split a recorded SSE body into whole events (each ending with its blank line)."""
    sep = b"\r\n\r\n" if b"\r\n\r\n" in raw else b"\n\n"
    parts = raw.split(sep)
    events = [p + sep for p in parts[:-1]]
    if parts[-1].strip():
        events.append(parts[-1])
    return events


def join_stream(raw: bytes) -> dict[str, Any]:
    """Reference joiner, independent of the accumulator: the ``chat.completion`` body a stream equals."""
    content: str | None = None
    refusal: str | None = None
    calls: dict[int, dict[str, Any]] = {}
    body: dict[str, Any] = {"object": "chat.completion"}
    finish = None
    for event in sse_events(raw):
        line = event.decode().strip()
        assert line.startswith("data: ")
        data = line[len("data: "):]
        if data == "[DONE]":
            break
        chunk = json.loads(data)
        body.setdefault("id", chunk["id"])
        body.setdefault("model", chunk["model"])
        if chunk.get("usage"):
            body["usage"] = chunk["usage"]
        for choice in chunk["choices"]:
            delta = choice["delta"]
            if isinstance(delta.get("content"), str):
                content = (content or "") + delta["content"]
            if isinstance(delta.get("refusal"), str):
                refusal = (refusal or "") + delta["refusal"]
            for frag in delta.get("tool_calls") or []:
                call = calls.setdefault(frag["index"], {"id": None, "type": "function", "function": {"name": None, "arguments": ""}})
                call["id"] = call["id"] or frag.get("id")
                fn = frag.get("function") or {}
                call["function"]["name"] = call["function"]["name"] or fn.get("name")
                call["function"]["arguments"] += fn.get("arguments") or ""
            finish = choice.get("finish_reason") or finish
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": refusal}
    if calls:
        message["tool_calls"] = [calls[i] for i in sorted(calls)]
    body["choices"] = [{"index": 0, "message": message, "finish_reason": finish}]
    return body
