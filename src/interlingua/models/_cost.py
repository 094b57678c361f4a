"""An estimated cost of one response, from the catalogue's dated price list."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Cost", "cost"]


@dataclass(frozen=True)
class Cost:
    """An estimate in US dollars, from a dated price list (never a bill).

    Attributes:
        usd: The estimated total.
        input: Prompt tokens not read from cache, times the input price.
        output: Generated tokens, times the output price (reasoning tokens at their own price where listed).
        cache_read: Cached prompt tokens read, times the cache-read price (the input price when none is listed).
        cache_write: Prompt tokens written to cache, times the cache-write price (the input price when none is listed).
        as_of: The price list: ``litellm 1.110.2 (2026-12-01)``.
        model: The catalogue row priced (``anthropic/claude-sonnet-4-5``).
    """

    usd: float
    input: float
    output: float
    cache_read: float
    cache_write: float
    as_of: str
    model: str

    def label(self) -> str:
        """``~$0.0123 (estimate; litellm 1.110.2 (2026-12-01) prices)``."""
        return f"~${self.usd:.4f} (estimate; {self.as_of} prices)"


def _n(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def cost(usage: Any, provider: str, model: str) -> Cost | None:
    """Estimate what ``usage`` cost on ``model`` of ``provider`` from the catalogue's prices.

    ``input_tokens`` includes cache reads and writes (the canonical :class:`~interlingua.items.Usage`
    rule), so those are priced apart and taken off the plain input. Reasoning tokens are inside
    ``output_tokens``; where the catalogue prices them apart they are charged at that price instead.

    Args:
        usage: A :class:`~interlingua.items.Usage` (or anything with its attributes).
        provider: Mapper registry name (``anthropic``, ``openai-chat``, ``openai-chat:groq``, ...).
        model: The model the response came from.

    Returns:
        A :class:`Cost`, or ``None`` when the catalogue lists no prices for the model (an unknown
        model is never priced as another).

    Raises:
        UnknownFormatError: no mapper is registered as ``provider``.
    """
    from ._info import lookup

    info = lookup(provider, model)
    p = info.prices
    if p is None or p.input is None or p.output is None:
        return None
    inp = _n(getattr(usage, "input_tokens", 0))
    out = _n(getattr(usage, "output_tokens", 0))
    reasoning = _n(getattr(usage, "reasoning_tokens", 0))
    c_read = _n(getattr(usage, "cache_read_tokens", 0))
    c_write = _n(getattr(usage, "cache_write_tokens", 0))
    plain = max(inp - c_read - c_write, 0)
    per = 1 / 1_000_000
    i_cost = plain * p.input * per
    read_cost = c_read * (p.cache_read if p.cache_read is not None else p.input) * per
    write_cost = c_write * (p.cache_write if p.cache_write is not None else p.input) * per
    if p.reasoning is not None and reasoning:
        o_cost = (max(out - reasoning, 0) * p.output + reasoning * p.reasoning) * per
    else:
        o_cost = out * p.output * per
    total = i_cost + o_cost + read_cost + write_cost
    return Cost(
        usd=round(total, 10),
        input=round(i_cost, 10),
        output=round(o_cost, 10),
        cache_read=round(read_cost, 10),
        cache_write=round(write_cost, 10),
        as_of=p.as_of,
        model=info.catalogue_row or model,
    )
