"""When input does not read as the format given, the message names the format that reads it, and only then."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.codec import write_jsonl

ROOT = Path(__file__).resolve().parents[2]
REQUEST = ROOT / "tests" / "fixtures" / "real" / "anthropic" / "pai_anthropic_parallel_tool_calls.0.request.json"
runner = CliRunner()


MISTRAL_IMAGES = ROOT / "tests" / "fixtures" / "real" / "mistral" / "pai_multimodal_tool_returns_model_sees_multiple_images_mistral.1.request.json"


REAL = ROOT / "tests" / "fixtures" / "real"


@pytest.mark.parametrize("to", ["anthropic", "canonical"])
def test_bad_base64_in_provider_input_is_not_called_an_invalid_transcript(tmp_path: Path, to: str) -> None:
    """A real Mistral request whose data URL is broken: the file is a provider request, not a
    transcript, so the message names the file and the format (it said ``invalid transcript: <input>``)."""
    text = MISTRAL_IMAGES.read_text()
    assert text.count(";base64,/9j/") >= 1
    bad = tmp_path / "req.json"
    bad.write_text(text.replace(";base64,/9j/", ";base64,!!/9j/", 1))
    # --policy drop: the recorded top_p is a setting Anthropic's current API lacks (refused under error first)
    res = runner.invoke(app, ["convert", "--from", "mistral", "--to", to, "--policy", "drop", str(bad)])
    assert res.exit_code == 1, (res.stdout, res.stderr)
    last = res.stderr.strip().splitlines()[-1]
    assert last.startswith("error: mistral input read into invalid items") and "invalid transcript" not in last
    assert f"{bad}: /items/" in last and "/source/data: data is not valid base64" in last
    assert res.stdout == ""
    ok = runner.invoke(app, ["convert", "--from", "mistral", "--to", to, "--policy", "drop", str(MISTRAL_IMAGES)])
    assert ok.exit_code == 0, ok.stderr


@pytest.mark.parametrize(("provider", "names"), [("openai-chat:nosuch", ["groq", "lmstudio", "openrouter"]), ("openai-chat:", ["groq"]), ("anthropic:groq", ["has no variants"])])
def test_replay_unknown_provider_variant_lists_the_known_hosts(tmp_path: Path, provider: str, names: list[str]) -> None:
    """``--provider openai-chat:<host>`` with a host it does not know said only ``openai-chat:<host>
    (e.g. openai-chat:groq)``: which hosts there are was nowhere on the command line."""
    doc = tmp_path / "t.json"
    assert runner.invoke(app, ["convert", "--from", "anthropic", "--to", "canonical", str(REQUEST), "-o", str(doc)]).exit_code == 0
    res = runner.invoke(app, ["replay", str(doc), "--provider", provider, "--model", "m"])
    assert res.exit_code == 2, (res.stdout, res.stderr)
    assert res.stderr.startswith(f"error: unknown provider {provider!r}: ")
    for name in names:
        assert name in res.stderr
    assert res.stdout == ""


@pytest.mark.parametrize(
    ("recording", "wrong", "right"),
    [
        (REAL / "openai_chat" / "openai_python.stream_text.sse", "anthropic", "openai-chat"),
        (REAL / "openai_chat" / "openai_python.stream_text.sse", "gemini", "openai-chat"),
        (REAL / "anthropic" / "anthropic_sdk.basic_response.sse", "openai-chat", "anthropic"),
        (REAL / "anthropic" / "anthropic_sdk.basic_response.sse", "openai-responses", "anthropic"),
        (REAL / "openai_responses" / "pai_openai_responses_stream.0.response.sse", "anthropic", "openai-responses"),
    ],
)
def test_a_stream_given_the_wrong_from_names_the_format_that_reads_it(recording: Path, wrong: str, right: str) -> None:
    """A real OpenAI Chat stream read as Anthropic failed on its ``[DONE]`` line with
    'invalid JSON ... (at /33)' and no hint that --from was wrong (the hint was for streams whose
    failure had no pointer)."""
    res = runner.invoke(app, ["convert", str(recording), "--from", wrong, "--to", "canonical"])
    assert res.exit_code == 1, (res.stdout, res.stderr)
    last = res.stderr.strip().splitlines()[-1]
    assert f"--from {right}" in last and f"--from {wrong}" not in last, last
    assert runner.invoke(app, ["convert", str(recording), "--from", right, "--to", "canonical"]).exit_code == 0


def test_a_cut_stream_of_the_right_format_gets_no_other_format_hint(tmp_path: Path) -> None:
    recording = REAL / "anthropic" / "anthropic_sdk.basic_response.sse"
    cut = tmp_path / "cut.sse"
    data = recording.read_bytes()
    cut.write_bytes(data[: data.index(b"message_stop")])
    res = runner.invoke(app, ["convert", str(cut), "--from", "anthropic", "--to", "canonical"])
    assert res.exit_code == 1
    assert "try --from" not in res.stderr and "content event" in res.stderr


@pytest.mark.parametrize("value", [[], [1, 2], ["a", None], [True]])
def test_a_list_that_is_not_messages_gets_no_message_list_hint(tmp_path: Path, value: list[object]) -> None:
    """``[1, 2]`` or ``[]`` given to convert was told 'a bare list of messages is not a request body'."""
    path = tmp_path / "x.json"
    path.write_text(json.dumps(value))
    res = runner.invoke(app, ["convert", str(path), "--from", "openai-chat", "--to", "anthropic"])
    assert res.exit_code == 1, res.stderr
    assert "expected a JSON object" in res.stderr and "list of messages" not in res.stderr


def test_a_real_message_list_keeps_its_hint(tmp_path: Path) -> None:
    body = json.loads(REQUEST.read_bytes())
    path = tmp_path / "messages.json"
    path.write_text(json.dumps(body["messages"]))
    res = runner.invoke(app, ["convert", str(path), "--from", "anthropic", "--to", "openai-chat"])
    assert res.exit_code == 1 and "a bare list of messages is not a request body" in res.stderr


def test_no_hint_names_a_format_that_does_not_read_the_body_either() -> None:
    # a new user's case: "messages" as a string has the keys of an Ollama request, and the hint said
    # "try --from ollama", which fails the same way; a hint now names only a format that reads the body
    res = runner.invoke(app, ["convert", "--from", "openai-chat", "--to", "anthropic"], input='{"model":"x","messages":"hi"}')
    assert res.exit_code == 1
    assert "ollama" not in res.stderr and "looks like" not in res.stderr, res.stderr


def test_a_hint_still_names_the_format_that_reads_the_body() -> None:
    body = (ROOT / "tests" / "fixtures" / "real" / "openai_chat" / "openai_python.stream_single_tool_call.request.json").read_text()
    res = runner.invoke(app, ["convert", "--from", "anthropic", "--to", "gemini"], input=body)
    assert res.exit_code == 1 and "try --from openai-chat" in res.stderr, res.stderr
