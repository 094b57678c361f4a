"""A UIMessage's step (the parts between two ``step-start`` parts) is one model call: its tool calls
go in one assistant message and its results in one message after it (issue 26). The AI SDK's own
``convertToModelMessages`` output for the same input (tests/fixtures/stores/vercel-model/, from the
SDK's test snapshots) is the oracle."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.compat import read, write
from interlingua.items import ToolCallItem, ToolResultItem
from interlingua.mapping.turns import call_turn_keys

STORES = Path(__file__).resolve().parents[1] / "fixtures" / "stores"
PAIRS = sorted(p.name for p in (STORES / "vercel-ui").glob("*.json") if (STORES / "vercel-model" / p.name).exists())
runner = CliRunner()


def test_every_pair_is_tested() -> None:
    assert "multiple-tool-invocations.json" in PAIRS and len(PAIRS) >= 2


@pytest.mark.parametrize("name", PAIRS)
def test_ui_to_model_is_the_sdks_own_output(name: str) -> None:
    res = runner.invoke(app, ["convert", "--from", "vercel-ui", "--to", "vercel-model", str(STORES / "vercel-ui" / name)], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout) == json.loads((STORES / "vercel-model" / name).read_text())


def _steps(ui: list[dict]) -> list[list[str]]:
    """The tool call ids of each step, counted from the raw UIMessage parts."""
    steps: list[list[str]] = []
    for msg in ui:
        current: list[str] = []
        for part in msg["parts"]:
            if part["type"] == "step-start":
                if current:
                    steps.append(current)
                current = []
            elif part["type"].startswith("tool-"):
                current.append(part["toolCallId"])
        if current:
            steps.append(current)
    return steps


@pytest.mark.parametrize("name", PAIRS)
def test_calls_of_one_step_are_one_assistant_turn(name: str) -> None:
    ui = json.loads((STORES / "vercel-ui" / name).read_text())
    items = list(read(ui, "vercel-ui").transcript.items)
    turns = call_turn_keys(items)
    keys_of_call = {it.id: (turns.key(i, it), run) for run, (i, it) in enumerate((i, it) for i, it in enumerate(items) if isinstance(it, ToolCallItem))}
    # each step's calls form one run of assistant items (no result between them), under one key
    positions = {it.id: i for i, it in enumerate(items) if isinstance(it, ToolCallItem)}
    for step in _steps(ui):
        span = items[positions[step[0]] : positions[step[-1]] + 1]
        assert not any(isinstance(it, ToolResultItem) for it in span), step
        assert len({keys_of_call[c][0] for c in step}) == 1


def test_anthropic_gets_one_tool_use_turn_per_step() -> None:
    ui = json.loads((STORES / "vercel-ui" / "multiple-tool-invocations.json").read_text())
    res = runner.invoke(app, ["convert", "--from", "vercel-ui", "--to", "anthropic", "--policy", "drop", str(STORES / "vercel-ui" / "multiple-tool-invocations.json")], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    messages = json.loads(res.stdout)["messages"]
    turns = [[b.get("id") for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_use"] for m in messages if m["role"] == "assistant"]
    assert [t for t in turns if t] == _steps(ui)


def test_ui_round_trip_still_identical() -> None:
    for name in PAIRS:
        ui = json.loads((STORES / "vercel-ui" / name).read_text())
        back = write(read(ui, "vercel-ui").transcript, "vercel-ui").value
        assert [{k: v for k, v in m.items() if k != "id"} for m in back] == [{k: v for k, v in m.items() if k != "id"} for m in ui]


@pytest.mark.parametrize("name", PAIRS)
def test_model_round_trip_of_the_sdks_output(name: str) -> None:
    model = json.loads((STORES / "vercel-model" / name).read_text())
    assert write(read(model, "vercel-model").transcript, "vercel-model").value == model
