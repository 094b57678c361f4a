"""A toy wire format for the ``convert`` command tests, registered as ``toy-a`` and ``toy-b``.

Request: ``{"model"?, "messages": [{"role", "content", "calls"?, "call_id"?, "image_url"?, "image_b64"?, "note"?}], "tools"?: [{"name"}]}``.
Response: ``{"id", "output": [{"text"} | {"call": {"id", "name", "args"}}], "stop": "end"|"tool"}``.
Stream (NDJSON): ``{"delta"}``, ``{"call"}``, ``{"done": true}``, ``{"error"}``.

The toy carries images only by URL (base64 images go through the policy), drops a
message's ``note`` and any reasoning with a report entry, so warnings can be tested.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any, Literal

import msgspec
import pytest

from interlingua.items import (
    Base64Source,
    ErrorItem,
    ImageItem,
    ModelCapabilities,
    ReasoningItem,
    StopReason,
    TextItem,
    ToolCallItem,
    ToolDefinition,
    ToolResultItem,
    Transcript,
    UrlSource,
)
from interlingua.mapping import Conversion, ModelResponse, Report, register
from interlingua.mapping.report import Policy
from interlingua.streaming import RawEvent, StreamDone, StreamError, TextDelta, ToolCallComplete


class ToyAccumulator:
    def __init__(self) -> None:
        self.text: list[str] = []
        self.calls: list[ToolCallItem] = []

    def feed(self, event: RawEvent) -> list[Any]:
        data = json.loads(event.data)
        if "delta" in data:
            self.text.append(data["delta"])
            return [TextDelta(data["delta"])]
        if "call" in data:
            c = data["call"]
            item = ToolCallItem(id=c["id"], name=c["name"], arguments=c["args"])
            self.calls.append(item)
            return [ToolCallComplete(item)]
        if data.get("done"):
            items: list[Any] = [TextItem(text="".join(self.text), role="assistant")] if self.text else []
            items += self.calls
            return [StreamDone(ModelResponse(items=items, stop_reason=StopReason(reason="end_turn", raw="end")))]
        if "error" in data:
            return [StreamError(ErrorItem(code="provider_error", message=data["error"]))]
        return []

    def finish(self) -> list[Any]:
        return [StreamError(ErrorItem(code="truncated", message="toy stream ended before its done line", retryable=True))]


class Toy:
    """A tiny mapper; ``caps`` answers ``capabilities`` (``vision`` in the model name adds image input)."""

    issuer = "toy"
    framing: Literal["sse", "ndjson"] = "ndjson"
    id_rule = None

    def __init__(self, name: str, caps: ModelCapabilities) -> None:
        self.name = name
        self.caps = caps

    # ---------------------------------------------------------------- requests
    def decode_request(self, body: Mapping[str, Any]) -> Conversion[Transcript]:
        report = Report()
        items: list[Any] = []
        for i, msg in enumerate(body["messages"]):
            key = f"m{i}"
            role = msg["role"]
            if "note" in msg:
                report.add("dropped", "toy message notes have no canonical form", index=i, item_type="note")
            if role == "tool":
                items.append(ToolResultItem(call_id=msg["call_id"], content=[TextItem(text=msg["content"])], message=key))
                continue
            if msg.get("content"):
                items.append(TextItem(text=msg["content"], role=role, message=key))
            if "image_url" in msg:
                items.append(ImageItem(source=UrlSource(url=msg["image_url"]), role=role, message=key))
            for c in msg.get("calls", []):
                items.append(ToolCallItem(id=c["id"], name=c["name"], arguments=c["args"], message=key))
        tools = [ToolDefinition(name=t["name"]) for t in body.get("tools", [])]
        return Conversion(Transcript(schema_version="1.0", items=items, tools=tools or msgspec.UNSET), report)

    def encode_request(self, transcript: Transcript, *, model: str | None = None, policy: Policy = "error") -> Conversion[dict[str, Any]]:
        report = Report()
        messages: list[dict[str, Any]] = []
        last_key: object = None
        for i, item in enumerate(transcript.items):
            if isinstance(item, ImageItem) and isinstance(item.source, Base64Source):
                for marker in report.unsupported(policy, "toy carries images only by URL", index=i, item_type="image"):
                    messages.append({"role": "user", "content": marker.text})
            elif isinstance(item, ImageItem) and isinstance(item.source, UrlSource):
                messages.append({"role": item.role, "image_url": item.source.url})
            elif isinstance(item, TextItem):
                messages.append({"role": item.role, "content": item.text})
            elif isinstance(item, ToolCallItem):
                call = {"id": item.id, "name": item.name, "args": item.arguments}
                if messages and messages[-1].get("calls") is not None and last_key == item.message and item.message is not msgspec.UNSET:
                    messages[-1]["calls"].append(call)
                else:
                    messages.append({"role": "assistant", "content": "", "calls": [call]})
            elif isinstance(item, ToolResultItem):
                text = "".join(p.text for p in item.content if isinstance(p, TextItem))
                messages.append({"role": "tool", "call_id": item.call_id, "content": text})
            elif isinstance(item, ReasoningItem):
                report.add("dropped", "toy takes no reasoning", index=i, item_type="reasoning")
            last_key = getattr(item, "message", None)
        body: dict[str, Any] = {"messages": messages}
        if model:
            body["model"] = model
        if isinstance(transcript.tools, list) and transcript.tools:
            body["tools"] = [{"name": t.name} for t in transcript.tools]
        return Conversion(body, report)

    # ---------------------------------------------------------------- responses
    def decode_response(self, body: Mapping[str, Any]) -> Conversion[ModelResponse]:
        key = f"resp:{body['id']}"
        items: list[Any] = []
        for part in body["output"]:
            if "text" in part:
                items.append(TextItem(text=part["text"], role="assistant", message=key))
            else:
                c = part["call"]
                items.append(ToolCallItem(id=c["id"], name=c["name"], arguments=c["args"], message=key))
        stop = body.get("stop", "end")
        reason = {"end": "end_turn", "tool": "tool_use"}.get(stop, "other")
        return Conversion(ModelResponse(items=items, stop_reason=StopReason(reason=reason, raw=stop), response_id=body["id"]))  # type: ignore[arg-type]

    def encode_response(self, response: ModelResponse, *, model: str | None = None, policy: Policy = "error") -> Conversion[dict[str, Any]]:
        report = Report()
        output: list[dict[str, Any]] = []
        for i, item in enumerate(response.items):
            if isinstance(item, TextItem):
                output.append({"text": item.text})
            elif isinstance(item, ToolCallItem):
                output.append({"call": {"id": item.id, "name": item.name, "args": item.arguments}})
            else:
                report.unsupported(policy, "toy responses carry text and calls only", index=i, item_type=type(item).__struct_config__.tag)
        stop = "tool" if response.stop_reason and response.stop_reason.reason == "tool_use" else "end"
        return Conversion({"id": response.response_id or "r0", "output": output, "stop": stop}, report)

    def kind_of(self, body: Mapping[str, Any]) -> Literal["request", "response"] | None:
        if "messages" in body:
            return "request"
        if "output" in body:
            return "response"
        return None

    def accumulator(self) -> ToyAccumulator:
        return ToyAccumulator()

    def capabilities(self, model: str | None) -> ModelCapabilities:
        if model and "vision" in model:
            return msgspec.structs.replace(self.caps, input_modalities=["text", "image"])
        return self.caps


TOY_A_CAPS = ModelCapabilities(input_modalities=["text", "image"], tools=True, parallel_tool_calls=True, streaming=True)
TOY_B_CAPS = ModelCapabilities(input_modalities=["text"], tools=True, parallel_tool_calls=False, streaming=True)


@pytest.fixture
def toys() -> Iterator[tuple[Toy, Toy]]:
    """Register ``toy-a`` (images, parallel calls) and ``toy-b`` (text only, one call per turn)."""
    a, b = Toy("toy-a", TOY_A_CAPS), Toy("toy-b", TOY_B_CAPS)
    undo = [register("toy-a", a), register("toy-b", b)]  # type: ignore[arg-type]
    yield a, b
    for u in undo:
        u()
