"""Outputs that must not be renamed over: a named pipe (as /dev/null or /dev/stdout are, a path that
is not a regular file) is written in place, and a symbolic link keeps being a link to the new file.

Found when a run of ``convert -o /dev/null`` as root left a regular file at /dev/null (the writers
renamed a temporary file over it). The tests use a FIFO, so a regression cannot harm the machine.
"""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.codec import iter_jsonl, write_jsonl

ROOT = Path(__file__).resolve().parents[2]
REQUEST = ROOT / "tests" / "fixtures" / "real" / "anthropic" / "pai_anthropic_parallel_tool_calls.0.request.json"
runner = CliRunner()

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")


class _Reader:
    """Reads a FIFO to its end in a thread (a writer opening it blocks until a reader does)."""

    def __init__(self, path: Path) -> None:
        self.data = b""
        self.thread = threading.Thread(target=self._run, args=(path,), daemon=True)
        self.thread.start()

    def _run(self, path: Path) -> None:
        with open(path, "rb") as fh:
            self.data = fh.read()

    def join(self) -> bytes:
        self.thread.join(timeout=60)
        assert not self.thread.is_alive()
        return self.data


def _fifo(tmp_path: Path) -> Path:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    return fifo


def _still_a_fifo(path: Path) -> None:
    import stat

    assert stat.S_ISFIFO(os.lstat(path).st_mode)
    assert [p.name for p in path.parent.iterdir() if p.name.endswith(".tmp") or ".tmp-" in p.name] == []


def test_convert_writes_a_pipe_in_place(tmp_path: Path) -> None:
    fifo = _fifo(tmp_path)
    reader = _Reader(fifo)
    res = runner.invoke(app, ["convert", "--from", "anthropic", "--to", "openai-chat", str(REQUEST), "-o", str(fifo)])
    assert res.exit_code == 0, res.stderr
    assert b'"messages"' in reader.join()
    _still_a_fifo(fifo)


def test_migrate_writes_a_pipe_in_place(tmp_path: Path) -> None:
    fifo = _fifo(tmp_path)
    reader = _Reader(fifo)
    res = runner.invoke(app, ["migrate", str(REQUEST), "--from", "anthropic", "-o", str(fifo), "--rejects", str(tmp_path / "r.jsonl"), "-q"])
    assert res.exit_code == 0, res.stderr
    assert b'"schema_version"' in reader.join()
    _still_a_fifo(fifo)


def test_migrate_rejects_to_a_pipe_is_not_unlinked(tmp_path: Path) -> None:
    fifo = _fifo(tmp_path)
    reader = _Reader(fifo)
    bad = tmp_path / "in"
    bad.mkdir()
    (bad / "garbage.json").write_text("{not json")
    res = runner.invoke(app, ["migrate", str(bad), "-o", str(tmp_path / "o.jsonl"), "--rejects", str(fifo), "-q"])
    assert res.exit_code == 1
    assert b"garbage.json" in reader.join()
    _still_a_fifo(fifo)


def test_write_jsonl_and_view_write_a_pipe_in_place(tmp_path: Path) -> None:
    doc = tmp_path / "t.jsonl"
    assert runner.invoke(app, ["migrate", str(REQUEST), "--from", "anthropic", "-o", str(doc), "-q"]).exit_code == 0
    envelopes = [e for e in iter_jsonl(doc.open("rb")) if hasattr(e, "item")]
    fifo = _fifo(tmp_path)
    reader = _Reader(fifo)
    assert write_jsonl(envelopes, fifo) == len(envelopes)
    assert reader.join().count(b"\n") == len(envelopes)
    _still_a_fifo(fifo)
    reader = _Reader(fifo)
    res = runner.invoke(app, ["view", str(doc), "-o", str(fifo)])
    assert res.exit_code == 0, res.stderr
    assert b"<html" in reader.join().lower()
    _still_a_fifo(fifo)


def test_store_export_writes_a_pipe_in_place(tmp_path: Path) -> None:
    import interlingua.store as store_mod

    doc = tmp_path / "t.jsonl"
    assert runner.invoke(app, ["migrate", str(REQUEST), "--from", "anthropic", "-o", str(doc), "-q"]).exit_code == 0
    db = tmp_path / "s.db"
    res = runner.invoke(app, ["store", "import", "--url", str(db), str(doc), "-q"])
    assert res.exit_code == 0, res.stderr
    sid = res.stdout.split()[0]
    fifo = _fifo(tmp_path)
    reader = _Reader(fifo)
    res = runner.invoke(app, ["store", "export", "--url", str(db), sid, "-o", str(fifo), "-q"])
    assert res.exit_code == 0, res.stderr
    assert reader.join().count(b"\n") >= 2
    _still_a_fifo(fifo)

    async def api() -> int:
        async with await store_mod.SessionStore.open(db) as store:
            return await store.export_jsonl(sid, fifo)

    reader = _Reader(fifo)
    n = asyncio.run(api())
    assert reader.join().count(b"\n") == n + 1
    _still_a_fifo(fifo)


def test_a_symlinked_output_stays_a_link_to_the_new_file(tmp_path: Path) -> None:
    real = tmp_path / "data" / "out.json"
    real.parent.mkdir()
    real.write_text("old")
    link = tmp_path / "out.json"
    link.symlink_to(real)
    res = runner.invoke(app, ["convert", "--from", "anthropic", "--to", "openai-chat", str(REQUEST), "-o", str(link)])
    assert res.exit_code == 0, res.stderr
    assert link.is_symlink() and b'"messages"' in real.read_bytes()
