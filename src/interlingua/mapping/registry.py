"""Find mappers by name.

Built-in mappers are imported lazily from ``interlingua.providers.<module>``;
others are added with :func:`register` (and, later, the ``interlingua.mappers``
entry point group).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..errors import MappingError, UnknownFormatError

if TYPE_CHECKING:
    from .protocol import Mapper

__all__ = ["BUILTIN", "available", "get_mapper", "register"]

BUILTIN: dict[str, str] = {
    "openai-chat": "interlingua.providers.openai_chat",
    "openai-responses": "interlingua.providers.openai_responses",
    "anthropic": "interlingua.providers.anthropic",
    "gemini": "interlingua.providers.gemini",
    "ollama": "interlingua.providers.ollama",
}
"""Registry name -> module exposing a module-level ``mapper``."""

_registered: dict[str, tuple[Mapper, str]] = {}
_loaded: dict[str, Mapper] = {}


def available() -> list[str]:
    """Names of every mapper that can be looked up, sorted."""
    return sorted(set(BUILTIN) | set(_registered))


def get_mapper(name: str) -> Mapper:
    """Return the mapper registered under ``name``.

    Raises:
        UnknownFormatError: no such name; the message lists the known ones.
    """
    if name in _registered:
        return _registered[name][0]
    if name in _loaded:
        return _loaded[name]
    module_name = BUILTIN.get(name)
    if module_name is None:
        raise UnknownFormatError(f"unknown format {name!r}; known: {', '.join(available())}")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            raise UnknownFormatError(f"format {name!r} is not available in this build") from exc
        raise
    _loaded[name] = module.mapper
    return module.mapper


def register(name: str, mapper: Mapper, *, source: str = "register()") -> Callable[[], None]:
    """Register ``mapper`` under ``name`` at run time.

    Returns:
        A callable that unregisters it.

    Raises:
        MappingError: ``name`` is already taken (the message names both sources).
    """
    if name in BUILTIN:
        raise MappingError(f"mapper {name!r} is already registered by interlingua ({BUILTIN[name]}); {source} cannot register it again")
    if name in _registered:
        raise MappingError(f"mapper {name!r} is already registered by {_registered[name][1]}; {source} cannot register it again")
    _registered[name] = (mapper, source)

    def unregister() -> None:
        if _registered.get(name, (None,))[0] is mapper:
            del _registered[name]

    return unregister
