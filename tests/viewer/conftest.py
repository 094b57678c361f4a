"""A headless Chromium for the viewer tests.

Chromium is Debian's ``chromium`` package (``/usr/bin/chromium``, or ``$INTERLINGUA_CHROMIUM``),
driven by Playwright without its own browser download. Without it the browser tests skip with
the reason, except under CI (``CI=true``), where ``.ci/run`` installs it and a skip would hide
a broken viewer: there they fail.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest


def chromium_path() -> str | None:
    env = os.environ.get("INTERLINGUA_CHROMIUM")
    if env:
        return env
    return shutil.which("chromium") or shutil.which("chromium-browser")


_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A headless Chromium (one per test module and worker)."""
    exe = chromium_path()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None  # type: ignore[assignment]
    missing = "Playwright (pip install -e '.[dev]')" if sync_playwright is None else ("Chromium (apt-get install chromium)" if exe is None else None)
    if missing:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"the viewer tests need {missing}; .ci/run installs it")
        pytest.skip(f"the viewer tests need {missing}")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=exe, args=_ARGS)
        try:
            yield b
        finally:
            b.close()
