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

from typing import TYPE_CHECKING

if TYPE_CHECKING:
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

_LAZY: dict[str, str] = {
    **dict.fromkeys(("NO_RESULT_TEXT", "RULES", "Finding", "Rule", "check_history", "repair_items"), "_integrity"),
    **dict.fromkeys(("ModelLimits", "model_limits"), "_limits"),
    "repair": "_repair",
    **dict.fromkeys(("TokenCount", "count_tokens", "estimate_items_tokens"), "_tokens"),
    **dict.fromkeys(("TRIM_MARKER", "trim"), "_trim"),
}
"""Public name -> the submodule that defines it."""


def __getattr__(name: str) -> object:
    """Every public name, imported from its submodule on first use (:data:`_LAZY`).

    So a reader of one submodule (``interlingua validate`` scans with ``_integrity``'s rules) does not
    load the others (token counting, trimming and repair, and through them the mapper registry).
    """
    where = _LAZY.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{where}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public names (``__all__``)."""
    return sorted(__all__)
