"""Fixtures for plugin tests: fake installed entry points."""

from __future__ import annotations

import importlib.metadata
from collections.abc import Iterator

import pytest

from interlingua.mapping import registry


@pytest.fixture
def entry_points(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[importlib.metadata.EntryPoint]]:
    """Fake installed entry points of the ``interlingua.mappers`` group (append to the list)."""
    eps: list[importlib.metadata.EntryPoint] = []

    def fake(**kw: object) -> list[importlib.metadata.EntryPoint]:
        assert kw == {"group": registry.ENTRY_POINT_GROUP}
        return list(eps)

    monkeypatch.setattr(registry.importlib.metadata, "entry_points", fake)
    registry.refresh()
    yield eps
    monkeypatch.undo()
    registry.refresh()
