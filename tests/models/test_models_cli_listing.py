"""`interlingua models`: an unknown model exits 1; the list is one `provider<TAB>model` per line off a
terminal; an unknown value is not shown with an origin that did not state it."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.models import catalogue_models

runner = CliRunner()


def test_unknown_model_exits_1_with_not_in_the_catalogue() -> None:
    r = runner.invoke(app, ["models", "no-such-model-xyz"])
    assert r.exit_code == 1
    assert "not in the catalogue" in r.stderr
    r = runner.invoke(app, ["models", "no-such-model-xyz", "-p", "anthropic", "--json"])
    assert r.exit_code == 1 and json.loads(r.stdout)["known"] is False
    assert "not in the catalogue of anthropic" in r.stderr


def test_known_model_exits_0() -> None:
    assert runner.invoke(app, ["models", "gpt-4o", "-p", "openai-chat"]).exit_code == 0


def test_listing_off_a_terminal_is_one_model_per_line() -> None:
    r = runner.invoke(app, ["models", "-p", "anthropic"])
    assert r.exit_code == 0
    lines = r.stdout.splitlines()
    assert all(line.count("\t") == 1 and line.startswith("anthropic\t") for line in lines)
    names = [line.split("\t")[1] for line in lines]
    assert set(catalogue_models("anthropic")) <= set(names)
    assert all("," not in n and "*" not in n for n in names)
    assert len(names) == len(set(names))


def test_listing_every_provider_names_each_provider() -> None:
    r = runner.invoke(app, ["models"])
    providers = {line.split("\t")[0] for line in r.stdout.splitlines()}
    assert {"anthropic", "openai-chat", "gemini"} <= providers


def test_reasoning_settings_null_is_shown_as_reasoning_not_unknown_override() -> None:
    r = runner.invoke(app, ["models", "gpt-4o", "-p", "openai-chat"])
    row = next(line for line in r.stdout.splitlines() if line.strip().startswith("reasoning_settings"))
    assert "unknown" not in row and "as reasoning (false)" in row
    assert all(not (" unknown " in line and "[override" in line) for line in r.stdout.splitlines())
