"""``interlingua.trim``: fit a history into a token budget by dropping its oldest turns.

The history is cut only between *turns*: a turn starts at a user item that no tool exchange spans
(every call before it has its results before it). So a call is never split from its result, nor
reasoning from the output it precedes, and the kept history starts on a user turn. System and
developer items (the system prompt, instructions) are always kept, in place. Token figures are the
offline estimate of :func:`~interlingua.history.count_tokens` (seeded by reported usage when nothing
is dropped).
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from typing import Any

import msgspec

from ..errors import BudgetError
from ..items import TextItem, Transcript
from ..mapping.protocol import Conversion
from ..mapping.report import Report
from ._limits import model_limits
from ._integrity import _USER, _side, kept_responses
from ._tokens import ITEM_TOKENS, _item_tokens, _tools_tokens, count_tokens, estimate_text_tokens

__all__ = ["TRIM_MARKER", "TrimPlan", "TurnFacts", "input_budget", "plan_trim", "trim"]

TRIM_MARKER = "[{n} earlier turn(s) were removed to fit the context window]"
"""Text of the marker item (user role) put where turns were removed, with ``marker=True``."""


def _is_instruction(item: Any) -> bool:
    return getattr(item, "role", None) in ("system", "developer")


class TurnFacts:
    """What :func:`trim` needs of a history's items, gathered one item at a time (:meth:`feed`):
    per item its estimated cost (``ITEM_TOKENS`` plus its content's estimate, in tokens) and whether
    it is a system/developer item, and what places a turn may start (sides, the calls' ids, the last
    result of each call id). Compact (a few bytes per item, one entry per call), so that a transcript
    document read item by item is planned without holding its items (``interlingua trim``)."""

    def __init__(self) -> None:
        self.cost = array("q")
        self.instr = bytearray()
        self._side = bytearray()
        self._kind = bytearray()  # 0 other, 1 a call, 2 reasoning
        self._call_ids: dict[int, str] = {}
        self._last_result: dict[str, int] = {}

    @staticmethod
    def cost_of(item: Any) -> int:
        """An item's estimated tokens as a request's item (:data:`ITEM_TOKENS` plus its content's)."""
        return ITEM_TOKENS + _item_tokens(item)

    def feed(self, item: Any) -> None:
        """Add the next item (in order)."""
        i = len(self.cost)
        self.cost.append(ITEM_TOKENS + _item_tokens(item))
        call_id = getattr(item, "call_id", None)
        if isinstance(call_id, str):
            self._last_result[call_id] = i
        self.instr.append(1 if _is_instruction(item) else 0)
        self._side.append(_side(item))
        tag = getattr(getattr(item, "__struct_config__", None), "tag", None)
        if tag in ("tool_call", "handoff_call"):
            self._kind.append(1)
            self._call_ids[i] = item.id
        else:
            self._kind.append(2 if tag == "reasoning" else 0)

    def __len__(self) -> int:
        return len(self.cost)

    def turn_starts(self) -> list[int]:
        """Indices where a turn may start: a user item (after a non-user one) that no call/result pair spans."""
        spans_until = -1
        starts: list[int] = []
        prev_user = False
        last_result, call_ids, instr, sides, kinds = self._last_result, self._call_ids, self.instr, self._side, self._kind
        for i in range(len(self.cost)):
            if instr[i]:
                continue
            side = sides[i]
            if side == _USER:
                if not prev_user and i > spans_until:
                    starts.append(i)
                prev_user = True
            elif side != 3:  # neutral items do not end a user run
                prev_user = False
            kind = kinds[i]
            if kind == 1:
                spans_until = max(spans_until, last_result.get(call_ids[i], i))
            elif kind == 2:
                spans_until = max(spans_until, i + 1)
        return starts


def _turn_starts(items: list[Any]) -> list[int]:
    """Indices where a turn may start: a user item (after a non-user one) that no call/result pair spans."""
    facts = TurnFacts()
    for item in items:
        facts.feed(item)
    return facts.turn_starts()


@dataclass(frozen=True)
class TrimPlan:
    """Which turns :func:`trim` drops: ``units`` the turns as ``(start, end)`` input index ranges,
    ``dropped`` the indices into ``units`` left out (oldest first), ``unit_costs`` each unit's
    estimated tokens (its system/developer items left out: they are kept), ``budget`` in tokens."""

    units: list[tuple[int, int]]
    dropped: list[int]
    unit_costs: list[int]
    budget: int

    def drop_range(self) -> tuple[int, int]:
        """``(start, end)``: the input indices the dropped turns span (their non-system items are
        left out); ``(0, 0)`` when nothing is dropped. Dropped turns are consecutive."""
        if not self.dropped:
            return (0, 0)
        return (self.units[self.dropped[0]][0], self.units[self.dropped[-1]][1])

    def report(self, facts: TurnFacts) -> Report:
        """One ``dropped`` entry per removed turn (its first input index, item count, tokens)."""
        report = Report()
        for k in self.dropped:
            a, b = self.units[k]
            gone = sum(1 for i in range(a, b) if not facts.instr[i])
            report.add("dropped", f"turn of {gone} item(s) (about {self.unit_costs[k]} tokens) removed to fit {self.budget} input tokens", index=a, item_type="turn", pointer=f"/items/{a}")
        return report


def plan_trim(facts: TurnFacts, tools_tokens: int, budget: int, *, keep_first: int = 0, marker: bool = False) -> TrimPlan:
    """The oldest turns to drop until the history fits ``budget`` tokens (see :func:`trim`).

    Args:
        facts: The items' :class:`TurnFacts`.
        tools_tokens: Estimated tokens of the tool definitions.
        budget: Input tokens.
        keep_first: Keep the first N turns whatever happens.
        marker: A marker item will stand where turns were removed (its tokens count).

    Raises:
        BudgetError: the system items, tools, the kept first turns and the newest turn alone exceed the budget.
    """
    n = len(facts)
    instr, cost = facts.instr, facts.cost
    starts = facts.turn_starts()
    bounds = [0, *starts, n] if (not starts or starts[0] != 0) else [*starts, n]
    units = [(bounds[k], bounds[k + 1]) for k in range(len(bounds) - 1) if any(not instr[i] for i in range(bounds[k], bounds[k + 1]))]
    fixed = tools_tokens + sum(c for c, s in zip(cost, instr, strict=True) if s)
    unit_costs = [sum(cost[i] for i in range(a, b) if not instr[i]) for a, b in units]

    # A leading unit that does not start on a user item (assistant text before any user item) can
    # only be kept with keep_first; otherwise it goes first.
    first_kept = min(keep_first, len(units))
    droppable = list(range(first_kept, len(units)))
    kept_cost = fixed + sum(unit_costs)
    dropped: list[int] = []
    marker_cost = ITEM_TOKENS + estimate_text_tokens(TRIM_MARKER.format(n=len(units))) if marker else 0  # at most this many digits
    while droppable and len(droppable) > 1 and kept_cost + (marker_cost if dropped else 0) > budget:
        k = droppable.pop(0)
        dropped.append(k)
        kept_cost -= unit_costs[k]
    # The kept history must start on a user turn: the oldest kept unit after the dropped ones does
    # (units after the first start on a user item), unless the first unit is kept whole.
    if kept_cost + (marker_cost if dropped else 0) > budget:
        raise BudgetError(
            f"the history does not fit {budget} input tokens: the system items, tools"
            + (f", the first {keep_first} turn(s)" if keep_first else "")
            + f" and the newest turn alone come to about {kept_cost + (marker_cost if dropped else 0)} (estimate)"
        )
    return TrimPlan(units, dropped, unit_costs, budget)


def input_budget(settings: Any, max_input_tokens: int | None, model: str | None, provider: str | None) -> int:
    """``max_input_tokens``, else the model's context window less its output budget
    (``settings.max_output_tokens``, else the model's output limit).

    Raises:
        BudgetError: no budget given and the model's context window is not known.
    """
    if max_input_tokens is not None:
        return max_input_tokens
    limits = model_limits(provider or "", model)
    if limits.context_window is None:
        raise BudgetError(f"no budget: pass max_input_tokens (the context window of {model or 'the model'!s} on {provider or 'an unnamed provider'} is not known)")
    out_budget = settings.max_output_tokens if settings is not msgspec.UNSET and isinstance(settings.max_output_tokens, int) else limits.max_output_tokens or 0
    return int(limits.context_window - out_budget)


def trim(
    transcript: Transcript,
    max_input_tokens: int | None = None,
    model: str | None = None,
    *,
    provider: str | None = None,
    keep_first: int = 0,
    marker: bool = False,
) -> Conversion[Transcript]:
    """Drop the oldest turns of ``transcript`` until its input fits ``max_input_tokens``.

    Args:
        transcript: The history (not mutated).
        max_input_tokens: The budget in tokens. ``None``: the model's context window less its output
            budget (``settings.max_output_tokens``, else the model's output limit), which needs
            ``model`` and ``provider`` known to the model table.
        model: The model the history is for (seeds from another model's usage are not used).
        provider: Wire format of ``model`` (for its limits, when ``max_input_tokens`` is ``None``).
        keep_first: Keep the first N turns whatever happens (e.g. a task statement).
        marker: Put one user text item (:data:`TRIM_MARKER`) where turns were removed.

    Returns:
        A :class:`~interlingua.mapping.protocol.Conversion`: the trimmed transcript (the input when it
        fits) and a report with one ``dropped`` entry per removed turn (its first input index, item
        count and estimated tokens), plus a ``changed`` entry when per-response usage records no
        longer describe the kept history.

    Raises:
        BudgetError: the system items, the kept first turns and the newest turn alone exceed the
            budget (the figures are in the message), or no budget is given or known.
        ValueError: ``keep_first`` is negative.
    """
    if keep_first < 0:
        raise ValueError("keep_first must be 0 or more")
    budget = input_budget(transcript.settings, max_input_tokens, model, provider)
    items = list(transcript.items)
    if count_tokens(transcript, model).input_tokens <= budget:
        return Conversion(transcript, Report())
    facts = TurnFacts()
    for it in items:
        facts.feed(it)
    plan = plan_trim(facts, _tools_tokens(transcript), budget, keep_first=keep_first, marker=marker)
    dropped = plan.dropped
    if not dropped:
        return Conversion(transcript, Report())
    report = plan.report(facts)
    lo, hi = plan.drop_range()
    drop_idx = {i for i in range(lo, hi) if not facts.instr[i]}
    out_items: list[Any] = []
    origin: list[int] = []
    placed = False
    for i, item in enumerate(items):
        if i in drop_idx:
            if marker and not placed:
                out_items.append(TextItem(text=TRIM_MARKER.format(n=len(dropped)), role="user"))
                origin.append(i)
                placed = True
            continue
        out_items.append(item)
        origin.append(i)
    responses = kept_responses(transcript, out_items, origin)
    before: list[Any] = transcript.responses if isinstance(transcript.responses, list) else []
    after: list[Any] = responses if isinstance(responses, list) else []
    if len(after) < len(before):
        report.add("changed", f"{len(before) - len(after)} per-response usage record(s) left out: they describe the history before it was trimmed", item_type="responses", pointer="/responses")
    out = msgspec.structs.replace(transcript, items=out_items, responses=responses)
    return Conversion(out, report)
