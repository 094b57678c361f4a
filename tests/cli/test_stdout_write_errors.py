"""A write to stdout that fails (a full disk: ``> /dev/full``) is an error message and exit 2, never a
traceback, and the message says what could not be written (found by a new user: five commands printed a
Python traceback, ``convert`` said "cannot write None", ``store export`` and ``migrate`` "error: : ...")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REAL = ROOT / "tests" / "fixtures" / "real"
WEATHER = ROOT / "examples" / "transcripts" / "weather.json"
CLI = [sys.executable, "-c", "from interlingua.cli import main; main()"]

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")


def _cli(*args: str, cwd: Path, stdout: str = "/dev/full") -> subprocess.CompletedProcess[str]:
    with open(stdout, "wb") as out:
        return subprocess.run([*CLI, *args], stdout=out, stderr=subprocess.PIPE, text=True, cwd=cwd, timeout=120)


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("full")
    assert subprocess.run([*CLI, "migrate", str(WEATHER), "-o", str(tmp / "w.jsonl"), "-q"], cwd=tmp).returncode == 0
    assert subprocess.run([*CLI, "store", "import", "--url", str(tmp / "s.sqlite3"), str(tmp / "w.jsonl")], cwd=tmp, capture_output=True).returncode == 0
    response = (REAL / "anthropic" / "pai_anthropic_parallel_tool_calls.0.response.json").read_text()
    exchange = {"version": 1, "request": {"method": "POST", "url": "https://api.anthropic.com/v1/messages", "headers": {}, "body": ""},
                "response": {"status": 200, "headers": {"content-type": "application/json"}, "encoding": "utf-8", "chunks": [response]}}
    (tmp / "fx.jsonl").write_text(json.dumps(exchange) + "\n")
    return tmp


def _session_id(work: Path) -> str:
    out = subprocess.run([*CLI, "store", "list", "--url", str(work / "s.sqlite3")], cwd=work, capture_output=True, text=True)
    return out.stdout.splitlines()[1].split()[0]  # under the header line


@pytest.mark.parametrize(
    "args",
    [
        ["schema"],
        ["view", str(WEATHER)],
        ["validate", str(WEATHER)],
        ["convert", "--from", "canonical", "--to", "anthropic", "--model", "claude-sonnet-4-5", str(WEATHER)],
        ["store", "list", "--url", "s.sqlite3"],
        ["store", "export", "--url", "s.sqlite3", "SESSION"],
        ["replay", str(WEATHER), "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--no-stream", "--fixture", "fx.jsonl"],
    ],
    ids=lambda a: " ".join(a[:2]),
)
def test_a_full_stdout_is_a_clear_error(args: list[str], work: Path) -> None:
    args = [_session_id(work) if a == "SESSION" else a for a in args]
    res = _cli(*args, cwd=work)
    assert res.returncode == 2, res.stderr
    assert "Traceback" not in res.stderr and "Exception ignored" not in res.stderr, res.stderr
    assert res.stderr.splitlines()[-1] == "error: cannot write standard output: No space left on device", res.stderr


def test_migrate_to_a_full_device_names_it(work: Path) -> None:
    res = _cli("migrate", str(WEATHER), "-o", "/dev/full", "-q", cwd=work, stdout=os.devnull)
    assert res.returncode == 2
    assert res.stderr.strip().splitlines()[-1] == "error: cannot write /dev/full: No space left on device", res.stderr
