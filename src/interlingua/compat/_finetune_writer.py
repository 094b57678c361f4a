"""A transcript -> one fine-tuning record: ``openai-finetune`` (a chat fine-tuning line) or ``sharegpt``.

The inverses of :mod:`interlingua.compat._finetune` (whose docstring gives the shapes and sources).

* ``openai-finetune``: the messages, ``tools`` and ``parallel_tool_calls`` the ``openai-chat`` mapper writes
  for the transcript, each assistant message's ``weight`` put back from ``provider_data``; a ``tool_choice``
  other than ``auto`` and the settings have no place in a training line (reported).
* ``sharegpt``: one turn per canonical message: user -> ``human`` (images as ``<image>`` placeholders with
  the ``images`` list), assistant -> ``gpt``, system -> the record's ``system`` (or a ``system`` turn when it
  was one), tool calls -> one ``function_call`` turn (``{"name", "arguments"}``; a list for several), each
  tool result -> an ``observation`` turn; the tools -> ``tools`` as a JSON string. Reasoning, documents and
  ``raw`` items have no ShareGPT form: the policy decides. Call ids are not kept (ShareGPT has none).

Every field that does not come back through the reader is reported per item.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import msgspec

from ..items import AudioItem, ImageItem, RefusalItem, StructuredItem, TextItem, ToolCallItem, ToolResultItem, Transcript, UrlSource, VideoItem
from ..mapping import Conversion, Policy, Report, get_mapper
from . import _finetune
from ._store_writing import START, Start, groups, pd_of, report_round_trip, report_unkept
from ._writing import call_arguments, kind

__all__ = ["write_openai_finetune", "write_sharegpt"]

U = msgspec.UNSET


def _strip_pd(item: Any, fmt: str) -> Any:
    pd = getattr(item, "provider_data", U)
    if not isinstance(pd, dict) or fmt not in pd:
        return item
    rest = {k: v for k, v in pd.items() if k != fmt}
    return msgspec.structs.replace(item, provider_data=rest if rest else U)


def write_openai_finetune(transcript: Transcript, *, policy: Policy = "error", report: Report | None = None, start: Start = START) -> Conversion[Any]:
    """``transcript`` -> an OpenAI chat fine-tuning line (``{"messages", "tools"?, "parallel_tool_calls"?}``).

    ``start``: where the transcript begins in a longer conversation (the round-trip check reads the
    messages back with their place keys counted from ``start.message``;
    :class:`~interlingua.compat._store_writing.Start`).

    Raises:
        ConversionError: under policy ``error``, content OpenAI Chat cannot carry (as the ``openai-chat`` mapper).
    """
    fmt = _finetune.OPENAI_FINETUNE
    report = report if report is not None else Report()
    since = len(report.entries)
    items = list(transcript.items)
    plain = msgspec.structs.replace(transcript, items=[_strip_pd(it, fmt) for it in items], metadata=U, settings=U, usage=U, stop_reason=U, response=U)
    conv = get_mapper("openai-chat").encode_request(plain, policy=policy)
    for entry in conv.report:
        if entry.pointer != "/model":  # a training line has no model
            report.entries.append(entry)
    body = conv.value
    out: dict[str, Any] = {"messages": body["messages"]}
    for name in ("tools", "functions", "parallel_tool_calls"):
        if name in body:
            out[name] = body[name]
    choice = body.get("tool_choice")
    if choice not in (None, "auto"):
        report.add("dropped", f"a fine-tuning line has no tool_choice ({choice!r})", item_type="tool_choice")
    weights = [(start, pd_of(group[0], fmt).get("weight")) for start, group in groups(items)]
    if any(w is not None for _, w in weights):
        if len(weights) == len(out["messages"]):
            for n, (_start, w) in enumerate(weights):
                if w is not None:
                    out["messages"][n]["weight"] = w
        else:
            report.add("dropped", "message weights: the messages written do not match the transcript's messages one to one")
    meta = transcript.metadata if transcript.metadata is not U else {}
    if isinstance(meta, dict) and isinstance(meta.get(fmt), dict):
        out.update(copy.deepcopy(meta[fmt]))
    other_meta = {k: v for k, v in meta.items() if k != fmt} if isinstance(meta, dict) else {}
    if other_meta:
        report.add("dropped", "a fine-tuning line has no place for the transcript's metadata")
    report_unkept(report, transcript, fmt, kept=("tools", "tool_choice", "metadata"))
    report_round_trip(report, fmt, items, lambda: list(_finetune._read_openai_finetune(copy.deepcopy(out), start.message).transcript.items), since)
    return Conversion(out, report)


def _dump(value: Any) -> str:
    """JSON text as Python's ``json.dumps`` writes it (the separators FastChat, Glaive and LLaMA-Factory files use)."""
    return json.dumps(value, ensure_ascii=False)


class _ShareGpt:
    fmt = _finetune.SHAREGPT

    def __init__(self, transcript: Transcript, policy: Policy, report: Report) -> None:
        self.transcript = transcript
        self.policy = policy
        self.report = report
        self.media: dict[str, list[str]] = {}

    def unsupported(self, item: Any, index: int) -> str:
        t = kind(item)
        markers = self.report.unsupported(self.policy, f"{t} item has no ShareGPT form", index=index, item_type=t)
        return markers[0].text if markers else ""

    def content_text(self, item: Any, index: int) -> str:
        if isinstance(item, TextItem):
            return item.text
        if isinstance(item, RefusalItem):
            self.report.add("changed", "refusal written as text", index=index, item_type="refusal")
            return item.text
        if isinstance(item, StructuredItem):
            self.report.add("changed", "structured item written as JSON text", index=index, item_type="structured")
            return _dump(item.data)
        if isinstance(item, ImageItem | VideoItem | AudioItem) and isinstance(item.source, UrlSource):
            name = kind(item)
            self.media.setdefault(name, []).append(item.source.url)
            return f"<{name}>"
        return self.unsupported(item, index)

    def write(self) -> dict[str, Any]:
        items = list(self.transcript.items)
        turns: list[dict[str, Any]] = []
        record: dict[str, Any] = {}
        for start, group in groups(items):
            first = pd_of(group[0], self.fmt)
            if first.get("top_system") and len(group) == 1 and isinstance(group[0], TextItem) and not turns and "system" not in record:
                record["system"] = group[0].text
                continue
            pending: list[tuple[int, Any]] = []
            for k, item in enumerate(group):
                index = start + k
                if isinstance(item, ToolCallItem):
                    pending.append((index, item))
                    continue
                if pending:
                    turns.append(self.calls(pending))
                    pending = []
                pd = pd_of(item, self.fmt)
                turn_extra = copy.deepcopy(pd.get("turn", {}))
                if isinstance(item, ToolResultItem):
                    texts = [self.content_text(c, index) for c in item.content]
                    turns.append({"from": "observation", "value": "".join(texts), **turn_extra})
                    continue
                role = getattr(item, "role", U)
                speaker = {"user": "human", "assistant": "gpt", "system": "system", "developer": "system"}.get(role if isinstance(role, str) else "", "human")
                text = self.content_text(item, index)
                if not text and not isinstance(item, TextItem | RefusalItem | StructuredItem | ImageItem | VideoItem | AudioItem):
                    continue  # dropped under the policy (reported): no empty turn in its place
                if k > 0 and turns and turns[-1].get("_key") == start and turns[-1]["from"] == turn_extra.get("from", speaker):
                    turns[-1]["value"] += text  # the same message: text and placeholders in one value
                else:
                    turns.append({"from": speaker, "value": text, **turn_extra, "_key": start})
            if pending:
                turns.append(self.calls(pending))
        for t in turns:
            t.pop("_key", None)
        record["conversations"] = turns
        meta = self.transcript.metadata if isinstance(self.transcript.metadata, dict) else {}
        given_form = meta[self.fmt].get("tools_form") if isinstance(meta.get(self.fmt), dict) else None
        if (self.transcript.tools is U or not self.transcript.tools) and isinstance(given_form, str):
            record["tools"] = "" if given_form == "empty" else [] if given_form.endswith("-list") else "[]"
        if self.transcript.tools is not U and self.transcript.tools:
            form = given_form if isinstance(given_form, str) else "flat"
            tools = []
            for tool in self.transcript.tools:
                fn: dict[str, Any] = {"name": tool.name}
                if tool.description is not U:
                    fn["description"] = tool.description
                if tool.parameters is not U:
                    fn["parameters"] = copy.deepcopy(tool.parameters)
                tools.append({"type": "function", "function": fn} if form.startswith("openai") else fn)
            record["tools"] = tools if form.endswith("-list") else _dump(tools)
        for name, paths in self.media.items():
            record[{"image": "images", "video": "videos", "audio": "audios"}[name]] = paths
        meta = self.transcript.metadata if isinstance(self.transcript.metadata, dict) else {}
        if isinstance(meta.get(self.fmt), dict):
            record.update({k: copy.deepcopy(v) for k, v in meta[self.fmt].items() if k != "tools_form"})
        if any(k != self.fmt for k in meta):
            self.report.add("dropped", "a ShareGPT record has no place for the transcript's metadata")
        return record

    def calls(self, pending: list[tuple[int, Any]]) -> dict[str, Any]:
        entries = []
        as_list = len(pending) > 1
        for index, call in pending:
            pd = pd_of(call, self.fmt)
            as_list = as_list or bool(pd.get("list"))
            args: Any = call_arguments(call, self.report, self.fmt, index)
            if pd.get("arguments_form") == "string" and not isinstance(args, str):
                args = _dump(args)
            entries.append({"name": call.name, "arguments": args})
        first = pd_of(pending[0][1], self.fmt)
        return {"from": "function_call", "value": _dump(entries if as_list else entries[0]), **copy.deepcopy(first.get("turn", {}))}


def write_sharegpt(transcript: Transcript, *, policy: Policy = "error", report: Report | None = None, start: Start = START) -> Conversion[Any]:
    """``transcript`` -> a ShareGPT record (``{"conversations": [{"from", "value"}], "system"?, "tools"?, "images"?}``).

    ``start``: where the transcript begins in a longer conversation (the round-trip check reads the
    turns back with their place keys and call ids counted from ``start.message``;
    :class:`~interlingua.compat._store_writing.Start`).

    Raises:
        ConversionError: under policy ``error``, an item ShareGPT has no form for (reasoning, documents, base64
            media, ``raw`` and ``error`` items).
    """
    report = report if report is not None else Report()
    since = len(report.entries)
    value = _ShareGpt(transcript, policy, report).write()
    report_unkept(report, transcript, _finetune.SHAREGPT, kept=("tools", "metadata"))
    report_round_trip(report, _finetune.SHAREGPT, list(transcript.items), lambda: list(_finetune._read_sharegpt(copy.deepcopy(value), start.message).transcript.items), since)
    return Conversion(value, report)
