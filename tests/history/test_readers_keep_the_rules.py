"""Every reader hands on histories ``validate`` accepts: a tool result whose call is not in the history
is left out and reported, a reused call id renamed (one rule: the history integrity rules), whether
the history comes through ``migrate`` (file or store), the framework readers or ``from_otel``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.compat import read
from interlingua.history import check_history
from interlingua.history._integrity import READER_RULES
from interlingua.otel import from_otel
from interlingua.validation import validate_path

SPAN = Path(__file__).resolve().parents[1] / "interchange" / "spans" / "pydantic_ai.test_instrumented_model.0.json"

# One stored conversation per reader whose history holds a result for a call it does not hold (a
# history cut from the front), and one reusing a call id.
ORPHANS = {
    "pydantic-ai": [
        {"kind": "request", "parts": [{"part_kind": "tool-return", "tool_name": "f", "content": "42", "tool_call_id": "c9"}, {"part_kind": "user-prompt", "content": "and now?"}]},
        {"kind": "response", "parts": [{"part_kind": "text", "content": "done"}]},
    ],
    "langchain": [
        {"type": "tool", "data": {"content": "42", "tool_call_id": "c9", "name": "f"}},
        {"type": "human", "data": {"content": "and now?"}},
        {"type": "ai", "data": {"content": "done"}},
    ],
    "openai-chat": [
        {"role": "tool", "tool_call_id": "c9", "content": "42"},
        {"role": "user", "content": "and now?"},
        {"role": "assistant", "content": "done"},
    ],
}
REUSED = {
    # issue 32: [U, A(call a), T(a), A(call a), T(a)]: the provider readers dropped the second call, its
    # result then attached to the first (duplicate_result under validate --strict)
    "openai-chat": [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "1"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "2"},
    ],
    "anthropic": [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "f", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "1"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "f", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "2"}]},
    ],
    "langchain": [
        {"type": "human", "data": {"content": "go"}},
        {"type": "ai", "data": {"content": "", "tool_calls": [{"id": "c1", "name": "f", "args": {}}]}},
        {"type": "tool", "data": {"content": "1", "tool_call_id": "c1", "name": "f"}},
        {"type": "ai", "data": {"content": "", "tool_calls": [{"id": "c1", "name": "f", "args": {}}]}},
        {"type": "tool", "data": {"content": "2", "tool_call_id": "c1", "name": "f"}},
        {"type": "ai", "data": {"content": "done"}},
    ],
    "pydantic-ai": [
        {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "go"}]},
        {"kind": "response", "parts": [{"part_kind": "tool-call", "tool_name": "f", "args": {}, "tool_call_id": "c1"}]},
        {"kind": "request", "parts": [{"part_kind": "tool-return", "tool_name": "f", "content": "1", "tool_call_id": "c1"}]},
        {"kind": "response", "parts": [{"part_kind": "tool-call", "tool_name": "f", "args": {}, "tool_call_id": "c1"}]},
        {"kind": "request", "parts": [{"part_kind": "tool-return", "tool_name": "f", "content": "2", "tool_call_id": "c1"}]},
        {"kind": "response", "parts": [{"part_kind": "text", "content": "done"}]},
    ],
}


def _sound(items: list[object]) -> bool:
    return not [f for f in check_history(items) if f.rule in READER_RULES]


@pytest.mark.parametrize("fmt", sorted(ORPHANS))
def test_a_reader_leaves_out_a_result_without_its_call(fmt: str) -> None:
    migrated = read(ORPHANS[fmt], fmt)
    assert _sound(migrated.transcript.items)
    assert any("'c9'" in e.reason and e.action == "dropped" for e in migrated.report)


@pytest.mark.parametrize("fmt", sorted(REUSED))
def test_a_reader_renames_a_reused_call_id(fmt: str) -> None:
    migrated = read(REUSED[fmt], fmt)
    assert _sound(migrated.transcript.items)
    assert any("renamed 'c1'" in e.reason for e in migrated.report)


def test_a_reused_call_id_is_renamed_with_its_result_strictly_valid(tmp_path: Path) -> None:
    """validate --strict: no duplicate_result, each result with its own call (OpenAI Chat, Claude Code log)."""
    from interlingua.validation import validate_path as vp

    runner = CliRunner()
    rec = lambda u, parent, t, content: {"type": t, "timestamp": "2025-06-14T10:00:00Z", "parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": "/tmp", "sessionId": "s1", "version": "1.0.0", "uuid": u, "message": {"role": t, "content": content}}  # noqa: E731
    log = [
        rec("u1", None, "user", "go"),
        rec("a1", "u1", "assistant", [{"type": "tool_use", "id": "c1", "name": "f", "input": {}}]),
        rec("u2", "a1", "user", [{"type": "tool_result", "tool_use_id": "c1", "content": "1"}]),
        rec("a2", "u2", "assistant", [{"type": "tool_use", "id": "c1", "name": "f", "input": {}}]),
        rec("u3", "a2", "user", [{"type": "tool_result", "tool_use_id": "c1", "content": "2"}]),
    ]
    cases = {"openai-chat": ("in.json", json.dumps(REUSED["openai-chat"])), "claude-code": ("in.jsonl", "\n".join(json.dumps(r) for r in log) + "\n")}
    for fmt, (name, text) in cases.items():
        src = tmp_path / name
        src.write_text(text)
        out = tmp_path / f"{fmt}.jsonl"
        result = runner.invoke(app, ["migrate", "--from", fmt, str(src), "-o", str(out)])
        assert result.exit_code == 0, result.output
        assert "renamed 'c1'" in result.output, result.output
        checked = vp([str(out)])
        assert checked.ok and not checked.warnings, (fmt, checked.problems, checked.warnings)


def test_the_span_pydantic_ai_recorded_reads_into_a_valid_document() -> None:
    conv = from_otel(json.loads(SPAN.read_text())["attributes"])
    assert _sound(conv.value.items)


@pytest.mark.parametrize("case", [*(("orphan", f) for f in sorted(ORPHANS)), *(("reused", f) for f in sorted(REUSED))], ids="-".join)
def test_migrate_writes_and_stores_what_validate_and_import_accept(tmp_path: Path, case: tuple[str, str]) -> None:
    kind, fmt = case
    src = tmp_path / "in.json"
    src.write_text(json.dumps((ORPHANS if kind == "orphan" else REUSED)[fmt]))
    out = tmp_path / "out.jsonl"
    runner = CliRunner()
    result = runner.invoke(app, ["migrate", "--from", fmt, str(src), "-o", str(out), "-q"])
    assert result.exit_code == 0, result.output
    assert validate_path([str(out)]).ok
    store = tmp_path / "s.sqlite3"
    result = runner.invoke(app, ["store", "import", "--url", str(store), str(out)])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["migrate", "--from", fmt, str(src), "--store", str(store), "-q"])
    assert result.exit_code == 0, result.output


def test_migrate_streams_a_sound_document_and_reads_a_broken_one_whole(tmp_path: Path) -> None:
    """The bounded-memory path of migrate (a big transcript document) applies the same rule: it
    finds the broken history and hands it to the whole-document path, which repairs it."""
    from interlingua.cli import migrate as m

    doc = {"schema_version": "1.0", "items": [{"type": "tool_result", "call_id": "c9", "content": []}, {"type": "text", "role": "user", "text": "hi"}]}
    src = tmp_path / "doc.json"
    src.write_text(json.dumps(doc))
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(app, ["migrate", "--from", "interlingua", str(src), "-o", str(out), "-q"])
    # the interlingua reader refuses an invalid document of its own format (exit 1, rejected), or
    # repairs it; either way nothing invalid is written
    assert result.exit_code in (0, 1)
    if out.exists():
        assert validate_path([str(out)]).ok
    assert m is not None


# Random histories in each framework's own form: calls and results with ids drawn from a small pool,
# so that results without their call, reused ids and late results all occur.
# ids include the values the canonical schema refuses (issue 32: empty, over 512 characters), which a
# reader renames (reported); URLs and inline data include empty ones and data that is not base64,
# which a reader refuses with a clear error: either way nothing validate refuses is handed on.
_id = st.sampled_from(["c1", "c2", "c3", "", "x" * 513, "y" * 600])
_url = st.sampled_from(["https://example.com/a.png", "", "data:image/png;base64,iVBORw0KGgo=", "data:image/png;base64,!!!", "data:image/png,hello"])
_b64 = st.sampled_from(["iVBORw0KGgo=", "!!!", "", "a b"])
_LC = st.one_of(
    st.builds(lambda t: {"type": "human", "data": {"content": t}}, st.text(max_size=5)),
    st.builds(lambda i: {"type": "ai", "data": {"content": "", "tool_calls": [{"id": i, "name": "f", "args": {}}]}}, _id),
    st.builds(lambda i: {"type": "tool", "data": {"content": "r", "tool_call_id": i, "name": "f"}}, _id),
    st.builds(lambda t: {"type": "ai", "data": {"content": t}}, st.text(min_size=1, max_size=5)),
)
_PAI = st.one_of(
    st.builds(lambda t: {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": t}]}, st.text(max_size=5)),
    st.builds(lambda u: {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": [{"kind": "image-url", "url": u}]}]}, _url),
    st.builds(lambda d: {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": [{"kind": "binary", "data": d, "media_type": "image/png"}]}]}, _b64),
    st.builds(lambda i: {"kind": "response", "parts": [{"part_kind": "tool-call", "tool_name": "f", "args": {}, "tool_call_id": i}]}, _id),
    st.builds(lambda i: {"kind": "request", "parts": [{"part_kind": "tool-return", "tool_name": "f", "content": "r", "tool_call_id": i}]}, _id),
)
_CHAT = st.one_of(
    st.builds(lambda t: {"role": "user", "content": t}, st.text(min_size=1, max_size=5)),
    st.builds(lambda u: {"role": "user", "content": [{"type": "image_url", "image_url": {"url": u}}]}, _url),
    st.builds(lambda i: {"role": "assistant", "content": None, "tool_calls": [{"id": i, "type": "function", "function": {"name": "f", "arguments": "{}"}}]}, _id),
    st.builds(lambda i: {"role": "tool", "tool_call_id": i, "content": "r"}, _id),
)


_VM = st.one_of(
    st.builds(lambda t: {"role": "user", "content": t}, st.text(min_size=1, max_size=5)),
    st.builds(lambda i: {"role": "assistant", "content": [{"type": "tool-call", "toolCallId": i, "toolName": "f", "input": {}}]}, _id),
    st.builds(lambda i: {"role": "tool", "content": [{"type": "tool-result", "toolCallId": i, "toolName": "f", "output": {"type": "text", "value": "r"}}]}, _id),
    st.builds(lambda d: {"role": "user", "content": [{"type": "image", "image": d, "mediaType": "image/png"}]}, _b64),
)
_UI = st.one_of(
    st.builds(lambda t: {"role": "user", "parts": [{"type": "text", "text": t}]}, st.text(min_size=1, max_size=5)),
    st.builds(lambda i: {"role": "assistant", "parts": [{"type": "tool-f", "state": "output-available", "toolCallId": i, "input": {}, "output": "r"}]}, _id),
    st.builds(lambda u: {"role": "user", "parts": [{"type": "file", "mediaType": "image/png", "url": u}]}, _url),
    st.builds(lambda i: {"role": "assistant", "id": i, "parts": [{"type": "source-url", "sourceId": i, "url": ""}, {"type": "text", "text": "ok"}]}, _id),
)
_ANTHROPIC = st.one_of(
    st.builds(lambda t: {"role": "user", "content": t}, st.text(min_size=1, max_size=5)),
    st.builds(lambda i: {"role": "assistant", "content": [{"type": "tool_use", "id": i, "name": "f", "input": {}}]}, _id),
    st.builds(lambda i: {"role": "user", "content": [{"type": "tool_result", "tool_use_id": i, "content": "r"}]}, _id),
)


@settings(max_examples=300)
@given(st.sampled_from([("langchain", _LC), ("pydantic-ai", _PAI), ("openai-chat", _CHAT), ("vercel-model", _VM), ("vercel-ui", _UI), ("anthropic", _ANTHROPIC)]).flatmap(lambda f: st.tuples(st.just(f[0]), st.lists(f[1], min_size=1, max_size=8))))
def test_every_reader_output_passes_validate(case: tuple[str, list[dict[str, object]]]) -> None:
    from interlingua.codec import encode_transcript
    from interlingua.errors import InterlinguaError
    from interlingua.validation import validate_document_bytes

    fmt, messages = case
    try:
        migrated = read(messages, fmt)
    except InterlinguaError:
        return  # refused with a clear error: nothing written
    result = validate_document_bytes(encode_transcript(migrated.transcript))
    assert result.ok, (fmt, messages, result.problems)
