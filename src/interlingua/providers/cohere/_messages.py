"""Cohere v2 ``messages`` <-> canonical items (Cohere API reference "Chat" (v2); cohere-python
``ChatMessageV2``: ``UserChatMessageV2``, ``AssistantChatMessageV2``, ``SystemChatMessageV2``,
``ToolChatMessageV2``).

Decoding one message (every item gets the message key):

* ``system``: ``content`` (a string, or ``text`` parts) -> ``text`` items with role ``system``.
* ``user``: ``content`` string -> ``text``; parts: ``text`` -> ``text``, ``image_url`` -> ``image``
  (a ``data:`` URL -> base64 source, any other URL -> URL source; ``detail`` kept).
* ``assistant``: ``thinking`` parts -> ``reasoning`` (plain text, no signature: Cohere takes its
  thinking back as text), ``tool_plan`` -> an assistant ``text`` marked ``provider_data.cohere.tool_plan``
  (the plan the model states before its calls; other targets see plain assistant text), ``text``
  parts -> ``text``, each ``tool_calls[k]`` -> ``tool_call`` (``function.arguments`` is a JSON string;
  malformed text is kept raw). ``citations`` -> annotations (kind ``citation``, ``start``/``end``/``text``)
  on the text they cite (``content_index``; ``type: "PLAN"`` cites the plan); ``sources`` and
  ``type`` stay in the annotation's ``provider_data``.
* ``tool``: -> ``tool_result`` for ``tool_call_id``; ``content`` string or ``text`` parts -> ``text``,
  ``document`` parts -> ``structured`` (the document's ``data``; its ``id`` in ``provider_data``).
* A field the mapper does not model on a part it models is kept in that item's ``provider_data``
  (ADR 0009). Any other role, or a message whose fields do not have these shapes, -> ``raw`` (sent
  back to Cohere only).

Encoding: consecutive items of one role and message key form one message; the calls of one
assistant turn and what follows them before the results are one assistant message (the results
must answer the message that holds their calls). The API takes ``content`` as a string or as parts:
a user, system or tool message holding one plain text is written as a string, assistant content
always as parts (as responses carry it); a round trip of the other spelling is equal up to that.
Each tool result is one ``tool`` message.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import msgspec

from ...codec import Item, UnknownItem
from ...errors import MalformedArgumentsError
from ...items import (
    Annotation,
    ArtifactRefItem,
    AudioItem,
    Base64Source,
    DocumentItem,
    ErrorItem,
    HandoffCallItem,
    HandoffResultItem,
    ImageItem,
    Origin,
    RawItem,
    ReasoningItem,
    RefusalItem,
    StructuredItem,
    TextItem,
    ToolCallItem,
    ToolResultItem,
    UrlSource,
    VideoItem,
)
from ...mapping.cache_breakpoints import report_cache_breakpoints
from ...mapping.reasoning_text import reasoning_text
from ...mapping.arguments import arguments_json, tool_call_from_text
from ...mapping.extras import as_provider_data, item_fields, restore_fields, unknown_fields
from ...mapping.report import Policy, Report
from ._common import NAME, jcopy

UNSET = msgspec.UNSET

__all__ = ["MessageDecoder", "MessageEncoder"]

_DATA_URL = re.compile(r"^data:([\w.+-]+/[\w.+-]+);base64,(.*)$", re.DOTALL)
_MESSAGE_KEYS = {
    "system": {"role", "content"},
    "user": {"role", "content"},
    "assistant": {"role", "content", "tool_plan", "tool_calls", "citations"},
    "tool": {"role", "content", "tool_call_id"},
}
_DETAILS = ("auto", "low", "high")


def _tag(item: Any) -> str:
    tag = item.type if isinstance(item, UnknownItem) else type(item).__struct_config__.tag
    return str(tag)


def _parts_ok(content: Any, kinds: tuple[str, ...]) -> bool:
    if isinstance(content, str) or content is None:
        return True
    return isinstance(content, list) and all(isinstance(p, Mapping) and p.get("type") in kinds and _part_ok(p) for p in content)


def _part_ok(p: Mapping[str, Any]) -> bool:
    t = p["type"]
    if t == "text":
        return isinstance(p.get("text"), str)
    if t == "thinking":
        return isinstance(p.get("thinking"), str)
    if t == "image_url":
        img = p.get("image_url")
        return isinstance(img, Mapping) and isinstance(img.get("url"), str)
    if t == "document":
        doc = p.get("document")
        return isinstance(doc, Mapping) and isinstance(doc.get("data"), Mapping) and isinstance(doc.get("id", ""), str)
    return False


def _call_ok(call: Any) -> bool:
    fn = call.get("function") if isinstance(call, Mapping) else None
    return (
        isinstance(call, Mapping)
        and isinstance(call.get("id"), str)  # "" is linked to its result by position (interlingua.mapping.empty_ids)
        and call.get("type", "function") == "function"
        and isinstance(fn, Mapping)
        and isinstance(fn.get("name"), str)
        and bool(fn["name"])
        and isinstance(fn.get("arguments", ""), str)
    )


def _citations_ok(citations: Any) -> bool:
    return citations is None or (isinstance(citations, list) and all(isinstance(c, Mapping) for c in citations))


@dataclass
class MessageDecoder:
    """Decodes Cohere v2 messages (see the module docstring).

    Attributes:
        report: Where changes are recorded.
        origin: Origin of model-produced items (``None`` in request histories).
    """

    report: Report
    origin: Origin | None = None
    names: dict[str, str] = field(default_factory=dict)

    def _o(self) -> Any:
        return self.origin if self.origin is not None else UNSET

    def decode(self, msg: Any, i: int, key: str, pointer: str) -> list[Item]:
        """One message -> items."""
        role = msg.get("role") if isinstance(msg, Mapping) else None
        if role not in _MESSAGE_KEYS or not self._shape_ok(msg, role):
            raw_role = role if role in ("system", "user", "assistant") else UNSET
            return [RawItem(provider=NAME, value=jcopy(msg), message=key, role=raw_role, origin=self._o())]
        for extra in sorted(set(msg) - _MESSAGE_KEYS[role]):
            self.report.add("dropped", f"message field {extra!r} has no canonical form", index=i, pointer=f"{pointer}/{extra}")
        if role == "tool":
            return [self._tool(msg, key)]
        if role == "assistant":
            return self._assistant(msg, key)
        return self._content(msg.get("content"), role, key)

    @staticmethod
    def _shape_ok(msg: Mapping[str, Any], role: str) -> bool:
        content = msg.get("content")
        if role == "system":
            return content is not None and _parts_ok(content, ("text",))
        if role == "user":
            return content is not None and _parts_ok(content, ("text", "image_url"))
        if role == "tool":
            return isinstance(msg.get("tool_call_id"), str) and content is not None and _parts_ok(content, ("text", "document"))
        calls = msg.get("tool_calls")
        return (
            _parts_ok(content, ("text", "thinking"))
            and isinstance(msg.get("tool_plan", ""), (str, type(None)))
            and (calls is None or (isinstance(calls, list) and all(_call_ok(c) for c in calls)))
            and _citations_ok(msg.get("citations"))
        )

    def _content(self, content: Any, role: Any, key: str) -> list[Item]:
        if isinstance(content, str):
            return [TextItem(text=content, role=role, message=key, origin=self._o())]
        out: list[Item] = []
        for part in content or ():
            extra = as_provider_data(NAME, unknown_fields(part, {"type", part["type"]}))
            if part["type"] == "text":
                out.append(TextItem(text=part["text"], role=role, message=key, origin=self._o(), provider_data=extra))
            elif part["type"] == "thinking":
                out.append(ReasoningItem(text=part["thinking"], message=key, origin=self._o(), provider_data=extra))
            else:
                out.append(self._image(part, role, key))
        return out

    def _image(self, part: Mapping[str, Any], role: Any, key: str) -> ImageItem:
        img = part["image_url"]
        url = img["url"]
        m = _DATA_URL.match(url)
        source: Any = Base64Source(media_type=m.group(1), data=m.group(2)) if m else UrlSource(url=url)
        detail = img.get("detail")
        extra = unknown_fields(img, {"url", "detail"} if detail in _DETAILS else {"url"})
        outer = unknown_fields(part, {"type", "image_url"})
        kept: dict[str, Any] = dict(outer)
        if extra:
            kept["image_url"] = extra
        return ImageItem(
            source=source,
            detail=detail if detail in _DETAILS else UNSET,
            role=role,
            message=key,
            origin=self._o(),
            provider_data=as_provider_data(NAME, kept),
        )

    def _assistant(self, msg: Mapping[str, Any], key: str) -> list[Item]:
        content = msg.get("content")
        parts: list[Item] = self._content(content, "assistant", key) if content is not None else []
        plan = msg.get("tool_plan")
        plan_item = TextItem(text=plan, role="assistant", message=key, origin=self._o(), provider_data={NAME: {"tool_plan": True}}) if isinstance(plan, str) and plan else None
        citations = msg.get("citations") or []
        if citations:
            parts, plan_item = self._cite(citations, parts, plan_item)
        reasoning: list[Item] = [p for p in parts if isinstance(p, ReasoningItem)]
        texts: list[Item] = [p for p in parts if not isinstance(p, ReasoningItem)]
        if reasoning and texts and parts.index(reasoning[-1]) > parts.index(texts[0]):
            reasoning, texts = [], list(parts)  # keep the wire order when thinking comes after text
        out: list[Item] = [*reasoning, *([plan_item] if plan_item else []), *texts]
        for k, call in enumerate(msg.get("tool_calls") or ()):
            fn = call["function"]
            origin = msgspec.structs.replace(self.origin, item_id=call["id"]) if self.origin is not None else UNSET
            item = tool_call_from_text(call["id"], fn["name"], fn.get("arguments", "") or "{}", origin=origin, message=key)
            extra = {**unknown_fields(call, {"id", "type", "function"}), **({"function": unknown_fields(fn, {"name", "arguments"})} if unknown_fields(fn, {"name", "arguments"}) else {})}
            if extra:
                item = msgspec.structs.replace(item, provider_data={NAME: extra})
            self.names[call["id"]] = fn["name"]
            out.append(item)
        if "content" in msg and content is not None and not parts and not isinstance(content, str):
            self.report.add("dropped", "empty assistant content list", item_type="text")
        return out

    def _cite(self, citations: list[Any], parts: list[Item], plan: TextItem | None) -> tuple[list[Item], TextItem | None]:
        """Attach each citation to the text it cites (an annotation); a citation with no text to hold it is reported."""
        notes: dict[int, list[Annotation]] = {}
        plan_notes: list[Annotation] = []
        for n, c in enumerate(citations):
            ci = c.get("content_index")
            extra = unknown_fields(c, {"start", "end", "text"})
            for name in ("start", "end"):
                if name in c and not (isinstance(c[name], int) and not isinstance(c[name], bool) and c[name] >= 0):
                    extra[name] = jcopy(c[name])
            if "text" in c and not isinstance(c["text"], str):
                extra["text"] = jcopy(c["text"])
            ann = Annotation(
                kind="citation",
                start_index=c["start"] if "start" not in extra and "start" in c else UNSET,
                end_index=c["end"] if "end" not in extra and "end" in c else UNSET,
                cited_text=c["text"] if "text" not in extra and "text" in c else UNSET,
                provider_data={NAME: extra} if extra else UNSET,
            )
            if c.get("type") == "PLAN" and plan is not None:
                plan_notes.append(ann)
                continue
            target = ci if isinstance(ci, int) and 0 <= ci < len(parts) and isinstance(parts[ci], TextItem) else next((j for j, p in enumerate(parts) if isinstance(p, TextItem)), None)
            if target is None:
                self.report.add("dropped", f"citation {n} cites no text of the message", item_type="text", pointer=f"/citations/{n}")
                continue
            notes.setdefault(target, []).append(ann)
        out: list[Item] = [msgspec.structs.replace(p, annotations=notes[j]) if j in notes and isinstance(p, TextItem) else p for j, p in enumerate(parts)]
        if plan is not None and plan_notes:
            plan = msgspec.structs.replace(plan, annotations=plan_notes)
        return out, plan

    def _tool(self, msg: Mapping[str, Any], key: str) -> ToolResultItem:
        content = msg["content"]
        body: list[Any] = []
        if isinstance(content, str):
            body.append(TextItem(text=content))
        else:
            for part in content:
                extra = unknown_fields(part, {"type", part["type"]})
                if part["type"] == "text":
                    body.append(TextItem(text=part["text"], provider_data=as_provider_data(NAME, extra)))
                else:
                    doc = part["document"]
                    kept = {**extra, **({"document": unknown_fields(doc, {"data"})} if unknown_fields(doc, {"data"}) else {})}
                    body.append(StructuredItem(data=jcopy(dict(doc["data"])), provider_data=as_provider_data(NAME, kept)))
        call_id = msg["tool_call_id"]
        name = self.names.get(call_id)
        return ToolResultItem(call_id=call_id, content=body, name=name if name else UNSET, message=key)


@dataclass
class MessageEncoder:
    """Encodes canonical items as Cohere v2 messages (see the module docstring)."""

    policy: Policy
    report: Report
    messages: list[dict[str, Any]] = field(default_factory=list)
    dropped_calls: set[str] = field(default_factory=set)
    _keys: list[Any] = field(default_factory=list)

    def _message(self, role: str, key: Any) -> dict[str, Any]:
        if self.messages:
            cur, ckey = self.messages[-1], self._keys[-1]
            same = key is UNSET or ckey is UNSET or ckey == key
            if cur["role"] == role and role != "tool" and "_raw" not in cur and (same or (role == "assistant" and cur.get("tool_calls"))):
                if ckey is UNSET:
                    self._keys[-1] = key
                return cur
        msg: dict[str, Any] = {"role": role}
        self.messages.append(msg)
        self._keys.append(key)
        return msg

    @staticmethod
    def _parts(msg: dict[str, Any]) -> list[Any]:
        content = msg.get("content")
        if isinstance(content, str):
            msg["content"] = [{"type": "text", "text": content}]
        return msg.setdefault("content", [])

    def _add_part(self, msg: dict[str, Any], part: dict[str, Any]) -> None:
        if set(part) == {"type", "text"} and part["type"] == "text" and "content" not in msg and msg["role"] != "assistant":
            msg["content"] = part["text"]  # one plain user/system text: string content (the API takes both forms)
            return
        self._parts(msg).append(part)

    def finish(self) -> list[dict[str, Any]]:
        """The messages, with citations indexed to their content parts."""
        out = []
        for msg in self.messages:
            if "_raw" in msg:
                out.append(msg["_raw"])
                continue
            cites = msg.pop("_citations", None)
            if cites:
                msg["citations"] = [self._citation(msg, where, ann, self.report) for where, ann in cites]
            out.append(msg)
        return out

    @staticmethod
    def _citation(msg: dict[str, Any], where: Any, ann: Annotation, report: Report) -> dict[str, Any]:
        value = ann.provider_data.get(NAME) if isinstance(ann.provider_data, Mapping) else None
        own = dict(value) if isinstance(value, Mapping) else {}
        if value is not None and not isinstance(value, Mapping):  # provider_data holds any JSON
            report.add("dropped", f"cohere provider data of a citation annotation is not an object ({type(value).__name__})")
        c: dict[str, Any] = {}
        for wire, attr in (("start", "start_index"), ("end", "end_index"), ("text", "cited_text")):
            value = getattr(ann, attr)
            if value is not UNSET:
                c[wire] = value
        content = msg.get("content")
        parts: list[Any] = content if isinstance(content, list) else []
        first = next((j for j, p in enumerate(parts) if p.get("type") == "text"), 0)
        if where != "plan" and "content_index" not in own and where != first:
            c["content_index"] = where  # without it the citation reads as the first text's
        return restore_fields(c, own)

    def add(self, idx: int, item: Any) -> None:
        """Encode one item (another provider's ``provider_data`` on it is reported dropped)."""
        key = getattr(item, "message", UNSET)
        policy, report = self.policy, self.report
        report_cache_breakpoints(item, idx, report, why="Cohere caches prompts on its own, with no breakpoint field")
        if isinstance(item, TextItem):
            self._text(idx, item, key)
        elif isinstance(item, ImageItem):
            self._image(idx, item, key)
        elif isinstance(item, ReasoningItem):
            self._reasoning(idx, item, key)
        elif isinstance(item, ToolCallItem):
            self._call(idx, item, key)
        elif isinstance(item, ToolResultItem):
            self._result(idx, item, key)
        elif isinstance(item, StructuredItem):
            report.add("changed", "structured output sent as JSON text", index=idx, item_type="structured")
            self._add_part(self._message("assistant", key), {"type": "text", "text": msgspec.json.encode(item.data).decode()})
        elif isinstance(item, RawItem):
            if item.provider != NAME:
                report.add("dropped", f"raw item of {item.provider} cannot be sent to Cohere", index=idx, item_type="raw")
                return
            if not isinstance(item.value, dict):
                report.add("dropped", f"raw Cohere item whose value is not a message object ({type(item.value).__name__})", index=idx, item_type="raw")
                return
            self.messages.append({"role": "raw", "_raw": jcopy(item.value)})
            self._keys.append(key)
        elif isinstance(item, ErrorItem):
            report.add("dropped", "error items are runtime records, not sent to a model", index=idx, item_type="error")
        elif isinstance(item, RefusalItem):
            for t in report.unsupported(policy, "Cohere has no refusal field", index=idx, item_type="refusal", marker=item.text):
                self._add_part(self._message("assistant", key), {"type": "text", "text": t.text})
        elif isinstance(item, (AudioItem, VideoItem, DocumentItem, ArtifactRefItem, HandoffCallItem, HandoffResultItem)):
            tag = _tag(item)
            for t in report.unsupported(policy, f"Cohere chat messages cannot carry a {tag} item", index=idx, item_type=tag):
                self._add_part(self._message("assistant" if isinstance(item, HandoffCallItem) else "user", key), {"type": "text", "text": t.text})
        elif isinstance(item, UnknownItem):
            report.add("dropped", f"unknown item type {item.type!r} cannot be sent to Cohere", index=idx, item_type=item.type)
        else:  # pragma: no cover - the union is closed
            raise TypeError(f"not a canonical item: {type(item).__name__}")

    def _text(self, idx: int, item: TextItem, key: Any) -> None:
        own = item_fields(item, NAME, self.report, index=idx)
        role = {"developer": "system"}.get(item.role, item.role) if item.role is not UNSET else "user"
        if item.role == "developer":
            self.report.add("changed", "developer text sent as system", index=idx, item_type="text")
        msg = self._message(role, key)
        if own.pop("tool_plan", None) is True and role == "assistant" and "tool_plan" not in msg:
            msg["tool_plan"] = item.text
            self._annotations(msg, "plan", item)
            return
        self._add_part(msg, restore_fields({"type": "text", "text": item.text}, own))
        where = len(msg["content"]) - 1 if isinstance(msg["content"], list) else 0
        self._annotations(msg, where, item)

    def _annotations(self, msg: dict[str, Any], where: Any, item: TextItem) -> None:
        if item.annotations is UNSET or not item.annotations:
            return
        for ann in item.annotations:
            if ann.kind != "citation" or msg["role"] != "assistant":
                self.report.add("dropped", f"a {ann.kind} annotation has no Cohere form (citations on assistant text only)", item_type="text")
                continue
            msg.setdefault("_citations", []).append((where, ann))

    def _image(self, idx: int, item: ImageItem, key: Any) -> None:
        own = item_fields(item, NAME, self.report, index=idx)
        if item.role not in (UNSET, "user"):
            self.report.unsupported(self.policy, f"Cohere takes images in user messages only, not {item.role}", index=idx, item_type="image")
            return
        src = item.source
        if isinstance(src, Base64Source):
            url = f"data:{src.media_type};base64,{src.data}"
        elif isinstance(src, UrlSource):
            url = src.url
        else:
            for t in self.report.unsupported(self.policy, f"Cohere takes images as URLs or data URLs, not a {_tag(src)} source", index=idx, item_type="image"):
                self._add_part(self._message("user", key), {"type": "text", "text": t.text})
            return
        image_url: dict[str, Any] = {"url": url}
        if item.detail is not UNSET:
            if item.detail in _DETAILS:
                image_url["detail"] = item.detail
            else:
                self.report.add("changed", f"image detail {item.detail!r} is not Cohere's (auto, low, high); left out", index=idx, item_type="image")
        restore_fields(image_url, own.pop("image_url", {}))
        self._parts(self._message("user", key)).append(restore_fields({"type": "image_url", "image_url": image_url}, own))

    def _reasoning(self, idx: int, item: ReasoningItem, key: Any) -> None:
        own = item_fields(item, NAME, self.report, index=idx)
        if item.opaque is not UNSET:
            self.report.add("dropped", f"opaque {item.opaque.namespace} of {item.opaque.issuer} cannot be sent to Cohere", index=idx, item_type="reasoning")
        text = reasoning_text(item, self.report, index=idx, sent_as="thinking")
        if not text:
            if item.opaque is UNSET:
                self.report.add("dropped", "reasoning without text", index=idx, item_type="reasoning")
            return
        self._parts(self._message("assistant", key)).append(restore_fields({"type": "thinking", "thinking": text}, own))

    def _call(self, idx: int, item: ToolCallItem, key: Any) -> None:
        own = item_fields(item, NAME, self.report, index=idx)
        args = arguments_json(item, policy=self.policy, report=self.report, index=idx)
        if args is None:
            self.dropped_calls.add(item.id)
            return
        fn = restore_fields({"name": item.name, "arguments": args}, own.pop("function", {}))
        call = restore_fields({"id": item.id, "type": "function", "function": fn}, own)
        msg = self._message("assistant", key)
        msg.setdefault("tool_calls", []).append(call)

    def _result(self, idx: int, item: ToolResultItem, key: Any) -> None:
        if item.call_id in self.dropped_calls:
            self.report.add("dropped", f"result of the dropped tool call {item.call_id!r}", index=idx, item_type="tool_result")
            return
        parts: list[dict[str, Any]] = []
        for c in item.content:
            own = item_fields(c, NAME, self.report, index=idx, what=f"a {_tag(c)} in a tool result")
            if isinstance(c, TextItem):
                parts.append(restore_fields({"type": "text", "text": c.text}, own))
            elif isinstance(c, StructuredItem) and isinstance(c.data, dict):
                doc = restore_fields({"data": jcopy(c.data)}, own.pop("document", {}))
                parts.append(restore_fields({"type": "document", "document": doc}, own))
            elif isinstance(c, StructuredItem):
                self.report.add("changed", "structured tool output that is not an object sent as JSON text", index=idx, item_type="tool_result")
                parts.append({"type": "text", "text": msgspec.json.encode(c.data).decode()})
            else:
                parts.extend(
                    {"type": "text", "text": t.text}
                    for t in self.report.unsupported(self.policy, f"a {_tag(c)} in a tool result cannot be sent to Cohere", index=idx, item_type="tool_result")
                )
        if item.is_error is True:
            self.report.add("dropped", "Cohere has no tool error flag; the error text is sent as the result", index=idx, item_type="tool_result")
        content: Any = parts[0]["text"] if len(parts) == 1 and set(parts[0]) == {"type", "text"} else parts
        self.messages.append({"role": "tool", "tool_call_id": item.call_id, "content": content})
        self._keys.append(key)
