"""The unpacked corpus, once per test session (shared by the pytest-xdist workers of one run)."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest

from . import _engine


@pytest.fixture(scope="session")
def corpus_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The corpus unpacked into the session's temporary folder.

    Under pytest-xdist every worker has its own base temp; their common parent is the run's, so the
    archive is unpacked once per run, under a file lock, and the workers share it.
    """
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent
    dest = base / "interlingua-corpus"
    dest.parent.mkdir(parents=True, exist_ok=True)
    with open(base / "interlingua-corpus.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            return _engine.unpack(dest)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def corpus_extra_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The extra corpus (``tests/fixtures/corpus_extra/corpus_extra.tar.xz``) unpacked once per run, like :func:`corpus_root`."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent
    dest = base / "interlingua-corpus-extra"
    dest.parent.mkdir(parents=True, exist_ok=True)
    with open(base / "interlingua-corpus-extra.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            return _engine.unpack_extra(dest)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
