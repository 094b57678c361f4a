"""``interlingua migrate`` counts a tree's abandoned branches (forks) apart from its sessions, and ``--to NAME``
writes them in that format too (issue 26). Real files: tests/fixtures/stores/ (README).

Before: ``migrated 7 conversations`` for five Claude Code session files (two forks counted as conversations),
and ``migrate --to vercel-ui`` of a ChatGPT export or a Claude Code log with a retry wrote interlingua
envelopes instead of UIMessage lines, exit 0.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.compat import read
from interlingua.session_file import read_sessions

STORES = Path(__file__).parents[1] / "fixtures" / "stores"
runner = CliRunner()


def migrate(*args: Any) -> Any:
    return runner.invoke(app, ["migrate", *map(str, args), "--quiet"], catch_exceptions=False)


def test_a_claude_code_folder_counts_sessions_and_forks_apart(tmp_path: Path) -> None:
    folder = tmp_path / "projects"
    shutil.copytree(STORES / "claude-code", folder)
    out = tmp_path / "out.jsonl"
    res = migrate(folder, "-o", out)
    assert res.exit_code == 0, res.output
    with open(out, "rb") as fh:
        blocks = list(read_sessions(fh))
    forks = [b for b in blocks if isinstance(b.header.parent_id, str)]
    sessions = [b for b in blocks if b not in forks]
    files = list(folder.rglob("*.jsonl"))
    assert len(sessions) == len(files) == 5 and len(forks) == 2
    items = sum(len(b.envelopes) for b in blocks)
    assert f"migrated 5 conversations and 2 forks ({items} items)" in res.output


def test_a_store_counts_what_is_already_there_apart(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite3"
    src = STORES / "claude-code" / "dag_compact_after_rewind.jsonl"
    assert "migrated 1 conversation and 1 fork" in migrate(src, "--store", db).output
    again = migrate(src, "--store", db)
    assert again.exit_code == 0 and "migrated 0 conversations (0 items)" in again.output and "1 already in the store (and 1 fork)" in again.output


def test_no_fork_no_fork_count(tmp_path: Path) -> None:
    res = migrate(STORES / "adk" / "customer_service_123.session.json", "-o", tmp_path / "o.jsonl")
    assert res.exit_code == 0 and "migrated 1 conversation (39 items) to" in res.output


@pytest.mark.parametrize(
    ("src", "to", "fork_text"),
    [
        (STORES / "chatgpt-export" / "native-conversation-v1.json", "vercel-ui", "Superseded answer."),
        (STORES / "claude-code" / "dag_compact_after_rewind.jsonl", "openai-finetune", "First attempt"),
    ],
)
def test_to_writes_a_tree_and_its_forks_in_that_format(src: Path, to: str, fork_text: str, tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    res = runner.invoke(app, ["migrate", str(src), "--to", to, "-o", str(out), "--quiet"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert "migrated 1 conversation and 1 fork" in res.output
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) == 2
    assert not any("schema_version" in line for line in lines if isinstance(line, dict))  # no envelope, no header
    main, fork = (read(line, to).transcript for line in lines)
    texts = [getattr(i, "text", None) for i in fork.items]
    assert fork_text in texts and fork_text not in [getattr(i, "text", None) for i in main.items]
    # the fork repeats the shared beginning, as a fork session in a session file does
    assert [getattr(i, "text", None) for i in fork.items][:1] == [getattr(i, "text", None) for i in main.items][:1]
