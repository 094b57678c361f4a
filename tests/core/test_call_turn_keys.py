"""``mapping.turns.call_turn_keys``: the calls of one assistant turn share one message key (issue 25).

Drawn transcripts of user text, assistant text, reasoning, tool calls and tool results, each item
with its own key, the flat keys of OpenAI Responses, or none; the property: after the keys are
applied, in every run of assistant-side items, every item from the first call on is grouped with
that call; items before it and items outside assistant runs keep their key.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from interlingua.items import ReasoningItem, TextItem, ToolCallItem, ToolResultItem
from interlingua.mapping.turns import call_turn_keys

KINDS = st.sampled_from(["user", "assistant", "reasoning", "call", "result"])


def make(kind: str, n: int, key: Any) -> Any:
    fields = {"message": key} if key is not None else {}
    if kind == "user":
        return TextItem(text=f"u{n}", role="user", **fields)
    if kind == "assistant":
        return TextItem(text=f"a{n}", role="assistant", **fields)
    if kind == "reasoning":
        return ReasoningItem(text=f"r{n}", **fields)
    if kind == "call":
        return ToolCallItem(id=f"c{n}", name="f", arguments={}, **fields)
    return ToolResultItem(call_id=f"c{n}", content=[], **fields)


@st.composite
def transcripts(draw: Any) -> list[Any]:
    kinds = draw(st.lists(KINDS, max_size=12))
    keying = draw(st.sampled_from(["each", "none", "mixed"]))
    items = []
    for n, kind in enumerate(kinds):
        key = f"m{n}" if keying == "each" or (keying == "mixed" and draw(st.booleans())) else None
        items.append(make(kind, n, key))
    return items


def grouped(items: list[Any], keys: dict[int, Any]) -> list[int]:
    """The message each item lands in when a mapper groups by role and key (Anthropic's ``append``).

    A change of side (assistant-side items against user texts and results) opens a message; an item
    without a key joins the message before it; a keyed item joins a message that has no key yet or
    has its key, and opens a new one otherwise.
    """
    out: list[int] = []
    group, current_key, current_side = -1, None, None
    for i, item in enumerate(items):
        key = keys.get(i, getattr(item, "message", None))
        key = key if isinstance(key, str) else None
        side = assistant_side(item)
        if group < 0 or side != current_side:
            group, current_key, current_side = group + 1, key, side
        elif key is not None and current_key is not None and key != current_key:
            group, current_key = group + 1, key
        elif key is not None:
            current_key = key
        out.append(group)
    return out


def assistant_side(item: Any) -> bool:
    return isinstance(item, (ToolCallItem, ReasoningItem)) or (isinstance(item, TextItem) and item.role == "assistant")


@settings(max_examples=400)
@given(transcripts())
def test_calls_of_one_turn_share_the_message_of_the_first_call(items: list[Any]) -> None:
    turns = call_turn_keys(items)
    groups = grouped(items, turns.keys)
    i = 0
    while i < len(items):
        if not assistant_side(items[i]):
            assert i not in turns.keys
            i += 1
            continue
        start = i
        while i < len(items) and assistant_side(items[i]):
            i += 1
        first = next((j for j in range(start, i) if isinstance(items[j], ToolCallItem)), None)
        for j in range(start, i):
            if first is None or j <= first:
                assert j not in turns.keys  # before the calls: untouched
            else:
                assert groups[j] == groups[first], (j, first, items)
    # each listed key is another message's; each join is reported once, at its first moved item
    assert all(items[j].message != k for j, k in turns.keys.items())
    assert [j for j, _, _ in turns.joins] == sorted(j for j, _, _ in turns.joins)
    assert {old for _, old, _ in turns.joins} == {items[j].message for j in turns.keys}


def test_the_real_responses_shape() -> None:
    items = [
        TextItem(text="q", role="user", message="m0"),
        TextItem(text="", role="assistant", message="m1"),
        ToolCallItem(id="a", name="f", arguments={}, message="m2"),
        ToolCallItem(id="b", name="f", arguments={}, message="m3"),
        ToolResultItem(call_id="a", content=[], message="m4"),
        ToolResultItem(call_id="b", content=[], message="m5"),
    ]
    turns = call_turn_keys(items)
    assert turns.keys == {3: "m2"} and turns.joins == [(3, "m3", "m2")]
    assert not call_turn_keys(items[:3] + items[4:5])  # one call: nothing to join


def test_an_unkeyed_first_call_takes_the_key_of_the_first_keyed_item_after_it() -> None:
    # the case the property found: the turn's first call has no key, the calls after it each have
    # their own; Anthropic wrote the second and third calls as two assistant messages
    from interlingua.items import Transcript
    from interlingua.mapping import get_mapper

    items = [
        TextItem(text="q", role="user", message="m0"),
        ToolCallItem(id="a", name="f", arguments={}),
        ToolCallItem(id="b", name="f", arguments={}, message="m3"),
        ToolCallItem(id="c", name="f", arguments={}, message="m4"),
        ToolResultItem(call_id="a", content=[TextItem(text="1")], message="m5"),
        ToolResultItem(call_id="b", content=[TextItem(text="2")], message="m5"),
        ToolResultItem(call_id="c", content=[TextItem(text="3")], message="m5"),
    ]
    turns = call_turn_keys(items)
    assert turns.keys == {3: "m3"}
    from interlingua import SCHEMA_VERSION

    body = get_mapper("anthropic").encode_request(Transcript(schema_version=SCHEMA_VERSION, items=items), model="claude-sonnet-4-5", policy="drop").value
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assert [b["id"] for b in body["messages"][1]["content"]] == ["a", "b", "c"]
