"""``trim --session`` of a session file reads the file a session at a time up to the one chosen, never
the file's bytes whole (issue 32: every command on the 1 GB, 270,000-session file under 200 MB; ``trim``
read all of it into memory to trim one session). Memory, not time, is asserted (tracemalloc)."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

from typer.testing import CliRunner

from interlingua.cli import app

runner = CliRunner()


def _sessions(path: Path, n: int) -> Path:
    lines = []
    for s in range(n):
        for i in range(6):
            item = {"type": "text", "role": "user" if i % 2 == 0 else "assistant", "text": f"session {s} message {i} " + "x" * 200}
            lines.append(json.dumps({"schema_version": "1.0", "session_id": f"s{s:05d}", "seq": i, "item": item}))
    path.write_text("\n".join(lines) + "\n")
    return path


def _peak(args: list[str]) -> int:
    tracemalloc.start()
    try:
        result = runner.invoke(app, args)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.exit_code == 0, result.output
    return peak


def test_trim_of_one_session_does_not_hold_the_file(tmp_path: Path) -> None:
    small = _sessions(tmp_path / "small.jsonl", 100)
    large = _sessions(tmp_path / "large.jsonl", 2_000)  # 20x the sessions, 3.3 MB
    args = ["trim", "-q", "--max-input-tokens", "300", "--session", "s00001"]
    _peak([*args, str(small), "-o", str(tmp_path / "warm.json")])  # imports first
    a = _peak([*args, str(small), "-o", str(tmp_path / "a.json")])
    b = _peak([*args, str(large), "-o", str(tmp_path / "b.json")])
    assert json.loads((tmp_path / "a.json").read_bytes()) == json.loads((tmp_path / "b.json").read_bytes())
    # before: the file's bytes were read whole (+5.1 MB here, the bytes and their copies; 1.1 GB for the 1 GB
    # file); now what grows is the reader's block (about 1 MB, +1.2 MB here)
    assert b - a < large.stat().st_size // 2, f"tracemalloc peak {a:,} B for {small.stat().st_size:,} B, {b:,} B for {large.stat().st_size:,} B"
