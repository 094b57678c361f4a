"""``python -m interlingua`` runs the same command line as the ``interlingua`` script."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"


def test_python_dash_m_converts_like_the_script() -> None:
    body = next(p for p in sorted((REAL / "anthropic").rglob("*.json")) if "request" in p.name)
    out = subprocess.run([sys.executable, "-m", "interlingua", "convert", str(body), "--from", "anthropic", "--to", "canonical"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert '"schema_version"' in out.stdout


def test_python_dash_m_exit_codes_are_the_scripts() -> None:
    out = subprocess.run([sys.executable, "-m", "interlingua", "convert", "--no-such-flag"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
