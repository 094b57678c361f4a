"""Gemini ``streamGenerateContent?alt=sse`` -> canonical stream events (the providers' API references).

Each SSE ``data:`` is a whole ``GenerateContentResponse`` chunk. Text parts arrive as deltas (joined;
thought text separately), function calls arrive whole, ``usageMetadata`` is cumulative. The completion
marker is a chunk whose candidate carries ``finishReason`` (or a ``promptFeedback.blockReason``); a chunk
holding ``error`` ends the stream with a :class:`StreamError` (stable code, safe message); the end of
input before the marker gives ``truncated``.

The accumulator keeps the equivalent non-streamed parts (consecutive text deltas of one kind joined into
one part; a ``thoughtSignature`` attached to the open run of text, or starting a new run when that run
already has one) and builds the final response with :func:`decode_response`, so a stream and its
equivalent response give equal items. What joining changes is reported on :class:`StreamDone` (and a
:class:`StreamError`) with the chunk and part index and a pointer into the stream read as an array of
events (``/3/candidates/0/content/parts/0/...``): fields beside ``text`` of a joined delta, candidates
after the first; the report of decoding the joined response follows.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from ...errors import MalformedInputError
from ...items import UNSET, ErrorItem, ToolCallItem, Usage
from ...mapping.protocol import ModelResponse
from ...mapping.report import Report
from ...mapping.wire import check_shape, decode_event, fast_event
from ...streaming.events import (
    RawEvent,
    ReasoningDelta,
    StreamDone,
    StreamError,
    StreamEvent,
    TextDelta,
    ToolCallComplete,
    UsageUpdate,
)
from ._common import NAME, error_item, get, jcopy
from ._parts import _part_kind, part_extras
from ._response import decode_response, decoder_for, usage_from

__all__ = ["GeminiAccumulator"]

_Obj = dict[str, Any]


class _Content(msgspec.Struct):
    parts: list[_Obj] | None = None
    role: str | None = None


class _Candidate(msgspec.Struct):
    """A candidate as the stream decoder reads it (GENAI ``types.Candidate``; either key spelling)."""

    content: _Content | None = None
    finishReason: str | None = None  # noqa: N815 - the wire name
    finish_reason: str | None = None


class _Feedback(msgspec.Struct):
    blockReason: str | None = None  # noqa: N815 - the wire name
    block_reason: str | None = None


class _Chunk(msgspec.Struct):
    """One ``GenerateContentResponse`` chunk (GENAI ``types.GenerateContentResponse``): the fields read."""

    candidates: list[_Candidate] | None = None
    promptFeedback: _Feedback | None = None  # noqa: N815 - the wire name
    prompt_feedback: _Feedback | None = None
    usageMetadata: _Obj | None = None  # noqa: N815 - the wire name
    usage_metadata: _Obj | None = None
    responseId: str | None = None  # noqa: N815 - the wire name
    response_id: str | None = None
    modelVersion: str | None = None  # noqa: N815 - the wire name
    model_version: str | None = None


class _FastPart(msgspec.Struct, forbid_unknown_fields=True):
    text: str


class _FastContent(msgspec.Struct, forbid_unknown_fields=True):
    parts: list[_FastPart]
    role: str | None = None


class _FastCandidate(msgspec.Struct, forbid_unknown_fields=True):
    content: _FastContent
    index: int | None = None


class _FastChunk(msgspec.Struct, forbid_unknown_fields=True):
    """A chunk of plain text parts, not finished (no ``finishReason``, no feedback, no error): the fast
    path's shape (see :func:`interlingua.mapping.wire.fast_event`). ``usageMetadata`` is decoded as a dict
    of counts (and lists of per-modality count objects), as the checked path would hold it."""

    candidates: list[_FastCandidate]
    usageMetadata: dict[str, int | list[dict[str, str | int]]] | None = None  # noqa: N815 - the wire name
    modelVersion: str | None = None  # noqa: N815 - the wire name
    responseId: str | None = None  # noqa: N815 - the wire name


_fast_chunk = msgspec.json.Decoder(_FastChunk)

_CHUNK_READ = frozenset({"candidates", "promptFeedback", "prompt_feedback", "usageMetadata", "usage_metadata", "responseId", "response_id", "modelVersion", "model_version"})
_CANDIDATE_READ = frozenset({"content", "finishReason", "finish_reason", "index"})


def _keep_fields(store: dict[str, Any], source: Mapping[str, Any], read: frozenset[str]) -> None:
    """``source``'s fields the accumulator does not read itself, into ``store`` as a whole response holds them:
    the latest value, objects merged key by key, a null never over a value."""
    for key, value in source.items():
        if key in read or (value is None and key in store):
            continue
        old = store.get(key)
        store[key] = {**old, **value} if isinstance(old, dict) and isinstance(value, Mapping) else jcopy(value)


def _fast_usage(md: dict[str, int | list[dict[str, str | int]]]) -> Usage:
    """What :func:`usage_from` gives for a fast-path ``usageMetadata`` (counts as ints, details as flat
    objects, all freshly decoded and held by no one else, so ``md`` itself becomes the details instead of
    a copy), without the per-key lookups of both spellings. A snake_case key takes :func:`usage_from` itself."""
    for key in md:
        if "_" in key:
            return usage_from(md)
    g = md.get
    prompt: Any
    cand: Any
    thoughts: Any
    prompt, cand, thoughts, cached, total = (
        g("promptTokenCount"), g("candidatesTokenCount"), g("thoughtsTokenCount"), g("cachedContentTokenCount"), g("totalTokenCount"),
    )
    # a list under a count key, or a negative count, is no count (as usage_from's num)
    prompt = prompt if type(prompt) is int and prompt >= 0 else UNSET
    cand = cand if type(cand) is int and cand >= 0 else UNSET
    thoughts = thoughts if type(thoughts) is int and thoughts >= 0 else UNSET
    output: Any = UNSET if cand is UNSET and thoughts is UNSET else (cand or 0) + (thoughts or 0)
    return Usage(
        input_tokens=prompt,
        output_tokens=output,
        reasoning_tokens=thoughts,
        cache_read_tokens=cached if type(cached) is int and cached >= 0 else UNSET,
        total_tokens=total if type(total) is int and total >= 0 else UNSET,
        details=md,
    )


class GeminiAccumulator:
    """Accumulates one Gemini SSE stream (see the module docstring)."""

    def __init__(self) -> None:
        self.parts: list[dict[str, Any]] = []
        self._pieces: list[str] = []  # texts to join onto the open run's part (joined once, not per delta)
        self._run: str | None = None  # "text" | "thought" while the last part is an open text run
        self._run_sig = False
        self._calls = 0
        self._usage: Any = None
        self._usage_text: str | None = None  # the fast-path chunk whose usageMetadata is the latest (decoded again when read)
        self._model: str | None = None
        self._rid: str | None = None
        self._finish: str | None = None
        self._block: str | None = None
        self._done = False
        self._event = -1  # index of the framed event being read (report entries point into the stream as an array of events)
        self._report = Report()  # what joining the chunks dropped or changed
        self._final_report = Report()  # that and what decoding the joined response reported
        self._meta: dict[str, Any] = {}  # the chunks' other response fields (createTime, modelStatus, ...)
        self._cand_meta: dict[str, Any] = {}  # candidates[0]'s other fields (avgLogprobs, finishMessage, groundingMetadata, ...)

    def _join(self) -> None:
        """Join the pending texts onto the open run's part (before ``parts`` is read or extended)."""
        if self._pieces:
            self.parts[-1]["text"] += "".join(self._pieces)
            self._pieces = []

    def _response(self) -> ModelResponse:
        self._join()
        body: dict[str, Any] = jcopy(self._meta)  # one normalization with decode_response: the same fields kept
        cand: dict[str, Any] = {**jcopy(self._cand_meta), "content": {"parts": self.parts, "role": "model"}, "index": 0}
        if self._finish is not None:
            cand["finishReason"] = self._finish
        if self.parts or self._finish is not None or self._block is None:
            body["candidates"] = [cand]
        if self._block is not None:
            body["promptFeedback"] = {"blockReason": self._block}
        if self._usage_text is not None:
            # the latest usage came by the fast path, which gave its dict to the UsageUpdate: decode it again
            self._usage, self._usage_text = _fast_chunk.decode(self._usage_text).usageMetadata, None
        if self._usage is not None:
            body["usageMetadata"] = jcopy(dict(self._usage))
        if self._model:
            body["modelVersion"] = self._model
        if self._rid:
            body["responseId"] = self._rid
        conv = decode_response(body)
        self._final_report = Report([*self._report, *conv.report])
        return conv.value

    def partial(self) -> ModelResponse:
        """What arrived so far, as a response (for a StreamError's ``partial``)."""
        return self._response()

    def _fail(self, error: ErrorItem) -> list[StreamEvent]:
        self._done = True
        partial = self._response()
        return [StreamError(error, partial=partial, report=self._final_report)]

    def feed(self, event: RawEvent) -> list[StreamEvent]:
        """One SSE event (a whole response chunk) -> events."""
        self._event += 1  # every framed event counts, as in a StreamError pointer
        if self._done:
            return []
        fast = fast_event(_fast_chunk, event.data)
        if fast is not None and len(fast.candidates) <= 1:  # extra candidates are reported by the checked path
            return self._fast(fast, event.data)
        if not event.data.strip():
            return []
        chunk = decode_event(event.data, provider=NAME)
        if not isinstance(chunk, Mapping):
            return self._fail(ErrorItem(code="provider_error", message="Gemini stream chunk is not a JSON object", retryable=False, provider=NAME))
        if "error" in chunk:
            return self._fail(error_item(chunk["error"]))
        check_shape(chunk, _Chunk, provider=NAME)
        _keep_fields(self._meta, chunk, _CHUNK_READ)
        rid, model = get(chunk, "responseId"), get(chunk, "modelVersion")
        if isinstance(rid, str) and rid:
            self._rid = rid
        if isinstance(model, str) and model:
            self._model = model
        out: list[StreamEvent] = []
        candidates = get(chunk, "candidates") or []
        if isinstance(candidates, list) and candidates and isinstance(candidates[0], Mapping):
            if len(candidates) > 1:
                self._report.add(
                    "dropped", f"stream chunk {self._event}: {len(candidates) - 1} extra candidate(s) left out; only candidates[0] is read", pointer=f"/{self._event}/candidates"
                )
            cand = candidates[0]
            _keep_fields(self._cand_meta, cand, _CANDIDATE_READ)
            content = get(cand, "content") or {}
            for j, part in enumerate((content.get("parts") or []) if isinstance(content, Mapping) else []):
                out.extend(self._part(part, j))
            finish = get(cand, "finishReason")
            if isinstance(finish, str):
                self._finish = finish
        feedback = get(chunk, "promptFeedback")
        block = get(feedback, "blockReason") if isinstance(feedback, Mapping) else None
        if isinstance(block, str) and block:
            self._block = block
        md = get(chunk, "usageMetadata")
        if isinstance(md, Mapping):
            self._usage, self._usage_text = md, None  # this chunk's own dict (decoded here, held by no one else); copied when a response is built
            out.append(UsageUpdate(usage_from(md)))
        if self._finish is not None or self._block is not None:
            self._done = True
            response = self._response()
            out.append(StreamDone(response, report=self._final_report))
        return out

    def _fast(self, chunk: _FastChunk, data: str) -> list[StreamEvent]:
        """The checked path's result for a chunk of plain text parts (see :class:`_FastChunk`)."""
        if chunk.responseId:
            self._rid = chunk.responseId
        if chunk.modelVersion:
            self._model = chunk.modelVersion
        out: list[StreamEvent] = []
        if chunk.candidates:
            for part in chunk.candidates[0].content.parts:
                # _part for a {"text": ...} part: no signature, not a thought
                text = part.text
                if self._run == "text":
                    self._pieces.append(text)
                elif text == "":
                    continue
                else:
                    self._join()
                    self.parts.append({"text": text})
                    self._run, self._run_sig = "text", False
                if text:
                    out.append(TextDelta(text))
        md = chunk.usageMetadata
        if md is not None:
            self._usage_text = data
            out.append(UsageUpdate(_fast_usage(md)))
        return out

    def _part(self, part: Any, j: int) -> list[StreamEvent]:
        kind = _part_kind(part) if isinstance(part, Mapping) else None
        if kind != "text":
            self._join()
            self._run = None
            self.parts.append(jcopy(part))
            if kind == "functionCall":
                dec = decoder_for(self._rid, self._model, Report())
                dec._calls = self._calls
                self._calls += 1
                call = [i for i in dec.decode([part]) if isinstance(i, ToolCallItem)]
                return [ToolCallComplete(call[0])]
            return []
        text: str = get(part, "text")
        sig = get(part, "thoughtSignature")
        run = "thought" if get(part, "thought") is True else "text"
        extras = part_extras(part, "text")
        if self._run == run and not (sig is not None and self._run_sig):
            last = self.parts[-1]
            self._pieces.append(text)
            if sig is not None:
                last["thoughtSignature"] = sig
                self._run_sig = True
            self._join_extras(last, extras, j)
        elif text == "" and sig is None and not extras:
            return []
        else:
            new: dict[str, Any] = {"text": text}
            if run == "thought":
                new["thought"] = True
            if sig is not None:
                new["thoughtSignature"] = sig
            new.update(extras)
            self._join()
            self.parts.append(new)
            self._run, self._run_sig = run, sig is not None
        if not text:
            return []
        return [ReasoningDelta(text) if run == "thought" else TextDelta(text)]

    def _join_extras(self, last: dict[str, Any], extras: dict[str, Any], j: int) -> None:
        """Fields beside ``text`` of a delta joined into the open part ``last`` (Gemini sends one text as
        many parts): a field the joined part lacks is added to it, one it holds with another value keeps
        the first value; both are reported with the chunk and part index of the delta."""
        for key, value in extras.items():
            if key not in last:
                last[key] = value
                self._report.add(
                    "changed", f"stream chunk {self._event} part {j}: field {key!r} of a text delta now covers the whole joined text", pointer=f"/{self._event}/candidates/0/content/parts/{j}/{key}"
                )
            elif last[key] != value:
                self._report.add(
                    "dropped",
                    f"stream chunk {self._event} part {j}: field {key!r} of a text delta differs from the part it is joined to; the first value is kept",
                    pointer=f"/{self._event}/candidates/0/content/parts/{j}/{key}",
                )

    def finish(self) -> list[StreamEvent]:
        """End of input: ``truncated`` unless a chunk with ``finishReason`` was seen."""
        if self._done:
            return []
        self._done = True
        return [
            StreamError(
                ErrorItem(code="truncated", message="Gemini stream ended before a chunk with finishReason", retryable=True, provider=NAME),
                partial=self._response(),
            )
        ]
