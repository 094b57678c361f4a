"""Token counts of a history: the provider's count where there is one, else an offline estimate.

**Offline estimate.** No tokenizer is shipped (each provider has its own, and some are not public):
text is counted by a rule of thumb calibrated on recorded provider usage (docs/history.md has the
measured error per provider): each run of letters or digits costs one token per
:data:`CHARS_PER_TOKEN` characters (at least one), each other visible character one token; each item
adds a small framing overhead; an image costs :data:`IMAGE_TOKENS`; tool definitions are counted as
their JSON. The result is labelled ``exact=False``.

**Seeded by reported usage** (the seed contract). A provider's reported ``usage.input_tokens`` is the
exact input count of the request that response answered. Each request is fingerprinted by its tools,
tool choice and the ordered items before the response's first item (instructions are system items,
so they are part of it); when the history being counted is a strict extension of a request whose
usage was reported, that count is taken as exact and only the appended items are estimated. A
transcript's own ``responses`` records (what a stored session keeps per response) are such seeds;
:class:`UsageSeeds` carries them from other transcripts.
"""

from __future__ import annotations

import base64
import hashlib
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import msgspec

from ..items import (
    ArtifactRefItem,
    AudioItem,
    DocumentItem,
    ImageItem,
    RawItem,
    ReasoningItem,
    RefusalItem,
    StructuredItem,
    TextItem,
    Transcript,
    VideoItem,
)
from ..codec import UnknownItem
from ._integrity import _ASSISTANT, _NEUTRAL, _side

__all__ = ["CHARS_PER_TOKEN", "IMAGE_TOKENS", "TokenCount", "UsageSeeds", "count_tokens", "estimate_items_tokens", "estimate_text_tokens"]

CHARS_PER_TOKEN = 4.0
"""Letters or digits per token in a word (a word costs at least one token)."""

ITEM_TOKENS = 4
"""Framing tokens per item (role markers, message separators)."""

IMAGE_TOKENS = 800
"""An image of unknown size (providers charge 258 to about 1,600 depending on size and detail)."""

TOOL_TOKENS = 8
"""Framing tokens per tool definition."""

TOOLS_BASE_TOKENS = 0
"""Tokens a request with tool definitions costs beyond them (the tool-use preamble providers add)."""

_WORD = re.compile(r"[^\W_]+|[^\w\s]|_", re.UNICODE)
def _enc_hook(obj: Any) -> Any:
    """An item of a type this version does not know (kept as read): its own JSON (issue 32:
    ``Encoding objects of type UnknownItem is unsupported`` in :func:`prefix_fingerprints`)."""
    if isinstance(obj, UnknownItem):
        return msgspec.Raw(obj.raw)
    raise NotImplementedError(f"{type(obj).__name__} is not JSON-safe")


_enc = msgspec.json.Encoder(order="deterministic", enc_hook=_enc_hook)


def estimate_text_tokens(text: str) -> int:
    """Estimated tokens of ``text`` (see the module docstring); 0 for empty text."""
    n = 0
    for m in _WORD.finditer(text):
        w = m.end() - m.start()
        n += 1 if w <= CHARS_PER_TOKEN else math.ceil(w / CHARS_PER_TOKEN)
    return n


def _json_tokens(value: Any) -> int:
    try:
        text = _enc.encode(value).decode()
    except (TypeError, msgspec.EncodeError):
        text = str(value)
    return estimate_text_tokens(text)


def _b64_len(source: Any) -> int:
    data = getattr(source, "data", None)
    if isinstance(data, str):
        return len(data) * 3 // 4
    return 0


def _media_tokens(item: Any) -> int:
    if isinstance(item, ImageItem):
        return IMAGE_TOKENS
    if isinstance(item, (AudioItem, VideoItem)):
        # about 32 tokens a second of 16 kHz 16-bit audio (Gemini's documented rate), from the bytes
        said = getattr(item, "transcript", None)
        return max(32, _b64_len(item.source) // 1000) + (estimate_text_tokens(said) if isinstance(said, str) else 0)
    if isinstance(item, DocumentItem):
        source = item.source
        data = getattr(source, "data", None)
        if isinstance(data, str) and str(getattr(item, "media_type", "")).startswith("text/"):
            try:
                return estimate_text_tokens(base64.b64decode(data, validate=False).decode("utf-8", "replace"))
            except ValueError:
                pass
        text = getattr(source, "text", None)
        if isinstance(text, str):
            return estimate_text_tokens(text)
        return max(IMAGE_TOKENS, _b64_len(source) // 40)  # PDFs: about one image per page
    if isinstance(item, ArtifactRefItem):
        return IMAGE_TOKENS
    return 0


def _item_tokens(item: Any) -> int:
    if isinstance(item, (TextItem, RefusalItem)):
        return estimate_text_tokens(item.text)
    if isinstance(item, ReasoningItem):
        n = estimate_text_tokens(item.text) if isinstance(item.text, str) else 0
        summary = item.summary if isinstance(item.summary, list) else []
        for part in summary:
            n += estimate_text_tokens(part if isinstance(part, str) else getattr(part, "text", "") or "")
        return n
    if isinstance(item, StructuredItem):
        return _json_tokens(item.data)
    tag = getattr(getattr(item, "__struct_config__", None), "tag", None)
    if tag in ("tool_call", "handoff_call"):
        name = getattr(item, "name", None) or getattr(item, "target", "") or ""
        args = item.arguments if item.arguments is not msgspec.UNSET else getattr(item, "arguments_raw", "")
        if args is msgspec.UNSET:  # neither form (validate refuses it): no argument tokens
            args = ""
        return estimate_text_tokens(str(name)) + (_json_tokens(args) if not isinstance(args, str) else estimate_text_tokens(args)) + 3
    if tag in ("tool_result", "handoff_result"):
        return sum(_item_tokens(part) for part in item.content) + 3
    if isinstance(item, RawItem):
        return _json_tokens(item.value)
    if isinstance(item, UnknownItem):  # a type this version does not know: its JSON as read
        return estimate_text_tokens(bytes(item.raw).decode("utf-8", "replace"))
    media = _media_tokens(item)
    if media:
        return media
    if isinstance(item, msgspec.Struct):
        return _json_tokens(msgspec.to_builtins(item))
    return 0


def estimate_items_tokens(items: Iterable[Any]) -> int:
    """Estimated input tokens of canonical items (each item's content plus :data:`ITEM_TOKENS`)."""
    return sum(_item_tokens(item) + ITEM_TOKENS for item in items)


def _tools_tokens(transcript: Transcript) -> int:
    tools = transcript.tools if isinstance(transcript.tools, list) else []
    n = TOOLS_BASE_TOKENS if tools else 0
    for tool in tools:
        n += TOOL_TOKENS + estimate_text_tokens(tool.name) + estimate_text_tokens(tool.description if isinstance(tool.description, str) else "")
        if tool.parameters is not msgspec.UNSET:
            n += _json_tokens(tool.parameters)
    return n


# --------------------------------------------------------------------------- seeds


def _head(transcript: Transcript) -> bytes:
    """Fingerprint seed of what precedes the items: the tools and the tool choice."""
    h = hashlib.sha256()
    h.update(_enc.encode(transcript.tools if transcript.tools is not msgspec.UNSET else None))
    h.update(_enc.encode(transcript.tool_choice if transcript.tool_choice is not msgspec.UNSET else None))
    return h.digest()


def prefix_fingerprints(transcript: Transcript) -> list[bytes]:
    """``out[k]`` fingerprints the request made of the tools, the tool choice and ``items[:k]``
    (``k`` from 0 to ``len(items)``): a chained SHA-256, so equal prefixes give equal prints."""
    prints = [_head(transcript)]
    for item in transcript.items:
        prints.append(hashlib.sha256(prints[-1] + _enc.encode(item)).digest())
    return prints


def response_start(items: Sequence[Any], last: int) -> int:
    """Index of the first item of the response whose last item is ``items[last]``: the run of
    assistant-side items (role-less ``raw``/``error`` items included) that ends there."""
    start = last
    while start > 0 and _side(items[start - 1]) in (_ASSISTANT, _NEUTRAL):
        start -= 1
    while start < last and _side(items[start]) == _NEUTRAL:
        start += 1
    return start


def _model_of(record: Any) -> str | None:
    info = record.response
    if info is msgspec.UNSET or info.model is msgspec.UNSET:
        return None
    return str(info.model)


def _same_model(a: str | None, b: str | None) -> bool:
    if a is None or b is None:
        return True
    a, b = a.lower().rsplit("/", 1)[-1], b.lower().rsplit("/", 1)[-1]
    return a.startswith(b) or b.startswith(a)


@dataclass
class UsageSeeds:
    """Reported input counts by request fingerprint (see the module docstring).

    Attributes:
        counts: fingerprint -> (reported input tokens, number of items of that request, model).
    """

    counts: dict[bytes, tuple[int, int, str | None]] = field(default_factory=dict)

    def add_transcript(self, transcript: Transcript) -> None:
        """Record every ``responses`` record of ``transcript`` that reports ``usage.input_tokens``."""
        records = transcript.responses if isinstance(getattr(transcript, "responses", None), list) else []
        if not records:
            return
        prints = prefix_fingerprints(transcript)
        for record in records:
            usage = record.usage
            if usage is msgspec.UNSET or usage.input_tokens is msgspec.UNSET or not 0 <= record.item < len(transcript.items):
                continue
            k = response_start(transcript.items, record.item)
            self.counts[prints[k]] = (int(usage.input_tokens), k, _model_of(record))

    @classmethod
    def of(cls, transcripts: Iterable[Transcript]) -> UsageSeeds:
        """Seeds from the ``responses`` records of each transcript."""
        seeds = cls()
        for t in transcripts:
            seeds.add_transcript(t)
        return seeds


@dataclass(frozen=True)
class TokenCount:
    """The input tokens of a history.

    Attributes:
        input_tokens: The count (tools and every item).
        exact: ``True`` when the provider counted all of it (count endpoint, or a reported usage
            covering every item); ``False`` when any part is an offline estimate.
        method: ``provider`` (the provider's count endpoint), ``seeded`` (a reported usage for a
            prefix plus an estimate of the rest) or ``estimate`` (offline estimate of all of it).
        seeded_items: How many leading items a reported usage covered (0 unless ``seeded``).
        estimated_tokens: The part of ``input_tokens`` that is estimated.
        model: The model counted for, when known.
    """

    input_tokens: int
    exact: bool
    method: Literal["provider", "seeded", "estimate"]
    seeded_items: int = 0
    estimated_tokens: int = 0
    model: str | None = None

    def __str__(self) -> str:
        label = {"provider": "counted by the provider", "seeded": f"reported usage for the first {self.seeded_items} item(s) + estimate", "estimate": "offline estimate"}[self.method]
        return f"{self.input_tokens} input tokens ({label})"


def _estimate(transcript: Transcript, model: str | None, seeds: UsageSeeds | None) -> TokenCount:
    items = transcript.items
    pool = UsageSeeds(dict(seeds.counts) if seeds is not None else {})
    pool.add_transcript(transcript)
    if pool.counts:
        prints = prefix_fingerprints(transcript)
        for k in range(len(items), -1, -1):
            hit = pool.counts.get(prints[k])
            if hit is not None and _same_model(hit[2], model):
                rest = estimate_items_tokens(items[k:])
                return TokenCount(hit[0] + rest, exact=rest == 0 and k == len(items), method="seeded", seeded_items=k, estimated_tokens=rest, model=model)
    n = _tools_tokens(transcript) + estimate_items_tokens(items)
    return TokenCount(n, exact=False, method="estimate", estimated_tokens=n, model=model)


def count_tokens(transcript: Transcript, model: str | None = None, *, client: Any = None, seeds: UsageSeeds | None = None) -> TokenCount:
    """The input tokens ``transcript`` would cost as a request to ``model``.

    Args:
        transcript: The history (tools and items; ``responses`` records seed the count).
        model: The model counted for (a seed reported by another model is not used).
        client: A :class:`~interlingua.transport.Client`: when given, the provider's own count
            endpoint answers through ``client.count_tokens(transcript, model=...)`` (Anthropic
            ``POST /v1/messages/count_tokens``, Gemini ``models/{model}:countTokens``, OpenAI
            ``POST /v1/responses/input_tokens``); the result is ``exact``. Use :func:`acount_tokens`
            from async code.
        seeds: Reported usage from other transcripts (:class:`UsageSeeds`), beside the transcript's own.

    Returns:
        A :class:`TokenCount`; ``exact=False`` marks an estimate.

    Raises:
        TransportError: the provider's count endpoint failed (with ``client``); code ``invalid_request``,
            before any request, for a provider without a count endpoint (use the estimate).
        TypeError: ``client`` is not a client with ``count_tokens()``.
        ValueError: ``client`` given without ``model``.
        RuntimeError: ``client`` given while an event loop is running (use :func:`acount_tokens`).
    """
    if client is not None:
        import asyncio

        return asyncio.run(acount_tokens(transcript, model, client=client))
    return _estimate(transcript, model, seeds)


async def acount_tokens(transcript: Transcript, model: str | None = None, *, client: Any = None, seeds: UsageSeeds | None = None) -> TokenCount:
    """:func:`count_tokens` for async code (the provider's count endpoint is awaited)."""
    if client is None:
        return _estimate(transcript, model, seeds)
    if model is None:
        raise ValueError("counting through a client needs model=")
    method = getattr(client, "count_tokens", None)
    if method is None:
        raise TypeError(f"{type(client).__name__} has no count_tokens(): this client cannot ask the provider to count")
    counted = await method(transcript, model=model)  # the Client's own: the provider's count endpoint
    n = counted if isinstance(counted, int) else int(getattr(counted, "input_tokens"))
    return TokenCount(n, exact=True, method="provider", model=model)
