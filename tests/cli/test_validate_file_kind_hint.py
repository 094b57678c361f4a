"""A file that cannot be JSON Lines at all gets one hint saying what it is, not an error per line.

A user runs ``validate`` (or ``store import``) on a session store's SQLite file, or on a ``.jsonl``
file that was pretty-printed (``jq .`` of a session file): every line then fails on its own. The
errors are cut to the first few, the count stays true, and one line says what the file is and the
command that reads or rewrites it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.cli._validate_hints import SHOWN, file_kind

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "transcripts" / "weather.json"
runner = CliRunner()


@pytest.fixture
def session_file(tmp_path: Path) -> Path:
    out = tmp_path / "weather.jsonl"
    assert runner.invoke(app, ["migrate", str(EXAMPLE), "-o", str(out)]).exit_code == 0
    return out


@pytest.fixture
def pretty(session_file: Path, tmp_path: Path) -> Path:
    out = tmp_path / "pretty.jsonl"
    values = [json.loads(line) for line in session_file.read_text().splitlines()]
    out.write_text("\n".join(json.dumps(v, indent=2) for v in values) + "\n")
    return out


@pytest.fixture
def store(session_file: Path, tmp_path: Path) -> Path:
    db = tmp_path / "sessions.sqlite3"
    assert runner.invoke(app, ["store", "import", str(session_file), "--url", str(db)]).exit_code == 0
    return db


def test_a_pretty_printed_jsonl_gets_one_hint(pretty: Path) -> None:
    res = runner.invoke(app, ["validate", str(pretty)], catch_exceptions=False)
    assert res.exit_code == 1
    lines = res.stdout.splitlines()
    errors = [line for line in lines[:-1] if "pretty-printed" not in line]
    (hint,) = [line for line in lines if "pretty-printed" in line]
    assert len(errors) == SHOWN
    total = sum(1 for line in pretty.read_text().splitlines() if line.strip())
    assert f"({total - SHOWN} more errors of this file not shown)" in hint
    assert f"`jq -c . {pretty}`" in hint and "line 1 holds only '{'" in hint
    assert lines[-1].endswith(f"{total} errors")


def test_the_hinted_rewrite_validates(pretty: Path, tmp_path: Path) -> None:
    """What the hint says to do works: one JSON value a line (``jq -c .``, done here in Python)."""
    text = pretty.read_text()
    decoder, pos, values = json.JSONDecoder(), 0, []
    while text[pos:].strip():
        value, end = decoder.raw_decode(text, pos + len(text[pos:]) - len(text[pos:].lstrip()))
        values.append(value)
        pos = end
    fixed = tmp_path / "fixed.jsonl"
    fixed.write_text("".join(json.dumps(v) + "\n" for v in values))
    assert runner.invoke(app, ["validate", str(fixed)]).exit_code == 0


def test_a_session_store_is_named_with_the_commands_that_read_it(store: Path) -> None:
    res = runner.invoke(app, ["validate", str(store)], catch_exceptions=False)
    assert res.exit_code == 1
    assert "this is a SQLite database, not JSON" in res.stdout
    assert f"`interlingua store list --url {store}`" in res.stdout
    assert res.stdout.splitlines()[-1].endswith("1 error")
    listed = runner.invoke(app, ["store", "list", "--url", str(store)])
    assert listed.exit_code == 0 and "mig_" in listed.stdout


@pytest.mark.parametrize("which", ["pretty", "store"])
def test_store_import_says_the_same(which: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    path = request.getfixturevalue(which)
    res = runner.invoke(app, ["store", "import", str(path), "--url", str(tmp_path / "other.sqlite3")])
    assert res.exit_code == 1
    assert file_kind(str(path)) in res.stderr


def test_files_that_are_json_get_no_kind_hint(session_file: Path, tmp_path: Path) -> None:
    """A session file, a pretty-printed ``.json`` document and a broken ``.jsonl`` whose first line is a
    whole value are not given this hint (their errors, if any, stand as they are)."""
    doc = tmp_path / "doc.json"
    doc.write_text(json.dumps(json.loads(EXAMPLE.read_text()), indent=2))
    broken = tmp_path / "broken.jsonl"
    broken.write_text(session_file.read_text().splitlines()[0] + "\n{\n")
    for path in (session_file, doc, broken):
        assert file_kind(str(path)) is None
    res = runner.invoke(app, ["validate", str(broken)])
    assert res.exit_code == 1 and "pretty-printed" not in res.stdout
