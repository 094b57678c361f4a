"""What interlingua writes as a canonical document passes its own ``validate --strict``: an empty text
block of a response (Anthropic's refusal stream opens one and closes it empty) is left out, reported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from interlingua import convert_request, convert_response, convert_stream
from interlingua.cli import app
from interlingua.codec import decode_transcript
from interlingua.items import TextItem
from interlingua.validation import validate_document_bytes

REAL = Path(__file__).parent.parent / "fixtures" / "real"
REFUSAL = REAL / "anthropic" / "anthropic_sdk.refusal_response.sse"
FOLDERS = {"anthropic": "anthropic", "openai-chat": "openai_chat", "openai-responses": "openai_responses", "gemini": "gemini", "mistral": "mistral", "cohere": "cohere", "ollama": "ollama"}
runner = CliRunner()


def _strict_errors(doc: dict) -> list[str]:
    result = validate_document_bytes(json.dumps(doc).encode(), mode="strict")
    return [str(p) for p in (*result.problems, *result.warnings)]


def test_refusal_stream_to_canonical_passes_strict() -> None:
    out = convert_stream(REFUSAL.read_bytes(), source="anthropic", target="canonical")
    assert [i["type"] for i in out.value["items"]] == ["refusal"]
    assert any(e.action == "dropped" and e.item_type == "text" and "empty text" in e.reason for e in out.report)
    assert _strict_errors(out.value) == []


def test_refusal_stream_cli_then_validate_strict(tmp_path: Path) -> None:
    result = runner.invoke(app, ["convert", str(REFUSAL), "--from", "anthropic", "--to", "canonical"])
    assert result.exit_code == 0, result.output
    assert "warning: dropped: item 0 text: an empty text block" in result.stderr
    path = tmp_path / "r.json"
    path.write_text(result.stdout)
    checked = runner.invoke(app, ["validate", "--strict", str(path)])
    assert checked.exit_code == 0, checked.output


def _recordings() -> list[tuple[str, Path]]:
    out = []
    for provider, folder in FOLDERS.items():
        for path in sorted((REAL / folder).glob("*")):
            if path.name.endswith((".response.json", ".sse", ".ndjson")) and "error" not in path.name:
                out.append((provider, path))
    return out


@pytest.mark.parametrize(("provider", "path"), _recordings(), ids=lambda v: getattr(v, "name", v))
def test_every_real_response_to_canonical_has_no_empty_text(provider: str, path: Path) -> None:
    try:
        if path.name.endswith(".json"):
            out = convert_response(path.read_bytes(), source=provider, target="canonical", policy="drop")
        else:
            out = convert_stream(path.read_bytes(), source=provider, target="canonical", policy="drop")
    except Exception as exc:  # noqa: BLE001 - error recordings, requests: not this test's subject
        pytest.skip(f"not a convertible response: {type(exc).__name__}")
    doc = decode_transcript(json.dumps(out.value).encode())
    assert not [i for i, item in enumerate(doc.items) if isinstance(item, TextItem) and not item.text.strip()]
    assert not [e for e in _strict_errors(out.value) if "empty_text" in e]


# --------------------------------------------------------------------------- reused tool-call ids (issue 32)

DIRS = {
    "anthropic": "anthropic",
    "bedrock_converse": "bedrock-converse",
    "cohere": "cohere",
    "gemini": "gemini",
    "mistral": "mistral",
    "ollama": "ollama",
    "openai_chat": "openai-chat",
    "openai_chat_extra": "openai-chat",
    "openai_compatible": "openai-chat",
    "openai_responses": "openai-responses",
    "openrouter": "openai-chat",
}
_RESULT_KEYS = ('"tool_call_id"', '"tool_use_id"', '"toolUseId"', '"functionResponse"', '"function_call_output"')


def _answered_requests() -> list[tuple[str, Path, str]]:
    """Real request bodies holding a tool result, with the key of their conversation list."""
    out = []
    for folder, fmt in DIRS.items():
        for path in sorted((REAL / folder).glob("*.request.json")):
            text = path.read_text()
            if not any(k in text for k in _RESULT_KEYS):
                continue
            body = json.loads(text)
            key = next((k for k in ("messages", "contents", "input") if isinstance(body.get(k), list)), None)
            if key is not None:
                out.append((fmt, path, key))
    return out


ANSWERED = _answered_requests()
STRICT_RULES = ("duplicate_result", "duplicate_call_id", "orphan_result", "dangling_call", "result_out_of_turn")


def _rules(doc: dict) -> set[str]:
    return {rule for e in _strict_errors(doc) for rule in STRICT_RULES if f"[{rule}]" in e or "duplicate item id" in e and rule == "duplicate_call_id"}


def _canonical(body: dict, fmt: str) -> dict:
    return convert_request(body, source=fmt, target="canonical", policy="drop").value


def test_every_provider_has_an_answered_request() -> None:
    assert {fmt for fmt, _, _ in ANSWERED} >= {"anthropic", "gemini", "openai-chat", "openai-responses", "bedrock-converse", "mistral", "cohere"}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(ANSWERED), st.integers(min_value=2, max_value=3))
def test_a_conversation_repeated_keeps_every_call_and_passes_strict(case: tuple[str, Path, str], times: int) -> None:
    """A request body whose conversation is given again (every tool call id reused by a call answered
    in its own later turn): ``convert --to canonical`` dropped the later calls, so each later result was
    a second result of the first call, which ``validate --strict`` flags. Now every call is kept under
    a unique id with its own result, and the output has no integrity finding a single copy has not."""
    fmt, path, key = case
    body = json.loads(path.read_text())
    once = _canonical(body, fmt)
    repeated = json.loads(json.dumps(body))
    repeated[key] = [m for _ in range(times) for m in json.loads(json.dumps(body[key]))]
    out = _canonical(repeated, fmt)
    calls = [i for i in out["items"] if i["type"] == "tool_call"]
    results = [i for i in out["items"] if i["type"] == "tool_result"]
    assert len(calls) == times * sum(i["type"] == "tool_call" for i in once["items"])
    assert len(results) == times * sum(i["type"] == "tool_result" for i in once["items"])
    assert len({c["id"] for c in calls}) == len(calls)
    assert _rules(out) <= _rules(once), (path.name, _strict_errors(out))


REUSED = REAL / "openai_chat" / "pai_openai_instructions_with_tool_calls.1.request.json"


def test_reused_id_cli_convert_then_validate_strict(tmp_path: Path) -> None:
    """The issue's case through the CLI: an OpenAI Chat body that asks again with the same call id."""
    body = json.loads(REUSED.read_text())
    call, result = body["messages"][2], body["messages"][3]
    body["messages"] += [{"role": "assistant", "content": "It is 20."}, {"role": "user", "content": "And now?"}, call, result]
    src = tmp_path / "q.json"
    src.write_text(json.dumps(body))
    result_ = runner.invoke(app, ["convert", str(src), "--from", "openai-chat", "--to", "canonical"])
    assert result_.exit_code == 0, result_.output
    assert "renamed 'call_bhZkmIKKItNGJ41whHUHB7p9' to 'call_bhZkmIKKItNGJ41whHUHB7p9_2' on the call and its result" in result_.stderr
    out = tmp_path / "c.json"
    out.write_text(result_.stdout)
    assert runner.invoke(app, ["validate", "--strict", str(out)]).exit_code == 0
    migrated = runner.invoke(app, ["migrate", "--from", "openai-chat", str(src), "-o", str(tmp_path / "m.jsonl"), "-q"])
    assert migrated.exit_code == 0, migrated.output
    assert runner.invoke(app, ["validate", "--strict", str(tmp_path / "m.jsonl")]).exit_code == 0


@pytest.mark.parametrize("fmt", ["pydantic-ai", "langchain", "vercel-model", "vercel-ui"])
def test_a_framework_history_repeated_reads_back_with_unique_ids(fmt: str) -> None:
    """The framework readers apply the same rule: a real history written to the framework's form and
    given twice (every call id reused, each call answered in its own turn) reads back with every call
    kept under a unique id with its own result, and passes ``validate --strict``."""
    from interlingua.codec import encode_transcript
    from interlingua.compat import read, write

    body = json.loads(REUSED.read_text())
    t = decode_transcript(json.dumps(convert_request(body, source="openai-chat", target="canonical").value).encode())
    written = write(t, fmt, policy="drop").value
    assert isinstance(written, list)
    back = read(written + json.loads(json.dumps(written)), fmt)
    doc = json.loads(encode_transcript(back.transcript))
    calls = [i for i in doc["items"] if i["type"] == "tool_call"]
    results = [i for i in doc["items"] if i["type"] == "tool_result"]
    assert len(calls) == 2 and len(results) == 2 and len({c["id"] for c in calls}) == 2
    assert [r["call_id"] for r in results] == [c["id"] for c in calls]
    assert _strict_errors(doc) == []
