"""The upcaster chain: older interlingua schema versions -> the current one.

An upcaster turns a JSON object (a transcript document or a JSON Lines envelope,
as plain dicts) of one schema version into the next version. Upcasters are
registered with :func:`upcaster`, keyed by the version they read; :func:`upcast`
applies them one after another until the object is at a version of the current
major (:data:`~interlingua.codec.SCHEMA_VERSION`), which the codec reads directly
(minor versions only add optional fields and item types).

Today only 1.0 exists, so the chain is empty; the day 2.0 ships, 1.x files and
stored rows are read by registering ``@upcaster("1.0", to="2.0")`` (and one for
each later 1.x minor), and nothing else changes for callers.

A document or envelope of a newer major than this library is refused
(:class:`~interlingua.errors.VersionError`); so is an older one with no upcaster.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import Any, Literal, TypeAlias

from ..codec._model import SCHEMA_VERSION  # the leaf module: codec._versions imports this module back (its refusal names the registered upcasters)
from ..errors import Problem, VersionError

__all__ = ["Kind", "Upcaster", "registered", "upcast", "upcast_row", "upcaster"]

Kind: TypeAlias = Literal["document", "envelope", "header"]
"""What an upcaster is given: a transcript document, one JSON Lines envelope (a store row), or a
session export's header line."""

Upcaster: TypeAlias = Callable[[dict[str, Any], Kind], dict[str, Any]]
"""``(obj, kind) -> new obj``: must return a new dict (the input is a private copy) whose
``schema_version`` is the upcaster's target version."""

_VERSION = re.compile(r"^([0-9]+)\.([0-9]+)$")
_CURRENT_MAJOR = int(SCHEMA_VERSION.split(".")[0])
_chain: dict[str, tuple[str, Upcaster]] = {}


def _parse(version: object, pointer: str) -> tuple[int, int]:
    if not isinstance(version, str) or not (m := _VERSION.match(version)):
        raise VersionError(Problem(pointer, f"schema_version must be a 'MAJOR.MINOR' string, got {version!r}"))
    return int(m.group(1)), int(m.group(2))


def upcaster(from_version: str, *, to: str) -> Callable[[Upcaster], Upcaster]:
    """Register the decorated function as the upcaster from ``from_version`` to ``to``.

    The decorated function gets a private deep copy of the object and its kind and
    returns the object at version ``to`` (the chain sets ``schema_version`` to ``to``
    on the result if the function did not). The decorated function gains an
    ``unregister()`` attribute (for tests).

    Raises:
        ValueError: a version is malformed, ``to`` is not newer than ``from_version``,
            or an upcaster from ``from_version`` is already registered.
    """
    src = _parse(from_version, "")
    dst = _parse(to, "")
    if dst <= src:
        raise ValueError(f"upcaster {from_version} -> {to}: the target must be newer")
    if from_version in _chain:
        raise ValueError(f"an upcaster from schema_version {from_version} is already registered")

    def register(fn: Upcaster) -> Upcaster:
        _chain[from_version] = (to, fn)

        def unregister() -> None:
            if _chain.get(from_version, (None, None))[1] is fn:
                del _chain[from_version]

        fn.unregister = unregister  # type: ignore[attr-defined]
        return fn

    return register


def registered() -> dict[str, str]:
    """The chain as ``{from_version: to_version}``."""
    return {k: v[0] for k, v in _chain.items()}


def upcast(obj: dict[str, Any], kind: Kind = "document") -> tuple[dict[str, Any], list[str]]:
    """Bring a document or envelope (plain JSON) to the current major version.

    The input is never mutated; when no upcaster applies it is returned as is.

    Returns:
        ``(obj, steps)``: the object at a version of the current major, and the steps
        taken (``["0.9 -> 1.0", ...]``, empty when none was needed).

    Raises:
        VersionError: ``schema_version`` missing or malformed; a newer major than this
            library; an older version with no upcaster registered.
    """
    if "schema_version" not in obj:
        raise VersionError(Problem("/schema_version", "missing required field `schema_version`"))
    steps: list[str] = []
    current = obj
    seen: set[str] = set()
    while True:
        version = current.get("schema_version")
        major, _ = _parse(version, "/schema_version")
        if major > _CURRENT_MAJOR:
            raise VersionError(
                Problem("/schema_version", f"schema_version {version} is newer than this reader ({SCHEMA_VERSION}); upgrade interlingua to read it")
            )
        step = _chain.get(version)  # type: ignore[arg-type]
        if step is None:
            if major == _CURRENT_MAJOR:
                return current, steps
            known = ", ".join(sorted(_chain)) or "none"
            raise VersionError(
                Problem("/schema_version", f"no upcaster reads schema_version {version} (registered: {known}); this reader writes {SCHEMA_VERSION} "
                    "(an upcaster registered with interlingua.compat.upcaster would read it)")
            )
        if version in seen:  # a registration error would loop forever
            raise VersionError(Problem("/schema_version", f"upcaster chain loops at {version}"))
        seen.add(version)  # type: ignore[arg-type]
        target, fn = step
        result = fn(copy.deepcopy(current), kind)
        if result.get("schema_version") == version:
            result = {**result, "schema_version": target}
        steps.append(f"{version} -> {target}")
        current = result


def upcast_row(schema_version: str, item: dict[str, Any], **envelope: Any) -> tuple[str, dict[str, Any]]:
    """Read one stored row (its schema version and item JSON) through the chain.

    For the session store: a row written by an older version is wrapped into an
    envelope (``envelope`` gives ``session_id``, ``seq`` and other columns when the
    upcaster needs them), upcast, and unwrapped.

    Returns:
        ``(schema_version, item)`` at the current major.

    Raises:
        VersionError: as :func:`upcast`.
    """
    env = {"session_id": "row", "seq": 0, **envelope, "schema_version": schema_version, "item": item}
    out, _ = upcast(env, "envelope")
    return out["schema_version"], out["item"]
