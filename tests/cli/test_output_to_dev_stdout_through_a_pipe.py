"""``-o /dev/stdout`` (and ``/dev/stderr``) when that stream is a pipe: written in place, exit 0.

Issue 32's case: ``interlingua view w.json -o /dev/stdout | wc -c`` exited 2 with "cannot write
/proc/PID/fd/pipe:[N]": the writers resolved the path's symbolic links first, and the name a pipe's
``/proc`` link points to cannot be opened. A path that is not a regular file is opened by the name
given. view, repair, migrate and convert share the writer; each is run with stdout a pipe.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WEATHER = ROOT / "examples" / "transcripts" / "weather.json"

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/stdout"), reason="needs /dev/stdout")

# Each command line's exit code goes to fd 3 (a file), its output to stdout (a pipe to the test).
_CHILD = r"""
import contextlib, io, json, os, sys
from interlingua.cli import main
log = open(sys.argv[2], "w")
for argv in json.loads(sys.argv[1]):
    sys.argv = ["interlingua", *argv]
    code = None
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            main()
        except SystemExit as exc:
            code = exc.code
    sys.stdout.flush()
    log.write(json.dumps({"argv": argv, "code": code, "stderr": err.getvalue()}) + "\n")
    log.flush()
"""


def _run(cases: list[list[str]], log: Path, *, stderr_pipe: bool = False) -> tuple[bytes, bytes, list[dict[str, object]]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.run([sys.executable, "-c", _CHILD, json.dumps(cases), str(log)], capture_output=True, timeout=240, env=env, stdin=subprocess.DEVNULL)
    results = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(results) == len(cases), proc.stderr.decode(errors="replace")[-2000:]
    return proc.stdout, proc.stderr, results


def test_every_writer_writes_dev_stdout_when_it_is_a_pipe(tmp_path: Path) -> None:
    cases = [
        ["view", str(WEATHER), "-o", "/dev/stdout"],
        ["repair", str(WEATHER), "-o", "/dev/stdout"],
        ["convert", "--from", "canonical", "--to", "anthropic", str(WEATHER), "-o", "/dev/stdout"],
        ["migrate", str(WEATHER), "-o", "/dev/stdout", "-q"],
    ]
    out, _, results = _run(cases, tmp_path / "log.jsonl")
    for r in results:
        assert r["code"] in (0, None), r
        assert "pipe:[" not in str(r["stderr"]), r
    text = out.decode()
    assert "<html" in text.lower()  # view
    assert '"schema_version"' in text  # repair (a transcript document) and migrate
    assert '"messages"' in text  # convert to anthropic
    assert text.count('"schema_version"') >= 2


def test_dev_stderr_as_output_when_it_is_a_pipe(tmp_path: Path) -> None:
    _, err, results = _run([["view", str(WEATHER), "-o", "/dev/stderr"]], tmp_path / "log.jsonl")
    assert results[0]["code"] in (0, None), results
    assert b"<html" in err.lower()
