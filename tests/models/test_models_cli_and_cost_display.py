"""``interlingua models`` and where cost estimates are shown (the viewer), always marked as estimates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.codec import decode_transcript
from interlingua.models import source, use_models_file
from interlingua.view import render_html

runner = CliRunner()


@pytest.fixture(autouse=True)
def _no_user_table(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("INTERLINGUA_MODELS", raising=False)
    use_models_file(None)


def test_source_names_the_package_version_and_date() -> None:
    r = runner.invoke(app, ["models", "--source"])
    assert r.exit_code == 0, r.output
    src = source()
    assert f"{src.package} {src.version}" in r.stdout and src.date in r.stdout
    doc = json.loads(runner.invoke(app, ["models", "--source", "--json"]).stdout)
    assert doc["version"] == src.version and doc["sha256"] == src.sha256


def test_show_says_where_each_fact_came_from() -> None:
    r = runner.invoke(app, ["models", "gpt-oss-120b", "--provider", "openai-chat:cerebras", "--json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["known"] and doc["catalogue_row"] == "cerebras/gpt-oss-120b"
    facts = doc["facts"]
    assert facts["context_window"]["origin"] == "catalogue"
    assert facts["input_modalities"]["origin"] == "default" and "cerebras" in facts["input_modalities"]["detail"]
    text = runner.invoke(app, ["models", "claude-sonnet-4-5", "--provider", "anthropic"]).stdout
    assert "[override" in text and "models.json pattern 'claude-sonnet-4-5*'" in text


def test_show_an_unknown_model_says_its_capabilities_are_unknown() -> None:
    r = runner.invoke(app, ["models", "no-such-model-x1"])
    assert r.exit_code == 1  # not in the catalogue: an error, with the defaults still shown
    assert "UNKNOWN" in r.stdout and "refuses nothing" in r.stdout
    assert r.stderr.startswith("error: model 'no-such-model-x1' is not in the catalogue")


def test_user_table_facts_are_shown_as_user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "mine.json"
    path.write_text(json.dumps({"schema_version": "1.0", "entries": [{"provider": "openai-chat", "pattern": "my-model", "capabilities": {"tools": True}}]}))
    monkeypatch.setenv("INTERLINGUA_MODELS", str(path))
    doc = json.loads(runner.invoke(app, ["models", "my-model", "-p", "openai-chat", "--json"]).stdout)
    assert doc["known"] and doc["facts"]["tools"]["origin"] == "user"
    path.write_text('{"schema_version": "1.0", "entries": [{"provider": "x"}]}')
    monkeypatch.setenv("INTERLINGUA_MODELS", str(tmp_path / "other.json"))
    (tmp_path / "other.json").write_text('{"schema_version": "1.0", "entries": [{"provider": "x"}]}')
    bad = runner.invoke(app, ["models", "my-model", "-p", "openai-chat"])
    assert bad.exit_code == 1 and "other.json" in bad.stderr


def test_list_and_bad_provider() -> None:
    r = runner.invoke(app, ["models", "--provider", "anthropic"])
    assert r.exit_code == 0 and "anthropic\tclaude-sonnet-4-5\n" in r.stdout  # off a terminal: provider<TAB>model lines
    bad = runner.invoke(app, ["models", "--provider", "nope"])
    assert bad.exit_code == 2 and "unknown provider 'nope'" in bad.stderr


def _doc(model: str) -> str:
    return json.dumps(
        {
            "schema_version": "1.0",
            "items": [
                {"type": "text", "role": "user", "text": "hi"},
                {"type": "text", "role": "assistant", "text": "hello", "origin": {"provider": "anthropic", "model": model}},
            ],
            "usage": {"input_tokens": 1000, "output_tokens": 100},
        }
    )


def test_viewer_shows_a_dated_estimate_for_a_priced_model_and_none_for_an_unknown_one() -> None:
    html = render_html(decode_transcript(_doc("claude-sonnet-4-5")))
    assert 'class="cost"' in html and "estimate" in html and source().date in html
    assert 'class="cost"' not in render_html(decode_transcript(_doc("claude-9-unknown")))
