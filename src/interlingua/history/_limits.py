"""A model's context window and output limit: the one place preflight and ``trim`` read them.

Both come from :func:`interlingua.models.lookup`: the pinned catalogue snapshot, the hand-written
overrides (``interlingua/data/models.json``, each with its source) and the user's own model table,
in that order of precedence reversed (the user's wins). A model nothing describes has unknown limits.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ModelLimits", "model_limits"]


@dataclass(frozen=True)
class ModelLimits:
    """Token limits of one model.

    Attributes:
        context_window: Input plus output tokens the model takes in one request; ``None`` when unknown.
        max_output_tokens: Most output tokens one response may hold; ``None`` when unknown.
    """

    context_window: int | None = None
    max_output_tokens: int | None = None


def model_limits(provider: str, model: str | None) -> ModelLimits:
    """The context window and output limit of ``model`` on wire format ``provider``.

    Args:
        provider: Mapper registry name (``anthropic``, ``openai-chat``, ...).
        model: Model name as sent; ``None`` gives unknown limits.

    Returns:
        :class:`ModelLimits`; a field is ``None`` when nothing knows it (never another model's figure:
        a model the catalogue does not know has unknown limits, see ADR 0031).
    """
    if not model:
        return ModelLimits()
    from ..models import lookup

    facts = lookup(provider, model)
    if not facts.known:
        return ModelLimits()
    return ModelLimits(facts.context_window, facts.max_output_tokens)
