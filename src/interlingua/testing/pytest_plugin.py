"""pytest plugin for projects that test the conversations their agents produce.

Installed with interlingua (``pytest11`` entry point named like the module, so an explicit
``-p interlingua.testing.pytest_plugin`` is harmless; use that flag when the package is not installed). It provides:

* fixture ``assert_valid_transcript``: :func:`interlingua.testing.assertions.assert_valid_transcript`
  (also importable directly), whose failures name the item and the JSON pointer;
* fixture ``transcript_snapshot``: syrupy's ``snapshot`` using
  :class:`~interlingua.testing.snapshot.TranscriptSnapshotExtension` with generated ids and
  timestamps normalized (needs syrupy);
* marker ``interlingua``, for tagging conversation tests.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from ._extra import EXTRA_HINT
from .assertions import assert_valid_transcript as _assert_valid_transcript

__all__ = ["assert_valid_transcript", "transcript_snapshot"]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "interlingua: a test of conversations in interlingua form")


@pytest.fixture
def assert_valid_transcript() -> Callable[..., None]:
    """The :func:`~interlingua.testing.assertions.assert_valid_transcript` assertion."""
    return _assert_valid_transcript


@pytest.fixture
def transcript_snapshot(request: pytest.FixtureRequest) -> Any:
    """syrupy's ``snapshot`` storing transcripts as JSON, ids and timestamps normalized.

    Raises:
        pytest.fail.Exception: syrupy is not installed; the message says ``pip install 'interlingua[testing]'``.
    """
    try:
        from .snapshot import TranscriptSnapshotExtension
    except ModuleNotFoundError as exc:
        if exc.name != "syrupy":
            raise
        pytest.fail(f"the transcript_snapshot fixture needs syrupy, which is not installed: {EXTRA_HINT}", pytrace=False)
    snapshot = request.getfixturevalue("snapshot")
    return snapshot.use_extension(TranscriptSnapshotExtension.with_options(normalize_ids=True, normalize_timestamps=True))
