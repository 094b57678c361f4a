"""Without the ``testing`` extra, the testing kit says which extra to install (not a bare import error)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Makes ``import NAME`` fail as if NAME were not installed: a ``None`` in sys.modules stops the
# import before any finder (pytest's assertion-rewriting finder would otherwise still find it).
_BLOCK = "import sys\nfor _name in NAMES:\n    sys.modules[_name] = None\n"


def _python(code: str, *, block: set[str], cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    return subprocess.run([sys.executable, "-c", _BLOCK.replace("NAMES", repr(block)) + code], capture_output=True, text=True, cwd=cwd, env=env, timeout=120)


def test_strategies_without_hypothesis_name_the_extra() -> None:
    proc = _python("import interlingua.testing.strategies", block={"hypothesis"})
    assert proc.returncode == 1
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("ModuleNotFoundError: interlingua.testing.strategies needs hypothesis")
    assert "pip install 'interlingua[testing]'" in last


def test_snapshot_extension_without_syrupy_names_the_extra() -> None:
    proc = _python("import interlingua.testing.snapshot", block={"syrupy"})
    assert proc.returncode == 1
    assert "interlingua.testing.snapshot needs syrupy" in proc.stderr and "pip install 'interlingua[testing]'" in proc.stderr


def test_an_unrelated_missing_module_is_not_blamed_on_the_extra() -> None:
    proc = _python("import interlingua.testing.strategies; print('ok')", block={"nothing_like_this"})
    assert proc.returncode == 0 and proc.stdout.strip() == "ok"


def test_transcript_snapshot_fixture_without_syrupy_names_the_extra(tmp_path: Path) -> None:
    (tmp_path / "test_it.py").write_text(
        "def test_snap(transcript_snapshot):\n    assert transcript_snapshot is not None\n", encoding="utf-8"
    )
    # pytest itself trips over a None in sys.modules while loading plugins, so syrupy is
    # disabled as a plugin and made unimportable only once the session runs (conftest).
    (tmp_path / "conftest.py").write_text(_BLOCK.replace("NAMES", repr({"syrupy"})), encoding="utf-8")
    code = "import pytest, sys; sys.exit(pytest.main(['-q', '-p', 'no:syrupy', '-p', 'no:cacheprovider', '-p', 'no:randomly', 'test_it.py']))"
    proc = _python(code, block=set(), cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "the transcript_snapshot fixture needs syrupy, which is not installed: pip install 'interlingua[testing]'" in proc.stdout
    assert "fixture 'snapshot' not found" not in proc.stdout
