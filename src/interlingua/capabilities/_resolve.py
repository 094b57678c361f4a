"""Where a target model's capabilities come from.

Order: the caller's resolver, then resolvers installed through the
``interlingua.capabilities`` entry point group (by entry point name), then what
:func:`interlingua.models.lookup` knows (the user's model table, interlingua's overrides in
``models.json``, the pinned catalogue, field by field). A model none of them describes has
*unknown* capabilities: the resolution's ``source`` is ``unknown`` and its capabilities take
nothing from a default model (every model-level capability is open), so preflight refuses nothing on
a guess; :func:`unknown_model_warning` says what could not be checked. Only with no model at all
(``None``) are the mapper's defaults used as such.
Nothing is inferred from a hostname or base URL: an OpenAI-compatible endpoint
serving another vendor's model is described by a resolver, a table entry or its host registry entry.
"""

from __future__ import annotations

import datetime

import importlib.metadata
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from ..items import ModelCapabilities, ModelTable
from ._table import lookup

if TYPE_CHECKING:
    from ..mapping.protocol import Mapper

__all__ = [
    "RESOLVER_ENTRY_POINT_GROUP",
    "Resolution",
    "Resolver",
    "open_capabilities",
    "plugin_resolvers",
    "resolve",
    "resolve_capabilities",
    "unknown_model_warning",
]

RESOLVER_ENTRY_POINT_GROUP = "interlingua.capabilities"
"""Entry point group of installed capability resolvers (each loads to a :data:`Resolver`)."""

Resolver: TypeAlias = Callable[[str, str], "ModelCapabilities | None"]
"""A caller's lookup: ``(provider, model) -> ModelCapabilities`` or ``None`` to fall through."""


@dataclass(frozen=True)
class Resolution:
    """Resolved capabilities and where they came from.

    Attributes:
        capabilities: The capabilities to check against (for ``unknown``: open on every model-level
            capability, the wire format's own rules kept).
        source: ``resolver`` (a caller's or an installed resolver), ``table`` (an override entry of
            ``models.json`` or the caller's ``table``), ``user`` (the user's model table),
            ``catalogue`` (the pinned catalogue only), ``unknown`` (nothing describes the model) or
            ``mapper`` (no model named: the mapper's defaults).
        pattern: The matching table pattern when ``source`` is ``table``.
        info: What :func:`interlingua.models.lookup` returned, when it was asked.
        defaults: For ``unknown``: the wire format's defaults, which preflight did *not* apply.
    """

    capabilities: ModelCapabilities
    source: Literal["resolver", "table", "user", "catalogue", "unknown", "mapper"]
    pattern: str | None = None
    info: Any = None
    defaults: ModelCapabilities | None = None


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
        if table is not None:
            entry = lookup(provider, model, table)
            if entry is not None:
                return Resolution(entry.capabilities, "table", entry.pattern)
        found_info = _model_info(provider, model)
        if found_info is not None:
            info = found_info
            if info.known:
                origins = {f.origin for f in info.facts.values()}
                source: Literal["table", "user", "catalogue"] = "user" if "user" in origins else "table" if info.override is not None else "catalogue"
                pattern = info.override.pattern if source == "table" else None
                return Resolution(info.capabilities, source, pattern, info=info)
            return Resolution(open_capabilities(info.capabilities), "unknown", info=info, defaults=info.capabilities)
    if mapper is None:
        from ..mapping.registry import get_mapper

        mapper = get_mapper(provider)
    return Resolution(mapper.capabilities(model), "mapper")


def _model_info(provider: str, model: str) -> Any:
    """:func:`interlingua.models.lookup` for a built-in wire format (``None`` for a plugin mapper, whose
    own ``capabilities(model)`` speaks for its models)."""
    from ..mapping.registry import BUILTIN

    if provider.partition(":")[0] not in BUILTIN:
        return None
    from ..models._info import lookup as model_lookup

    return model_lookup(provider, model)


_ALL_MODALITIES = ["text", "image", "audio", "video", "document"]


def open_capabilities(defaults: ModelCapabilities) -> ModelCapabilities:
    """``defaults`` with every model-level capability open (all input modalities, tools, parallel calls,
    reasoning settings, structured output, stop sequences, no output limit): what preflight checks an
    unknown model against, so it refuses nothing on a guess. The wire format's own rules
    (``requires_tool_definitions``, ``raw_round_trip``, ``streaming``) stay."""
    import msgspec

    return msgspec.structs.replace(
        defaults,
        input_modalities=list(_ALL_MODALITIES),
        tools=True,
        parallel_tool_calls=True,
        reasoning_settings=True,
        structured_output=True,
        stop_sequences=True,
        max_output_tokens=msgspec.UNSET,
        max_tool_calls_per_turn=msgspec.UNSET,
    )


def unknown_model_warning(resolution: Resolution, transcript: Any, *, provider: str, model: str | None, stream: bool = False) -> str | None:
    """The report line for a target model nothing describes (``None`` when the model is known).

    It says that preflight could not check the conversation against the model, and which checks the
    wire format's defaults would have failed (information only: nothing was refused on them).
    """
    if resolution.source != "unknown" or resolution.defaults is None:
        return None
    from ._preflight import check

    would = check(transcript, resolution.defaults, provider=provider, stream=stream)
    return unknown_model_text(provider, model, {v.reason for v in would})


def today() -> datetime.date:
    """The current date in UTC (a function, so tests can set the date)."""
    return datetime.datetime.now(datetime.timezone.utc).date()


def deprecation_warning(provider: str, model: str | None, *, on: datetime.date | None = None) -> str | None:
    """The report line for a target model whose retirement or deprecation date is past, else ``None``.

    The date comes from the model catalogue (``deprecation_date``, LiteLLM's row) or an override's
    ``retired``; ``on`` is the day compared with (default :func:`today`). A date that does not parse,
    or a model the catalogue does not describe, gives ``None``.
    """
    if not model:
        return None
    try:
        from ..models import lookup as facts_of

        info = facts_of(provider, model)
    except Exception:  # noqa: BLE001 - a warning never fails a conversion
        return None
    day = on or today()
    for label, value in (("retired", info.retired), ("deprecation date", info.deprecation_date)):
        if not isinstance(value, str):
            continue
        try:
            when = datetime.date.fromisoformat(value[:10])
        except ValueError:
            continue
        if when < day:
            source = f"catalogue row {info.catalogue_row}" if info.catalogue_row and label != "retired" else "models.json override"
            return (
                f"model {model!r} is past its {label} {value} ({source}; today is {day.isoformat()}): "
                f"{provider} may no longer serve it; move to a current model (`interlingua models --provider {provider}`)"
            )
    return None


def unknown_model_text(provider: str, model: str | None, would: set[str]) -> str:
    """The text of :func:`unknown_model_warning` given the reasons the wire format's defaults would
    have refused the conversation for (``would``, empty when none): a caller that checks a long
    transcript in parts (``interlingua._windowed``) gathers them part by part."""
    text = (
        f"model {model!r} is not in the model catalogue or the overrides: its capabilities are unknown, so preflight "
        f"could not check the conversation against them (the provider decides; describe the model with INTERLINGUA_MODELS "
        f"or a resolver, see docs/capabilities.md)"
    )
    if would:
        reasons = "; ".join(sorted(would))
        text += f"; the {provider} defaults, which were not applied, would have refused: {reasons}"
    return text


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
