"""`trim --max-input-tokens N --model M` needs no --provider (the budget is given); without a budget
the wire format is the one whose catalogue describes the model."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from interlingua.cli import app

runner = CliRunner()
DOC = {"schema_version": "1.0", "items": [
    {"type": "text", "role": "user", "text": "first question " * 40},
    {"type": "text", "role": "assistant", "text": "first answer " * 40},
    {"type": "text", "role": "user", "text": "second question"},
]}


def _doc(tmp_path: Path) -> Path:
    path = tmp_path / "t.json"
    path.write_text(json.dumps(DOC))
    return path


def test_budget_and_model_without_provider(tmp_path: Path) -> None:
    """The user's case: the budget is given, so no provider is needed."""
    r = runner.invoke(app, ["trim", str(_doc(tmp_path)), "--max-input-tokens", "50", "--model", "gpt-4o"])
    assert r.exit_code == 0, r.output
    kept = json.loads(r.stdout)["items"]
    assert [i["text"] for i in kept] == ["second question"]


def test_model_without_budget_takes_the_provider_from_the_catalogue(tmp_path: Path) -> None:
    with_provider = runner.invoke(app, ["trim", str(_doc(tmp_path)), "--model", "gpt-4o", "--provider", "openai-chat"])
    without = runner.invoke(app, ["trim", str(_doc(tmp_path)), "--model", "gpt-4o"])
    assert without.exit_code == 0 == with_provider.exit_code, without.output
    assert without.stdout == with_provider.stdout


def test_unknown_model_without_budget_is_a_usage_error(tmp_path: Path) -> None:
    r = runner.invoke(app, ["trim", str(_doc(tmp_path)), "--model", "no-such-model-q"])
    assert r.exit_code == 2
    assert "--provider" in r.stderr and "--max-input-tokens" in r.stderr


def test_the_conversations_own_model_gives_the_budget(tmp_path: Path) -> None:
    """A new user's case: `trim long.json` asked for --model although settings.model named it."""
    path = tmp_path / "m.json"
    path.write_text(json.dumps({**DOC, "settings": {"model": "gpt-4o"}}))
    own = runner.invoke(app, ["trim", str(path)])
    named = runner.invoke(app, ["trim", str(path), "--model", "gpt-4o"])
    assert own.exit_code == 0 == named.exit_code, own.output
    assert own.stdout == named.stdout


def test_no_budget_and_no_model_anywhere_is_a_usage_error(tmp_path: Path) -> None:
    r = runner.invoke(app, ["trim", str(_doc(tmp_path))])
    assert r.exit_code == 2
    assert "give --max-input-tokens N, or --model" in r.output and "settings name no model" in r.output


def test_the_conversations_model_unknown_to_the_catalogue_is_named_as_such(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    path.write_text(json.dumps({**DOC, "settings": {"model": "no-such-model-xyz"}}))
    r = runner.invoke(app, ["trim", str(path)])
    assert r.exit_code == 2
    assert "the conversation's model no-such-model-xyz is in no wire format's catalogue" in r.output
