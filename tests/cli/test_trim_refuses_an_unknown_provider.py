"""``trim --provider NAME`` with a wire format nobody knows: exit 2 with the message ``models --provider``
gives, whether the budget comes from ``--model`` or ``--max-input-tokens``.

Issue 32's cases: ``trim w.json --model gpt-4o --provider nope`` (or ``openai-chat:nohost``) ended in an
UnknownFormatError traceback; with ``--max-input-tokens`` a bad ``--provider`` was silently accepted.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from interlingua.cli import app

ROOT = Path(__file__).resolve().parents[2]
WEATHER = ROOT / "examples" / "transcripts" / "weather.json"
runner = CliRunner()


@pytest.mark.parametrize("provider", ["nope", "openai-chat:nohost", "OpenAI-Chat", ""])
@pytest.mark.parametrize("budget", [["--model", "gpt-4o"], ["--max-input-tokens", "1000"], ["--model", "gpt-4o", "--max-input-tokens", "1000"]])
def test_an_unknown_provider_is_a_usage_error_with_the_models_message(provider: str, budget: list[str], tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    res = runner.invoke(app, ["trim", str(WEATHER), *budget, "--provider", provider, "-o", str(out)])
    models = runner.invoke(app, ["models", "--provider", provider])
    assert models.exit_code == 2
    assert res.exit_code == 2, res.stderr
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    assert res.stderr == models.stderr
    assert f"unknown provider {provider!r}" in res.stderr
    assert not out.exists()


@pytest.mark.parametrize("provider", ["openai-chat", "anthropic", "openai-chat:groq"])
def test_a_known_provider_still_trims(provider: str) -> None:
    res = runner.invoke(app, ["trim", str(WEATHER), "--max-input-tokens", "100000", "--provider", provider])
    assert res.exit_code == 0, res.stderr
    assert '"schema_version"' in res.stdout
