"""Parallel tool calls reach every turn-based target as one assistant turn, answered next (issue 13.1).

Conversations are drawn as turns (user text, then an assistant turn of reasoning, text, N parallel
calls and text again, then the N results), written in every source format (and with one ``message``
key per item, the flat OpenAI Responses shape, or none), read back, and sent to OpenAI Chat, Gemini,
Anthropic and Ollama. The checks read the target's raw JSON, not the mappers' items:

* every call of one assistant turn is in one message (Chat/Ollama ``tool_calls``, Gemini model
  ``functionCall`` parts, Anthropic ``tool_use`` blocks);
* the results come right after it, one per call, in call order, before anything else (Chat/Ollama:
  the next N messages are tool messages; Gemini: the next content is a user turn opening with the N
  ``functionResponse`` parts; Anthropic: the next message is a user message opening with the N
  ``tool_result`` blocks: a split ``assistant[tool_use A]``, ``assistant[tool_use B]`` is refused,
  issue 25);
* the body passes the provider's own SDK types (``tests/sdk_oracle``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interlingua.codec import SCHEMA_VERSION
from interlingua.items import ReasoningItem, TextItem, ToolCallItem, ToolResultItem, Transcript
from interlingua.mapping import get_mapper

from .oracle import check_request

SOURCES = ("openai-chat", "openai-responses", "anthropic", "gemini", "ollama")
TARGETS = ("openai-chat", "gemini", "anthropic", "ollama")
MODEL = {"openai-chat": "gpt-4o", "gemini": "gemini-2.5-flash", "anthropic": "claude-sonnet-4-5", "ollama": "llama3.2"}

# (user text?, reasoning?, text before the calls?, number of calls, text after the calls?)
turn = st.tuples(st.booleans(), st.booleans(), st.booleans(), st.integers(0, 3), st.booleans())


def build(turns: list[tuple[bool, bool, bool, int, bool]], keys: str) -> tuple[Transcript, list[list[str]]]:
    """The conversation, and the call ids of each assistant turn that makes calls."""
    items: list[Any] = []
    groups: list[list[str]] = []
    n = 0
    for t, (user, reasoning, before, calls, after) in enumerate(turns):
        if user or t == 0:
            items.append(TextItem(text=f"question {t}", role="user"))
        if reasoning:
            items.append(ReasoningItem(text=f"thinking {t}"))
        if before:
            items.append(TextItem(text=f"let me look {t}", role="assistant"))
        ids = [f"call_{n + k}" for k in range(calls)]
        n += calls
        items.extend(ToolCallItem(id=cid, name=f"tool_{cid}", arguments={"k": cid}) for cid in ids)
        if after or not (reasoning or before or calls):
            items.append(TextItem(text=f"done {t}", role="assistant"))
        items.extend(ToolResultItem(call_id=cid, name=f"tool_{cid}", content=[TextItem(text=f"result {cid}")]) for cid in ids)
        if ids:
            groups.append(ids)
    if keys == "flat":
        items = [msgspec.structs.replace(it, message=f"k{i}") for i, it in enumerate(items)]
    return Transcript(schema_version=SCHEMA_VERSION, items=items), groups


def through(source: str, t: Transcript) -> Transcript:
    """``t`` written as a ``source`` request and read back (the source's message keys)."""
    body = get_mapper(source).encode_request(t, model=MODEL.get(source, "gpt-5"), policy="drop").value
    return get_mapper(source).decode_request(body).value


def turns_of(target: str, body: dict[str, Any]) -> list[tuple[str, list[str], list[str]]]:
    """Target JSON -> ``(role, call ids, result ids opening the turn)`` per turn, read from the raw body."""
    out: list[tuple[str, list[str], list[str]]] = []
    if target in ("openai-chat", "ollama"):
        for m in body["messages"]:
            if m["role"] == "tool":
                rid = m.get("tool_call_id") or m["tool_name"].removeprefix("tool_")
                if out and out[-1][0] == "tool":
                    out[-1][2].append(rid)
                else:
                    out.append(("tool", [], [rid]))
            else:
                out.append((m["role"], [c.get("id") or c["function"]["name"].removeprefix("tool_") for c in m.get("tool_calls") or []], []))
    elif target == "gemini":
        for c in body["contents"]:
            calls = [p["functionCall"].get("id") or p["functionCall"]["name"].removeprefix("tool_") for p in c["parts"] if "functionCall" in p]
            lead: list[str] = []
            for p in c["parts"]:
                if "functionResponse" not in p:
                    break
                lead.append(p["functionResponse"].get("id") or p["functionResponse"]["name"].removeprefix("tool_"))
            out.append((c["role"], calls, lead))
    else:  # anthropic: each message is a turn ("Each tool_use block must have a corresponding tool_result block in the next message")
        for m in body["messages"]:
            calls = [b["id"] for b in m["content"] if b["type"] == "tool_use"]
            lead = []
            for b in m["content"]:
                if b["type"] != "tool_result":
                    break
                lead.append(b["tool_use_id"])
            out.append((m["role"], calls, lead))
    return out


def assert_grouped(target: str, body: dict[str, Any], groups: list[list[str]]) -> None:
    turns = turns_of(target, body)
    made = [(n, calls) for n, (_, calls, _) in enumerate(turns) if calls]
    assert [calls for _, calls in made] == groups, f"{target}: calls of one turn split or lost: {turns}"
    for n, calls in made:
        assert n + 1 < len(turns), f"{target}: calls {calls} unanswered"
        role, _, lead = turns[n + 1]
        if target in ("openai-chat", "ollama"):
            assert role == "tool" and lead == calls, f"{target}: results of {calls} not right after in call order: {turns}"
        else:
            assert role == "user" and lead == calls, f"{target}: results of {calls} do not open the next turn in call order: {turns}"
    if target == "openai-chat":  # every tool message answers the assistant message right before its run
        for n, (role, _, lead) in enumerate(turns):
            if role == "tool":
                assert n > 0 and turns[n - 1][1] == lead


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(turns=st.lists(turn, min_size=1, max_size=4), source=st.sampled_from((*SOURCES, "flat", "none")))
def test_parallel_calls_are_one_turn_answered_next_in_call_order(turns, source):
    t, groups = build(turns, "flat" if source == "flat" else "none")
    if source in SOURCES:
        t = through(source, t)
    for target in TARGETS:
        body = get_mapper(target).encode_request(t, model=MODEL[target], policy="drop").value
        assert_grouped(target, body, groups)
        assert check_request(target, body) == [], (target, json.dumps(body)[:2000])


# ---------------------------------------------------------------------------------------------- real


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "real"


def _responses_with_parallel_calls() -> list[Path]:
    found = []
    for path in sorted(FIXTURES.rglob("*.json")):
        try:
            body = json.loads(path.read_text())
        except (ValueError, UnicodeDecodeError):
            continue
        inputs = body.get("input") if isinstance(body, dict) else None
        if not isinstance(inputs, list):
            continue
        kinds = [i.get("type") for i in inputs if isinstance(i, dict)]
        if any(a == b == "function_call" for a, b in zip(kinds, kinds[1:])):
            found.append(path)
    return found


REAL = _responses_with_parallel_calls()


def test_real_fixtures_hold_parallel_responses_calls():
    assert REAL, "tests/fixtures/real/ should hold a Responses request with consecutive function_call items"


@pytest.mark.parametrize("path", REAL, ids=[p.name for p in REAL])
@pytest.mark.parametrize("target", TARGETS)
def test_real_responses_parallel_calls_reach_target_as_one_turn(path, target):
    body = json.loads(path.read_text())
    t = get_mapper("openai-responses").decode_request(body).value
    out = get_mapper(target).encode_request(t, model=MODEL[target], policy="drop").value
    calls = [i for i in t.items if isinstance(i, ToolCallItem)]
    results = {i.call_id for i in t.items if isinstance(i, ToolResultItem)}
    groups: list[list[str]] = []
    for n, item in enumerate(t.items):
        if isinstance(item, ToolCallItem):
            prev = t.items[n - 1] if n else None
            if groups and isinstance(prev, (ToolCallItem,)):
                groups[-1].append(item.id)
            else:
                groups.append([item.id])
    groups = [g for g in groups if all(c in results for c in g)]
    assert calls and groups
    made = [calls for _, calls, _ in turns_of(target, out) if calls]
    for g in groups:
        assert g in made, f"{target}: the parallel calls {g} are not one turn: {made}"
    assert_grouped(target, out, [m for m in made if all(c in results for c in m)])
    assert check_request(target, out) == []


# ---------------------------------------------------------------------------------------------- same provider


def test_gemini_own_turn_per_call_comes_back_as_sent():
    # A recorded Gemini 3 request (PAI cassette test_tool_search ... google-gemini-3-flash-preview-openai-responses)
    # sends one model turn per call, then one user turn with both responses: accepted, so kept.
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "refund?"}]},
            {"role": "model", "parts": [{"functionCall": {"id": "a1", "name": "lookup", "args": {}}, "thoughtSignature": "c2lnMQ=="}]},
            {"role": "model", "parts": [{"functionCall": {"id": "b2", "name": "search", "args": {"q": 1}}, "thoughtSignature": "c2lnMg=="}]},
            {"role": "user", "parts": [{"functionResponse": {"id": "a1", "name": "lookup", "response": {"output": "x"}}},
                                       {"functionResponse": {"id": "b2", "name": "search", "response": {"output": "y"}}}]},
        ]
    }
    m = get_mapper("gemini")
    conv = m.encode_request(m.decode_request(body).value, model=None)
    assert conv.value["contents"] == body["contents"]
    assert not [e for e in conv.report if e.action == "changed"]


def test_chat_calls_split_over_two_assistant_messages_are_joined_and_reported():
    # OpenAI refuses an assistant message with tool_calls that its tool messages do not follow.
    body = {
        "model": "gpt-4o",
        "messages": [
            {"role": "user", "content": "q"},
            {"role": "assistant", "tool_calls": [{"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
            {"role": "assistant", "tool_calls": [{"id": "b", "type": "function", "function": {"name": "g", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "a", "content": "1"},
            {"role": "tool", "tool_call_id": "b", "content": "2"},
        ],
    }
    m = get_mapper("openai-chat")
    conv = m.encode_request(m.decode_request(body).value, model="gpt-4o")
    msgs = conv.value["messages"]
    assert [m["role"] for m in msgs] == ["user", "assistant", "tool", "tool"]
    assert [c["id"] for c in msgs[1]["tool_calls"]] == ["a", "b"]
    assert [(e.action, e.index, e.item_type) for e in conv.report if "joined" in e.reason] == [("changed", 2, "tool_call")]
    assert check_request("openai-chat", conv.value) == []


def test_results_in_another_order_than_their_calls_keep_it_when_right_after():
    # Every target matches results to calls by id or name: a valid order the source chose is kept.
    t = Transcript(schema_version=SCHEMA_VERSION, items=[
        TextItem(text="q", role="user"),
        ToolCallItem(id="call_a", name="tool_call_a", arguments={}), ToolCallItem(id="call_b", name="tool_call_b", arguments={}),
        ToolResultItem(call_id="call_b", content=[TextItem(text="2")]), ToolResultItem(call_id="call_a", content=[TextItem(text="1")]),
    ])
    for target in TARGETS:
        body = get_mapper(target).encode_request(t, model=MODEL[target], policy="drop").value
        turns = turns_of(target, body)
        assert [c for _, c, _ in turns if c] == [["call_a", "call_b"]]
        assert turns[2][2] == ["call_b", "call_a"], target
