"""Gateway model ids: which model a host's own id names, so the catalogue's row for it can describe it.

Gateways and hosts spell another vendor's model their own way: OpenRouter ``anthropic/claude-sonnet-4.5``
and ``google/gemini-2.0-flash-exp:free``, the Hugging Face router ``deepseek-ai/DeepSeek-R1``, Amazon
Bedrock's OpenAI-compatible endpoint ``openai.gpt-5.5``. The rules, tried in order by
:func:`interlingua.models.lookup` for the wire formats of
:data:`~interlingua.models._sources.OPEN_HOST_FALLBACK` once the model's exact name found nothing:

1. an OpenRouter variant suffix (:data:`~interlingua.models._sources.GATEWAY_VARIANTS`: ``:free``,
   ``:thinking``, ...) is the same model served another way: it is stripped;
2. a vendor segment (``vendor/model``, or ``vendor.model`` for a vendor of
   :data:`~interlingua.models._sources.VENDOR_FORMATS`) names the wire format whose rows describe the
   vendor's own models; the model is looked up there (its catalogue row, then its overrides);
3. the vendors spell versions with dashes where gateways use dots (``claude-sonnet-4.5`` is
   Anthropic's ``claude-sonnet-4-5``): that spelling is tried after the gateway's own;
4. a model whose vendor serves no API of its own (``meta-llama``, ``qwen``) is found in the hosts' rows
   by the rows' last ``/`` segment (Fireworks' ``accounts/fireworks/models/qwen3-32b``).

Nothing here guesses from a hostname; a model none of the rules finds stays unknown.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from ._catalogue import CatalogueRow, rows
from ._sources import GATEWAY_VARIANTS, VENDOR_FORMATS

__all__ = ["Underlying", "row_by_tail", "underlying"]

_DOTTED_VERSION = re.compile(r"(?<=\d)\.(?=\d)")


@dataclass(frozen=True)
class Underlying:
    """One reading of a gateway id.

    Attributes:
        provider: The wire format whose rows describe the vendor's models (``anthropic``); ``None``
            when the vendor has none (search every host's rows).
        name: The model as that vendor spells it (``claude-sonnet-4-5``).
        rule: How it was read, for ``interlingua models show`` (``vendor 'anthropic' -> anthropic,
            dotted version 4.5 -> 4-5``).
        variant: The stripped variant suffix (``free``), if any.
    """

    provider: str | None
    name: str
    rule: str
    variant: str | None = None


def underlying(model: str) -> list[Underlying]:
    """The readings of gateway id ``model``, most literal first (empty when it has no vendor segment
    and no variant suffix: it is nobody's gateway id).

    Examples: ``anthropic/claude-3.7-sonnet:thinking`` -> (``anthropic``, ``claude-3.7-sonnet``),
    (``anthropic``, ``claude-3-7-sonnet``); ``openai.gpt-5.5`` -> (``openai-responses``, ``gpt-5.5``),
    (``openai-responses``, ``gpt-5-5``); ``qwen/qwen3-32b`` -> (``None``, ``qwen3-32b``).
    """
    name = model.strip()
    steps: list[str] = []
    variant = None
    head, sep, tail = name.rpartition(":")
    if sep and tail.lower() in GATEWAY_VARIANTS and ("/" in head or "." in head):
        name, variant = head, tail.lower()
        steps.append(f"variant ':{variant}' stripped")
    vendor, sep, rest = name.partition("/")
    if not sep or "/" in rest:
        head, dot, after = name.partition(".")
        if dot and head.lower() in VENDOR_FORMATS and after:
            vendor, rest = head, after
        elif not steps:
            return []
        else:
            vendor, rest = "", name
    if not rest:
        return []
    provider = VENDOR_FORMATS.get(vendor.lower()) if vendor else None
    if vendor:
        steps.append(f"vendor {vendor!r} -> " + (provider or "the hosts' rows"))
    forms = [rest]
    dashed = _DOTTED_VERSION.sub("-", rest)
    if dashed != rest:
        forms.append(dashed)
    out = []
    for form in forms:
        extra = [f"dotted version -> {form!r}"] if form is not rest else []
        out.append(Underlying(provider, form, "gateway id " + ", ".join(steps + extra), variant))
    return out


@functools.cache
def _tails(providers: tuple[str, ...]) -> dict[str, tuple[str, str]]:
    """Every row of ``providers`` by its name's last ``/`` segment -> (provider, row name); the first
    provider (then the first name, sorted) holding a segment wins."""
    out: dict[str, tuple[str, str]] = {}
    for provider in providers:
        for name in sorted(rows(provider)):
            tail = name.rsplit("/", 1)[-1]
            if tail != name:
                out.setdefault(tail, (provider, name))
    return out


def row_by_tail(providers: tuple[str, ...], name: str) -> CatalogueRow | None:
    """The row of ``providers`` whose name's last ``/`` segment is ``name`` (case-insensitive)."""
    hit = _tails(providers).get(name.strip().lower())
    if hit is None:
        return None
    provider, key = hit
    return CatalogueRow(provider, key, rows(provider)[key])
