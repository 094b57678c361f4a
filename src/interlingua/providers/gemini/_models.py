"""Per-model thinking rules of the Gemini API that the capability table does not hold.

Google's thinking guide (ai.google.dev/gemini-api/docs/thinking): Gemini 3 models take
``thinkingConfig.thinkingLevel``; "Gemini 2.5 series models don't support thinkingLevel; use thinkingBudget
instead" (the API answers 400 "Thinking level is not supported for this model"). The 2.5 budget ranges (same
guide, "Set budgets"): 2.5 Pro 128 to 32768 and thinking cannot be turned off; 2.5 Flash 0 to 24576; 2.5
Flash-Lite 512 to 24576, or 0.

:data:`THINKING` rows ``(pattern, rule)`` are matched in order with the model table's glob rule
(:func:`interlingua.capabilities.pattern_matches`; first match wins). These rows are the Gemini package's own
(provider rules live with their provider); a model catalogue may take them over as fields of its entries.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...capabilities import pattern_matches

__all__ = ["EFFORT_THINKING_BUDGET", "THINKING", "ThinkingRule", "thinking_rule"]


@dataclass(frozen=True)
class ThinkingRule:
    """How a model takes its thinking settings.

    Attributes:
        field: ``"thinkingLevel"`` or ``"thinkingBudget"`` (the one an effort is written as).
        min_budget, max_budget: The ``thinkingBudget`` range in tokens (besides 0 and -1).
        can_disable: Whether ``thinkingBudget: 0`` turns thinking off.
    """

    field: str
    min_budget: int = 0
    max_budget: int = 24576
    can_disable: bool = True


_LEVEL = ThinkingRule("thinkingLevel")

THINKING: tuple[tuple[str, ThinkingRule], ...] = (
    ("gemini-3*", _LEVEL),
    ("gemini-2.5-pro*", ThinkingRule("thinkingBudget", 128, 32768, can_disable=False)),
    ("gemini-2.5-flash-lite*", ThinkingRule("thinkingBudget", 512, 24576)),
    ("gemini-2.5-flash*", ThinkingRule("thinkingBudget", 1, 24576)),
    ("gemini-2.5*", ThinkingRule("thinkingBudget", 1, 24576)),
)
"""``(model pattern, thinking rule)``; a model matching no row is unknown (``None``: the level is written,
as for the newest models)."""

EFFORT_THINKING_BUDGET: dict[str, int] = {"minimal": 512, "low": 1024, "medium": 8192, "high": 24576}
"""``reasoning.effort`` -> ``thinkingBudget`` for a model that takes budgets (clipped to its range; ``xhigh``
is the model's largest budget). ``low``/``medium``/``high`` are the budgets Google's OpenAI compatibility
layer uses for ``reasoning_effort`` on Gemini 2.5 (ai.google.dev/gemini-api/docs/openai, "Thinking");
``minimal`` is Flash-Lite's smallest budget. Every use is reported (``changed``)."""


def thinking_rule(model: str | None) -> ThinkingRule | None:
    """The thinking rule of ``model``; ``None`` when no row matches (or no model is given)."""
    if not model:
        return None
    for pattern, rule in THINKING:
        if pattern_matches(pattern, model):
            return rule
    return None
