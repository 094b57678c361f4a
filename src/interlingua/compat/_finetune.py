"""Fine-tuning dataset records: ``openai-finetune``, ``sharegpt``, ``llamafactory``, ``hf-messages``.

One record (a JSONL line, or an entry of a JSON list) is one conversation.

* ``openai-finetune`` -- OpenAI chat fine-tuning lines (platform.openai.com/docs/guides/supervised-fine-tuning,
  "chat" format; the fine-tuning API reference ``FineTuneChatRequestInput``): ``{"messages": [...], "tools"?,
  "parallel_tool_calls"?, "functions"?}``; messages are OpenAI Chat messages (read by the ``openai-chat``
  mapper) and an assistant message may carry ``weight`` (0 or 1), kept in ``provider_data["openai-finetune"]``
  of that message's first item.
* ``sharegpt`` -- ``{"conversations": [{"from", "value"}], "system"?, "tools"?, ...}`` as FastChat, Glaive
  and LLaMA-Factory (``data/README.md``, "sharegpt" format) write it: ``from`` ``human``/``user`` -> user
  text, ``gpt``/``assistant`` -> assistant text, ``system`` -> system text, ``function_call`` -> tool calls
  (``value``: JSON ``{"name", "arguments"}`` or a list of them), ``observation``/``tool`` -> the results of
  those calls, in order; ``tools`` (a JSON string of function schemas) -> the transcript's tools.
  ShareGPT calls have no ids: each gets ``call_<message>_<n>`` (reported).
* ``llamafactory`` -- LLaMA-Factory v1 typed content (``data/v1_*_demo.jsonl``): ``{"messages": [{"role",
  "content": [{"type": "text"|"reasoning"|"tool_call"|"image_url"|"video_url"|"audio_url", "value"}],
  "loss_weight"?}], "tools"?}``; ``role: "tool"`` messages are the results of the pending calls.
* ``hf-messages`` -- Hugging Face / LLaMA-Factory multimodal ``messages`` records (``data/mllm_demo.json``):
  ``{"messages": [{"role", "content": str}], "images": [...], "videos"?: [...], "audios"?: [...]}``; each
  ``<image>``/``<video>``/``<audio>`` placeholder in a content string becomes the next file of that list as a
  media item, in place.

Every other top-level field of a record (``id``, ...) goes in the transcript's ``metadata[FORMAT]``.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any

import msgspec

from ..codec import SCHEMA_VERSION, Item
from ..errors import MappingError
from ..items import AudioItem, ImageItem, ReasoningItem, TextItem, ToolDefinition, ToolResultItem, Transcript, UrlSource, VideoItem
from ..mapping import Report
from ..mapping.arguments import tool_call_from_text
from ..mapping.wire import a_json_type
from ._base import Migrated, keep_on_message, via_mapper, with_provider_data
from ._schema_types import json_schema_types

__all__ = ["HF", "LLAMAFACTORY", "OPENAI_FINETUNE", "SHAREGPT", "read_hf_messages", "read_llamafactory", "read_openai_finetune", "read_sharegpt", "tools_from_text"]

OPENAI_FINETUNE = "openai-finetune"
SHAREGPT = "sharegpt"
LLAMAFACTORY = "llamafactory"
HF = "hf-messages"
U = msgspec.UNSET

SHAREGPT_FROM = frozenset({"human", "user", "gpt", "assistant", "system", "function_call", "observation", "tool", "function"})
_ROLE = {"human": "user", "user": "user", "gpt": "assistant", "assistant": "assistant", "system": "system"}
_MEDIA_KEYS = {"image": "images", "video": "videos", "audio": "audios"}
_PLACEHOLDER = re.compile(r"<(image|video|audio)>")
_TYPED = frozenset({"text", "reasoning", "tool_call", "image_url", "video_url", "audio_url"})


def _fail(fmt: str, pointer: str, what: str) -> MappingError:
    return MappingError(f"{fmt}: {pointer}: {what}")


_set_pd = with_provider_data


def tools_from_text(value: Any, fmt: str, pointer: str, report: Report | None = None) -> tuple[list[ToolDefinition], str]:
    """A ``tools`` field (a JSON string, or already a list) -> tool definitions and the form they came in
    (``flat``: ``{"name", "description", "parameters"}``; ``openai``: ``{"type": "function", "function": {...}}``;
    a trailing ``-list`` when the field was a list rather than a string).

    Python type names in ``parameters`` (``"dict"``, ``"str"``, ...) become the JSON Schema types they
    mean, and a ``required`` list beside ``parameters`` goes into it (:mod:`._schema_types`); each change
    is a ``changed`` entry of ``report``.

    Raises:
        MappingError: not JSON, or not a list of function schemas.
    """
    form = ""
    if isinstance(value, str):
        if not value.strip():
            return [], "empty"
        try:
            value = msgspec.json.decode(value)
        except msgspec.DecodeError as exc:
            raise _fail(fmt, pointer, f"'tools' is not JSON ({exc})") from exc
    else:
        form = "-list"
    if not isinstance(value, list):
        raise _fail(fmt, pointer, f"'tools' is a list of function schemas, got {a_json_type(value)}")
    out: list[ToolDefinition] = []
    kinds = set()
    for k, t in enumerate(value):
        fn = t.get("function") if isinstance(t, Mapping) and t.get("type") == "function" else t
        if not isinstance(fn, Mapping) or not isinstance(fn.get("name"), str) or not fn["name"]:
            raise _fail(fmt, f"{pointer}/{k}", "a tool is a function schema with a 'name'")
        kinds.add("openai" if fn is not t else "flat")
        params = fn.get("parameters")
        if isinstance(params, dict):
            params, changes = json_schema_types(params)
            ptr = f"{pointer}/{k}" + ("/function" if fn is not t else "") + "/parameters"
            if isinstance(fn.get("required"), list) and "required" not in params:
                params["required"] = copy.deepcopy(fn["required"])
                changes.append("/required: moved in from beside 'parameters'")
            if changes and report is not None:
                report.add("changed", f"tool {fn['name']!r}: Python type names read as JSON Schema ({'; '.join(f'{ptr}{c}' for c in changes)})", pointer=ptr)
        out.append(ToolDefinition(
            name=fn["name"],
            description=fn["description"] if isinstance(fn.get("description"), str) else U,
            parameters=copy.deepcopy(params) if isinstance(params, dict) else U,
        ))
    return out, (kinds.pop() if len(kinds) == 1 else "flat") + form


def _calls_from_text(value: Any, fmt: str, pointer: str, key: str, start: int) -> list[Any]:
    """A ``function_call``/``tool_call`` value (JSON ``{"name", "arguments"}`` or a list) -> tool call items."""
    try:
        parsed = msgspec.json.decode(value) if isinstance(value, str) else value
    except msgspec.DecodeError as exc:
        raise _fail(fmt, pointer, f"a function call is JSON {{'name', 'arguments'}}: {exc}") from exc
    entries = parsed if isinstance(parsed, list) else [parsed]
    calls = []
    for n, entry in enumerate(entries):
        if not isinstance(entry, Mapping) or not isinstance(entry.get("name"), str):
            raise _fail(fmt, pointer, "a function call is JSON {'name', 'arguments'}")
        args = entry.get("arguments", {})
        text = args if isinstance(args, str) else msgspec.json.encode(args).decode()
        call = tool_call_from_text(f"call_{key}_{start + n}", entry["name"], text, message=key)
        calls.append(_set_pd(call, fmt, arguments_form="string" if isinstance(args, str) else "object", list=isinstance(parsed, list)))
    return calls


def _media(kind: str, path: Any, fmt: str, pointer: str, **fields: Any) -> Item:
    if not isinstance(path, str) or not path:
        raise _fail(fmt, pointer, f"a {kind} is a non-empty path or URL string, got {a_json_type(path)}")
    cls: Any = {"image": ImageItem, "video": VideoItem, "audio": AudioItem}[kind]
    return cls(source=UrlSource(url=path), **fields)


class _Placeholders:
    """The ``images``/``videos``/``audios`` lists of a record, consumed in order by ``<image>`` placeholders."""

    def __init__(self, record: Mapping[str, Any], fmt: str) -> None:
        self.fmt = fmt
        self.lists: dict[str, list[Any]] = {}
        self.used: dict[str, int] = {}
        for kind, name in _MEDIA_KEYS.items():
            value = record.get(name)
            if value is None:
                continue
            if not isinstance(value, list):
                raise _fail(fmt, f"/{name}", f"a list of {kind} paths, got {a_json_type(value)}")
            self.lists[kind] = value
            self.used[kind] = 0

    def split(self, text: str, role: Any, key: str, pointer: str) -> list[Item]:
        out: list[Item] = []
        pos = 0
        for m in _PLACEHOLDER.finditer(text):
            kind = m.group(1)
            if kind not in self.lists:
                continue  # a literal "<image>" in a record without images stays text
            if m.start() > pos:
                out.append(TextItem(text=text[pos : m.start()], role=role, message=key))
            n = self.used[kind]
            if n >= len(self.lists[kind]):
                raise _fail(self.fmt, pointer, f"<{kind}> placeholder number {n + 1} but {_MEDIA_KEYS[kind]} has {len(self.lists[kind])}")
            out.append(_media(kind, self.lists[kind][n], self.fmt, f"/{_MEDIA_KEYS[kind]}/{n}", role=role, message=key))
            self.used[kind] = n + 1
            pos = m.end()
        if pos < len(text) or not out:
            out.append(TextItem(text=text[pos:], role=role, message=key))
        return out

    def check_all_used(self) -> None:
        for kind, values in self.lists.items():
            if self.used[kind] != len(values):
                raise _fail(self.fmt, f"/{_MEDIA_KEYS[kind]}", f"{len(values)} {kind}s but {self.used[kind]} <{kind}> placeholders")


def _record(obj: Any, fmt: str, key: str) -> Mapping[str, Any]:
    if not isinstance(obj, Mapping):
        raise MappingError(f"{fmt}: expected a record object with {key!r}, got {a_json_type(obj)}")
    if not isinstance(obj.get(key), list):
        raise _fail(fmt, f"/{key}", f"a list, got {a_json_type(obj.get(key))}")
    return obj


def _finish(items: list[Item], record: Mapping[str, Any], fmt: str, used: tuple[str, ...], report: Report, tools: list[ToolDefinition] | None = None, tools_form: str = "") -> Migrated:
    rest = {k: copy.deepcopy(v) for k, v in record.items() if k not in used}
    if tools_form:
        rest["tools_form"] = tools_form
    return Migrated(
        Transcript(schema_version=SCHEMA_VERSION, items=items, tools=tools if tools else U, metadata={fmt: rest} if rest else U),  # type: ignore[arg-type]
        report,
        fmt,
    )


class _Pending:
    """Tool calls waiting for their results (ShareGPT observations and LLaMA-Factory tool messages)."""

    def __init__(self) -> None:
        self.calls: list[Any] = []
        self.answered = False

    def add(self, calls: list[Any]) -> None:
        """The calls of an assistant turn. Calls of an earlier turn that results already followed are
        never answered by a later turn's results (they stay unanswered: the integrity rules report them)."""
        if self.answered:
            self.calls = []
            self.answered = False
        self.calls.extend(calls)

    def result(self, text: str, key: str, fmt: str, pointer: str, report: Report, index: int) -> Item:
        if not self.calls:
            report.add("changed", "a tool result with no pending call: kept as user text", index=index, pointer=pointer)
            return _set_pd(TextItem(text=text, role="user", message=key), fmt, orphan_result=True)
        self.answered = True
        call = self.calls.pop(0)
        return ToolResultItem(call_id=call.id, name=call.name, content=[TextItem(text=text)] if text else [], message=key)

    def results(self, text: str, key: str, fmt: str, pointer: str, report: Report, index: int) -> list[Item]:
        """One tool message's text: a JSON list with one element per pending call (LLaMA-Factory writes the
        results of parallel calls so) gives each call its own result, in order; else one result."""
        if len(self.calls) > 1 and text.lstrip().startswith("["):
            try:
                values = msgspec.json.decode(text)
            except msgspec.DecodeError:
                values = None
            if isinstance(values, list) and len(values) == len(self.calls):
                out = [self.result(v if isinstance(v, str) else msgspec.json.encode(v).decode(), key, fmt, pointer, report, index) for v in values]
                keep_on_message(out, fmt, report, joined_results=text)
                report.add("changed", f"one tool message held the results of {len(values)} parallel calls as a JSON list: one result each", index=index, pointer=pointer)
                return out
        return [self.result(text, key, fmt, pointer, report, index)]


def read_sharegpt(obj: Any) -> Migrated:
    """A ShareGPT record -> :class:`Migrated`.

    Raises:
        MappingError: not a ``{"conversations": [{"from", "value"}]}`` record (the message names the JSON pointer).
    """
    return _read_sharegpt(obj)


def _read_sharegpt(obj: Any, first: int = 0) -> Migrated:
    """:func:`read_sharegpt` of a record whose first turn is turn ``first`` of a longer conversation
    (the turns' place keys ``t<i>``, the call ids ``call_t<i>_<n>`` and the pointers count from there)."""
    record = _record(obj, SHAREGPT, "conversations")
    report = Report()
    items: list[Item] = []
    media = _Placeholders(record, SHAREGPT)
    tools: list[ToolDefinition] = []
    form = ""
    if "tools" in record:
        tools, form = tools_from_text(record["tools"], SHAREGPT, "/tools", report)
    if isinstance(record.get("system"), str):
        items.append(_set_pd(TextItem(text=record["system"], role="system", message="system"), SHAREGPT, top_system=True))
    pending = _Pending()
    generated = 0
    for i, turn in enumerate(record["conversations"], first):
        ptr = f"/conversations/{i}"
        if not isinstance(turn, Mapping) or not isinstance(turn.get("from"), str) or not isinstance(turn.get("value"), str):
            raise _fail(SHAREGPT, ptr, "a turn is {'from': str, 'value': str}")
        source, value, key = turn["from"], turn["value"], f"t{i}"
        extra = {k: copy.deepcopy(v) for k, v in turn.items() if k not in ("from", "value")}
        if source in _ROLE:
            role = _ROLE[source]
            new = media.split(value, role, key, ptr) if role == "user" else [TextItem(text=value, role=role, message=key)]  # type: ignore[arg-type]
            if source not in ("human", "gpt", "system"):
                extra["from"] = source
        elif source == "function_call":
            new = _calls_from_text(value, SHAREGPT, ptr, key, 0)
            pending.add(new)
            generated += len(new)
        elif source in ("observation", "tool", "function"):
            new = [pending.result(value, key, SHAREGPT, ptr, report, i)]
            if source != "observation":
                extra["from"] = source
        else:
            raise _fail(SHAREGPT, f"{ptr}/from", f"unknown speaker {source!r}; expected one of {sorted(SHAREGPT_FROM)}")
        if extra:
            keep_on_message(new, SHAREGPT, turn=extra)
        items.extend(new)
    media.check_all_used()
    if generated:
        report.add("changed", f"ShareGPT function calls have no ids: {generated} given ids call_t<turn>_<n>", item_type="tool_call")
    return _finish(items, record, SHAREGPT, ("conversations", "system", "tools", "images", "videos", "audios"), report, tools, form)


def read_llamafactory(obj: Any) -> Migrated:
    """A LLaMA-Factory typed-content record -> :class:`Migrated`.

    Raises:
        MappingError: a message or part of another shape (the message names the JSON pointer).
    """
    record = _record(obj, LLAMAFACTORY, "messages")
    report = Report()
    items: list[Item] = []
    tools: list[ToolDefinition] = []
    form = ""
    if "tools" in record:
        tools, form = tools_from_text(record["tools"], LLAMAFACTORY, "/tools", report)
    pending = _Pending()
    generated = 0
    for i, msg in enumerate(record["messages"]):
        ptr = f"/messages/{i}"
        if not isinstance(msg, Mapping) or msg.get("role") not in ("system", "user", "assistant", "tool") or not isinstance(msg.get("content"), list):
            raise _fail(LLAMAFACTORY, ptr, "a message is {'role': system|user|assistant|tool, 'content': [{'type', 'value'}]}")
        role, key = msg["role"], f"m{i}"
        new: list[Item] = []
        for j, part in enumerate(msg["content"]):
            pp = f"{ptr}/content/{j}"
            if not isinstance(part, Mapping) or not isinstance(part.get("type"), str) or part["type"] not in _TYPED or not isinstance(part.get("value"), str):
                raise _fail(LLAMAFACTORY, pp, f"a part is {{'type': {'|'.join(sorted(_TYPED))}, 'value': str}}")
            t, value = part["type"], part["value"]
            if role == "tool":
                if t != "text":
                    raise _fail(LLAMAFACTORY, pp, "a tool message holds text parts")
                new.extend(pending.results(value, key, LLAMAFACTORY, pp, report, i))
            elif t == "text":
                new.append(TextItem(text=value, role=role, message=key))
            elif t == "reasoning":
                new.append(ReasoningItem(text=value, message=key))
            elif t == "tool_call":
                calls = _calls_from_text(value, LLAMAFACTORY, pp, key, j)
                pending.add(calls)
                generated += len(calls)
                new.extend(calls)
            else:
                new.append(_media(t[:-4], value, LLAMAFACTORY, f"{pp}/value", role=role, message=key))
        if not new:
            new.append(_set_pd(TextItem(text="", role="user" if role == "tool" else role, message=key), LLAMAFACTORY, empty=True))
        extra = {k: copy.deepcopy(v) for k, v in msg.items() if k not in ("role", "content")}
        if role == "tool":
            extra["role"] = "tool"
        if extra:
            keep_on_message(new, LLAMAFACTORY, message=extra)
        items.extend(new)
    if generated:
        report.add("changed", f"LLaMA-Factory tool calls have no ids: {generated} given ids call_m<message>_<part>", item_type="tool_call")
    return _finish(items, record, LLAMAFACTORY, ("messages", "tools"), report, tools, form)


def read_hf_messages(obj: Any) -> Migrated:
    """A ``{"messages": [{"role", "content": str}], "images": [...]}`` record -> :class:`Migrated`.

    Raises:
        MappingError: a message of another shape, or placeholders and media lists that do not match.
    """
    record = _record(obj, HF, "messages")
    report = Report()
    items: list[Item] = []
    media = _Placeholders(record, HF)
    for i, msg in enumerate(record["messages"]):
        ptr = f"/messages/{i}"
        if not isinstance(msg, Mapping) or msg.get("role") not in ("system", "user", "assistant") or not isinstance(msg.get("content"), str):
            raise _fail(HF, ptr, "a message is {'role': system|user|assistant, 'content': str}")
        new = media.split(msg["content"], msg["role"], f"m{i}", f"{ptr}/content")
        extra = {k: copy.deepcopy(v) for k, v in msg.items() if k not in ("role", "content")}
        if extra:
            keep_on_message(new, HF, message=extra)
        items.extend(new)
    media.check_all_used()
    return _finish(items, record, HF, ("messages", "images", "videos", "audios"), report)


def read_openai_finetune(obj: Any) -> Migrated:
    """An OpenAI chat fine-tuning line -> :class:`Migrated` (messages by the ``openai-chat`` mapper; ``weight`` kept).

    Raises:
        MappingError: not a ``{"messages": [...]}`` line, a ``weight`` other than 0 or 1, or what the mapper refuses.
    """
    return _read_openai_finetune(obj)


_PLACE_KEY = re.compile(r"m(\d+)")


def _read_openai_finetune(obj: Any, first: int = 0) -> Migrated:
    """:func:`read_openai_finetune` of a line whose first message is message ``first`` of a longer
    conversation: the items' place keys (``m<i>``, the ``openai-chat`` mapper's) count from there."""
    record = _record(obj, OPENAI_FINETUNE, "messages")
    weights: dict[int, Any] = {}
    messages = []
    for i, msg in enumerate(record["messages"]):
        if isinstance(msg, Mapping) and "weight" in msg:
            if msg["weight"] not in (0, 1) or isinstance(msg["weight"], bool):
                raise _fail(OPENAI_FINETUNE, f"/messages/{i}/weight", f"0 or 1, got {msg['weight']!r}")
            weights[i] = msg["weight"]
            msg = {k: v for k, v in msg.items() if k != "weight"}
        messages.append(msg)
    body = {k: v for k, v in record.items() if k in ("messages", "tools", "parallel_tool_calls", "functions")}
    body["messages"] = messages
    migrated = via_mapper("openai-chat", body, OPENAI_FINETUNE)
    items = list(migrated.transcript.items)
    if weights:
        seen: set[Any] = set()
        for n, item in enumerate(items):
            key = getattr(item, "message", U)
            if isinstance(key, str) and key.startswith("m") and key[1:].isdigit() and int(key[1:]) in weights and key not in seen:
                seen.add(key)
                items[n] = _set_pd(item, OPENAI_FINETUNE, weight=weights[int(key[1:])])
        if len(seen) != len(weights):
            raise _fail(OPENAI_FINETUNE, "/messages", "a message with a weight has no content to carry it")
    if first:
        for n, item in enumerate(items):
            key = getattr(item, "message", U)
            if isinstance(key, str) and (m := _PLACE_KEY.fullmatch(key)):
                items[n] = msgspec.structs.replace(item, message=f"m{int(m.group(1)) + first}")
    rest = {k: copy.deepcopy(v) for k, v in record.items() if k not in ("messages", "tools", "parallel_tool_calls", "functions")}
    t = migrated.transcript
    meta = dict(t.metadata) if t.metadata is not U else {}
    if rest:
        meta[OPENAI_FINETUNE] = rest
    transcript = msgspec.structs.replace(t, items=items, metadata=meta if meta else U)
    return Migrated(transcript, migrated.report, OPENAI_FINETUNE)


def typed_content(messages: list[Any]) -> bool:
    """Whether a message list is LLaMA-Factory typed content (every part ``{"type", "value"}`` of its types, at least one)."""
    parts = [p for m in messages if isinstance(m, Mapping) and isinstance(m.get("content"), list) for p in m["content"]]
    return bool(parts) and all(isinstance(p, Mapping) and isinstance(p.get("type"), str) and p["type"] in _TYPED and "value" in p and "text" not in p for p in parts)
