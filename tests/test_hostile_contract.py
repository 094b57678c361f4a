"""Issue 19, items 4, 5 and 8: each case the attack named, through the CLI, on real payloads.

One contract across commands: whatever a command writes passes ``interlingua validate``; whatever
``store import`` and ``convert --from canonical`` accept passes it too; bad input is exit 1 (or 2 for a
database that needs repair) with a location, never a traceback.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Any

import msgspec
import pytest
from typer.testing import CliRunner, Result

from interlingua.cli import app
from interlingua.codec import decode_item, decode_transcript
from interlingua.errors import DocumentError
from interlingua.mapping import get_mapper
from interlingua.store import SessionStore

REAL = Path(__file__).parent / "fixtures" / "real"
SOURCE = REAL / "anthropic" / "pai_anthropic_parallel_tool_calls.1.request.json"
runner = CliRunner()


def invoke(*argv: str, input: str | bytes | None = None) -> Result:
    res = runner.invoke(app, list(argv), input=input)
    assert res.exception is None or isinstance(res.exception, SystemExit), (argv, repr(res.exception))
    assert "Traceback" not in res.output
    return res


def validate_text(text: str, suffix: str, tmp_path: Path) -> Result:
    path = tmp_path / f"check{suffix}"
    path.write_text(text)
    return invoke("validate", str(path))


@pytest.fixture
def session_file(tmp_path: Path) -> Path:
    out = tmp_path / "s.jsonl"
    assert invoke("migrate", str(SOURCE), "-o", str(out), "-q").exit_code == 0
    return out


def _with_header(path: Path, change: Any) -> str:
    lines = path.read_text().splitlines()
    head = json.loads(lines[0])
    change(head)
    return "\n".join([json.dumps(head), *lines[1:]]) + "\n"


def _change(**fields: Any) -> dict[str, Any]:
    return {"change_no": 0, "effective_seq": 0, "created_at": "2026-01-01T00:00:00Z", "metadata": {}, **fields}


# --------------------------------------------------------------------------- store import (item 4, 5)

BAD_HEADERS = {
    "unknown session field": lambda h: h["session"].update(bogus=1),
    "unknown top-level field": lambda h: h.update(extra=1),
    "effective_seq -5": lambda h: h["session"].update(changes=[_change(effective_seq=-5)]),
    "null tools": lambda h: h["session"].update(tools=None),
    "null metadata": lambda h: h["session"].update(metadata=None),
    "change_no 2**63": lambda h: h["session"].update(changes=[_change(change_no=2**63)]),
    "effective_seq 2**63": lambda h: h["session"].update(changes=[_change(effective_seq=2**63)]),
    "effective_seq 2**64+5": lambda h: h["session"].update(changes=[_change(effective_seq=2**64 + 5)]),
    "fork_seq 2**63": lambda h: h["session"].update(fork_seq=2**63),
    "duplicate change_no": lambda h: h["session"].update(changes=[_change(), _change(effective_seq=1, metadata={"a": 1})]),
    "10k-deep metadata": lambda h: h["session"].update(metadata="@DEEP@"),
}


@pytest.mark.parametrize("case", sorted(BAD_HEADERS))
def test_store_import_and_validate_refuse_bad_headers_alike(case: str, session_file: Path, tmp_path: Path) -> None:
    text = _with_header(session_file, BAD_HEADERS[case]).replace('"@DEEP@"', '{"a":' * 10_000 + "1" + "}" * 10_000)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(text)
    db = tmp_path / "s.sqlite3"
    res = invoke("store", "import", "--url", str(db), str(bad), "-q")
    assert res.exit_code == 1, (case, res.output)  # invalid input, never 2 (unreachable database)
    assert res.stderr.startswith(f"error: {bad}:1: "), res.stderr
    assert invoke("validate", str(bad)).exit_code == 1
    listed = invoke("store", "list", "--url", str(db), "--json")
    assert listed.exit_code == 0 and listed.stdout == ""  # nothing half-written


@pytest.mark.parametrize("text", ["", "\n", "  \n\t\n\n"], ids=["empty", "newline", "whitespace"])
def test_empty_session_files_are_refused_by_import_and_validate(text: str, tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text(text)
    db = tmp_path / "s.sqlite3"
    res = invoke("store", "import", "--url", str(db), str(path))
    assert res.exit_code == 1 and "no session in the file" in res.stderr
    res = invoke("validate", str(path))
    assert res.exit_code == 1 and "it is empty or holds only blank lines" in res.stdout
    # the same bytes on stdin: not a transcript either
    assert invoke("validate", "-", input=text).exit_code == 1


HEADER_PLACES = {
    # (where the header line goes among the envelope lines, the message both commands give at its line)
    "after two envelopes": (2, "comes after its envelopes (from line 1): a header is the first line of its session's block"),
    "at the end": (-1, "comes after its envelopes (from line 1): a header is the first line of its session's block"),
}


@pytest.mark.parametrize("case", sorted(HEADER_PLACES))
def test_a_late_header_is_one_problem_named_alike_by_import_and_validate(case: str, session_file: Path, tmp_path: Path) -> None:
    """A header after envelopes of its own session: one problem at the header's line, the same words from
    ``store import`` and ``validate``, and no cascade of seq errors after it (``expected seq -2``)."""
    place, message = HEADER_PLACES[case]
    header, *envelopes = session_file.read_text().splitlines()
    at = place if place >= 0 else len(envelopes)
    bad = tmp_path / "late.jsonl"
    bad.write_text("\n".join([*envelopes[:at], header, *envelopes[at:]]) + "\n")
    imported = invoke("store", "import", "--url", str(tmp_path / "s.sqlite3"), str(bad), "-q")
    assert imported.exit_code == 1 and message in imported.stderr and f"{bad}:{at + 1}:" in imported.stderr
    checked = invoke("validate", str(bad))
    errors = checked.stdout.splitlines()[:-1]
    assert checked.exit_code == 1 and len(errors) == 1, checked.stdout
    assert errors[0].startswith(f"{bad}:{at + 1}:") and message in errors[0]


def test_a_session_met_twice_is_one_problem_without_a_seq_cascade(session_file: Path, tmp_path: Path) -> None:
    header, *envelopes = session_file.read_text().splitlines()
    bad = tmp_path / "twice.jsonl"
    bad.write_text("\n".join([header, *envelopes[:2], header, *envelopes[2:]]) + "\n")
    checked = invoke("validate", str(bad))
    errors = checked.stdout.splitlines()[:-1]
    assert len(errors) == 1 and "appears twice in the file" in errors[0] and errors[0].startswith(f"{bad}:4:"), checked.stdout
    assert "appears twice in the file" in invoke("store", "import", "--url", str(tmp_path / "s.sqlite3"), str(bad), "-q").stderr


def test_a_header_only_session_is_still_valid(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    path.write_text('{"schema_version":"1.0","session":{"id":"a"}}\n')
    assert invoke("validate", str(path)).exit_code == 0


def test_export_after_clearing_fields_validates_and_imports(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite3"
    doc = decode_transcript(json.dumps({"schema_version": "1.0", "items": [{"type": "text", "role": "user", "text": "hi"}]}))

    async def run() -> str:
        async with await SessionStore.open(str(db)) as store:
            sid = await store.create_session({"k": 1}, tools=[])
            await store.append(sid, doc.items)
            await store.update_session(sid, metadata=None)
            await store.update_session(sid, tools=None)
            await store.update_session(sid, tool_choice=None)
            await store.update_session(sid, settings=None)
            return sid

    sid = asyncio.run(run())
    exported = invoke("store", "export", "--url", str(db), sid)
    assert exported.exit_code == 0 and ": null" not in exported.stdout
    path = tmp_path / "e.jsonl"
    path.write_text(exported.stdout)
    assert invoke("validate", str(path)).exit_code == 0
    assert invoke("store", "import", "--url", str(tmp_path / "other.sqlite3"), str(path)).exit_code == 0


# --------------------------------------------------------------------------- version table (item 5)


def test_a_version_table_with_two_rows_says_what_is_wrong_and_how_to_repair(session_file: Path, tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite3"
    assert invoke("store", "import", "--url", str(db), str(session_file)).exit_code == 0
    con = sqlite3.connect(db)
    (head,) = con.execute("SELECT version_num FROM interlingua_alembic_version").fetchone()
    con.execute("INSERT INTO interlingua_alembic_version VALUES ('0001')")
    con.commit()
    for argv in (["list"], ["upgrade"], ["import", str(session_file)], ["export", "x"]):
        res = invoke("store", *argv[:1], "--url", str(db), *argv[1:])
        assert res.exit_code == 2, (argv, res.output)
        assert "interlingua_alembic_version" in res.stderr and "must hold exactly one row" in res.stderr
        assert f"DELETE FROM interlingua_alembic_version WHERE version_num <> '{head}'" in res.stderr
    # the repair the message gives works
    con.execute(f"DELETE FROM interlingua_alembic_version WHERE version_num <> '{head}'")
    con.commit()
    con.close()
    listed = invoke("store", "list", "--url", str(db), "--json")
    assert listed.exit_code == 0 and len(listed.stdout.splitlines()) == 1


# --------------------------------------------------------------------------- validate (item 4)


def test_validate_refuses_an_empty_jsonl_file(tmp_path: Path) -> None:
    res = validate_text("", ".jsonl", tmp_path)
    assert res.exit_code == 1 and "1 error" in res.stdout


def test_convert_canonical_to_canonical_runs_the_semantic_checks(tmp_path: Path) -> None:
    docs = {
        "orphan": {"schema_version": "1.0", "items": [{"type": "tool_result", "call_id": "nope", "content": [{"type": "text", "text": "x"}]}]},
        "duplicate id": {"schema_version": "1.0", "items": [{"type": "text", "role": "user", "text": "a", "id": "x"}, {"type": "text", "role": "user", "text": "b", "id": "x"}]},
        "no role": {"schema_version": "1.0", "items": [{"type": "text", "text": "a"}]},
    }
    for name, doc in docs.items():
        path = tmp_path / "d.json"
        path.write_text(json.dumps(doc))
        assert invoke("validate", str(path)).exit_code == 1, name
        for kind in ("request", "response"):
            res = invoke("convert", "--from", "canonical", "--to", "canonical", "--kind", kind, str(path))
            assert res.exit_code == 1 and res.stdout == "", (name, kind, res.output)


# --------------------------------------------------------------------------- usage counts (item 4)

USAGE_KEYS = {"input_tokens", "output_tokens", "prompt_tokens", "completion_tokens", "total_tokens", "cached_tokens", "reasoning_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "promptTokenCount", "candidatesTokenCount", "totalTokenCount", "thoughtsTokenCount", "cachedContentTokenCount", "eval_count", "prompt_eval_count", "inputTokens", "outputTokens", "totalTokens", "cacheReadInputTokens", "cacheWriteInputTokens", "thinking_tokens"}
DIRS = {"anthropic": "anthropic", "gemini": "gemini", "ollama": "ollama", "openai_chat": "openai-chat", "openai_responses": "openai-responses", "bedrock_converse": "bedrock-converse", "cohere": "cohere", "mistral": "mistral"}
RESPONSES = sorted((p, DIRS[p.parent.name]) for d in DIRS for p in (REAL / d).glob("*.response.json") if "error" not in p.name)


def _count_paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = []
    if isinstance(value, dict):
        for k, v in value.items():
            if k in USAGE_KEYS and isinstance(v, int) and not isinstance(v, bool):
                out.append((*path, k))
            out += _count_paths(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _count_paths(v, (*path, i))
    return out


@pytest.mark.parametrize("fmt", sorted(set(DIRS.values())))
def test_wrongly_typed_token_counts_never_reach_the_usage(fmt: str, tmp_path: Path) -> None:
    """Ollama's ``eval_count: true`` became ``"output_tokens": true``: typed usage decoding for every provider."""
    bodies = [(p, json.loads(p.read_text())) for p, f in RESPONSES if f == fmt]
    targets = [(p, b, path) for p, b in bodies for path in _count_paths(b)]
    assert targets, fmt
    for path, body, where in targets[:12]:
        for wrong in (True, False, "7", -1, 1.5, None, [], {}):
            doc = json.loads(json.dumps(body))
            cur = doc
            for k in where[:-1]:
                cur = cur[k]
            cur[where[-1]] = wrong
            src = tmp_path / "r.json"
            src.write_text(json.dumps(doc))
            res = invoke("convert", "--from", fmt, "--to", "canonical", "--kind", "response", str(src))
            if res.exit_code != 0:
                assert res.exit_code == 1, (path.name, where, wrong, res.output)
                continue
            out = json.loads(res.stdout)
            for key, value in (out.get("usage") or {}).items():
                if key != "details":
                    assert type(value) is int and value >= 0, (path.name, where, wrong, key, value)
            assert validate_text(res.stdout, ".json", tmp_path).exit_code == 0, (path.name, where, wrong)


# --------------------------------------------------------------------------- tool calls (item 4)

# every provider's requests: cohere, mistral and the OpenAI-compatible hosts were left out before
CALL_DIRS = {**DIRS, "openrouter": "openai-chat", "openai_chat_extra": "openai-chat", "openai_compatible": "openai-chat", "openai_compatible_hosts": "openai-chat"}
REQUESTS = sorted((p, CALL_DIRS[p.parent.name]) for p in REAL.glob("*/*.request.json") if p.parent.name in CALL_DIRS)
CALL_KEYS = ("tool_calls", "toolUse", "functionCall", "call_id", "tool_call_id", "toolUseId", "tool_use_id", "functionResponse", "toolResult")


def _call_pointers(value: Any, ptr: str = "") -> list[str]:
    out = []
    if isinstance(value, dict):
        for k, v in value.items():
            here = f"{ptr}/{k}"
            if k in CALL_KEYS:
                out.append(here)
                if isinstance(v, dict):
                    out += [f"{here}/{kk}" for kk in v if kk in ("id", "name", "toolUseId")]
                elif isinstance(v, list):
                    out += [f"{here}/{i}" for i in range(len(v))] + [f"{here}/{i}/{kk}" for i, c in enumerate(v) if isinstance(c, dict) for kk in ("id", "function") if kk in c]
            out += _call_pointers(v, here)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _call_pointers(v, f"{ptr}/{i}")
    return out


def _set(doc: Any, ptr: str, value: Any) -> Any:
    doc = json.loads(json.dumps(doc))
    *parents, last = ptr.split("/")[1:]
    cur = doc
    for part in parents:
        cur = cur[int(part)] if isinstance(cur, list) else cur[part]
    cur[int(last) if isinstance(cur, list) else last] = value
    return doc


CALL_CASES = [(p, fmt, ptr) for p, fmt in REQUESTS for ptr in _call_pointers(json.loads(p.read_text()))]


@pytest.mark.parametrize(("path", "fmt", "ptr"), CALL_CASES, ids=[f"{p.name}:{ptr}" for p, _, ptr in CALL_CASES])
def test_a_call_that_cannot_be_decoded_keeps_its_result_company(path: Path, fmt: str, ptr: str, tmp_path: Path) -> None:
    """A tool call whose id or part is null, empty or wrongly typed: never an orphan result in the output."""
    body = json.loads(path.read_text())
    for wrong in (None, "", 7, [], {}, True):
        src = tmp_path / "q.json"
        src.write_text(json.dumps(_set(body, ptr, wrong)))
        res = invoke("convert", "--from", fmt, "--to", "canonical", "--kind", "request", str(src))
        assert res.exit_code in (0, 1), (ptr, wrong, res.output)
        if res.exit_code == 0:
            checked = validate_text(res.stdout, ".json", tmp_path)
            assert checked.exit_code == 0, (ptr, wrong, checked.stdout)
        migrated = invoke("migrate", "--from", fmt, str(src), "-o", str(tmp_path / "m.jsonl"), "-q")
        assert migrated.exit_code in (0, 1), (ptr, wrong, migrated.output)
        if migrated.exit_code == 0:
            assert invoke("validate", str(tmp_path / "m.jsonl")).exit_code == 0, (ptr, wrong)


def test_the_dropped_result_is_reported_with_its_call() -> None:
    from interlingua import convert_request

    body = json.loads((REAL / "openai_chat/pai_openai_instructions_with_tool_calls.1.request.json").read_text())
    calls = next(m for m in body["messages"] if m.get("tool_calls"))
    call_id = calls["tool_calls"][0]["id"]
    calls["tool_calls"] = 7
    out = convert_request(body, source="openai-chat", target="canonical")
    assert not any(i.get("type") == "tool_result" for i in out.value["items"])
    assert any(e.action == "dropped" and call_id in e.reason and e.item_type == "tool_result" for e in out.report), [str(e) for e in out.report]


# --------------------------------------------------------------------------- gemini tools provider_data (item 5)


@pytest.mark.parametrize("value", [7, None, [], {}, "bogus", True], ids=repr)
def test_gemini_schema_field_of_the_wrong_kind_is_reported_not_a_crash(value: Any, tmp_path: Path) -> None:
    doc = {"schema_version": "1.0", "tools": [{"name": "f", "parameters": {"type": "object"}, "provider_data": {"gemini": {"schema_field": value}}}], "items": [{"type": "text", "role": "user", "text": "hi"}]}
    path = tmp_path / "g.json"
    path.write_text(json.dumps(doc))
    assert invoke("validate", str(path)).exit_code == 0  # provider_data is the provider's: validate takes it
    res = invoke("convert", "--from", "canonical", "--to", "gemini", "--model", "gemini-2.5-flash", str(path))
    assert res.exit_code == 0, res.output
    decl = json.loads(res.stdout)["tools"][0]["functionDeclarations"][0]
    assert decl == {"name": "f", "parametersJsonSchema": {"type": "object"}}
    assert "schema_field" in res.stderr
    for bad_pd in (7, {"fields": 7}):
        doc["tools"][0]["provider_data"]["gemini"] = bad_pd
        path.write_text(json.dumps(doc))
        res = invoke("convert", "--from", "canonical", "--to", "gemini", "--model", "gemini-2.5-flash", str(path))
        assert res.exit_code == 0 and "not an object" in res.stderr, res.output


# --------------------------------------------------------------------------- duplicate keys (item 8, ADR 0015)

# (item as written, the item every reader must read: the last value of each repeated key)
REPEATS = [
    ('{"type":"text","role":"user","text":"a","text":"b"}', {"type": "text", "role": "user", "text": "b"}),
    ('{"type":"hologram","type":"text","role":"user","text":"a"}', {"type": "text", "role": "user", "text": "a"}),
    ('{"type":"refusal","text":"no","type":"text","role":"user"}', {"type": "text", "role": "user", "text": "no"}),
    ('{"type":"image","role":"user","source":{"type":"file","type":"url","url":"https://example.com/a.png"}}', {"type": "image", "role": "user", "source": {"type": "url", "url": "https://example.com/a.png"}}),
    ('{"type":"tool_call","id":"c1","id":"c2","name":"f","arguments":{"a":1,"a":2}}', {"type": "tool_call", "id": "c2", "name": "f", "arguments": {"a": 2}}),
]


@pytest.mark.parametrize(("raw", "expected"), REPEATS, ids=[r for r, _ in REPEATS])
def test_a_repeated_key_counts_with_its_last_value_in_every_canonical_reader(raw: str, expected: dict[str, Any], tmp_path: Path) -> None:
    for mode in ("preserving", "strict"):
        item = decode_item(raw, mode=mode)  # type: ignore[arg-type]
        assert msgspec.to_builtins(item) == expected
    doc = tmp_path / "d.json"
    doc.write_text('{"schema_version":"1.0","schema_version":"1.0","items":[%s]}' % raw)
    env = tmp_path / "e.jsonl"
    env.write_text('{"schema_version":"1.0","session_id":"s","seq":5,"seq":0,"item":%s}\n' % raw)
    for path in (doc, env):
        assert invoke("validate", str(path)).exit_code == 0, path.name
        assert invoke("validate", "--strict", str(path)).exit_code == 0, path.name
    res = invoke("convert", "--from", "canonical", "--to", "canonical", str(doc))
    assert res.exit_code == 0 and json.loads(res.stdout)["items"] == [expected]
    db = tmp_path / "s.sqlite3"
    assert invoke("store", "import", "--url", str(db), str(env)).exit_code == 0
    exported = invoke("store", "export", "--url", str(db), "s")
    assert [json.loads(line)["item"] for line in exported.stdout.splitlines() if '"item"' in line] == [expected]


def test_a_repeated_type_whose_last_reading_is_invalid_is_refused_everywhere_and_says_why(tmp_path: Path) -> None:
    raw = '{"type":"tool_call","id":"c1","name":"f","arguments":{},"type":"text"}'
    doc = tmp_path / "d.json"
    doc.write_text('{"schema_version":"1.0","items":[%s]}' % raw)
    env = tmp_path / "e.jsonl"
    env.write_text('{"schema_version":"1.0","session_id":"s","seq":0,"item":%s}\n' % raw)
    for path in (doc, env):
        assert invoke("validate", str(path)).exit_code == 1
    res = invoke("convert", "--from", "canonical", "--to", "canonical", str(doc))
    assert res.exit_code == 1 and "counts with its last value" in res.stderr and "preserving mode" not in res.stderr
    res = invoke("store", "import", "--url", str(tmp_path / "s.sqlite3"), str(env))
    assert res.exit_code == 1 and "counts with its last value" in res.stderr
    # the last `type` unknown: kept as an unknown item in preserving mode, refused in strict mode
    doc.write_text('{"schema_version":"1.0","items":[{"type":"text","role":"user","text":"a","type":"hologram"}]}')
    assert invoke("validate", str(doc)).exit_code == 0
    res = invoke("validate", "--strict", str(doc))
    assert res.exit_code == 1 and "unknown item type 'hologram'" in res.stdout


WIRE_REPEATS = [
    ("anthropic", "request", '{"model":"claude-sonnet-4-5","max_tokens":5,"messages":[{"role":"assistant","content":"a","role":"user"}]}', {"type": "text", "text": "a", "role": "user"}),
    ("openai-chat", "request", '{"model":"gpt-4.1","messages":[{"role":"user","content":"a","content":"b"}]}', {"type": "text", "text": "b", "role": "user"}),
    ("gemini", "request", '{"contents":[{"role":"user","parts":[{"text":"a","text":"b"}]}]}', {"type": "text", "text": "b", "role": "user"}),
    ("ollama", "request", '{"model":"llama3.2","messages":[{"role":"user","content":"a","content":"b"}]}', {"type": "text", "text": "b", "role": "user"}),
    ("openai-responses", "request", '{"model":"gpt-4.1","input":[{"type":"message","role":"system","role":"user","content":"a"}]}', {"type": "text", "text": "a", "role": "user"}),
]


@pytest.mark.parametrize(("fmt", "kind", "raw", "first"), WIRE_REPEATS, ids=[w[0] for w in WIRE_REPEATS])
def test_a_repeated_key_in_a_provider_body_counts_with_its_last_value(fmt: str, kind: str, raw: str, first: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "b.json"
    path.write_text(raw)
    res = invoke("convert", "--from", fmt, "--to", "canonical", "--kind", kind, str(path))
    assert res.exit_code == 0, res.output
    item = json.loads(res.stdout)["items"][0]
    assert {k: item[k] for k in first} == first


def test_a_repeated_key_in_a_stream_event_counts_with_its_last_value() -> None:
    from interlingua.streaming import StreamDone, collect

    raw = (REAL / "openai_chat/openai_python.stream_text.sse").read_bytes()
    bad = raw.replace(b'"delta":{"content":"', b'"delta":{"content":"IGNORED","content":"', 1)
    assert bad != raw
    a, b = collect(get_mapper("openai-chat"), raw)[-1], collect(get_mapper("openai-chat"), bad)[-1]
    assert isinstance(a, StreamDone) and isinstance(b, StreamDone)
    assert a.response.items == b.response.items


# --------------------------------------------------------------------------- format detection (found by the fuzz run)

ALL_BODIES = sorted(p for p in REAL.glob("*/*.json") if "error" not in p.name and p.name != "index.json" and p.stat().st_size < 200_000)


@pytest.mark.parametrize("path", ALL_BODIES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_mapper_s_format_check_takes_any_field_of_any_type(path: Path) -> None:
    """``convert`` asks every mapper's ``kind_of`` about a body before decoding it: ``{"type": []}`` in
    an OpenAI Chat content block was a TypeError there, out of reach of the decoders' own tests."""
    from interlingua.compat import detect_format
    from interlingua.conversion import detect_kind
    from interlingua.errors import InterlinguaError
    from interlingua.mapping.registry import BUILTIN

    doc = json.loads(path.read_text())
    # the built-in mappers: a plugin another test left on this worker's path is the plugin's business
    mappers = [get_mapper(name) for name in sorted(BUILTIN)]
    for ptr in _all_pointers(doc)[1:]:
        for wrong in ([], {}, None, 7, "", {"type": []}):
            body = _set(doc, ptr, wrong)
            for mapper in mappers:
                assert mapper.kind_of(body) in (None, "request", "response"), (mapper.name, ptr, wrong)
                try:
                    detect_kind(body, source=mapper.name)
                except InterlinguaError:
                    pass
            try:
                detect_format(body)  # migrate's auto detection
            except InterlinguaError:
                pass


def _all_pointers(value: Any, ptr: str = "") -> list[str]:
    out = [ptr]
    if isinstance(value, dict):
        for k, v in value.items():
            if "/" not in k and "~" not in k:
                out += _all_pointers(v, f"{ptr}/{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _all_pointers(v, f"{ptr}/{i}")
    return out


# --------------------------------------------------------------------------- company: raw calls, repeated ids (session 4)


def _call_elements(value: Any, ptr: str = "") -> list[str]:
    """Pointers of list elements that are one tool call in some provider's request shape."""
    out = []
    if isinstance(value, dict):
        for k, v in value.items():
            out += _call_elements(v, f"{ptr}/{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            # (an OpenAI-shaped call has an id; a tool definition of the same shape has none)
            if isinstance(v, dict) and (v.get("type") in ("tool_use", "function_call") or (v.get("type") == "function" and "id" in v) or "functionCall" in v or "toolUse" in v):
                out.append(f"{ptr}/{i}")
            out += _call_elements(v, f"{ptr}/{i}")
    return out


def _twice(doc: Any, ptr: str) -> Any:
    """A copy of ``doc`` with the list element at ``ptr`` given twice (same id)."""
    doc = json.loads(json.dumps(doc))
    *parents, last = ptr.split("/")[1:]
    cur = doc
    for part in parents:
        cur = cur[int(part)] if isinstance(cur, list) else cur[part]
    cur.insert(int(last) + 1, json.loads(json.dumps(cur[int(last)])))
    return doc


REPEATED = [(p, fmt, ptrs[0]) for p, fmt in REQUESTS for ptrs in [_call_elements(json.loads(p.read_text()))] if ptrs]
# one fixture per provider folder is enough for the class (every provider), the first call of each
REPEATED = [next(r for r in REPEATED if r[0].parent == d) for d in sorted({r[0].parent for r in REPEATED})]


@pytest.mark.parametrize(("path", "fmt", "ptr"), REPEATED, ids=[f"{p.parent.name}/{p.name}" for p, _, _ in REPEATED])
def test_a_call_given_twice_never_writes_a_repeated_id(path: Path, fmt: str, ptr: str, tmp_path: Path) -> None:
    """A body giving one tool call twice (same id): ``convert`` wrote two items with one id, which
    ``validate`` refuses ("duplicate item id"). The repeated call is dropped and reported."""
    from interlingua import convert_request

    body = _twice(json.loads(path.read_text()), ptr)
    src = tmp_path / "q.json"
    src.write_text(json.dumps(body))
    res = invoke("convert", "--from", fmt, "--to", "canonical", "--kind", "request", str(src))
    assert res.exit_code == 0, res.output
    assert validate_text(res.stdout, ".json", tmp_path).exit_code == 0
    migrated = invoke("migrate", "--from", fmt, str(src), "-o", str(tmp_path / "m.jsonl"), "-q")
    assert migrated.exit_code == 0 and invoke("validate", str(tmp_path / "m.jsonl")).exit_code == 0
    once = convert_request(json.loads(path.read_text()), source=fmt, target="canonical")
    twice = convert_request(body, source=fmt, target="canonical")
    calls = [i for i in twice.value["items"] if i["type"] == "tool_call"]
    assert len({c["id"] for c in calls}) == len(calls)
    if len(calls) == len([i for i in once.value["items"] if i["type"] == "tool_call"]):  # not given a new id by the mapper
        # the history reader's rule (a call repeating the id of a call of its own turn, with no result of
        # its own, is a repeated call), or the company rule (an id another item already has)
        assert any(e.action == "dropped" and e.item_type == "tool_call" and ("repeats the id" in e.reason or "(a repeated call)" in e.reason) for e in twice.report), [str(e) for e in twice.report]


def test_an_item_id_given_twice_is_left_out_of_the_later_item() -> None:
    from interlingua.items import TextItem
    from interlingua.mapping.company import keep_company_items
    from interlingua.mapping.report import Report

    report = Report()
    items = [TextItem(text="a", role="assistant", id="x"), TextItem(text="b", role="assistant", id="x")]
    kept = keep_company_items(items, report)
    assert kept is not None and kept[0].id == "x" and kept[1].id is msgspec.UNSET and kept[1].text == "b"
    assert [(e.action, e.index, e.item_type) for e in report] == [("changed", 1, "text")]
    assert keep_company_items(kept, Report()) is None  # nothing left to do: the same items


RAW_CALLS = [
    ("openai-responses", REAL / "openai_responses/pai_openai_responses_model_retry.1.request.json", lambda v: v.get("type") == "function_call", "name"),
    ("gemini", REAL / "gemini/pai_google_streaming_tool_call_thought_signature.1.request.json", lambda v: "functionCall" in v, "functionCall/name"),
]


@pytest.mark.parametrize(("fmt", "path", "is_call", "field"), RAW_CALLS, ids=[r[0] for r in RAW_CALLS])
def test_a_call_kept_raw_is_reported_when_its_result_is_dropped(fmt: str, path: Path, is_call: Any, field: str) -> None:
    """A Responses ``function_call`` / Gemini ``functionCall`` with a wrongly typed name is kept as a
    ``raw`` item; its result is dropped (no decoded call), and now both get a report entry."""
    from interlingua import convert_request

    body = json.loads(path.read_text())
    ptr = next(p for p in _call_elements(body) if is_call(_value(body, p)))
    bad = _set(body, f"{ptr}/{field}", 7)
    out = convert_request(bad, source=fmt, target="canonical")
    items = out.value["items"]
    raw_value = next(i["value"] for i in items if i["type"] == "raw")
    call_id = raw_value.get("call_id") or raw_value["functionCall"]["id"]
    assert not any(i["type"] == "tool_result" and i["call_id"] == call_id for i in items)
    entries = [(e.action, e.item_type, e.index, e.reason) for e in out.report]
    assert any(a == "degraded" and t == "raw" and "kept raw" in r and "was left out" in r for a, t, _, r in entries), entries
    assert any(a == "dropped" and t == "tool_result" and "kept raw (item" in r for a, t, _, r in entries), entries


def _value(doc: Any, ptr: str) -> Any:
    for part in ptr.split("/")[1:]:
        doc = doc[int(part)] if isinstance(doc, list) else doc[part]
    return doc


@pytest.mark.parametrize("member", ["[" * 12000 + "]" * 12000, '{"a":' * 12000 + "1" + "}" * 12000])
def test_an_over_deep_schema_version_is_refused_not_a_recursion_error(member: str, tmp_path: Path) -> None:
    """Found by the session-4 attack (seed 7): the streamed document reader decoded ``schema_version``
    before any depth check (``RecursionError`` through ``validate``)."""
    path = tmp_path / "deep.json"
    path.write_text('{"schema_version":' + member + ',"items":[]}')
    res = invoke("validate", str(path))
    assert res.exit_code == 1 and "nesting too deep" in res.stdout
    res = invoke("convert", "--from", "canonical", "--to", "openai-chat", str(path))
    assert res.exit_code == 1 and "nesting too deep" in res.stderr


def _tools_pointer(body: Any) -> str | None:
    for key in ("tools",):
        if isinstance(body.get(key), list) and body[key]:
            return f"/{key}/0"
    return None


TWICE_TOOLS = [(p, fmt) for p, fmt in REQUESTS if _tools_pointer(json.loads(p.read_text()))]
TWICE_TOOLS = [next(r for r in TWICE_TOOLS if r[0].parent == d) for d in sorted({r[0].parent for r in TWICE_TOOLS})]


@pytest.mark.parametrize(("path", "fmt"), TWICE_TOOLS, ids=[f"{p.parent.name}/{p.name}" for p, _ in TWICE_TOOLS])
def test_a_tool_definition_given_twice_is_dropped_and_reported(path: Path, fmt: str, tmp_path: Path) -> None:
    """A body defining one tool twice: ``convert`` wrote ``tools`` with a repeated name, which
    ``validate`` refuses ("duplicate tool name"); the repeat is dropped and reported."""
    from interlingua import convert_request

    body = json.loads(path.read_text())
    body = _twice(body, _tools_pointer(body))  # type: ignore[arg-type]
    src = tmp_path / "q.json"
    src.write_text(json.dumps(body))
    res = invoke("convert", "--from", fmt, "--to", "canonical", "--kind", "request", str(src))
    assert res.exit_code == 0, res.output
    assert validate_text(res.stdout, ".json", tmp_path).exit_code == 0
    out = convert_request(body, source=fmt, target="canonical")
    names = [t["name"] for t in out.value.get("tools", [])]
    assert len(set(names)) == len(names)
    if names:
        assert any(e.action == "dropped" and e.pointer == "/tools/1" and "repeats" in e.reason for e in out.report), [str(e) for e in out.report]


# --------------------------------------------------------------------------- validate == store import (session 4)


def _line_mutations(lines: list[str]) -> list[tuple[str, list[str]]]:
    out: list[tuple[str, list[str]]] = [("as is", lines)]
    for i in range(len(lines)):
        out.append((f"drop {i + 1}", lines[:i] + lines[i + 1 :]))
        out.append((f"repeat {i + 1}", lines[: i + 1] + lines[i:]))
        if i + 1 < len(lines):
            out.append((f"swap {i + 1}", [*lines[:i], lines[i + 1], lines[i], *lines[i + 2 :]]))
        row = json.loads(lines[i])
        if "seq" in row:
            for seq in (row["seq"] + 1, 0, 5):
                out.append((f"seq {seq} at {i + 1}", [*lines[:i], json.dumps({**row, "seq": seq}), *lines[i + 1 :]]))
            out.append((f"other session at {i + 1}", [*lines[:i], json.dumps({**row, "session_id": "other"}), *lines[i + 1 :]]))
    return out


@pytest.fixture(scope="module")
def two_sessions(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    tmp = tmp_path_factory.mktemp("two")
    text = ""
    for src in (SOURCE, REAL / "openai_chat/pai_openai_instructions_with_tool_calls.1.request.json"):
        out = tmp / f"{src.stem}.jsonl"
        assert invoke("migrate", str(src), "-o", str(out), "-q").exit_code == 0
        text += out.read_text()
    no_header = [ln for ln in text.splitlines() if '"session":' not in ln[:40]]
    return text.splitlines() + ["--"] + no_header


def test_validate_and_store_import_accept_and_refuse_the_same_session_files(two_sessions: list[str], tmp_path: Path) -> None:
    """One contract: a mutated session file (lines dropped, repeated, swapped; seqs and session ids
    changed; with and without headers) is accepted by both or refused by both, with the same message.
    `validate` took gaps in seq (it only asked seqs to increase), interleaved sessions and a
    header-less session after another session's header, all of which `store import` refuses."""
    cut = two_sessions.index("--")
    files = [two_sessions[:cut], two_sessions[cut + 1 :]]
    differ = []
    n = 0
    for lines in files:
        for what, mutated in _line_mutations(lines):
            n += 1
            path = tmp_path / f"m{n}.jsonl"
            path.write_text("\n".join(mutated) + "\n")
            checked = invoke("validate", str(path))
            imported = invoke("store", "import", "--url", str(tmp_path / f"s{n}.sqlite3"), "--new-id", "-q", str(path))
            assert checked.exit_code in (0, 1) and imported.exit_code in (0, 1), (what, checked.output, imported.output)
            if (checked.exit_code == 0) != (imported.exit_code == 0):
                differ.append((what, checked.stdout[-300:], imported.stderr[-300:]))
            elif imported.exit_code:
                message = imported.stderr.removeprefix("error: ").strip().split(": ", 2)[-1]
                assert message in checked.stdout, (what, message, checked.stdout)
    assert n > 60 and not differ, differ


def test_interleaved_sessions_are_refused_by_validate_as_by_import(tmp_path: Path) -> None:
    line = '{"schema_version":"1.0","session_id":"%s","seq":%d,"item":{"type":"text","text":"x","role":"user"}}'
    path = tmp_path / "i.jsonl"
    path.write_text("\n".join([line % ("a", 0), line % ("b", 0), line % ("a", 1)]) + "\n")
    checked = invoke("validate", str(path))
    assert checked.exit_code == 1 and "session 'a' appears twice in the file (a session's lines must be contiguous)" in checked.stdout
    imported = invoke("store", "import", "--url", str(tmp_path / "s.sqlite3"), "--new-id", "-q", str(path))
    assert imported.exit_code == 1 and "appears twice" in imported.stderr


# --------------------------------------------------------------------------- base64 data (session 4)

NOT_BASE64 = ["not base64!", "abc", "YWJj\nZGVm", "YW=Jj", "YWJj====", "-_-_"]


def _image_doc(data: str, nested: bool = False) -> dict[str, Any]:
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}
    if nested:
        items = [{"type": "tool_call", "id": "c1", "name": "f", "arguments": {}}, {"type": "tool_result", "call_id": "c1", "content": [image]}]
    else:
        items = [{**image, "role": "user"}]
    return {"schema_version": "1.0", "items": items}


@pytest.mark.parametrize("data", NOT_BASE64, ids=repr)
@pytest.mark.parametrize("nested", [False, True], ids=["top", "in-result"])
def test_data_that_is_not_base64_is_refused_by_every_reader(data: str, nested: bool, tmp_path: Path) -> None:
    """A base64 source's ``data`` passed ``validate`` and was written back whatever it held."""
    doc = _image_doc(data, nested)
    where = "/items/1/content/0/source/data" if nested else "/items/0/source/data"
    res = validate_text(json.dumps(doc), ".json", tmp_path)
    assert res.exit_code == 1 and f"{where}: data is not valid base64" in res.stdout, res.stdout
    res = invoke("convert", "--from", "canonical", "--to", "anthropic", "--model", "m", str(tmp_path / "check.json"))
    assert res.exit_code == 1 and "not valid base64" in res.stderr and res.stdout == ""
    with pytest.raises(DocumentError) as exc:
        decode_transcript(json.dumps(doc))
    assert exc.value.problems[0].pointer == where
    # a session file: line by line and in the block path (many lines), validate and import alike
    items = doc["items"]
    lines = [json.dumps({"schema_version": "1.0", "session_id": "s", "seq": i, "item": it}) for i, it in enumerate(items)]
    good = [json.dumps({"schema_version": "1.0", "session_id": "s", "seq": len(items) + i, "item": {"type": "text", "text": "t", "role": "user"}}) for i in range(400)]
    for text in ("\n".join(lines) + "\n", "\n".join([*lines, *good]) + "\n"):
        res = validate_text(text, ".jsonl", tmp_path)
        assert res.exit_code == 1 and "not valid base64" in res.stdout, res.stdout[-500:]
        imported = invoke("store", "import", "--url", str(tmp_path / "b.sqlite3"), "--new-id", "-q", str(tmp_path / "check.jsonl"))
        assert imported.exit_code == 1 and "not valid base64" in imported.stderr


def test_a_provider_body_with_data_that_is_not_base64_is_refused_not_written(tmp_path: Path) -> None:
    body = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "%%%"}}]}]}
    src = tmp_path / "a.json"
    src.write_text(json.dumps(body))
    res = invoke("convert", "--from", "anthropic", "--to", "canonical", str(src))
    assert res.exit_code == 1 and "not valid base64" in res.stderr and res.stdout == ""
    body["messages"][0]["content"][0]["source"]["data"] = "aGVsbG8="
    src.write_text(json.dumps(body))
    assert invoke("convert", "--from", "anthropic", "--to", "canonical", str(src)).exit_code == 0


@pytest.mark.parametrize("item", ['{"type":""}', '{"type":"","text":"x","role":"user"}'])
def test_an_empty_item_type_is_refused_by_validate_as_by_import(item: str, tmp_path: Path) -> None:
    """Found by the fuzz run with the contract check both ways: preserving mode kept ``"type": ""`` as an
    unknown item (validate exit 0), which ``store import`` refuses (it keeps unknown items by type)."""
    path = tmp_path / "e.jsonl"
    path.write_text('{"schema_version":"1.0","session_id":"s","seq":0,"item":%s}\n' % item)
    checked = invoke("validate", str(path))
    imported = invoke("store", "import", "--url", str(tmp_path / "s.sqlite3"), "--new-id", "-q", str(path))
    assert checked.exit_code == 1 and imported.exit_code == 1, (checked.output, imported.output)
    doc = tmp_path / "e.json"
    doc.write_text('{"schema_version":"1.0","items":[%s]}' % item)
    assert invoke("validate", str(doc)).exit_code == 1
