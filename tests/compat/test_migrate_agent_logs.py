"""``interlingua migrate`` on agent log folders laid out as the tools lay them out (issue 26, part a).

``~/.claude/projects/<project>/<session>.jsonl`` (+ ``<session>/subagents/agent-*.jsonl``) and
``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`` (+ ``.jsonl.zst``) are migrated with one command;
abandoned branches become forks; bad files are refused naming file and line; memory stays flat.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.session_file import read_sessions

STORES = Path(__file__).parents[1] / "fixtures" / "stores"
SRC = Path(__file__).resolve().parents[2] / "src"
runner = CliRunner()


def migrate(*args: Any) -> Any:
    return runner.invoke(app, ["migrate", *map(str, args)], catch_exceptions=False)


def validate(path: Path) -> Any:
    return runner.invoke(app, ["validate", str(path)], catch_exceptions=False)


@pytest.fixture
def claude_home(tmp_path: Path) -> Path:
    """A ~/.claude/projects folder: two projects, a session with a sub-agent's file, a rewound session."""
    projects = tmp_path / ".claude" / "projects"
    shutil.copytree(STORES / "claude-code" / "projects", projects)
    other = projects / "-tmp"
    other.mkdir()
    shutil.copy(STORES / "claude-code" / "dag_compact_after_rewind.jsonl", other / "s1.jsonl")
    return projects


def sessions(path: Path) -> dict[str, Any]:
    with open(path, "rb") as fh:
        return {b.session_id: b for b in read_sessions(fh)}


def test_claude_projects_folder_in_one_command(claude_home: Path, tmp_path: Path) -> None:
    out = tmp_path / "claude.jsonl"
    res = migrate(claude_home, "-o", out)
    assert res.exit_code == 0, res.output
    # three sessions (a main session, its sub-agent's, a rewound one) and the rewound one's abandoned branch
    assert "migrated 3 conversations and 1 fork (30 items)" in res.output
    got = sessions(out)
    assert set(got) == {"s1", "s1@b1a", "55550000-0000-4000-8000-000000000001", "55550000-0000-4000-8000-000000000001@agent-showcol1"}
    fork = got["s1@b1a"]
    assert fork.header.parent_id == "s1" and fork.header.fork_seq == 1
    main = [e.item for e in got["s1"].envelopes]
    # a fork holds the shared items, then its own (as store export writes a fork)
    assert [e.item for e in fork.envelopes][:2] == main[:2]
    assert [e.item.text for e in fork.envelopes][2:] == ["First attempt", "First answer"]
    assert validate(out).exit_code == 0
    # the same again: the same bytes
    again = tmp_path / "again.jsonl"
    assert migrate(claude_home, "-o", again).exit_code == 0
    assert again.read_bytes() == out.read_bytes()


@pytest.fixture
def codex_home(tmp_path: Path) -> Path:
    """A ~/.codex/sessions folder: dated folders, a legacy rollout, one compressed with zstd."""
    zstandard = pytest.importorskip("zstandard")
    home = tmp_path / ".codex" / "sessions"
    shutil.copytree(STORES / "codex" / "sessions", home)
    plain = next(home.rglob("rollout-2026-01-03T04-05-06-*.jsonl"))
    plain.with_name(plain.name + ".zst").write_bytes(zstandard.ZstdCompressor().compress(plain.read_bytes()))
    plain.unlink()
    return home


def test_codex_sessions_folder_in_one_command(codex_home: Path, tmp_path: Path) -> None:
    out = tmp_path / "codex.jsonl"
    res = migrate(codex_home, "-o", out)
    assert res.exit_code == 0, res.output
    got = sessions(out)
    assert set(got) == {"11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222", "44444444-4444-4444-8444-444444444444"}
    assert len(got["22222222-2222-4222-8222-222222222222"].envelopes) == 3  # read from the .zst file: the prompt (only in an event_msg), the call, its result
    assert "event_msg record(s) skipped" in res.output
    assert validate(out).exit_code == 0


def test_forks_in_the_store(claude_home: Path, tmp_path: Path) -> None:
    from interlingua.store import SessionStore

    db = tmp_path / "s.sqlite3"
    res = migrate(claude_home, "--store", db)
    assert res.exit_code == 0, res.output
    assert "migrated 3 conversations and 1 fork" in res.output
    res = migrate(claude_home, "--store", db)
    assert "0 conversations (0 items)" in res.output and "3 already in the store (and 1 fork)" in res.output

    async def check() -> None:
        store = await SessionStore.open(str(db))
        try:
            (fork,) = await store.list_sessions(parent_id="s1")
            assert fork.id == "s1@b1a" and fork.fork_seq == 1
            main = (await store.load("s1")).items
            items = (await store.load("s1@b1a")).items
            assert items[:2] == main[:2] and [i.text for i in items[2:]] == ["First attempt", "First answer"]
        finally:
            await store.close()

    asyncio.run(check())


def test_bad_lines_are_refused_naming_file_and_line(tmp_path: Path) -> None:
    good = (STORES / "claude-code" / "dag_compact_after_rewind.jsonl").read_text().splitlines()
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(good[:3]) + "\n" + good[3][:80] + "\n")  # a crash cut the last line
    wrong = tmp_path / "wrong.jsonl"
    wrong.write_text("\n".join(good[:2]) + "\n[1, 2]\n")
    malformed = STORES / "codex" / "malformed" / "rollout-66666666-6666-4666-8666-666666666666.jsonl"
    out = tmp_path / "o.jsonl"
    res = migrate(cut, wrong, malformed, "-o", out)
    assert res.exit_code == 1
    rejects = [json.loads(x) for x in (tmp_path / "o.rejects.jsonl").read_text().splitlines()]
    reasons = {Path(r["source"]).name: r["reason"] for r in rejects}
    assert f"{cut}:4: not JSON" in reasons["cut.jsonl"]
    assert f"{wrong}:3: not a Claude Code record (an array)" in reasons["wrong.jsonl"]
    assert f"{malformed}:3: not JSON" in reasons[malformed.name]
    assert all(r["record"] is None for r in rejects)  # a log is named, not copied
    assert not out.exists()


def test_from_names_the_log_formats(tmp_path: Path) -> None:
    claude = STORES / "claude-code" / "dag_compact_after_rewind.jsonl"
    res = migrate(claude, "--from", "codex", "-o", tmp_path / "o.jsonl")
    assert res.exit_code == 1
    reason = json.loads((tmp_path / "o.rejects.jsonl").read_text())["reason"]
    assert f"{claude}:1: not a Codex rollout's first line" in reason
    res = migrate(claude, "--from", "claude-code", "-o", tmp_path / "p.jsonl")
    assert res.exit_code == 0, res.output
    help_text = runner.invoke(app, ["migrate", "--help"]).output
    for name in ("claude-code", "codex", "adk", "mcp-sampling"):
        assert name in help_text


_MEASURE = textwrap.dedent(
    """
    import resource, sys
    from interlingua.cli import app
    try:
        app(["migrate", sys.argv[1], "-o", sys.argv[2], "-q"])
    except SystemExit as exc:
        code = exc.code
    print("RESULT", code, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
    """
)


def _claude_log(path: Path, turns: int) -> None:
    """A linked Claude Code session: ``turns`` user/assistant pairs of ~2 KB each."""
    parent = None
    text = "x" * 2000
    with open(path, "w") as fh:
        for t in range(turns):
            for role in ("user", "assistant"):
                uuid = f"{role[0]}-{t:08d}-0000-0000-0000-000000000000"
                message: dict[str, Any] = {"role": role, "content": [{"type": "text", "text": f"{t} {text}"}]}
                if role == "assistant":
                    message.update(id=f"msg_{t}", type="message", model="claude-x", stop_reason="end_turn", usage={"input_tokens": 1, "output_tokens": 1})
                rec = {"type": role, "uuid": uuid, "parentUuid": parent, "sessionId": "big", "timestamp": "2026-01-01T00:00:00Z", "isSidechain": False, "message": message}
                fh.write(json.dumps(rec) + "\n")
                parent = uuid


def _measured(src: Path, out: Path) -> tuple[int, int, str]:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    proc = subprocess.run([sys.executable, "-c", _MEASURE, str(src), str(out)], capture_output=True, text=True, env=env, timeout=600)
    line = next(x for x in proc.stderr.splitlines() if x.startswith("RESULT"))
    _, code, rss_kib = line.split()
    return int(code), int(rss_kib), proc.stderr


def test_a_large_session_log_in_bounded_memory(tmp_path: Path) -> None:
    small, large = tmp_path / "small.jsonl", tmp_path / "large.jsonl"
    _claude_log(small, 1_000)
    _claude_log(large, 10_000)  # about 45 MB
    code_s, rss_s, _ = _measured(small, tmp_path / "s.out.jsonl")
    code_l, rss_l, err = _measured(large, tmp_path / "l.out.jsonl")
    assert code_s == code_l == 0, err
    assert "migrated 1 conversation (20000 items)" in err
    # ten times the log (about 40 MB more) costs a few MB: the index of its lines, not its content
    print("rss KiB", rss_s, rss_l, large.stat().st_size)
    assert rss_l - rss_s < 12 * 1024, (rss_s, rss_l)


def test_a_fork_left_without_its_items_gets_them_on_the_next_run(claude_home: Path, tmp_path: Path) -> None:
    """A run stopped between SessionStore.fork and the append leaves an empty fork: the next run fills it."""
    from interlingua.store import SessionStore

    db = tmp_path / "s.sqlite3"
    assert migrate(claude_home, "--store", db).exit_code == 0

    async def cut() -> None:
        store = await SessionStore.open(str(db))
        try:
            await store.delete_session("s1@b1a")
            await store.fork("s1", 1, new_session_id="s1@b1a")  # what a stopped run leaves
        finally:
            await store.close()

    async def items() -> list[Any]:
        store = await SessionStore.open(str(db))
        try:
            return list((await store.load("s1@b1a")).items)
        finally:
            await store.close()

    asyncio.run(cut())
    assert len(asyncio.run(items())) == 2
    res = migrate(claude_home, "--store", db)
    assert res.exit_code == 0, res.output
    assert [i.text for i in asyncio.run(items())] == ["Start", "Ready", "First attempt", "First answer"]
