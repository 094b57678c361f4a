"""Per-model request rules of the Anthropic Messages API that the capability table does not hold.

Two facts, each a list of rows ``(pattern, value)`` matched in order with the model table's glob rule
(:func:`interlingua.capabilities.pattern_matches`; first match wins):

* :data:`EFFORT_LEVELS`: the ``output_config.effort`` values a model takes (``OutputConfigParam.effort``
  in the ``anthropic`` SDK, ``low``/``medium``/``high``/``xhigh``/``max``). Source: Anthropic's effort guide
  (platform.claude.com/docs/en/build-with-claude/effort): effort came with Claude Opus 4.5
  (``low``/``medium``/``high``), ``max`` with the Claude 4.6 models, ``xhigh`` with Opus 4.7. Models with
  no row (Claude 3.x, Sonnet 4 / 4.5, Haiku 4.5, Opus 4 / 4.1) take no effort: their thinking is set by
  ``thinking.budget_tokens``. An empty tuple says the same explicitly.
* :data:`NONSTREAMING_MAX_TOKENS`: the largest ``max_tokens`` the official clients send without streaming.
  The Python client (``anthropic._base_client.BaseClient._calculate_nonstreaming_timeout``) refuses a
  non-streaming ``messages.create`` whose expected time ``3600 s x max_tokens / 128000`` exceeds 600 s
  (``ValueError: Streaming is required for operations that may take longer than 10 minutes``), i.e.
  ``max_tokens`` above 21,333, and above the per-model limits of ``anthropic._constants.MODEL_NONSTREAMING_TOKENS``
  (8,192 for Claude Opus 4 and 4.1, under their Anthropic, Bedrock and Vertex ids).

These rows are the Anthropic package's own (provider rules live with their provider); a model catalogue
may take them over as fields of its entries.
"""

from __future__ import annotations

from ...capabilities import pattern_matches

__all__ = ["EFFORT_LEVELS", "NONSTREAMING_MAX_TOKENS", "NONSTREAMING_TOKEN_RULE", "effort_levels", "nonstreaming_max_tokens"]

_ALL = ("low", "medium", "high", "xhigh", "max")

EFFORT_LEVELS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("claude-3*", ()),
    ("claude-opus-4-5*", ("low", "medium", "high")),
    ("claude-opus-4-6*", ("low", "medium", "high", "max")),
    ("claude-sonnet-4-6*", ("low", "medium", "high", "max")),
    ("claude-opus-4-[7-9]*", _ALL),
    ("claude-sonnet-4-[7-9]*", _ALL),
    ("claude-haiku-4-[7-9]*", _ALL),
    ("claude-*4*", ()),
    ("claude-opus-[5-9]*", _ALL),
    ("claude-sonnet-[5-9]*", _ALL),
    ("claude-haiku-[5-9]*", _ALL),
)
"""``(model pattern, output_config.effort values it takes)``; first match wins. Claude 3.x and the 4.x
models before Opus 4.5 (``claude-*4*`` after the specific rows: Sonnet 4 / 4.5, Haiku 4.5, Opus 4 / 4.1)
take none. A name matching no row (a later family) is unknown: ``None`` from :func:`effort_levels`."""

NONSTREAMING_TOKEN_RULE = 21_333
"""``floor(600 s x 128000 / 3600 s)``: the largest ``max_tokens`` the Python client sends without streaming."""

NONSTREAMING_MAX_TOKENS: tuple[tuple[str, int], ...] = (
    ("claude-opus-4-20250514", 8_192),
    ("claude-opus-4-0", 8_192),
    ("claude-4-opus-20250514", 8_192),
    ("claude-opus-4-1-20250805", 8_192),
    ("claude-opus-4-1", 8_192),
    ("claude-opus-4@20250514", 8_192),
    ("claude-opus-4-1@20250805", 8_192),
    ("*anthropic.claude-opus-4-20250514-v1:0", 8_192),
    ("*anthropic.claude-opus-4-1-20250805-v1:0", 8_192),
)
"""``(model pattern, largest non-streaming max_tokens)`` beyond :data:`NONSTREAMING_TOKEN_RULE`:
``anthropic._constants.MODEL_NONSTREAMING_TOKENS`` (the ``claude-opus-4-1`` alias included: it names the
same model)."""


def effort_levels(model: str | None) -> tuple[str, ...] | None:
    """The ``output_config.effort`` values ``model`` takes: a tuple (empty: none), ``None`` when unknown."""
    if not model:
        return None
    for pattern, levels in EFFORT_LEVELS:
        if pattern_matches(pattern, model):
            return levels
    return None


def nonstreaming_max_tokens(model: str | None) -> int:
    """The largest ``max_tokens`` the official clients send for ``model`` without streaming (tokens)."""
    if model:
        for pattern, limit in NONSTREAMING_MAX_TOKENS:
            if pattern_matches(pattern, model):
                return min(limit, NONSTREAMING_TOKEN_RULE)
    return NONSTREAMING_TOKEN_RULE
