"""The Mistral mapper: requests, responses and streams (see the package docstring for the rules)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

import msgspec

from interlingua.codec import SCHEMA_VERSION
from interlingua.items import (
    ErrorItem,
    ModelCapabilities,
    Origin,
    RawItem,
    StopReason,
    TextItem,
    ToolCallItem,
    ToolChoice,
    ToolDefinition,
    ToolResultItem,
    Transcript,
    Usage,
)
from interlingua.mapping import Conversion, IdMap, IdRule, ModelResponse, Policy, Report
from interlingua.mapping.arguments import arguments_json, tool_call_from_text
from interlingua.streaming.events import RawEvent, StreamDone, StreamError, StreamEvent, TextDelta, ToolCallComplete, UsageUpdate

__all__ = ["ID_RULE", "NAME", "MistralMapper", "mapper"]

NAME = "mistral"
"""Registry name, ``origin.provider`` and ``raw.provider``."""

ID_RULE = IdRule("mistral", pattern=r"[a-zA-Z0-9]{9}", exact_length=9)
"""Tool-call ids: "must be a-z, A-Z, 0-9, with a length of 9" (Mistral API error text)."""

_FINISH_TO_STOP = {"stop": "end_turn", "length": "max_tokens", "model_length": "max_tokens", "tool_calls": "tool_use", "error": "error"}
_STOP_TO_FINISH = {"end_turn": "stop", "max_tokens": "length", "tool_use": "tool_calls", "error": "error"}
_CHOICE_TO_WIRE = {"auto": "auto", "none": "none", "required": "any"}
_CHOICE_FROM_WIRE = {"auto": "auto", "none": "none", "any": "required", "required": "required"}
_U = msgspec.UNSET


def _speaker(item: Any) -> str:
    if isinstance(item, ToolResultItem):
        return "tool"
    if isinstance(item, ToolCallItem):
        return "assistant"
    role = getattr(item, "role", _U)
    if role in ("system", "developer"):
        return "system"
    if role == "assistant":
        return "assistant"
    return "user"


# --------------------------------------------------------------------------- decoding


def _decode_message(msg: Any, key: str, items: list[Any], report: Report, index: int) -> None:
    if not isinstance(msg, dict):
        report.add("changed", "message is not an object; kept raw", index=index)
        items.append(RawItem(provider=NAME, value=msg, message=key))
        return
    role, content = msg.get("role"), msg.get("content")
    if role in ("system", "user", "assistant") and set(msg) <= {"role", "content", "tool_calls", "prefix"} and not msg.get("prefix"):
        parts = [content] if isinstance(content, str) else content if isinstance(content, list) else [] if content is None else None
        if parts is not None and all(isinstance(p, str) or (isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)) for p in parts):
            for part in parts:
                text = part if isinstance(part, str) else part["text"]
                if role == "assistant" and text == "":
                    continue  # "" (or null) content beside tool calls is no text
                items.append(TextItem(role=role, text=text, message=key))
            for call in msg.get("tool_calls") or []:
                fn = call.get("function") or {}
                args = fn.get("arguments")
                if isinstance(args, dict):
                    items.append(ToolCallItem(id=call.get("id", ""), name=fn.get("name", ""), arguments=args, message=key))
                else:
                    items.append(tool_call_from_text(call.get("id", ""), fn.get("name", ""), args if isinstance(args, str) else "", message=key))
            return
    if role == "tool" and isinstance(content, str):
        items.append(ToolResultItem(call_id=msg.get("tool_call_id", ""), content=[TextItem(text=content)], message=key))
        return
    report.add("changed", f"message with role {role!r} has parts without a canonical form; kept raw", index=index)
    items.append(RawItem(provider=NAME, value=msg, message=key))


def _decode_tools(body: Mapping[str, Any]) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    if isinstance(body.get("tools"), list):
        fields["tools"] = [
            ToolDefinition(
                name=fn["name"],
                **({"description": fn["description"]} if "description" in fn else {}),
                **({"parameters": fn["parameters"]} if "parameters" in fn else {}),
            )
            for fn in (t.get("function", {}) for t in body["tools"])
        ]
    choice = body.get("tool_choice")
    if isinstance(choice, str) and choice in _CHOICE_FROM_WIRE:
        fields["tool_choice"] = ToolChoice(mode=_CHOICE_FROM_WIRE[choice])  # type: ignore[arg-type]
    elif isinstance(choice, dict):
        fields["tool_choice"] = ToolChoice(mode="tool", name=choice.get("function", {}).get("name"))
    return fields


def _usage(wire: Any) -> Usage | None:
    if not isinstance(wire, dict):
        return None
    return Usage(input_tokens=wire.get("prompt_tokens", 0), output_tokens=wire.get("completion_tokens", 0), total_tokens=wire.get("total_tokens", _U), details=wire)


def _stop(finish: Any) -> StopReason | None:
    return StopReason(reason=_FINISH_TO_STOP.get(finish, "other"), raw=finish) if isinstance(finish, str) else None  # type: ignore[arg-type]


# --------------------------------------------------------------------------- encoding


class _Encoder:
    def __init__(self, policy: Policy, report: Report, items: list[Any]) -> None:
        self.policy, self.report = policy, report
        self.ids = IdMap(ID_RULE, report)
        self.ids.reserve([it.id for it in items if isinstance(it, ToolCallItem)])
        self.names = {it.id: it.name for it in items if isinstance(it, ToolCallItem)}

    def messages(self, items: list[Any]) -> list[Any]:
        groups: list[tuple[str, Any, list[tuple[int, Any]]]] = []
        for index, item in enumerate(items):
            if isinstance(item, RawItem) and item.provider == NAME:
                groups.append(("raw", None, [(index, item)]))
                continue
            item = self._supported(index, item)
            if item is None:
                continue
            speaker, key = _speaker(item), getattr(item, "message", _U)
            last = groups[-1] if groups else None
            if last and last[0] == speaker and last[1] == key and speaker in ("system", "user", "assistant"):
                last[2].append((index, item))
            else:
                groups.append((speaker, key, [(index, item)]))
        return [m for g in groups if (m := self._message(*g)) is not None]

    def _supported(self, index: int, item: Any) -> Any:
        if isinstance(item, (TextItem, ToolCallItem, ToolResultItem)):
            if isinstance(item, TextItem) and item.role == "developer":
                self.report.add("changed", "developer text sent as a system message", index=index, item_type="text")
            return item
        kind = getattr(item, "type", type(item).__name__)
        marker = self.report.unsupported(self.policy, f"{kind} items have no Mistral chat form", index=index, item_type=kind)
        if not marker:
            return None
        text = marker[0]
        role = "assistant" if kind in ("reasoning", "refusal", "structured") else "user"
        return TextItem(role=role, text=text.text)

    def _message(self, speaker: str, key: Any, group: list[tuple[int, Any]]) -> dict[str, Any] | None:
        if speaker == "raw":
            return dict(group[0][1].value)
        if speaker == "tool":
            index, result = group[0]
            texts = [c.text for c in result.content if isinstance(c, TextItem)]
            if len(texts) != len(result.content):
                self.report.unsupported(self.policy, "tool result content other than text has no Mistral form", index=index, item_type="tool_result")
            if len(texts) > 1:
                self.report.add("changed", "several texts of a tool result joined", index=index, item_type="tool_result")
            if result.is_error is True:
                self.report.add("changed", "is_error has no Mistral field; sent as a plain result", index=index, item_type="tool_result")
            return {"role": "tool", "tool_call_id": self.ids.get(result.call_id, index=index), "name": self.names.get(result.call_id, ""), "content": "".join(texts)}
        texts = [(i, it) for i, it in group if isinstance(it, TextItem)]
        if speaker == "assistant":
            for i, _ in [(i, t) for i, t in texts if t.text == ""]:
                self.report.add("dropped", "empty assistant text is not sent (Mistral reads \"\" as no content)", index=i, item_type="text")
            texts = [(i, t) for i, t in texts if t.text != ""]
        calls = [(i, it) for i, it in group if isinstance(it, ToolCallItem)]
        msg: dict[str, Any] = {"role": speaker}
        if speaker == "assistant":
            if len(texts) > 1:
                self.report.add("changed", "several assistant texts in one message joined", index=texts[1][0], item_type="text")
            msg["content"] = "".join(t.text for _, t in texts)
            wire_calls = []
            for i, call in calls:
                args = arguments_json(call, policy=self.policy, report=self.report, index=i)
                if args is None:
                    continue
                wire_calls.append({"id": self.ids.get(call.id, index=i), "type": "function", "function": {"name": call.name, "arguments": args}})
            if wire_calls:
                msg["tool_calls"] = wire_calls
            if not texts and not wire_calls:
                return None
            return msg
        msg["content"] = texts[0][1].text if len(texts) == 1 else [{"type": "text", "text": t.text} for _, t in texts]
        return msg

    def tools(self, transcript: Transcript) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if transcript.tools is not _U:
            wire = []
            for tool in transcript.tools:
                fn: dict[str, Any] = {"name": tool.name}
                if tool.description is not _U:
                    fn["description"] = tool.description
                if tool.parameters is not _U:
                    fn["parameters"] = tool.parameters
                if tool.provider_data is not _U:
                    for ns in sorted(k for k in tool.provider_data if k != NAME):
                        self.report.add("dropped", f"provider_data for {ns!r} on tool {tool.name!r} is not sent to Mistral", item_type="tool")
                wire.append({"type": "function", "function": fn})
            out["tools"] = wire
        choice = transcript.tool_choice
        if choice is not _U:
            if choice.mode == "tool":
                out["tool_choice"] = {"type": "function", "function": {"name": choice.name}}
            else:
                out["tool_choice"] = _CHOICE_TO_WIRE[choice.mode]
        return out


# --------------------------------------------------------------------------- streams


class _Accumulator:
    """Chat-completion chunks (SSE ``data:`` JSON, ending with ``data: [DONE]``) -> events."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.calls: dict[int, dict[str, Any]] = {}
        self.finish_reason: Any = None
        self.usage: Usage | None = None
        self.meta: dict[str, Any] = {}
        self.ended = False
        self.report = Report()

    def _response(self) -> ModelResponse:
        key = f"resp:{self.meta['id']}" if self.meta.get("id") else "resp"
        items: list[Any] = []
        if "".join(self.text):
            items.append(TextItem(role="assistant", text="".join(self.text), message=key))
        for _, call in sorted(self.calls.items()):
            items.append(tool_call_from_text(call["id"], call["name"], call["arguments"], message=key))
        return ModelResponse(items=items, usage=self.usage, stop_reason=_stop(self.finish_reason), model=self.meta.get("model"), response_id=self.meta.get("id"))

    def feed(self, event: RawEvent) -> list[StreamEvent]:
        if self.ended:
            return []
        if event.data.strip() == "[DONE]":
            self.ended = True
            response = self._response()
            return [*(ToolCallComplete(it) for it in response.items if isinstance(it, ToolCallItem)), StreamDone(response, self.report)]
        try:
            chunk = json.loads(event.data)
        except ValueError:
            self.ended = True
            return [StreamError(ErrorItem(code="provider_error", message="stream chunk is not JSON", retryable=False), self._response(), self.report)]
        out: list[StreamEvent] = []
        for field_name in ("id", "model"):
            if chunk.get(field_name):
                self.meta[field_name] = chunk[field_name]
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            if isinstance(delta.get("content"), str) and delta["content"]:
                self.text.append(delta["content"])
                out.append(TextDelta(delta["content"]))
            for n, call in enumerate(delta.get("tool_calls") or []):
                slot = self.calls.setdefault(call.get("index", n), {"id": "", "name": "", "arguments": ""})
                fn = call.get("function") or {}
                slot["id"] = call.get("id") or slot["id"]
                slot["name"] = fn.get("name") or slot["name"]
                args = fn.get("arguments")
                slot["arguments"] += json.dumps(args) if isinstance(args, dict) else (args or "")
            if choice.get("finish_reason"):
                self.finish_reason = choice["finish_reason"]
        if isinstance(chunk.get("usage"), dict):
            self.usage = _usage(chunk["usage"])
            out.append(UsageUpdate(self.usage))  # type: ignore[arg-type]
        return out

    def finish(self) -> list[StreamEvent]:
        if self.ended:
            return []
        self.ended = True
        return [StreamError(ErrorItem(code="truncated", message="stream ended before data: [DONE]", retryable=True), self._response(), self.report)]


# --------------------------------------------------------------------------- the mapper


class MistralMapper:
    """Mistral chat completions, both ways (see :mod:`interlingua_mistral`)."""

    name = NAME
    issuer = NAME
    framing: Literal["sse"] = "sse"
    id_rule = ID_RULE

    def decode_request(self, body: Mapping[str, Any]) -> Conversion[Transcript]:
        """Request body (``messages``, ``tools``, ``tool_choice``) -> transcript."""
        report = Report()
        items: list[Any] = []
        for i, msg in enumerate(body.get("messages") or []):
            _decode_message(msg, f"m{i}", items, report, i)
        return Conversion(Transcript(schema_version=SCHEMA_VERSION, items=items, **_decode_tools(body)), report)

    def encode_request(self, transcript: Transcript, *, model: str | None = None, policy: Policy = "error") -> Conversion[dict[str, Any]]:
        """Transcript -> request body.

        Raises:
            ConversionError: under policy ``error``, for content Mistral cannot carry.
        """
        report = Report()
        enc = _Encoder(policy, report, list(transcript.items))
        body: dict[str, Any] = {"model": model} if model else {}
        body["messages"] = enc.messages(list(transcript.items))
        body.update(enc.tools(transcript))
        return Conversion(body, report)

    def decode_response(self, body: Mapping[str, Any]) -> Conversion[ModelResponse]:
        """``chat.completion`` body -> response (first choice; others reported as dropped)."""
        report = Report()
        choices = body.get("choices") or []
        if len(choices) > 1:
            report.add("dropped", f"{len(choices) - 1} extra choices are not kept")
        key = f"resp:{body['id']}" if body.get("id") else "resp"
        items: list[Any] = []
        if choices:
            _decode_message(choices[0].get("message") or {}, key, items, report, 0)
        origin = Origin(provider=NAME, **({"model": body["model"]} if body.get("model") else {}), **({"response_id": body["id"]} if body.get("id") else {}))
        items = [msgspec.structs.replace(it, origin=origin) if hasattr(it, "origin") else it for it in items]
        finish = choices[0].get("finish_reason") if choices else None
        return Conversion(ModelResponse(items=items, usage=_usage(body.get("usage")), stop_reason=_stop(finish), model=body.get("model"), response_id=body.get("id")), report)

    def encode_response(self, response: ModelResponse, *, model: str | None = None, policy: Policy = "error") -> Conversion[dict[str, Any]]:
        """Response -> ``chat.completion`` body (assistant items only).

        Raises:
            ConversionError: under policy ``error``, for items an assistant message cannot carry.
        """
        report = Report()
        enc = _Encoder(policy, report, list(response.items))
        keep = []
        for i, item in enumerate(response.items):
            if _speaker(item) != "assistant" and not isinstance(item, RawItem):
                report.unsupported(policy, "a response holds assistant items only", index=i, item_type=getattr(item, "type", None))
                continue
            keep.append(msgspec.structs.replace(item, message=_U) if hasattr(item, "message") else item)
        messages = enc.messages(keep)
        message = next((m for m in messages if m.get("role") == "assistant"), {"role": "assistant", "content": ""})
        stop = response.stop_reason
        body: dict[str, Any] = {
            "id": response.response_id or "resp",
            "object": "chat.completion",
            "model": model or response.model or "",
            "choices": [{"index": 0, "message": message, "finish_reason": (stop.raw if stop and stop.raw in _FINISH_TO_STOP else _STOP_TO_FINISH.get(stop.reason, "stop") if stop else "stop")}],
        }
        if response.usage is not None:
            body["usage"] = {"prompt_tokens": response.usage.input_tokens, "completion_tokens": response.usage.output_tokens, "total_tokens": response.usage.input_tokens + response.usage.output_tokens}
        return Conversion(body, report)

    def kind_of(self, body: Mapping[str, Any]) -> Literal["request", "response"] | None:
        """``request`` when ``messages`` is present, ``response`` for a ``chat.completion``."""
        if isinstance(body.get("messages"), list):
            return "request"
        if isinstance(body.get("choices"), list):
            return "response"
        return None

    def accumulator(self) -> _Accumulator:
        """A fresh accumulator for one streamed response."""
        return _Accumulator()

    def capabilities(self, model: str | None) -> ModelCapabilities:
        """Text in and out, tools (parallel), streaming."""
        return ModelCapabilities(input_modalities=["text"], output_modalities=["text"], tools=True, parallel_tool_calls=True, streaming=True, stop_sequences=True)


mapper = MistralMapper()
"""The instance the entry point exposes."""

