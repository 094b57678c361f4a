"""Ollama ``/api/chat`` messages <-> canonical items (OLL ``api/types.go`` ``Message``, ``ToolCall``).

Decoding one message (all items get the message key):

* ``system``/``user``: ``content`` -> ``text`` (when not empty), ``images`` -> ``image`` items with
  ``Base64Source`` (media type sniffed from the magic bytes, ``image/png`` when unknown).
* ``assistant``: ``thinking`` -> ``reasoning(text)`` (issuer-free: Ollama takes thinking back as text),
  then ``content`` -> ``text``, ``images``, then each ``tool_calls[k]`` -> ``tool_call``. ``arguments`` is an
  object; a string is parsed and kept raw when malformed. A call without ``id`` gets an id from the caller
  (request: ``ollama_m{i}_c{k}``) and ``origin {provider "ollama"}`` without ``item_id``, so the encoder
  sends no id back; a call with an id keeps it (and ``origin.item_id``). ``function.index`` is the position
  in the list and is not stored (a differing index is reported).
* ``tool``: -> ``tool_result`` with ``name = tool_name`` and ``content = [text]`` (empty content -> ``[]``);
  ``call_id`` is ``tool_call_id`` or, without it, the earliest unanswered id-less call of that name.
* Any other role, or a message whose fields do not have these shapes (e.g. a tool call without a name)
  -> ``raw`` (the whole message as received; sent back to Ollama only).
* Message fields besides these (a field added later) do not make the message raw: they go to the first
  item's ``provider_data["ollama"]`` and are written back onto the message that item lands in (Ollama
  only; other targets report them dropped).

Encoding groups items of one role and key into one message in the fixed field order thinking, content,
tool_calls; an item that would break that order starts a new message. Several texts in one message are
joined without separator (reported). Each tool result is its own ``tool`` message.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import msgspec

from ...codec import Item, UnknownItem
from ...errors import MalformedArgumentsError
from ...items import (
    ArtifactRefItem,
    AudioItem,
    VideoItem,
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
)
from ...mapping.cache_breakpoints import report_cache_breakpoints
from ...mapping.reasoning_text import reasoning_text
from ...mapping.arguments import tool_call_from_text
from ...mapping.extras import keep_fields, restore_fields, unknown_fields
from ...mapping.settings import own_provider_data
from ...mapping.report import Policy, Report
from ._common import NAME, jcopy, sniff_image_type, tag_of

UNSET = msgspec.UNSET

__all__ = ["MessageDecoder", "MessageEncoder"]

_KNOWN = {"role", "content", "images", "thinking", "tool_calls", "tool_name", "tool_call_id"}


def _call_ok(call: Any) -> bool:
    fn = call.get("function") if isinstance(call, Mapping) else None
    return isinstance(fn, Mapping) and isinstance(fn.get("name"), str) and bool(fn.get("name"))


@dataclass
class MessageDecoder:
    """Decodes Ollama messages.

    Attributes:
        report: Where changes are recorded.
        call_id: ``(wire_id or None, name, message_index, k) -> canonical id``.
        origin: Base origin of model-produced items (``None`` in request histories).
    """

    report: Report
    call_id: Callable[[str | None, str, int, int], str]
    origin: Origin | None = None
    unanswered: list[tuple[str, str]] = field(default_factory=list)

    def _origin(self, item_id: str | None = None) -> Any:
        if self.origin is None:
            return UNSET if item_id is None else Origin(provider=NAME, item_id=item_id)
        return self.origin if item_id is None else msgspec.structs.replace(self.origin, item_id=item_id)

    def decode(self, msg: Any, i: int, key: str, pointer: str) -> list[Item]:
        """One message -> items (see the module docstring)."""
        if not isinstance(msg, Mapping):
            return [RawItem(provider=NAME, value=jcopy(msg), message=key)]
        role = msg.get("role")
        content = msg.get("content")
        images = msg.get("images") or []
        calls = msg.get("tool_calls") or []
        if (
            role not in ("system", "user", "assistant", "tool")
            or not isinstance(content, (str, type(None)))
            or not isinstance(images, list)
            or not all(isinstance(d, str) for d in images)
            or not isinstance(calls, list)
            or not all(_call_ok(c) for c in calls)
        ):
            raw_role = role if role in ("system", "user", "assistant") else UNSET
            return [RawItem(provider=NAME, value=jcopy(dict(msg)), message=key, role=raw_role, origin=self._origin())]
        content = content or ""
        out: list[Item] = []
        if role == "tool":
            return self._keep([self._tool(msg, i, key, content, images)], msg, i, pointer)
        speaker = role
        if role == "assistant":
            thinking = msg.get("thinking")
            if isinstance(thinking, str) and thinking:
                out.append(ReasoningItem(text=thinking, message=key, origin=self._origin()))
        if content:
            out.append(TextItem(text=content, role=speaker, message=key, origin=self._origin()))
        for data in images:
            out.append(ImageItem(source=Base64Source(media_type=sniff_image_type(data), data=data), role=speaker, message=key, origin=self._origin()))
        if role == "assistant":
            for k, call in enumerate(calls):
                out.append(self._call(call, i, k, key, f"{pointer}/tool_calls/{k}"))
        elif msg.get("tool_calls"):
            self.report.add("dropped", f"tool_calls on a {role} message", index=i, pointer=f"{pointer}/tool_calls")
        if not out:
            self.report.add("dropped", f"empty {role} message", index=i, pointer=pointer)
        return self._keep(out, msg, i, pointer)

    def _keep(self, out: list[Item], msg: Mapping[str, Any], i: int, pointer: str) -> list[Item]:
        """Message fields the mapper does not model go to the first item's ``provider_data["ollama"]``
        (written back onto the message that item lands in, for Ollama only); with no item to hold
        them they are reported dropped."""
        extras = unknown_fields(msg, _KNOWN)
        if extras and out:
            out[0] = keep_fields(out[0], NAME, extras)
        else:
            for extra in sorted(extras):
                self.report.add("dropped", f"message field {extra!r} has no canonical form", index=i, pointer=f"{pointer}/{extra}")
        return out

    def _call(self, call: Any, i: int, k: int, key: str, pointer: str) -> Item:
        fn = call["function"]
        wire_id = call.get("id") if isinstance(call.get("id"), str) and call.get("id") else None
        name = fn["name"]
        if "index" in fn and fn["index"] != k:
            self.report.add("changed", f"tool call index {fn['index']!r} differs from its position {k}; position kept", index=i, pointer=pointer)
        cid = self.call_id(wire_id, name, i, k)
        if wire_id is None:
            self.unanswered.append((cid, name))
        origin = self._origin(wire_id) if wire_id is not None else (self.origin or Origin(provider=NAME))
        args = fn.get("arguments", {})
        if isinstance(args, str):
            return tool_call_from_text(cid, name, args, origin=origin, message=key)
        if not isinstance(args, Mapping):
            return tool_call_from_text(cid, name, msgspec.json.encode(args).decode(), origin=origin, message=key)
        return ToolCallItem(id=cid, name=name, arguments=jcopy(dict(args)), origin=origin, message=key)

    def _tool(self, msg: Mapping[str, Any], i: int, key: str, content: str, images: list[Any]) -> ToolResultItem:
        name = msg.get("tool_name") if isinstance(msg.get("tool_name"), str) else None
        wire_id = msg.get("tool_call_id") if isinstance(msg.get("tool_call_id"), str) and msg.get("tool_call_id") else None
        if wire_id is not None:
            call_id = wire_id
        else:
            match = next((n for n, (_, cname) in enumerate(self.unanswered) if name is None or cname == name), None)
            if match is not None:
                call_id = self.unanswered.pop(match)[0]
            else:
                call_id = f"ollama_m{i}_result"
                self.report.add("changed", f"tool message without tool_call_id and no unanswered call{' named ' + repr(name) if name else ''}; linked as {call_id!r}", index=i, item_type="tool_result")
        body: list[Any] = [TextItem(text=content)] if content else []
        body += [ImageItem(source=Base64Source(media_type=sniff_image_type(d), data=d)) for d in images]
        return ToolResultItem(call_id=call_id, content=body, name=name if name is not None else UNSET, message=key)


_STAGE = {"thinking": 0, "content": 1, "images": 1, "tool_calls": 2}


@dataclass
class MessageEncoder:
    """Encodes canonical items as Ollama messages (see the module docstring).

    Tool-call ids: a call decoded from Ollama without an id (``origin.provider == "ollama"``, no
    ``item_id``) is sent without one; other calls keep their id. A result carries ``tool_call_id`` exactly
    when its call carries an id (or its call is not in the transcript), and ``tool_name`` from the result
    or its call.
    """

    policy: Policy
    report: Report
    calls: dict[str, ToolCallItem] = field(default_factory=dict)
    messages: list[dict[str, Any]] = field(default_factory=list)
    dropped_calls: set[str] = field(default_factory=set)
    _keys: list[Any] = field(default_factory=list)
    _stage: list[int] = field(default_factory=list)
    _landed: dict[str, Any] | None = None  # the message the item being encoded went into

    @staticmethod
    def sends_id(call: ToolCallItem) -> bool:
        """Whether ``call`` goes to Ollama with an ``id``."""
        o = call.origin
        if o is not UNSET and o.provider == NAME:
            return o.item_id is not UNSET
        return True

    def index_calls(self, items: list[Any]) -> None:
        """Remember every tool call, so results find their name and id rule."""
        for it in items:
            if isinstance(it, ToolCallItem):
                self.calls.setdefault(it.id, it)

    def _target(self, role: str, key: Any, slot: str, idx: int | None = None) -> dict[str, Any]:
        """The message the ``slot`` content of item ``idx`` goes into (the current one or a new one);
        a join across ``message`` keys is reported with the item's index and the output message's."""
        self._landed = msg = self._target_message(role, key, slot, idx)
        return msg

    def _target_message(self, role: str, key: Any, slot: str, idx: int | None) -> dict[str, Any]:
        stage = _STAGE[slot]
        if self.messages:
            cur, ckey = self.messages[-1], self._keys[-1]
            same = key is UNSET or ckey is UNSET or ckey == key
            if role == "assistant" == cur["role"] and (not same or stage < self._stage[-1]) and self._turn_continues(cur, slot):
                self.report.add(
                    "changed",
                    f"assistant {slot} of message {key!r} joined to the assistant message with tool calls before it "
                    f"(message {ckey!r}, /messages/{len(self.messages) - 1})",
                    index=idx,
                    item_type="tool_call",
                )
                self._stage[-1] = max(stage, self._stage[-1])
                return cur
            if cur["role"] == role and role != "tool" and same and stage >= self._stage[-1]:
                self._stage[-1] = stage
                if ckey is UNSET:
                    self._keys[-1] = key
                return cur
        msg: dict[str, Any] = {"role": role, "content": ""}
        self.messages.append(msg)
        self._keys.append(key)
        self._stage.append(stage)
        return msg

    @staticmethod
    def _turn_continues(msg: dict[str, Any], slot: str) -> bool:
        """Whether assistant content for ``slot`` with another ``message`` key still belongs in ``msg``.

        The calls of one turn are one assistant message with every ``tool_calls`` entry, answered by
        the tool messages right after it (Ollama's chat API: ``message.tool_calls``; the model's chat
        template renders one assistant turn per message, like OpenAI Chat's rule), so whatever the
        assistant gives right after its calls (a flat source such as OpenAI Responses keys one message
        per call) joins them, and a call right after an assistant message holding only ``thinking``
        joins it (the thinking of that call).
        """
        if msg.get("tool_calls"):
            return True
        return slot == "tool_calls" and set(msg) <= {"role", "content", "thinking"} and not msg.get("content") and bool(msg.get("thinking"))

    def _text(self, role: str, key: Any, text: str, idx: int, item_type: str) -> None:
        msg = self._target(role, key, "content", idx)
        if msg["content"]:
            self.report.add("changed", "several texts in one message joined", index=idx, item_type=item_type)
        msg["content"] += text

    def add(self, idx: int, item: Any) -> None:
        """Encode one item: its own ``provider_data["ollama"]`` (message fields the decoder did not model)
        goes back onto the message it lands in; another provider's is reported dropped."""
        own: dict[str, Any] = {}
        if getattr(item, "provider_data", UNSET) is not UNSET:
            tag = tag_of(item) if not isinstance(item, UnknownItem) else item.type
            own = own_provider_data(item.provider_data, NAME, self.report, what=f"a {tag} item", index=idx, item_type=tag)
        report_cache_breakpoints(item, idx, self.report, why="Ollama has no prompt-cache breakpoint; it keeps its own cache of the prompt")
        self._landed = None
        self._add(idx, item)
        if own and self._landed is not None:
            restore_fields(self._landed, own)
        elif own:
            self.report.add("dropped", f"Ollama message fields {sorted(own)} of an item not sent", index=idx)

    def _add(self, idx: int, item: Any) -> None:
        key = getattr(item, "message", UNSET)
        policy, report = self.policy, self.report
        if isinstance(item, TextItem):
            role = {"developer": "system"}.get(item.role, item.role) if item.role is not UNSET else "user"
            if item.role == "developer":
                report.add("changed", "developer text sent as system", index=idx, item_type="text")
            if item.annotations is not UNSET and item.annotations:
                report.add("dropped", "text annotations have no Ollama equivalent", index=idx, item_type="text")
            if item.text == "":
                report.add("dropped", "empty text not sent", index=idx, item_type="text")
                return
            self._text(role, key, item.text, idx, "text")
        elif isinstance(item, ImageItem):
            role = item.role if item.role in ("user", "assistant", "system") else "system" if item.role == "developer" else "user"
            if not isinstance(item.source, Base64Source):
                report.unsupported(policy, f"Ollama takes base64 images only, not a {tag_of(item.source)} source", index=idx, item_type="image")
                return
            if item.detail is not UNSET:
                report.add("dropped", "image detail has no Ollama equivalent", index=idx, item_type="image")
            if item.role == "developer":
                report.add("changed", "developer image sent as system", index=idx, item_type="image")
            self._image(role, key, item.source, idx)
        elif isinstance(item, ReasoningItem):
            self._reasoning(idx, item, key)
        elif isinstance(item, ToolCallItem):
            self._call(idx, item, key)
        elif isinstance(item, ToolResultItem):
            self._result(idx, item, key)
        elif isinstance(item, StructuredItem):
            report.add("changed", "structured output sent as JSON text", index=idx, item_type="structured")
            self._text("assistant", key, msgspec.json.encode(item.data).decode(), idx, "structured")
        elif isinstance(item, RawItem):
            if item.provider != NAME:
                report.add("dropped", f"raw item of {item.provider} cannot be sent to Ollama", index=idx, item_type="raw")
                return
            if not isinstance(item.value, dict):
                report.add("dropped", f"raw Ollama item whose value is not a message object ({type(item.value).__name__})", index=idx, item_type="raw")
                return
            self.messages.append(jcopy(item.value))
            self._keys.append(key)
            self._stage.append(3)
        elif isinstance(item, ErrorItem):
            report.add("dropped", "error items are runtime records, not sent to a model", index=idx, item_type="error")
        elif isinstance(item, RefusalItem):
            for t in report.unsupported(policy, "Ollama has no refusal field", index=idx, item_type="refusal", marker=item.text):
                self._text("assistant", key, t.text, idx, "refusal")
        elif isinstance(item, (AudioItem, VideoItem, DocumentItem, ArtifactRefItem, HandoffCallItem, HandoffResultItem)):
            tag = tag_of(item)
            for t in report.unsupported(policy, f"Ollama cannot carry a {tag} item", index=idx, item_type=tag):
                self._text("assistant" if isinstance(item, HandoffCallItem) else "user", key, t.text, idx, tag)
        elif isinstance(item, UnknownItem):
            report.add("dropped", f"unknown item type {item.type!r} cannot be sent to Ollama", index=idx, item_type=item.type)
        else:  # pragma: no cover - the union is closed
            raise TypeError(f"not a canonical item: {type(item).__name__}")

    def _image(self, role: str, key: Any, src: Base64Source, idx: int) -> None:
        if sniff_image_type(src.data) != src.media_type:
            self.report.add("changed", f"image media type {src.media_type} is not sent (Ollama reads the bytes)", index=idx, item_type="image")
        msg = self._target(role, key, "images", idx)
        msg.setdefault("images", []).append(src.data)

    def _reasoning(self, idx: int, item: ReasoningItem, key: Any) -> None:
        if item.opaque is not UNSET:
            self.report.add("dropped", f"opaque {item.opaque.namespace} of {item.opaque.issuer} cannot be sent to Ollama", index=idx, item_type="reasoning")
        text = reasoning_text(item, self.report, index=idx, sent_as="thinking")
        if not text:
            if item.opaque is UNSET:
                self.report.add("dropped", "reasoning without text", index=idx, item_type="reasoning")
            return
        msg = self._target("assistant", key, "thinking", idx)
        if msg.get("thinking"):
            self.report.add("changed", "several reasoning texts in one message joined", index=idx, item_type="reasoning")
            msg["thinking"] += text
        else:
            msg["thinking"] = text

    def _call(self, idx: int, item: ToolCallItem, key: Any) -> None:
        if item.arguments is UNSET:
            reason = f"tool call {item.id!r} has malformed arguments ({item.arguments_error or 'no arguments object'}); Ollama needs an object"
            if self.policy == "error":
                raise MalformedArgumentsError(reason, index=idx, item_type="tool_call")
            self.report.add("dropped", reason, index=idx, item_type="tool_call")
            self.dropped_calls.add(item.id)
            return
        call: dict[str, Any] = {"function": {"name": item.name, "arguments": jcopy(item.arguments)}}
        if self.sends_id(item):
            call = {"id": item.id, **call}
        msg = self._target("assistant", key, "tool_calls", idx)
        msg.setdefault("tool_calls", []).append(call)

    def _result(self, idx: int, item: ToolResultItem, key: Any) -> None:
        if item.call_id in self.dropped_calls:
            # a result whose call was not sent would be an orphan
            self.report.add("dropped", f"result of the dropped tool call {item.call_id!r}", index=idx, item_type="tool_result")
            return
        call = self.calls.get(item.call_id)
        texts: list[str] = []
        images: list[str] = []
        for c in item.content:
            if getattr(c, "provider_data", UNSET) is not UNSET:
                own_provider_data(c.provider_data, NAME, self.report, what=f"a {tag_of(c)} in a tool result", index=idx, item_type="tool_result")
            if isinstance(c, TextItem):
                texts.append(c.text)
            elif isinstance(c, StructuredItem):
                self.report.add("changed", "structured tool output sent as JSON text", index=idx, item_type="tool_result")
                texts.append(msgspec.json.encode(c.data).decode())
            elif isinstance(c, ImageItem) and isinstance(c.source, Base64Source):
                images.append(c.source.data)
            else:
                tag = tag_of(c)
                texts.extend(t.text for t in self.report.unsupported(self.policy, f"a {tag} in a tool result cannot be sent to Ollama", index=idx, item_type="tool_result"))
        if len(texts) > 1:
            self.report.add("changed", "several tool result texts joined", index=idx, item_type="tool_result")
        if item.is_error is True:
            self.report.add("dropped", "Ollama has no tool error flag; the error text is sent as the result", index=idx, item_type="tool_result")
        msg: dict[str, Any] = {"role": "tool", "content": "".join(texts)}
        if images:
            msg["images"] = images
        name = item.name if item.name is not UNSET else (call.name if call is not None else None)
        if name:
            msg["tool_name"] = name
        if call is None or self.sends_id(call):
            msg["tool_call_id"] = item.call_id
        self.messages.append(msg)
        self._landed = msg
        self._keys.append(key)
        self._stage.append(3)
