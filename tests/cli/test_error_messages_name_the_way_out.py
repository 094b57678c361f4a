"""Each message a user meets on a real command and real recorded payloads names the input, what is wrong and
the way out (which format reads it, which flag or command to use, what was left out)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from interlingua.cli import app

ROOT = Path(__file__).resolve().parents[2]
REAL = ROOT / "tests" / "fixtures" / "real"
EXAMPLES = ROOT / "examples"
WEATHER = EXAMPLES / "transcripts" / "weather.json"


def _run(*args: str, stdin: bytes | None = None) -> tuple[int, str, str]:
    r = CliRunner().invoke(app, list(args), input=stdin)
    return r.exit_code, r.stdout, r.stderr


# ---------------------------------------------------------------- 5: malformed (not JSON) input exits 1


ANTHROPIC_BODY = EXAMPLES / "payloads" / "anthropic_parallel_tools.request.json"


GEMINI_THINKING = REAL / "gemini" / "pai_google_thinking_part.0.request.json"


ANTHROPIC_THINKING = REAL / "anthropic" / "pai_anthropic_thinking_part_stream.0.request.json"


def _two_sessions(tmp_path: Path) -> Path:
    one = tmp_path / "one.jsonl"
    assert _run("migrate", str(WEATHER), "-o", str(one), "--quiet")[0] == 0
    text = one.read_text()
    sid = json.loads(text.splitlines()[0])["session"]["id"]
    two = tmp_path / "two.jsonl"
    two.write_text(text + text.replace(sid, "other"))
    return two


def test_ollama_error_response_reports_that_the_provider_text_is_not_carried() -> None:
    path = REAL / "ollama" / "ollama_docs.error.response.json"
    upstream = json.loads(path.read_text())["error"]
    code, out, err = _run("convert", "--from", "ollama", "--to", "canonical", str(path))
    assert code == 0, err
    doc = json.loads(out)
    assert doc["items"][0]["code"] == "provider_error"
    assert upstream not in out and upstream not in err  # still not passed on (DESIGN invariant 5)
    assert f"warning: dropped: /error: the provider's error text ({len(upstream)} characters) is not carried" in err


def test_gemini_and_responses_error_bodies_report_the_text_they_leave_out() -> None:
    import interlingua as il

    gemini = {"error": {"code": 429, "message": "Resource has been exhausted (e.g. check quota).", "status": "RESOURCE_EXHAUSTED"}}
    conv = il.convert_response(gemini, source="gemini", target="canonical")
    assert conv.value["items"][0]["code"] == "rate_limit"
    assert any(e.pointer == "/error/message" and e.action == "dropped" for e in conv.report)
    responses = {
        "id": "resp_1", "object": "response", "status": "failed", "model": "gpt-4o", "output": [],
        "error": {"code": "server_error", "message": "The server had an error while processing your request."},
    }
    conv = il.convert_response(responses, source="openai-responses", target="canonical")
    assert conv.value["items"][-1]["type"] == "error"
    assert any(e.pointer == "/error/message" and e.action == "dropped" for e in conv.report)
    assert "processing your request" not in json.dumps(conv.value)


def test_a_bare_message_list_names_the_file_and_what_to_do(tmp_path: Path) -> None:
    # migrating.md's OpenAI Chat example list, as a file
    listing = tmp_path / "list.json"
    listing.write_text(json.dumps([
        {"role": "user", "content": "Weather in Boston?"},
        {"role": "assistant", "content": None, "function_call": {"name": "get_weather", "arguments": "{\"city\": \"Boston\"}"}},
        {"role": "function", "name": "get_weather", "content": "72F, sunny"},
    ]))
    code, out, err = _run("convert", "--from", "openai-chat", "--to", "anthropic", str(listing))
    assert code == 1 and out == ""
    assert err.startswith(f"error: {listing}: malformed openai-chat input: expected a JSON object")
    assert 'wrap it as {"messages": [...]}' in err and "interlingua migrate" in err
    # the advice works: wrapped, it converts
    wrapped = tmp_path / "wrapped.json"
    wrapped.write_text(json.dumps({"model": "gpt-4o", "messages": json.loads(listing.read_text())}))
    code, out, err = _run("convert", "--from", "openai-chat", "--to", "anthropic", "--model", "claude-sonnet-4-5", "--policy", "drop", str(wrapped))
    assert code == 0, err
    assert json.loads(out)["messages"][0]["role"] == "user"


def test_a_pydantic_ai_history_given_as_openai_chat_names_pydantic_ai(tmp_path: Path) -> None:
    history = tmp_path / "history.json"
    code, _, err = _run("convert", "--from", "canonical", "--to", "pydantic-ai", str(WEATHER), "-o", str(history))
    assert code == 0, err
    code, _, err = _run("convert", str(history), "--from", "openai-chat", "--to", "anthropic")
    assert code == 1
    assert err.rstrip().endswith("it looks like a pydantic-ai message history: try --from pydantic-ai"), err
    code, _, err = _run("convert", str(history), "--from", "pydantic-ai", "--to", "canonical")
    assert code == 0, err


@pytest.mark.parametrize("stdin", [False, True])
def test_convert_from_canonical_on_a_provider_body_names_the_provider(stdin: bool) -> None:
    args = ["convert", "--from", "canonical", "--to", "openai-chat"]
    code, out, err = _run(*args, stdin=ANTHROPIC_BODY.read_bytes()) if stdin else _run(*args, str(ANTHROPIC_BODY))
    assert code == 1 and out == ""
    assert "missing required field `schema_version` (this looks like anthropic data, not a transcript: try --from anthropic)" in err


def test_convert_from_a_provider_on_a_transcript_suggests_from_canonical() -> None:
    code, _, err = _run("convert", "--from", "openai-chat", "--to", "anthropic", str(WEATHER))
    assert code == 1
    assert err.rstrip().endswith("it is an interlingua transcript document: try --from canonical"), err


def test_gemini_without_a_model_says_it_goes_in_the_url_and_with_one_says_nothing() -> None:
    code, out, err = _run("convert", "--from", "gemini", "--to", "gemini", str(GEMINI_THINKING))
    assert code == 0, err
    assert "body has no 'model'" not in err
    assert "warning: changed: settings /model: no model given: gemini takes the model in the request URL, not the body" in err
    assert "model" not in json.loads(out)
    code, out, err = _run("convert", "--from", "gemini", "--to", "gemini", "--model", "gemini-2.5-flash", str(GEMINI_THINKING))
    assert code == 0, err
    assert "/model" not in err and "model" not in json.loads(out)


def test_gemini_to_anthropic_names_the_leftover_system_instruction_field_not_the_prompt() -> None:
    body = json.loads(GEMINI_THINKING.read_text())
    assert body["systemInstruction"]["role"] == "user"
    code, out, err = _run("convert", "--from", "gemini", "--to", "anthropic", "--model", "claude-sonnet-4-5", str(GEMINI_THINKING))
    assert code == 0, err
    assert json.loads(out)["system"]  # the system prompt itself was carried
    line = next(ln for ln in err.splitlines() if "gemini provider data" in ln)
    assert "systemInstruction.role" in line and "systemInstruction," not in line and "systemInstruction)" not in line


def test_a_reasoning_request_refused_without_a_model_names_both_ways_out() -> None:
    args = ("convert", "--from", "anthropic", "--to", "openai-chat", str(ANTHROPIC_THINKING))
    code, out, err = _run(*args)
    assert code == 1 and out == ""
    assert err.startswith("error: model '<openai-chat default>' cannot take 1 item(s):")
    assert "hint: no --model given: preflight used the openai-chat defaults" in err and "--policy drop" in err
    # each way out the hint names works
    assert _run(*args, "--policy", "drop")[0] == 0
    assert _run(*args, "--model", "o3")[0] == 0
    code, _, err = _run(*args, "--model", "gpt-4o")  # a named model without reasoning: only the policy hint
    assert code == 1 and "no --model given" not in err and "--policy drop" in err


def test_an_import_conflict_names_a_delete_command_that_exists_and_works(tmp_path: Path) -> None:
    session = tmp_path / "w.jsonl"
    assert _run("migrate", str(WEATHER), "-o", str(session), "--quiet")[0] == 0
    url = str(tmp_path / "s.sqlite3")
    code, out, err = _run("store", "import", "--url", url, str(session))
    assert code == 0, err
    sid = out.strip()
    changed = tmp_path / "w2.jsonl"
    changed.write_text(session.read_text().replace("Current weather", "Weather"))
    code, _, err = _run("store", "import", "--url", url, str(changed))
    assert code == 1
    assert f"`interlingua store delete --url URL {sid}`" in err
    code, _, err = _run("store", "delete", "--url", url, sid)
    assert code == 0 and f"deleted session {sid}" in err
    assert _run("store", "delete", "--url", url, sid)[0] == 1  # no such session any more
    assert _run("store", "import", "--url", url, str(changed))[0] == 0
    code, out, _ = _run("store", "export", "--url", url, sid, "--quiet")
    assert code == 0 and '"description":"Weather for a city."' in out


def test_replay_from_a_missing_sqlite_file_refuses_it_and_creates_nothing(tmp_path: Path) -> None:
    db = tmp_path / "none.sqlite3"
    code, out, err = _run("replay", "--provider", "ollama", "--store", str(db), "--session", "nosuch")
    assert code == 2 and out == ""
    assert err.startswith(f"error: no database file {db} (create one with `interlingua store upgrade --url {db}`)")
    assert not db.exists()
    assert _run("store", "list", "--url", str(db))[0] == 2 and not db.exists()  # the same rule as store list


def test_a_mid_stream_error_line_or_a_real_cut_gets_no_wrong_format_hint(tmp_path: Path) -> None:
    code, _, err = _run("convert", "--from", "ollama", "--to", "canonical", str(REAL / "ollama" / "ollama_docs.generate_stream_midstream_error.ndjson"))
    assert code == 1
    assert "provider_error" in err and "check --from" not in err and "content event(s) of the stream)" in err
    whole = (REAL / "openai_chat" / "openai_python.stream_parallel_tool_calls.sse").read_text()
    cut = tmp_path / "cut.sse"
    cut.write_text(whole[: whole.rindex("data: [DONE]")])  # every chunk, no end marker
    code, _, err = _run("convert", "--from", "openai-chat", "--to", "canonical", str(cut))
    assert code == 1
    assert "truncated" in err and "check --from" not in err and "content event(s) of the stream)" in err
    # a stream of another format still gets the hint (nothing in it read as openai-chat)
    other = tmp_path / "other.sse"
    other.write_text('data: {"a": 1}\n\n')
    code, _, err = _run("convert", "--from", "openai-chat", "--to", "canonical", str(other))
    assert code == 1 and "(is it an openai-chat stream? check --from and --kind)" in err


@pytest.mark.parametrize("command", [("convert", "--from", "canonical", "--to", "openai-chat"), ("replay", "--provider", "ollama")])
def test_several_sessions_without_session_exit_2_and_list_the_ids(tmp_path: Path, command: tuple[str, ...]) -> None:
    two = _two_sessions(tmp_path)
    code, out, err = _run(*command, str(two))
    assert code == 2 and out == ""
    assert "holds several sessions" in err and "other" in err and "pick one with --session ID" in err
    assert "invalid transcript" not in err
    code, _, err = _run(*command, str(two), "--session", "nosuch")  # an id it does not hold: as for the store, exit 1
    assert code == 1 and "no session 'nosuch'" in err


def test_several_sessions_with_session_converts_the_one_picked(tmp_path: Path) -> None:
    code, out, err = _run("convert", "--from", "canonical", "--to", "canonical", "--session", "other", str(_two_sessions(tmp_path)))
    assert code == 0, err
    assert json.loads(out)["items"]


def test_session_for_a_transcript_document_is_a_usage_error() -> None:
    code, _, err = _run("convert", "--from", "canonical", "--to", "openai-chat", "--session", "x", str(WEATHER))
    assert code == 2 and "this is a transcript document, not a session file" in err


def test_old_version_advice_sends_to_migrate_only_when_migrate_reads_it(tmp_path: Path) -> None:
    from interlingua.compat import upcaster

    old = tmp_path / "v09.json"
    doc = json.loads(WEATHER.read_text())
    doc["schema_version"] = "0.9"
    old.write_text(json.dumps(doc))
    code, out, _ = _run("validate", str(old))
    assert code == 1
    assert "no upcaster for it is registered (interlingua.compat.upcaster), so neither this reader nor `interlingua migrate` reads it" in out
    out_file = tmp_path / "out.jsonl"
    code, _, err = _run("migrate", str(old), "-o", str(out_file))
    assert code == 1 and "1 rejected" in err

    @upcaster("0.9", to="1.0")
    def _same(obj: dict, kind: str) -> dict:
        return obj

    try:
        code, out, _ = _run("validate", str(old))
        assert code == 1 and "read it through interlingua.compat (`interlingua migrate`)" in out
        code, _, err = _run("migrate", str(old), "-o", str(out_file))  # ... and migrate does read it
        assert code == 0, err
        assert _run("validate", str(out_file))[0] == 0
    finally:
        _same.unregister()  # type: ignore[attr-defined]


def test_migrate_of_a_newer_minor_says_what_version_it_writes_and_keeps_the_unknown_item(tmp_path: Path) -> None:
    doc = json.loads(WEATHER.read_text())
    doc["schema_version"] = "1.3"
    doc["items"].append({"type": "hologram", "role": "assistant", "frames": [1, 2]})
    src = tmp_path / "v13.json"
    src.write_text(json.dumps(doc))
    out = tmp_path / "v13.jsonl"
    code, _, err = _run("migrate", str(src), "-o", str(out))
    assert code == 0, err
    assert "document of schema_version 1.3 (a newer minor) written as 1.0, this reader's version; the item(s) of types this reader does not know (hologram) are kept unchanged" in err
    assert err.rstrip().endswith(f"migrated 1 conversation ({len(doc['items'])} items) to {out}; 0 rejected; 1 warning")
    lines = [json.loads(ln) for ln in out.read_text().splitlines()]
    assert lines[-1]["item"] == {"type": "hologram", "role": "assistant", "frames": [1, 2]}
    assert {ln["schema_version"] for ln in lines} == {"1.0"}  # what the warning says
    # a 1.0 document: no such warning, plural counts unchanged
    code, _, err = _run("migrate", str(WEATHER), "-o", str(tmp_path / "w.jsonl"))
    assert code == 0 and "newer minor" not in err and err.rstrip().endswith("0 rejected; 0 warnings")


def test_openai_chat_at_a_local_base_url_without_a_key_names_the_keyless_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    import httpx

    import interlingua as il
    from interlingua.transport import Client

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    code, _, err = _run("replay", "--provider", "openai-chat", "--model", "gpt-4o", "--base-url", "http://127.0.0.1:9/v1", str(WEATHER))
    assert code == 1
    assert "error: auth: no API key: set the environment variable OPENAI_API_KEY (in Python, Client(api_key=...) also takes it); a local OpenAI-compatible server that takes no key needs none under its own name: openai-chat:" in err
    assert "openai-chat:vllm" in err and "openai-chat:ollama" in err  # the host registry's local servers
    code, _, err = _run("replay", "--provider", "openai-chat", "--model", "gpt-4o", str(WEATHER))  # the real API: no such advice
    assert code == 1 and err.strip() == "error: auth: no API key: set the environment variable OPENAI_API_KEY (in Python, Client(api_key=...) also takes it)"

    answer = (REAL / "openai_chat" / "openai_python.completion_text.response.json").read_bytes()
    seen: list[httpx.Request] = []

    def server(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=answer, headers={"content-type": "application/json"})

    async def call() -> object:  # the advice works: the keyless name sends without a key
        async with Client("openai-chat:vllm", base_url="http://127.0.0.1:9/v1", transport=httpx.MockTransport(server)) as client:
            return await client.generate(il.read_transcript(WEATHER), model="m", stream=False, policy="drop")

    response = asyncio.run(call())
    assert seen and "authorization" not in seen[0].headers and str(seen[0].url) == "http://127.0.0.1:9/v1/chat/completions"
    assert response.items  # type: ignore[attr-defined]


def test_no_stream_on_the_shipped_stream_fixture_says_the_exchange_streamed() -> None:
    fixture = ROOT / "docs" / "examples" / "anthropic_hello.jsonl"
    hello = ROOT / "docs" / "examples" / "hello.json"
    args = ("replay", str(hello), "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--fixture", str(fixture))
    code, out, err = _run(*args, "--no-stream")
    assert code == 1 and out == ""
    assert "error: provider_error: the response body is not a valid response of this format (it is a stream, text/event-stream" in err
    assert "drop --no-stream" in err
    code, out, err = _run(*args)  # as the message says: without --no-stream it answers
    assert code == 0, err
    assert json.loads(out)["items"]


@pytest.mark.parametrize("url", ["127.0.0.1:18101", "ftp://host/v1", "http://", "localhost"])
def test_replay_with_a_base_url_that_is_not_http_says_why(url: str) -> None:
    """A new user typed the host without its scheme and got "the base URL cannot be used" (exit 1, no reason)."""
    code, _, err = _run("replay", "--provider", "openai-chat", "--model", "gpt-4o", "--base-url", url, str(WEATHER))
    assert code == 2
    assert "is not an http(s) URL with a host" in err and "http://127.0.0.1:8000/v1" in err


def test_validate_names_standard_input_once() -> None:
    """A new user's `validate - -` read standard input twice: the second read failed as an empty input."""
    code, out, err = _run("validate", "-", "-", stdin=b'{"schema_version": "1.0", "items": []}')
    assert code == 2 and out == ""
    assert "standard input) is named more than once" in err
