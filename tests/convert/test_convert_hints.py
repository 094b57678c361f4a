"""`interlingua convert` tells the user when --from or --model look wrong (real payloads)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from interlingua.cli import app

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"
runner = CliRunner()


def test_wrong_from_on_a_request_is_refused_with_the_likely_format_first() -> None:
    src = REAL / "anthropic" / "pai_anthropic_parallel_tool_calls.1.request.json"
    res = runner.invoke(app, ["convert", "--from", "openai-chat", "--to", "canonical", str(src)])
    assert res.exit_code == 1 and res.stdout == ""
    first = res.stderr.splitlines()[0]
    assert first.startswith(f"error: {src}: not an openai-chat request or response body (top-level keys: ")
    assert first.endswith("it looks like an anthropic request: try --from anthropic, or --force to decode it as openai-chat")


def test_force_decodes_as_asked_and_still_warns() -> None:
    src = REAL / "anthropic" / "pai_anthropic_parallel_tool_calls.1.request.json"
    res = runner.invoke(app, ["convert", "--from", "openai-chat", "--to", "canonical", "--force", str(src)])
    assert res.exit_code == 0
    assert "looks like an anthropic request, decoded as openai-chat as asked; check the source format" in res.stderr


def test_right_from_gives_no_hint() -> None:
    src = REAL / "anthropic" / "pai_anthropic_parallel_tool_calls.1.request.json"
    res = runner.invoke(app, ["convert", "--from", "anthropic", "--to", "canonical", str(src)])
    assert res.exit_code == 0 and "check --from" not in res.stderr


def test_body_of_another_format_names_the_file_and_its_keys() -> None:
    src = REAL / "openai_chat" / "openai_python.completion_text.response.json"
    res = runner.invoke(app, ["convert", "--from", "anthropic", "--to", "canonical", str(src)])
    assert res.exit_code == 1
    assert f"{src}: not an anthropic request or response body (top-level keys: choices" in res.stderr


def test_model_missing_from_the_table_is_said(tmp_path: Path) -> None:
    src = REAL / "anthropic" / "pai_anthropic_parallel_tool_calls.1.request.json"
    out = tmp_path / "t.json"
    assert runner.invoke(app, ["convert", "--from", "anthropic", "--to", "canonical", str(src), "-o", str(out)]).exit_code == 0
    res = runner.invoke(app, ["convert", "--from", "canonical", "--to", "gemini", "--model", "gemini-9-ultra", str(out)])
    assert res.exit_code == 0 and "'gemini-9-ultra' is not in the model catalogue" in res.stderr and "could not check" in res.stderr
    res = runner.invoke(app, ["convert", "--from", "canonical", "--to", "gemini", "--model", "gemini-2.5-flash", str(out)])
    assert res.exit_code == 0 and "not in the model table" not in res.stderr
