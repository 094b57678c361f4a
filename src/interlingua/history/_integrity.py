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
  progress (``open_end=True``), a dangling call in a request (``open_end=False``). A call the
  assistant's output went on after (text, a refusal, structured output) is not awaiting anything:
  without a result it is dangling at the end in both.
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

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

import msgspec

from ..errors import IntegrityError
from ..items import (
    ArtifactRefItem,
    AudioItem,
    DocumentItem,
    ErrorItem,
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
    Transcript,
    VideoItem,
)

if TYPE_CHECKING:  # the mapping package (its registry scans entry points) is imported only by repairs: `validate` scans
    from ..mapping.report import Policy, Report

__all__ = ["NO_RESULT_TEXT", "READER_RULES", "RULES", "read_history", "Finding", "IntegrityScanner", "Rule", "check_history", "kept_responses", "repair_items"]

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


_FIXED_SIDE: dict[type, int] = {
    ToolCallItem: _ASSISTANT,
    HandoffCallItem: _ASSISTANT,
    ReasoningItem: _ASSISTANT,
    StructuredItem: _ASSISTANT,
    RefusalItem: _ASSISTANT,
    ToolResultItem: _RESULT,
    HandoffResultItem: _RESULT,
}
_QUIET: frozenset[type] = frozenset((*_CONTENT, StructuredItem, RefusalItem, ErrorItem, RawItem))
"""Item classes that can break no rule a request is held to (:data:`SEND_RULES`): only calls, results
and reasoning can (a text item's ``empty_text`` is each mapper's rule). Exact classes: a subclass is
scanned."""
_ROLE_SIDE = {"assistant": _ASSISTANT, "user": _USER, "system": _USER, "developer": _USER}
_ROLED = frozenset((*_CONTENT, RawItem))


def _side(item: Any) -> int:
    cls = type(item)
    side = _FIXED_SIDE.get(cls)
    if side is not None:
        return side
    if cls in _ROLED:
        role = item.role
        return _NEUTRAL if role is msgspec.UNSET or role is None else _ROLE_SIDE.get(role, _USER)
    if isinstance(item, _ASSISTANT_ONLY):  # a subclass
        return _ASSISTANT
    if isinstance(item, _RESULTS):
        return _RESULT
    if isinstance(item, (*_CONTENT, RawItem)):
        role = getattr(item, "role", msgspec.UNSET)
        return _NEUTRAL if role is msgspec.UNSET or role is None else _ROLE_SIDE.get(role, _USER)
    return _NEUTRAL


def _kind(item: Any) -> str:
    cls = type(item)
    if cls is ToolCallItem or cls is ToolResultItem:
        return "tool"
    return "handoff" if isinstance(item, (HandoffCallItem, HandoffResultItem)) else "tool"


class IntegrityScanner:
    """The integrity rules fed one item at a time (bounded by the open calls and the call ids of one
    history, not its items): what ``validate`` runs over a JSON Lines session as it streams.

    Feed items in order with :meth:`feed` (each with a ``where`` the findings carry back, e.g. a
    line number), then call :meth:`finish`; :attr:`findings` holds every finding so far.
    """

    def __init__(self, *, open_end: bool = True) -> None:
        self.open_end = open_end
        self.findings: list[Finding] = []
        self.result_of: dict[int, int] = {}
        self.close_at: dict[int, int] = {}
        self.late_result: dict[int, int] = {}
        self.where: dict[int, Any] = {}
        self.repeated_in_turn: set[int] = set()
        self._went_on: dict[int, int] = {}
        """Open call -> the first assistant output (not a call, not reasoning) that followed it."""
        """Calls reusing the id of a call of their own turn that is still awaiting its result."""
        self._open: dict[tuple[str, str], list[int]] = {}
        self._calls: dict[tuple[str, str], int] = {}
        self._answered: set[tuple[str, str]] = set()
        self._closed: dict[tuple[str, str], int] = {}
        self._answered_phase = False
        self._reasoning: int | None = None
        self._n = 0

    def _add(self, finding: Finding) -> None:
        self.findings.append(finding)

    def _close(self, at: int, end: bool = False) -> None:
        for key, idxs in self._open.items():
            for ci in idxs:
                what = "handoff_call" if key[0] == "handoff" else "tool_call"
                where = "the end of the history" if end else f"item {at}"
                self._add(Finding("dangling_call", ci, f"{what} {key[1]!r} has no result before {where}", key[1], None if end else at))
                self.close_at[ci] = at
                self._closed[key] = ci
        self._open.clear()
        self._answered_phase = False

    def feed(self, item: Any, where: Any = None) -> None:
        """Take the next item (``where``: how to locate it, kept for findings about it)."""
        i = self._n
        self._n += 1
        cls = type(item)
        side = _FIXED_SIDE.get(cls)
        if side is None:
            if cls in _ROLED:  # `_side` inline for the exact content classes (most items of a history)
                role = item.role
                side = _NEUTRAL if role is msgspec.UNSET or role is None else _ROLE_SIDE.get(role, _USER)
            else:
                side = _side(item)
        if side == _NEUTRAL:
            return
        if self._reasoning is not None and side != _ASSISTANT:
            self._add(Finding("separated_reasoning", self._reasoning, f"reasoning is not followed by the assistant output it belongs to (item {i} follows)", related=i))
            self.where.pop(self._reasoning, None)
        self._reasoning = None
        if cls is TextItem and not item.text.strip():
            self._add(Finding("empty_text", i, "text item holds no visible text"))
        if side == _ASSISTANT:
            if self._answered_phase:
                self._close(i)
            if cls is ReasoningItem:
                self._reasoning = i
                self.where[i] = where
            elif cls is not ToolCallItem and cls is not HandoffCallItem and not isinstance(item, _CALLS):
                if self._open:
                    for idxs in self._open.values():
                        for ci in idxs:
                            self._went_on.setdefault(ci, i)
            elif cls is ToolCallItem or cls is HandoffCallItem or isinstance(item, _CALLS):
                key = (_kind(item), item.id)
                first = self._calls.get(key)
                if first is not None:
                    self._add(Finding("duplicate_call_id", i, f"call id {item.id!r} was already used by item {first}", item.id, first))
                    if self._open.get(key):
                        self.repeated_in_turn.add(i)
                else:
                    self._calls[key] = i
                self._open.setdefault(key, []).append(i)
                self.where[i] = where
        elif side == _USER:
            if self._open:
                self._close(i)
            else:
                self._answered_phase = False
        else:
            key = (_kind(item), item.call_id)
            pending = self._open.get(key)
            if pending:
                ci = pending.pop(0)
                if not pending:
                    del self._open[key]
                self.result_of[ci] = i
                self._answered.add(key)
                self._answered_phase = True
                self.where.pop(ci, None)
            elif key in self._closed:
                ci = self._closed.pop(key)
                self.late_result[ci] = i
                self._add(Finding("result_out_of_turn", i, f"result for {item.call_id!r} comes after the turn of its call (item {ci}) was closed", item.call_id, ci))
            elif key in self._answered:
                self._add(Finding("duplicate_result", i, f"a second result for call {item.call_id!r}", item.call_id, self._calls.get(key)))
            else:
                what = "handoff_call" if key[0] == "handoff" else "tool_call"
                self._add(Finding("orphan_result", i, f"result refers to {item.call_id!r}, which is not an earlier {what}", item.call_id))

    def finish(self) -> list[Finding]:
        """End of the history: under ``open_end=False`` pending calls and trailing reasoning are
        findings; under ``open_end=True`` a call still open is pending only while nothing but calls
        and reasoning followed it (the assistant's output going on after a call means its turn did
        not stop to wait for the result: a ``dangling_call``). Returns every finding, by item index."""
        if self.open_end and self._went_on:
            for key, idxs in list(self._open.items()):
                for ci in [c for c in idxs if c in self._went_on]:
                    what = "handoff_call" if key[0] == "handoff" else "tool_call"
                    later = self._went_on[ci]
                    self._add(Finding("dangling_call", ci, f"{what} {key[1]!r} has no result, and the assistant went on after it (item {later}) to the end of the history", key[1], later))
                    self.close_at[ci] = self._n
                    self._closed[key] = ci
                    idxs.remove(ci)
                if not idxs:
                    del self._open[key]
        if not self.open_end:
            if self._reasoning is not None:
                self._add(Finding("separated_reasoning", self._reasoning, "reasoning ends the history without the assistant output it belongs to"))
                self._reasoning = None
            self._close(self._n, end=True)
        self.findings.sort(key=lambda f: (f.index, RULES.index(f.rule)))
        return self.findings


def _scan(items: Sequence[Any], open_end: bool) -> IntegrityScanner:
    scanner = IntegrityScanner(open_end=open_end)
    for item in items:
        scanner.feed(item)
    scanner.finish()
    return scanner


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


@dataclass
class PassPlan:
    """One rewrite of a scan's findings, by item index (see :func:`plan_pass`).

    Attributes:
        drop: Items left out.
        rename: Index -> ``(field, new id)``: ``("id", ...)`` on a call, ``("call_id", ...)`` on its result.
        insert: Position -> what goes before the item there, in order: ``(True, k)`` the (late)
            result at index ``k`` moved back, ``(False, k)`` a stub result for the call at ``k``
            (renamed first when it is renamed).
    """

    drop: set[int] = field(default_factory=set)
    rename: dict[int, tuple[str, str]] = field(default_factory=dict)
    insert: dict[int, list[tuple[bool, int]]] = field(default_factory=dict)

    def renamed(self, j: int, item: Any) -> Any:
        """``item`` (at index ``j``) with its id or call id renamed, when the plan renames it."""
        change = self.rename.get(j)
        return item if change is None else msgspec.structs.replace(item, **{change[0]: change[1]})


def plan_pass(
    scan: IntegrityScanner, policy: Policy, report: Report, *, tag_of: Callable[[int], str], origin_of: Callable[[int], int], taken: set[str], reading: bool = False
) -> PassPlan:
    """What one rewrite of every finding of ``scan`` does (entries added to ``report``).

    ``tag_of(i)`` / ``origin_of(i)``: the type tag and input index of the item at index ``i`` (asked for
    the findings' items, their late results and renamed calls' results); ``taken``: the ids a renamed
    call's new id must not be (at least every ``<old id>_<n>`` in use; grows with the new ids).
    """
    plan = PassPlan()
    drop, insert = plan.drop, plan.insert

    def add(action: str, reason: str, at: int) -> None:
        report.add(action, reason, index=origin_of(at), item_type=tag_of(at), pointer=f"/items/{origin_of(at)}")  # type: ignore[arg-type]

    moved: set[int] = set()
    # A reused id is renamed before its call's stub result is made, so the stub answers the new id.
    for f in sorted(scan.findings, key=lambda f: (f.rule != "duplicate_call_id", f.index)):
        i = f.index
        if f.rule == "dangling_call":
            late = scan.late_result.get(i)
            if policy == "degrade":
                at = scan.close_at[i]
                if late is not None:
                    insert.setdefault(at, []).append((True, late))
                    moved.add(late)
                    add("changed", f"{f.message}; its result (item {origin_of(late)}) moved back into its turn", i)
                else:
                    insert.setdefault(at, []).append((False, i))
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
            if reading and policy == "degrade" and i in scan.repeated_in_turn and i in scan.close_at and i not in scan.result_of:
                drop.add(i)
                add("dropped", f"{f.message} in its own turn and has no result of its own (a repeated call); left out, the id's result stays with the earlier call", i)
            elif policy == "degrade":
                old = f.call_id
                new = _fresh_id(str(old), taken)
                plan.rename[i] = ("id", new)
                res = scan.result_of.get(i)
                if res is not None:
                    plan.rename[res] = ("call_id", new)
                add("changed", f"{f.message}; renamed {old!r} to {new!r} on the call" + (f" and its result (item {origin_of(res)})" if res is not None else ""), i)
            else:
                drop.add(i)
                res = scan.result_of.get(i)
                add("dropped", f"{f.message}; call left out" + (f" with its result (item {origin_of(res)})" if res is not None else ""), i)
                if res is not None:
                    drop.add(res)
        else:
            drop.add(i)
            add("dropped", f"{f.message}; left out", i)
    return plan


def _pass(items: list[Any], origin: list[int], scan: IntegrityScanner, policy: Policy, report: Report, reading: bool = False) -> tuple[list[Any], list[int]]:
    """One rewrite of every finding of ``scan``; indices in ``report`` are ``origin``'s. ``reading``:
    a call reusing the id of a call of its own turn, closed without a result of its own, is a repeated
    call, left out (see :func:`read_history`), not renamed into a dangling call."""
    taken = {i.id for i in items if isinstance(getattr(i, "id", None), str)}
    plan = plan_pass(scan, policy, report, tag_of=lambda k: items[k].__struct_config__.tag, origin_of=origin.__getitem__, taken=taken, reading=reading)
    drop, insert = plan.drop, plan.insert
    out: list[Any] = []
    out_origin: list[int] = []
    for j in range(len(items) + 1):
        for is_moved, k in insert.get(j, ()):
            out.append(items[k] if is_moved else _stub(plan.renamed(k, items[k])))
            out_origin.append(origin[k])
        if j == len(items):
            break
        if j in drop:
            continue
        out.append(plan.renamed(j, items[j]))
        out_origin.append(origin[j])
    return out, out_origin


READER_RULES: tuple[Rule, ...] = ("orphan_result", "duplicate_call_id")
"""The rules every reader of stored or foreign histories applies (what ``validate`` counts as errors):
a result whose call is not earlier is left out, a reused call id is renamed; the rest is kept as read
(``validate`` warns about it, ``repair`` fixes it)."""


SEND_RULES: tuple[Rule, ...] = tuple(r for r in RULES if r not in ("empty_text", "duplicate_result"))
"""The rules a request is held to before it is sent (``convert``, the ``Client``): all but
``empty_text``, which is a provider's own rule (Anthropic refuses an empty text block; Gemini and
OpenAI accept one: recorded requests hold them), applied by each mapper. A call id reused by calls
that are each answered in their own turn is not refused either (providers pair a call with the
result right after it; Anthropic accepted such a recorded request): ``validate`` and ``repair`` still
flag it, as ids are unique in a canonical transcript. A second result for one call is not refused
either: a recorded Anthropic request holding one (pydantic-ai's cross-provider tool-search replay) was
answered; ``validate`` warns and ``repair`` fixes it."""


def _sendable(finding: Finding, scan: IntegrityScanner) -> bool:
    """Whether a finding stops a request (see :data:`SEND_RULES`)."""
    if finding.rule in ("empty_text", "duplicate_result"):
        return False
    if finding.rule == "duplicate_call_id":
        first = finding.related
        return not (finding.index in scan.result_of and first is not None and first in scan.result_of)
    return True


def repair_items(
    items: Sequence[Any],
    *,
    policy: Policy,
    open_end: bool = False,
    report: Report | None = None,
    rules: Collection[Rule] | None = None,
    sending: bool = False,
    reading: bool = False,
) -> tuple[list[Any], list[int], Report]:
    """Rewrite ``items`` until no integrity rule is broken.

    Args:
        items: Canonical items in order (not mutated).
        policy: ``drop`` or ``degrade`` rewrite (see the module docstring); ``error`` raises when
            anything is found and returns the items unchanged otherwise.
        open_end: As :func:`check_history`.
        report: Entries are appended here (a new report when ``None``).
        rules: Only these rules (default: all of :data:`RULES`).
        sending: Only what stops a request (:data:`SEND_RULES`), as ``convert`` and the ``Client`` apply them.
        reading: As a reader applies the rules (:func:`read_history`): a call reusing the id of a
            call of its own turn, closed without a result of its own, is left out rather than renamed.

    Returns:
        ``(items, origin, report)``: the rewritten items (the input list's items where unchanged),
        ``origin[i]`` the input index item ``i`` came from (a stub result carries its call's index),
        and the report of every change, with input indices.

    Raises:
        IntegrityError: under ``error``, listing every finding.
    """
    if report is None:
        from ..mapping.report import Report

        report = Report()
    current = list(items)
    origin = list(range(len(current)))
    if sending and set(map(type, current)) <= _QUIET:
        return current, origin, report  # no call, result or reasoning: nothing a request is refused for
    for _ in range(len(current) + 2):
        scan = _scan(current, open_end)
        if rules is not None:
            scan.findings = [f for f in scan.findings if f.rule in rules]
        if sending:
            scan.findings = [f for f in scan.findings if _sendable(f, scan)]
        if not scan.findings:
            return current, origin, report
        if policy == "error":
            raise IntegrityError(scan.findings)
        current, origin = _pass(current, origin, scan, policy, report, reading)
    raise AssertionError("history repair did not converge")  # pragma: no cover - each pass removes or fixes a finding


def reuses_call_ids(items: Sequence[Any]) -> bool:
    """Whether two calls of one kind in ``items`` share an id (a ``duplicate_call_id`` finding): a set
    look-up per call, so that a caller applying only that rule skips the scan when none does."""
    seen: set[tuple[bool, Any]] = set()
    kinds = _CALL_KIND
    for item in items:
        cls = type(item)
        handoff = kinds[cls] if cls in kinds else _call_kind(cls)
        if handoff is not None:
            key = (handoff, item.id)
            if key in seen:
                return True
            seen.add(key)
    return False


_CALL_KIND: dict[type, bool | None] = {ToolCallItem: False, HandoffCallItem: True}
"""Per item class: ``True`` a handoff call, ``False`` a tool call, ``None`` no call (decided once per class)."""


def _call_kind(cls: type) -> bool | None:
    kind = issubclass(cls, HandoffCallItem) if issubclass(cls, _CALLS) else None
    _CALL_KIND[cls] = kind
    return kind


def read_history(transcript: Any, report: Report, *, rules: Collection[Rule] = READER_RULES) -> Any:
    """``transcript`` as every reader hands it on: :data:`READER_RULES` applied (orphan results left
    out; a reused call id renamed on the call and its result, except a call repeating the id of a call
    of its own turn that is closed without a result of its own: a repeated call, left out), each change added to ``report``; the transcript itself when nothing breaks them. What
    ``interlingua convert`` (a request body's history), ``interlingua migrate``, the framework readers
    (pydantic-ai, LangChain), the provider-format readers and ``from_otel`` share, so that what they
    write passes ``interlingua validate --strict`` as far as these rules go. ``rules``: a subset of
    :data:`READER_RULES` (``convert`` leaves orphan results to :mod:`interlingua.mapping.company`,
    which also names a call kept raw)."""
    return read_history_origin(transcript, report, rules=rules)[0]


def read_history_origin(transcript: Any, report: Report, *, rules: Collection[Rule] = READER_RULES) -> tuple[Any, list[int] | None]:
    """:func:`read_history`, and for each item of the result the index it had in ``transcript``
    (``None`` when nothing changed), so that what points into the items (a fork's ``at``) can follow."""
    items, _origin, _ = repair_items(transcript.items, policy="degrade", open_end=True, report=report, rules=rules, reading=True)
    if len(items) == len(transcript.items) and all(a is b for a, b in zip(items, transcript.items, strict=True)):
        return transcript, None
    return msgspec.structs.replace(transcript, items=items, responses=kept_responses(transcript, items, _origin)), list(_origin)


def kept_responses(transcript: Transcript, items: list[Any], origin: list[int]) -> Any:
    """The ``responses`` records of ``transcript`` still true of the rewritten ``items``: those whose
    item lies before the first change (a record's reported usage describes the history before its
    response; once that history changes it describes nothing here). ``UNSET`` when none is left."""
    records = getattr(transcript, "responses", msgspec.UNSET)
    if not isinstance(records, list) or not records:
        return msgspec.UNSET
    old = transcript.items
    d = 0
    while d < len(items) and d < len(old) and origin[d] == d and items[d] is old[d]:
        d += 1
    kept = [r for r in records if r.item < d]
    return kept if kept else msgspec.UNSET
