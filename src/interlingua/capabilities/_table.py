"""The shipped model table: known models' capabilities by wire format and name pattern.

The table lives in ``interlingua/data/models.json`` and is validated by
``schemas/model_table.json`` (tested with jsonschema; loaded here with msgspec).
Patterns are shell-style globs (:func:`fnmatch.fnmatchcase` on lower-cased text),
never regular expressions. Matching looks only at the provider (mapper registry
name) and the model name: never at a hostname or base URL.
"""

from __future__ import annotations

import functools
import os
from fnmatch import fnmatchcase
from importlib import resources
from pathlib import Path

import msgspec

from ..errors import DocumentError, Problem
from ..items import ModelTable, ModelTableEntry

__all__ = ["default_table", "load_table", "lookup", "pattern_matches", "spelled_fields"]

_DATA_PACKAGE = "interlingua.data"
_TABLE_FILE = "models.json"


def _decode(data: bytes, label: str) -> ModelTable:
    try:
        return msgspec.json.decode(data, type=ModelTable)
    except msgspec.DecodeError as exc:
        raise DocumentError(Problem("", f"model table is not valid: {exc}", label)) from exc


def load_table(path: str | os.PathLike[str]) -> ModelTable:
    """Read a model table from a JSON file (shape: ``schemas/model_table.json``).

    Raises:
        DocumentError: the file is not a valid model table (the message names the file).
        OSError: the file cannot be read.
    """
    return _decode(Path(path).read_bytes(), str(path))


@functools.cache
def default_table() -> ModelTable:
    """The table shipped with interlingua (read once, then cached).

    Raises:
        DocumentError: the packaged file is broken (a build defect).
    """
    data = resources.files(_DATA_PACKAGE).joinpath(_TABLE_FILE).read_bytes()
    return _decode(data, f"{_DATA_PACKAGE}/{_TABLE_FILE}")


@functools.cache
def _default_spelled() -> dict[int, frozenset[str]]:
    """Per entry of :func:`default_table` (by identity), the capability fields its JSON spells out."""
    raw = msgspec.json.decode(resources.files(_DATA_PACKAGE).joinpath(_TABLE_FILE).read_bytes())
    return {id(entry): frozenset(given["capabilities"]) for entry, given in zip(default_table().entries, raw["entries"], strict=True)}


def spelled_fields(entry: ModelTableEntry) -> frozenset[str] | None:
    """The capability fields a shipped override entry states (``models.json`` entries state only what
    they change on top of the catalogue); ``None`` for an entry of another table (all its fields count)."""
    return _default_spelled().get(id(entry))


def pattern_matches(pattern: str, model: str) -> bool:
    """Whether ``model`` matches a table ``pattern``.

    The glob is matched case-insensitively against the whole name, then against its
    last ``/``-separated segment, so ``models/gemini-2.5-flash`` matches ``gemini-2.*``.
    """
    pat = pattern.lower()
    name = model.lower()
    if fnmatchcase(name, pat):
        return True
    tail = name.rsplit("/", 1)[-1]
    return tail != name and fnmatchcase(tail, pat)


def lookup(provider: str, model: str, table: ModelTable | None = None) -> ModelTableEntry | None:
    """The first entry of ``table`` for ``provider`` whose pattern matches ``model``.

    Args:
        provider: Mapper registry name (``anthropic``, ``ollama``, ...).
        model: Model name as the caller will send it.
        table: A table; the shipped one when ``None``.

    Returns:
        The entry, or ``None`` when no entry of that provider matches.
    """
    if table is None:
        return _lookup_default(provider, model)
    return _first_match(table, provider, model)


def _first_match(table: ModelTable, provider: str, model: str) -> ModelTableEntry | None:
    for entry in table.entries:
        if entry.provider == provider and pattern_matches(entry.pattern, model):
            return entry
    return None


@functools.lru_cache(maxsize=1024)
def _lookup_default(provider: str, model: str) -> ModelTableEntry | None:
    """:func:`lookup` in the shipped table, remembered per (provider, model): every conversion asks it."""
    return _first_match(default_table(), provider, model)
