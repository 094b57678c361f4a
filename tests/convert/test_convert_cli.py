"""``interlingua convert``: exit codes, stdin/-o, warnings on stderr, kind detection, streams, preflight."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from interlingua.cli import app

pytestmark = pytest.mark.usefixtures("toys")

runner = CliRunner()


def cli(*args: str, input: bytes | str | None = None):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["convert", *args], input=input, catch_exceptions=False)


def dumps(value: Any) -> str:
    return json.dumps(value)


REQUEST = {
    "messages": [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "weather in Paris and Rome?", "note": "internal"},
        {"role": "assistant", "content": "", "calls": [{"id": "c1", "name": "w", "args": {"city": "Paris"}}, {"id": "c2", "name": "w", "args": {"city": "Rome"}}]},
        {"role": "tool", "call_id": "c1", "content": "sunny"},
        {"role": "tool", "call_id": "c2", "content": "rain"},
    ],
    "tools": [{"name": "w"}],
}
RESPONSE = {"id": "r9", "output": [{"text": "Sunny in Paris."}], "stop": "end"}
STREAM = b'{"delta": "Sun"}\n{"delta": "ny."}\n{"done": true}\n'


def transcript(*items: dict[str, Any], **extra: Any) -> str:
    return dumps({"schema_version": "1.0", "items": list(items), **extra})


B64_IMAGE = {"type": "image", "role": "user", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
URL_IMAGE = {"type": "image", "role": "user", "source": {"type": "url", "url": "https://example.com/a.png"}}
USER = {"type": "text", "role": "user", "text": "hi"}


# --------------------------------------------------------------------------- exit 0


def test_provider_request_from_stdin_to_canonical_with_a_warning() -> None:
    result = cli("--from", "toy-a", "--to", "canonical", "-", input=dumps(REQUEST))
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["schema_version"] == "1.0"
    assert [i["type"] for i in doc["items"]] == ["text", "text", "tool_call", "tool_call", "tool_result", "tool_result"]
    assert doc["items"][2]["message"] == doc["items"][3]["message"] == "m2"
    assert doc["tools"] == [{"name": "w"}]
    assert result.stderr.splitlines() == ["warning: dropped: item 1 note: toy message notes have no canonical form"]
    assert result.stdout.startswith("{\n  ")  # pretty JSON


def test_stdin_is_the_default_input() -> None:
    result = cli("--from", "toy-a", "--to", "canonical", input=dumps(RESPONSE))
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["items"][0]["text"] == "Sunny in Paris."


def test_canonical_to_provider_writes_the_output_file(tmp_path: Path) -> None:
    src = tmp_path / "t.json"
    src.write_text(transcript(USER, URL_IMAGE), encoding="utf-8")
    out = tmp_path / "body.json"
    result = cli("--from", "canonical", "--to", "toy-a", "--model", "toy-1", str(src), "-o", str(out))
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "" and result.stderr == ""
    assert json.loads(out.read_text(encoding="utf-8")) == {
        "messages": [{"role": "user", "content": "hi"}, {"role": "user", "image_url": "https://example.com/a.png"}],
        "model": "toy-1",
    }
    assert sorted(p.name for p in tmp_path.iterdir()) == ["body.json", "t.json"]  # no temp file left behind


def test_provider_to_provider_goes_through_canonical_and_concatenates_reports() -> None:
    req = {"messages": [{"role": "user", "content": "hi", "note": "n"}, {"role": "user", "image_url": "https://x/y.png"}]}
    result = cli("--from", "toy-b", "--to", "toy-a", "--kind", "request", input=dumps(req))
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == {"messages": [{"role": "user", "content": "hi"}, {"role": "user", "image_url": "https://x/y.png"}]}
    assert result.stderr.splitlines() == [
        "warning: dropped: item 0 note: toy message notes have no canonical form",
        "warning: changed: settings /model: the toy-a body has no 'model': pass model= or --model",
    ]


def test_decode_and_encode_warnings_both_reach_stderr_in_order() -> None:
    t = transcript(USER, {"type": "reasoning", "text": "hmm"}, B64_IMAGE)
    result = cli("--from", "canonical", "--to", "toy-a", "--policy", "drop", input=t)
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines() == [
        # a reasoning item followed by a user item is cut from its output: the integrity rules drop it first
        "warning: dropped: item 1 reasoning /items/1: reasoning is not followed by the assistant output it belongs to (item 2 follows); left out",
        "warning: dropped: item 2 image: toy carries images only by URL",
        "warning: changed: settings /model: the toy-a body has no 'model': pass model= or --model",
    ]
    assert json.loads(result.stdout)["messages"] == [{"role": "user", "content": "hi"}]


def test_policy_degrade_puts_a_marker_and_warns() -> None:
    result = cli("--from", "canonical", "--to", "toy-a", "--policy", "degrade", input=transcript(B64_IMAGE))
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["messages"] == [{"role": "user", "content": "[image omitted: toy carries images only by URL]"}]
    assert result.stderr.startswith("warning: degraded: item 0 image:")


# --------------------------------------------------------------------------- kind detection


def test_response_body_is_detected() -> None:
    result = cli("--from", "toy-a", "--to", "canonical", input=dumps(RESPONSE))
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    assert doc["stop_reason"] == {"reason": "end_turn", "raw": "end"}
    assert doc["items"][0]["message"] == "resp:r9"


def test_response_to_other_provider_stays_a_response() -> None:
    result = cli("--from", "toy-a", "--to", "toy-b", input=dumps(RESPONSE))
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == {"id": "r9", "output": [{"text": "Sunny in Paris."}], "stop": "end"}


def test_canonical_with_kind_response_encodes_a_response_body() -> None:
    t = transcript({"type": "text", "role": "assistant", "text": "ok"}, stop_reason={"reason": "end_turn", "raw": "stop"})
    result = cli("--from", "canonical", "--to", "toy-b", "--kind", "response", input=t)
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == {"id": "r0", "output": [{"text": "ok"}], "stop": "end"}


def test_stream_detected_by_file_suffix(tmp_path: Path) -> None:
    path = tmp_path / "rec.ndjson"
    path.write_bytes(b'{"done": true}\n')  # one line: valid JSON, still a stream by its name
    result = cli("--from", "toy-a", "--to", "canonical", str(path))
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["items"] == []


def test_stream_detected_when_the_body_is_not_json() -> None:
    result = cli("--from", "toy-a", "--to", "canonical", input=STREAM)
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["items"] == [{"type": "text", "text": "Sunny.", "role": "assistant"}]
    assert doc["stop_reason"]["reason"] == "end_turn"


def test_explicit_kind_stream() -> None:
    result = cli("--from", "toy-a", "--to", "toy-b", "--kind", "stream", input=STREAM)
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["output"] == [{"text": "Sunny."}]


# --------------------------------------------------------------------------- exit 1


@pytest.mark.parametrize("cut", [0, 1, 2])
def test_truncated_stream_exits_1_and_writes_nothing(tmp_path: Path, cut: int) -> None:
    lines = STREAM.splitlines(keepends=True)[:cut]
    path = tmp_path / "cut.ndjson"
    path.write_bytes(b"".join(lines))
    out = tmp_path / "out.json"
    result = cli("--from", "toy-a", "--to", "canonical", str(path), "-o", str(out))
    assert result.exit_code == 1
    assert f"error: {path}: the toy-a stream failed: truncated: toy stream ended before its done line" in result.stderr  # names the file
    assert not out.exists()


def test_failed_stream_says_why() -> None:
    result = cli("--from", "toy-a", "--to", "canonical", "--kind", "stream", input=b'{"delta": "a"}\n{"error": "model overloaded"}\n')
    assert result.exit_code == 1
    assert "provider_error: model overloaded" in result.stderr
    assert result.stdout == ""


def test_policy_error_refuses_and_leaves_an_existing_output_untouched(tmp_path: Path) -> None:
    out = tmp_path / "body.json"
    out.write_text("previous", encoding="utf-8")
    result = cli("--from", "canonical", "--to", "toy-a", "-o", str(out), input=transcript(USER, B64_IMAGE))
    assert result.exit_code == 1
    assert "error: item 1 (image): toy carries images only by URL" in result.stderr
    assert out.read_text(encoding="utf-8") == "previous"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["body.json"]  # no temp file left behind


def test_preflight_lists_every_violation(tmp_path: Path) -> None:
    t = transcript(
        USER,
        URL_IMAGE,
        {"type": "tool_call", "id": "a", "name": "w", "arguments": {}, "message": "m2"},
        {"type": "tool_call", "id": "b", "name": "w", "arguments": {}, "message": "m2"},
        {"type": "tool_result", "call_id": "a", "content": [{"type": "image", "source": {"type": "url", "url": "https://x/z.png"}}]},
    )
    out = tmp_path / "o.json"
    result = cli("--from", "canonical", "--to", "toy-b", "--model", "toy-small", "-o", str(out), input=t)
    assert result.exit_code == 1
    err = result.stderr
    assert "model 'toy-small' cannot take 3 item(s)" in err
    assert "item 1 (image): image input is not supported" in err
    assert "item 3 (tool_call): call 2 of 2 in one assistant turn" in err
    assert "item 4 (image): image input inside tool_result content[0]" in err
    assert not out.exists()


def test_preflight_uses_the_capabilities_of_the_given_model() -> None:
    t = transcript(USER, URL_IMAGE)
    assert cli("--from", "canonical", "--to", "toy-b", input=t).exit_code == 1
    result = cli("--from", "canonical", "--to", "toy-b", "--model", "toy-vision", input=t)
    assert result.exit_code == 0, result.stderr


def test_preflight_applies_to_provider_to_provider_requests() -> None:
    result = cli("--from", "toy-a", "--to", "toy-b", input=dumps(REQUEST))
    assert result.exit_code == 1
    assert "item 3 (tool_call): call 2 of 2" in result.stderr
    # the decode warning is still shown before the refusal
    assert result.stderr.startswith("warning: dropped: item 1 note")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("[1, 2]", "expected a JSON object, got list"),
        ('{"hello": 1}', "not a toy-a request or response body"),
        ('{"messages": 5}', "malformed toy-a request body: TypeError"),
        ('{"output": [{"call": {}}], "id": "r"}', "malformed toy-a response body: KeyError"),
    ],
)
def test_malformed_provider_input_exits_1(body: str, message: str) -> None:
    result = cli("--from", "toy-a", "--to", "canonical", input=body)
    assert result.exit_code == 1
    assert message in result.stderr


def test_invalid_transcript_exits_1() -> None:
    result = cli("--from", "canonical", "--to", "toy-a", input=transcript({"type": "text", "role": "user"}))
    assert result.exit_code == 1
    assert "invalid transcript" in result.stderr and "/items/0" in result.stderr


def test_newer_major_transcript_exits_1() -> None:
    result = cli("--from", "canonical", "--to", "canonical", input=dumps({"schema_version": "9.0", "items": []}))
    assert result.exit_code == 1
    assert "newer than this reader" in result.stderr


# --------------------------------------------------------------------------- exit 2


@pytest.mark.parametrize("flag", ["--from", "--to"])
def test_unknown_format_exits_2_with_the_list(flag: str) -> None:
    args = {"--from": "toy-a", "--to": "canonical"}
    args[flag] = "klingon"
    result = cli("--from", args["--from"], "--to", args["--to"], input=dumps(REQUEST))
    assert result.exit_code == 2
    assert "unknown format 'klingon'" in result.stderr
    for name in ("canonical", "toy-a", "toy-b", "anthropic", "openai-chat"):
        assert name in result.stderr


def test_missing_input_file_exits_2(tmp_path: Path) -> None:
    result = cli("--from", "toy-a", "--to", "canonical", str(tmp_path / "nope.json"))
    assert result.exit_code == 2
    assert "cannot read" in result.stderr and "nope.json" in result.stderr


def test_canonical_input_that_is_not_json_exits_1() -> None:
    result = cli("--from", "canonical", "--to", "toy-a", input="not json at all")
    assert result.exit_code == 1  # malformed input, as README states
    assert "is not JSON" in result.stderr


def test_explicit_request_kind_that_is_not_json_exits_1() -> None:
    result = cli("--from", "toy-a", "--to", "canonical", "--kind", "request", input=STREAM)
    assert result.exit_code == 1
    assert "is not JSON" in result.stderr


def test_stream_kind_from_canonical_is_a_usage_error() -> None:
    result = cli("--from", "canonical", "--to", "toy-a", "--kind", "stream", input=transcript(USER))
    assert result.exit_code == 2


@pytest.mark.parametrize(
    "args",
    [
        ["--to", "canonical"],  # --from missing
        ["--from", "toy-a"],  # --to missing
        ["--from", "toy-a", "--to", "canonical", "--kind", "blob"],
        ["--from", "toy-a", "--to", "canonical", "--policy", "ignore"],
    ],
)
def test_bad_options_exit_2(args: list[str]) -> None:
    assert cli(*args, input=dumps(REQUEST)).exit_code == 2


def test_unwritable_output_exits_2(tmp_path: Path) -> None:
    result = cli("--from", "toy-a", "--to", "canonical", "-o", str(tmp_path / "no" / "such" / "dir.json"), input=dumps(RESPONSE))
    assert result.exit_code == 2
    assert "cannot write" in result.stderr


def test_real_process_reads_stdin_and_writes_stdout_as_bytes() -> None:
    """The real stdio path (no test runner streams): canonical -> canonical normalises a document."""
    import os
    import subprocess
    import sys

    src = Path(__file__).resolve().parents[2] / "src"
    env = {**os.environ, "PYTHONPATH": str(src)}
    doc = transcript({"type": "text", "role": "user", "text": "h\u00e9llo \u2603"})
    proc = subprocess.run(
        [sys.executable, "-c", "from interlingua.cli import main; main()", "convert", "--from", "canonical", "--to", "canonical", "-"],
        input=doc.encode("utf-8"),
        capture_output=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.decode("utf-8"))["items"][0]["text"] == "h\u00e9llo \u2603"
    bad = subprocess.run(
        [sys.executable, "-c", "from interlingua.cli import main; main()", "convert", "--from", "canonical", "--to", "canonical"],
        input=b"{", capture_output=True, env=env, timeout=60,
    )
    assert bad.returncode == 1 and b"is not JSON" in bad.stderr


def test_canonical_to_canonical_keeps_the_whole_document() -> None:
    t = transcript(USER, tools=[{"name": "w"}], metadata={"k": 1})
    for kind in ("request", "response"):
        result = cli("--from", "canonical", "--to", "canonical", "--kind", kind, input=t)
        assert result.exit_code == 0, result.stderr
        assert json.loads(result.stdout) == json.loads(t)


_RESPONSES = sorted(
    (p, fmt)
    for fmt, folder in (("openai-chat", "openai_chat"), ("anthropic", "anthropic"), ("openai-responses", "openai_responses"), ("gemini", "gemini"), ("ollama", "ollama"))
    for p in (Path(__file__).resolve().parents[1] / "fixtures" / "real" / folder).glob("*.response.json")
    if "error" not in p.name
)[::3]


@pytest.mark.parametrize(("path", "fmt"), _RESPONSES, ids=lambda v: getattr(v, "name", v))
def test_a_canonical_response_document_is_detected_as_a_response(path: Path, fmt: str, tmp_path: Path) -> None:
    """`--to canonical` of a response body, then back without --kind: the document's stop_reason /
    response say it is a response (it was read as a request and refused for missing tool definitions)."""
    doc = tmp_path / "r.json"
    first = cli("--from", fmt, "--to", "canonical", str(path), "-o", str(doc))
    if first.exit_code != 0:
        pytest.skip(first.stderr[-200:])
    detected = cli("--from", "canonical", "--to", "anthropic", str(doc))
    explicit = cli("--from", "canonical", "--to", "anthropic", "--kind", "response", str(doc))
    assert (detected.exit_code, detected.stdout) == (explicit.exit_code, explicit.stdout), detected.stderr
    assert detected.exit_code == 0, detected.stderr
    assert json.loads(detected.stdout)["type"] == "message"  # an Anthropic response body, not a request
