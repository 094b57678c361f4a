"""Shared test fixtures.

``tests/fixtures/real`` holds real recorded provider payloads (copied from
``shared/fixtures/real``; provenance and fidelity notes in its README.md).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

# No timed assertions in tests: hypothesis' per-example deadline (200 ms by default) failed examples
# that took longer only because the machine was busy. Tests that set their own settings inherit this.
settings.register_profile("interlingua", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("interlingua")

FIXTURES = Path(__file__).parent / "fixtures"
REAL = FIXTURES / "real"


def load_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture
def real() -> Path:
    """Directory of the real recorded payloads."""
    return REAL


@pytest.fixture(autouse=True)
def _fixed_today(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests run on a fixed date (2026-11-01, before the catalogue's deprecation dates of the models
    they use), so a model's date passing does not change their output; tests of the deprecation
    warning set their own date (``interlingua.capabilities._resolve.today``)."""
    import datetime

    import interlingua.capabilities._resolve as resolve_mod

    monkeypatch.setattr(resolve_mod, "today", lambda: datetime.date(2026, 11, 1))
