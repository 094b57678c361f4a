"""Deterministic, collision-free tool-call ids for targets with id rules.

A source id that already obeys the target's rule is kept. Otherwise a new id is
derived from a hash of the original (so the same original always maps to the
same id, on the call and on its result) and recorded in the report. Nothing but
the original id goes into the derivation: no other data is smuggled in an id.
"""

from __future__ import annotations

import hashlib
import re
import string
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from .report import Report

__all__ = ["IdRule", "IdMap"]

_ALNUM = string.ascii_letters + string.digits
_COMPILED: dict[str, re.Pattern[str]] = {}
"""Each rule's pattern compiled once (the rules are a handful of module constants)."""


@dataclass(frozen=True)
class IdRule:
    """What ids a target accepts.

    Attributes:
        name: Short name used in reports (``"anthropic"``).
        pattern: Full-match regular expression, or ``None`` for any characters.
        max_length: Longest accepted id, or ``None``.
        exact_length: Required length (Mistral: 9), or ``None``.
        prefix: Prefix for derived ids (``"toolu_"``); ignored with ``exact_length``.
        alphabet: Characters a derived id is made of.
    """

    name: str
    pattern: str | None = None
    max_length: int | None = None
    exact_length: int | None = None
    prefix: str = "call_"
    alphabet: str = _ALNUM

    def accepts(self, value: str) -> bool:
        """Whether ``value`` obeys the rule."""
        if not value:
            return False
        if self.exact_length is not None and len(value) != self.exact_length:
            return False
        if self.max_length is not None and len(value) > self.max_length:
            return False
        if self.pattern is None:
            return True
        rx = _COMPILED.get(self.pattern)
        if rx is None:
            rx = _COMPILED[self.pattern] = re.compile(self.pattern)
        return rx.fullmatch(value) is not None

    def derive(self, original: str, attempt: int = 0) -> str:
        """Derive an id obeying the rule from ``original`` (deterministic; ``attempt`` > 0 on collision)."""
        seed = original if attempt == 0 else f"{original}\x00{attempt}"
        digest = int.from_bytes(hashlib.sha256(seed.encode("utf-8")).digest(), "big")
        if self.exact_length is not None:
            length, prefix = self.exact_length, ""
        else:
            prefix = self.prefix
            length = 24
            if self.max_length is not None:
                length = min(length, self.max_length - len(prefix))
        chars = []
        base = len(self.alphabet)
        for _ in range(length):
            digest, r = divmod(digest, base)
            chars.append(self.alphabet[r])
        return prefix + "".join(chars)


@dataclass(init=False)
class IdMap:
    """Maps source tool-call ids to ids valid for one target, for one conversion.

    Use one instance per conversion so a call and its result get the same id and
    two different originals never collide.
    """

    rule: IdRule
    report: Report | None = None
    _forward: dict[str, str] = field(default_factory=dict)
    _taken: set[str] = field(default_factory=set)
    _reserved: set[str] = field(default_factory=set)
    _pending: Callable[[], Iterable[str]] | None = None

    def __init__(self, rule: IdRule, report: Report | None = None) -> None:
        # written out (not generated with default factories): one is made per conversion
        self.rule = rule
        self.report = report
        self._forward = {}
        self._taken = set()
        self._reserved = set()
        self._pending = None

    def reserve(self, ids: Iterable[str]) -> None:
        """Mark ids that will be kept as they are, so derived ids never collide with them.

        Call it with every source id before the first :meth:`get` (or see :meth:`reserve_later`).
        """
        accepts = self.rule.accepts
        for value in ids:
            if accepts(value):
                self._taken.add(value)
                self._reserved.add(value)

    def reserve_later(self, ids: Callable[[], Iterable[str]]) -> None:
        """:meth:`reserve` the ids ``ids()`` gives, only when an id must first be derived.

        The same ids as :meth:`reserve` called up front: an id the rule accepts maps to itself
        either way, and the reserved ids are all taken before the first derivation, so every
        result is the same; a conversion whose ids are all valid never lists them.
        """
        self._pending = ids

    def keep(self, original: str) -> str:
        """Map ``original`` to itself whatever the rule says (an id the target itself issued or took
        before, such as a wire id read from the same provider), so its results get it too."""
        self._forward.setdefault(original, original)
        self._taken.add(original)
        return self._forward[original]

    def get(self, original: str, *, index: int | None = None) -> str:
        """Return the target id for ``original``, deriving (and reporting) it on first use."""
        target = self._forward.get(original)
        if target is not None:
            return target
        if original in self._reserved or self.rule.accepts(original):  # reserved: accepted already
            target = original
        else:
            if self._pending is not None:
                pending, self._pending = self._pending, None
                self.reserve(pending())
            attempt = 0
            target = self.rule.derive(original, attempt)
            while target in self._taken:
                attempt += 1
                target = self.rule.derive(original, attempt)
            if self.report is not None:
                self.report.add("changed", f"tool-call id {original!r} is not valid for {self.rule.name}; sent as {target!r}", index=index, item_type="tool_call")
        self._forward[original] = target
        self._taken.add(target)
        return target
