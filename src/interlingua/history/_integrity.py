"""History integrity rules: what makes a canonical history unsendable, found in one place.

Every provider refuses a request history whose tool calls and results do not pair up (Anthropic:
"tool_use ids were found without tool_result blocks immediately after"; OpenAI Chat: "An assistant
message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'";
OpenAI Responses: "No tool call found for function call output"; a reasoning item "provided
without its required following item"). The rules here are provider-neutral: they look only at the
canonical items, in order.

A history is read as turns. An *assistant segment* is a run of assistant-side items (``tool_call``,
``handoff_call``, ``reasoning``, ``structured``, ``refusal``, assistant content, assistant ``raw``);
the results that follow it answer its calls. ``error`` items, role-less ``raw`` items and preserved
unknown items interrupt nothing. The rules (:data:`RULES`):

* ``dangling_call``: a ``tool_call``/``handoff_call`` whose segment is closed (a user, system or
  developer item follows, or a new assistant segment starts after its results) without its result.
  A call still awaiting its result at the very end is *pending*: normal in a stored session in
  progress (``open_end=True``), a dangling call in a request (``open_end=False``).
* ``orphan_result``: a result whose call is not earlier in the history.
* ``duplicate_call_id``: a second call with an id an earlier call already used.
* ``duplicate_result``: a second result for one call.
* ``result_out_of_turn``: a result whose call's segment was already closed (its call is also a
  ``dangling_call``).
* ``empty_text``: a top-level ``text`` item holding no visible text (empty or whitespace only).
* ``separated_reasoning``: a ``reasoning`` item not followed by an assistant item of its turn
  (a result, a user item or, in a request, the end follows): the item it belongs to is gone.

:func:`check_history` lists the findings; :func:`repair_items` rewrites the items under a policy
until none is left: ``drop`` leaves out what breaks the rules; ``degrade`` does the same except that
a dangling call gets a stub result saying no result was recorded (or its out-of-turn result moved
back into its turn), and a reused call id is renamed on the call and its result. Both report every
change; the input is never mutated. ``error`` raises :class:`~interlingua.errors.IntegrityError`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

import msgspec

from ..errors import IntegrityError
from ..items import (
    ArtifactRefItem,
    AudioItem,
    DocumentItem,
    HandoffCallItem,
    HandoffResultItem,
    ImageItem,
    RawItem,
    ReasoningItem,
    RefusalItem,
    StructuredItem,
    TextItem,
    ToolCallItem,
    ToolResultItem,
    VideoItem,
)
from ..mapping.report import Policy, Report

__all__ = ["NO_RESULT_TEXT", "RULES", "Finding", "Rule", "check_history", "repair_items"]

Rule: TypeAlias = Literal[
    "dangling_call", "orphan_result", "duplicate_call_id", "duplicate_result", "result_out_of_turn", "empty_text", "separated_reasoning"
]
RULES: tuple[Rule, ...] = (
    "dangling_call",
    "orphan_result",
    "duplicate_call_id",
    "duplicate_result",
    "result_out_of_turn",
    "empty_text",
    "separated_reasoning",
)

NO_RESULT_TEXT = "[no result was recorded for this call]"
"""The text of the stub result ``degrade`` adds for a dangling call."""

_CONTENT = (TextItem, ImageItem, AudioItem, VideoItem, DocumentItem, ArtifactRefItem)
_CALLS = (ToolCallItem, HandoffCallItem)
_RESULTS = (ToolResultItem, HandoffResultItem)
_ASSISTANT_ONLY = (ToolCallItem, HandoffCallItem, ReasoningItem, StructuredItem, RefusalItem)

_ASSISTANT, _USER, _RESULT, _NEUTRAL = 0, 1, 2, 3


@dataclass(frozen=True)
class Finding:
    """One break of the integrity rules.

    Attributes:
        rule: Which rule (:data:`RULES`).
        index: Index of the offending item in the items checked.
        message: One line saying what is wrong.
        call_id: The call id concerned, for the call and result rules.
        related: Index of the other item involved (the earlier call of a duplicate, the call of an
            out-of-turn result, the item that closed a dangling call's turn), when there is one.
    """

    rule: Rule
    index: int
    message: str
    call_id: str | None = None
    related: int | None = None

    @property
    def pointer(self) -> str:
        """JSON pointer of the item in a transcript document."""
        return f"/items/{self.index}"

    def __str__(self) -> str:
        return f"{self.pointer}: {self.message} [{self.rule}]"


def _side(item: Any) -> int:
    if isinstance(item, _ASSISTANT_ONLY):
        return _ASSISTANT
    if isinstance(item, _RESULTS):
        return _RESULT
    if isinstance(item, (*_CONTENT, RawItem)):
        role = getattr(item, "role", msgspec.UNSET)
        if role is msgspec.UNSET or role is None:
            return _NEUTRAL
        return _ASSISTANT if role == "assistant" else _USER
    return _NEUTRAL


def _kind(item: Any) -> str:
    return "handoff" if isinstance(item, (HandoffCallItem, HandoffResultItem)) else "tool"


@dataclass
class _Scan:
    findings: list[Finding]
    result_of: dict[int, int]
    """call index -> index of the result that answered it in turn."""
    close_at: dict[int, int]
    """dangling call index -> the index before which its result belonged (the closer, or len(items))."""
    late_result: dict[int, int]
    """dangling call index -> index of its out-of-turn result, when one came later."""


def _scan(items: Sequence[Any], open_end: bool) -> _Scan:
    findings: list[Finding] = []
    result_of: dict[int, int] = {}
    close_at: dict[int, int] = {}
    late_result: dict[int, int] = {}
    open_calls: dict[tuple[str, str], list[int]] = {}
    calls_seen: dict[tuple[str, str], int] = {}
    answered: set[tuple[str, str]] = set()
    closed: dict[tuple[str, str], int] = {}
    answered_phase = False
    reasoning: int | None = None

    def close(at: int) -> None:
        nonlocal answered_phase
        for key, idxs in open_calls.items():
            for ci in idxs:
                what = "handoff_call" if key[0] == "handoff" else "tool_call"
                where = "the end of the history" if at >= len(items) else f"item {at}"
                findings.append(Finding("dangling_call", ci, f"{what} {key[1]!r} has no result before {where}", key[1], at if at < len(items) else None))
                close_at[ci] = at
                closed[key] = ci
        open_calls.clear()
        answered_phase = False

    for i, item in enumerate(items):
        side = _side(item)
        if side == _NEUTRAL:
            continue
        if reasoning is not None and side != _ASSISTANT:
            findings.append(Finding("separated_reasoning", reasoning, f"reasoning is not followed by the assistant output it belongs to (item {i} follows)", related=i))
        reasoning = None
        if isinstance(item, TextItem) and not item.text.strip():
            findings.append(Finding("empty_text", i, "text item holds no visible text"))
        if side == _ASSISTANT:
            if answered_phase:
                close(i)
            if isinstance(item, ReasoningItem):
                reasoning = i
            elif isinstance(item, _CALLS):
                key = (_kind(item), item.id)
                first = calls_seen.get(key)
                if first is not None:
                    findings.append(Finding("duplicate_call_id", i, f"call id {item.id!r} was already used by item {first}", item.id, first))
                else:
                    calls_seen[key] = i
                open_calls.setdefault(key, []).append(i)
        elif side == _USER:
            close(i)
        else:
            key = (_kind(item), item.call_id)
            pending = open_calls.get(key)
            if pending:
                ci = pending.pop(0)
                if not pending:
                    del open_calls[key]
                result_of[ci] = i
                answered.add(key)
                answered_phase = True
            elif key in closed:
                ci = closed.pop(key)
                late_result[ci] = i
                findings.append(Finding("result_out_of_turn", i, f"result for {item.call_id!r} comes after the turn of its call (item {ci}) was closed", item.call_id, ci))
            elif key in answered:
                findings.append(Finding("duplicate_result", i, f"a second result for call {item.call_id!r}", item.call_id, calls_seen.get(key)))
            else:
                what = "handoff_call" if key[0] == "handoff" else "tool_call"
                findings.append(Finding("orphan_result", i, f"result refers to {item.call_id!r}, which is not an earlier {what}", item.call_id))
    if not open_end:
        if reasoning is not None:
            findings.append(Finding("separated_reasoning", reasoning, "reasoning ends the history without the assistant output it belongs to"))
        close(len(items))
    findings.sort(key=lambda f: (f.index, RULES.index(f.rule)))
    return _Scan(findings, result_of, close_at, late_result)


def check_history(items: Sequence[Any], *, open_end: bool = True) -> list[Finding]:
    """Every break of the integrity rules in ``items`` (see the module docstring), by item index.

    Args:
        items: Canonical items in order (a transcript's ``items``).
        open_end: ``True`` for a stored session, which may end in calls awaiting their results
            (or in reasoning whose output is being generated); ``False`` for a history about to
            be sent, where those are ``dangling_call`` / ``separated_reasoning``.

    Returns:
        The findings, ordered by item index; empty when the history is sound.
    """
    return _scan(items, open_end).findings


def _fresh_id(base: str, taken: set[str]) -> str:
    n = 2
    while f"{base}_{n}" in taken:
        n += 1
    new = f"{base}_{n}"
    taken.add(new)
    return new


def _stub(call: Any) -> Any:
    content = [TextItem(text=NO_RESULT_TEXT)]
    if isinstance(call, HandoffCallItem):
        return HandoffResultItem(call_id=call.id, content=content, is_error=True)  # type: ignore[arg-type]
    return ToolResultItem(call_id=call.id, content=content, is_error=True, name=call.name)  # type: ignore[arg-type]


def _pass(items: list[Any], origin: list[int], scan: _Scan, policy: Policy, report: Report) -> tuple[list[Any], list[int]]:
    """One rewrite of every finding of ``scan``; indices in ``report`` are ``origin``'s."""
    drop: set[int] = set()
    replace: dict[int, Any] = {}
    insert: dict[int, list[tuple[Any, int]]] = {}
    taken = {i.id for i in items if isinstance(getattr(i, "id", None), str)}

    def add(action: str, reason: str, at: int) -> None:
        report.add(action, reason, index=origin[at], item_type=items[at].__struct_config__.tag, pointer=f"/items/{origin[at]}")  # type: ignore[arg-type]

    moved: set[int] = set()
    # A reused id is renamed before its call's stub result is made, so the stub answers the new id.
    for f in sorted(scan.findings, key=lambda f: (f.rule != "duplicate_call_id", f.index)):
        i = f.index
        if f.rule == "dangling_call":
            late = scan.late_result.get(i)
            if policy == "degrade":
                at = scan.close_at[i]
                if late is not None:
                    insert.setdefault(at, []).append((items[late], origin[late]))
                    moved.add(late)
                    add("changed", f"{f.message}; its result (item {origin[late]}) moved back into its turn", i)
                else:
                    insert.setdefault(at, []).append((_stub(replace.get(i, items[i])), origin[i]))
                    add("degraded", f"{f.message}; added a stub result saying none was recorded", i)
            else:
                drop.add(i)
                add("dropped", f"{f.message}; call left out", i)
        elif f.rule == "result_out_of_turn":
            if policy == "degrade" and i in moved:
                drop.add(i)  # re-inserted in its turn; the dangling_call entry reports it
            elif policy != "degrade":
                drop.add(i)
                add("dropped", f"{f.message}; result left out", i)
        elif f.rule == "duplicate_call_id":
            if policy == "degrade":
                call = items[i]
                new = _fresh_id(call.id, taken)
                replace[i] = msgspec.structs.replace(call, id=new)
                res = scan.result_of.get(i)
                if res is not None:
                    replace[res] = msgspec.structs.replace(items[res], call_id=new)
                add("changed", f"{f.message}; renamed {call.id!r} to {new!r} on the call" + (f" and its result (item {origin[res]})" if res is not None else ""), i)
            else:
                drop.add(i)
                res = scan.result_of.get(i)
                add("dropped", f"{f.message}; call left out" + (f" with its result (item {origin[res]})" if res is not None else ""), i)
                if res is not None:
                    drop.add(res)
        else:
            drop.add(i)
            add("dropped", f"{f.message}; left out", i)
    out: list[Any] = []
    out_origin: list[int] = []
    for j in range(len(items) + 1):
        for extra, o in insert.get(j, ()):
            out.append(extra)
            out_origin.append(o)
        if j == len(items):
            break
        if j in drop:
            continue
        out.append(replace.get(j, items[j]))
        out_origin.append(origin[j])
    return out, out_origin


def repair_items(items: Sequence[Any], *, policy: Policy, open_end: bool = False, report: Report | None = None) -> tuple[list[Any], list[int], Report]:
    """Rewrite ``items`` until no integrity rule is broken.

    Args:
        items: Canonical items in order (not mutated).
        policy: ``drop`` or ``degrade`` rewrite (see the module docstring); ``error`` raises when
            anything is found and returns the items unchanged otherwise.
        open_end: As :func:`check_history`.
        report: Entries are appended here (a new report when ``None``).

    Returns:
        ``(items, origin, report)``: the rewritten items (the input list's items where unchanged),
        ``origin[i]`` the input index item ``i`` came from (a stub result carries its call's index),
        and the report of every change, with input indices.

    Raises:
        IntegrityError: under ``error``, listing every finding.
    """
    report = report if report is not None else Report()
    current = list(items)
    origin = list(range(len(current)))
    for _ in range(len(current) + 2):
        scan = _scan(current, open_end)
        if not scan.findings:
            return current, origin, report
        if policy == "error":
            raise IntegrityError(scan.findings)
        current, origin = _pass(current, origin, scan, policy, report)
    raise AssertionError("history repair did not converge")  # pragma: no cover - each pass removes or fixes a finding
