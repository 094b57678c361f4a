"""The unpacked corpus, once per test session (shared by the pytest-xdist workers of one run)."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from . import _engine


@pytest.fixture(scope="session")
def corpus_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The corpus unpacked into the session's temporary folder.

    Under pytest-xdist every worker has its own base temp; their common parent is the run's, so the
    archive is unpacked once per run, under a file lock, and the workers share it.
    """
    return _unpack_once(tmp_path_factory, "interlingua-corpus", _engine.unpack)


@pytest.fixture(scope="session")
def corpus_extra_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The extra corpus (``tests/fixtures/corpus_extra/corpus_extra.tar.xz``) unpacked once per run, like :func:`corpus_root`."""
    return _unpack_once(tmp_path_factory, "interlingua-corpus-extra", _engine.unpack_extra)


def _unpack_once(factory: pytest.TempPathFactory, name: str, unpack: Callable[[Path], Path]) -> Path:
    """``unpack(<run's base temp>/name)`` once per run: under pytest-xdist every worker has its own base
    temp, their common parent is the run's; a file lock makes the workers share one unpacking."""
    base = factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent
    dest = base / name
    dest.parent.mkdir(parents=True, exist_ok=True)
    with open(base / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            return unpack(dest)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
