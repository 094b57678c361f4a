"""What a new user ran from the README and docs (session 4 findings): each message, exit code and
documented claim checked on the real command and the real recorded payloads."""

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


@pytest.mark.parametrize(
    "args",
    [
        ("convert", "--from", "anthropic", "--to", "openai-chat"),
        ("convert", "--from", "canonical", "--to", "openai-chat"),
        ("validate",),
        ("migrate", "-o", "OUT"),
        ("view",),
    ],
)
def test_input_that_is_not_json_exits_1_as_the_docs_say(tmp_path: Path, args: tuple[str, ...]) -> None:
    garbage = tmp_path / "garbage.json"
    garbage.write_bytes(b"garbage\n")
    code, out, err = _run(*[str(tmp_path / "out.jsonl") if a == "OUT" else a for a in args], str(garbage))
    assert code == 1, out + err
    assert "JSON" in out + err or "reject" in out + err


def test_store_import_of_input_that_is_not_json_exits_1(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_bytes(b"garbage\n")
    code, _, err = _run("store", "import", "--url", str(tmp_path / "s.sqlite3"), str(garbage))
    assert code == 1, err


def test_capabilities_doc_gives_the_exit_code_the_commands_give() -> None:
    text = (ROOT / "docs" / "capabilities.md").read_text()
    assert "input\n    that is not JSON where JSON is needed" not in text
    assert re.search(r"`1`: refused \([^)]*not JSON", text, re.S), "capabilities.md: exit 1 lists input that is not JSON"


# ---------------------------------------------------------------- 8: the provider's error text is reported as a loss


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


# ---------------------------------------------------------------- 9, 10: hints name the file and the --from to use

ANTHROPIC_BODY = EXAMPLES / "payloads" / "anthropic_parallel_tools.request.json"


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


# ---------------------------------------------------------------- 6: replay.md's Anthropic max_tokens is what is sent


def test_replay_doc_states_the_max_tokens_convert_and_replay_add() -> None:
    body = EXAMPLES / "payloads" / "openai_chat_audio.request.json"
    code, out, err = _run("convert", "--from", "openai-chat", "--to", "anthropic", "--policy", "drop", "--model", "claude-sonnet-4-5", str(body))
    assert code == 0, err
    sent = json.loads(out)["max_tokens"]
    line = next(ln for ln in err.splitlines() if "max_tokens" in ln and "added" in ln)
    doc = " ".join((ROOT / "docs" / "replay.md").read_text().split())
    said = f"max_tokens {sent} added: required by Anthropic, from the model table (claude-sonnet-4-5*: output limit 64000 needs streaming with the official clients; {sent} is the largest they send without it)"
    assert sent == 21333 and said in line and said in doc
    code, out, err = _run("convert", "--from", "openai-chat", "--to", "anthropic", "--policy", "drop", str(body))
    assert code == 0, err
    assert json.loads(out)["max_tokens"] == 4096 and "else 4096" in doc
    assert "| `provider_error` |" in doc


# ---------------------------------------------------------------- 7: format.md documents settings and the whole document


def test_format_doc_documents_every_settings_field_and_document_member() -> None:
    text = (ROOT / "docs" / "format.md").read_text()
    settings = json.loads((ROOT / "schemas" / "settings.json").read_text())
    section = text.split("\n## Settings\n", 1)[1].split("\n## ", 1)[0]
    for name in settings["properties"]:
        assert f"| `{name}` |" in section, name
    for dname, d in settings["$defs"].items():
        assert f"### {dname}" in section
    shape = text.split("A **transcript document** is `", 1)[1].split("`", 1)[0]
    for name in json.loads((ROOT / "schemas" / "transcript.json").read_text())["properties"]:
        assert f'"{name}":' in shape, name
    assert "--setting KEY=JSON" in section


@pytest.mark.parametrize("flag", ["top_k=-1", "nosuch=1", "top_k"])
def test_a_setting_the_schema_refuses_is_a_usage_error_as_format_md_says(flag: str) -> None:
    code, out, err = _run("replay", "--provider", "ollama", "--setting", flag, str(WEATHER))
    assert code == 2 and out == ""
    assert err.startswith("error:") and ("setting" in err)


# ---------------------------------------------------------------- 11: the README's way from a canonical dict to the store


def test_readme_recipe_from_convert_request_to_a_stored_session(tmp_path: Path) -> None:
    import asyncio

    import msgspec

    import interlingua as il
    from interlingua.store import SessionStore

    readme = " ".join((ROOT / "README.md").read_text().split())
    assert "il.decode_transcript(msgspec.json.encode(out.value))" in readme
    body = json.loads(ANTHROPIC_BODY.read_text())
    out = il.convert_request(body, source="anthropic", target="canonical")
    assert isinstance(out.value, dict)  # what the README says it is
    t = il.decode_transcript(msgspec.json.encode(out.value))
    assert t.tools and t.settings

    async def store_it() -> tuple[int, object]:
        store = await SessionStore.open(f"sqlite+aiosqlite:///{tmp_path / 's.sqlite3'}")
        try:
            sid = await store.create_session(tools=t.tools, settings=t.settings)
            await store.append(sid, t.items, expected_seq=-1)
            back = await store.load(sid)
            return len(back.items), back.settings
        finally:
            await store.close()

    n, settings = asyncio.run(store_it())
    assert n == len(t.items) and settings == t.settings
    store_doc = (ROOT / "docs" / "store.md").read_text()
    assert "tool_choice=None, settings=None) -> id" in store_doc and "tool_choice=, settings=) -> effective_seq" in store_doc


# ---------------------------------------------------------------- 12, 13: the Gemini model and system-instruction warnings

GEMINI_THINKING = REAL / "gemini" / "pai_google_thinking_part.0.request.json"


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


# ---------------------------------------------------------------- 14: a capability refusal names --model and --policy drop

ANTHROPIC_THINKING = REAL / "anthropic" / "pai_anthropic_thinking_part_stream.0.request.json"


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


# ---------------------------------------------------------------- 15, 16: the conflict advice works; --quiet where the README says


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


def test_the_commands_the_readme_says_take_quiet_take_it(tmp_path: Path) -> None:
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert "long runs of `validate`, `migrate`, `store import` and `store export` show progress on stderr (their `--quiet` turns it off" in readme
    out = tmp_path / "w.jsonl"
    assert _run("validate", "--quiet", str(WEATHER))[0] == 0
    assert _run("migrate", "--quiet", str(WEATHER), "-o", str(out))[0] == 0
    url = str(tmp_path / "s.sqlite3")
    code, sid, err = _run("store", "import", "--quiet", "--url", url, str(out))
    assert code == 0, err
    assert _run("store", "export", "--quiet", "--url", url, sid.strip())[0] == 0


# ---------------------------------------------------------------- 17: replay of a stored session does not create a missing store


def test_replay_from_a_missing_sqlite_file_refuses_it_and_creates_nothing(tmp_path: Path) -> None:
    db = tmp_path / "none.sqlite3"
    code, out, err = _run("replay", "--provider", "ollama", "--store", str(db), "--session", "nosuch")
    assert code == 2 and out == ""
    assert err.startswith(f"error: no database file {db} (create one with `interlingua store upgrade --url {db}`)")
    assert not db.exists()
    assert _run("store", "list", "--url", str(db))[0] == 2 and not db.exists()  # the same rule as store list


# ---------------------------------------------------------------- 18: the README's otel example gives the attributes it names


def test_readme_otel_example_gives_the_attributes_it_names() -> None:
    text = (ROOT / "README.md").read_text()
    m = re.search(r"# straight from a provider request: ([^\n]+)\n(interlingua convert [^\n]+)\n", text)
    assert m, "README: the otel example from a provider request"
    names = [n.strip() for n in m.group(1).split(",")]
    args = m.group(2).split()[1:]
    args[-1] = str(ROOT / args[-1])
    code, out, err = _run(*args)
    assert code == 0, err
    attrs = json.loads(out)
    for name in names:
        assert attrs.get(name), name


# ---------------------------------------------------------------- 19, 20: stale docs


def test_docs_name_every_builtin_format_and_agree_with_the_benchmarks() -> None:
    from interlingua.mapping.registry import BUILTIN

    readme = (ROOT / "README.md").read_text()
    formats = readme.split("\nFormats: ", 1)[1].split("`--kind", 1)[0]
    for name in BUILTIN:
        assert f"`{name}`" in formats, name
    assert "--dialect" in formats
    bench = (ROOT / "docs" / "benchmarks.md").read_text()
    # the per-command memory table's validate rows of the big JSON Lines files, as the README quotes them
    readme_flat = " ".join(readme.split())
    rows = [ln for ln in bench.splitlines() if ln.startswith("| `validate` | JSON Lines, ") and " sessions, " in ln]
    assert len(rows) == 2, rows
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        size = re.search(r"([\d,]+) MB$", cells[1]).group(1)  # type: ignore[union-attr]
        sessions = re.search(r"JSON Lines, ([\d,]+) sessions", cells[1]).group(1).replace(",", "")  # type: ignore[union-attr]
        peak = round(float(cells[2].removesuffix(" MB")))
        assert f"{size} MB with {int(sessions) // 1000}k sessions: {peak} MB" in readme_flat, row
    plugins = (ROOT / "docs" / "plugins.md").read_text()
    assert "five built-in" not in plugins and "history.json --from openai-chat" not in plugins
    assert (ROOT / "docs" / "capabilities.md").read_text().count("The full syntax:") == 1
    corpus = " ".join((ROOT / "docs" / "corpus.md").read_text().split())
    assert "are not carried by design" not in corpus and "carried in the transcript's `settings`" in corpus


# ---------------------------------------------------------------- 21: the "is it an X stream?" hint only when nothing was read


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


# ---------------------------------------------------------------- 22: several sessions and no --session is a usage error


def _two_sessions(tmp_path: Path) -> Path:
    one = tmp_path / "one.jsonl"
    assert _run("migrate", str(WEATHER), "-o", str(one), "--quiet")[0] == 0
    text = one.read_text()
    sid = json.loads(text.splitlines()[0])["session"]["id"]
    two = tmp_path / "two.jsonl"
    two.write_text(text + text.replace(sid, "other"))
    return two


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


# ---------------------------------------------------------------- 23: old-version advice names what works


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


# ---------------------------------------------------------------- 24, 28: a newer minor is said; singular counts; dir()


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


def test_dir_of_the_package_lists_its_public_names_only() -> None:
    import interlingua as il

    names = dir(il)
    assert "annotations" not in names and "TYPE_CHECKING" not in names
    assert "convert_request" in names and names == sorted(il.__all__)
    assert all(hasattr(il, n) for n in names)


# ---------------------------------------------------------------- 25: no key for a local server: the message names the keyless way


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


# ---------------------------------------------------------------- 26: --no-stream on a recorded stream says it is a stream


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


# ---------------------------------------------------------------- 27: the README's pre-commit snippet runs as written


@pytest.mark.skipif(__import__("shutil").which("git") is None, reason="needs git")
def test_readme_pre_commit_snippet_runs_as_written(tmp_path: Path) -> None:
    import os
    import shutil
    import subprocess
    import sys

    pre_commit = shutil.which("pre-commit", path=os.path.dirname(sys.executable)) or shutil.which("pre-commit")
    if pre_commit is None:
        pytest.skip("needs pre-commit (the dev extra)")
    readme = (ROOT / "README.md").read_text()
    block = readme.split("As a pre-commit hook", 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]
    assert "rev: v0.1.0" not in readme and "repo: local" in block
    repo = tmp_path / "project"
    (repo / "transcripts").mkdir(parents=True)
    (repo / "package.json").write_text('{"name": "web"}')
    shutil.copy(WEATHER, repo / "transcripts" / "weather.json")
    (repo / ".pre-commit-config.yaml").write_text("repos:\n" + "".join(f"  {ln}\n" for ln in block.splitlines()))
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "home"), "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")}
    git = ["git", "-c", "user.email=t@example.invalid", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], cwd=repo, check=True)
    subprocess.run([*git, "add", "."], cwd=repo, check=True)
    ok = subprocess.run([pre_commit, "run", "--all-files"], cwd=repo, env=env, capture_output=True, text=True, timeout=300)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    shutil.copy(EXAMPLES / "transcripts" / "broken.json", repo / "transcripts" / "broken.json")
    subprocess.run([*git, "add", "."], cwd=repo, check=True)
    bad = subprocess.run([pre_commit, "run", "--all-files"], cwd=repo, env=env, capture_output=True, text=True, timeout=300)
    assert bad.returncode == 1 and "broken.json" in bad.stdout, bad.stdout + bad.stderr
