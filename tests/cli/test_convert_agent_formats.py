"""``interlingua convert --from NAME`` takes every format ``migrate --from`` takes (issue 26: "``--from NAME``
names every new format"): the agent logs and agent framework stores read one conversation; a file of several
is a usage error naming ``migrate``; none of them is a ``--to``. Real files: tests/fixtures/stores/ (README)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.compat import FORMATS, WRITERS, read, write
from interlingua.codec import decode_transcript

STORES = Path(__file__).parents[1] / "fixtures" / "stores"
runner = CliRunner()

REAL = {
    "claude-code": STORES / "claude-code" / "representative_messages.jsonl",
    "codex": STORES / "codex" / "sessions" / "2026" / "01" / "02" / "rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl",
    "adk": STORES / "adk" / "customer_service_123.session.json",
    "mcp-sampling": STORES / "mcp-sampling" / "tool_loop_exchange.json",
}


def convert(*args: Any, input: bytes | None = None) -> Any:
    return runner.invoke(app, ["convert", *map(str, args)], input=input, catch_exceptions=False)


def migrate_items(path: Path, fmt: str, tmp_path: Path) -> list[Any]:
    """The first session ``migrate --from fmt`` writes for ``path``: what convert must give too."""
    from interlingua.session_file import read_sessions

    out = tmp_path / "m.jsonl"
    res = runner.invoke(app, ["migrate", str(path), "--from", fmt, "-o", str(out)], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    with open(out, "rb") as fh:
        return [e.item for e in next(iter(read_sessions(fh))).envelopes]


def test_every_migrate_format_is_a_convert_format() -> None:
    from interlingua.cli.convert import FRAMEWORKS
    from interlingua.mapping import available

    convertible = {*FRAMEWORKS, *available(), "canonical"}
    assert set(FORMATS) - convertible == {"interlingua"}  # interlingua files are convert's --from canonical


@pytest.mark.parametrize("fmt", sorted(REAL))
def test_a_real_file_converts_to_canonical_as_migrate_reads_it(fmt: str, tmp_path: Path) -> None:
    res = convert("--from", fmt, "--to", "canonical", REAL[fmt])
    assert res.exit_code == 0, res.output
    doc = decode_transcript(res.stdout.encode())
    assert doc.items == migrate_items(REAL[fmt], fmt, tmp_path)


def test_a_log_on_stdin_reads_as_the_file(tmp_path: Path) -> None:
    path = REAL["claude-code"]
    from_file = convert("--from", "claude-code", "--to", "canonical", path)
    from_stdin = convert("--from", "claude-code", "--to", "canonical", "-", input=path.read_bytes())
    assert from_stdin.exit_code == 0, from_stdin.output
    assert from_stdin.stdout == from_file.stdout


def test_a_real_codex_rollout_converts_to_a_provider_body() -> None:
    res = convert("--from", "codex", "--to", "openai-responses", "--model", "gpt-4.1", REAL["codex"])
    assert res.exit_code == 0, res.output
    body = json.loads(res.stdout)
    calls = [i for i in body["input"] if i.get("type") == "function_call"]
    records = [json.loads(line) for line in REAL["codex"].read_text().splitlines() if line.strip()]
    want = [r["payload"]["call_id"] for r in records if r["type"] == "response_item" and r["payload"].get("type") == "function_call"]
    assert want and [c["call_id"] for c in calls] == want
    assert "event_msg record(s) skipped" in res.stderr


def test_a_tree_converts_its_active_branch_and_says_where_the_forks_went() -> None:
    path = STORES / "claude-code" / "dag_compact_after_rewind.jsonl"
    res = convert("--from", "claude-code", "--to", "canonical", path)
    assert res.exit_code == 0, res.output
    texts = [i.get("text") for i in json.loads(res.stdout)["items"] if i["type"] == "text"]
    assert "Second attempt" in texts and "First attempt" not in texts
    assert "1 abandoned branch(es)" in res.stderr and "interlingua migrate" in res.stderr


def test_an_eval_set_of_several_cases_is_a_usage_error_naming_migrate(tmp_path: Path) -> None:
    evalset = json.loads((STORES / "adk" / "travel_concierge_inspire.test.json").read_text())
    evalset["eval_cases"] = evalset["eval_cases"] * 2
    path = tmp_path / "two.evalset.json"
    path.write_text(json.dumps(evalset))
    res = convert("--from", "adk", "--to", "canonical", path)
    assert res.exit_code == 2
    assert "2 eval cases" in res.stderr and "interlingua migrate" in res.stderr and "--from adk" in res.stderr
    assert res.stdout == ""


def test_an_eval_set_of_one_case_converts() -> None:
    path = STORES / "adk" / "travel_concierge_pretrip.test.json"
    refused = convert("--from", "adk", "--to", "gemini", "--model", "gemini-2.5-flash", path)
    assert refused.exit_code == 1 and "dangling_call" in refused.stderr  # an eval set records calls, not their responses
    res = convert("--from", "adk", "--to", "gemini", "--model", "gemini-2.5-flash", "--policy", "drop", path)
    assert res.exit_code == 0, res.output
    texts = [p["text"] for c in json.loads(res.stdout)["contents"] for p in c["parts"] if "text" in p]
    assert texts[0] == "transfer to pre_trip"


@pytest.mark.parametrize(
    ("fmt", "source", "code", "says"),
    [
        ("claude-code", STORES / "adk" / "customer_service_123.session.json", 1, "customer_service_123.session.json:1: not JSON"),
        ("codex", STORES / "codex" / "malformed" / "rollout-66666666-6666-4666-8666-666666666666.jsonl", 1, "rollout-66666666"),
        ("adk", STORES / "claude-code" / "representative_messages.jsonl", 1, "not JSON"),
        ("mcp-sampling", Path("/nonexistent/x.json"), 2, "cannot read"),
    ],
)
def test_bad_agent_input_is_refused_saying_where(fmt: str, source: Path, code: int, says: str) -> None:
    res = convert("--from", fmt, "--to", "canonical", source)
    assert res.exit_code == code, res.output
    assert says in res.stderr and "Traceback" not in res.output
    assert res.stdout == ""


@pytest.mark.parametrize("fmt", ["claude-code", "codex", "adk", "mcp-sampling"])
def test_a_read_only_format_is_no_target(fmt: str) -> None:
    res = convert("--from", "canonical", "--to", fmt, REAL["adk"])
    assert res.exit_code == 2
    assert "read, not written" in res.stderr and all(w in res.stderr for w in WRITERS)


@pytest.mark.parametrize("to", ["vercel-ui", "vercel-model", "openai-finetune", "sharegpt"])
def test_the_issues_writers_are_targets_of_both_commands(to: str, tmp_path: Path) -> None:
    """``--to NAME`` for the writers the issue marks (*), on convert and on migrate, reading back the same."""
    source = STORES / "openai-finetune" / "drone_training_1.jsonl"
    line = json.loads(source.read_text().splitlines()[0])
    original = read(line, "openai-finetune").transcript
    one = tmp_path / "one.json"
    one.write_text(json.dumps(line))
    res = convert("--from", "openai-finetune", "--to", to, one)
    assert res.exit_code == 0, res.output
    written = json.loads(res.stdout)
    assert written == write(original, to).value
    assert read(written, to).transcript.items  # read back by our own reader
    out = tmp_path / "out.jsonl"
    res = runner.invoke(app, ["migrate", str(source), "--from", "openai-finetune", "--to", to, "-o", str(out)], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert json.loads(out.read_text().splitlines()[0]) == written
