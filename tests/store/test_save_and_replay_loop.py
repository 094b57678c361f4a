"""The whole save-and-replay loop of the README, on SQLite and PostgreSQL (issue 15).

provider request -> convert --to canonical -> migrate -o -> store import -> store export ->
replay (recorded fixture) --store --session -> store export -> convert --to another provider.
Items, tools, tool choice, settings and metadata must be identical at every step where nothing is
meant to change, and every file written must pass ``interlingua validate``.
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.codec import read_transcript
from interlingua.session_file import read_conversation, read_sessions

ROOT = Path(__file__).resolve().parents[2]
REQUEST = ROOT / "tests" / "fixtures" / "real" / "anthropic" / "pai_anthropic_parallel_tool_calls.0.request.json"
FIXTURE = ROOT / "docs" / "examples" / "anthropic_hello.jsonl"
runner = CliRunner()


def run(*args: object) -> tuple[int, str, str]:
    result = runner.invoke(app, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def valid(path: Path) -> None:
    code, out, err = run("validate", path)
    assert code == 0, (path, out, err)


def conversation(t: object) -> tuple:
    return (t.items, t.tools, t.tool_choice, t.settings, t.metadata)  # type: ignore[attr-defined]


def test_the_loop_keeps_everything(db_url: str, tmp_path: Path) -> None:
    doc = tmp_path / "t.json"
    code, _, err = run("convert", "--from", "anthropic", "--to", "canonical", REQUEST, "-o", doc)
    assert code == 0, err
    valid(doc)
    source = read_transcript(doc)
    assert source.tools and source.settings.model and source.settings.max_output_tokens  # the request's own

    session_file = tmp_path / "t.jsonl"
    code, _, err = run("migrate", doc, "-o", session_file)
    assert code == 0 and "tool definition" not in err, err
    valid(session_file)
    [block] = list(read_sessions(session_file))
    assert conversation(block.transcript())[:4] == conversation(source)[:4]

    code, out, err = run("store", "import", "--url", db_url, session_file)
    assert code == 0, err
    sid = out.strip()
    assert sid == block.session_id
    # Importing the same file again changes nothing.
    code, out, err = run("store", "import", "--url", db_url, session_file)
    assert code == 0 and out.strip() == sid and "unchanged" in err

    first = tmp_path / "export1.jsonl"
    code, _, err = run("store", "export", "--url", db_url, sid, "-o", first)
    assert code == 0, err
    valid(first)
    exported = read_conversation(first)
    assert conversation(exported)[:4] == conversation(source)[:4]

    # Continue the conversation (answered offline from a recorded fixture); the model and the
    # settings come from the stored session.
    code, _, err = run("replay", first, "--provider", "anthropic", "--fixture", FIXTURE, "--store", db_url, "--session", sid)
    assert code == 0, err
    assert "appended" in err

    second = tmp_path / "export2.jsonl"
    code, _, err = run("store", "export", "--url", db_url, sid, "-o", second)
    assert code == 0, err
    valid(second)
    after = read_conversation(second)
    assert after.items[: len(source.items)] == source.items and len(after.items) > len(source.items)
    assert conversation(after)[1:4] == conversation(source)[1:4]

    # And on to another provider, straight from the session file.
    code, out, err = run("convert", "--from", "canonical", "--to", "openai-chat", second)
    assert code == 0, err
    body = json.loads(out)
    assert body["max_completion_tokens"] == source.settings.max_output_tokens
    assert len(body["tools"]) == len(source.tools)
    assert "no 'model'" in err  # another provider, no --model: the body says so
