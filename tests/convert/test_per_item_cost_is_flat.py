"""The work of every writer, mapper and reader grows linearly with the conversation: four times the
items is four times the work, never sixteen.

Issue 32: ``convert --to langchain`` of a 1,000,000-item transcript took 941 s where the other writers
took 30-250 s: for every message the LangChain writer searched every written piece for the message's
own, and for every piece searched them again for the message's first (quadratic in a window's items,
2,000 items a window). The work is counted as Python line events (``sys.settrace``: a loop's every
iteration is one, in comprehensions too), which the machine's load does not change; never time.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import pytest

from interlingua.compat import WRITERS, read, write
from interlingua.conversion import convert_request
from interlingua.items import ReasoningItem, TextItem, ToolCallItem, ToolDefinition, ToolResultItem, Transcript
from interlingua.mapping.registry import available
from interlingua.otel import to_otel

LINEAR = 4.6
"""Line events of 4x the turns over those of 1x: 4 (plus the per-call work, which makes it a little less) when
the work per item is flat; the quadratic LangChain writer gave 10.1 on these sizes."""


def _chat(turns: int) -> Transcript:
    """A system prompt, then per turn: a user text, reasoning, an assistant text, a tool call, its result and an answer."""
    items: list[Any] = [TextItem(role="system", text="Be brief.")]
    for k in range(turns):
        items += [
            TextItem(role="user", text=f"question {k}", id=f"u{k}"),
            ReasoningItem(text=f"thinking {k}"),
            TextItem(role="assistant", text=f"answer {k}", id=f"a{k}"),
            ToolCallItem(id=f"call_{k}", name="lookup", arguments={"q": k}),
            ToolResultItem(call_id=f"call_{k}", content=[TextItem(text=f"result {k}")]),
            TextItem(role="assistant", text=f"done {k}"),
        ]
    return Transcript(schema_version="1.0", items=items, tools=[ToolDefinition(name="lookup", parameters={"type": "object"})])


def _lines(work: Callable[[], Any]) -> int:
    """Python line events while ``work`` runs (every function it calls traced)."""
    count = 0

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        nonlocal count
        if event == "line":
            count += 1
        return tracer

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        work()
    finally:
        sys.settrace(previous)
    return count


def _growth(work: Callable[[int], Any]) -> tuple[int, int]:
    work(3)  # imports and caches first
    return _lines(lambda: work(40)), _lines(lambda: work(160))


@pytest.mark.parametrize("fmt", WRITERS)
def test_a_writers_work_per_item_is_flat(fmt: str) -> None:
    small, large = _growth(lambda n: write(_chat(n), fmt, policy="degrade"))
    assert large < LINEAR * small, f"{fmt}: {small:,} line events for 40 turns, {large:,} for 160"


@pytest.mark.parametrize("fmt", WRITERS)
def test_a_stored_format_readers_work_per_item_is_flat(fmt: str) -> None:
    written = {n: write(_chat(n), fmt, policy="degrade").value for n in (3, 40, 160)}
    small, large = _growth(lambda n: read(written[n], fmt))
    assert large < LINEAR * small, f"{fmt}: {small:,} line events for 40 turns, {large:,} for 160"


@pytest.mark.parametrize("target", [*available(), "otel"])
def test_a_request_mappers_work_per_item_is_flat_both_ways(target: str) -> None:
    if target == "otel":
        small, large = _growth(lambda n: to_otel(_chat(n), policy="degrade"))
        assert large < LINEAR * small, f"otel: {small:,} line events for 40 turns, {large:,} for 160"
        return
    small, large = _growth(lambda n: convert_request(_chat(n), source="canonical", target=target, policy="degrade"))
    assert large < LINEAR * small, f"canonical -> {target}: {small:,} line events for 40 turns, {large:,} for 160"
    bodies = {n: convert_request(_chat(n), source="canonical", target=target, policy="degrade").value for n in (3, 40, 160)}
    small, large = _growth(lambda n: convert_request(bodies[n], source=target, target="canonical", policy="degrade"))
    assert large < LINEAR * small, f"{target} -> canonical: {small:,} line events for 40 turns, {large:,} for 160"
