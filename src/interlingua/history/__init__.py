"""History integrity and budget: check, repair, count and trim a canonical history.

* :func:`check_history` / :func:`repair`: the integrity rules (dangling calls, orphan results,
  reused call ids, results out of turn, empty texts, reasoning cut from its output), found in one
  place and applied by ``validate``, ``convert``, the ``Client`` and every reader.
* :func:`count_tokens`: a transcript's input tokens, from the provider's count endpoint through a
  client, or estimated offline (seeded by the usage providers reported on earlier responses).
* :func:`trim`: drop the oldest turns until a history fits a token budget, without breaking it.
* :func:`model_limits`: a model's context window and output limit.
"""

from __future__ import annotations

from ._integrity import NO_RESULT_TEXT, RULES, Finding, Rule, check_history, repair_items
from ._limits import ModelLimits, model_limits
from ._repair import repair
from ._tokens import TokenCount, count_tokens, estimate_items_tokens
from ._trim import TRIM_MARKER, trim

__all__ = [
    "NO_RESULT_TEXT",
    "RULES",
    "TRIM_MARKER",
    "Finding",
    "ModelLimits",
    "Rule",
    "TokenCount",
    "check_history",
    "count_tokens",
    "estimate_items_tokens",
    "model_limits",
    "repair",
    "repair_items",
    "trim",
]
