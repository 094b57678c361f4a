"""``interlingua.trim``: fit a history into a token budget by dropping its oldest turns.

The history is cut only between *turns*: a turn starts at a user item that no tool exchange spans
(every call before it has its results before it). So a call is never split from its result, nor
reasoning from the output it precedes, and the kept history starts on a user turn. System and
developer items (the system prompt, instructions) are always kept, in place. Token figures are the
offline estimate of :func:`~interlingua.history.count_tokens` (seeded by reported usage when nothing
is dropped).
"""

from __future__ import annotations

from typing import Any

import msgspec

from ..errors import BudgetError
from ..items import TextItem, Transcript
from ..mapping.protocol import Conversion
from ..mapping.report import Report
from ._limits import model_limits
from ._integrity import _USER, _side, kept_responses
from ._tokens import ITEM_TOKENS, _item_tokens, _tools_tokens, count_tokens, estimate_text_tokens

__all__ = ["TRIM_MARKER", "trim"]

TRIM_MARKER = "[{n} earlier turn(s) were removed to fit the context window]"
"""Text of the marker item (user role) put where turns were removed, with ``marker=True``."""


def _is_instruction(item: Any) -> bool:
    return getattr(item, "role", None) in ("system", "developer")


def _turn_starts(items: list[Any]) -> list[int]:
    """Indices where a turn may start: a user item (after a non-user one) that no call/result pair spans."""
    last_result: dict[str, int] = {}
    for i, item in enumerate(items):
        call_id = getattr(item, "call_id", None)
        if isinstance(call_id, str):
            last_result[call_id] = i
    spans_until = -1
    starts: list[int] = []
    prev_user = False
    for i, item in enumerate(items):
        side = _side(item)
        if _is_instruction(item):
            continue
        if side == _USER:
            if not prev_user and i > spans_until:
                starts.append(i)
            prev_user = True
        elif side != 3:  # neutral items do not end a user run
            prev_user = False
        tag = getattr(getattr(item, "__struct_config__", None), "tag", None)
        if tag in ("tool_call", "handoff_call"):
            spans_until = max(spans_until, last_result.get(item.id, i))
        elif tag == "reasoning":
            spans_until = max(spans_until, i + 1)
    return starts


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
    if max_input_tokens is None:
        limits = model_limits(provider or "", model)
        if limits.context_window is None:
            raise BudgetError(f"no budget: pass max_input_tokens (the context window of {model or 'the model'!s} on {provider or 'an unnamed provider'} is not known)")
        out_budget = transcript.settings.max_output_tokens if transcript.settings is not msgspec.UNSET and isinstance(transcript.settings.max_output_tokens, int) else limits.max_output_tokens or 0
        max_input_tokens = limits.context_window - out_budget
    budget = max_input_tokens
    items = list(transcript.items)
    if count_tokens(transcript, model).input_tokens <= budget:
        return Conversion(transcript, Report())
    starts = _turn_starts(items)
    bounds = [0, *starts, len(items)] if (not starts or starts[0] != 0) else [*starts, len(items)]
    units = [(bounds[k], bounds[k + 1]) for k in range(len(bounds) - 1) if any(not _is_instruction(items[i]) for i in range(bounds[k], bounds[k + 1]))]
    cost = [ITEM_TOKENS + _item_tokens(it) for it in items]
    fixed = _tools_tokens(transcript) + sum(c for it, c in zip(items, cost, strict=True) if _is_instruction(it))

    def unit_cost(u: tuple[int, int]) -> int:
        return sum(cost[i] for i in range(*u) if not _is_instruction(items[i]))

    # A leading unit that does not start on a user item (assistant text before any user item) can
    # only be kept with keep_first; otherwise it goes first.
    first_kept = min(keep_first, len(units))
    droppable = list(range(first_kept, len(units)))
    kept_cost = fixed + sum(unit_cost(u) for u in units)
    dropped: list[int] = []
    marker_cost = ITEM_TOKENS + estimate_text_tokens(TRIM_MARKER.format(n=len(units))) if marker else 0  # at most this many digits
    while droppable and len(droppable) > 1 and kept_cost + (marker_cost if dropped else 0) > budget:
        k = droppable.pop(0)
        dropped.append(k)
        kept_cost -= unit_cost(units[k])
    # The kept history must start on a user turn: the oldest kept unit after the dropped ones does
    # (units after the first start on a user item), unless the first unit is kept whole.
    if kept_cost + (marker_cost if dropped else 0) > budget:
        raise BudgetError(
            f"the history does not fit {budget} input tokens: the system items, tools"
            + (f", the first {keep_first} turn(s)" if keep_first else "")
            + f" and the newest turn alone come to about {kept_cost + (marker_cost if dropped else 0)} (estimate)"
        )
    if not dropped:
        return Conversion(transcript, Report())
    report = Report()
    drop_idx: set[int] = set()
    for k in dropped:
        a, b = units[k]
        gone = [i for i in range(a, b) if not _is_instruction(items[i])]
        drop_idx.update(gone)
        report.add("dropped", f"turn of {len(gone)} item(s) (about {unit_cost(units[k])} tokens) removed to fit {budget} input tokens", index=a, item_type="turn", pointer=f"/items/{a}")
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
