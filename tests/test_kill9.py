"""Issue 19: ``store import`` and ``migrate -o`` killed with SIGKILL at seeded random points.

Each run is a real subprocess killed at a point drawn from a seeded ``random.Random``: when the
store holds a drawn number of the file's sessions, or the temporary output has grown to a drawn
fraction of the complete output (polled; nothing asserts on time). After every kill:

- ``store import``: every session in the store is whole (all its items, in order) or absent, the
  store still opens, and no file but the database (and SQLite's own journal) is left; importing the
  same file again completes and leaves each session exactly once.
- ``migrate -o``: the output is the previous one or the complete new one, the reject file is absent or
  complete, never partial; a temporary file left by the dead run is removed by the next run, and
  after a run that completes no temporary file is left.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from interlingua.codec import decode_transcript
from interlingua.session_file import header_bytes, session_lines

REAL = Path(__file__).parent / "fixtures" / "real"
SRC = str(Path(__file__).resolve().parents[1] / "src")
CLI = [sys.executable, "-c", "from interlingua.cli import main; main()"]
SEED = 19
KILLS = 5
ENV = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}


def _run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([*CLI, *argv], cwd=cwd, env=ENV, capture_output=True, timeout=600, check=False)


def _killed_when(argv: list[str], cwd: Path, ready: Callable[[int], bool]) -> int:
    """Run ``argv`` and SIGKILL it as soon as ``ready(pid)`` (polled) holds; its return code."""
    proc = subprocess.Popen([*CLI, *argv], cwd=cwd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while proc.poll() is None:
            if ready(proc.pid):
                os.kill(proc.pid, signal.SIGKILL)
                break
            time.sleep(0.002)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=60)
    return proc.returncode


def _conversation() -> list[bytes]:
    """The items of a real conversation (Anthropic parallel tool calls), as canonical item JSON lines."""
    from interlingua import convert_request

    doc = convert_request((REAL / "anthropic/pai_anthropic_parallel_tool_calls.1.request.json").read_bytes(), source="anthropic", target="canonical").value
    return [json.dumps(item).encode() for item in doc["items"]]


# --------------------------------------------------------------------------- store import


def _session_file(path: Path, sessions: int, repeat: int) -> dict[str, int]:
    """A session file of ``sessions`` sessions, each the real conversation ``repeat`` times over (ids renamed)."""
    base = _conversation()
    expected = {}
    with path.open("wb") as fh:
        for s in range(sessions):
            sid = f"kill9-{s:04d}"
            lines = []
            for r in range(repeat):
                for raw in base:
                    item = json.loads(raw)
                    for key in ("id", "call_id"):
                        if key in item:
                            item[key] = f"{item[key]}-{r}"
                    lines.append(item)
            transcript = decode_transcript(json.dumps({"schema_version": "1.0", "items": lines}))
            fh.writelines(session_lines(sid, transcript.items, header=header_bytes(sid, metadata={"n": s})))
            expected[sid] = len(lines)
    return expected


def _stored(db: Path) -> dict[str, list[int]]:
    """Session id -> its seqs, read straight from the database file."""
    if not db.exists():
        return {}
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=0.05)
    try:
        rows = con.execute("SELECT session_id, seq FROM interlingua_items ORDER BY session_id, seq").fetchall()
        sessions = [r[0] for r in con.execute("SELECT id FROM interlingua_sessions").fetchall()]
    except sqlite3.OperationalError:  # killed before the schema was made, or a writer holds the lock
        return {}
    finally:
        con.close()
    out: dict[str, list[int]] = {s: [] for s in sessions}
    for sid, seq in rows:
        out.setdefault(sid, []).append(seq)
    return out


def test_store_import_killed_at_random_points_leaves_whole_sessions_or_none(tmp_path: Path) -> None:
    src = tmp_path / "sessions.jsonl"
    expected = _session_file(src, sessions=24, repeat=15)
    db = tmp_path / "store.sqlite3"
    rng = random.Random(SEED)
    partial_runs = 0
    for k in range(KILLS):
        before = len(_stored(db))
        target = rng.randint(before + 1, before + 3)  # sessions committed when the kill comes
        code = _killed_when(["store", "import", "--url", str(db), "-q", str(src)], tmp_path, lambda pid: len(_stored(db)) >= target)
        stored = _stored(db)
        for sid, seqs in stored.items():
            assert sid in expected, sid
            assert seqs == list(range(expected[sid])), f"kill {k}: session {sid} holds {len(seqs)} of {expected[sid]} items"
        partial_runs += code == -signal.SIGKILL and 0 < len(stored) < len(expected)
        listed = _run(["store", "list", "--url", str(db), "--json", "--limit", "1000"], tmp_path) if db.exists() else None
        if listed is not None:
            assert listed.returncode == 0, listed.stderr[-2000:]
            assert len(listed.stdout.splitlines()) == len(stored)
        left = sorted(p.name for p in tmp_path.iterdir() if p.name not in ("sessions.jsonl", "store.sqlite3"))
        assert all(name.startswith("store.sqlite3-") for name in left), left  # SQLite's journal/WAL only
    assert partial_runs, "no kill landed mid-import: the input is too small to test anything"
    done = _run(["store", "import", "--url", str(db), "-q", str(src)], tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    final = _stored(db)
    assert {sid: len(seqs) for sid, seqs in final.items()} == expected
    assert all(seqs == list(range(len(seqs))) for seqs in final.values())


# --------------------------------------------------------------------------- migrate -o


def test_migrate_killed_at_random_points_keeps_the_old_output_or_writes_the_new_one_whole(tmp_path: Path) -> None:
    base = [json.loads(b) for b in _conversation()]
    body = json.loads((REAL / "anthropic/pai_anthropic_parallel_tool_calls.1.request.json").read_text())
    lines = []
    for i in range(2500):
        conv = json.loads(json.dumps(body))
        conv["messages"][0]["content"] = f"conversation {i}: " + str(conv["messages"][0]["content"])
        lines.append(json.dumps(conv))
        if i % 500 == 7:
            lines.append('{"model": "x", "messages": [{"role": "user", "content": ')  # a reject
    src_dir = tmp_path / "in"
    src_dir.mkdir()
    (src_dir / "conversations.jsonl").write_text("\n".join(lines) + "\n")
    assert base
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    out = out_dir / "out.jsonl"
    rejects = out_dir / "out.rejects.jsonl"
    argv = ["migrate", str(src_dir), "-o", str(out), "--no-progress"]
    done = _run(argv, tmp_path)
    assert done.returncode == 1, done.stderr[-2000:]  # 1: some records rejected
    reference, reference_rejects = out.read_bytes(), rejects.read_bytes()
    assert reference.count(b"\n") > 2500 and reference_rejects.count(b"\n") == 5
    out.write_bytes(b"old output\n")
    rng = random.Random(SEED)
    mid = 0
    for k in range(KILLS):
        size = int(rng.uniform(0.0, 1.0) * len(reference))  # bytes of temporary output when the kill comes

        def grown(pid: int, size: int = size) -> bool:
            temps = [p for p in out_dir.iterdir() if p.name.startswith(f".out.jsonl.{pid}.") and p.name.endswith(".tmp")]
            try:
                return any(p.stat().st_size >= size for p in temps)
            except FileNotFoundError:
                return False

        code = _killed_when(argv, tmp_path, grown)
        now = out.read_bytes()
        assert now in (b"old output\n", reference), f"kill {k}: the output is partial ({len(now)} bytes)"
        if rejects.exists():
            assert rejects.read_bytes() == reference_rejects, f"kill {k}: the reject file is partial"
        temps = [p.name for p in out_dir.iterdir() if p.name.endswith(".tmp")]
        mid += code == -signal.SIGKILL and now == b"old output\n"
        if now == reference:
            out.write_bytes(b"old output\n")  # so the next kill can tell old from new again
        else:
            for name in temps:  # a dead run's own temporary files: named after it
                assert name.startswith((".out.jsonl.", ".out.rejects.jsonl.")), name
    assert mid, "no kill landed mid-run: the input is too small to test anything"
    done = _run(argv, tmp_path)
    assert done.returncode == 1, done.stderr[-2000:]  # 1: some records rejected
    assert out.read_bytes() == reference and rejects.read_bytes() == reference_rejects
    assert [p.name for p in out_dir.iterdir() if p.name.endswith(".tmp")] == []


@pytest.mark.parametrize("argv", [["migrate", "-o", "out.jsonl"], ["store", "import", "--url", "s.sqlite3"]], ids=["migrate", "store-import"])
def test_a_stale_temporary_file_is_removed_or_left_alone_by_the_next_run(argv: list[str], tmp_path: Path) -> None:
    """Only a dead process's temporary file is removed; a live one's (a concurrent run) is left alone."""
    src = tmp_path / "in.jsonl"
    _session_file(src, sessions=1, repeat=1)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True).stdout.strip()
    stale = tmp_path / f".out.jsonl.{dead}.abcd1234.tmp"
    live = tmp_path / f".out.jsonl.{os.getpid()}.efgh5678.tmp"
    stale.write_bytes(b"partial")
    live.write_bytes(b"someone else's")
    if argv[0] == "migrate":
        done = _run(["migrate", str(src), *argv[1:]], tmp_path)
        assert done.returncode == 0 and not stale.exists() and b"removed" in done.stderr
    else:
        done = _run([*argv, str(src)], tmp_path)
        assert done.returncode == 0
    assert live.exists()
