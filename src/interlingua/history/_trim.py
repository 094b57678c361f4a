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
    the places a turn may start, each with the running token estimate and item count before it (of
    the items other than system/developer ones), the system/developer items' estimate, and the first
    call and last result of each call id (a turn never starts inside a call's exchange). Nothing is
    kept per item, so a transcript document read item by item is planned in memory bounded by its
    turns and call ids, not its items (``interlingua trim``).

    A turn may start at a user item that follows a non-user one (neutral items -- role-less ``raw``,
    ``error`` -- do not end a user run) and that no call/result pair spans (every call before it has
    its results before it) and that does not follow reasoning (which belongs with what follows it).
    """

    def __init__(self) -> None:
        self.count = 0
        self.instr_tokens = 0
        """Estimated tokens of the system/developer items (always kept)."""
        self.tokens = 0
        """Estimated tokens of the other items."""
        self.kept_count = 0
        """Number of the other items."""
        self._cand = array("q")  # index, tokens before, items before: three entries per candidate
        self._first_call: dict[str, int] = {}
        self._last_result: dict[str, int] = {}
        self._prev_user = False
        self._reasoning_at = -2

    @staticmethod
    def cost_of(item: Any) -> int:
        """An item's estimated tokens as a request's item (:data:`ITEM_TOKENS` plus its content's)."""
        return ITEM_TOKENS + _item_tokens(item)

    def feed(self, item: Any) -> None:
        """Add the next item (in order)."""
        i = self.count
        self.count += 1
        cost = ITEM_TOKENS + _item_tokens(item)
        call_id = getattr(item, "call_id", None)
        if isinstance(call_id, str):
            self._last_result[call_id] = i
        if _is_instruction(item):
            self.instr_tokens += cost
            return
        side = _side(item)
        if side == _USER:
            if not self._prev_user and self._reasoning_at != i - 1:
                self._cand.extend((i, self.tokens, self.kept_count))
            self._prev_user = True
        elif side != 3:  # neutral items do not end a user run
            self._prev_user = False
        tag = getattr(getattr(item, "__struct_config__", None), "tag", None)
        if tag in ("tool_call", "handoff_call"):
            self._first_call.setdefault(item.id, i)
        elif tag == "reasoning":
            self._reasoning_at = i
        self.tokens += cost
        self.kept_count += 1

    def __len__(self) -> int:
        return self.count

    def turn_starts(self) -> array[int]:
        """The places a turn starts, in order, flat: ``index, tokens before, items before`` for each
        (the figures count the items other than system/developer ones)."""
        spans = sorted((c, self._last_result[k]) for k, c in self._first_call.items() if self._last_result.get(k, -1) > c)
        out = array("q")
        reach, j, cand = -1, 0, self._cand
        for k in range(0, len(cand), 3):
            i = cand[k]
            while j < len(spans) and spans[j][0] < i:
                reach = max(reach, spans[j][1])
                j += 1
            if i > reach:
                out.extend(cand[k : k + 3])
        return out


@dataclass(frozen=True)
class TrimPlan:
    """Which turns :func:`trim` drops: the turns as input index ranges ``starts[k]`` to ``ends[k]``
    with their estimated tokens ``costs[k]`` and item counts ``counts[k]`` (system/developer items
    left out: they are kept), ``dropped`` the indices of the turns left out (oldest first,
    consecutive), ``budget`` in tokens."""

    starts: array[int]
    ends: array[int]
    costs: array[int]
    counts: array[int]
    dropped: list[int]
    budget: int

    def drop_range(self) -> tuple[int, int]:
        """``(start, end)``: the input indices the dropped turns span (their non-system items are
        left out); ``(0, 0)`` when nothing is dropped."""
        if not self.dropped:
            return (0, 0)
        return (self.starts[self.dropped[0]], self.ends[self.dropped[-1]])

    def dropped_tokens(self) -> int:
        """Estimated tokens of the items left out."""
        return sum(self.costs[k] for k in self.dropped)

    def report(self) -> Report:
        """One ``dropped`` entry per removed turn (its first input index, item count, tokens)."""
        report = Report()
        for k in self.dropped:
            a = self.starts[k]
            report.add("dropped", f"turn of {self.counts[k]} item(s) (about {self.costs[k]} tokens) removed to fit {self.budget} input tokens", index=a, item_type="turn", pointer=f"/items/{a}")
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
    bounds = facts.turn_starts()
    if not bounds or bounds[0] != 0:
        bounds[0:0] = array("q", (0, 0, 0))
    bounds.extend((facts.count, facts.tokens, facts.kept_count))
    starts, ends, costs, counts = array("q"), array("q"), array("q"), array("q")
    for k in range(0, len(bounds) - 3, 3):
        a, ta, na, b, tb, nb = bounds[k : k + 6]
        if nb > na:  # a range of system/developer items only is no turn
            starts.append(a)
            ends.append(b)
            costs.append(tb - ta)
            counts.append(nb - na)
    del bounds
    fixed = tools_tokens + facts.instr_tokens

    # A leading unit that does not start on a user item (assistant text before any user item) can
    # only be kept with keep_first; otherwise it goes first.
    units = len(starts)
    k = min(keep_first, units)
    kept_cost = fixed + facts.tokens
    dropped: list[int] = []
    marker_cost = ITEM_TOKENS + estimate_text_tokens(TRIM_MARKER.format(n=units)) if marker else 0  # at most this many digits
    while units - k > 1 and kept_cost + (marker_cost if dropped else 0) > budget:
        dropped.append(k)
        kept_cost -= costs[k]
        k += 1
    # The kept history must start on a user turn: the oldest kept unit after the dropped ones does
    # (units after the first start on a user item), unless the first unit is kept whole.
    if kept_cost + (marker_cost if dropped else 0) > budget:
        raise BudgetError(
            f"the history does not fit {budget} input tokens: the system items, tools"
            + (f", the first {keep_first} turn(s)" if keep_first else "")
            + f" and the newest turn alone come to about {kept_cost + (marker_cost if dropped else 0)} (estimate)"
        )
    return TrimPlan(starts, ends, costs, counts, dropped, budget)


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
    report = plan.report()
    lo, hi = plan.drop_range()
    out_items: list[Any] = []
    origin: list[int] = []
    placed = False
    for i, item in enumerate(items):
        if lo <= i < hi and not _is_instruction(item):
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
