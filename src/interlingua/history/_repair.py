"""``interlingua.repair``: a transcript rewritten so that it keeps the integrity rules."""

from __future__ import annotations

import msgspec

from ..items import Transcript
from ..mapping.protocol import Conversion
from ..mapping.report import POLICIES, Policy, Report
from ._integrity import kept_responses, repair_items

__all__ = ["repair"]


def repair(transcript: Transcript, policy: Policy = "degrade", *, open_end: bool = False) -> Conversion[Transcript]:
    """The transcript rewritten until no integrity rule is broken (see :mod:`interlingua.history`).

    ``drop`` leaves out dangling calls, orphan and duplicate results, results out of turn, empty
    texts and reasoning cut from its output, and a call that reuses an id (with its result);
    ``degrade`` (the default) gives a dangling call a stub result saying none was recorded (or moves
    its late result back into its turn) and renames a reused call id on the call and its result,
    and drops the rest as ``drop`` does. Idempotent: repairing the output changes nothing.

    Args:
        transcript: The history (not mutated).
        policy: ``drop``, ``degrade``, or ``error`` (raise when anything is found).
        open_end: Keep calls still awaiting their results at the very end (a stored session in
            progress); by default they are dangling, as in a request about to be sent.

    Returns:
        A :class:`~interlingua.mapping.protocol.Conversion`: ``value`` the repaired transcript (the
        input itself when nothing was wrong), ``report`` one entry per change with the input's item
        index and JSON pointer.

    Raises:
        IntegrityError: under ``error``, when anything breaks the rules.
        ValueError: ``policy`` is not one of ``error``, ``drop``, ``degrade``.
    """
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {', '.join(POLICIES)}, not {policy!r}")
    report = Report()
    items, origin, report = repair_items(transcript.items, policy=policy, open_end=open_end, report=report)
    if not report:
        return Conversion(transcript, report)
    out = msgspec.structs.replace(transcript, items=items, responses=kept_responses(transcript, items, origin))
    return Conversion(out, report)

