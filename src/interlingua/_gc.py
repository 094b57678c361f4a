"""The cyclic garbage collector paused around work that builds many objects and no cycles."""

from __future__ import annotations

import contextlib
import functools
import gc
from collections.abc import Callable, Iterator
from typing import ParamSpec, TypeVar

__all__ = ["gc_paused", "with_gc_paused"]

P = ParamSpec("P")
R = TypeVar("R")


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for the block; the caller's setting is restored after it.

    For blocks that build many objects and no reference cycles, with no ``await`` inside. The
    collector's passes over such objects (each longer as the heap grows) find nothing to free: they
    were about a third of a large session's store load, and half of ``convert_request`` on a
    6,000-message conversation (its generation-2 passes scan every message dict of the input and the
    output again, so the cost per message grew with the conversation). Reference counting frees what
    the block drops; the next collection after it sees the rest (any cycle included) as usual.
    """
    enabled = gc.isenabled()
    if enabled:
        gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def with_gc_paused(fn: Callable[P, R]) -> Callable[P, R]:
    """``fn`` run inside :func:`gc_paused` (a synchronous function only)."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with gc_paused():
            return fn(*args, **kwargs)

    return wrapper
