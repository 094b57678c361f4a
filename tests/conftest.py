"""Shared test fixtures.

``tests/fixtures/real`` holds real recorded provider payloads (copied from
``shared/fixtures/real``; provenance and fidelity notes in its README.md).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
REAL = FIXTURES / "real"


def load_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture
def real() -> Path:
    """Directory of the real recorded payloads."""
    return REAL
