"""A model's context window and output limit: the one place preflight and ``trim`` read them.

:func:`model_limits` is the single switch point to the model catalogue: today it reads the output
limit from the shipped model table (``interlingua/data/models.json``, ``max_output_tokens``) and the
context window from :data:`_CONTEXT_WINDOWS` below (the providers' model pages); when the catalogue
gives both, only this function changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase

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


_CONTEXT_WINDOWS: tuple[tuple[str, str, int], ...] = (
    # (provider glob, model glob, context window in tokens), first match wins.
    # Anthropic "Models overview" (docs.claude.com/en/docs/about-claude/models/overview): 200K
    # (1M for Sonnet 4/4.5 only with a beta header, not assumed here).
    ("anthropic", "claude-*", 200_000),
    ("bedrock-converse", "*anthropic.claude*", 200_000),
    # OpenAI model pages (platform.openai.com/docs/models): GPT-4.1 1,047,576; GPT-5 400,000;
    # GPT-4o 128,000; o3 / o4-mini 200,000.
    ("openai-*", "gpt-4.1*", 1_047_576),
    ("openai-*", "gpt-5*", 400_000),
    ("openai-*", "gpt-4o*", 128_000),
    ("openai-*", "o3*", 200_000),
    ("openai-*", "o4-mini*", 200_000),
    # Gemini models page (ai.google.dev/gemini-api/docs/models): 1,048,576 input tokens.
    ("gemini", "gemini-2.*", 1_048_576),
    ("gemini", "gemini-3*", 1_048_576),
    # Cohere models page (docs.cohere.com/docs/models): Command A 256K.
    ("cohere", "command-a*", 256_000),
)


def model_limits(provider: str, model: str | None) -> ModelLimits:
    """The context window and output limit of ``model`` on wire format ``provider``.

    Args:
        provider: Mapper registry name (``anthropic``, ``openai-chat``, ...).
        model: Model name as sent; ``None`` gives unknown limits.

    Returns:
        :class:`ModelLimits`; a field is ``None`` when no table knows it (never another model's figure:
        a model the model table does not list has unknown limits).
    """
    if not model:
        return ModelLimits()
    from ..capabilities import lookup

    entry = lookup(provider, model)
    if entry is None:
        return ModelLimits()  # unknown is not a default: no family figure for a model the table does not know
    max_out = entry.capabilities.max_output_tokens
    name = model.lower()
    tail = name.rsplit("/", 1)[-1]
    window = next((w for p, pat, w in _CONTEXT_WINDOWS if fnmatchcase(provider, p) and (fnmatchcase(name, pat) or fnmatchcase(tail, pat))), None)
    return ModelLimits(window, max_out if isinstance(max_out, int) else None)
