"""``interlingua repair`` of a session file works a session at a time (issue 27): memory stays bounded
by the largest session whatever the number of sessions, the output is written whole or not at all
(a bad line or a refused session far into the file leaves no output and no temporary file), and
stdout gets the same bytes as ``-o``.

The sessions are a real Anthropic request history (tests/fixtures/real, via the SDK oracle's
fixture list) with its first tool result lost, each under a header line, many times over."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import msgspec
from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.codec import encode_envelope
from interlingua.history._files import iter_repaired_sessions, repair_session_file
from interlingua.items import Envelope, ToolCallItem, Usage
from interlingua.session_file import header_bytes, read_sessions
from tests.history.test_broken_histories import PAIRED, result_lost
from tests.sdk_oracle.bodies import decoded_request

SRC = Path(__file__).resolve().parents[2] / "src"
runner = CliRunner()


def _write_sessions(path: Path, count: int, *, pad: int = 0) -> None:
    """``count`` sessions, each a header and the broken history (with ``pad`` characters more in its metadata)."""
    source, fixture = next(c for c in PAIRED if c[0] == "anthropic")
    broken = result_lost(decoded_request(source, fixture))
    tools = broken.tools if broken.tools is not msgspec.UNSET else None
    with open(path, "wb") as fh:
        for n in range(count):
            sid = f"s{n:06d}"
            fh.write(header_bytes(sid, metadata={"n": n, "note": "x" * pad}, tools=tools) + b"\n")
            for seq, item in enumerate(broken.items):
                env = Envelope(schema_version="1.0", session_id=sid, seq=seq, item=item, created_at="2026-01-02T03:04:05Z")
                if isinstance(item, ToolCallItem):
                    env.usage = Usage(input_tokens=100 + seq, output_tokens=5)
                fh.write(encode_envelope(env) + b"\n")


def test_stdout_and_output_file_agree_and_repair_is_idempotent(tmp_path: Path) -> None:
    src = tmp_path / "many.jsonl"
    _write_sessions(src, 30)
    out = tmp_path / "out.jsonl"
    res = runner.invoke(app, ["repair", str(src), "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert "in 30 of 30 session(s)" in res.stderr
    to_stdout = runner.invoke(app, ["repair", str(src), "-q"])
    assert to_stdout.exit_code == 0 and to_stdout.stdout_bytes == out.read_bytes()
    # the library's streaming reader gives the same bytes as its whole-file form
    streamed = b"".join(lines for lines, _r in iter_repaired_sessions(src))
    assert streamed == repair_session_file(src.read_bytes())[0] == out.read_bytes()
    blocks = list(read_sessions(out))
    assert len(blocks) == 30 and all(b.header is not None and b.header.metadata["n"] == i for i, b in enumerate(blocks))  # type: ignore[index]
    again = runner.invoke(app, ["repair", str(out), "-o", str(tmp_path / "again.jsonl")])
    assert again.exit_code == 0 and "nothing to repair" in again.stderr
    assert (tmp_path / "again.jsonl").read_bytes() == out.read_bytes()
    # stdin is read the same way
    piped = runner.invoke(app, ["repair", "-", "-q"], input=src.read_bytes())
    assert piped.exit_code == 0 and piped.stdout_bytes == out.read_bytes()


def _leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.startswith("."))


def test_a_bad_line_far_into_the_file_leaves_nothing_written(tmp_path: Path) -> None:
    src = tmp_path / "many.jsonl"
    _write_sessions(src, 40)
    lines = src.read_bytes().splitlines(keepends=True)
    bad_line = len(lines) - 2
    lines[bad_line - 1] = b'{"schema_version":"1.0","session_id":"s000039","seq":3,"item":{"type":"text"}}\n'
    src.write_bytes(b"".join(lines))
    outdir = tmp_path / "out"
    outdir.mkdir()
    out = outdir / "repaired.jsonl"
    out.write_bytes(b"the previous output\n")
    res = runner.invoke(app, ["repair", str(src), "-o", str(out)])
    assert res.exit_code == 1
    assert f"{src}:{bad_line}" in res.stderr
    assert out.read_bytes() == b"the previous output\n" and _leftovers(outdir) == []
    assert "s000000:" not in res.stderr  # no report of changes that were not written
    res = runner.invoke(app, ["repair", str(src)])
    assert res.exit_code == 1 and res.stdout_bytes == b""


def test_policy_error_refuses_with_nothing_written(tmp_path: Path) -> None:
    src = tmp_path / "many.jsonl"
    _write_sessions(src, 5)
    out = tmp_path / "refused.jsonl"
    res = runner.invoke(app, ["repair", str(src), "--policy", "error", "-o", str(out)])
    assert res.exit_code == 1 and str(src) in res.stderr
    assert not out.exists() and _leftovers(tmp_path) == []


_MEASURE = textwrap.dedent(
    """
    import sys
    from interlingua.cli import app
    try:
        app(["repair", sys.argv[1], "-o", sys.argv[2], "-q"])
    except SystemExit as exc:
        code = exc.code
    with open("/proc/self/status") as fh:
        hwm = next(line.split()[1] for line in fh if line.startswith("VmHWM:"))
    print("RESULT", code, hwm, file=sys.stderr)
    """
)


def _peak_kib(src: Path, out: Path) -> tuple[int, int, str]:
    """Exit code and peak resident memory (VmHWM, KiB) of ``interlingua repair`` in a child process."""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    proc = subprocess.run([sys.executable, "-c", _MEASURE, str(src), str(out)], capture_output=True, text=True, env=env, timeout=900)
    line = next((x for x in proc.stderr.splitlines() if x.startswith("RESULT")), None)
    assert line is not None, proc.stderr
    _, code, hwm = line.split()
    return int(code), int(hwm), proc.stderr


def test_memory_stays_bounded_by_the_largest_session(tmp_path: Path) -> None:
    small, large = tmp_path / "small.jsonl", tmp_path / "large.jsonl"
    _write_sessions(small, 100, pad=8_000)
    _write_sessions(large, 2_500, pad=8_000)  # 25 times as many sessions, about 25 MB more
    code_s, peak_s, err_s = _peak_kib(small, tmp_path / "small.out.jsonl")
    code_l, peak_l, err_l = _peak_kib(large, tmp_path / "large.out.jsonl")
    assert code_s == code_l == 0, err_s + err_l
    grown_mib = large.stat().st_size / 2**20 - small.stat().st_size / 2**20
    assert grown_mib > 20
    print("VmHWM KiB", peak_s, peak_l, "file MiB", round(grown_mib, 1))
    # 25 MB more input costs a few MB at most (a whole-file read holds the file, its repaired copy and more)
    assert peak_l - peak_s < 8 * 1024, (peak_s, peak_l)
    assert sum(1 for _ in read_sessions(tmp_path / "large.out.jsonl")) == 2_500
