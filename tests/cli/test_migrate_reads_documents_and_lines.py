"""migrate reads a pretty-printed transcript document named ``.jsonl`` (as ``store import`` advises) and still
reads a JSONL file line by line; a rejected line's reason is given whole."""

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


def test_store_import_hint_for_a_pretty_printed_document_named_jsonl_works(tmp_path: Path) -> None:
    doc = tmp_path / "conv.jsonl"  # what `convert --to canonical -o conv.jsonl` writes: one indented document
    res = runner.invoke(app, ["convert", "--from", "anthropic", "--to", "canonical", str(REQUEST), "-o", str(doc)])
    assert res.exit_code == 0, res.stderr
    assert doc.read_bytes().startswith(b"{\n")
    db = tmp_path / "s.db"
    assert runner.invoke(app, ["store", "upgrade", "--url", str(db)]).exit_code == 0
    res = runner.invoke(app, ["store", "import", "--url", str(db), str(doc)])
    assert res.exit_code != 0 and "interlingua migrate" in res.stderr  # the hint this test follows
    out = tmp_path / "sessions.jsonl"
    res = runner.invoke(app, ["migrate", str(doc), "-o", str(out)])
    assert res.exit_code == 0, res.stderr
    assert "0 rejected" in res.stderr
    items = json.loads(doc.read_bytes())["items"]
    lines = out.read_bytes().splitlines()
    assert len(lines) == 1 + len(items)  # a header, then one envelope per item
    res = runner.invoke(app, ["store", "import", "--url", str(db), str(out), "-q"])
    assert res.exit_code == 0, res.stderr


def test_migrate_jsonl_still_reads_lines(tmp_path: Path) -> None:
    """A real JSON Lines file (one compact value a line) is still read line by line."""
    body = json.loads(REQUEST.read_bytes())
    src = tmp_path / "two.jsonl"
    src.write_text(json.dumps(body) + "\n" + json.dumps(body) + "\n")
    out = tmp_path / "out.jsonl"
    res = runner.invoke(app, ["migrate", str(src), "--from", "anthropic", "-o", str(out)])
    assert res.exit_code == 0, res.stderr
    assert "migrated 2 conversations" in res.stderr


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_migrate_reject_reason_for_a_lone_surrogate_is_not_truncated(tmp_path: Path, suffix: str) -> None:
    """msgspec says "Input data was truncated" for a lone high surrogate escape; migrate's reject
    file repeated it, which reads as a cut file. It now says what convert says, with the column."""
    body = json.loads(REQUEST.read_bytes())
    body["zz_last"] = "PLACEHOLDER"  # near the end of the record: there msgspec says "truncated"
    raw = json.dumps(body).replace("PLACEHOLDER", "a\\ud800")
    src = tmp_path / f"req{suffix}"
    src.write_text(raw + "\n")
    out = tmp_path / "out.jsonl"
    res = runner.invoke(app, ["migrate", str(src), "--from", "anthropic", "-o", str(out), "-q"])
    assert res.exit_code == 1, (res.stdout, res.stderr)
    [reject] = [json.loads(line) for line in (tmp_path / "out.rejects.jsonl").read_text().splitlines()]
    column = raw.index("\\ud800") + 1
    assert reject["reason"].startswith("not JSON: ") and "truncated" not in reject["reason"]
    assert f"column {column}: lone UTF-16 surrogate escape \\ud800" in reject["reason"]
    conv = runner.invoke(app, ["convert", "--from", "anthropic", "--to", "canonical", str(src)])
    assert conv.exit_code == 1 and f"column {column}: lone UTF-16 surrogate escape" in conv.stderr
