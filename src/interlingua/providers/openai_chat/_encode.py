"""Canonical items -> OpenAI Chat messages (requests and response bodies).

Turn shape (the providers' API references and hazards 2-5): consecutive items sharing a ``message``
key become one message; items without a key join the previous message of the same speaker; each
tool result is its own ``role:"tool"`` message, so parallel calls become one assistant message
with several ``tool_calls`` followed by one tool message per result. Whatever the source's keys,
assistant items right after an assistant message with ``tool_calls`` join it (OpenAI refuses
anything but its tool messages next), and reasoning alone joins the call after it (reported
``changed``). Tool messages carry text only. Reasoning is written only in the dialect that accepts it.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import msgspec

from ...codec import Item, UnknownItem
from ...items import (
    ArtifactRefItem,
    AudioItem,
    VideoItem,
    Base64Source,
    DocumentItem,
    ErrorItem,
    FileSource,
    HandoffCallItem,
    HandoffResultItem,
    ImageItem,
    RawItem,
    ReasoningItem,
    RefusalItem,
    StructuredItem,
    TextItem,
    ToolCallItem,
    ToolResultItem,
    UrlSource,
)
from ...mapping.reasoning_text import summary_left_out
from ...mapping.extras import item_fields, restore_fields
from ...mapping.arguments import arguments_json
from ...mapping.ids import IdMap
from ...mapping.opaque import replayable
from ...mapping.report import Policy, Report
from ...mapping.extras import merge_own
from ._common import (
    ARGUMENTS_ABSENT_KEY,
    CACHE_CONTROL_KEY,
    HINT_KEYS,
    NAME,
    OPENROUTER_ISSUER,
    OPENROUTER_NAMESPACE,
    REASONING_FIELDS_KEY,
    REQUEST_FIELDS_KEY,
    WIRE_ID_KEY,
    Dialect,
    data_url,
)
from ._dialects import DIALECT_RULES

__all__ = ["MessageEncoder", "raw_kind"]

U = msgspec.UNSET
_CONTENT_CLASSES = (TextItem, ImageItem, AudioItem, VideoItem, DocumentItem, ArtifactRefItem)
_ASSISTANT_CLASSES = (ToolCallItem, ReasoningItem, RefusalItem, StructuredItem)
AUDIO_FORMATS = {"audio/wav": "wav", "audio/x-wav": "wav", "audio/wave": "wav", "audio/mpeg": "mp3", "audio/mp3": "mp3"}
"""Audio media type -> ``input_audio.format`` (the two formats Chat Completions takes; Mistral reads them too)."""


def merge_own_part(part: dict[str, Any], item: Any, name: str, report: Report, *, index: int | None, item_type: str) -> dict[str, Any]:
    """:func:`merge_own` without this mapper's hint keys (``HINT_KEYS``: not wire fields)."""
    return merge_own(part, item, name, report, index=index, item_type=item_type, skip=HINT_KEYS)


def _tag(obj: Any) -> str:
    """The ``type`` tag of a tagged struct (item or source)."""
    return str(type(obj).__struct_config__.tag)


def raw_kind(value: Any) -> str:
    """What an ``openai-chat`` raw item holds.

    Returns:
        ``message`` (a whole message: has ``role``), ``tool_call`` (a ``tool_calls[]`` entry:
        has ``id`` and ``type``), ``part`` (a content part: has ``type``) or ``fields``
        (message-level fields such as ``name`` or ``audio``, merged into their message).
    """
    if not isinstance(value, dict):
        return "invalid"
    if "role" in value:
        return "message"
    if "type" in value and "id" in value:
        return "tool_call"
    if "type" in value:
        return "part"
    return "fields"


@dataclass
class _Group:
    role: str
    key: Any
    items: list[tuple[int, Any]] = field(default_factory=list)


class MessageEncoder:
    """Encodes canonical items into Chat messages for one conversion.

    Args:
        dialect: Which endpoint the body is for (decides reasoning fields).
        policy: What to do with content the target cannot carry.
        report: Collects every loss or change.
        ids: Tool-call id map (max 40 characters on OpenAI Chat).
        model: Target model (opaque state bound to another model is left out).
        response: Encode a response body (string content, annotations kept) instead of a request.
        same_host: The request is for the model the transcript's settings name (the host it was read
            from): fields kept from that host's wire (``HINT_KEYS``) are written back as read.
    """

    def __init__(
        self, *, dialect: Dialect, policy: Policy, report: Report, ids: IdMap, model: str | None, response: bool = False, same_host: bool = False
    ) -> None:
        self.dialect = dialect
        # A request for the model the transcript was read with: the wire as read goes back (the hints
        # of HINT_KEYS); for another model (another host, perhaps OpenAI itself) the dialect decides.
        self.wire_back = response or same_host
        self.policy = policy
        self.report = report
        self.ids = ids
        self.model = model
        self.response = response
        self._calls: set[str] = set()
        self._dropped_calls: set[str] = set()

    # ------------------------------------------------------------------ grouping

    def _speaker(self, index: int, item: Any) -> str | None:
        if isinstance(item, _CONTENT_CLASSES):
            if item.role is U:
                self.report.add("changed", "content item without a role sent as user content", index=index, item_type=_tag(item))
                return "user"
            return item.role
        if isinstance(item, _ASSISTANT_CLASSES):
            return "assistant"
        if isinstance(item, ToolResultItem):
            return "tool"
        if isinstance(item, RawItem):
            kind = raw_kind(item.value)
            if kind == "message":
                return "raw-message"
            if kind == "tool_call":
                return "assistant"
            if kind == "part":
                return item.role if item.role is not U else "user"
            if kind == "fields":
                return "attach"
        return None

    def _expand(self, items: list[Item]) -> list[tuple[int, Any]]:
        """Leave out what OpenAI Chat cannot carry (reported), keeping each item's index."""
        out: list[tuple[int, Any]] = []
        for i, item in enumerate(items):
            if isinstance(item, ErrorItem):
                self.report.add("dropped", "error items record failures and are not sent to a model", index=i, item_type="error")
            elif isinstance(item, RawItem) and item.provider != NAME:
                self.report.add("dropped", f"raw item of {item.provider} cannot be sent to {NAME}", index=i, item_type="raw")
            elif isinstance(item, RawItem) and raw_kind(item.value) == "invalid":
                self.report.add("dropped", "raw item value is not a JSON object", index=i, item_type="raw")
            elif isinstance(item, (HandoffCallItem, HandoffResultItem, UnknownItem)):
                kind = item.type if isinstance(item, UnknownItem) else _tag(item)
                role = "assistant" if isinstance(item, HandoffCallItem) else "user"
                key = item.message if not isinstance(item, UnknownItem) else U
                for marker in self.report.unsupported(self.policy, f"{kind} items have no {NAME} form", index=i, item_type=str(kind)):
                    out.append((i, msgspec.structs.replace(marker, role=role, message=key)))
            else:
                out.append((i, item))
        return out

    def _groups(self, items: list[Item]) -> list[_Group]:
        groups: list[_Group] = []
        for i, item in self._expand(items):
            spk = self._speaker(i, item)
            key = getattr(item, "message", U)
            last = groups[-1] if groups else None
            if spk == "tool" or spk == "raw-message":
                groups.append(_Group(spk, key, [(i, item)]))
            elif spk == "attach":
                if last is not None and last.role != "raw-message" and (key is U or key == last.key):
                    last.items.append((i, item))
                elif item.role is not U:
                    groups.append(_Group(item.role, key, [(i, item)]))
                else:
                    self.report.add("dropped", "raw message fields belong to no message", index=i, item_type="raw")
            elif spk is not None:
                if last is not None and last.role == spk and last.key == key:
                    last.items.append((i, item))
                elif last is not None and spk == "assistant" and last.role == "assistant" and self._turn_continues(last, item):
                    self.report.add(
                        "changed",
                        f"assistant items of message {key!r} joined to the assistant message {last.key!r} before them "
                        "(OpenAI Chat: an assistant message with tool_calls must be followed by its tool messages; "
                        "reasoning belongs to the message it precedes)",
                        index=i,
                        item_type=_tag(item),
                    )
                    last.items.append((i, item))
                else:
                    groups.append(_Group(spk, key, [(i, item)]))
        return groups

    @staticmethod
    def _turn_continues(group: _Group, item: Any) -> bool:
        """Whether the assistant ``item``, whatever its ``message`` key, belongs in ``group``'s message.

        OpenAI Chat answers an assistant message holding ``tool_calls`` only with the tool messages
        right after it ("An assistant message with 'tool_calls' must be followed by tool messages
        responding to each 'tool_call_id'", the API's 400), so the consecutive calls of one turn (which a
        flat source such as OpenAI Responses keys one message per call) are one message, and so is
        anything the assistant says right after them. Reasoning alone followed by a tool call is that
        call's reasoning: DeepSeek reads ``reasoning_content`` back only on the message with the calls
        (api-docs.deepseek.com, thinking mode tool calls).
        """
        def is_call(it: Any) -> bool:
            return isinstance(it, ToolCallItem) or (isinstance(it, RawItem) and raw_kind(it.value) == "tool_call")

        kinds = [it for _, it in group.items]
        if any(is_call(it) for it in kinds):
            return True
        return is_call(item) and all(isinstance(it, ReasoningItem) for it in kinds)

    # ------------------------------------------------------------------ parts

    def _text_part(self, index: int, item: TextItem) -> dict[str, Any]:
        if item.annotations is not U and item.annotations and not self.response:
            self.report.add("dropped", "text annotations are not sent back in a request", index=index, item_type="text")
        return self.cache(index, item, {"type": "text", "text": item.text})

    def cache(self, index: int, item: Any, part: dict[str, Any] | None) -> dict[str, Any]:
        """Write ``item``'s prompt-cache breakpoint on ``part`` as ``cache_control`` (openrouter dialect).

        OpenRouter takes Anthropic-style ``cache_control:{type:"ephemeral", ttl?}`` on content parts
        (openrouter.ai/docs prompt caching); OpenAI, DeepSeek and Ollama cache prompts automatically
        or not at all, so there (and with no part to carry it) the breakpoint is left out and reported.
        """
        bp = getattr(item, "cache_breakpoint", U)
        if bp is U:
            return part if part is not None else {}
        if part is not None and (self.dialect == "openrouter" or (self.wire_back and _hinted(item, CACHE_CONTROL_KEY))) and not self.response:
            cc: dict[str, Any] = {"type": "ephemeral"}
            if bp.ttl is not U:
                cc["ttl"] = bp.ttl
            part["cache_control"] = cc
            return part
        why = "no content part carries it" if part is None else f"the {self.dialect} dialect takes no cache_control"
        self.report.add("dropped", f"prompt-cache breakpoint left out: {why}", index=index, item_type=_tag(item))
        return part if part is not None else {}

    def _unsupported(self, index: int, item_type: str, reason: str) -> list[dict[str, Any]]:
        return [{"type": "text", "text": m.text} for m in self.report.unsupported(self.policy, reason, index=index, item_type=item_type)]

    def _media_part(self, index: int, item: Any, role: str) -> list[dict[str, Any]]:
        """Image, audio, document and artifact items -> user content parts."""
        if isinstance(item, ImageItem):
            src = item.source
            if isinstance(src, (Base64Source, UrlSource)):
                body: dict[str, Any] = {"url": data_url(src) if isinstance(src, Base64Source) else src.url}
                if item.detail is not U:
                    if item.detail in ("auto", "low", "high"):
                        body["detail"] = item.detail
                    else:
                        self.report.add("dropped", f"image detail {item.detail!r} is not an OpenAI Chat value; left out", index=index, item_type="image")
                return [{"type": "image_url", "image_url": body}]
            return self._unsupported(index, "image", f"image {_tag(src)} sources cannot be sent as image_url")
        if isinstance(item, AudioItem):
            src = item.source
            fmt = item.format if item.format is not U else None
            if isinstance(src, Base64Source):
                fmt = fmt or AUDIO_FORMATS.get(src.media_type)
                if fmt in ("wav", "mp3"):
                    if item.transcript is not U:
                        self.report.add("dropped", "input_audio has no transcript field; the audio transcript is left out", index=index, item_type="audio")
                    return [{"type": "input_audio", "input_audio": {"data": src.data, "format": fmt}}]
                return self._unsupported(index, "audio", f"input_audio takes wav or mp3, not {fmt or src.media_type!r}")
            return self._unsupported(index, "audio", "input_audio takes base64 data only")
        if isinstance(item, VideoItem):
            return self._unsupported(index, "video", "OpenAI Chat has no video input (no video content part)")
        if isinstance(item, DocumentItem):
            src = item.source
            body = {}
            if isinstance(src, Base64Source):
                body["file_data"] = data_url(src)
            elif isinstance(src, FileSource) and src.provider in (U, "openai"):
                body["file_id"] = src.file_id
            else:
                return self._unsupported(index, "document", f"document {_tag(src)} sources from {getattr(src, 'provider', U) or 'elsewhere'} cannot be sent as a file part")
            if item.filename is not U:
                body["filename"] = item.filename
            self._document_notes(index, item)
            return [{"type": "file", "file": body}]
        return self._unsupported(index, "artifact_ref", "artifact references have no OpenAI Chat form")

    def _document_notes(self, index: int, item: DocumentItem) -> None:
        """Report document fields a ``file`` part cannot carry (it has ``file_data``, ``file_id``, ``filename`` only)."""
        for name in ("title", "context", "citations"):
            if getattr(item, name) is not U:
                self.report.add("dropped", f"a file part has no document {name}; left out", index=index, item_type="document")
        src = item.source
        if item.media_type is not U and not (isinstance(src, Base64Source) and src.media_type == item.media_type):
            self.report.add("dropped", "a file part carries a media type only inside base64 data; document media_type left out", index=index, item_type="document")

    def _content(self, parts: list[dict[str, Any]], where: list[int]) -> str | list[dict[str, Any]]:
        """Content parts -> the ``content`` value; ``where[n]`` is the item index of ``parts[n]``.

        Empty text parts beside other parts are left out (empty content is a cross-provider hazard,
        the providers' API references); each one left out is reported. All-empty: the first stays.
        """
        if len(parts) == 1 and parts[0].get("type") == "text" and set(parts[0]) == {"type", "text"}:
            return parts[0]["text"]
        if len(parts) > 1:
            empty = [p.get("type") == "text" and p.get("text") == "" and "cache_control" not in p for p in parts]
            keep = [n for n in range(len(parts)) if not empty[n]] or [0]
            for n in range(len(parts)):
                if n not in keep:
                    self.report.add("dropped", "an empty text part beside other content is left out", index=where[n], item_type="text")
            parts = [parts[n] for n in keep]
            if len(parts) == 1 and parts[0].get("type") == "text" and set(parts[0]) == {"type", "text"}:
                return parts[0]["text"]
        return parts

    # ------------------------------------------------------------------ messages

    def messages(self, items: list[Item]) -> list[dict[str, Any]]:
        """Transcript items -> the ``messages`` list of a request."""
        ids: list[str] = []
        for item in items:
            if isinstance(item, ToolCallItem):
                ids.append(item.id)
            elif isinstance(item, RawItem) and raw_kind(item.value) == "tool_call" and isinstance(item.value.get("id"), str):
                ids.append(item.value["id"])
        self.ids.reserve(ids)
        out: list[tuple[int, dict[str, Any]]] = []
        for group in self._groups(items):
            msg = self._group(group)
            if msg is not None:
                out.append((group.items[0][0], msg))
        return self._results_follow_calls(out)

    def _results_follow_calls(self, out: list[tuple[int, dict[str, Any]]]) -> list[dict[str, Any]]:
        """Move tool messages up to directly follow the assistant message that made their calls.

        OpenAI Chat refuses any other message between an assistant ``tool_calls`` message and
        the tool messages answering it; each move is reported.
        """
        result: list[dict[str, Any]] = []
        moved: set[int] = set()
        for pos, (_, msg) in enumerate(out):
            if pos in moved:
                continue
            result.append(msg)
            calls = msg.get("tool_calls") if msg.get("role") == "assistant" else None
            if not isinstance(calls, list):
                continue
            rank = {c.get("id"): n for n, c in enumerate(calls) if isinstance(c, dict)}
            wanted = set(rank)
            gap = False
            answers: list[tuple[int, dict[str, Any]]] = []
            for later in range(pos + 1, len(out)):
                index, other = out[later]
                if later in moved:
                    continue
                if other.get("role") == "tool" and other.get("tool_call_id") in wanted:
                    if gap:
                        self.report.add("changed", f"tool result {other['tool_call_id']!r} moved up to follow its call", index=index, item_type="tool_result")
                    answers.append((index, other))
                    moved.add(later)
                    wanted.discard(other["tool_call_id"])
                    if not wanted:
                        break
                elif other.get("role") == "assistant" and isinstance(other.get("tool_calls"), list):
                    break  # results after the next call turn stay where they are
                else:
                    gap = True
            if gap:  # results gathered from further down go in the order of their calls
                ordered = sorted(answers, key=lambda a: rank[a[1]["tool_call_id"]])
                for (index, other), was in zip(ordered, answers):
                    if other is not was[1]:
                        self.report.add("changed", f"tool result {other['tool_call_id']!r} moved to follow the order of its call", index=index, item_type="tool_result")
                answers = ordered
            result.extend(other for _, other in answers)
        return result

    def _fields(self, msg: dict[str, Any], index: int, item: RawItem) -> None:
        for k, v in item.value.items():
            if k in ("reasoning_content", "reasoning") and not self.wire_back and k != ("reasoning_content" if self.dialect == "deepseek" else "reasoning" if self.dialect in ("openrouter", "ollama") else None):
                # an empty reasoning field kept from the host's wire (see MessageDecoder.assistant): not for another model
                self.report.add("dropped", f"empty {k} of the request it was read from is written back only for that model", index=index, item_type="reasoning")
            elif k in msg:
                self.report.add("dropped", f"raw message field {k!r} clashes with a field already written", index=index, item_type="raw")
            else:
                msg[k] = copy.deepcopy(v)

    def _group(self, group: _Group) -> dict[str, Any] | None:
        if group.role == "raw-message":
            return copy.deepcopy(group.items[0][1].value)
        if group.role == "tool":
            return self._tool(group)
        if group.role == "assistant":
            return self._assistant(group)
        msg: dict[str, Any] = {"role": group.role}
        parts: list[dict[str, Any]] = []
        where: list[int] = []
        fields: list[tuple[int, RawItem]] = []
        for i, item in group.items:
            if isinstance(item, TextItem):
                parts.append(merge_own_part(self._text_part(i, item), item, NAME, self.report, index=i, item_type="text"))
            elif isinstance(item, RawItem):
                if raw_kind(item.value) == "fields":
                    fields.append((i, item))
                else:
                    parts.append(copy.deepcopy(item.value))
            elif group.role in ("system", "developer"):
                parts.extend(self._unsupported(i, _tag(item), f"{group.role} messages take text parts only"))
            else:
                media = self._media_part(i, item, group.role)
                merge_own_part(media[0] if len(media) == 1 and media[0].get("type") != "text" else {}, item, NAME, self.report, index=i, item_type=_tag(item))
                if len(media) == 1 and media[0].get("type") != "text":
                    self.cache(i, item, media[0])
                elif getattr(item, "cache_breakpoint", U) is not U:
                    self.cache(i, item, None)
                parts.extend(media)
            where.extend([i] * (len(parts) - len(where)))
        if not parts and not fields:
            return None
        msg["content"] = self._content(parts, where) if parts else ""
        for i, item in fields:
            self._fields(msg, i, item)
        return msg

    def _tool(self, group: _Group) -> dict[str, Any] | None:
        index, result = group.items[0]
        if result.call_id in self._dropped_calls:
            self.report.add("dropped", f"tool result for the dropped call {result.call_id!r}", index=index, item_type="tool_result")
            return None
        if self.ids.get(result.call_id, index=index) not in self._calls:
            markers = self.report.unsupported(self.policy, f"tool result {result.call_id!r} answers no earlier tool call", index=index, item_type="tool_result")
            return {"role": "user", "content": markers[0].text} if markers else None
        parts: list[dict[str, Any]] = []
        for item in result.content:
            if isinstance(item, TextItem):
                parts.append(merge_own_part(self.cache(index, item, {"type": "text", "text": item.text}), item, NAME, self.report, index=index, item_type="text"))
            elif isinstance(item, StructuredItem):
                self.report.add("changed", "structured tool output sent as JSON text", index=index, item_type="structured")
                parts.append({"type": "text", "text": msgspec.json.encode(item.data).decode()})
            else:
                kind = _tag(item)
                parts.extend(self._unsupported(index, kind, f"tool messages carry text parts only; {kind} content cannot go in a tool message"))
        if result.is_error is True:
            self.report.add("dropped", "OpenAI Chat tool messages have no error flag; is_error left out", index=index, item_type="tool_result")
        if result.cache_breakpoint is not U:
            self.cache(index, result, parts[-1] if parts else None)
        msg: dict[str, Any] = {"role": "tool", "tool_call_id": self.ids.get(result.call_id, index=index)}
        if parts and all(p.get("type") == "text" and p.get("text") == "" and "cache_control" not in p for p in parts):
            # tool content "" reads back as a result with no content
            self.report.add("dropped", "empty tool result text is sent as empty content", index=index, item_type="text")
            parts = []
        msg["content"] = self._content(parts, [index] * len(parts)) if parts else ""
        for i, item in group.items[1:]:
            self._fields(msg, i, item)
        return msg

    # ------------------------------------------------------------------ assistant

    def _reasoning(self, msg: dict[str, Any], reasoning: list[tuple[int, ReasoningItem]], has_calls: bool) -> None:
        """Write reasoning in the dialect's fields, or leave it out and report it."""
        texts: list[str] = []
        details: list[Any] = []
        own_fields: dict[str, list[str]] = {}  # wire field -> texts, for reasoning read from that field
        for i, item in reasoning:
            wire = _reasoning_fields(item, self.response) if self.wire_back else []
            if item.opaque is not U:
                ok, why = replayable(item.opaque, OPENROUTER_ISSUER, self.model, model_bound=True)
                replay = self.dialect == "openrouter" or "reasoning_details" in wire
                if replay and ok and item.opaque.namespace == OPENROUTER_NAMESPACE and isinstance(item.opaque.value, list):
                    details.extend(copy.deepcopy(item.opaque.value))
                else:
                    reason = why if replay and why else f"opaque {item.opaque.namespace} of {item.opaque.issuer} cannot be sent in the {self.dialect} dialect"
                    self.report.add("dropped", reason, index=i, item_type="reasoning")
            if item.text is U or not item.text:
                if item.opaque is U:
                    self.report.add("dropped", "reasoning without text has no OpenAI Chat form", index=i, item_type="reasoning")
                continue
            text_fields = [f for f in wire if f in ("reasoning_content", "reasoning")]
            if text_fields:
                # read from these fields of an OpenAI-compatible host: written back to them in every dialect
                for f in text_fields:
                    own_fields.setdefault(f, []).append(item.text)
                self._summary_left_out(i, item)
                continue
            rules = DIALECT_RULES[self.dialect]
            if rules.reasoning_field is None and (self.dialect == "openai" or not self.response):
                what = "OpenAI Chat accepts" if self.dialect == "openai" else f"the {self.dialect} dialect takes"
                self.report.add("dropped", f"{what} no reasoning input", index=i, item_type="reasoning")
            elif rules.reasoning_with_calls_only and not has_calls and not self.response:
                self.report.add("dropped", "DeepSeek reads reasoning_content back only on assistant turns with tool calls", index=i, item_type="reasoning")
            else:
                texts.append(item.text)
                self._summary_left_out(i, item)
        if texts:
            field_name = DIALECT_RULES[self.dialect].reasoning_field or "reasoning"
            own_fields.setdefault(field_name, [])[:0] = texts
        for field_name, values in own_fields.items():
            msg[field_name] = "\n\n".join(values)
        if details:
            msg["reasoning_details"] = details

    def _summary_left_out(self, index: int, item: ReasoningItem) -> None:
        """Report the summary of a reasoning item whose text is written (a Chat host takes the text only)."""
        if summary_left_out(item, item.text if item.text is not U else None):
            self.report.add("dropped", "reasoning summary left out (the reasoning text is sent)", index=index, item_type="reasoning")

    def _tool_call(self, index: int, item: Any) -> dict[str, Any] | None:
        if isinstance(item, RawItem):
            entry = copy.deepcopy(item.value)
            entry["id"] = self.ids.get(entry["id"], index=index) if isinstance(entry["id"], str) else entry["id"]
            self._calls.add(entry["id"])
            return entry
        args = arguments_json(item, policy=self.policy, report=self.report, index=index)
        if args is None:
            self._dropped_calls.add(item.id)
            return None
        self.cache(index, item, None)  # a tool_calls entry is no content part: reported when it has a breakpoint
        extra = item_fields(item, NAME, self.report, index=index, what=f"tool call {item.name!r}")
        wire_id = extra.pop(WIRE_ID_KEY, None) if self.wire_back else None
        extra.pop(WIRE_ID_KEY, None)
        if isinstance(wire_id, str) and wire_id and wire_id == item.id:
            call_id = self.ids.keep(item.id)  # the host's own id (longer than OpenAI's limit) goes back to it
        else:
            call_id = self.ids.get(item.id, index=index)
        self._calls.add(call_id)
        entry = {"id": call_id, "type": "function", "function": {"name": item.name, "arguments": args}}
        if wire_id == "" and self.response:
            entry["id"] = ""  # a compatible host's empty id, in its own response body
        request_fields = extra.pop(REQUEST_FIELDS_KEY, None)
        if not self.wire_back and isinstance(request_fields, dict) and request_fields:
            # read from another model's request (Mistral ``index``): not for this one
            self.report.add(
                "dropped",
                f"tool call {item.name!r}: fields {', '.join(sorted(request_fields))} of the request it was read from are written back only for that model",
                index=index,
                item_type="tool_call",
            )
            request_fields = None
        if isinstance(request_fields, dict):
            extra = {**request_fields, **extra}
        request_fn = request_fields.get("function") if isinstance(request_fields, dict) else None
        absent_back = self.response or (isinstance(request_fn, dict) and request_fn.get(ARGUMENTS_ABSENT_KEY) is True)
        fn_value = extra.get("function")
        fn_fields: dict[str, Any] = fn_value if isinstance(fn_value, dict) else {}
        if fn_fields.pop(ARGUMENTS_ABSENT_KEY, None) is True and absent_back and item.arguments == {} and args in ("{}", ""):
            del entry["function"]["arguments"]  # the call had no arguments key (a request needs one otherwise)
        if not fn_fields:
            extra.pop("function", None)
        request_keys = set(request_fields) if isinstance(request_fields, dict) else set()
        response_only = {k: v for k, v in extra.items() if k not in request_keys}
        if self.dialect == "mistral" and not self.response and set(response_only) == {"index"}:
            response_only = {}  # Mistral's request ToolCall has ``index`` too (mistralai ``ToolCall.index``)
        if response_only and not self.response:
            # ChatCompletionMessageToolCallParam is {id, type, function{name, arguments}}: a response's
            # extra fields (``index``, Snowflake ``custom``) go back into a response body only.
            self.report.add(
                "dropped",
                f"tool call {item.name!r}: response fields {', '.join(sorted(response_only))} are not part of a request's tool call",
                index=index,
                item_type="tool_call",
            )
            extra = {k: v for k, v in extra.items() if k in request_keys}
        restore_fields(entry["function"], extra.pop("function", None) or {})
        return restore_fields(entry, extra)

    def _assistant(self, group: _Group) -> dict[str, Any] | None:
        msg: dict[str, Any] = {"role": "assistant"}
        entries: list[tuple[str, Any]] = []  # ("text", TextItem) | ("refusal", str) | ("part", dict)
        calls: list[dict[str, Any]] = []
        reasoning: list[tuple[int, ReasoningItem]] = []
        fields: list[tuple[int, RawItem]] = []
        where: list[int] = []  # item index of each entry
        for i, item in group.items:
            if isinstance(item, TextItem):
                if item.annotations is not U and item.annotations and not self.response:
                    self.report.add("dropped", "text annotations are not sent back in a request", index=i, item_type="text")
                if self.response and item.cache_breakpoint is not U:
                    self.report.add("dropped", "prompt-cache breakpoint left out: a response message's content is a string, no part carries it", index=i, item_type="text")
                entries.append(("text", item))
            elif isinstance(item, RefusalItem):
                entries.append(("refusal", item.text))
            elif isinstance(item, ReasoningItem) and _thinking_part(item) is not None:
                entries.append(("thinking", _thinking_part(item)))
            elif isinstance(item, ReasoningItem):
                reasoning.append((i, item))
            elif isinstance(item, StructuredItem):
                self.report.add("changed", "structured output sent as JSON text", index=i, item_type="structured")
                entries.append(("text", TextItem(text=msgspec.json.encode(item.data).decode())))
            elif isinstance(item, (ToolCallItem, RawItem)) and (isinstance(item, ToolCallItem) or raw_kind(item.value) == "tool_call"):
                call = self._tool_call(i, item)
                if call is not None:
                    calls.append(call)
            elif isinstance(item, RawItem) and raw_kind(item.value) == "part":
                if self.response:
                    self.report.add("dropped", "a response message holds no content parts", index=i, item_type="raw")
                else:
                    entries.append(("part", copy.deepcopy(item.value)))
            elif isinstance(item, RawItem):
                fields.append((i, item))
            else:
                kind = _tag(item)
                for p in self._unsupported(i, kind, f"assistant messages cannot carry {kind} content"):
                    entries.append(("text", TextItem(text=p["text"])))
            where.extend([i] * (len(entries) - len(where)))
        self._reasoning(msg, reasoning, bool(calls))
        entries, where = self._drop_empty_texts(msg, entries, where, bool(calls or fields))
        if self.response:
            self._response_content(msg, entries)
        else:
            self._request_content(msg, entries, where)
        if calls:
            msg["tool_calls"] = calls
        for i, item in fields:
            self._fields(msg, i, item)
        if set(msg) == {"role"}:
            return None
        if "content" not in msg and "tool_calls" not in msg and not self.response:
            msg["content"] = ""  # reasoning or fields alone: content is required without tool_calls
        return msg

    def _drop_empty_texts(self, msg: dict[str, Any], entries: list[tuple[str, Any]], where: list[int], more: bool) -> tuple[list[tuple[str, Any]], list[int]]:
        """Leave out (and report) empty texts of an assistant message that carries anything else.

        Empty text next to other content is no content (the providers' API references hazard 5): the decoder
        reads it so, so it could not come back. ``more``: the message has tool calls or raw fields.
        """
        empty = [k == "text" and not value.text and value.annotations is U for k, value in entries]
        if not any(empty) or not (more or len(msg) > 1 or not all(empty)):
            return entries, where
        for n, is_empty in enumerate(empty):
            if is_empty:
                self.report.add("dropped", "an empty text beside other assistant content is left out", index=where[n], item_type="text")
        return [e for e, x in zip(entries, empty) if not x], [w for w, x in zip(where, empty) if not x]

    def _request_content(self, msg: dict[str, Any], entries: list[tuple[str, Any]], where: list[int]) -> None:
        refusals = [e for e in entries if e[0] == "refusal"]
        others = [e for e in entries if e[0] != "refusal"]
        simple_refusal = (
            len(refusals) == 1 and refusals[0][1] != "" and entries[-1][0] == "refusal" and len(others) <= 1
            and all(e[0] == "text" and e[1].cache_breakpoint is U for e in others)
        )
        if simple_refusal:
            if others:
                msg["content"] = others[0][1].text
            msg["refusal"] = refusals[0][1]
            return
        parts: list[dict[str, Any]] = []
        for n, (kind, value) in enumerate(entries):
            if kind == "text":
                parts.append(self.cache(where[n], value, {"type": "text", "text": value.text}))
            elif kind == "refusal":
                parts.append({"type": "refusal", "refusal": value})
            else:
                parts.append(value)
        if parts:
            msg["content"] = self._content(parts, where)

    def _response_content(self, msg: dict[str, Any], entries: list[tuple[str, Any]]) -> None:
        if any(k == "thinking" for k, _ in entries):  # Mistral: a list of thinking and text chunks
            msg["content"] = [v if k == "thinking" else {"type": "text", "text": v.text} if k == "text" else {"type": "refusal", "refusal": v} for k, v in entries]
            return
        text: list[str] = []
        annotations: list[dict[str, Any]] = []
        offset = 0
        texts = [v for k, v in entries if k == "text"]
        if len(texts) > 1:
            self.report.add("changed", f"{len(texts)} text items joined into one response content string", item_type="text")
        for item in texts:
            for ann in item.annotations if item.annotations is not U else []:
                wire = _annotation_to_wire(ann, offset, item.text, self.report)
                if wire is not None:
                    annotations.append(wire)
            text.append(item.text)
            offset += len(item.text)
        refusals = [v for k, v in entries if k == "refusal"]
        msg["content"] = "".join(text) if texts else None
        msg["refusal"] = "".join(refusals) if refusals else None
        if annotations:
            msg["annotations"] = annotations


def _hinted(item: Any, key: str) -> bool:
    """Whether ``item.provider_data["openai-chat"]`` holds the hint ``key``."""
    own = item.provider_data.get(NAME) if isinstance(getattr(item, "provider_data", None), dict) else None
    return isinstance(own, dict) and own.get(key) is True


def _reasoning_fields(item: ReasoningItem, response: bool) -> list[str]:
    """The message fields a reasoning item was read from (``REASONING_FIELDS_KEY``), when they go back
    into this body: read from a request, into any body; read from a response, into a response body
    only. ``[]`` otherwise, and for reasoning of another source."""
    own = item.provider_data.get(NAME) if isinstance(item.provider_data, dict) else None
    if not isinstance(own, dict):
        return []
    request = own.get(REQUEST_FIELDS_KEY)
    fields = request.get(REASONING_FIELDS_KEY) if isinstance(request, dict) else None
    if fields is None and response:
        fields = own.get(REASONING_FIELDS_KEY)
    return [f for f in fields if f in ("reasoning_content", "reasoning", "reasoning_details")] if isinstance(fields, list) else []


def _thinking_part(item: ReasoningItem) -> dict[str, Any] | None:
    """A reasoning item read from a Mistral ``thinking`` content chunk -> that chunk again (see
    ``MessageDecoder._thinking``), ``None`` for any other reasoning item."""
    own = item.provider_data.get(NAME) if item.provider_data is not U else None
    if not isinstance(own, dict) or not isinstance(own.get("content_part"), dict) or item.text is U:
        return None
    part = copy.deepcopy(own["content_part"])
    chunks = own.get("thinking")
    joined = "".join(c.get("text", "") for c in chunks if isinstance(c, dict)) if isinstance(chunks, list) else None
    part["thinking"] = copy.deepcopy(chunks) if joined == item.text else [{"type": "text", "text": item.text}]
    part["type"] = "thinking"
    return part


_URL_KINDS = ("url_citation", "web_search_result_location")
_URL_CITATION_FIELDS = ("end_index", "start_index", "title", "url")


def _annotation_to_wire(ann: Any, offset: int, text: str, report: Report) -> dict[str, Any] | None:
    """:class:`Annotation` -> ``{type:"url_citation", url_citation:{end_index, start_index, title, url}}``
    (indices shifted by ``offset``), or ``None`` (reported).

    ``ChatCompletionMessage.annotations`` holds only ``Annotation`` (OAI ``chat_completion_message.py``):
    ``type`` ``url_citation`` with all four fields ``Required``. A Chat annotation of another type kept
    whole in ``provider_data`` goes back as it was; a URL citation from another provider (Anthropic
    ``web_search_result_location``) becomes ``url_citation``, one with no span covers its whole text and
    one with no title gets ``""`` (reported as changed); other kinds, and ``provider_data`` keys of
    another provider's annotation, are dropped (reported).
    """
    pdata = ann.provider_data if ann.provider_data is not U else {}
    if ann.kind != "url_citation" and pdata.get("type") == ann.kind and isinstance(pdata.get(ann.kind), dict):
        return copy.deepcopy(pdata)  # a Chat annotation of another type, as received
    if ann.kind not in _URL_KINDS or ann.url is U:
        report.add("dropped", f"annotation {ann.kind!r} has no Chat Completions form", item_type="text")
        return None
    if ann.kind != "url_citation":
        report.add("changed", f"{ann.kind} annotation written as url_citation", item_type="text")
    body: dict[str, Any] = {}
    for name in _URL_CITATION_FIELDS:
        value = getattr(ann, name)
        if value is not U:
            body[name] = value + offset if name.endswith("_index") else value
    if "start_index" not in body or "end_index" not in body:
        report.add("changed", "url citation with no span written over its whole text", item_type="text")
        body["start_index"], body["end_index"] = offset, offset + len(text)
    if "title" not in body:
        report.add("changed", "url citation with no title written with title ''", item_type="text")
        body["title"] = ""
    if ann.kind == "url_citation":
        for k, v in pdata.items():  # a dialect's own fields (OpenRouter ``content``), as received
            body.setdefault(k, copy.deepcopy(v))
    elif pdata:
        report.add("dropped", f"{ann.kind} fields {sorted(pdata)} have no url_citation field", item_type="text")
    return {"type": "url_citation", "url_citation": body}
