"""The user's model table (``INTERLINGUA_MODELS``) is read whole: an entry's ``context_window`` is a
fact of the model, and the listing form of ``models`` reads (and checks) the table as the one-model form.

Issue 32's cases: a table giving ``"context_window": 1000`` for a model the catalogue lacks, yet
``models mymodel -p openai-chat`` showed no context window and ``trim --model mymodel --provider
openai-chat`` said the window was not known; and ``INTERLINGUA_MODELS=/nonexist interlingua models``
exited 0 in silence (the one-model form exits 2).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.models import lookup, use_models_file

ROOT = Path(__file__).resolve().parents[2]
WEATHER = ROOT / "examples" / "transcripts" / "weather.json"
runner = CliRunner()

TABLE = {
    "schema_version": "1.0",
    "entries": [{"provider": "openai-chat", "pattern": "mymodel", "capabilities": {"max_output_tokens": 100}, "context_window": 1000}],
}


@pytest.fixture(autouse=True)
def _no_user_table(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("INTERLINGUA_MODELS", raising=False)
    use_models_file(None)


@pytest.fixture
def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "um.json"
    path.write_text(json.dumps(TABLE))
    monkeypatch.setenv("INTERLINGUA_MODELS", str(path))
    return path


def test_lookup_takes_the_user_context_window(table: Path) -> None:
    info = lookup("openai-chat", "mymodel")
    assert info.known and info.catalogue_row is None
    assert info.context_window == 1000 and info.max_output_tokens == 100
    assert info.facts["context_window"].origin == "user" and str(table) in info.facts["context_window"].detail


def test_the_user_context_window_wins_over_the_catalogue(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "um.json"
    path.write_text(json.dumps({"schema_version": "1.0", "entries": [{"provider": "openai-chat", "pattern": "gpt-4o", "capabilities": {}, "context_window": 5000}]}))
    assert lookup("openai-chat", "gpt-4o").context_window != 5000
    monkeypatch.setenv("INTERLINGUA_MODELS", str(path))
    assert lookup("openai-chat", "gpt-4o").context_window == 5000


def test_models_shows_it_and_trim_uses_it(table: Path) -> None:
    res = runner.invoke(app, ["models", "mymodel", "-p", "openai-chat", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["facts"]["context_window"] == {"value": 1000, "origin": "user", "detail": f"{table} pattern 'mymodel'"}
    res = runner.invoke(app, ["models", "mymodel", "-p", "openai-chat"])
    assert "context_window             1000" in res.stdout and "your model table" in res.stdout
    res = runner.invoke(app, ["trim", str(WEATHER), "--model", "mymodel", "--provider", "openai-chat"])
    assert res.exit_code == 0, res.stderr
    assert "not known" not in res.stderr and "kept" in res.stderr
    # the budget is the window less the output budget: 900 tokens; the weather transcript fits
    assert json.loads(res.stdout)["items"]


def test_the_listing_reads_the_table(table: Path) -> None:
    res = runner.invoke(app, ["models", "-p", "openai-chat", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["openai-chat"]["user"] == ["mymodel"]
    res = runner.invoke(app, ["models", "-p", "openai-chat"])
    assert "openai-chat\tmymodel" in res.stdout.splitlines()


@pytest.mark.parametrize("args", [["models"], ["models", "--json"], ["models", "gpt-4o"]])
def test_a_missing_table_is_the_same_error_in_both_forms(args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    missing = tmp_path / "nonexist.json"
    monkeypatch.setenv("INTERLINGUA_MODELS", str(missing))
    res = runner.invoke(app, args)
    assert res.exit_code == 2, res.output
    assert str(missing) in res.stderr and not res.stdout


@pytest.mark.parametrize("args", [["models"], ["models", "gpt-4o", "-p", "openai-chat"]])
def test_an_invalid_table_is_the_same_error_in_both_forms(args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema_version": "1.0", "entries": [{"provider": "openai-chat"}]}')
    monkeypatch.setenv("INTERLINGUA_MODELS", str(bad))
    res = runner.invoke(app, args)
    assert res.exit_code == 1, res.output
    assert str(bad) in res.stderr and "pattern" in res.stderr and not res.stdout
