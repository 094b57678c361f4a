"""The issue's commands, run as a user types them in a shell (issue 26, "Done when"):

    interlingua migrate ~/.claude/projects/ -o claude.jsonl
    interlingua migrate ~/.codex/sessions/ -o codex.jsonl

``HOME`` is a folder laid out as Claude Code and Codex lay theirs out, holding every real session file of
tests/fixtures/stores/claude-code and codex (README there: project, path, commit). Counts are taken from the
files themselves.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from interlingua.session_file import read_sessions

STORES = Path(__file__).parents[1] / "fixtures" / "stores"
SRC = Path(__file__).resolve().parents[2] / "src"
MAIN = "import sys; sys.argv[0] = 'interlingua'; from interlingua.cli import main; main()"


def shell(command: str, home: Path) -> subprocess.CompletedProcess[str]:
    """``command`` in bash, ``~`` being ``home`` and ``interlingua`` this checkout's CLI."""
    env = {**os.environ, "HOME": str(home), "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}", "PY": sys.executable, "MAIN": MAIN}
    script = f'interlingua() {{ "$PY" -c "$MAIN" "$@"; }}; cd "$HOME" && {command}'
    return subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True, timeout=300)


def records(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def build_claude_home(home: Path) -> list[Path]:
    projects = home / ".claude" / "projects"
    shutil.copytree(STORES / "claude-code" / "projects", projects)
    loose = sorted((STORES / "claude-code").glob("*.jsonl"))
    for n, src in enumerate(loose):
        folder = projects / f"-home-user-project{n}"
        folder.mkdir()
        sid = next(r["sessionId"] for r in records(src) if isinstance(r.get("sessionId"), str))
        shutil.copy(src, folder / f"{sid}.jsonl")
    return sorted(projects.rglob("*.jsonl"))


def test_migrate_the_claude_projects_folder_as_typed(tmp_path: Path) -> None:
    files = build_claude_home(tmp_path)
    res = shell("interlingua migrate ~/.claude/projects/ -o claude.jsonl", tmp_path)
    assert res.returncode == 0, res.stderr
    with open(tmp_path / "claude.jsonl", "rb") as fh:
        blocks = list(read_sessions(fh))
    forks = [b for b in blocks if isinstance(b.header.parent_id, str)]
    sessions = [b for b in blocks if b not in forks]
    assert len(sessions) == len(files)  # one session per file, a sub-agent's file included
    main_ids = {b.session_id for b in sessions}
    for path in files:
        recs = records(path)
        sid = next(r["sessionId"] for r in recs if isinstance(r.get("sessionId"), str))
        agent = next((r["agentId"] for r in recs if r.get("isSidechain") and isinstance(r.get("agentId"), str)), None)
        assert (sid in main_ids) or (agent is not None and f"{sid}@agent-{agent}" in main_ids), path
    assert all(f.header.parent_id in main_ids for f in forks)
    assert f"migrated {len(sessions)} conversations and {len(forks)} forks" in res.stderr
    assert shell("interlingua validate claude.jsonl", tmp_path).returncode == 0


def test_migrate_the_codex_sessions_folder_as_typed(tmp_path: Path) -> None:
    home = tmp_path / ".codex" / "sessions"
    shutil.copytree(STORES / "codex" / "sessions", home)
    files = sorted(home.rglob("*.jsonl"))
    res = shell("interlingua migrate ~/.codex/sessions/ -o codex.jsonl", tmp_path)
    assert res.returncode == 0, res.stderr
    with open(tmp_path / "codex.jsonl", "rb") as fh:
        got = {b.session_id: b for b in read_sessions(fh)}
    assert len(got) == len(files)
    for path in files:
        recs = records(path)
        meta = next((r for r in recs if r.get("type") == "session_meta"), None)
        sid = meta["payload"]["id"] if meta else recs[0]["id"]  # the legacy layout: an {id, timestamp} first line
        payloads = [r["payload"] if "payload" in r else r for r in recs if r.get("type") == "response_item" or ("payload" not in r and r.get("type") in ("message", "function_call", "function_call_output"))]
        calls = [p for p in payloads if p.get("type") == "function_call"]
        items = [e.item for e in got[sid].envelopes]
        assert [i.id for i in items if type(i).__name__ == "ToolCallItem"] == [c["call_id"] for c in calls], path
    assert shell("interlingua validate codex.jsonl", tmp_path).returncode == 0
