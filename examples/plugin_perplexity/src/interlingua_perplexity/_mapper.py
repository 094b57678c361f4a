"""The Perplexity mapper: requests, responses and streams (see the package docstring for the rules)."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any, Literal

import msgspec

from interlingua.codec import SCHEMA_VERSION
from interlingua.items import ErrorItem, ModelCapabilities, Origin, RawItem, StopReason, TextItem, Transcript, Usage
from interlingua.mapping import Conversion, ModelResponse, Policy, Report
from interlingua.streaming.events import RawEvent, StreamDone, StreamError, StreamEvent, TextDelta, UsageUpdate

__all__ = ["NAME", "PerplexityMapper", "mapper"]

NAME = "perplexity"
"""Registry name, ``origin.provider``, ``raw.provider`` and ``provider_data`` key."""

_FINISH_TO_STOP = {"stop": "end_turn", "length": "max_tokens"}
_STOP_TO_FINISH = {"end_turn": "stop", "max_tokens": "length"}
_RESPONSE_EXTRAS = ("citations", "search_results", "created", "object")
"""Response fields beside ``choices`` kept in ``provider_data["perplexity"]``."""
_U = msgspec.UNSET


def _speaker(item: Any) -> str:
    role = getattr(item, "role", _U)
    return "system" if role in ("system", "developer") else "assistant" if role == "assistant" else "user"


def _usage(wire: Any) -> Usage | None:
    if not isinstance(wire, dict):
        return None
    return Usage(input_tokens=wire.get("prompt_tokens", 0), output_tokens=wire.get("completion_tokens", 0), total_tokens=wire.get("total_tokens", _U), details=wire)


def _stop(finish: Any) -> StopReason | None:
    return StopReason(reason=_FINISH_TO_STOP.get(finish, "other"), raw=finish) if isinstance(finish, str) else None  # type: ignore[arg-type]


def _text_of(content: Any) -> str | None:
    """String content, or a list of text parts joined; ``None`` for anything else."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str) for p in content):
        return "".join(p["text"] for p in content)
    return None


def _decode_message(msg: Any, key: str, report: Report, index: int) -> Any:
    if isinstance(msg, dict) and msg.get("role") in ("system", "user", "assistant") and set(msg) <= {"role", "content"}:
        text = _text_of(msg.get("content"))
        if text is not None:
            return TextItem(role=msg["role"], text=text, message=key)
    report.add("changed", "message has no canonical form; kept raw", index=index)
    return RawItem(provider=NAME, value=copy.deepcopy(msg), message=key)


def _messages(items: list[Any], policy: Policy, report: Report) -> list[dict[str, Any]]:
    """Items -> alternating messages (consecutive turns of one speaker joined, reported)."""
    out: list[dict[str, Any]] = []
    last_key: Any = None
    for index, item in enumerate(items):
        if isinstance(item, RawItem) and item.provider == NAME:
            out.append(copy.deepcopy(item.value))
            last_key = None
            continue
        if not isinstance(item, TextItem):
            kind = getattr(item, "type", type(item).__name__)
            for marker in report.unsupported(policy, f"{kind} items have no Perplexity form", index=index, item_type=kind):
                item = TextItem(role="user", text=marker.text)
            if not isinstance(item, TextItem):
                continue
        if item.role == "developer":
            report.add("changed", "developer text sent as a system message", index=index, item_type="text")
        speaker, key = _speaker(item), getattr(item, "message", _U)
        if out and out[-1].get("role") == speaker and isinstance(out[-1].get("content"), str):
            if key is _U or key != last_key:
                report.add("changed", f"consecutive {speaker} turns joined (Perplexity needs user and assistant to alternate)", index=index, item_type="text")
            out[-1]["content"] += ("\n\n" if key is _U or key != last_key else "") + item.text
        else:
            out.append({"role": speaker, "content": item.text})
        last_key = key
    return out


class _Accumulator:
    """``chat.completion.chunk`` SSE events -> canonical events; the chunk with a ``finish_reason`` completes."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.meta: dict[str, Any] = {}
        self.extras: dict[str, Any] = {}
        self.usage: Usage | None = None
        self.finish_reason: Any = None
        self.ended = False

    def partial(self) -> ModelResponse:
        key = f"resp:{self.meta['id']}" if self.meta.get("id") else "resp"
        items = [TextItem(role="assistant", text="".join(self.text), message=key)] if "".join(self.text) else []
        return ModelResponse(
            items=items, usage=self.usage, stop_reason=_stop(self.finish_reason), model=self.meta.get("model"), response_id=self.meta.get("id"),
            provider_data={NAME: copy.deepcopy(self.extras)} if self.extras else None,
        )

    def feed(self, event: RawEvent) -> list[StreamEvent]:
        if self.ended or event.data.strip() == "[DONE]":
            return []
        try:
            chunk = json.loads(event.data)
        except ValueError:
            self.ended = True
            return [StreamError(ErrorItem(code="provider_error", message="stream chunk is not JSON", retryable=False), self.partial())]
        out: list[StreamEvent] = []
        for name in ("id", "model"):
            if chunk.get(name):
                self.meta[name] = chunk[name]
        for name in ("citations", "search_results"):
            if name in chunk:
                self.extras[name] = copy.deepcopy(chunk[name])
        if isinstance(chunk.get("usage"), dict):
            self.usage = _usage(chunk["usage"])
            out.append(UsageUpdate(self.usage))  # type: ignore[arg-type]
        for choice in chunk.get("choices") or []:
            content = (choice.get("delta") or {}).get("content")
            if isinstance(content, str) and content:
                self.text.append(content)
                out.append(TextDelta(content))
            if choice.get("finish_reason"):
                self.finish_reason = choice["finish_reason"]
        if self.finish_reason is not None:
            self.ended = True
            out.append(StreamDone(self.partial()))
        return out

    def finish(self) -> list[StreamEvent]:
        """End of input: ``truncated`` when no chunk finished the response."""
        if self.ended:
            return []
        self.ended = True
        return [StreamError(ErrorItem(code="truncated", message="stream ended before a chunk with finish_reason", retryable=True), self.partial())]


class PerplexityMapper:
    """Perplexity chat completions, both ways (see :mod:`interlingua_perplexity`)."""

    name = NAME
    issuer = NAME
    framing: Literal["sse"] = "sse"
    stream_end_markers = frozenset({"[DONE]"})  # data values that end the stream without being JSON
    id_rule = None

    def decode_request(self, body: Mapping[str, Any]) -> Conversion[Transcript]:
        """Request body (``messages``) -> transcript; other top-level fields are reported as dropped."""
        report = Report()
        items = [_decode_message(msg, f"m{i}", report, i) for i, msg in enumerate(body.get("messages") or [])]
        for key in sorted(set(body) - {"messages", "model"}):
            report.add("dropped", f"request field {key!r} is not read by this example mapper")
        return Conversion(Transcript(schema_version=SCHEMA_VERSION, items=items), report)

    def encode_request(self, transcript: Transcript, *, model: str | None = None, policy: Policy = "error") -> Conversion[dict[str, Any]]:
        """Transcript -> request body.

        Raises:
            ConversionError: under policy ``error``, for content Perplexity cannot carry (tools, media).
        """
        report = Report()
        if transcript.tools is not _U and transcript.tools:
            report.unsupported(policy, "Perplexity chat completions take no tools", item_type="tool")
        body: dict[str, Any] = {"model": model} if model else {}
        body["messages"] = _messages(list(transcript.items), policy, report)
        return Conversion(body, report)

    def decode_response(self, body: Mapping[str, Any]) -> Conversion[ModelResponse]:
        """Response body -> the assistant text of ``choices[0]``; ``citations``/``search_results`` in provider_data."""
        report = Report()
        choices = body.get("choices") or []
        if len(choices) > 1:
            report.add("dropped", f"{len(choices) - 1} extra choices are not kept")
        key = f"resp:{body['id']}" if body.get("id") else "resp"
        origin = Origin(provider=NAME, **({"model": body["model"]} if body.get("model") else {}), **({"response_id": body["id"]} if body.get("id") else {}))
        items: list[Any] = []
        if choices:
            item = _decode_message(choices[0].get("message") or {}, key, report, 0)
            items.append(msgspec.structs.replace(item, origin=origin) if isinstance(item, TextItem) else item)
        extras = {k: copy.deepcopy(body[k]) for k in _RESPONSE_EXTRAS if k in body}
        finish = choices[0].get("finish_reason") if choices else None
        return Conversion(
            ModelResponse(items=items, usage=_usage(body.get("usage")), stop_reason=_stop(finish), model=body.get("model"), response_id=body.get("id"), provider_data={NAME: extras} if extras else None),
            report,
        )

    def encode_response(self, response: ModelResponse, *, model: str | None = None, policy: Policy = "error") -> Conversion[dict[str, Any]]:
        """Response -> response body (assistant text; this mapper's provider_data written back)."""
        report = Report()
        messages = _messages([msgspec.structs.replace(i, message=_U) if isinstance(i, TextItem) else i for i in response.items], policy, report)
        message = next((m for m in messages if m.get("role") == "assistant"), {"role": "assistant", "content": ""})
        stop = response.stop_reason
        finish = stop.raw if stop and stop.raw in _FINISH_TO_STOP else _STOP_TO_FINISH.get(stop.reason, "stop") if stop else "stop"
        body: dict[str, Any] = {"id": response.response_id or "resp", "model": model or response.model or "", "choices": [{"index": 0, "message": message, "finish_reason": finish}]}
        own = (response.provider_data or {}).get(NAME)
        if isinstance(own, dict):
            body.update(copy.deepcopy(own))
        if response.usage is not None:
            body["usage"] = {"prompt_tokens": response.usage.input_tokens, "completion_tokens": response.usage.output_tokens, "total_tokens": response.usage.input_tokens + response.usage.output_tokens}
        return Conversion(body, report)

    def kind_of(self, body: Mapping[str, Any]) -> Literal["request", "response"] | None:
        """``request`` when ``messages`` is present, ``response`` when ``choices`` is."""
        if isinstance(body.get("messages"), list):
            return "request"
        if isinstance(body.get("choices"), list):
            return "response"
        return None

    def accumulator(self) -> _Accumulator:
        """A fresh accumulator for one streamed response."""
        return _Accumulator()

    def capabilities(self, model: str | None) -> ModelCapabilities:
        """Text in and out, streaming, stop sequences; no tools."""
        return ModelCapabilities(input_modalities=["text"], output_modalities=["text"], tools=False, streaming=True)


mapper = PerplexityMapper()
"""The instance the entry point exposes."""
