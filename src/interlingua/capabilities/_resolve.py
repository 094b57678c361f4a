"""Where a target model's capabilities come from.

Order: the caller's resolver, then the model table, then the mapper's defaults.
Nothing is inferred from a hostname or base URL: an OpenAI-compatible endpoint
serving another vendor's model is described by a resolver or a table entry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, TypeAlias

from ..items import ModelCapabilities, ModelTable
from ._table import lookup

if TYPE_CHECKING:
    from ..mapping.protocol import Mapper

__all__ = ["Resolution", "Resolver", "resolve", "resolve_capabilities"]

Resolver: TypeAlias = Callable[[str, str], "ModelCapabilities | None"]
"""A caller's lookup: ``(provider, model) -> ModelCapabilities`` or ``None`` to fall through."""


@dataclass(frozen=True)
class Resolution:
    """Resolved capabilities and where they came from.

    Attributes:
        capabilities: The capabilities to check against.
        source: ``resolver``, ``table`` or ``mapper``.
        pattern: The matching table pattern when ``source`` is ``table``.
    """

    capabilities: ModelCapabilities
    source: Literal["resolver", "table", "mapper"]
    pattern: str | None = None


def resolve(
    provider: str,
    model: str | None,
    *,
    mapper: Mapper | None = None,
    resolver: Resolver | None = None,
    table: ModelTable | None = None,
) -> Resolution:
    """Resolve the capabilities of ``model`` on the wire format ``provider``.

    Args:
        provider: Mapper registry name of the target wire format.
        model: Target model, or ``None`` when unknown (then only the mapper's defaults apply).
        mapper: The target mapper; looked up by ``provider`` when ``None`` (only if needed).
        resolver: Caller-supplied lookup, asked first.
        table: Model table; the shipped one when ``None``.

    Returns:
        A :class:`Resolution`.

    Raises:
        UnknownFormatError: the mapper defaults are needed and no mapper is registered as ``provider``.
        TypeError: the resolver returned something other than ``ModelCapabilities`` or ``None``.
    """
    if model:
        if resolver is not None:
            found = resolver(provider, model)
            if found is not None:
                if not isinstance(found, ModelCapabilities):
                    raise TypeError(f"capability resolver returned {type(found).__name__}, not ModelCapabilities or None")
                return Resolution(found, "resolver")
        entry = lookup(provider, model, table)
        if entry is not None:
            return Resolution(entry.capabilities, "table", entry.pattern)
    if mapper is None:
        from ..mapping.registry import get_mapper

        mapper = get_mapper(provider)
    return Resolution(mapper.capabilities(model), "mapper")


def resolve_capabilities(
    provider: str,
    model: str | None,
    *,
    mapper: Mapper | None = None,
    resolver: Resolver | None = None,
    table: ModelTable | None = None,
) -> ModelCapabilities:
    """Like :func:`resolve`, returning only the capabilities."""
    return resolve(provider, model, mapper=mapper, resolver=resolver, table=table).capabilities
