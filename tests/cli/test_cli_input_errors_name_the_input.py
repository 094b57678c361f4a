"""Unreadable or unsuitable input (no fixture, a directory as output, stdin to migrate, an empty file) is a
clear usage error naming it; replaying a session that is already answered warns."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from interlingua.cli import app

ROOT = Path(__file__).resolve().parents[2]
REAL = ROOT / "tests" / "fixtures" / "real"
runner = CliRunner()


def _run(*args: str, cwd: Path | None = None):  # type: ignore[no-untyped-def]
    return runner.invoke(app, list(args), catch_exceptions=False)


@pytest.fixture
def hello(tmp_path: Path) -> Path:
    path = tmp_path / "hello.json"
    path.write_text(json.dumps({"schema_version": "1.0", "items": [{"type": "text", "role": "user", "text": "Say hello."}]}))
    return path


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("anthropic/anthropic_sdk.basic_response.sse", "invalid JSON"),  # a raw recorded stream
        ("anthropic/pai_anthropic_parallel_tool_calls.0.request.json", "not a version 1 exchange"),  # a provider body
    ],
)
def test_a_file_that_is_no_fixture_is_a_usage_error_naming_it(name: str, why: str, hello: Path) -> None:
    path = REAL / name
    res = _run("replay", str(hello), "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--fixture", str(path))
    assert res.exit_code == 2, res.stderr
    assert res.stderr.startswith(f"error: {path}: not a replay fixture: ") and why in res.stderr
    assert "replay --record" in res.stderr


def test_replay_into_a_directory_is_a_usage_error_as_in_store_commands(hello: Path, tmp_path: Path) -> None:
    folder = tmp_path / "adir"
    folder.mkdir()
    fixture = tmp_path / "fx.jsonl"
    response = (REAL / "anthropic" / "pai_anthropic_parallel_tool_calls.0.response.json").read_text()
    fixture.write_text(json.dumps({"version": 1, "request": {"method": "POST", "url": "https://api.anthropic.com/v1/messages", "headers": {}, "body": ""},
                                   "response": {"status": 200, "headers": {"content-type": "application/json"}, "encoding": "utf-8", "chunks": [response]}}) + "\n")
    for args in (
        ["replay", str(hello), "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--store", str(folder), "--session", "s", "--no-stream", "--fixture", str(fixture)],
        ["store", "list", "--url", str(folder)],
    ):
        res = _run(*args)
        assert res.exit_code == 2, (args, res.stderr)
        assert res.stderr.strip() == f"error: {folder} is a directory, not a SQLite database file"


def test_migrate_of_stdin_says_it_reads_files() -> None:
    res = runner.invoke(app, ["migrate", "-", "-o", "m.jsonl"], input=b"{}")
    assert res.exit_code == 2
    assert "not standard input (-)" in res.stderr and "no such file" not in res.stderr


def test_replaying_an_answered_stored_session_warns(hello: Path, tmp_path: Path) -> None:
    """A second `replay --store` of a session appends a second answer to the first: say so (the call still goes)."""
    fixture = tmp_path / "fx.jsonl"
    response = (REAL / "anthropic" / "pai_anthropic_parallel_tool_calls.1.response.json").read_text()
    exchange = {"version": 1, "request": {"method": "POST", "url": "https://api.anthropic.com/v1/messages", "headers": {}, "body": ""},
                "response": {"status": 200, "headers": {"content-type": "application/json"}, "encoding": "utf-8", "chunks": [response]}}
    fixture.write_text("".join(json.dumps(exchange) + "\n" for _ in range(2)))
    session_file, db = tmp_path / "s.jsonl", tmp_path / "s.sqlite3"
    assert _run("migrate", str(hello), "-o", str(session_file), "-q").exit_code == 0
    assert _run("store", "import", "--url", str(db), str(session_file)).exit_code == 0
    sid = _run("store", "list", "--url", str(db)).stdout.splitlines()[1].split()[0]
    args = ["replay", "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--no-stream", "--store", str(db), "--session", sid]
    first = _run(*args, "--fixture", str(fixture))
    assert first.exit_code == 0, first.stderr
    assert "ends with the model's answer" not in first.stderr
    second = _run(*args, "--fixture", str(fixture))
    assert second.exit_code == 0, second.stderr
    assert "warning: the conversation ends with the model's answer" in second.stderr
    plain = _run("replay", str(ROOT / "examples" / "transcripts" / "weather.json"), "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--no-stream", "--fixture", str(fixture))
    assert "ends with the model's answer" not in plain.stderr  # replaying a document on another provider: no warning


@pytest.mark.parametrize(
    "args",
    [["convert", "--from", "anthropic", "--to", "canonical"], ["convert", "--from", "canonical", "--to", "anthropic"], ["validate"], ["view"]],
    ids=" ".join,
)
@pytest.mark.parametrize("content", [b"", b"  \n\n"], ids=["empty", "blank"])
def test_an_empty_input_is_called_empty(args: list[str], content: bytes, tmp_path: Path) -> None:
    """An empty file said "invalid JSON: Input data was truncated"."""
    path = tmp_path / "empty.json"
    path.write_bytes(content)
    res = _run(*args, str(path))
    assert res.exit_code == 1
    assert "the input is empty (no JSON value)" in res.stderr + res.stdout and "truncated" not in res.stderr + res.stdout
