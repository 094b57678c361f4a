"""Shared by the interchange tests: the real fixtures as transcripts, and the round-trip judge.

:func:`real_transcripts` decodes every real request fixture (and every real response fixture, as
a response document with usage, stop reason and response metadata) with its provider's mapper.

:func:`unreported` compares a transcript with what came back from a writer and its reader and
returns every difference no report entry of the writer names. Items are aligned one to one after
the items the report says were left out (``dropped`` with an item index); a pair that differs
(the ``message`` key aside: readers number messages their own way) must have a report entry with
its index; a document field that differs (tools, settings, usage, ...) must be named by an
entry without an index.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from interlingua.items import Transcript
from interlingua.mapping import Report, get_mapper

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"

_FORMAT_DIRS = {
    "openai_chat": "openai-chat",
    "openai_chat_extra": "openai-chat",
    "openrouter": "openai-chat",
    "openai_compatible": "openai-chat",
    "openai_responses": "openai-responses",
    "anthropic": "anthropic",
    "gemini": "gemini",
    "bedrock_converse": "bedrock-converse",
    "cohere": "cohere",
}


def _fmt(path: Path) -> str | None:
    d = path.parent.name
    if d == "ollama":
        return "openai-chat" if path.name.startswith("pai_ollama_cloud") else "ollama"
    return _FORMAT_DIRS.get(d)


def real_fixture_paths() -> list[tuple[str, Path]]:
    """(format, path) of every real request and response JSON fixture (the corpus sample aside)."""
    out = []
    for path in sorted(REAL.glob("*/*.json")):
        fmt = _fmt(path)
        if fmt and (path.name.endswith(".request.json") or path.name.endswith(".response.json")):
            out.append((fmt, path))
    return out


def load(fmt: str, path: Path) -> Transcript:
    """The fixture as a canonical transcript (a response as a response document)."""
    body = msgspec.json.decode(path.read_bytes())
    mapper = get_mapper(fmt)
    if path.name.endswith(".request.json"):
        return mapper.decode_request(body).value
    return mapper.decode_response(body).value.to_transcript()


_DOC_FIELDS = {
    "tools": ("tool",),
    "tool_choice": ("tool_choice",),
    "settings": ("settings",),
    "usage": ("usage",),
    "stop_reason": ("stop reason", "finish_reason"),
    "response": ("response",),
    "metadata": ("metadata",),
}


def _norm(item: Any) -> Any:
    value = msgspec.to_builtins(item)
    if isinstance(value, dict):
        value.pop("message", None)
    return value


def unreported(source: Transcript, back: Transcript, report: Report) -> list[str]:
    """Every difference between ``source`` and ``back`` that no entry of ``report`` names."""
    problems: list[str] = []
    dropped = {e.index for e in report if e.action == "dropped" and e.index is not None}
    touched = {e.index for e in report if e.index is not None}
    kept = [(i, item) for i, item in enumerate(source.items) if i not in dropped]
    if len(kept) != len(back.items):
        problems.append(f"{len(kept)} items kept (of {len(source.items)}, {len(dropped)} reported left out) but {len(back.items)} read back")
    for (i, a), b in zip(kept, back.items):
        # the fields the item had (a field the reader fills in on the way back is nothing the write lost)
        had, got = _norm(a), _norm(b)
        if isinstance(had, dict) and isinstance(got, dict) and type(a) is type(b):
            got = {k: v for k, v in got.items() if k in had}
        if had != got and i not in touched:
            problems.append(f"item {i}: {_norm(a)!r} came back as {_norm(b)!r}, unreported")
    general = " ".join(e.reason for e in report if e.index is None)
    src = msgspec.to_builtins(source)
    out = msgspec.to_builtins(back)
    for name, words in _DOC_FIELDS.items():
        if src.get(name) != out.get(name) and not any(w in general for w in words):
            problems.append(f"document field {name}: {src.get(name)!r} came back as {out.get(name)!r}, unreported")
    return problems
