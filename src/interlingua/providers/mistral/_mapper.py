"""The Mistral mapper: Mistral's own chat-completions rules on top of the OpenAI Chat engine.

Wire rules (Mistral API reference "Chat Completion"; ``mistralai`` SDK types named per rule):

* Tool-call ids are exactly 9 characters of ``a-zA-Z0-9`` (the API refuses others: "Tool call id
  has to be a-z, A-Z, 0-9, with a length of 9"); other ids are replaced deterministically on the
  call and its result, and reported.
* ``tool_choice`` ``"any"`` forces a tool call (``ToolChoiceEnum``: ``auto``, ``none``, ``any``,
  ``required``); canonical ``required`` is written ``"any"``, both are read as ``required``.
* ``AssistantMessage.prefix``: ``true`` marks a final assistant message as the start of the answer
  (assistant prefill); it is written on a trailing assistant message and read as that, ``false``
  (the default) carries nothing.
* Reasoning (Magistral, reasoning-enabled models) is a ``ThinkChunk``
  ``{"type": "thinking", "thinking": [{"type": "text", "text": ...}], "closed"?}`` in a list-valued
  ``content``, in responses, stream deltas and assistant messages sent back; reasoning read from
  other providers is sent back as such a chunk (text only; opaque state of other issuers is left
  out and reported).
* ``DocumentURLChunk`` ``{"type": "document_url", "document_url", "document_name"?}`` is a document
  with a URL source (``document_name`` -> ``title``).
* ``random_seed`` is the sampling seed (``seed`` in canonical settings).
* ``finish_reason`` (``ChatCompletionChoice``): ``stop``, ``length``, ``model_length`` (the context
  window ran out: ``max_tokens``), ``error``, ``tool_calls``.
* Streams are SSE chunks ending with ``data: [DONE]``; usage rides on the last chunk.

Everything else (content parts, tool messages, usage, settings, stream accumulation) is the OpenAI
Chat engine's (``interlingua.providers.openai_chat``); the names in its output (``origin.provider``,
``raw.provider``, ``provider_data`` keys, file sources) are this mapper's name, so nothing read from
Mistral is sent to another OpenAI-compatible endpoint as its own.
"""

from __future__ import annotations

import copy
import dataclasses
import re
from collections.abc import Mapping
from typing import Any, Literal

import msgspec

from ...errors import MalformedInputError
from ...items import AudioItem, Base64Source, DocumentItem, ModelCapabilities, RawItem, RefusalItem, StopReason, Transcript, UrlSource
from ...mapping.ids import IdRule
from ...mapping.spelling import keeps_spelling
from ...mapping.protocol import Conversion, Framing, ModelResponse
from ...mapping.report import Policy, Report, ReportEntry
from ...mapping.wire import guarded
from ...streaming.events import RawEvent, StreamEvent
from ..openai_chat import OpenAIChatMapper
from ..openai_chat._settings import settings_table as chat_settings_table
from ...mapping.item_fields import ItemFieldTable
from ...mapping.settings_table import SettingsTable, Wire
from ...mapping.empty_ids import links_empty_ids
from ._fields import ITEM_FIELDS
from ..openai_chat._common import NAME as ENGINE
from ..openai_chat._common import data_url, parse_data_url
from ..openai_chat._encode import AUDIO_FORMATS

__all__ = ["ID_RULE", "ISSUER", "NAME", "MistralMapper"]

NAME = "mistral"
"""Registry name, ``origin.provider``, ``raw.provider`` and ``provider_data`` key."""

ISSUER = "mistral"
"""Issuer of this mapper (Mistral issues no opaque reasoning state)."""

ID_RULE = IdRule("mistral", pattern=r"[a-zA-Z0-9]{9}", exact_length=9)
"""``ToolCall.id``: "must be a-z, A-Z, 0-9, with a length of 9" (Mistral API error text)."""

_FOREIGN = ENGINE + "~other"
"""What a real ``openai-chat`` name is while the engine writes for Mistral (foreign to it)."""

_FINISH_TO_STOP = {"model_length": "max_tokens", "error": "error"}
"""Mistral ``finish_reason`` values outside OpenAI's enum -> canonical stop reason."""

_ENGINE = OpenAIChatMapper(dialect="mistral")

_REQUEST_KEYS = frozenset({
    "frequency_penalty", "guardrails", "logprobs", "max_tokens", "messages", "metadata", "min_tokens", "model", "n",
    "parallel_tool_calls", "prediction", "presence_penalty", "prompt_cache_key", "prompt_logprobs", "prompt_mode",
    "random_seed", "reasoning_effort", "repetition_penalty", "response_format", "safe_prompt", "service_tier", "stop",
    "stream", "temperature", "tool_choice", "tools", "top_k", "top_logprobs", "top_p", "top_prompt_logprobs",
})
"""``mistralai`` ``ChatCompletionRequest`` / ``ChatCompletionStreamRequest`` fields."""
_RESPONSE_KEYS = frozenset({"choices", "created", "id", "model", "object", "usage"})
"""``ChatCompletionResponse`` fields."""
_ASSISTANT_KEYS = frozenset({"content", "prefix", "role", "tool_calls"})
"""``AssistantMessage`` fields."""
_U = msgspec.UNSET


# --------------------------------------------------------------------------- names


def _swap(obj: Any, table: Mapping[str, str]) -> Any:
    """``obj`` with every provider name in ``table`` renamed (items, sources, origins, provider_data keys).

    Walks msgspec structs, lists and dataclasses (responses, stream events); JSON payloads
    (``raw.value``, arguments, provider_data values) are never touched.
    """
    if isinstance(obj, list):
        out = [_swap(x, table) for x in obj]
        return out if any(a is not b for a, b in zip(out, obj)) else obj
    if isinstance(obj, msgspec.Struct):
        changes: dict[str, Any] = {}
        for name in obj.__struct_fields__:
            value = getattr(obj, name)
            if name == "provider" and isinstance(value, str) and value in table:
                changes[name] = table[value]
            elif name == "provider_data" and isinstance(value, dict) and any(k in table for k in value):
                changes[name] = {table.get(k, k): v for k, v in value.items()}
            elif isinstance(value, (list, msgspec.Struct)):
                new = _swap(value, table)
                if new is not value:
                    changes[name] = new
        return msgspec.structs.replace(obj, **changes) if changes else obj
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type) and not isinstance(obj, (Report, ReportEntry)):
        fields: dict[str, Any] = {}
        for f in dataclasses.fields(obj):
            if not f.init:
                continue
            value = getattr(obj, f.name)
            if f.name == "provider_data" and isinstance(value, dict) and any(k in table for k in value):
                fields[f.name] = {table.get(k, k): v for k, v in value.items()}
            elif isinstance(value, Report):
                fields[f.name] = _report(value, table)
            elif isinstance(value, (list, msgspec.Struct)) or (dataclasses.is_dataclass(value) and not isinstance(value, type)):
                new = _swap(value, table)
                if new is not value:
                    fields[f.name] = new
        return dataclasses.replace(obj, **fields) if fields else obj
    return obj


_WORD = re.compile(re.escape(ENGINE) + r"(~other)?")


def _report(report: Report, table: Mapping[str, str]) -> Report:
    """``report`` with the engine's name read as this mapper's, and a foreign ``openai-chat`` as itself."""
    if ENGINE not in table:
        return report

    def fix(text: str | None) -> str | None:
        return None if text is None else _WORD.sub(lambda m: ENGINE if m.group(1) else NAME, text)

    return Report([dataclasses.replace(e, reason=fix(e.reason) or "", pointer=fix(e.pointer)) for e in report.entries])


_OUT = {ENGINE: NAME}
_IN = {NAME: ENGINE, ENGINE: _FOREIGN}


def _stop(stop: StopReason | None) -> StopReason | None:
    if stop is not None and stop.reason == "other" and isinstance(stop.raw, str) and stop.raw in _FINISH_TO_STOP:
        return StopReason(reason=_FINISH_TO_STOP[stop.raw], raw=stop.raw)  # type: ignore[arg-type]
    return stop


def _from_engine(response: ModelResponse) -> ModelResponse:
    out: ModelResponse = _swap(response, _OUT)
    stop = _stop(out.stop_reason)
    items = [_document_from_raw(i) for i in out.items]
    return dataclasses.replace(out, stop_reason=stop, items=items)


# --------------------------------------------------------------------------- document_url chunks


def _document_from_raw(item: Any) -> Any:
    """A ``document_url`` chunk the engine kept raw -> a document item with a URL source."""
    if not isinstance(item, RawItem) or item.provider != NAME or not isinstance(item.value, dict):
        return item
    value = item.value
    if value.get("type") != "document_url" or not isinstance(value.get("document_url"), str) or not set(value) <= {"type", "document_url", "document_name"}:
        return item
    name = value.get("document_name")
    if name is not None and not isinstance(name, str):
        return item
    fields: dict[str, Any] = {f: getattr(item, f) for f in ("role", "message", "origin", "id", "metadata") if getattr(item, f, _U) is not _U}
    source: Base64Source | UrlSource = parse_data_url(value["document_url"]) or UrlSource(url=value["document_url"])
    if name is not None:  # an empty name too: it is what the item's title was
        fields["title"] = name
    return DocumentItem(source=source, **fields)


def _document_to_raw(item: Any) -> Any:
    """A document item with a URL or base64 source -> the ``document_url`` chunk (base64 as a ``data:``
    URL, as the API takes it), as the engine's own raw part."""
    if not isinstance(item, DocumentItem) or not isinstance(item.source, (UrlSource, Base64Source)):
        return item
    if any(getattr(item, f, _U) is not _U for f in ("cache_breakpoint", "provider_data")):
        return item  # the engine reports what a document_url chunk cannot carry
    if item.media_type is not _U and not (isinstance(item.source, Base64Source) and item.source.media_type == item.media_type):
        return item
    url = item.source.url if isinstance(item.source, UrlSource) else data_url(item.source)
    value: dict[str, Any] = {"type": "document_url", "document_url": url}
    if item.title is not _U:
        value["document_name"] = item.title
    fields: dict[str, Any] = {f: getattr(item, f) for f in ("role", "message", "origin", "id", "metadata") if getattr(item, f, _U) is not _U}
    return RawItem(provider=ENGINE, value=value, **fields)


def _without_document_notes(report: Report, items: list[Any]) -> Report:
    """Leave out the engine's "kept raw" notes for ``document_url`` chunks read as documents."""
    if any(isinstance(i, RawItem) and isinstance(i.value, dict) and i.value.get("type") == "document_url" for i in items):
        return report  # some chunk stayed raw: keep every note (they cannot be told apart)
    return Report([e for e in report.entries if not (e.item_type == "document_url" and "no canonical form" in e.reason)])


def _documents(items: list[Any]) -> list[Any]:
    """Top-level documents -> ``document_url`` chunks. Inside a tool result they stay documents: the
    engine's tool messages carry text only, and it reports the document by its own type."""
    return [_document_to_raw(item) for item in items]


def _documents_back(items: list[Any]) -> list[Any]:
    out = []
    for item in items:
        if type(item).__name__ == "ToolResultItem" and item.content is not _U:
            content = [_document_from_raw(c) for c in item.content]
            item = msgspec.structs.replace(item, content=content)
        out.append(_document_from_raw(item))
    return out


# --------------------------------------------------------------------------- wire bodies


def _read_body(body: Mapping[str, Any]) -> dict[str, Any]:
    """A Mistral request body as the engine reads it (``any``, ``random_seed``, ``prefix``)."""
    out = copy.deepcopy(dict(body))
    if out.get("tool_choice") == "any":
        out["tool_choice"] = "required"
    if "random_seed" in out and "seed" not in out:
        out["seed"] = out.pop("random_seed")
    messages = out.get("messages")
    if isinstance(messages, list):
        for n, msg in enumerate(messages):
            if isinstance(msg, dict) and msg.get("role") == "assistant" and "prefix" in msg:
                if msg["prefix"] is False or (msg["prefix"] is True and n == len(messages) - 1):
                    del msg["prefix"]  # false is the default; true on the last message is the prefill itself
    return out


def _thinking(msg: dict[str, Any]) -> None:
    """The engine's ``reasoning`` text -> a leading ``thinking`` chunk in list-valued content (``ThinkChunk``)."""
    reasoning = msg.pop("reasoning", None)
    if not isinstance(reasoning, str):
        return
    content = msg.get("content")
    chunks: list[Any] = [{"type": "thinking", "thinking": [{"type": "text", "text": reasoning}]}]
    if isinstance(content, str) and content:
        chunks.append({"type": "text", "text": content})
    elif isinstance(content, list):
        chunks.extend(content)
    msg["content"] = chunks


_EMPTY_PARAMETERS = {"type": "object", "properties": {}}


def _parts(msg: dict[str, Any], index: int, policy: Policy, report: Report) -> None:
    """OpenAI-shaped content parts the engine wrote -> Mistral chunks (``FileChunk``, ``AudioChunk``)."""
    content = msg.get("content")
    if not isinstance(content, list):
        return
    out: list[Any] = []
    for part in content:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "file" and isinstance(part.get("file"), dict):
            file = part["file"]
            if isinstance(file.get("file_id"), str):
                out.append({"type": "file", "file_id": file["file_id"]})
                continue
            data = file.get("file_data")
            if isinstance(data, str) and data.startswith("data:"):
                chunk = {"type": "document_url", "document_url": data}
                if isinstance(file.get("filename"), str):
                    chunk["document_name"] = file["filename"]
                out.append(chunk)
                continue
            # ``index`` is the body message's, not the item's: the entry names no item rather than a wrong one
            out.extend({"type": "text", "text": t.text} for t in report.unsupported(policy, "this file part has no Mistral chunk", item_type="document"))
            continue
        if kind == "input_audio" and isinstance(part.get("input_audio"), dict):
            audio = part["input_audio"]
            if isinstance(audio.get("data"), str):
                # its format is left out: reported per item by MistralMapper.encode_request (_audio_formats)
                out.append({"type": "input_audio", "input_audio": audio["data"]})
                continue
        out.append(part)
    msg["content"] = out


def _audio_formats(transcript: Transcript, report: Report) -> None:
    """Report the format of each audio item the engine writes as ``input_audio`` (base64 wav or mp3): Mistral's
    ``InputAudioChunk`` carries the data only, so the format is left out (reported at the item, not at the
    body message :func:`_parts` sees)."""
    for n, item in enumerate(transcript.items):
        if isinstance(item, AudioItem) and isinstance(item.source, Base64Source):
            fmt = item.format if item.format is not _U else AUDIO_FORMATS.get(item.source.media_type)
            if fmt in ("wav", "mp3"):
                report.add("dropped", "Mistral's input_audio chunk carries no audio format", index=n, item_type="audio")


def _tools(body: dict[str, Any], report: Report) -> None:
    for tool in body.get("tools") or ():
        fn = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(fn, dict) and "parameters" not in fn:
            fn["parameters"] = copy.deepcopy(_EMPTY_PARAMETERS)  # Mistral ``Function.parameters`` is required
            report.add("changed", f"tool {fn.get('name')!r} has no parameters; sent with an empty object schema", item_type="tool")


def _refusal(message: dict[str, Any], policy: Policy, report: Report, index: int | None = None) -> None:
    refusal = message.pop("refusal", None)
    if refusal:
        for marker in report.unsupported(policy, "Mistral messages have no refusal field", index=index, item_type="refusal"):
            content = message.get("content")
            message["content"] = (content + marker.text) if isinstance(content, str) else [*(content or []), {"type": "text", "text": marker.text}]


def _response_message(body: dict[str, Any], policy: Policy, report: Report) -> None:
    """What a Mistral ``AssistantMessage`` / ``UsageInfo`` cannot hold, left out (reported)."""
    for choice in body.get("choices") or ():
        message = choice.get("message") if isinstance(choice, dict) else None
        if not isinstance(message, dict):
            continue
        _refusal(message, policy, report)
        if message.pop("annotations", None):
            report.add("dropped", "Mistral messages carry no citations (annotations)", item_type="text")
    usage = body.get("usage")
    if not isinstance(usage, dict):
        body["usage"] = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
        report.add("changed", "the response has no usage; Mistral's required usage written as zeros")
    elif "completion_tokens_details" in usage:
        if usage.pop("completion_tokens_details"):
            report.add("dropped", "Mistral usage has no completion_tokens_details (reasoning token count)")


def _tool_choice_without_tools(transcript: Transcript, body: dict[str, Any]) -> None:
    """Write a tool choice ``auto`` in a body without tools (in place).

    The OpenAI Chat engine writes ``auto`` only beside tools (OpenAI refuses a ``tool_choice`` without
    ``tools``); Mistral takes it alone (``mistralai`` ``ChatCompletionRequest.tool_choice`` does not
    depend on ``tools``; clients such as the ``mistralai`` SDK send ``"tool_choice": "auto"`` by
    default), so a canonical ``auto`` choice is written as given. A choice holding only
    ``parallel`` (read from ``parallel_tool_calls`` alone) was no ``tool_choice`` and is not written.
    """
    choice = transcript.tool_choice
    if choice is not _U and choice.mode == "auto" and choice.parallel is _U and "tool_choice" not in body and not body.get("tools"):
        body["tool_choice"] = "auto"


def _write_body(body: dict[str, Any], policy: Policy, report: Report, refusals: list[tuple[int, str]] | None = None) -> dict[str, Any]:
    """Mistral's differences from the OpenAI Chat body (in place). ``refusals``: the transcript's refusal
    items (index, text) in order; the OpenAI Chat engine writes a message's ``refusal`` field from exactly
    one of them (any other refusal becomes a content part), found in order by its text, so the report
    entry names that item (and a whole conversion and a windowed one agree)."""
    _tools(body, report)
    if body.get("tool_choice") == "required":
        body["tool_choice"] = "any"
    if "seed" in body:
        body["random_seed"] = body.pop("seed")
    messages = body.get("messages")
    if isinstance(messages, list):
        pending = iter(refusals or ())
        for n, msg in enumerate(messages):
            if isinstance(msg, dict):
                _parts(msg, n, policy, report)
                if msg.get("role") == "assistant":
                    text = msg.get("refusal")
                    at = next((i for i, t in pending if t == text), None) if text else None
                    _refusal(msg, policy, report, at)
                    _thinking(msg)
        if messages and isinstance(messages[-1], dict) and messages[-1].get("role") == "assistant":
            messages[-1]["prefix"] = True
    return body


def _as_mistral(exc: MalformedInputError) -> MalformedInputError:
    """The engine's shape error named as this mapper's (the body was Mistral's, not OpenAI's)."""
    if exc.provider != ENGINE:
        return exc
    out = MalformedInputError(exc.pointer, str(exc.reason), provider=NAME)
    out.__cause__ = exc
    return out


@guarded(NAME, "request")
def _decode_request(body: Mapping[str, Any]) -> Conversion[Transcript]:
    """The engine's request decoder on a Mistral body; this mapper's own reading (:func:`_read_body`)
    is guarded as the engine's is: a body of the wrong shape is a located :class:`MalformedInputError`."""
    try:
        return _ENGINE.decode_request(_read_body(body))
    except MalformedInputError as exc:
        raise _as_mistral(exc) from exc.__cause__


@guarded(NAME, "response")
def _decode_response(body: Mapping[str, Any]) -> Conversion[ModelResponse]:
    """The engine's response decoder on a Mistral body, its shape errors named as Mistral's."""
    try:
        return _ENGINE.decode_response(body)
    except MalformedInputError as exc:
        raise _as_mistral(exc) from exc.__cause__


# --------------------------------------------------------------------------- the mapper


class _Accumulator:
    """The engine's chat-chunk accumulator with this mapper's names and stop reasons."""

    def __init__(self) -> None:
        self._inner = _ENGINE.accumulator()

    def _fix(self, events: list[StreamEvent]) -> list[StreamEvent]:
        out: list[StreamEvent] = []
        for ev in events:
            ev = _swap(ev, _OUT)
            response = getattr(ev, "response", None)
            if isinstance(response, ModelResponse):
                ev = dataclasses.replace(ev, response=_from_engine(response))
            partial = getattr(ev, "partial", None)
            if isinstance(partial, ModelResponse):
                ev = dataclasses.replace(ev, partial=_from_engine(partial))
            out.append(ev)
        return out

    def feed(self, event: RawEvent) -> list[StreamEvent]:
        """Consume one SSE event (``CompletionEvent``: a ``CompletionChunk``, or ``[DONE]``).

        Raises:
            MalformedInputError: a chunk of the wrong shape.
        """
        return self._fix(self._inner.feed(event))

    def finish(self) -> list[StreamEvent]:
        """End of input: the terminal event, ``truncated`` when ``[DONE]`` never came."""
        return self._fix(self._inner.finish())

    def partial(self) -> ModelResponse:
        """What arrived so far."""
        return _from_engine(self._inner.partial())


@keeps_spelling
class MistralMapper:
    """Mistral ``/v1/chat/completions`` both ways; implements :class:`interlingua.mapping.Mapper`.

    Attributes:
        name: ``"mistral"``.
        issuer: ``"mistral"``.
        framing: ``"sse"``.
        id_rule: 9 characters of ``a-zA-Z0-9``.
    """

    name: str = NAME
    issuer: str = ISSUER
    framing: Framing = "sse"
    stream_end_markers: frozenset[str] = frozenset({"[DONE]"})
    """SSE data that ends a stream without being JSON (OpenAI-compatible servers send it; also after the terminal event)."""
    id_rule: IdRule | None = ID_RULE
    settings_table: SettingsTable = chat_settings_table("mistral").replace(NAME, seed=Wire("random_seed"))
    """The engine's ``mistral`` dialect table, the seed written as ``random_seed`` (ADR 0042)."""
    item_fields: ItemFieldTable = ITEM_FIELDS
    """The engine's ``mistral`` dialect table with Mistral's own chunks (ADR 0044)."""

    def __repr__(self) -> str:
        return "MistralMapper()"

    @links_empty_ids
    def decode_request(self, body: Mapping[str, Any]) -> Conversion[Transcript]:
        """``ChatCompletionRequest`` body -> transcript (module docstring for the rules).

        Raises:
            MalformedInputError: the body is not a JSON object, or a field has a type the decoder
                cannot read (with the field's JSON pointer; ``provider`` is ``"mistral"``).
        """
        conversion = _decode_request(body)
        transcript: Transcript = _swap(conversion.value, _OUT)
        items = _documents_back(list(transcript.items))
        transcript = msgspec.structs.replace(transcript, items=items)
        return Conversion(transcript, _without_document_notes(_report(conversion.report, _OUT), items))

    def encode_request(self, transcript: Transcript, *, model: str | None = None, policy: Policy = "error") -> Conversion[dict[str, Any]]:
        """Transcript -> ``ChatCompletionRequest`` body.

        Raises:
            ConversionError: under policy ``error``, for content Mistral cannot carry.
            MalformedArgumentsError: under policy ``error``, for a tool call whose arguments did not parse.
        """
        inner: Transcript = _swap(transcript, _IN)
        inner = msgspec.structs.replace(inner, items=_documents(list(inner.items)))
        report = Report()
        for n, (item, sent) in enumerate(zip(transcript.items, inner.items, strict=True)):
            if isinstance(item, DocumentItem) and isinstance(sent, RawItem) and item.media_type is not _U:
                # a DocumentURLChunk has no media type of its own: the data URL's says it, and it comes back unset
                report.add("changed", f"media_type {item.media_type!r} is carried by the data URL (a document_url chunk has no media type field)", index=n, item_type="document", pointer="/media_type")
        _audio_formats(transcript, report)
        from ..openai_chat._request import encode_request

        body = encode_request(inner, dialect="mistral", rule=ID_RULE, model=model, policy=policy, report=report)
        _tool_choice_without_tools(transcript, body)
        refusals = [(i, item.text) for i, item in enumerate(transcript.items) if isinstance(item, RefusalItem)]
        return Conversion(_write_body(body, policy, report, refusals), _report(report, _OUT))

    @links_empty_ids
    def decode_response(self, body: Mapping[str, Any]) -> Conversion[ModelResponse]:
        """``ChatCompletionResponse`` body -> items of ``choices[0]``, usage and stop reason.

        Raises:
            MalformedInputError: the body is not a JSON object, or a field has a type the decoder
                cannot read (with the field's JSON pointer; ``provider`` is ``"mistral"``).
        """
        conversion = _decode_response(body)
        return Conversion(_from_engine(conversion.value), _report(conversion.report, _OUT))

    def encode_response(self, response: ModelResponse, *, model: str | None = None, policy: Policy = "error") -> Conversion[dict[str, Any]]:
        """Output items -> ``ChatCompletionResponse`` body (for round-trip tests and mock servers)."""
        inner: ModelResponse = _swap(response, _IN)
        inner = dataclasses.replace(inner, items=_documents(list(inner.items)))
        report = Report()
        from ..openai_chat._response import encode_response

        body = encode_response(inner, dialect="mistral", rule=ID_RULE, model=model, policy=policy, report=report)
        stop = response.stop_reason
        _response_message(body, policy, report)
        for choice in body.get("choices") or ():
            message = choice.get("message")
            if isinstance(message, dict):
                _thinking(message)
            if stop is not None and isinstance(stop.raw, str) and _FINISH_TO_STOP.get(stop.raw) == stop.reason:
                choice["finish_reason"] = stop.raw
        return Conversion(body, _report(report, _OUT))

    def kind_of(self, body: Mapping[str, Any]) -> Literal["request", "response"] | None:
        """As OpenAI Chat (``request`` for ``messages``, ``response`` for ``choices``), but ``None`` for a
        body holding what no Mistral body has: a top-level key outside ``ChatCompletionRequest`` /
        ``ChatCompletionResponse``, or an assistant message key outside ``AssistantMessage`` (OpenAI's
        ``refusal``, ``annotations``, ``system_fingerprint``, ``max_completion_tokens``, ``seed``, ...)."""
        kind = _ENGINE.kind_of(body)
        if kind is None:
            return None
        allowed = _REQUEST_KEYS if kind == "request" else _RESPONSE_KEYS
        if not set(body) <= allowed:
            return None
        if kind == "response":
            for choice in body.get("choices") or ():
                message = choice.get("message") if isinstance(choice, Mapping) else None
                if isinstance(message, Mapping) and not set(message) <= _ASSISTANT_KEYS:
                    return None
        return kind

    def accumulator(self) -> _Accumulator:
        """A fresh accumulator for one streamed response."""
        return _Accumulator()

    def capabilities(self, model: str | None) -> ModelCapabilities:
        """Defaults for a Mistral chat model: text, image and document in, text out, parallel tools,
        reasoning (thinking chunks), streaming, structured output (``json_schema``), stop sequences
        and assistant prefill (``prefix``). The model table narrows them per model."""
        return ModelCapabilities(
            input_modalities=["text", "image", "document"],
            output_modalities=["text"],
            tools=True,
            parallel_tool_calls=True,
            requires_tool_definitions=False,
            reasoning=True,
            streaming=True,
            structured_output=True,
            prompt_caching=False,
            stop_sequences=True,
            assistant_prefill=True,
            raw_round_trip=True,
        )
