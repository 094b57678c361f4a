"""Which vendor's models a wire format names, so a model carries between two APIs of one vendor.

A model name does not carry across providers (another provider has other models), but some wire formats
name the same vendor's models: OpenAI's model ids are the same on Chat Completions and Responses, and
Anthropic's Claude ids have Bedrock equivalents (``claude-sonnet-4-5-20250929`` is
``anthropic.claude-sonnet-4-5-20250929-v1:0`` there). Each mapper declares this with a ``vendor_models``
attribute (a tuple of :class:`VendorModels`); :func:`carried_model` reads the declarations of two mappers
and nothing else, so no provider is named here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..capabilities._table import pattern_matches

__all__ = ["VendorModels", "carried_model"]


def _same(model: str) -> str | None:
    return model


@dataclass(frozen=True)
class VendorModels:
    """One vendor's models as a wire format names them.

    Attributes:
        vendor: The vendor's name (``"openai"``, ``"anthropic"``): two declarations with the same vendor
            name the same models.
        patterns: Globs (the model table's rule, :func:`interlingua.capabilities.pattern_matches`) of this
            format's ids for the vendor's models.
        to_vendor: This format's id -> the vendor's own id (``None``: not one of the vendor's models).
        from_vendor: The vendor's own id -> this format's id (``None``: no id for it here).
    """

    vendor: str
    patterns: tuple[str, ...]
    to_vendor: Callable[[str], str | None] = _same
    from_vendor: Callable[[str], str | None] = _same

    def vendor_id(self, model: str) -> str | None:
        """The vendor's own id of ``model`` when this declaration covers it."""
        if any(pattern_matches(p, model) for p in self.patterns):
            return self.to_vendor(model)
        return None


def _declarations(mapper: Any) -> tuple[VendorModels, ...]:
    found = getattr(mapper, "vendor_models", ())
    return tuple(d for d in found if isinstance(d, VendorModels)) if isinstance(found, tuple) else ()


def carried_model(source: Any, target: Any, model: str) -> str | None:
    """``model`` (named by ``source``'s wire format) as ``target``'s wire format names it, or ``None``.

    ``None`` unless both mappers declare the same vendor and ``model`` is one of that vendor's models
    that ``target`` has an id for. The result may differ from ``model`` (a renamed id: the caller reports it).
    """
    for src in _declarations(source):
        vendor_id = src.vendor_id(model)
        if vendor_id is None:
            continue
        for dst in _declarations(target):
            if dst.vendor == src.vendor:
                out = dst.from_vendor(vendor_id)
                if out:
                    return out
    return None
