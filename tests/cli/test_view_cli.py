"""``interlingua view``: inputs (document, session file, stdin, store), output, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from interlingua.cli import app

ROOT = Path(__file__).resolve().parents[2]
WEATHER = ROOT / "examples" / "transcripts" / "weather.json"


def _run(*args: str, stdin: bytes | None = None) -> tuple[int, str, str]:
    r = CliRunner().invoke(app, list(args), input=stdin)
    return r.exit_code, r.stdout, r.stderr


def _sessions(tmp_path: Path) -> Path:
    out = tmp_path / "w.jsonl"
    code, _, err = _run("migrate", str(WEATHER), "-o", str(out))
    assert code == 0, err
    other = {"schema_version": "1.0", "session_id": "other", "seq": 0, "item": {"type": "text", "role": "user", "text": "second session"}}
    with out.open("ab") as fh:
        fh.write(json.dumps(other).encode() + b"\n")
    return out


def test_document_to_stdout_is_one_page_with_every_item() -> None:
    code, out, _ = _run("view", str(WEATHER))
    assert code == 0
    assert out.startswith("<!DOCTYPE html>") and out.count("<html") == 1
    doc = json.loads(WEATHER.read_text())
    nested = sum(len(i.get("content", [])) for i in doc["items"] if i["type"] == "tool_result")
    assert out.count('<div class="item ') == len(doc["items"]) + nested
    assert "What&#x27;s the weather in Paris?" in out
    assert "<script" not in out


def test_output_file_is_written_whole_and_named(tmp_path: Path) -> None:
    dest = tmp_path / "page.html"
    code, out, err = _run("view", str(WEATHER), "-o", str(dest), "--title", "Paris <weather>")
    assert code == 0 and out == ""
    assert f"wrote {dest}" in err
    page = dest.read_text(encoding="utf-8")
    assert "<title>Paris &lt;weather&gt;</title>" in page
    assert [p.name for p in tmp_path.iterdir()] == ["page.html"]  # no temporary file left


def test_stdin() -> None:
    code, out, _ = _run("view", "-", stdin=WEATHER.read_bytes())
    assert code == 0 and "get_weather" in out and "<title>&lt;stdin&gt;</title>" in out


def test_session_file_shows_every_session_or_the_one_picked(tmp_path: Path) -> None:
    src = _sessions(tmp_path)
    code, out, _ = _run("view", str(src))
    assert code == 0 and out.count("<section") == 2 and "second session" in out
    code, out, _ = _run("view", str(src), "--session", "other")
    assert code == 0 and out.count("<section") == 1 and "second session" in out and "Paris" not in out
    code, _, err = _run("view", str(src), "--session", "nosuch")
    assert code == 1 and "no session 'nosuch'" in err


def test_stored_session(tmp_path: Path) -> None:
    src = _sessions(tmp_path)
    url = str(tmp_path / "s.sqlite3")
    code, ids, err = _run("store", "import", "--url", url, str(src))
    assert code == 0, err
    first = ids.split()[0]
    code, out, err = _run("view", "--store", url, "--session", first)
    assert code == 0, err
    assert "get_weather" in out and out.count("<section") == 1
    code, _, err = _run("view", "--store", url, "--session", "nosuch")
    assert code == 1 and "nosuch" in err


@pytest.mark.parametrize(
    ("content", "where"),
    [
        (b'{"schema_version": "1.0", "items": [{"type": "text", "text": 5}]}', "/items/0/text"),
        (b'{"schema_version": "1.0", "session_id": "s", "seq": 1, "item": {"type": "text", "text": "x"}}\n', "bad.jsonl:1: /seq"),
        (b"", ""),
    ],
    ids=["bad-item", "bad-seq", "empty"],
)
def test_invalid_input_exits_1_saying_where(tmp_path: Path, content: bytes, where: str) -> None:
    bad = tmp_path / "bad.jsonl" if b"session_id" in content or not content else tmp_path / "bad.json"
    bad.write_bytes(content)
    dest = tmp_path / "out.html"
    code, out, err = _run("view", str(bad), "-o", str(dest))
    assert code == 1, err
    assert err.startswith("error: invalid transcript: ") and str(bad) in err and where in err
    assert not dest.exists() and out == ""
