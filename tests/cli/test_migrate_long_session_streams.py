"""``migrate -o`` of a long session of a session file reads it again from the file, one envelope at a
time (issue 32: a session was gathered as envelope dicts and read whole, 165 MB at 100,000 items and
past 6 GB for a 1 GB session). The output and the warnings are those of the whole read: checked on
generated sessions (every item kind, headers, usage on envelopes, and the shapes the whole read
decides: seqs out of order, an older schema version, an id used twice), and peak memory does not grow
with the session (``VmHWM`` of the command's own process)."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import interlingua._migrate.session as spans
from interlingua.cli import app
from interlingua.items import ToolCallItem, ToolResultItem
from interlingua.testing.strategies import items as item_lists


def _migrate(src: Path, out: Path, threshold: int) -> tuple[int, bytes, list[str]]:
    old = spans.STREAM_ENVELOPES
    spans.STREAM_ENVELOPES = threshold
    try:
        result = CliRunner().invoke(app, ["migrate", str(src), "-o", str(out)], catch_exceptions=False)
    finally:
        spans.STREAM_ENVELOPES = old
    data = out.read_bytes() if out.exists() else b""
    if out.exists():
        out.unlink()
    rejects = out.with_name(f"{out.stem}.rejects.jsonl")
    rej = rejects.read_text().splitlines() if rejects.exists() else []
    if rejects.exists():
        rejects.unlink()
    return result.exit_code, data, [line.replace(str(out), "OUT") for line in result.stderr.splitlines()] + rej


@st.composite
def session_files(draw: st.DrawFn) -> list[str]:
    lines: list[str] = []
    for s in range(draw(st.integers(1, 3))):
        sid = draw(st.sampled_from(["a", "b", "a"])) if s else "a"
        its = draw(item_lists(max_size=14))
        for it in its:
            if isinstance(it, ToolCallItem):
                it.id = f"s{s}_{it.id}"
            elif isinstance(it, ToolResultItem):
                it.call_id = f"s{s}_{it.call_id}"
        if draw(st.booleans()):
            session: dict[str, Any] = {"id": sid}
            if draw(st.booleans()):
                session["tools"] = [{"name": "lookup", "parameters": {"type": "object"}}]
                session["metadata"] = {"k": "v"}
            if draw(st.booleans()):
                session["changes"] = [{"change_no": 0, "at_seq": 0}, {"change_no": 1, "at_seq": 1, "metadata": {"k": "w"}}]
            lines.append(json.dumps({"schema_version": "1.0", "session": session}))
        seqs = list(range(len(its)))
        if len(seqs) > 2 and draw(st.integers(0, 9)) == 0:
            seqs[1], seqs[2] = seqs[2], seqs[1]  # out of order: the whole read sorts them
        for seq, it in zip(seqs, its):
            env: dict[str, Any] = {"schema_version": "1.0" if draw(st.integers(0, 19)) else "0.9", "session_id": sid, "seq": seq,
                                   "item": json.loads(msgspec.json.encode(it))}
            if draw(st.integers(0, 4)) == 0:
                env["usage"] = {"input_tokens": 1, "output_tokens": 2}
            lines.append(json.dumps(env))
    return lines


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(lines=session_files(), threshold=st.integers(0, 4))
def test_a_long_session_migrates_as_the_whole_read_migrates_it(lines: list[str], threshold: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "in.jsonl"
        src.write_text("\n".join(lines) + "\n")
        streamed = _migrate(src, Path(tmp) / "out.jsonl", threshold)
        whole = _migrate(src, Path(tmp) / "out.jsonl", 10**9)
    assert streamed == whole


def test_the_issue_shape_is_streamed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = _session(tmp_path / "s.jsonl", 300)
    calls: list[Any] = []
    real = spans.migrate_span
    monkeypatch.setattr(spans, "migrate_span", lambda *a: calls.append(real(*a)) or calls[-1])
    streamed = _migrate(src, tmp_path / "o.jsonl", 10)
    assert len(calls) == 1 and calls[0] is not None and calls[0][1] == 300
    assert streamed == _migrate(src, tmp_path / "o.jsonl", 10**9)


def _session(path: Path, n: int) -> Path:
    lines = ['{"schema_version":"1.0","session":{"id":"s","tools":[{"name":"lookup","parameters":{"type":"object"}}]}}']
    lines += [
        json.dumps({"schema_version": "1.0", "session_id": "s", "seq": i,
                    "item": {"type": "text", "role": "user" if i % 2 == 0 else "assistant", "id": f"m{i}", "text": f"message {i} " + "x" * 40}})
        for i in range(n)
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


_CODE = (
    "import sys; from interlingua.cli import main\n"
    "try:\n    main()\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
    "print([l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')][0], file=sys.stderr)"
)


def test_migrate_memory_does_not_grow_with_the_session(tmp_path: Path) -> None:
    peaks = []
    for n in (5_000, 50_000):
        src = _session(tmp_path / f"s{n}.jsonl", n)
        proc = subprocess.run([sys.executable, "-c", _CODE, "migrate", str(src), "-o", str(tmp_path / f"o{n}.jsonl"), "-q"],
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr
        peaks.append(int(proc.stderr.strip().splitlines()[-1]))
        assert sum(1 for _ in open(tmp_path / f"o{n}.jsonl")) == n + 1
    growth_mb = (peaks[1] - peaks[0]) / 1024
    # before: every envelope as a dict, then the whole transcript (+~75 MB per 50,000 items)
    assert growth_mb < 15, f"peak grew by {growth_mb:.1f} MB from 5,000 to 50,000 items ({peaks})"
