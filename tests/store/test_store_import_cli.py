"""``interlingua store import`` of what the other commands write, on SQLite and PostgreSQL (issue 15).

A multi-session file (``migrate -o`` of several conversations) imports every session under its own id;
importing it again is a no-op, reported per session; other content under a stored id is refused,
naming the session, with nothing written; a transcript document is refused with the command that
turns it into a session file. Every file written on the way passes ``interlingua validate``.
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.session_file import read_sessions

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "tests" / "compat" / "examples"
runner = CliRunner()


def run(*args: object) -> tuple[int, str, str]:
    result = runner.invoke(app, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def test_multi_session_file_reimport_conflict_and_document(db_url: str, tmp_path: Path) -> None:
    migrated = tmp_path / "all.jsonl"
    code, _, err = run("migrate", EXAMPLES, "-o", migrated)
    assert code == 0, err
    blocks = list(read_sessions(migrated))
    assert len(blocks) >= 5
    assert run("validate", migrated)[0] == 0

    code, out, err = run("store", "import", "--url", db_url, migrated)
    assert code == 0, err
    assert out.split() == [b.session_id for b in blocks]
    code, out, err = run("store", "import", "--url", db_url, migrated)
    assert code == 0 and out.split() == [b.session_id for b in blocks]
    assert err.count("left unchanged") == len(blocks)

    # Each session exports back to the same conversation, and the export validates.
    for block in blocks:
        export = tmp_path / f"{block.session_id}.jsonl"
        assert run("store", "export", "--url", db_url, block.session_id, "-o", export)[0] == 0
        assert run("validate", export)[0] == 0
        [back] = list(read_sessions(export))
        a, b = back.transcript(), block.transcript()
        assert (a.items, a.tools, a.tool_choice, a.settings, a.metadata) == (b.items, b.tools, b.tool_choice, b.settings, b.metadata)

    # The last session changed: refused (exit 1) naming it; the sessions before it are unchanged, nothing is added.
    lines = migrated.read_bytes().splitlines(keepends=True)
    last = blocks[-1]
    lines[last.line_nos[-1] - 1] = lines[last.line_nos[-1] - 1].replace(b'"seq":', b'"created_at":"2026-01-01T00:00:00Z","seq":', 1)
    env = json.loads(lines[last.line_nos[-1] - 1])
    env["item"] = {"type": "text", "role": "user", "text": "not what was stored"}
    lines[last.line_nos[-1] - 1] = json.dumps(env).encode() + b"\n"
    changed = tmp_path / "changed.jsonl"
    changed.write_bytes(b"".join(lines))
    code, out, err = run("store", "import", "--url", db_url, changed)
    assert code == 1 and last.session_id in err and "different items" in err, err
    code, out, _ = run("store", "list", "--url", db_url, "--json")
    assert sorted(json.loads(line)["id"] for line in out.splitlines()) == sorted(b.session_id for b in blocks)

    # A transcript document is not a session file: the message names the command that makes one.
    doc = tmp_path / "t.json"
    assert run("convert", "--from", "canonical", "--to", "canonical", ROOT / "examples" / "transcripts" / "weather.json", "-o", doc)[0] == 0
    code, out, err = run("store", "import", "--url", db_url, doc)
    assert code == 1 and "transcript document" in err and "interlingua migrate" in err and not out
