"""Find mappers by name.

Three sources, one namespace (plus variants of a built-in, ``openai-chat:groq``, resolved by the
built-in module's ``variant()`` when asked for and not listed by :func:`available`):

* built-in mappers, imported lazily from ``interlingua.providers.<module>``;
* third-party mappers declared in the ``interlingua.mappers`` entry point group
  (``name = "package.module:mapper"``), discovered on first lookup and loaded only
  when asked for;
* mappers added at run time with :func:`register`.

A name claimed twice is an error naming both sources. A plugin that fails to load
is reported when (and only when) its name is asked for, so a broken plugin never
stops the other formats from working.
"""

from __future__ import annotations

import importlib
import importlib.metadata
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import MappingError, UnknownFormatError

if TYPE_CHECKING:
    from .protocol import Mapper

__all__ = ["BUILTIN", "ENTRY_POINT_GROUP", "available", "get_mapper", "is_known", "register", "sources"]

ENTRY_POINT_GROUP = "interlingua.mappers"
"""Entry point group third-party mappers are declared in."""

BUILTIN: dict[str, str] = {
    "openai-chat": "interlingua.providers.openai_chat",
    "openai-responses": "interlingua.providers.openai_responses",
    "anthropic": "interlingua.providers.anthropic",
    "gemini": "interlingua.providers.gemini",
    "ollama": "interlingua.providers.ollama",
    "bedrock-converse": "interlingua.providers.bedrock_converse",
    "cohere": "interlingua.providers.cohere",
    "mistral": "interlingua.providers.mistral",
}
"""Registry name -> module exposing a module-level ``mapper``."""

_registered: dict[str, tuple[Mapper, str]] = {}
_loaded: dict[str, Mapper] = {}
_plugins: dict[str, tuple[Any, str]] | None = None  # name -> (EntryPoint, source); None: not discovered yet
_plugin_conflicts: dict[str, str] = {}  # name -> message, for names claimed twice by entry points


def _entry_point_source(ep: Any) -> str:
    dist = getattr(ep, "dist", None)
    dist_name = getattr(dist, "name", None) if dist is not None else None
    where = f" (distribution {dist_name!r})" if dist_name else ""
    return f"entry point {ep.name!r} = {ep.value!r} in group {ENTRY_POINT_GROUP!r}{where}"


def _discover() -> dict[str, tuple[Any, str]]:
    """Scan the entry point group once (nothing is imported here)."""
    global _plugins
    if _plugins is not None:
        return _plugins
    found: dict[str, tuple[Any, str]] = {}
    for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        source = _entry_point_source(ep)
        if ep.name in BUILTIN:
            _plugin_conflicts[ep.name] = f"mapper {ep.name!r} is already registered by interlingua ({BUILTIN[ep.name]}); {source} cannot register it again"
            continue
        if ep.name in found:
            if found[ep.name][0].value == ep.value:
                continue  # the same distribution seen twice on sys.path
            _plugin_conflicts[ep.name] = f"mapper {ep.name!r} is already registered by {found[ep.name][1]}; {source} cannot register it again"
            continue
        found[ep.name] = (ep, source)
    _plugins = found
    return found


def refresh() -> None:
    """Forget discovered entry points and loaded plugins (after installing a plugin at run time; tests)."""
    global _plugins
    _plugins = None
    _plugin_conflicts.clear()
    for name in [n for n in _loaded if n not in BUILTIN]:
        del _loaded[name]


def available() -> list[str]:
    """Names of every mapper that can be looked up (built in, entry points, registered), sorted."""
    return sorted(set(BUILTIN) | set(_discover()) | set(_plugin_conflicts) | set(_registered))


def sources() -> dict[str, str]:
    """Registry name -> where it comes from (module, entry point or ``register()`` source)."""
    out = {name: f"interlingua ({module})" for name, module in BUILTIN.items()}
    out.update({name: source for name, (_, source) in _discover().items()})
    out.update({name: source for name, (_, source) in _registered.items()})
    return dict(sorted(out.items()))


def _load_plugin(name: str, ep: Any, source: str) -> Mapper:
    try:
        obj = ep.load()
    except Exception as exc:  # a broken plugin must not take the other formats down
        raise UnknownFormatError(f"format {name!r} could not be loaded from {source}: {type(exc).__name__}: {exc}") from exc
    mapper = obj() if isinstance(obj, type) else obj
    missing = [attr for attr in ("name", "encode_request", "decode_request", "accumulator") if not hasattr(mapper, attr)]
    if missing:
        raise UnknownFormatError(f"format {name!r} from {source} is not a mapper (missing {', '.join(missing)})")
    return mapper


def get_mapper(name: str) -> Mapper:
    """Return the mapper registered under ``name``.

    Raises:
        UnknownFormatError: no such name (the message lists the known ones), or a plugin
            declared under ``name`` failed to load (the message names the entry point and the cause).
        MappingError: two entry points claim ``name`` (the message names both).
    """
    if name in _registered:
        return _registered[name][0]
    if name in _loaded:
        return _loaded[name]
    base, sep, variant = name.partition(":")
    if sep and base in BUILTIN:
        return _load_variant(name, base, variant)
    module_name = BUILTIN.get(name)
    if module_name is None:
        plugins = _discover()
        if name in _plugin_conflicts:
            raise MappingError(_plugin_conflicts[name])
        if name not in plugins:
            raise UnknownFormatError(f"unknown format {name!r}; known: {', '.join(available())}")
        mapper = _load_plugin(name, *plugins[name])
        _loaded[name] = mapper
        return mapper
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            raise UnknownFormatError(f"format {name!r} is not available in this build") from exc
        raise
    _loaded[name] = module.mapper
    return module.mapper


def _load_variant(name: str, base: str, variant: str) -> Mapper:
    """``<builtin>:<variant>`` (``openai-chat:groq``): the built-in module's ``variant(name)``."""
    module = importlib.import_module(BUILTIN[base])
    factory = getattr(module, "variant", None)
    if factory is None:
        raise UnknownFormatError(f"unknown format {name!r}: {base!r} has no variants; known: {', '.join(available())}")
    mapper: Mapper = factory(variant)
    _loaded[name] = mapper
    return mapper


def is_known(name: str) -> bool:
    """Whether ``name`` is a registry name (:func:`available`) or a variant of a built-in
    (``openai-chat:groq``), without loading a plugin."""
    if name in available():
        return True
    base, sep, variant = name.partition(":")
    if not sep or base not in BUILTIN:
        return False
    try:
        get_mapper(name)
    except UnknownFormatError:
        return False
    return True


def register(name: str, mapper: Mapper, *, source: str = "register()") -> Callable[[], None]:
    """Register ``mapper`` under ``name`` at run time.

    Args:
        name: Registry name (what ``--from``/``--to`` accept).
        mapper: An object keeping the :class:`~interlingua.mapping.protocol.Mapper` protocol.
        source: Who registers it, for error messages (e.g. ``"myapp.setup"``).

    Returns:
        A callable that unregisters it (idempotent).

    Raises:
        MappingError: ``name`` is already taken by a built-in mapper, an entry point or an earlier
            :func:`register` (the message names both sources).
    """
    if name in BUILTIN:
        raise MappingError(f"mapper {name!r} is already registered by interlingua ({BUILTIN[name]}); {source} cannot register it again")
    if name in _registered:
        raise MappingError(f"mapper {name!r} is already registered by {_registered[name][1]}; {source} cannot register it again")
    plugins = _discover()
    if name in plugins:
        raise MappingError(f"mapper {name!r} is already registered by {plugins[name][1]}; {source} cannot register it again")
    _registered[name] = (mapper, source)

    def unregister() -> None:
        if _registered.get(name, (None,))[0] is mapper:
            del _registered[name]

    return unregister
