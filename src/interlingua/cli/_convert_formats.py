"""The formats, kinds and policies ``interlingua convert`` takes, and how it stops.

:data:`FRAMEWORKS` are the formats that are not provider wire formats (read and written through the
canonical form, ADR 0011): OpenTelemetry spans, pydantic-ai and LangChain histories, the stored
conversations (:data:`STORED`, ADR 0029) and the agent logs (:data:`AGENTS`, read only).
"""

from __future__ import annotations

import enum
from typing import Any

import msgspec

from ..conversion import CANONICAL
from ..errors import UnknownFormatError
from ..mapping import available, get_mapper
from ..mapping.registry import is_known

__all__ = ["AGENTS", "FRAMEWORKS", "STORED", "Fail", "Kind", "PolicyChoice", "canonical_kind", "check_format"]

FRAMEWORKS: tuple[str, ...] = ("otel", "pydantic-ai", "langchain")
"""Formats that are not provider wire formats: whole conversations as other tools hold them (ADR 0011)."""

# --- stored conversations (issue 26): read through interlingua.compat; --to only where a writer exists
STORED = ("vercel-ui", "vercel-model", "openai-finetune", "sharegpt", "llamafactory", "hf-messages", "chatgpt-export", "claude-export")
FRAMEWORKS = FRAMEWORKS + STORED
# --- agent logs and agent framework stores (issue 26): read only, one conversation (see ._convert_agents)
AGENTS = ("claude-code", "codex", "adk", "mcp-sampling")
FRAMEWORKS = FRAMEWORKS + AGENTS


class Kind(str, enum.Enum):
    """What the input holds."""

    request = "request"
    response = "response"
    stream = "stream"


class PolicyChoice(str, enum.Enum):
    """What to do with content the target cannot carry."""

    error = "error"
    drop = "drop"
    degrade = "degrade"


class Fail(Exception):
    """Stop with an exit code and a one-line (or multi-line) message."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def check_format(name: str) -> None:
    """Exit 2 when ``name`` is neither canonical, a framework format nor a format that loads."""
    if name == CANONICAL or name in FRAMEWORKS:
        return
    if not is_known(name):
        raise Fail(2, f"unknown format {name!r}; known: {', '.join([CANONICAL, *available(), *FRAMEWORKS])}")
    try:
        get_mapper(name)
    except UnknownFormatError as exc:  # a plugin that fails to load
        raise Fail(2, f"{exc}; known: {', '.join([CANONICAL, *available(), *FRAMEWORKS])}") from exc


def canonical_kind(kind: Kind | None, transcript: Any) -> Kind:
    """``--kind`` for a canonical document, detected when left out: a document with ``response`` (the
    response's id and model, what ``convert --to canonical`` of a response body writes) holds a
    model's response; any other is a request (a conversation to send), a stored session too, whose
    ``usage`` and ``stop_reason`` are those of its last answer."""
    if kind is not None:
        return kind
    if getattr(transcript, "response", msgspec.UNSET) not in (msgspec.UNSET, None):
        return Kind.response
    return Kind.request
