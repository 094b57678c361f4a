"""The example in docs/store.md runs."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_docs_example_runs(tmp_path: Path) -> None:
    text = (ROOT / "docs" / "store.md").read_text(encoding="utf-8")
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)  # type: ignore[union-attr]
    script = tmp_path / "example.py"
    script.write_text(code, encoding="utf-8")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, env={"PYTHONPATH": str(ROOT / "src")}, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "conflict, head is 2" in out.stdout
    assert "['TextItem', 'ToolCallItem', 'ToolResultItem'] {'user': 'ada'}" in out.stdout
    assert "3 sessions" in out.stdout
