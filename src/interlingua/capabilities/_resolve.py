"""Where a target model's capabilities come from.

Order: the caller's resolver, then resolvers installed through the
``interlingua.capabilities`` entry point group (by entry point name), then the
model table, then the mapper's defaults.
Nothing is inferred from a hostname or base URL: an OpenAI-compatible endpoint
serving another vendor's model is described by a resolver or a table entry.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from ..items import ModelCapabilities, ModelTable
from ._table import lookup

if TYPE_CHECKING:
    from ..mapping.protocol import Mapper

__all__ = ["RESOLVER_ENTRY_POINT_GROUP", "Resolution", "Resolver", "plugin_resolvers", "resolve", "resolve_capabilities"]

RESOLVER_ENTRY_POINT_GROUP = "interlingua.capabilities"
"""Entry point group of installed capability resolvers (each loads to a :data:`Resolver`)."""

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


_plugin_cache: list[tuple[str, Resolver]] | None = None


def plugin_resolvers(*, refresh: bool = False) -> list[tuple[str, Resolver]]:
    """Installed resolvers as ``(entry point name, resolver)``, sorted by name, loaded once.

    Raises:
        MappingError: two entry points share a name (the message names both), or one fails to
            load or is not callable (the message names the entry point and the cause).
    """
    global _plugin_cache
    if _plugin_cache is not None and not refresh:
        return _plugin_cache
    from ..errors import MappingError

    seen: dict[str, tuple[Any, str]] = {}
    for ep in sorted(importlib.metadata.entry_points(group=RESOLVER_ENTRY_POINT_GROUP), key=lambda e: e.name):
        source = f"entry point {ep.name!r} = {ep.value!r} in group {RESOLVER_ENTRY_POINT_GROUP!r}"
        if ep.name in seen and seen[ep.name][1] != source:
            raise MappingError(f"capability resolver {ep.name!r} is already registered by {seen[ep.name][1]}; {source} cannot register it again")
        seen[ep.name] = (ep, source)
    out: list[tuple[str, Resolver]] = []
    for name, (ep, source) in seen.items():
        try:
            fn = ep.load()
        except Exception as exc:
            raise MappingError(f"capability resolver {source} could not be loaded: {type(exc).__name__}: {exc}") from exc
        if not callable(fn):
            raise MappingError(f"capability resolver {source} is not callable")
        out.append((name, fn))
    _plugin_cache = out
    return out


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
        resolver: Caller-supplied lookup, asked first; then installed resolvers (:func:`plugin_resolvers`).
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
        for name, plugin in plugin_resolvers():
            found = plugin(provider, model)
            if found is not None:
                if not isinstance(found, ModelCapabilities):
                    raise TypeError(f"capability resolver {name!r} returned {type(found).__name__}, not ModelCapabilities or None")
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
