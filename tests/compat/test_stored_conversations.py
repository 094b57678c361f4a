"""Stored conversations (issue 26): the real files under tests/fixtures/stores/ are read with every text,
call, result, image and reasoning block accounted for (counted here from the raw JSON, independently of the
readers), detected as their format, and the writers give them back (read back identically)."""

from __future__ import annotations

import asyncio
import copy
import json
from collections import Counter
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.compat import FormatDetectionError, detect_format, read, read_any, write
from interlingua.errors import MappingError
from interlingua.items import ImageItem, RawItem, ReasoningItem, TextItem, ToolCallItem, ToolResultItem

STORES = Path(__file__).resolve().parents[1] / "fixtures" / "stores"
runner = CliRunner()


def records(path: Path) -> list[Any]:
    """The conversations of a fixture file: one a JSONL line, the entries of a JSON list of records, or the file."""
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    value = json.loads(path.read_text())
    if isinstance(value, list) and value and isinstance(value[0], dict) and {"conversations", "messages", "mapping", "chat_messages"} & value[0].keys():
        return value
    return [value]


def kinds(items: list[Any]) -> Counter[str]:
    names = {TextItem: "text", ToolCallItem: "call", ToolResultItem: "result", ImageItem: "image", ReasoningItem: "reasoning", RawItem: "raw"}
    return Counter(names.get(type(i), type(i).__name__) for i in items)


# ------------------------------------------------------------------ independent counts from the raw JSON


def count_vercel_ui(messages: list[Any]) -> Counter[str]:
    c: Counter[str] = Counter()
    for m in messages:
        for p in m["parts"]:
            t = p["type"]
            if t in ("text", "reasoning"):
                c[t] += 1
            elif t.startswith("tool-") or t == "dynamic-tool":
                c["call"] += 1
                c["result"] += "output" in p or "errorText" in p
            elif t == "file":
                c["image" if p["mediaType"].startswith("image/") else "file"] += 1
    return c


def count_vercel_model(messages: list[Any]) -> Counter[str]:
    c: Counter[str] = Counter()
    for m in messages:
        if isinstance(m["content"], str):
            c["text"] += 1
            continue
        for p in m["content"]:
            c[{"text": "text", "reasoning": "reasoning", "tool-call": "call", "tool-result": "result", "image": "image"}[p["type"]]] += 1
    return c


def count_openai_finetune(record: dict[str, Any]) -> Counter[str]:
    c: Counter[str] = Counter()
    for m in record["messages"]:
        if isinstance(m.get("content"), str) and m["role"] != "tool":
            c["text"] += 1
        c["call"] += len(m.get("tool_calls") or [])
        c["result"] += m["role"] == "tool"
    return c


def count_sharegpt(record: dict[str, Any]) -> Counter[str]:
    c: Counter[str] = Counter()
    c["text"] += "system" in record
    for turn in record["conversations"]:
        f = turn["from"]
        if f == "function_call":
            value = json.loads(turn["value"])
            c["call"] += len(value) if isinstance(value, list) else 1
        elif f == "observation":
            c["result"] += 1
        else:
            c["text"] += 1
    return c


def count_llamafactory(record: dict[str, Any]) -> Counter[str]:
    c: Counter[str] = Counter()
    calls_of_turn = 0  # calls of the latest assistant turn: a tool message's JSON list of as many results answers each
    for m in record["messages"]:
        if m["role"] == "assistant" and any(p["type"] == "tool_call" for p in m["content"]):
            calls_of_turn = sum(len(v) if isinstance(v := json.loads(p["value"]), list) else 1 for p in m["content"] if p["type"] == "tool_call")
        for p in m["content"]:
            if m["role"] == "tool":
                try:
                    value = json.loads(p["value"])
                except ValueError:
                    value = None
                c["result"] += len(value) if isinstance(value, list) and calls_of_turn > 1 and len(value) == calls_of_turn else 1
            else:
                c[{"text": "text", "reasoning": "reasoning", "tool_call": "call", "image_url": "image"}[p["type"]]] += 1
    return c


def count_hf_messages(record: dict[str, Any]) -> Counter[str]:
    c: Counter[str] = Counter()
    for m in record["messages"]:
        pieces = m["content"].split("<image>")
        c["image"] += len(pieces) - 1
        c["text"] += sum(1 for p in pieces if p) or 1
    assert c["image"] == len(record["images"])
    return c


def chatgpt_active_path(conv: dict[str, Any]) -> list[str]:
    path, node = [], conv["current_node"]
    while node is not None:
        path.append(node)
        node = conv["mapping"][node]["parent"]
    return path[::-1]


def count_chatgpt(conv: dict[str, Any], path: list[str]) -> Counter[str]:
    c: Counter[str] = Counter()
    for node in path:
        msg = conv["mapping"][node]["message"]
        if msg is None:
            continue
        content, role = msg["content"], msg["author"]["role"]
        ctype = content["content_type"]
        if role == "tool":
            c["result"] += 1
        elif msg.get("recipient", "all") != "all":
            c["call"] += 1
        elif ctype in ("text", "multimodal_text"):
            for p in content["parts"]:
                c["text" if isinstance(p, str) else "image"] += 1
        elif ctype == "thoughts":
            c["reasoning"] += len(content.get("thoughts") or content.get("parts") or [])
        elif ctype == "reasoning_recap":
            c["reasoning"] += 1
        elif ctype == "user_editable_context":
            c["text"] += ("user_profile" in content) + ("user_instructions" in content)
    return c


def count_claude(conv: dict[str, Any]) -> Counter[str]:
    c: Counter[str] = Counter()
    for m in conv["chat_messages"]:
        c["DocumentItem"] += sum(1 for a in m.get("attachments", []) if "extracted_content" in a)
        blocks = m.get("content") or []
        if not blocks:
            c["text"] += 1
        for b in blocks:
            c[{"text": "text", "thinking": "reasoning", "tool_use": "call", "tool_result": "result"}[b["type"]]] += 1
    return c


def count_langchain_serialized(state: dict[str, Any]) -> Counter[str]:
    c: Counter[str] = Counter()
    for m in state["messages"]:
        cls, kw = m["id"][-1], m["kwargs"]
        if cls.startswith("Tool"):
            c["result"] += 1
            continue
        content = kw["content"]
        texts = [content] if isinstance(content, str) and content else [b for b in content if isinstance(b, dict) and b.get("type") == "text"] if isinstance(content, list) else []
        c["text"] += len(texts)
        c["call"] += len(kw.get("tool_calls") or [])
        c["reasoning"] += isinstance(kw.get("additional_kwargs", {}).get("reasoning"), dict)
    return c


COUNTERS = {
    "vercel-ui": count_vercel_ui,
    "vercel-model": count_vercel_model,
    "openai-finetune": count_openai_finetune,
    "sharegpt": count_sharegpt,
    "llamafactory": count_llamafactory,
    "hf-messages": count_hf_messages,
    "claude-export": count_claude,
}

# the agent-log formats (claude-code, codex, adk, mcp-sampling) have their own counts: tests/compat/test_stored_formats.py
AGENT_LOGS = {"claude-code", "codex", "adk", "mcp-sampling"}
FILES = sorted(p for p in STORES.glob("*/*.json*") if p.parent.name not in AGENT_LOGS)
CASES = [(p, n) for p in FILES for n in range(len(records(p)))]


@pytest.mark.parametrize(("path", "n"), CASES, ids=[f"{p.parent.name}/{p.name}#{n}" for p, n in CASES])
def test_real_file_is_detected_and_every_block_accounted_for(path: Path, n: int) -> None:
    record = records(path)[n]
    before = copy.deepcopy(record)
    fmt = path.parent.name if path.parent.name != "langchain-lc" else "langchain"
    assert detect_format(record) == fmt
    m = read_any(record)
    assert record == before, "the reader mutated its input"
    assert m.format == fmt
    got = kinds(m.transcript.items)
    if fmt == "chatgpt-export":
        expected = count_chatgpt(record, chatgpt_active_path(record))
    elif fmt == "langchain":
        expected = count_langchain_serialized(record)
        expected["text"] += got["text"] - expected["text"] if got["text"] and not expected["text"] else 0  # an empty ai content stays one empty text
    else:
        expected = COUNTERS[fmt](record)
    assert +got == +expected, (got, expected)
    assert "raw" not in got
    # every text of the source is in the transcript, none emptied
    texts = [i.text for i in m.transcript.items if isinstance(i, TextItem)]
    assert all(isinstance(t, str) for t in texts)


WRITABLE = [(p, n) for p, n in CASES if p.parent.name in ("vercel-ui", "vercel-model", "openai-finetune", "sharegpt")]


@pytest.mark.parametrize(("path", "n"), WRITABLE, ids=[f"{p.parent.name}/{p.name}#{n}" for p, n in WRITABLE])
def test_writer_gives_the_real_file_back(path: Path, n: int) -> None:
    fmt = path.parent.name
    record = records(path)[n]
    first = read(record, fmt)
    conv = write(first.transcript, fmt)
    assert conv.report.entries == [], [str(e) for e in conv.report]
    again = read(copy.deepcopy(conv.value), fmt)
    assert again.transcript == first.transcript
    if path.name == "drone_training_1.jsonl":  # the mapper writes arguments compactly: the same JSON, other spacing
        for a, b in zip(conv.value["messages"], record["messages"]):
            for ca, cb in zip(a.get("tool_calls", []), b.get("tool_calls", [])):
                assert json.loads(ca["function"]["arguments"]) == json.loads(cb["function"]["arguments"])
                ca["function"]["arguments"] = cb["function"]["arguments"]
    assert conv.value == record


def test_chatgpt_export_active_branch_is_the_session_and_the_retry_a_fork() -> None:
    conv = records(STORES / "chatgpt-export" / "native-conversation-v1.json")[0]
    m = read_any(conv)
    active = chatgpt_active_path(conv)
    assert [k for k in dict.fromkeys(i.message for i in m.transcript.items)] == [n for n in active if conv["mapping"][n]["message"]]
    assert m.transcript.metadata["chatgpt-export"]["current_node"] == "answer-active"
    # the superseded answer is a fork that shares everything up to the user's message
    (fork,) = m.forks
    assert fork.leaf == "answer-inactive"
    assert [i.text for i in fork.items] == ["Superseded answer."]
    assert m.transcript.items[fork.at].message == "user" and m.transcript.items[fork.at + 1].message != "user"
    # ids, timestamps and authors are kept
    first_user = next(i for i in m.transcript.items if i.message == "user")
    kept = first_user.provider_data["chatgpt-export"]["message"]
    assert kept["id"] == "user-message" and kept["create_time"] == 1784164540.0 and kept["author"]["role"] == "user"
    call = next(i for i in m.transcript.items if isinstance(i, ToolCallItem))
    result = next(i for i in m.transcript.items if isinstance(i, ToolResultItem))
    assert call.name == "browser.search" and call.arguments == {"query": "fixture evidence"} and result.call_id == call.id


def test_claude_export_keeps_attachment_text_and_ids() -> None:
    conv = records(STORES / "claude-export" / "with-attachments.json")[0]
    m = read_any(conv)
    doc = m.transcript.items[0]
    assert doc.filename == "utils.py" and doc.media_type == "text/x-python" and doc.source.text.startswith("def parse_config")
    assert [i.message for i in m.transcript.items[1:]] == [c["uuid"] for c in conv["chat_messages"]]
    assert m.transcript.metadata["claude-export"]["summary"] == conv["summary"]
    assert m.forks == []


def claude_tree() -> dict[str, Any]:
    """The real export with an edit: its last human message retried from the first answer (parent links added
    as newer Claude.ai exports carry them: ``parent_message_uuid``, root ``00000000-0000-4000-8000-000000000000``)."""
    conv = copy.deepcopy(records(STORES / "claude-export" / "with-attachments.json")[0])
    msgs = conv["chat_messages"]
    parent = "00000000-0000-4000-8000-000000000000"
    for m in msgs:
        m["parent_message_uuid"] = parent
        parent = m["uuid"]
    edit = copy.deepcopy(msgs[2])
    edit["uuid"], edit["text"], edit["parent_message_uuid"] = "msg-edit", "And why not os.path?", msgs[1]["uuid"]
    msgs.insert(3, edit)
    conv["current_leaf_message_uuid"] = msgs[-1]["uuid"]
    return conv


def test_claude_export_tree_gives_the_leaf_path_and_each_edit_a_fork() -> None:
    m = read_any(claude_tree())
    assert [i.message for i in m.transcript.items if isinstance(i, TextItem)] == ["msg-05O6P7Q8R9S0T1U2V3W4X5", "msg-06Y7Z8A9B0C1D2E3F4G5H6", "msg-07I8J9K0L1M2N3O4P5Q6R7", "msg-08S9T0U1V2W3X4Y5Z6A7B8"]
    (fork,) = m.forks
    assert fork.leaf == "msg-edit" and [i.text for i in fork.items] == ["And why not os.path?"]
    assert m.transcript.items[fork.at].message == "msg-06Y7Z8A9B0C1D2E3F4G5H6"


def test_migrate_store_writes_abandoned_branches_with_store_fork(tmp_path: Path) -> None:
    from interlingua.store import SessionStore

    src = tmp_path / "conversations.json"
    src.write_text(json.dumps([records(STORES / "chatgpt-export" / "native-conversation-v1.json")[0], claude_tree()]))
    url = f"sqlite+aiosqlite:///{tmp_path / 's.db'}"
    res = runner.invoke(app, ["migrate", str(src), "--store", url, "--quiet"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert "migrated 2 conversations and 2 forks" in res.output  # two conversations and one fork of each, counted apart

    async def check() -> list[Any]:
        store = await SessionStore.open(url)
        try:
            sessions = await store.list_sessions()
            forks = [s for s in sessions if s.parent_id is not None]
            loaded = {s.id: await store.load(s.id) for s in forks}
            return [(s.parent_id, s.fork_seq, s.id, [getattr(i, "text", None) for i in loaded[s.id].items][-1]) for s in forks]
        finally:
            await store.close()

    forks = sorted(asyncio.run(check()), key=lambda f: f[2])
    assert len(forks) == 2
    assert [f[3] for f in forks] == ["Superseded answer.", "And why not os.path?"] or [f[3] for f in forks] == ["And why not os.path?", "Superseded answer."]
    assert all(f[2].startswith(f[0] + "@") for f in forks)
    # re-running adds nothing
    res = runner.invoke(app, ["migrate", str(src), "--store", url, "--quiet"], catch_exceptions=False)
    assert res.exit_code == 0 and "2 already in the store (and 2 forks)" in res.output  # the two sessions and their forks
    assert len(asyncio.run(check())) == 2


def test_migrate_file_writes_each_fork_as_a_session_naming_its_parent(tmp_path: Path) -> None:
    src = STORES / "chatgpt-export" / "native-conversation-v1.json"
    out = tmp_path / "out.jsonl"
    res = runner.invoke(app, ["migrate", str(src), "-o", str(out), "--quiet"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    heads = [json.loads(line)["session"] for line in out.read_text().splitlines() if '"session":' in line[:40]]
    assert len(heads) == 2
    # a fork's header names its parent and fork point, as `store export` writes a fork
    assert heads[1]["parent_id"] == heads[0]["id"] and heads[1]["id"] == heads[0]["id"] + "@answer-inactive"
    assert isinstance(heads[1]["fork_seq"], int)
    assert runner.invoke(app, ["validate", str(out)], catch_exceptions=False).exit_code == 0


@pytest.mark.parametrize("fmt", ["sharegpt", "openai-finetune", "vercel-ui", "vercel-model"])
def test_migrate_to_writes_a_format_line_per_conversation_that_reads_back(tmp_path: Path, fmt: str) -> None:
    src = {"sharegpt": STORES / "sharegpt" / "glaive_toolcall_en_demo_3.json", "openai-finetune": STORES / "openai-finetune" / "weights_example.jsonl",
           "vercel-ui": STORES / "vercel-ui" / "reasoning-and-tool.json", "vercel-model": STORES / "vercel-model" / "reasoning-and-tool.json"}[fmt]
    out = tmp_path / "out.jsonl"
    res = runner.invoke(app, ["migrate", str(src), "--to", fmt, "-o", str(out), "--quiet"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert lines == records(src) if fmt != "vercel-ui" and fmt != "vercel-model" else lines == [json.loads(src.read_text())]


def test_migrate_to_reports_what_the_format_does_not_keep(tmp_path: Path) -> None:
    src = STORES / "llamafactory" / "reason_tool_use_demo_3.jsonl"
    out = tmp_path / "out.jsonl"
    res = runner.invoke(app, ["migrate", str(src), "--to", "sharegpt", "-o", str(out), "--quiet"], catch_exceptions=False)
    # ShareGPT has no reasoning: under the default policy (error) those conversations are refused, named
    assert res.exit_code == 1
    assert "reasoning item has no ShareGPT form" in (tmp_path / "out.rejects.jsonl").read_text()


def test_convert_to_and_from_stored_formats(tmp_path: Path) -> None:
    src = STORES / "vercel-ui" / "reasoning-and-tool.json"
    res = runner.invoke(app, ["convert", "--from", "vercel-ui", "--to", "vercel-model", str(src)], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout) == json.loads((STORES / "vercel-model" / "reasoning-and-tool.json").read_text())
    res = runner.invoke(app, ["convert", "--from", "canonical", "--to", "chatgpt-export", str(src)], catch_exceptions=False)
    assert res.exit_code == 2 and "read, not written" in res.output


# ------------------------------------------------------------------ detection never guesses quietly


def test_llamafactory_typed_content_is_not_read_as_openai_chat_with_every_part_raw() -> None:
    line = records(STORES / "llamafactory" / "v1_multimodal_demo_3.jsonl")[0]
    assert detect_format(line) == "llamafactory"
    assert "raw" not in kinds(read_any(line).transcript.items)


def test_a_guess_that_keeps_most_parts_raw_is_refused_naming_what_was_tried() -> None:
    # typed parts of no known kind: the message-list rules would call it OpenAI Chat, every part raw
    body = {"messages": [{"role": "user", "content": [{"type": "blob", "data": "x"}, {"type": "blob", "data": "y"}]}]}
    with pytest.raises(FormatDetectionError, match="items have no openai-chat form") as exc:
        read_any(body)
    assert "llamafactory" in str(exc.value) and "vercel-ui" in str(exc.value)
    assert read(body, "openai-chat").transcript.items  # named, it is read as asked


def test_a_guess_that_would_empty_a_text_is_refused() -> None:
    # content of a shape no API has: the OpenAI Chat rules would read the user's text as ""
    messages = [{"role": "user", "content": {"kind": "text", "body": "hello there"}}]
    with pytest.raises(FormatDetectionError, match="the text 'hello there' would be lost"):
        read_any(messages)


def test_migrate_exits_1_on_a_refused_guess_saying_what_was_tried(tmp_path: Path) -> None:
    src = tmp_path / "odd.json"
    src.write_text(json.dumps([{"role": "user", "content": {"kind": "text", "body": "hello there"}}]))
    res = runner.invoke(app, ["migrate", str(src), "-o", str(tmp_path / "out.jsonl"), "--quiet"], catch_exceptions=False)
    assert res.exit_code == 1
    (reject,) = [json.loads(line) for line in (tmp_path / "out.rejects.jsonl").read_text().splitlines()]
    assert "would be lost; not guessing" in reject["reason"] and "sharegpt" in reject["reason"]


# ------------------------------------------------------------------ bad input: where and what


@pytest.mark.parametrize(
    ("fmt", "value", "where"),
    [
        ("hf-messages", {"messages": [{"role": "user", "content": "<image><image>hi"}], "images": ["a.jpg"]}, "/messages/0/content: <image> placeholder number 2 but images has 1"),
        ("hf-messages", {"messages": [{"role": "user", "content": "hi"}], "images": ["a.jpg"]}, "/images: 1 images but 0 <image> placeholders"),
        ("sharegpt", {"conversations": [{"from": "robot", "value": "x"}]}, "/conversations/0/from: unknown speaker 'robot'"),
        ("sharegpt", {"conversations": [{"from": "human", "value": "x"}], "tools": "[{"}, "/tools: 'tools' is not JSON"),
        ("sharegpt", {"conversations": [{"from": "function_call", "value": "not json"}]}, "/conversations/0: a function call is JSON"),
        ("llamafactory", {"messages": [{"role": "user", "content": [{"type": "html", "value": "x"}]}]}, "/messages/0/content/0: a part is"),
        ("openai-finetune", {"messages": [{"role": "assistant", "content": "x", "weight": 2}]}, "/messages/0/weight: 0 or 1, got 2"),
        ("vercel-ui", [{"id": "a", "role": "user", "parts": [{"text": "no type"}]}], "/0/parts/0: a part is an object with a string 'type'"),
        ("vercel-ui", [{"id": "a", "role": "robot", "parts": []}], "/0/role"),
        ("vercel-model", [{"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c", "toolName": "t", "output": "bare"}]}], "/0/content/0/output"),
        ("chatgpt-export", {"mapping": {"a": {"id": "a", "parent": "b", "children": [], "message": None}}, "current_node": "a"}, "node 'b' is named but not in the mapping"),
        ("chatgpt-export", {"mapping": {"a": {"id": "a", "parent": None, "children": []}}, "current_node": "zz"}, "/current_node: 'zz' is not a node"),
        ("claude-export", {"chat_messages": [{"uuid": "a", "sender": "human", "text": "x", "parent_message_uuid": "b"}, {"uuid": "b", "sender": "assistant", "text": "y", "parent_message_uuid": "a"}]}, "the parents form a cycle"),
        ("claude-export", {"chat_messages": [{"uuid": "a", "sender": "robot", "text": "x"}]}, "/chat_messages/0/sender"),
    ],
)
def test_bad_input_is_refused_with_where_and_what(fmt: str, value: Any, where: str) -> None:
    with pytest.raises(MappingError) as exc:
        read(value, fmt)
    assert where in str(exc.value)
    assert str(exc.value).startswith(fmt)


def test_migrate_rejects_a_bad_dataset_line_naming_file_and_line(tmp_path: Path) -> None:
    src = tmp_path / "data.jsonl"
    good = (STORES / "openai-finetune" / "weights_example.jsonl").read_text().splitlines()
    src.write_text("\n".join([good[0], '{"messages": [{"role": "assistant", "content": "x", "weight": 5}]}', good[1]]) + "\n")
    out = tmp_path / "out.jsonl"
    res = runner.invoke(app, ["migrate", str(src), "-o", str(out), "--quiet"], catch_exceptions=False)
    assert res.exit_code == 1
    (reject,) = [json.loads(line) for line in (tmp_path / "out.rejects.jsonl").read_text().splitlines()]
    assert reject["line"] == 2 and "/messages/0/weight: 0 or 1, got 5" in reject["reason"]
    assert "migrated 2 conversations" in res.output


def test_a_dataset_streams_one_conversation_per_line(tmp_path: Path) -> None:
    """A JSONL dataset is read a line at a time (each line one conversation), as `validate` reads."""
    line = (STORES / "sharegpt" / "glaive_toolcall_en_demo_3.json").read_text()
    rec = json.loads(line)[0]
    src = tmp_path / "big.jsonl"
    with src.open("w") as fh:
        for i in range(300):
            fh.write(json.dumps({**rec, "id": f"r{i}"}) + "\n")
    out = tmp_path / "out.jsonl"
    res = runner.invoke(app, ["migrate", str(src), "-o", str(out), "--quiet"], catch_exceptions=False)
    assert res.exit_code == 0 and "migrated 300 conversations" in res.output


# ------------------------------------------------------------------ properties


_text = st.text(min_size=1, max_size=20).filter(lambda s: "<image>" not in s and "<video>" not in s and "<audio>" not in s)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["human", "gpt"]), _text), min_size=1, max_size=6), st.one_of(st.none(), _text))
def test_sharegpt_round_trip_property(turns: list[tuple[str, str]], system: str | None) -> None:
    record: dict[str, Any] = {"conversations": [{"from": f, "value": v} for f, v in turns]}
    if system is not None:
        record["system"] = system
    first = read(record, "sharegpt")
    conv = write(first.transcript, "sharegpt")
    assert conv.value == record and not conv.report.entries
    assert read(conv.value, "sharegpt").transcript == first.transcript


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["user", "assistant", "system"]), st.lists(_text, min_size=1, max_size=3), st.booleans()), min_size=1, max_size=5))
def test_vercel_model_round_trip_property(messages: list[tuple[str, list[str], bool]]) -> None:
    value = [{"role": r, "content": ts[0]} if as_string else {"role": r, "content": [{"type": "text", "text": t} for t in ts]} for r, ts, as_string in messages]
    first = read(value, "vercel-model")
    conv = write(first.transcript, "vercel-model")
    assert conv.value == value and not conv.report.entries
    assert read(conv.value, "vercel-model").transcript == first.transcript


def test_foreign_transcript_to_uimessage_reports_nothing_lost_and_ids_given() -> None:
    body = json.loads((STORES / "openai-finetune" / "drone_training_1.jsonl").read_text().splitlines()[0])
    t = read(body, "openai-finetune").transcript
    conv = write(msgspec.structs.replace(t, tools=msgspec.UNSET, tool_choice=msgspec.UNSET), "vercel-ui")
    assert all(isinstance(m["id"], str) and m["id"] for m in conv.value)
    assert conv.value[-1]["parts"][0]["type"] == "tool-takeoff_drone"
    dropped = [str(e) for e in write(t, "vercel-ui").report]
    assert any("tools" in e for e in dropped)


_json = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(["", "x", "<image>", "user", "assistant", "human", "gpt", "tool", "text", "function_call", "observation", "call-1", "00000000-0000-4000-8000-000000000000"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["role", "content", "parts", "type", "text", "value", "from", "messages", "conversations", "images", "mapping", "current_node",
                         "parent", "children", "message", "author", "chat_messages", "uuid", "sender", "parent_message_uuid", "toolCallId", "input", "output",
                         "state", "weight", "tools", "id", "kwargs", "lc", "data", "mediaType", "url", "toolName", "content_type", "recipient"]),
        inner, max_size=5,
    ),
    max_leaves=25,
)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["vercel-ui", "vercel-model", "openai-finetune", "sharegpt", "llamafactory", "hf-messages", "chatgpt-export", "claude-export", "langchain"]), _json)
def test_any_json_is_read_or_refused_with_a_mapping_error(fmt: str, value: Any) -> None:
    from interlingua.errors import InterlinguaError

    try:
        m = read(value, fmt)
    except InterlinguaError:
        return
    assert isinstance(m.transcript.items, list)


def test_a_large_conversations_json_is_read_an_element_at_a_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same sessions as the whole-file reading, with the streaming threshold lowered to every file."""
    from interlingua._migrate import stores as _migrate_stores

    src = tmp_path / "conversations.json"
    convs = [records(STORES / "chatgpt-export" / "native-conversation-v1.json")[0], claude_tree(), *records(STORES / "sharegpt" / "glaive_toolcall_en_demo_3.json")]
    src.write_text(json.dumps(convs, indent=1))
    whole, streamed = tmp_path / "whole.jsonl", tmp_path / "streamed.jsonl"
    assert runner.invoke(app, ["migrate", str(src), "-o", str(whole), "--quiet"], catch_exceptions=False).exit_code == 0
    monkeypatch.setattr(_migrate_stores, "STREAM_JSON_ARRAYS_FROM", 0)
    res = runner.invoke(app, ["migrate", str(src), "-o", str(streamed), "--quiet"], catch_exceptions=False)
    # each conversation is a session, and each abandoned branch (one in the ChatGPT and one in the Claude tree) a fork
    assert res.exit_code == 0 and f"migrated {len(convs)} conversations and 2 forks" in res.output
    assert streamed.read_bytes() == whole.read_bytes()


def test_a_cut_conversations_json_rejects_what_it_cannot_read_naming_the_byte(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from interlingua._migrate import stores as _migrate_stores

    monkeypatch.setattr(_migrate_stores, "STREAM_JSON_ARRAYS_FROM", 0)
    text = json.dumps(records(STORES / "sharegpt" / "glaive_toolcall_en_demo_3.json"))
    src = tmp_path / "cut.json"
    src.write_text(text[: len(text) - 40])
    res = runner.invoke(app, ["migrate", str(src), "-o", str(tmp_path / "out.jsonl"), "--quiet"], catch_exceptions=False)
    assert res.exit_code == 1
    assert "migrated 2 conversations" in res.output
    (reject,) = [json.loads(line) for line in (tmp_path / "out.rejects.jsonl").read_text().splitlines()]
    assert "at byte" in reject["reason"] and "ends inside" in reject["reason"]


@settings(max_examples=150, deadline=None)
@given(st.lists(_json, max_size=6), st.integers(1, 64), st.sampled_from([None, 1]))
def test_json_array_scanner_gives_each_element_and_its_offset(values: list[Any], chunk: int, indent: int | None) -> None:
    import io

    from interlingua._migrate.stores import iter_json_array

    data = json.dumps(values, indent=indent).encode()
    got = list(iter_json_array(io.BytesIO(data), chunk))
    assert [json.loads(raw) for _, raw in got] == values
    assert [data[offset : offset + len(raw)] for offset, raw in got] == [raw for _, raw in got]


@pytest.mark.parametrize(("args", "message"), [
    (["--to", "chatgpt-export", "-o", "OUT"], "no writer for format 'chatgpt-export'"),
    (["--to", "sharegpt", "--store", "sqlite+aiosqlite:///x.db"], "--to writes a file"),
])
def test_migrate_to_usage_errors_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    src = STORES / "sharegpt" / "glaive_toolcall_en_demo_3.json"
    args = [a.replace("OUT", str(tmp_path / "out.jsonl")) for a in args]
    res = runner.invoke(app, ["migrate", str(src), *args, "--quiet"], catch_exceptions=False)
    assert res.exit_code == 2 and message in res.output
    assert not (tmp_path / "out.jsonl").exists()


@pytest.mark.parametrize("value", [
    {"messages": [{"role": "user", "content": [{"type": ["x"], "value": "v"}]}]},
    [{"lc": 1, "type": "constructor", "id": [["x"]], "kwargs": {}}],
    {"messages": [{"role": "user", "parts": [{"type": ["a"]}]}]},
    {"conversations": [{"from": ["h"], "value": "x"}]},
    {"mapping": {"a": []}, "current_node": ["a"]},
    {"chat_messages": [{"uuid": ["u"], "sender": "human", "text": "x", "parent_message_uuid": ["p"]}], "current_leaf_message_uuid": {"a": 1}},
], ids=repr)
def test_a_list_where_a_name_belongs_is_refused_not_a_traceback(value: Any) -> None:
    from interlingua.errors import InterlinguaError

    try:
        read_any(value)
    except InterlinguaError:
        pass


def test_llamafactory_parallel_results_go_to_their_own_turns_calls() -> None:
    """LLaMA-Factory writes the results of one turn's parallel calls as one tool message holding a
    JSON list; each went to the first pending call, and turn 2's results to turn 1's leftover call
    (found by a new user; real case: ``reason_tool_use_demo_3.jsonl`` line 3)."""
    from interlingua.items import ToolCallItem, ToolResultItem

    rec = [json.loads(line) for line in (STORES / "llamafactory" / "reason_tool_use_demo_3.jsonl").read_text().splitlines() if line.strip()][2]
    items = read(rec, "llamafactory").transcript.items
    calls = {i.id: i for i in items if isinstance(i, ToolCallItem)}
    results = [i for i in items if isinstance(i, ToolResultItem)]
    assert len(results) == len(calls) == 5
    for r in results:
        answer = json.loads(r.content[0].text)
        call = calls[r.call_id]
        assert json.loads(json.dumps(call.arguments))["radius"] == answer["arguments"]["radius"] if "arguments" in answer else True
    # each result follows the calls of its own turn
    order = [(type(i).__name__, getattr(i, "id", None) or getattr(i, "call_id", None)) for i in items if isinstance(i, (ToolCallItem, ToolResultItem))]
    assert order == [
        ("ToolCallItem", "call_m2_1"), ("ToolCallItem", "call_m2_2"), ("ToolResultItem", "call_m2_1"), ("ToolResultItem", "call_m2_2"),
        ("ToolCallItem", "call_m6_1"), ("ToolCallItem", "call_m6_2"), ("ToolCallItem", "call_m6_3"),
        ("ToolResultItem", "call_m6_1"), ("ToolResultItem", "call_m6_2"), ("ToolResultItem", "call_m6_3"),
    ]
