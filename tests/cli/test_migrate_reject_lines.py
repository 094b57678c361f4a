"""A reject record of ``migrate`` names the line its conversation starts on whenever that line is known.

A JSON array of conversations (a ShareGPT dataset, a ``conversations.json`` export) is one file whose
elements start on lines of their own: a rejected element's record had ``"line": null`` and its reason
``<input>: /items/0: ...``. Now the record and the reason carry the element's first line, for a small
file read whole and for a large one read an element at a time. A whole-file conversation (one
document, one request body) is the file: its record has no line, and its reason names the file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from interlingua.cli import app

STORES = Path(__file__).resolve().parents[1] / "fixtures" / "stores"
DEMO = STORES / "sharegpt" / "glaive_toolcall_en_demo_3.json"  # a real ShareGPT dataset excerpt (3 conversations)
runner = CliRunner()

BROKEN = {"schema_version": "1.0", "items": [{"type": "text"}]}  # a document whose item has no `text`


def _array_file(path: Path) -> list[int]:
    """The demo's conversations with a broken document between them, pretty-printed; the first line of each element."""
    elements: list[Any] = json.loads(DEMO.read_text())
    elements.insert(1, BROKEN)
    elements.insert(3, BROKEN)
    lines, text, line = [], "[\n", 2
    for n, element in enumerate(elements):
        body = json.dumps(element, indent=2)
        lines.append(line)
        text += body + (",\n" if n < len(elements) - 1 else "\n")
        line += body.count("\n") + 1
    path.write_text(text + "]\n")
    return lines


def _rejects(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines()]


@pytest.mark.parametrize("streamed", [False, True], ids=["read-whole", "element-at-a-time"])
def test_a_rejected_array_element_names_its_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, streamed: bool) -> None:
    if streamed:
        from interlingua._migrate import stores

        monkeypatch.setattr(stores, "STREAM_JSON_ARRAYS_FROM", 0)
    src = tmp_path / "conversations.json"
    starts = _array_file(src)
    out = tmp_path / "out.jsonl"
    res = runner.invoke(app, ["migrate", str(src), "-o", str(out), "--rejects", str(tmp_path / "rej.jsonl"), "--quiet"])
    assert res.exit_code == 1, res.output
    assert "migrated 3 conversations" in res.output
    rejects = _rejects(tmp_path / "rej.jsonl")
    assert [r["line"] for r in rejects] == [starts[1], starts[3]]
    for r in rejects:
        assert f"{src}:{r['line']}: /items/0: Object missing required field `text`" in r["reason"], r["reason"]
        assert r["record"] == BROKEN


def test_a_whole_file_conversation_has_no_line_but_names_its_file(tmp_path: Path) -> None:
    src = tmp_path / "doc.json"
    src.write_text(json.dumps(BROKEN, indent=1))
    res = runner.invoke(app, ["migrate", str(src), "-o", str(tmp_path / "out.jsonl"), "--rejects", str(tmp_path / "rej.jsonl"), "--quiet"])
    assert res.exit_code == 1, res.output
    (reject,) = _rejects(tmp_path / "rej.jsonl")
    assert reject["line"] is None
    assert reject["reason"].startswith(f"DocumentError: {src}: /items/0:"), reject["reason"]
