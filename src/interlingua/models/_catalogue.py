"""The pinned catalogue snapshot (``interlingua/data/catalogue.json``): loaded on first use, then cached.

The snapshot is written by ``tools/refresh_models.py`` from the JSON file that the pinned ``litellm``
wheel carries (``model_prices_and_context_window_backup.json``, MIT; ADR 0030). It keeps, per catalogue
provider and lower-cased model name, only the catalogue's own fields that :mod:`interlingua.models`
derives from (their names as LiteLLM spells them: ``max_input_tokens``, ``supports_vision``,
``input_cost_per_token``, ...). Nothing here is read at ``import interlingua``.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from importlib import resources
from typing import Any

__all__ = ["CatalogueRow", "CatalogueSource", "find", "rows", "source"]

_DATA_PACKAGE = "interlingua.data"
_FILE = "catalogue.json"
_DATE_SUFFIX = re.compile(r"-(?:\d{4}-\d{2}-\d{2}|\d{8}|\d{4})$")


@dataclass(frozen=True)
class CatalogueSource:
    """Where the snapshot comes from.

    Attributes:
        package: The registry package carrying the catalogue (``litellm``).
        version: Its pinned release.
        file: The file inside the package's wheel.
        sha256: SHA-256 of that file.
        date: When the pin was taken (ISO date): prices and limits are as of then.
        license: The catalogue's licence.
        homepage: The catalogue's public project.
    """

    package: str
    version: str
    file: str
    sha256: str
    date: str
    license: str
    homepage: str

    def label(self) -> str:
        """``litellm 1.110.2 (2026-12-01)``: how reports and the viewer name the price list."""
        return f"{self.package} {self.version} ({self.date})"


@dataclass(frozen=True)
class CatalogueRow:
    """One catalogue model: ``provider`` and ``name`` as the catalogue spells them, its kept ``fields``."""

    provider: str
    name: str
    fields: dict[str, Any]

    @property
    def key(self) -> str:
        """``cerebras/gpt-oss-120b``: the row's address, as ``interlingua models`` shows it."""
        return f"{self.provider}/{self.name}"


@functools.cache
def _document() -> dict[str, Any]:
    import msgspec

    data = resources.files(_DATA_PACKAGE).joinpath(_FILE).read_bytes()
    doc: dict[str, Any] = msgspec.json.decode(data)
    return doc


def source() -> CatalogueSource:
    """The snapshot's source record (reads the snapshot on first use)."""
    return CatalogueSource(**_document()["source"])


def rows(provider: str) -> dict[str, dict[str, Any]]:
    """Every model of catalogue provider ``provider``, by lower-cased name (empty when it has none)."""
    out: dict[str, dict[str, Any]] = _document()["providers"].get(provider, {})
    return out


def all_providers() -> list[str]:
    """The catalogue providers the snapshot holds."""
    return sorted(_document()["providers"])


def _candidates(model: str) -> list[str]:
    """The names ``model`` is looked up by, most exact first: itself; its last ``/`` segment
    (``models/gemini-2.5-flash``); each without a trailing date (``gpt-4o-2024-08-06`` -> ``gpt-4o``)."""
    name = model.strip().lower()
    names = [name]
    tail = name.rsplit("/", 1)[-1]
    if tail != name:
        names.append(tail)
    for n in list(names):
        bare = _DATE_SUFFIX.sub("", n)
        if bare != n and bare:
            names.append(bare)
    return list(dict.fromkeys(names))


def find(providers: tuple[str, ...], model: str) -> CatalogueRow | None:
    """The first row for ``model`` among ``providers`` (each name form of :func:`_candidates` is
    tried in every provider before the next, less exact, form)."""
    for name in _candidates(model):
        for provider in providers:
            row = rows(provider).get(name)
            if row is not None:
                return CatalogueRow(provider, name, row)
    return None
