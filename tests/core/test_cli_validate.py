"""`interlingua validate` and `interlingua schema` as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from interlingua.cli import app

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
runner = CliRunner()


def _envelope(seq: int, item: dict, session: str = "s1") -> str:
    return json.dumps({"schema_version": "1.0", "session_id": session, "seq": seq, "created_at": "2026-11-30T00:00:00Z", "item": item})


def test_valid_example_exits_0() -> None:
    res = runner.invoke(app, ["validate", str(EXAMPLES / "transcripts" / "weather.json")])
    assert res.exit_code == 0, res.output
    assert res.output.strip().endswith("1 file, 6 items, 0 errors")


def test_broken_example_lists_every_problem_and_exits_1(snapshot, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    res = runner.invoke(app, ["validate", "examples/transcripts/broken.json"], catch_exceptions=False)
    assert res.exit_code == 1
    assert res.output == snapshot


def test_jsonl_problems_carry_line_numbers(tmp_path: Path) -> None:
    lines = [
        _envelope(0, {"type": "text", "role": "user", "text": "hi"}),
        _envelope(1, {"type": "tool_result", "call_id": "nope", "content": []}),
        _envelope(1, {"type": "text", "role": "assistant", "text": "dup seq"}),
        _envelope(3, {"type": "text", "role": "wizard", "text": "x"}),
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines) + "\n" + lines[0][:25])
    res = runner.invoke(app, ["validate", "--format", "json", str(path)])
    assert res.exit_code == 1
    report = json.loads(res.output)
    found = {(p["line"], p["pointer"]) for p in report["problems"]}
    assert (2, "/item/call_id") in found
    assert (3, "/seq") in found
    assert (4, "/item/role") in found
    assert any(p["line"] == 5 and "truncated" in p["message"] for p in report["problems"])
    assert report["items"] == 5 and report["files"] == 1


def test_github_format_prints_annotations(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(_envelope(0, {"type": "text", "text": 1, "role": "user"}) + "\n")
    res = runner.invoke(app, ["validate", "--format", "github", str(path)])
    assert res.exit_code == 1
    assert res.stdout.splitlines()[0] == f"::error file={path},line=1,title=interlingua validate::/item/text: 1 is not of type 'string'"


def test_strict_mode_rejects_unknown_types(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"schema_version": "1.1", "items": [{"type": "hologram"}]}))
    assert runner.invoke(app, ["validate", str(path)]).exit_code == 0
    res = runner.invoke(app, ["validate", "--strict", str(path)])
    assert res.exit_code == 1 and "/items/0/type" in res.output


def test_directory_and_stdin(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text((EXAMPLES / "transcripts" / "weather.json").read_text())
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.jsonl").write_text(_envelope(0, {"type": "text", "role": "user", "text": "x"}) + "\n")
    (tmp_path / "notes.txt").write_text("ignored")
    res = runner.invoke(app, ["validate", str(tmp_path)])
    assert res.exit_code == 0 and "2 files, 7 items, 0 errors" in res.output
    res = runner.invoke(app, ["validate", "-"], input=(EXAMPLES / "transcripts" / "weather.json").read_text())
    assert res.exit_code == 0 and "1 file, 6 items" in res.output
    res = runner.invoke(app, ["validate", "-"], input=_envelope(0, {"type": "text", "role": "user", "text": "x"}) + "\n" + _envelope(1, {"type": "text", "role": "user", "text": "y"}))
    assert res.exit_code == 0 and "2 items" in res.output


@pytest.mark.parametrize("args", [["validate", "missing.json"], ["validate"], ["validate", "--format", "xml", "examples/transcripts/weather.json"]])
def test_usage_and_unreadable_exit_2(args: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    assert runner.invoke(app, args).exit_code == 2


def test_not_json_exits_1_with_location(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_bytes(b'{"schema_version": "1.0", "items": [')
    res = runner.invoke(app, ["validate", str(path)])
    assert res.exit_code == 1 and f"{path}: /: invalid JSON" in res.output


def test_newer_major_exits_1_naming_both_versions(tmp_path: Path) -> None:
    path = tmp_path / "v2.json"
    path.write_text('{"schema_version": "2.0", "items": []}')
    res = runner.invoke(app, ["validate", str(path)])
    assert res.exit_code == 1 and "2.0" in res.output and "1.0" in res.output


def test_schema_prints_and_writes(tmp_path: Path) -> None:
    res = runner.invoke(app, ["schema", "transcript"])
    assert res.exit_code == 0 and json.loads(res.output)["title"] == "Transcript"
    res = runner.invoke(app, ["schema", "--out", str(tmp_path / "s")])
    assert res.exit_code == 0
    assert sorted(p.name for p in (tmp_path / "s").iterdir()) == sorted(p.name for p in (ROOT / "schemas").glob("*.json"))
    assert runner.invoke(app, ["schema", "nope"]).exit_code == 2


def test_syntax_errors_in_documents_carry_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "nan.json"
    path.write_text('{"schema_version": "1.0",\n "items": [{"type": "structured", "data": NaN}]}')
    res = runner.invoke(app, ["validate", "--format", "github", str(path)])
    assert res.exit_code == 1
    assert res.stdout.splitlines()[0].startswith(f"::error file={path},line=2,")
    assert "NaN and Infinity are not valid JSON" in res.output and "column" in res.output


def test_provider_payload_gets_a_conversion_hint() -> None:
    payload = ROOT / "tests" / "fixtures" / "real" / "gemini" / "pai_google_thinking_part.0.request.json"
    res = runner.invoke(app, ["validate", str(payload)])
    assert res.exit_code == 1
    assert "looks like gemini data" in res.output and "interlingua convert --from gemini --to canonical" in res.output
