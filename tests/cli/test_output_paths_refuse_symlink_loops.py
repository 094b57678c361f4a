"""Every writer refuses an output (and every reader an input) that is a loop of symbolic links.

``-o LOOP`` where LOOP is a loop of symbolic links: convert replaced the link with a regular file (the stat
failed, so the path was taken for a new file and renamed over), migrate ended in a RuntimeError traceback
(``Path.resolve`` on the loop). Now every writer refuses it, exit 2, as a shell's ``>`` does, and the link
is left as it was."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.codec import write_jsonl

ROOT = Path(__file__).resolve().parents[2]
REQUEST = ROOT / "tests" / "fixtures" / "real" / "anthropic" / "pai_anthropic_parallel_tool_calls.0.request.json"
runner = CliRunner()


def _loop(tmp_path: Path) -> Path:
    a, b = tmp_path / "loop1", tmp_path / "loop2"
    a.symlink_to(b.name)
    b.symlink_to(a.name)
    return a


def _unchanged(link: Path) -> None:
    assert link.is_symlink() and os.readlink(link) == "loop2"
    assert sorted(p.name for p in link.parent.iterdir() if p.name.startswith(".")) == []  # no temporary file


def _session_file(tmp_path: Path) -> Path:
    doc = tmp_path / "t.jsonl"
    res = runner.invoke(app, ["migrate", str(REQUEST), "--from", "anthropic", "-o", str(doc), "-q"])
    assert res.exit_code == 0, res.stderr
    return doc


@pytest.mark.parametrize(
    "args",
    [
        ["convert", "--from", "anthropic", "--to", "openai-chat", str(REQUEST)],
        ["convert", "--from", "anthropic", "--to", "canonical", str(REQUEST)],
        ["view", "CANONICAL"],
        ["migrate", str(REQUEST), "--from", "anthropic", "-q"],
    ],
    ids=["convert", "convert-canonical", "view", "migrate"],
)
def test_an_output_that_is_a_symlink_loop_is_refused(tmp_path: Path, args: list[str]) -> None:
    link = _loop(tmp_path)
    extra = ["--rejects", str(tmp_path / "r.jsonl")] if args[0] == "migrate" else []
    if args == ["view", "CANONICAL"]:
        doc = tmp_path / "doc.json"
        assert runner.invoke(app, ["convert", "--from", "anthropic", "--to", "canonical", str(REQUEST), "-o", str(doc)]).exit_code == 0
        args = ["view", str(doc)]
    res = runner.invoke(app, [*args, "-o", str(link), *extra])
    assert res.exit_code == 2, (res.stdout, res.stderr)
    assert "Too many levels of symbolic links" in res.stderr and "Traceback" not in res.stderr
    _unchanged(link)


def test_migrate_rejects_to_a_symlink_loop_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "in.jsonl"
    bad.write_text('{"role": "user", "content": "hi"}\nnot json\n')
    link = _loop(tmp_path)
    res = runner.invoke(app, ["migrate", str(bad), "-o", str(tmp_path / "out.jsonl"), "--rejects", str(link), "-q"])
    assert res.exit_code == 2, (res.stdout, res.stderr)
    assert "Too many levels of symbolic links" in res.stderr
    _unchanged(link)


def test_store_export_to_a_symlink_loop_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    res = runner.invoke(app, ["store", "import", "--url", str(db), str(_session_file(tmp_path)), "-q"])
    assert res.exit_code == 0, res.stderr
    sid = res.stdout.split()[0]
    link = _loop(tmp_path)
    res = runner.invoke(app, ["store", "export", "--url", str(db), sid, "-o", str(link), "-q"])
    assert res.exit_code == 2, (res.stdout, res.stderr)
    assert "Too many levels of symbolic links" in res.stderr
    _unchanged(link)


def test_write_jsonl_to_a_symlink_loop_raises_oserror(tmp_path: Path) -> None:
    link = _loop(tmp_path)
    with pytest.raises(OSError) as info:
        write_jsonl([], link)
    assert info.value.errno == 40 or "symbolic links" in str(info.value)
    _unchanged(link)


@pytest.mark.parametrize("command", [["store", "import", "--url", "DB"], ["migrate", "-o", "OUT"]])
def test_an_input_that_is_a_symlink_loop_says_so(tmp_path: Path, command: list[str]) -> None:
    """store import and migrate said 'no such file' for an input that is a symlink loop."""
    link = _loop(tmp_path)
    args = [str(tmp_path / "s.db") if a == "DB" else str(tmp_path / "o.jsonl") if a == "OUT" else a for a in command]
    res = runner.invoke(app, [*args, str(link)])
    assert res.exit_code == 2, (res.stdout, res.stderr)
    assert "too many levels of symbolic links" in res.stderr.lower() and "no such file" not in res.stderr
    missing = runner.invoke(app, [*args, str(tmp_path / "absent.jsonl")])
    assert missing.exit_code == 2 and "no such file" in missing.stderr
