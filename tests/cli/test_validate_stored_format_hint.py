"""``interlingua validate`` on a stored conversation of another format (issue 26): one hint naming the
format and the ``migrate`` command that reads it, for every format ``migrate`` reads, not one
"missing schema_version" per line (a few are shown, the count stays true)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.cli._validate_hints import SHOWN

STORES = Path(__file__).resolve().parents[1] / "fixtures" / "stores"
FILES = sorted(p for p in STORES.rglob("*.json*") if "malformed" not in p.parts and p.suffix in (".json", ".jsonl"))
runner = CliRunner()


def _records(path: Path) -> int:
    """How many values the file holds: its non-blank lines (JSON Lines), else 1."""
    if path.suffix == ".jsonl":
        return sum(1 for line in path.read_text().splitlines() if line.strip())
    return 1


def test_every_stored_format_is_covered() -> None:
    folders = {p.relative_to(STORES).parts[0] for p in FILES}
    assert {"claude-code", "codex", "openai-finetune", "llamafactory", "sharegpt", "hf-messages", "vercel-ui", "vercel-model", "adk", "mcp-sampling", "chatgpt-export", "claude-export", "langchain-lc"} <= folders


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(STORES)))
def test_a_stored_file_gets_one_migrate_hint(path: Path) -> None:
    res = runner.invoke(app, ["validate", str(path)], catch_exceptions=False)
    assert res.exit_code == 1
    lines = res.stdout.splitlines()
    hints = [line for line in lines if "this looks like" in line]
    assert len(hints) == 1, res.stdout
    assert "interlingua migrate" in hints[0]
    errors = [line for line in lines[:-1] if "this looks like" not in line and line.startswith(str(path))]
    assert len(errors) <= SHOWN
    # the summary still counts every record refused
    assert lines[-1].endswith(f"{_records(path)} error{'s' if _records(path) != 1 else ''}"), lines[-1]


def test_the_claude_code_log_names_its_format_and_command() -> None:
    path = STORES / "claude-code" / "dag_compact_after_rewind.jsonl"
    res = runner.invoke(app, ["validate", str(path)], catch_exceptions=False)
    n = _records(path)
    assert n > SHOWN
    assert f"this looks like a claude-code file, not an interlingua transcript ({n - SHOWN} more like these not shown)" in res.stdout
    assert f"`interlingua migrate --from claude-code {path} -o OUT.jsonl`" in res.stdout
    assert res.stdout.count("missing required field `schema_version`") == SHOWN


def test_json_output_counts_every_error() -> None:
    path = STORES / "codex" / "sessions" / "2026" / "01" / "02"
    res = runner.invoke(app, ["validate", "--format", "json", str(path)], catch_exceptions=False)
    payload = json.loads(res.stdout)
    assert payload["errors"] == sum(_records(p) for p in path.glob("*.jsonl"))
    assert any("codex" in p["message"] and "migrate" in p["message"] for p in payload["problems"])


def test_a_transcript_with_a_bad_line_gets_no_hint(tmp_path: Path) -> None:
    bad = tmp_path / "t.jsonl"
    bad.write_text('{"schema_version": "1.0", "session_id": "s", "seq": 0, "item": {"type": "text", "role": "user", "text": "hi"}}\n{"session_id": "s", "seq": 1}\n')
    res = runner.invoke(app, ["validate", str(bad)], catch_exceptions=False)
    assert res.exit_code == 1 and "this looks like" not in res.stdout
