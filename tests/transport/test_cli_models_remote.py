"""``interlingua models --remote --provider NAME`` against a local server serving a real list shape."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from interlingua.cli import app

from ._server import Reply
from .conftest import SENTINEL

MODELS = Path(__file__).parent.parent / "fixtures" / "list_and_count"
runner = CliRunner()


def tags() -> Reply:
    return Reply(200, headers={"content-type": "application/json"}, chunks=[(MODELS / "ollama.api_tags.json").read_bytes()])


def test_table_and_json(serve: Any) -> None:
    srv = serve([tags(), tags()])
    result = runner.invoke(app, ["models", "--remote", "--provider", "ollama", "--base-url", srv.url])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split()[:3] == ["ID", "CONTEXT", "MAX_OUTPUT"]
    assert [line.split()[0] for line in lines[1:]] == ["deepseek-r1:latest*", "llama3.2:latest*"]  # * : in the model table
    result = runner.invoke(app, ["models", "--remote", "--provider", "ollama", "--base-url", srv.url, "--json"])
    assert result.exit_code == 0
    rows = json.loads(result.stdout)
    assert [(r["id"], r["provider"], r["in_catalogue"]) for r in rows] == [("deepseek-r1:latest", "ollama", True), ("llama3.2:latest", "ollama", True)]
    assert [r.path for r in srv.received] == ["/api/tags", "/api/tags"]


def test_the_key_comes_from_the_environment(serve: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SENTINEL)
    srv = serve([Reply(200, headers={"content-type": "application/json"}, chunks=[(MODELS / "openai.v1_models.json").read_bytes()])])
    result = runner.invoke(app, ["models", "--remote", "--provider", "openai-chat", "--base-url", srv.url, "--json"])
    assert result.exit_code == 0 and len(json.loads(result.stdout)) == 3
    assert srv.received[0].headers["authorization"] == f"Bearer {SENTINEL}" and SENTINEL not in result.output


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["models", "--base-url", "http://127.0.0.1:9"], 2, "--remote"),  # plain `models` lists the catalogue
        (["models", "--remote"], 2, "--provider"),
        (["models", "--remote", "--provider", "nope"], 2, "no HTTP rules"),
    ],
)
def test_usage_errors(args: list[str], code: int, message: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == code and message in result.output


def test_a_failed_call_is_exit_1(serve: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    result = runner.invoke(app, ["models", "--remote", "--provider", "anthropic", "--base-url", "http://127.0.0.1:9"])
    assert result.exit_code == 1 and "auth" in result.output and "ANTHROPIC_API_KEY" in result.output
    srv = serve([Reply(500, headers={"content-type": "application/json"}, chunks=[b'{"error":"boom"}'])] * 3)
    result = runner.invoke(app, ["models", "--remote", "--provider", "ollama", "--base-url", srv.url])
    assert result.exit_code == 1 and result.output.startswith("error: server") and "Traceback" not in result.output


def test_remote_without_a_key_names_the_environment_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI has no key flag: the error names the variable to set, and for a local base URL the
    host names that take no key (the host registry's local servers)."""
    from interlingua.hosts import HOSTS

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = runner.invoke(app, ["models", "--remote", "--provider", "openai-chat", "--base-url", "http://127.0.0.1:9/v1"])
    assert result.exit_code == 1
    assert "set the environment variable OPENAI_API_KEY" in result.stderr and "pass api_key" not in result.stderr
    assert all(f"openai-chat:{h.name}" in result.stderr for h in HOSTS.values() if h.local)
    result = runner.invoke(app, ["models", "--remote", "--provider", "openai-chat"])
    assert result.exit_code == 1 and "openai-chat:vllm" not in result.stderr
