"""``trim``: whatever the budget, the output validates and keeps every pair whole; the CLI gives what
Python gives; preflight refuses a request that cannot fit the model's context window."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import interlingua as il
from interlingua import BudgetError, convert_request
from interlingua.codec import decode_transcript, encode_transcript
from interlingua.history import ModelLimits, TRIM_MARKER, check_history, count_tokens, model_limits, repair, trim
from interlingua.items import ReasoningItem, Settings, TextItem, ToolCallItem, ToolDefinition, ToolResultItem, Transcript
from interlingua.testing.strategies import transcripts
from interlingua.validation import validate_document_bytes
from tests.sdk_oracle.bodies import decoded_request, request_fixtures

FIXTURES = [(s, p) for s, p in request_fixtures()]


def _pairs_whole(items: list[object]) -> bool:
    calls = {i.id for i in items if isinstance(i, ToolCallItem)}
    return all(i.call_id in calls for i in items if isinstance(i, ToolResultItem))


def _check(source: Transcript, budget: int, **kw: object) -> None:
    try:
        out = trim(source, budget, **kw)  # type: ignore[arg-type]
    except BudgetError as exc:
        assert str(budget) in str(exc)
        return
    t = out.value
    result = validate_document_bytes(encode_transcript(t))
    assert result.ok, result.problems
    assert _pairs_whole(t.items)
    if t is not source:
        assert count_tokens(t).input_tokens <= budget
        # the system prompt stays; the kept history (after instructions and a marker) starts on a user item
        sys_in = [i for i in source.items if getattr(i, "role", None) in ("system", "developer")]
        assert [i for i in t.items if getattr(i, "role", None) in ("system", "developer")] == sys_in
        rest = [i for i in t.items if getattr(i, "role", None) not in ("system", "developer")]
        if rest and not kw.get("keep_first"):
            assert getattr(rest[0], "role", None) == "user"
        assert all(e.action in ("dropped", "changed") for e in out.report) and out.report
    # a sound history stays sound
    if not check_history(source.items, open_end=False):
        assert check_history(t.items, open_end=False) == []


BUDGETS = [0, 1, 10, 50, 200, 1_000, 5_000, 100_000, 10**9]


@pytest.mark.parametrize("budget", BUDGETS)
@pytest.mark.parametrize("case", FIXTURES, ids=lambda c: f"{c[1].parent.name}/{c[1].name}")
def test_trim_every_fixture_at_every_budget(case: tuple[str, Path], budget: int) -> None:
    source = decoded_request(*case)
    _check(source, budget)
    _check(source, budget, marker=True)
    _check(source, budget, keep_first=1)


@settings(max_examples=300)
@given(transcripts(max_items=30), st.integers(0, 3000), st.booleans(), st.integers(0, 2))
def test_trim_never_breaks_a_generated_history(t: Transcript, budget: int, marker: bool, keep_first: int) -> None:
    _check(t, budget, marker=marker, keep_first=keep_first)
    sound = repair(t, "degrade").value
    _check(sound, budget, marker=marker, keep_first=keep_first)


def long_session(turns: int = 40) -> Transcript:
    items: list[object] = [TextItem(text="You are a terse travel assistant.", role="system")]
    for n in range(turns):
        items += [
            TextItem(text=f"Question {n}: what is the weather in city {n}? " + "Please be detailed. " * 20, role="user"),
            ReasoningItem(text="I should call the weather tool. " * 5),
            ToolCallItem(id=f"call_{n}", name="weather", arguments={"city": f"city {n}"}),
            ToolResultItem(call_id=f"call_{n}", content=[TextItem(text="sunny, 21 C " * 30)]),
            TextItem(text=f"City {n} is sunny. " * 10, role="assistant"),
        ]
    return Transcript(schema_version="1.0", items=items, tools=[ToolDefinition(name="weather", description="Weather in a city.", parameters={"type": "object", "properties": {"city": {"type": "string"}}})])  # type: ignore[arg-type]


def test_long_session_trimmed_for_a_small_model() -> None:
    t = long_session()
    before = count_tokens(t).input_tokens
    out = trim(t, 4_000, marker=True, keep_first=1)
    after = count_tokens(out.value).input_tokens
    assert before > 15_000 and after <= 4_000
    items = out.value.items
    assert items[0] == t.items[0]  # system prompt
    assert items[1].text.startswith("Question 0")  # type: ignore[union-attr]  # the first turn kept
    marker = next(i for i in items if isinstance(i, TextItem) and i.text.startswith("["))
    assert marker.text == TRIM_MARKER.format(n=len(out.report))
    assert items[-1] == t.items[-1]  # newest turn kept
    assert check_history(items, open_end=False) == []


def test_trim_budget_from_the_model_window() -> None:
    t = long_session(600)
    assert count_tokens(t).input_tokens > 200_000
    out = trim(t, model="claude-sonnet-4-5", provider="anthropic")
    limits = model_limits("anthropic", "claude-sonnet-4-5")
    assert limits.context_window == 200_000 and limits.max_output_tokens == 64_000
    assert count_tokens(out.value).input_tokens <= 200_000 - 64_000
    with pytest.raises(BudgetError, match="no budget"):
        trim(t, model="unknown-model", provider="anthropic")


def test_cli_gives_what_python_gives(tmp_path: Path) -> None:
    from interlingua.cli import app

    t = long_session(10)
    src = tmp_path / "t.json"
    src.write_bytes(encode_transcript(t))
    out = tmp_path / "o.json"
    runner = CliRunner()
    result = runner.invoke(app, ["trim", str(src), "--max-input-tokens", "3000", "--marker", "--keep-first", "1", "-o", str(out)])
    assert result.exit_code == 0, result.output
    py = trim(t, 3000, marker=True, keep_first=1)
    assert decode_transcript(out.read_bytes()) == py.value
    assert [line for line in result.stderr.splitlines() if line.startswith("dropped")] == [str(e) for e in py.report]
    # repair too
    broken = msgspec.structs.replace(t, items=t.items[:4])  # ends in a call
    src.write_bytes(encode_transcript(broken))
    result = runner.invoke(app, ["repair", str(src), "-o", str(out)])
    assert result.exit_code == 0
    assert decode_transcript(out.read_bytes()) == repair(broken, "degrade").value
    result = runner.invoke(app, ["trim", str(src), "--max-input-tokens", "1"])
    assert result.exit_code == 1 and "does not fit 1 input tokens" in result.stderr
    result = runner.invoke(app, ["trim", str(src)])
    assert result.exit_code == 2


def test_context_fit_refuses_before_sending_with_the_figures() -> None:
    t = long_session(500)
    t = msgspec.structs.replace(t, settings=Settings(max_output_tokens=64_000))  # the output budget asked for
    with pytest.raises(BudgetError) as err:
        convert_request(t, source="canonical", target="anthropic", model="claude-sonnet-4-5", policy="error")
    msg = str(err.value)
    assert "200000" in msg and "64000" in msg and "estimated" in msg
    # with a small enough output budget and a trimmed history it fits
    small = trim(t, 100_000).value
    small = msgspec.structs.replace(small, settings=Settings(max_output_tokens=8_000))
    out = convert_request(small, source="canonical", target="anthropic", model="claude-sonnet-4-5", policy="error")
    assert out.value["max_tokens"] == 8_000
    # an unknown window is never refused on another model's figures
    convert_request(t, source="canonical", target="anthropic", model="claude-unknown-9", policy="error")


def test_context_fit_counts_a_seeded_history_by_its_reported_usage() -> None:
    """A short history whose recorded usage says it is huge (e.g. big cached documents) is refused."""
    from interlingua.items import ResponseRecord, Usage

    t = long_session(2)
    t = msgspec.structs.replace(t, responses=[ResponseRecord(item=len(t.items) - 1 - 5, usage=Usage(input_tokens=190_000))], settings=Settings(max_output_tokens=16_000))
    with pytest.raises(BudgetError, match="reported usage"):
        convert_request(t, source="canonical", target="anthropic", model="claude-sonnet-4-5", policy="error")


def test_public_names() -> None:
    assert il.trim is trim and il.repair is repair and il.count_tokens is count_tokens
    from interlingua.models import lookup

    facts = lookup("gemini", "models/gemini-2.5-flash")  # the catalogue's figures, one source
    assert model_limits("gemini", "models/gemini-2.5-flash") == ModelLimits(facts.context_window, facts.max_output_tokens)
    assert facts.context_window == 1048576
    assert model_limits("openai-chat", "no-such-model-anywhere") == ModelLimits(None, None)  # unknown, never a default
