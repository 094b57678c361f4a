"""A transcript -> Vercel AI SDK v5 ``UIMessage[]`` (``vercel-ui``) or ``ModelMessage[]`` (``vercel-model``).

The inverse of :mod:`interlingua.compat._vercel_ai` (whose docstring gives the shapes and sources). One
message per canonical message (consecutive items sharing a ``message`` key); what the reader kept in
``provider_data`` (message ``id``/``metadata``, part ``state``/``providerMetadata``/``providerOptions``,
``step-start`` positions) is written back, so a file read and written comes back as it was.

``vercel-ui``: a tool result joins its call's ``tool-NAME`` part (``state: "output-available"``, or
``"output-error"`` with ``errorText``) wherever the call was written, since a UIMessage has no tool role.
``vercel-model``: tool results go in ``role: "tool"`` messages (``output`` ``text``/``json``/``error-text``/
``error-json`` by content). Refusals and structured items are written as text (reported); ``error`` items
and other formats' ``raw`` items have no form: the policy decides. Every field that does not come back
through the reader is reported per item; tools, settings, usage have no place in a message list (reported).
"""

from __future__ import annotations

import copy
from typing import Any

import msgspec

from ..items import (
    ArtifactSource,
    AudioItem,
    Base64Source,
    DocumentItem,
    ImageItem,
    RawItem,
    ReasoningItem,
    RefusalItem,
    StructuredItem,
    TextItem,
    ToolCallItem,
    ToolResultItem,
    Transcript,
    UrlSource,
    VideoItem,
)
from ..mapping import Conversion, Policy, Report
from . import _vercel_ai
from ._store_writing import START, Start, groups, pd_of, report_round_trip, report_unkept
from ._writing import call_arguments, kind

__all__ = ["write_model", "write_ui"]

U = msgspec.UNSET
_MEDIA = (ImageItem, AudioItem, DocumentItem, VideoItem)
_INTERNAL = ("step_start", "message", "empty", "dynamic", "no_input", "output_type", "output", "string", "image_part", "form")


def _media(item: Any) -> tuple[str, str] | None:
    """(url-or-data, media type) of a media item, or ``None`` when its source has no such form."""
    src = item.source
    mime = getattr(src, "media_type", U)
    if mime is U and isinstance(item, DocumentItem):
        mime = item.media_type
    if isinstance(src, Base64Source):
        return f"data:{src.media_type};base64,{src.data}", src.media_type
    if isinstance(src, UrlSource):
        return src.url, mime if isinstance(mime, str) else {"image": "image/*", "audio": "audio/*", "video": "video/*"}.get(kind(item), "application/octet-stream")
    if isinstance(src, ArtifactSource):
        return src.uri, mime if isinstance(mime, str) else "application/octet-stream"
    return None


def _extras(pd: dict[str, Any]) -> dict[str, Any]:
    return {k: copy.deepcopy(v) for k, v in pd.items() if k not in _INTERNAL}


def _output(result: ToolResultItem) -> Any:
    """A result's content as the UIMessage ``output`` (one text: the string; one structured: its data)."""
    content: list[Any] = list(result.content)
    if not content:
        return ""
    if len(content) == 1 and isinstance(content[0], TextItem):
        return content[0].text
    if len(content) == 1 and isinstance(content[0], StructuredItem):
        return copy.deepcopy(content[0].data)
    if all(isinstance(c, TextItem) for c in content):
        return "".join(c.text for c in content)
    return [msgspec.to_builtins(c) for c in content]


class _Writer:
    def __init__(self, transcript: Transcript, fmt: str, policy: Policy, report: Report, start: Start = START) -> None:
        self.transcript = transcript
        self.fmt = fmt
        self.policy = policy
        self.report = report
        self.start = start

    def unsupported(self, item: Any, index: int) -> list[dict[str, Any]]:
        t = kind(item)
        extra = f" (a {item.provider} raw item)" if isinstance(item, RawItem) else ""
        markers = self.report.unsupported(self.policy, f"{t} item has no {self.fmt} form{extra}", index=index, item_type=t)
        return [{"type": "text", "text": markers[0].text}] if markers else []

    def said_part(self, item: Any, index: int, pd: dict[str, Any]) -> dict[str, Any] | None:
        """The text or reasoning part of ``item`` (a refusal or structured output written as text,
        reported), the same in UI and Model messages; ``None`` for any other item."""
        if isinstance(item, TextItem | RefusalItem | StructuredItem):
            if not isinstance(item, TextItem):
                self.report.add("changed", f"{kind(item)} written as a text part", index=index, item_type=kind(item))
            return self.text_part(item, index)
        if isinstance(item, ReasoningItem):
            text = item.text if isinstance(item.text, str) else "\n".join(item.summary) if item.summary is not U else ""
            return {"type": "reasoning", "text": text, **_extras(pd)}
        return None

    def text_part(self, item: Any, index: int) -> dict[str, Any]:
        if isinstance(item, TextItem):
            return {"type": "text", "text": item.text, **_extras(pd_of(item, self.fmt))}
        if isinstance(item, RefusalItem):
            return {"type": "text", "text": item.text}
        return {"type": "text", "text": msgspec.json.encode(item.data).decode()}


def _message_fields(group: list[Any], fmt: str) -> dict[str, Any]:
    """The source message's own fields the reader kept: on the first item of the message that has
    ``provider_data`` (a raw first part has none)."""
    for item in group:
        mine = pd_of(item, fmt)
        if "message" in mine and isinstance(mine["message"], dict):
            return mine["message"]
    return {}


class _UiWriter(_Writer):
    def write(self) -> list[dict[str, Any]]:
        items = list(self.transcript.items)
        out: list[dict[str, Any]] = []
        calls: dict[str, dict[str, Any]] = {}
        for start, group in groups(items):
            first = pd_of(group[0], self.fmt)
            own = copy.deepcopy(_message_fields(group, self.fmt))
            role = next((getattr(it, "role") for it in group if isinstance(getattr(it, "role", U), str)), None)
            if role is None:
                role = "user" if all(isinstance(it, ToolResultItem) for it in group) else "assistant"
            if role == "developer":
                self.report.add("changed", "a UIMessage has no developer role: written as system", index=start, item_type="text")
                role = "system"
            parts: list[dict[str, Any]] = []
            orphan_results = True
            for k, item in enumerate(group):
                index = start + k
                pd = pd_of(item, self.fmt)
                if pd.get("step_start"):
                    parts.append({"type": "step-start"})
                if isinstance(item, TextItem) and pd.get("empty"):
                    continue
                if (said := self.said_part(item, index, pd)) is not None:
                    parts.append(said)
                elif isinstance(item, ToolCallItem):
                    part: dict[str, Any] = {"type": "dynamic-tool", "toolName": item.name} if pd.get("dynamic") else {"type": f"tool-{item.name}"}
                    part["toolCallId"] = item.id
                    part.update(_extras(pd))
                    if not pd.get("no_input"):
                        part["input"] = call_arguments(item, self.report, self.fmt, index)
                    part.setdefault("state", "input-available")
                    calls[item.id] = part
                    parts.append(part)
                elif isinstance(item, ToolResultItem):
                    call = calls.get(item.call_id)
                    if call is None:
                        parts.extend(self.unsupported(item, index))
                        continue
                    if item.is_error is True:
                        text = "".join(c.text for c in item.content if isinstance(c, TextItem))
                        call["errorText"] = text
                        if call.get("state") in (None, "input-available"):
                            call["state"] = "output-error"
                    else:
                        call["output"] = _output(item)
                        if call.get("state") in (None, "input-available"):
                            call["state"] = "output-available"
                elif isinstance(item, _MEDIA) and (media := _media(item)) is not None:
                    parts.append({"type": "file", "mediaType": media[1], "url": media[0], **_extras(pd)})
                elif isinstance(item, RawItem) and item.provider == self.fmt and isinstance(item.value, dict):
                    parts.append(copy.deepcopy(item.value))
                else:
                    parts.extend(self.unsupported(item, index))
                orphan_results = orphan_results and isinstance(item, ToolResultItem)
            if orphan_results and not parts:
                continue  # results that joined their calls in earlier messages
            if not own.pop("no_id", False) and "id" not in own:  # UIMessage.id is required: the message key, else a new one
                key = getattr(group[0], "message", U)
                own["id"] = key if isinstance(key, str) else f"msg-{self.start.item + start}"
            out.append({**own, "role": role, "parts": parts})
        return out


class _ModelWriter(_Writer):
    call_meta: dict[str, Any]

    def write(self) -> list[dict[str, Any]]:
        self.call_meta = {}
        self.provider_executed: set[str] = set()
        items = list(self.transcript.items)
        out: list[dict[str, Any]] = []
        for start, group in groups(items):
            first = pd_of(group[0], self.fmt)
            own = copy.deepcopy(_message_fields(group, self.fmt))
            role = own.pop("role", None)
            if role is None:
                role = next((getattr(it, "role") for it in group if isinstance(getattr(it, "role", U), str)), None)
                if role is None:
                    role = "tool" if all(isinstance(it, ToolResultItem) for it in group) else "assistant"
            if role == "developer":
                self.report.add("changed", "a ModelMessage has no developer role: written as system", index=start, item_type="text")
                role = "system"
            if first.get("string") and len(group) == 1 and isinstance(group[0], TextItem):
                out.append({"role": role, "content": group[0].text, **own})
                continue
            content: list[dict[str, Any]] = []
            results: list[dict[str, Any]] = []  # results inside an assistant message (a UIMessage's): a tool message after its calls
            for k, item in enumerate(group):
                index = start + k
                pd = self.pd(item)
                if results and not isinstance(item, ToolResultItem):
                    if content:
                        out.append({"role": role, "content": content, **own})
                    out.append({"role": "tool", "content": results})
                    content, results, own = [], [], {}
                if isinstance(item, TextItem) and pd.get("empty"):
                    continue
                if (said := self.said_part(item, index, pd)) is not None:
                    content.append(said)
                elif isinstance(item, ToolCallItem):
                    args = call_arguments(item, self.report, self.fmt, index)
                    content.append({"type": "tool-call", "toolCallId": item.id, "toolName": item.name, "input": args, **_extras(pd)})
                elif isinstance(item, ToolResultItem):
                    inline = role == "tool" or item.call_id in self.provider_executed  # a provider-executed call's result stays in the assistant message
                    (content if inline else results).append(self.result_part(item, pd))
                elif isinstance(item, _MEDIA) and (media := _media(item)) is not None:
                    form = pd.get("form", "data-url" if isinstance(item.source, Base64Source) else "url")
                    data = item.source.data if form == "base64" and isinstance(item.source, Base64Source) else media[0]
                    if pd.get("image_part") or (isinstance(item, ImageItem) and "form" not in pd):
                        part = {"type": "image", "image": data, **_extras(pd)}
                        if "mediaType" not in pd and media[1] != "image/*" and form == "base64":
                            part["mediaType"] = media[1]
                        content.append(part)
                    else:
                        content.append({"type": "file", "data": data, "mediaType": media[1], **_extras(pd)})
                elif isinstance(item, RawItem) and item.provider == self.fmt and isinstance(item.value, dict):
                    content.append(copy.deepcopy(item.value))
                else:
                    content.extend(self.unsupported(item, index))
            if role == "tool" and any(p.get("type") != "tool-result" for p in content):
                # a tool message holds only results: what else the group had goes in a user message after it
                rest = [p for p in content if p.get("type") != "tool-result"]
                out.append({"role": "tool", "content": [p for p in content if p.get("type") == "tool-result"], **own})
                out.append({"role": "user", "content": rest})
                self.report.add("changed", "a tool message holds only tool results: the rest was written as a user message", index=start)
                continue
            if content or not results:
                out.append({"role": role, "content": content, **own})
            if results:
                out.append({"role": "tool", "content": results})
        return out

    def pd(self, item: Any) -> dict[str, Any]:
        """This format's ``provider_data`` of an item, else what a UIMessage kept that a ModelMessage has
        too (``providerMetadata``/``callProviderMetadata`` are ``providerOptions`` here, as the SDK's
        ``convertToModelMessages`` writes them; so is ``providerExecuted: true``, whose call's result the SDK
        writes in the assistant message)."""
        mine = pd_of(item, self.fmt)
        if mine:
            if isinstance(item, ToolCallItem) and mine.get("providerExecuted") is True:
                self.provider_executed.add(item.id)
            return mine
        ui = pd_of(item, _vercel_ai.UI_FORMAT)
        meta = ui.get("callProviderMetadata", ui.get("providerMetadata"))
        if isinstance(item, ToolResultItem) and meta is None:
            meta = self.call_meta.get(item.call_id)
        if isinstance(item, ToolCallItem) and meta is not None:
            self.call_meta[item.id] = meta
        out: dict[str, Any] = {"providerOptions": copy.deepcopy(meta)} if meta is not None else {}
        if isinstance(item, ToolCallItem) and ui.get("providerExecuted") is True:
            out["providerExecuted"] = True
            self.provider_executed.add(item.id)
        return out

    def result_part(self, item: ToolResultItem, pd: dict[str, Any]) -> dict[str, Any]:
        otype = pd.get("output_type")
        if otype == "execution-denied" and isinstance(pd.get("output"), dict):
            output: dict[str, Any] = copy.deepcopy(pd["output"])
        else:
            content: list[Any] = list(item.content)
            structured = len(content) == 1 and isinstance(content[0], StructuredItem)
            if structured:
                output = {"type": "error-json" if item.is_error is True else "json", "value": copy.deepcopy(content[0].data)}
            elif all(isinstance(c, TextItem) for c in content):
                output = {"type": "error-text" if item.is_error is True else "text", "value": "".join(c.text for c in content)}
            else:
                value = []
                for c in content:
                    if isinstance(c, TextItem):
                        value.append({"type": "text", "text": c.text})
                    elif isinstance(c, _MEDIA) and isinstance(c.source, Base64Source):
                        value.append({"type": "media", "data": c.source.data, "mediaType": c.source.media_type})
                    else:
                        self.report.add("dropped", f"a {kind(c)} in a tool result has no ModelMessage output form", item_type="tool_result")
                output = {"type": "content", "value": value}
        part: dict[str, Any] = {"type": "tool-result", "toolCallId": item.call_id}
        if item.name is not U:
            part["toolName"] = item.name
        part["output"] = output
        part.update(_extras(pd))
        return part


def _write(transcript: Transcript, fmt: str, cls: type[_UiWriter] | type[_ModelWriter], policy: Policy, report: Report | None, start: Start) -> Conversion[Any]:
    report = report if report is not None else Report()
    since = len(report.entries)
    value = cls(transcript, fmt, policy, report, start).write()
    report_unkept(report, transcript, fmt)
    message = _vercel_ai._ui_message if fmt == _vercel_ai.UI_FORMAT else _vercel_ai._model_message
    report_round_trip(report, fmt, list(transcript.items), lambda: list(_vercel_ai._read(copy.deepcopy(value), fmt, message, start.message).transcript.items), since)
    return Conversion(value, report)


def write_ui(transcript: Transcript, *, policy: Policy = "error", report: Report | None = None, start: Start = START) -> Conversion[Any]:
    """``transcript`` -> a ``UIMessage[]`` (``[{"id", "role", "parts": [...]}, ...]``), with the report of what it does not keep.

    A message without an id of its own (no ``message`` key) gets ``msg-<index of its first item>``,
    counted from ``start.item`` (``start``: where the transcript begins in a longer conversation, see
    :class:`~interlingua.compat._store_writing.Start`).

    Raises:
        ConversionError: under policy ``error``, an item UIMessage has no form for (``error``, another
            format's ``raw``, a tool result whose call is not in the transcript).
    """
    return _write(transcript, _vercel_ai.UI_FORMAT, _UiWriter, policy, report, start)


def write_model(transcript: Transcript, *, policy: Policy = "error", report: Report | None = None, start: Start = START) -> Conversion[Any]:
    """``transcript`` -> a ``ModelMessage[]`` (``[{"role", "content"}, ...]``), with the report of what it does not keep.

    ``start``: where the transcript begins in a longer conversation (the round-trip check reads the
    messages back with their place keys counted from ``start.message``).

    Raises:
        ConversionError: under policy ``error``, an item ModelMessage has no form for (``error``, another format's ``raw``).
    """
    return _write(transcript, _vercel_ai.MODEL_FORMAT, _ModelWriter, policy, report, start)
