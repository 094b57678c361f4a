"""An input path that is not a regular file (a named pipe, a device, a symbolic link to one) is refused
at once with exit 2 and a message naming it and the way out (standard input), by every command.

Issue 32's cases: ``mkfifo f; (cat weather.json > f &); interlingua trim f --max-input-tokens 1000``
hung forever (the file was opened a second time, after the writer had gone), and ``trim /dev/zero``,
``view /dev/zero``, ``repair /dev/zero``, ``convert ... /dev/zero`` grew to ~6 GB in 8 s; a symbolic
link to /dev/urandom hung trim, view and repair.

The commands run in one child process with a wall-clock timeout and an address-space limit
(``resource.setrlimit``), so a regression fails the test instead of hanging it or exhausting memory.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WEATHER = ROOT / "examples" / "transcripts" / "weather.json"

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo") or not os.path.exists("/dev/zero"), reason="needs named pipes and /dev/zero")

COMMANDS: list[list[str]] = [
    ["trim", "{}", "--max-input-tokens", "1000"],
    ["trim", "{}", "--model", "gpt-4o", "--provider", "openai-chat"],
    ["view", "{}", "-o", "{out}"],
    ["repair", "{}"],
    ["convert", "--from", "claude-code", "--to", "canonical", "{}"],
    ["convert", "--from", "codex", "--to", "canonical", "{}"],
    ["convert", "--from", "vercel-ui", "--to", "canonical", "{}"],
    ["convert", "--from", "canonical", "--to", "anthropic", "{}"],
    ["replay", "{}", "--model", "gpt-4o", "--provider", "openai-chat", "--base-url", "http://127.0.0.1:9/v1"],
    ["validate", "{}"],
]

# Runs each command line through the CLI's entry point (``interlingua.cli.main``: the typer app, and
# the typer-free ``validate`` path), printing one JSON line per command as soon as it ends.
_CHILD = r"""
import contextlib, io, json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
from interlingua.cli import main
for argv in json.loads(sys.argv[1]):
    err, out = io.StringIO(), io.StringIO()
    sys.argv = ["interlingua", *argv]
    code = None
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        try:
            main()
        except SystemExit as exc:
            code = exc.code
    print(json.dumps({"argv": argv, "code": code, "stderr": err.getvalue(), "stdout": out.getvalue()}), flush=True)
"""


def _run_all(cases: list[list[str]]) -> list[dict[str, object]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")}
    try:
        proc = subprocess.run(
            [sys.executable, "-c", _CHILD, json.dumps(cases)], capture_output=True, text=True, timeout=240, env=env, stdin=subprocess.DEVNULL
        )
    except subprocess.TimeoutExpired as exc:  # a command opened the pipe or read the device
        done = (exc.stdout or b"").decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        pytest.fail(f"a command hung; finished before it: {done}")
    results = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    assert len(results) == len(cases), proc.stderr[-2000:]
    return results


def _cases(path: Path, out: Path) -> list[list[str]]:
    return [[a.replace("{}", str(path)).replace("{out}", str(out)) for a in cmd] for cmd in COMMANDS]


def _assert_refused(results: list[dict[str, object]], path: Path, kind: str) -> None:
    for r in results:
        stderr = str(r["stderr"]) + str(r["stdout"])  # validate prints its problems on stdout
        assert r["code"] == 2, r
        assert str(path) in stderr and kind in stderr and ("standard input" in stderr or "stdin" in stderr), r
        assert "Traceback" not in stderr, r


def test_a_named_pipe_is_refused_at_once_not_read_twice(tmp_path: Path) -> None:
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    data = WEATHER.read_bytes()

    def writer() -> None:  # the issue's `(cat weather.json > f &)`: blocks until a reader opens
        with contextlib.suppress(OSError):
            with open(fifo, "wb") as fh:
                fh.write(data)

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    try:
        results = _run_all(_cases(fifo, tmp_path / "u.html"))
    finally:
        fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # lets the writer finish
        thread.join(timeout=30)
        os.close(fd)
    _assert_refused(results, fifo, "a named pipe")
    assert not (tmp_path / "u.html").exists()


def test_a_device_is_refused_before_reading() -> None:
    results = _run_all(_cases(Path("/dev/zero"), Path(os.devnull)))
    _assert_refused(results, Path("/dev/zero"), "a device")


@pytest.mark.skipif(not os.path.exists("/dev/urandom"), reason="needs /dev/urandom")
def test_a_symlink_to_a_device_is_refused(tmp_path: Path) -> None:
    link = tmp_path / "t.json"
    link.symlink_to("/dev/urandom")
    cases = [c for c in _cases(link, tmp_path / "u.html") if c[0] in ("trim", "view", "repair")]
    results = _run_all(cases)
    _assert_refused(results, link, "a device")


def test_stdin_and_regular_files_still_read(tmp_path: Path) -> None:
    """The rule refuses only what is not a regular file: a file and stdin are read as before."""
    from typer.testing import CliRunner

    from interlingua.cli import app

    runner = CliRunner()
    res = runner.invoke(app, ["trim", str(WEATHER), "--max-input-tokens", "100000"])
    assert res.exit_code == 0, res.stderr
    res = runner.invoke(app, ["trim", "-", "--max-input-tokens", "100000"], input=WEATHER.read_bytes())
    assert res.exit_code == 0, res.stderr
    link = tmp_path / "w.json"
    link.symlink_to(WEATHER)
    res = runner.invoke(app, ["view", str(link), "-o", str(tmp_path / "w.html")])
    assert res.exit_code == 0, res.stderr



def test_an_option_naming_a_device_is_refused_too(tmp_path: Path) -> None:
    """``replay --response-format FILE``, the one option that reads a file of the user's whole."""
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    base = ["replay", str(WEATHER), "--provider", "openai-chat", "--model", "gpt-4o", "--base-url", "http://127.0.0.1:9/v1", "--response-format"]
    for r in _run_all([[*base, "/dev/zero"], [*base, str(fifo)]]):
        assert r["code"] == 2, r
        assert "--response-format" in str(r["stderr"]) and "not a regular file" in str(r["stderr"]), r
