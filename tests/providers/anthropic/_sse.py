"""Test helpers: split recorded Anthropic SSE text into events and assemble the equivalent message.

Written independently of the accumulator (plain ``json``, the SDK's snapshot rules from
``lib/streaming/_messages.py``), so comparing the two can fail.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from interlingua.streaming.events import RawEvent

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "real" / "anthropic"


def read(name: str) -> bytes:
    return (REAL / name).read_bytes()


def complete(raw: bytes) -> bytes:
    """The recording with the blank line that ends its last event (the ANT SDK .txt files lack it)."""
    return raw if raw.endswith(b"\n\n") else raw.rstrip(b"\n") + b"\n\n"


def split_events(raw: bytes) -> list[RawEvent]:
    """Every event of an SSE text, including a last one without its blank line."""
    events = []
    for chunk in raw.decode("utf-8").replace("\r\n", "\n").split("\n\n"):
        if not chunk.strip():
            continue
        name, data = None, []
        for line in chunk.split("\n"):
            if line.startswith("event:"):
                name = line[len("event:") :].strip()
            elif line.startswith("data:"):
                data.append(line[len("data:") :].lstrip(" "))
        events.append(RawEvent(name, "\n".join(data)))
    return events


def encode_events(events: list[RawEvent]) -> bytes:
    out = []
    for ev in events:
        head = f"event: {ev.event}\n" if ev.event else ""
        out.append(f"{head}data: {ev.data}\n\n")
    return "".join(out).encode()


def assemble(events: list[RawEvent]) -> tuple[dict[str, Any], dict[int, str]]:
    """The message the stream describes, plus the joined partial JSON per tool block index."""
    message: dict[str, Any] | None = None
    blocks: dict[int, dict[str, Any]] = {}
    partial: dict[int, str] = {}
    for ev in events:
        data = json.loads(ev.data)
        kind = data["type"]
        if kind == "message_start":
            message = copy.deepcopy(data["message"])
        elif kind == "content_block_start":
            blocks[data["index"]] = copy.deepcopy(data["content_block"])
        elif kind == "content_block_delta":
            block, delta = blocks[data["index"]], data["delta"]
            if delta["type"] == "text_delta":
                block["text"] += delta["text"]
            elif delta["type"] == "thinking_delta":
                block["thinking"] += delta["thinking"]
            elif delta["type"] == "signature_delta":
                block["signature"] = delta["signature"]
            elif delta["type"] == "citations_delta":
                block.setdefault("citations", [])
                block["citations"] = (block["citations"] or []) + [delta["citation"]]
            elif delta["type"] == "input_json_delta":
                partial[data["index"]] = partial.get(data["index"], "") + delta["partial_json"]
            else:
                for k, v in delta.items():
                    if k != "type":
                        block[k] = v
        elif kind == "message_delta":
            assert message is not None
            for k, v in data["delta"].items():
                message[k] = v
            for k, v in (data.get("usage") or {}).items():
                if v is not None:
                    message["usage"][k] = v
    assert message is not None
    for index, text in partial.items():
        try:
            blocks[index]["input"] = json.loads(text) if text else {}
        except json.JSONDecodeError:
            pass
    message["content"] = [blocks[i] for i in sorted(blocks)]
    return message, partial
