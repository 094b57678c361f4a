"""Agent logs and framework stores (issue 26, part a), read from files public projects committed.

Fixtures: tests/fixtures/stores/<format>/ (README there: project, path, commit, license). Each test
counts what the source holds from the raw JSON with its own walk (texts, calls, results, images,
reasoning) and checks the reader produced exactly that, across the session and its forks.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from interlingua.codec import decode_transcript, encode_transcript
from interlingua.compat import FormatDetectionError, detect_format, read, read_any
from interlingua.errors import MappingError
from interlingua.items import AudioItem, ImageItem, RawItem, ReasoningItem, TextItem, ToolCallItem, ToolResultItem

STORES = Path(__file__).parents[1] / "fixtures" / "stores"
CLAUDE = STORES / "claude-code"
CODEX = STORES / "codex"


def lines(path: Path) -> list[Any]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def kinds(items: list[Any]) -> Counter[str]:
    """Canonical items by kind (a tool result's text content is not counted as a text)."""
    names = {TextItem: "text", ToolCallItem: "call", ToolResultItem: "result", ImageItem: "image", ReasoningItem: "reasoning", RawItem: "raw", AudioItem: "audio"}
    return Counter(names[type(i)] for i in items)


def valid(transcript: Any) -> None:
    """A valid canonical document, by the checks ``interlingua validate`` makes (calls before results, unique ids)."""
    from interlingua.validation import check_transcript

    assert decode_transcript(encode_transcript(transcript), mode="strict") == transcript
    assert check_transcript(transcript) == []


# ----------------------------------------------------------------------------- Claude Code


def claude_blocks(records: list[Any]) -> Counter[str]:
    """Blocks of every user/assistant record, counted from the raw JSON; a system record is one raw item."""
    c: Counter[str] = Counter()
    for r in records:
        if r.get("type") == "system":
            c["raw"] += 1
        if r.get("type") not in ("user", "assistant"):
            continue
        content = r["message"]["content"]
        if isinstance(content, str):
            c["text"] += 1
            continue
        for b in content:
            c[{"text": "text", "tool_use": "call", "tool_result": "result", "image": "image", "thinking": "reasoning", "redacted_thinking": "reasoning"}[b["type"]]] += 1
    return c


CLAUDE_FILES = sorted(p for p in CLAUDE.rglob("*.jsonl"))


@pytest.mark.parametrize("path", CLAUDE_FILES, ids=lambda p: p.name)
def test_claude_code_every_block_is_in_the_session_or_one_fork(path: Path) -> None:
    records = lines(path)
    before = copy.deepcopy(records)
    assert detect_format(records) == "claude-code"
    m = read_any(records)
    assert records == before
    got = kinds(m.transcript.items)
    for fork in m.forks:
        got += kinds(fork.items)
    dropped = sum(1 for e in m.report if "is not before it" in e.reason)
    expected = claude_blocks(records)
    expected["result"] -= dropped
    assert +got == +expected
    valid(m.transcript)


def test_claude_code_rewind_is_a_fork_and_compaction_keeps_the_history() -> None:
    m = read(lines(CLAUDE / "dag_compact_after_rewind.jsonl"), "claude-code")
    texts = [i.text for i in m.transcript.items if isinstance(i, TextItem)]
    assert texts[:5] == ["Start", "Ready", "Second attempt", "Second answer", "Keep going"]
    assert texts[-2:] == ["After compaction", "Final answer"]
    assert "First attempt" not in texts
    (fork,) = m.forks
    assert fork.key == "b1a" and fork.at == 1  # shares "Start", "Ready"
    assert [i.text for i in fork.items] == ["First attempt", "First answer"]
    # the compaction boundary is kept in place, as the source record
    raw = [i for i in m.transcript.items if isinstance(i, RawItem)]
    assert [r.value["subtype"] for r in raw] == ["compact_boundary"]
    # ids, timestamps and metadata are kept
    first = m.transcript.items[0]
    assert first.metadata["claude-code"]["uuid"] == "u1" and first.metadata["claude-code"]["timestamp"] == "2025-07-01T10:00:00.000Z"
    answer = m.transcript.items[1]
    assert answer.origin.model == "claude-sonnet-4-20250514" and answer.origin.response_id == "msg_a1"
    assert answer.metadata["claude-code"]["message"]["usage"] == {"input_tokens": 10, "output_tokens": 5}
    assert m.session_id == "s1" and m.transcript.metadata["claude-code"]["cwd"] == "/tmp"


def test_claude_code_sidechains_are_forks_from_the_start() -> None:
    m = read(lines(CLAUDE / "sidechain_integrated.jsonl"), "claude-code")
    assert [type(i).__name__ for i in m.transcript.items] == ["ToolCallItem", "ToolResultItem", "TextItem"]
    assert {f.at for f in m.forks} == {-1}
    assert any("name a parent that is not in the file" in e.reason for e in m.report)


def test_claude_code_records_without_parents_read_in_file_order() -> None:
    records = lines(CLAUDE / "representative_messages.jsonl")
    m = read(records, "claude-code")
    assert not m.forks
    assert m.transcript.metadata["claude-code"]["summaries"][0]["summary"].startswith("User learned about Python decorators")


def test_claude_code_refuses_what_is_not_a_session() -> None:
    with pytest.raises(MappingError, match=r"claude-code\[1\]: not a Claude Code record \(an array\)"):
        read([{"type": "user", "message": {"role": "user", "content": "x"}}, [1]], "claude-code")
    with pytest.raises(MappingError, match="no 'user' or 'assistant' record"):
        read([{"type": "summary", "summary": "s", "leafUuid": "x"}], "claude-code")
    with pytest.raises(MappingError, match="without a 'message' object"):
        read([{"type": "user", "uuid": "u", "sessionId": "s"}], "claude-code")


# ----------------------------------------------------------------------------- Codex


def codex_blocks(records: list[Any]) -> Counter[str]:
    c: Counter[str] = Counter()
    legacy = "type" not in records[0]
    # a user/agent message event whose text no response_item message of that role holds: one text more
    said = {(r["payload"].get("role"), "".join(b.get("text", "") for b in r["payload"]["content"]).strip()) for r in records
            if r.get("type") == "response_item" and r["payload"].get("type") == "message"}
    for r in records:
        if r.get("type") == "event_msg" and r["payload"].get("type") in ("user_message", "agent_message"):
            role = "user" if r["payload"]["type"] == "user_message" else "assistant"
            c["text"] += (role, r["payload"]["message"].strip()) not in said
    for r in records[1:] if legacy else records:
        if r.get("record_type") == "state":
            continue
        if legacy:
            p = r
        elif r.get("type") == "response_item":
            p = r["payload"]
        elif r.get("type") == "compacted":
            c["raw"] += 1
            continue
        else:
            continue
        t = p["type"]
        if t == "message":
            c["text"] += sum(1 for b in p["content"] if b["type"] in ("input_text", "output_text"))
        elif t == "reasoning":
            c["reasoning"] += 1
        elif t == "function_call":
            c["call"] += 1
        elif t == "function_call_output":
            c["result"] += 1
        else:  # custom tool calls and their outputs: no canonical form in the Responses mapper
            c["raw"] += 1
    return c


CODEX_FILES = sorted(p for p in (CODEX / "sessions").rglob("*.jsonl"))


@pytest.mark.parametrize("path", CODEX_FILES, ids=lambda p: p.name)
def test_codex_every_response_item_is_read(path: Path) -> None:
    records = lines(path)
    assert detect_format(records) == "codex"
    m = read_any(records)
    assert +kinds(m.transcript.items) == +codex_blocks(records)
    assert m.session_id == (records[0].get("payload") or records[0])["id"]
    valid(m.transcript)


def test_codex_skipped_record_kinds_are_reported() -> None:
    m = read(lines(CODEX / "sessions/2026/01/02/rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl"), "codex")
    reasons = [e.reason for e in m.report]
    assert "codex: 2 event_msg record(s) skipped (the UI's echo of the response items: agent_message x1, user_message x1)" in reasons
    assert "codex: 1 'future_synthetic_record' record(s) skipped (not part of the conversation)" in reasons
    first = m.transcript.items[0]
    assert first.metadata["codex"]["turn_context"]["model"] == "synthetic-model"
    assert m.transcript.metadata["codex"]["session_meta"]["cli_version"] == "0.0.0-test"
    reasoning = m.transcript.items[1]
    assert reasoning.summary and reasoning.opaque.value == "SYNTHETIC_ENCRYPTED_CONTENT_MUST_NOT_RENDER"


def test_codex_refuses_a_rollout_of_ui_events_only() -> None:
    records = [
        {"timestamp": "t", "type": "session_meta", "payload": {"id": "x"}},
        {"timestamp": "t", "type": "event_msg", "payload": {"type": "token_count", "info": None}},
    ]
    with pytest.raises(MappingError, match=r"no response_item records; only UI events \(token_count x1\)"):
        read(records, "codex")


def test_codex_refuses_what_is_not_a_rollout() -> None:
    with pytest.raises(MappingError, match=r"codex\[0\]: not a Codex rollout's first line"):
        read([{"role": "user", "content": "hi"}], "codex")


# ----------------------------------------------------------------------------- ADK


def test_adk_eval_set_cases_are_conversations() -> None:
    from interlingua.compat._adk import split

    evalset = json.loads((STORES / "adk/elicitation_flow.test.json").read_text())
    assert detect_format(evalset) == "adk"
    (case,) = split(evalset)
    m = read_any(case)
    inv = evalset["eval_cases"][0]["conversation"]
    texts = sum(1 for t in inv for part in (t["user_content"]["parts"] + t["final_response"]["parts"]) if part.get("text") is not None)
    calls = sum(len(t["intermediate_data"]["tool_uses"]) for t in inv)
    assert kinds(m.transcript.items) == Counter({"text": texts, "call": calls})
    assert [e.reason for e in m.report] == ["adk: /conversation/0/final_response has no part with a value"]
    first = m.transcript.items[0]
    assert first.message == "turn-1-elicitation-trigger:user" and first.metadata["adk"]["invocation_id"] == "turn-1-elicitation-trigger"
    assert m.transcript.metadata["adk"]["eval_set"]["eval_set_id"] == "elicitation-integration-test-set"
    valid(m.transcript)


def test_adk_scenario_without_conversation_is_refused() -> None:
    evalset = json.loads((STORES / "adk/conversation_scenario.test.json").read_text())
    with pytest.raises(MappingError, match="conversation_scenario"):
        read(evalset, "adk")


def test_adk_session_snake_and_camel_case_read_alike() -> None:
    """A Session as ``model_dump()`` (snake_case) and as the API server sends it (camelCase)."""
    snake = {
        "id": "s1", "app_name": "app", "user_id": "u", "state": {"k": 1}, "last_update_time": 1.5,
        "events": [
            {"id": "e1", "author": "user", "invocation_id": "i1", "content": {"role": "user", "parts": [{"text": "roll a die"}]}},
            {"id": "e2", "author": "agent", "invocation_id": "i1", "content": {"role": "model", "parts": [{"function_call": {"id": "adk-1", "name": "roll_die", "args": {"sides_count": 6}}}]}},
            {"id": "e3", "author": "agent", "invocation_id": "i1", "content": {"role": "user", "parts": [{"function_response": {"id": "adk-1", "name": "roll_die", "response": {"result": 4}}}]}},
            {"id": "e4", "author": "agent", "invocation_id": "i1", "actions": {"state_delta": {"rolls": [4]}}},
            {"id": "e5", "author": "agent", "invocation_id": "i1", "content": {"role": "model", "parts": [{"text": "4"}, {"inline_data": {"mime_type": "image/png", "data": "iVBORw0KGgo="}}]}},
        ],
    }
    camel = json.loads(json.dumps(snake).replace('"function_call"', '"functionCall"').replace('"function_response"', '"functionResponse"').replace('"inline_data"', '"inlineData"').replace('"mime_type"', '"mimeType"').replace('"invocation_id"', '"invocationId"').replace('"app_name"', '"appName"'))
    a, b = read_any(snake), read_any(camel)
    assert a.format == b.format == "adk"
    assert kinds(a.transcript.items) == kinds(b.transcript.items) == Counter({"text": 2, "call": 1, "result": 1, "image": 1, "raw": 1})
    call = next(i for i in a.transcript.items if isinstance(i, ToolCallItem))
    assert call.arguments == {"sides_count": 6}  # the caller's keys are not renamed
    assert [i.message for i in a.transcript.items if not isinstance(i, RawItem)] == ["e1", "e2", "e3", "e5", "e5"]
    assert a.session_id == "s1" and a.transcript.metadata["adk"]["state"] == {"k": 1}


# ----------------------------------------------------------------------------- MCP sampling


def mcp_blocks(obj: Any) -> Counter[str]:
    c: Counter[str] = Counter()
    msgs = obj if isinstance(obj, list) else [obj]

    def blocks(content: Any) -> None:
        for b in content if isinstance(content, list) else [content]:
            c[{"text": "text", "tool_use": "call", "tool_result": "result", "image": "image", "audio": "audio"}[b["type"]]] += 1

    for m in msgs:
        if "params" in m:
            if "systemPrompt" in m["params"]:
                c["text"] += 1
            for x in m["params"]["messages"]:
                blocks(x["content"])
        if "result" in m:
            blocks(m["result"]["content"])
    return c


MCP_FILES = sorted((STORES / "mcp-sampling").glob("*.json"))


@pytest.mark.parametrize("path", MCP_FILES, ids=lambda p: p.name)
def test_mcp_sampling_every_block_is_read(path: Path) -> None:
    obj = json.loads(path.read_text())
    assert detect_format(obj) == "mcp-sampling"
    m = read_any(obj)
    assert kinds(m.transcript.items) == mcp_blocks(obj)
    valid(m.transcript)


def test_mcp_basic_request_is_not_read_as_openai_chat_with_its_text_emptied() -> None:
    """The issue's case: the spec's basic request was read as OpenAI Chat, user text ``""``, exit 0."""
    req = json.loads((STORES / "mcp-sampling/basic_request.json").read_text())
    for obj in (req, req["params"]):
        m = read_any(obj)
        assert m.format == "mcp-sampling"
        assert [(i.role, i.text) for i in m.transcript.items] == [("system", "You are a helpful assistant."), ("user", "What is the capital of France?")]
        assert m.transcript.metadata["mcp-sampling"]["modelPreferences"]["hints"] == [{"name": "claude-3-sonnet"}]


def test_mcp_result_keeps_model_and_stop_reason_and_audio() -> None:
    m = read(
        [
            {"jsonrpc": "2.0", "id": 7, "method": "sampling/createMessage", "params": {"messages": [{"role": "user", "content": {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}}], "maxTokens": 10}},
            {"jsonrpc": "2.0", "id": 7, "result": {"role": "assistant", "content": {"type": "text", "text": "a beep"}, "model": "m-1", "stopReason": "maxTokens"}},
        ],
        "mcp-sampling",
    )
    audio, text = m.transcript.items
    assert isinstance(audio, AudioItem) and audio.source.media_type == "audio/wav" and audio.role == "user"
    assert text.text == "a beep"
    assert m.transcript.stop_reason.reason == "max_tokens" and m.transcript.stop_reason.raw == "maxTokens"
    assert m.transcript.metadata["mcp-sampling"]["result"]["model"] == "m-1"


def test_mcp_refuses_other_methods_and_unknown_blocks() -> None:
    with pytest.raises(MappingError, match="method 'tools/call' is not sampling/createMessage"):
        read([{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {}}], "mcp-sampling")
    with pytest.raises(MappingError, match="content block type 'resource'"):
        read({"messages": [{"role": "user", "content": {"type": "resource", "resource": {}}}], "maxTokens": 1}, "mcp-sampling")


def test_detection_error_names_the_new_formats() -> None:
    with pytest.raises(FormatDetectionError) as exc:
        detect_format({"nothing": 1})
    for name in ("claude-code:", "codex:", "adk:", "mcp-sampling:"):
        assert name in str(exc.value)


# ----------------------------------------------------------------------------- no quiet guesses


def test_a_guess_that_turns_most_parts_raw_is_refused() -> None:
    """Typed content no mapper knows read as OpenAI Chat: every part raw, so refused (exit 1 in migrate)."""
    typed = [{"role": "user", "content": [{"type": "weird", "text": "hi"}, {"type": "weirder", "value": 1}]}]
    with pytest.raises(FormatDetectionError, match=r"2 of its 2 items have no openai-chat form"):
        read_any(typed)
    assert len(read(typed, "openai-chat").transcript.items) == 2  # named, it is read as asked


def test_a_guess_that_loses_every_text_is_refused() -> None:
    lost = [{"role": "user", "content": {"text": "What is the capital of France?"}}]
    with pytest.raises(FormatDetectionError, match="would be lost; not guessing"):
        read_any(lost)


@pytest.mark.parametrize(
    "bad, message",
    [
        ({"eval_id": "x", "conversation": [1]}, r"/conversation/0 is a number, not an Invocation"),
        ({"eval_set_id": "s", "eval_cases": [5]}, r"/eval_cases/0 is a number, not an eval case"),
        ({"id": "s", "app_name": "a", "events": [{"content": {"parts": "x"}}]}, r"/events/0/content is an object, not a Content"),
        ({"id": "s", "app_name": "a", "events": ["e"]}, r"/events/0 is a string, not an Event"),
    ],
)
def test_adk_bad_shapes_are_refused_saying_where(bad: Any, message: str) -> None:
    with pytest.raises(MappingError, match=message):
        read(bad, "adk")


# ----------------------------------------------------------------------------- the tree split


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from interlingua.compat._tree import split_tree  # noqa: E402


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=-1, max_value=30), min_size=1, max_size=30), st.data())
def test_every_node_is_on_the_active_branch_or_in_a_branch(parents_at: list[int], data: Any) -> None:
    """A forest of nodes (parent index before the node, or none): every node is on the active
    branch or among the own nodes of a branch (a node above two abandoned leaves is in both), never
    both; the active branch and each branch are chains hanging where they say they join."""
    n = len(parents_at)
    ids = [f"n{i}" for i in range(n)]
    parents = [ids[p] if 0 <= p < i else None for i, p in enumerate(parents_at)]
    leaf = data.draw(st.integers(min_value=0, max_value=n - 1))
    tree = split_tree(ids, parents, leaf)
    assert tree.active[-1] == leaf and tree.dangling == []
    for a, b in zip(tree.active, tree.active[1:]):
        assert parents[b] == ids[a]
    own = [i for b in tree.branches for i in b.nodes]
    covered = set(tree.active) | set(own)
    assert covered == set(range(n))
    for b in tree.branches:
        assert b.nodes[-1] == b.leaf
        first_parent = parents[b.nodes[0]]
        assert (b.joins is None and first_parent is None) or (b.joins is not None and first_parent == ids[b.joins])
        assert not set(b.nodes) & set(tree.active)


@pytest.mark.parametrize("path", CLAUDE_FILES, ids=lambda p: p.name)
def test_claude_code_records_can_be_given_back(path: Path) -> None:
    """Every user/assistant record is recoverable: its fields (all but ``message``) on its first item,
    its message's fields besides ``content`` under ``message``, its id as the items' message key."""
    records = lines(path)
    m = read(records, "claude-code")
    items = list(m.transcript.items) + [i for f in m.forks for i in f.items]
    firsts = {}
    for i in items:
        meta = i.metadata.get("claude-code") if isinstance(i.metadata, dict) else None
        if meta and "type" in meta:
            firsts[meta["uuid"]] = (i, meta)
    for r in records:
        if r.get("type") not in ("user", "assistant") or r["uuid"] not in firsts:
            continue  # only a result the company rule dropped (reported) is missing
        item, meta = firsts[r["uuid"]]
        assert {k: v for k, v in meta.items() if k != "message"} == {k: v for k, v in r.items() if k != "message"}
        extra = {k: v for k, v in r["message"].items() if k not in ("content", "role")}
        assert meta.get("message", {}) == extra
        assert item.message in (r["uuid"], f"resp:{r['message'].get('id')}")
    dropped = sum(1 for e in m.report if "is not before it" in e.reason)
    assert len(firsts) == sum(1 for r in records if r.get("type") in ("user", "assistant")) - dropped


def test_codex_envelopes_without_timestamps_and_compaction() -> None:
    """Rollouts as other tools' tests write them (no ``timestamp``), with a ``compacted`` record."""
    records = [
        {"type": "session_meta", "payload": {"id": "c1", "cwd": "/tmp"}},
        {"type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}},
        {"type": "event_msg", "payload": {"type": "token_count", "info": {"total_token_usage": {"input_tokens": 3}}}},
        {"record_type": "state"},
        {"type": "compacted", "payload": {"message": "summary text", "replacement_history": []}},
        {"type": "response_item", "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "hello"}]}},
    ]
    assert detect_format(records) == "codex"
    m = read_any(records)
    assert kinds(m.transcript.items) == Counter({"text": 2, "raw": 1}) == codex_blocks(records)
    raw = m.transcript.items[1]
    assert raw.provider == "codex" and raw.value == {"message": "summary text", "replacement_history": []}
    assert any("'compacted' record" in e.reason for e in m.report)
    assert "codex: 1 'state' record(s) skipped (not part of the conversation)" in [e.reason for e in m.report]


def test_the_mcp_example_in_the_docs_is_what_the_reader_gives() -> None:
    import re

    from interlingua.codec import to_builtins

    doc = (Path(__file__).parents[2] / "docs" / "migrating.md").read_text(encoding="utf-8")
    section = doc.split("### MCP sampling", 1)[1]
    stored, items = re.findall(r"```jsonc\n(.*?)```", section, flags=re.S)[:2]
    expected = [json.loads(x) for x in items.splitlines() if x.strip()]
    assert to_builtins(read_any(json.loads(stored)).transcript)["items"] == expected


_JSON = st.recursive(st.none() | st.booleans() | st.integers(-3, 3) | st.text(max_size=4), lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=4), c, max_size=3), max_leaves=6)
_BLOCK = st.one_of(
    st.fixed_dictionaries({"type": st.just("text"), "text": st.text(max_size=5)}),
    st.fixed_dictionaries({"type": st.just("tool_use"), "id": st.sampled_from(["t1", "t2"]), "name": st.just("f"), "input": st.just({})}),
    st.fixed_dictionaries({"type": st.just("tool_result"), "tool_use_id": st.sampled_from(["t1", "t2", "t3"]), "content": st.just("r")}),
    _JSON,
)
_RECORD = st.fixed_dictionaries(
    {
        "type": st.sampled_from(["user", "assistant", "system", "progress", "summary", "x"]),
        "uuid": st.sampled_from(["a", "b", "c", "d", "e", None]),
        "parentUuid": st.sampled_from(["a", "b", "c", "d", "z", None]),
        "sessionId": st.just("s"),
        "isSidechain": st.booleans(),
        "message": st.one_of(st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant"]), "content": st.one_of(st.text(max_size=5), st.lists(_BLOCK, max_size=3))}), _JSON),
    }
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_RECORD, min_size=1, max_size=8))
def test_claude_code_reader_reads_or_refuses_any_records(records: list[Any]) -> None:
    """Whatever the records, the reader gives valid transcripts (session and forks) or a MappingError."""
    from interlingua.errors import InterlinguaError
    from interlingua.items import Transcript

    try:
        m = read(records, "claude-code")
    except InterlinguaError:
        return
    valid(m.transcript)
    for fork in m.forks:
        assert -1 <= fork.at < len(m.transcript.items)
        valid(Transcript(schema_version=m.transcript.schema_version, items=list(m.transcript.items[: fork.at + 1]) + list(fork.items)))


_PAYLOAD = st.one_of(
    st.fixed_dictionaries({"type": st.just("message"), "role": st.sampled_from(["user", "assistant"]), "content": st.lists(st.fixed_dictionaries({"type": st.sampled_from(["input_text", "output_text"]), "text": st.text(max_size=4)}), max_size=2)}),
    st.fixed_dictionaries({"type": st.just("function_call"), "name": st.just("f"), "arguments": st.sampled_from(["{}", "{", "[1]"]), "call_id": st.sampled_from(["c1", "c2"])}),
    st.fixed_dictionaries({"type": st.just("function_call_output"), "call_id": st.sampled_from(["c1", "c2", "c3"]), "output": st.text(max_size=3)}),
    _JSON,
)
_ROLLOUT_LINE = st.fixed_dictionaries({"type": st.sampled_from(["response_item", "event_msg", "turn_context", "compacted", "x"]), "payload": _PAYLOAD})


@settings(max_examples=300, deadline=None)
@given(st.lists(_ROLLOUT_LINE, max_size=8), st.lists(_JSON, max_size=2))
def test_codex_reader_reads_or_refuses_any_rollout(lines_: list[Any], junk: list[Any]) -> None:
    from interlingua.errors import InterlinguaError

    try:
        m = read([{"type": "session_meta", "payload": {"id": "x"}}, *lines_, *junk], "codex")
    except InterlinguaError:
        return
    valid(m.transcript)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant", "x"]), "content": st.one_of(_BLOCK, st.lists(_BLOCK, max_size=3), _JSON)}), max_size=4), _JSON)
def test_mcp_reader_reads_or_refuses_any_request(messages: list[Any], result_content: Any) -> None:
    from interlingua.errors import InterlinguaError

    try:
        m = read([{"method": "sampling/createMessage", "params": {"messages": messages, "maxTokens": 5}}, {"jsonrpc": "2.0", "id": 1, "result": {"role": "assistant", "content": result_content, "stopReason": "endTurn"}}], "mcp-sampling")
    except InterlinguaError:
        return
    valid(m.transcript)


_PART = st.one_of(
    st.fixed_dictionaries({"text": st.one_of(st.none(), st.text(max_size=4))}),
    st.fixed_dictionaries({"function_call": st.fixed_dictionaries({"name": st.sampled_from(["f", ""]), "args": _JSON})}),
    st.fixed_dictionaries({"function_response": st.fixed_dictionaries({"name": st.just("f"), "response": _JSON})}),
    _JSON,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.fixed_dictionaries({"id": st.sampled_from(["e1", "e2", ""]), "author": st.sampled_from(["user", "agent"]), "content": st.one_of(st.none(), st.fixed_dictionaries({"role": st.sampled_from(["user", "model"]), "parts": st.lists(_PART, max_size=3)}), _JSON)}), max_size=5))
def test_adk_reader_reads_or_refuses_any_session(events: list[Any]) -> None:
    from interlingua.errors import InterlinguaError

    try:
        m = read({"id": "s", "app_name": "a", "user_id": "u", "events": events}, "adk")
    except InterlinguaError:
        return
    valid(m.transcript)
