"""Readers for stored legacy formats.

Each reader turns one stored conversation (parsed JSON) into a canonical
transcript plus a report (:class:`Migrated`). Formats (:data:`FORMATS`):

* ``openai-chat``: OpenAI Chat message lists, with the deprecated ``functions``/``function_call``
  form and ``role: "function"`` messages;
* ``anthropic``, ``gemini``, ``ollama``, ``openai-responses``, ``bedrock-converse``, ``cohere``,
  ``mistral``: message lists (or stored request bodies) of those APIs, read by the provider mappers
  (``mistral`` only when named: its lists are OpenAI Chat ones too);
* ``pydantic-ai``: ``ModelMessagesTypeAdapter`` JSON, older field names included;
* ``langchain``: ``messages_to_dict`` output;
* ``interlingua``: documents and envelopes of any schema version the upcaster chain reads;
* ``claude-code``, ``codex``: agent logs (a Claude Code session file's records, a Codex rollout's),
  read in bounded memory by ``interlingua migrate``; a Claude Code tree's abandoned branches are
  :attr:`Migrated.forks`;
* ``adk``: Google ADK sessions and eval cases; ``mcp-sampling``: MCP ``sampling/createMessage``
  requests and results;
* stored conversations (issue 26): ``vercel-ui``/``vercel-model`` (Vercel AI SDK v5 ``UIMessage[]``/
  ``ModelMessage[]``), ``openai-finetune``, ``sharegpt``, ``llamafactory``, ``hf-messages`` (fine-tuning
  records), ``chatgpt-export``, ``claude-export`` (consumer exports: the active branch, abandoned ones as
  :attr:`Migrated.forks`); ``langchain`` also reads serialized messages (``{"lc": 1, ...}``).

:func:`write` is the way back for the frameworks (:data:`WRITERS`: ``pydantic-ai``, ``langchain``):
a canonical transcript to the JSON those frameworks load, with a report of every field the
framework's form does not keep.

:func:`detect_format` picks the format; :func:`read_any` detects and reads. Older
interlingua versions go through the upcaster chain (:func:`upcaster`, :func:`upcast`,
:func:`upcast_row` for store rows).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from ..errors import UnknownFormatError
from ..items import Transcript
from ..mapping import Conversion, Policy, Report
from . import _anthropic, _bedrock_converse, _cohere, _gemini, _interlingua, _langchain, _langchain_writer, _mistral, _ollama, _openai_chat, _openai_responses, _pydantic_ai, _pydantic_ai_writer
from . import _chat_exports, _finetune, _finetune_writer, _vercel_ai, _vercel_ai_writer
from ._base import Fork, Migrated, session_id_for, session_id_from_bytes
from ._detect import LOOKED_FOR, FormatDetectionError, detect_format
from ._upcast import registered, upcast, upcast_row, upcaster

__all__ = [
    "FORMATS",
    "LOOKED_FOR",
    "WRITERS",
    "Fork",
    "FormatDetectionError",
    "Migrated",
    "detect_format",
    "read",
    "read_any",
    "registered",
    "session_id_for",
    "session_id_from_bytes",
    "upcast",
    "upcast_row",
    "upcaster",
    "write",
]

_READERS: dict[str, Callable[[Any], Migrated]] = {
    m.FORMAT: m.read
    for m in (_openai_chat, _anthropic, _gemini, _ollama, _openai_responses, _pydantic_ai, _langchain, _interlingua, _bedrock_converse, _cohere, _mistral)
}
# --- stored conversations (issue 26): Vercel AI SDK, fine-tuning datasets, consumer exports
_READERS.update({
    _vercel_ai.UI_FORMAT: _vercel_ai.read_ui,
    _vercel_ai.MODEL_FORMAT: _vercel_ai.read_model,
    _finetune.OPENAI_FINETUNE: _finetune.read_openai_finetune,
    _finetune.SHAREGPT: _finetune.read_sharegpt,
    _finetune.LLAMAFACTORY: _finetune.read_llamafactory,
    _finetune.HF: _finetune.read_hf_messages,
    _chat_exports.CHATGPT: _chat_exports.read_chatgpt,
    _chat_exports.CLAUDE: _chat_exports.read_claude,
})

# --- agent logs and agent framework stores (issue 26, part a) ---
from . import _adk, _claude_code, _codex, _mcp_sampling  # noqa: E402

_READERS.update({m.FORMAT: m.read for m in (_claude_code, _codex, _adk, _mcp_sampling)})
# --- end issue 26 part a ---

FORMATS: tuple[str, ...] = tuple(_READERS)
"""Every format name a reader exists for."""


def read(obj: Any, fmt: str) -> Migrated:
    """Read ``obj`` as format ``fmt`` (a name from :data:`FORMATS`).

    Raises:
        UnknownFormatError: ``fmt`` is not a format name.
        MappingError, DocumentError: the reader refused the input.
    """
    reader = _READERS.get(fmt)
    if reader is None:
        raise UnknownFormatError(f"unknown format {fmt!r}; known: {', '.join(FORMATS)}")
    migrated = reader(obj)
    _conform_read(migrated)
    # One rule for every reader: the history integrity rules validate counts as errors (a result
    # whose call is not in the history is left out, a reused call id renamed), each reported.
    from ..history._integrity import read_history_origin

    fixed, origin = read_history_origin(migrated.transcript, migrated.report)
    if fixed is not migrated.transcript:
        migrated.transcript = fixed
        if origin is not None and migrated.forks:
            # a fork's ``at`` counts the session's items before the rules left some out: the last kept
            # item at or before it
            for fork in migrated.forks:
                fork.at = max((j for j, old in enumerate(origin) if old is not None and old <= fork.at), default=-1)
    for fork in migrated.forks:  # a fork shares at most every item of the session (a tree with a cycle, ...)
        fork.at = min(fork.at, len(migrated.transcript.items) - 1)
    return migrated


def _conform_read(migrated: Migrated) -> None:
    """One rule for every reader: its items pass the canonical schema limits (``validate``'s and
    ``store import``'s), ids out of them renamed and reported (:mod:`._conform`).

    Raises:
        DocumentError: an item fails the schema for a reason no safe repair covers (pointer ``/items/<i>/...``).
    """
    from ._conform import Conformer

    conformer = Conformer(migrated.report, what=f"the {migrated.format or 'format'} reader")
    items = migrated.transcript.items
    fixed = [conformer.item(item, i) for i, item in enumerate(items)]
    if any(a is not b for a, b in zip(fixed, items)):
        migrated.transcript = msgspec.structs.replace(migrated.transcript, items=fixed)
    for fork in migrated.forks:
        fork.items = [conformer.item(item, fork.at + 1 + j) for j, item in enumerate(fork.items)]


_WRITERS: dict[str, Callable[..., Conversion[Any]]] = {
    _pydantic_ai.FORMAT: _pydantic_ai_writer.write,
    _langchain.FORMAT: _langchain_writer.write,
}
# --- stored conversations (issue 26)
_WRITERS.update({
    _vercel_ai.UI_FORMAT: _vercel_ai_writer.write_ui,
    _vercel_ai.MODEL_FORMAT: _vercel_ai_writer.write_model,
    _finetune.OPENAI_FINETUNE: _finetune_writer.write_openai_finetune,
    _finetune.SHAREGPT: _finetune_writer.write_sharegpt,
})

WRITERS: tuple[str, ...] = tuple(_WRITERS)
"""Every format a transcript can be written back to (the inverse of its reader)."""


def write(transcript: Transcript, fmt: str, *, policy: Policy = "error", report: Report | None = None) -> Conversion[Any]:
    """Write ``transcript`` as format ``fmt`` (a name from :data:`WRITERS`).

    ``pydantic-ai``: a ``ModelMessagesTypeAdapter`` JSON history (``[{"kind": "request"|"response",
    "parts": [...]}, ...]``); ``langchain``: ``messages_to_dict`` output (``[{"type", "data"}, ...]``);
    ``vercel-ui``/``vercel-model``: ``UIMessage[]``/``ModelMessage[]``; ``openai-finetune``: one chat
    fine-tuning line (``{"messages", "tools"?, "parallel_tool_calls"?}``); ``sharegpt``: one ShareGPT record.
    Every field the framework's form does not keep is reported per item; what has no form at all
    (``error`` items, another provider's ``raw`` items) follows ``policy``.

    Raises:
        UnknownFormatError: ``fmt`` is not a writer's format.
        ConversionError: under policy ``error``, an item the format has no form for.
    """
    writer = _WRITERS.get(fmt)
    if writer is None:
        raise UnknownFormatError(f"no writer for format {fmt!r}; known: {', '.join(WRITERS)}")
    return writer(transcript, policy=policy, report=report)


def read_any(obj: Any, fmt: str = "auto") -> Migrated:
    """Detect the format of ``obj`` (unless ``fmt`` names one) and read it.

    Interlingua documents of an older schema version are upcast through the chain first. A detected
    read that lost the content (most items kept ``raw``, or every text of the input gone) is refused:
    detection never guesses quietly; name the format to read it anyway.

    Raises:
        FormatDetectionError: ``fmt`` is ``auto`` and the format cannot be told, or the guess lost the content.
        UnknownFormatError, MappingError, DocumentError, VersionError: as :func:`read`.
    """
    if fmt != "auto":
        return read(obj, fmt)
    found = detect_format(obj)
    migrated = read(obj, found)
    _refuse_a_bad_guess(migrated, found, obj)
    return migrated


_OWN_ENVELOPE = frozenset({
    "interlingua", "pydantic-ai", "langchain", "vercel-ui", "vercel-model", "openai-finetune", "sharegpt", "llamafactory",
    "hf-messages", "chatgpt-export", "claude-export", "claude-code", "codex", "adk", "mcp-sampling",
})


def _refuse_a_bad_guess(migrated: Migrated, found: str, source: Any) -> None:
    """A detected format that keeps most of the conversation as ``raw`` items was a guess, not a reading:
    refused, naming what was tried (issue 26: typed LLaMA-Factory content read as OpenAI Chat, every part raw).

    Raises:
        FormatDetectionError: more than half of the items (at least two) are raw items, or a text of the
            source is nowhere in the transcript, for a format told by the message-list rules (provider
            formats; those with a shape of their own are not guesses).
    """
    from ..items import RawItem

    items = migrated.transcript.items
    raw = sum(1 for it in items if isinstance(it, RawItem))
    if found in _OWN_ENVELOPE:
        # told by a shape of its own, not by the message-list rules: not a guess, but most of it kept raw is
        # said loudly (issue 26: an ADK eval set's every text kept raw, with no report entry)
        if raw >= 2 and raw * 2 > len(items) and not any("raw" in e.reason for e in migrated.report.entries):
            migrated.report.add("changed", f"{found}: {raw} of the {len(items)} items are kept raw (no canonical form for them): check the input is {found}", item_type="raw")
        return
    from ._detect import _fail

    if raw >= 2 and raw * 2 > len(items):
        raise _fail(f"it looks like {found}, but {raw} of its {len(items)} items have no {found} form (they would be kept raw); not guessing") from None
    lost = _lost_text(source, migrated.transcript)
    if lost is not None:
        raise _fail(f"read as {found}, the text {lost!r} would be lost; not guessing") from None


_TEXT_KEYS = frozenset({"text", "content", "body", "value"})


def _strings(value: Any, out: list[str], keys: frozenset[str] | None, depth: int = 0) -> None:
    """Non-blank strings of ``value`` (under one of ``keys`` when given), depth-first."""
    if depth > 64 or len(out) > 10_000:
        return
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(v, str):
                if v.strip() and (keys is None or k in keys):
                    out.append(v)
            else:
                _strings(v, out, keys, depth + 1)
    elif isinstance(value, list):
        for v in value:
            if isinstance(v, str):
                if v.strip() and keys is None:
                    out.append(v)
            else:
                _strings(v, out, keys, depth + 1)


def _lost_text(source: Any, transcript: Transcript) -> str | None:
    """A text of the source (a string under ``text``, ``content``, ``body`` or ``value``) found nowhere in
    the transcript, or ``None``: what a wrong guess does (issue 26: an MCP message's text read as ``""``)."""
    wanted: list[str] = []
    _strings(source, wanted, _TEXT_KEYS)
    if not wanted or len(wanted) > 10_000:
        return None
    from ..codec import to_builtins

    have: list[str] = []
    _strings(to_builtins(transcript), have, None)
    joined = "\x00".join(have)
    return next((w[:60] for w in wanted if w not in joined), None)


for _name, _obj in ((n, globals()[n]) for n in ("Fork", "Migrated", "FormatDetectionError", "detect_format", "read", "read_any", "write", "session_id_for", "upcast", "upcast_row", "upcaster", "registered")):
    try:
        _obj.__module__ = __name__
    except (AttributeError, TypeError):
        pass
