"""Hypothesis strategies derived from the generated models, so a field added to ``schemas/`` is generated the day
it is added (issue 30).

:func:`from_model` reads a Struct's fields and constraints with :func:`msgspec.inspect.type_info` (the types
and the ``Meta`` constraints the generator wrote from the schemas: ``min_length``, ``pattern``, ``ge``,
``le``, literals, nested Structs, tagged unions) and builds values of it: every required field, and every
optional field in some examples and not others. :func:`any_item` is every member of the item union.

These values are valid for the models; the hand-written :mod:`interlingua.testing.strategies` make
conversations that also keep the semantic rules (results after their calls, unique ids). Requires
``hypothesis`` (in the ``dev`` extra).

Example::

    from hypothesis import given
    from interlingua.testing.model_strategies import any_item

    @given(any_item())
    def test_items_survive_my_store(item): ...
"""

from __future__ import annotations

import functools
import typing
from typing import Any

import msgspec
import msgspec.inspect as mi

try:
    from hypothesis import strategies as st
except ModuleNotFoundError as _exc:
    from ._extra import missing_extra

    raise missing_extra("hypothesis", "interlingua.testing.model_strategies", _exc) from _exc

from .. import items as _items
from .strategies import json_values

__all__ = ["ITEM_CLASSES", "any_item", "from_model", "strategy_for"]

ITEM_CLASSES: tuple[type[msgspec.Struct], ...] = tuple(typing.get_args(typing.get_args(_items.InputItem)[0]))
"""Every member of the item union (:data:`interlingua.items.InputItem`), read from the generated models."""

_MAX_COLLECTION = 3
"""Most elements drawn for a list or object without its own ``max_length`` (examples stay small)."""

_MAX_TEXT = 24
_SAFE_INT = 2**53  # integers JSON readers everywhere keep exactly
_CHARS = st.characters(codec="utf-8")


def _int(t: mi.IntType) -> st.SearchStrategy[int]:
    low = t.ge if t.ge is not None else (t.gt + 1 if t.gt is not None else -_SAFE_INT)
    high = t.le if t.le is not None else (t.lt - 1 if t.lt is not None else _SAFE_INT)
    out = st.integers(min_value=int(low), max_value=int(high))
    if t.multiple_of:
        step = t.multiple_of
        out = out.map(lambda v: v - v % step).filter(lambda v: low <= v <= high)
    return out


def _float(t: mi.FloatType) -> st.SearchStrategy[float]:
    low = t.ge if t.ge is not None else t.gt
    high = t.le if t.le is not None else t.lt
    return st.floats(
        min_value=low, max_value=high, exclude_min=t.ge is None and t.gt is not None, exclude_max=t.le is None and t.lt is not None,
        allow_nan=False, allow_infinity=False, width=64,
    )


def _str(t: mi.StrType) -> st.SearchStrategy[str]:
    low = t.min_length or 0
    if t.pattern is not None:
        # msgspec (like JSON Schema) matches a pattern anywhere in the string: generate a string holding a
        # match; the pattern sets its length (``^[0-9a-f]{64}$``), only declared bounds are applied
        high = t.max_length
        return st.from_regex(t.pattern, alphabet=_CHARS).filter(lambda s: low <= len(s) and (high is None or len(s) <= high))
    high = t.max_length if t.max_length is not None else low + _MAX_TEXT
    return st.text(_CHARS, min_size=low, max_size=high)


def _list(t: mi.ListType, depth: int) -> st.SearchStrategy[list[Any]]:
    low = t.min_length or 0
    high = t.max_length if t.max_length is not None else low + _MAX_COLLECTION
    return st.lists(strategy_for(t.item_type, depth), min_size=low, max_size=min(high, low + _MAX_COLLECTION))


def _dict(t: mi.DictType, depth: int) -> st.SearchStrategy[dict[Any, Any]]:
    low = t.min_length or 0
    high = t.max_length if t.max_length is not None else low + _MAX_COLLECTION
    return st.dictionaries(strategy_for(t.key_type, depth), strategy_for(t.value_type, depth), min_size=low, max_size=min(high, low + _MAX_COLLECTION))


def strategy_for(t: mi.Type, depth: int = 0) -> st.SearchStrategy[Any]:
    """A strategy for values of the msgspec type ``t`` (a :mod:`msgspec.inspect` type node).

    Args:
        t: The type node (``mi.type_info(SomeStruct)`` or one of its fields' types).
        depth: How many Structs deep this value is; optional Struct-valued fields are left out past a
            few levels, so a self-referencing model still gives finite values.

    Raises:
        TypeError: a type node the generated models do not use (a new kind needs a rule here).
    """
    if isinstance(t, mi.Metadata):
        return strategy_for(t.type, depth)
    if isinstance(t, mi.StructType):
        return from_model(t.cls, _depth=depth + 1)
    if isinstance(t, mi.StrType):
        return _str(t)
    if isinstance(t, mi.IntType):
        return _int(t)
    if isinstance(t, mi.FloatType):
        return _float(t)
    if isinstance(t, mi.BoolType):
        return st.booleans()
    if isinstance(t, mi.NoneType):
        return st.none()
    if isinstance(t, mi.LiteralType):
        return st.sampled_from(t.values)
    if isinstance(t, mi.ListType):
        return _list(t, depth)
    if isinstance(t, mi.DictType):
        return _dict(t, depth)
    if isinstance(t, mi.UnionType):
        return st.one_of([strategy_for(member, depth) for member in t.types])
    if isinstance(t, mi.AnyType):
        return json_values
    raise TypeError(f"no strategy for msgspec type {t!r}: add a rule to interlingua.testing.model_strategies.strategy_for")


_MAX_DEPTH = 4

_CODEC_RULES: dict[tuple[type[msgspec.Struct], str], st.SearchStrategy[Any]] = {
    (_items.Base64Source, "data"): st.binary(max_size=24).map(lambda b: __import__("base64").b64encode(b).decode()),
}
"""Fields whose rule the decoder checks beyond the models' types: ``Base64Source.data`` must be standard
base64 (the schema says so in its description; :func:`interlingua.codec.decode_item` refuses anything else)."""


@functools.cache
def _fields(cls: type[msgspec.Struct]) -> tuple[mi.Field, ...]:
    info = mi.type_info(cls)
    assert isinstance(info, mi.StructType)
    return info.fields


def from_model(cls: type[msgspec.Struct], *, _depth: int = 1) -> st.SearchStrategy[msgspec.Struct]:
    """Instances of the generated Struct ``cls``: every required field, each optional field in some examples.

    Values satisfy the models' types and constraints (so :func:`msgspec.convert` accepts their builtins); an
    optional field that is itself a Struct is left out past a few levels of nesting.
    """

    @st.composite
    def build(draw: st.DrawFn) -> msgspec.Struct:
        values: dict[str, Any] = {}
        for f in _fields(cls):
            nested = isinstance(f.type, mi.StructType) or (isinstance(f.type, mi.Metadata) and isinstance(f.type.type, mi.StructType))
            if not f.required and (_depth >= _MAX_DEPTH and nested or not draw(st.booleans())):
                continue
            rule = _CODEC_RULES.get((cls, f.name))
            values[f.name] = draw(rule if rule is not None else strategy_for(f.type, _depth))
        return cls(**values)

    return build()


def any_item() -> st.SearchStrategy[msgspec.Struct]:
    """Any member of the item union, each built by :func:`from_model`."""
    return st.one_of([from_model(cls) for cls in ITEM_CLASSES])
