"""The typed JSON-safety check (generated per Struct class) decides exactly as the precise walk.

``check_json_safe`` first runs a fast check generated from each Struct class's declared field
types; only a ``False`` from it runs the precise walk, which builds the JSON pointer. The fast
check must never say "safe" where the precise walk raises: every field of every item in the real
fixtures gets each unsafe value in turn (a Struct is not validated on construction, so any value
can be in any field), and random JSON data with unsafe leaves goes into the free-form fields.
"""

from __future__ import annotations

import datetime
import decimal
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


from interlingua.codec import _json_safety
from interlingua.codec import check_json_safe, decode_item, encode_envelope, encode_item
from interlingua.errors import DocumentError, LimitError
from interlingua.items import Envelope, TextItem, ToolCallItem, ToolResultItem

ROOT = Path(__file__).resolve().parents[2]
ITEMS = [decode_item(line) for line in (ROOT / "tests" / "fixtures" / "canonical" / "valid_items.jsonl").read_bytes().splitlines() if line.strip()]


class _Str(str):
    pass


def _deep(n: int) -> Any:
    v: Any = 1
    for _ in range(n):
        v = [v]
    return v


BAD: list[Any] = [
    float("nan"), float("inf"), -float("inf"), b"x", bytearray(b"x"), memoryview(b"x"), (1, 2), {1, 2}, {1: "a"},
    {"k": float("nan")}, [float("inf")], {"k": [b"x"]}, {"k": {"j": (1,)}}, datetime.datetime(2026, 1, 1), decimal.Decimal("1.5"),
    {"a": msgspec.UNSET}, [msgspec.UNSET], _deep(70), {"a": _deep(64)}, object(), TextItem(text=float("nan")),  # type: ignore[arg-type]
]
"""Values that are not JSON-safe (or too deep) wherever they are put."""
SAFE: list[Any] = [{"a": _deep(63)}, 1.5, _Str("s"), {"a": [1, {"b": 2.5}]}, TextItem(text="nested"), None, 7]
"""Safe values the answer must also agree on (a wrong declared type is not a JSON-safety matter)."""


def _outcome(fn: Any, value: Any, **kw: Any) -> Any:
    try:
        fn(value, **kw)
    except DocumentError as exc:
        return type(exc), [(p.pointer, p.message) for p in exc.problems]
    return None


def _precise_only(value: Any, **kw: Any) -> None:
    """``check_json_safe`` with the fast check answering "not sure" every time: the precise walk alone."""
    saved = _json_safety._json_safe_typed
    _json_safety._json_safe_typed = lambda v, d: False  # type: ignore[assignment]
    try:
        check_json_safe(value, **kw)
    finally:
        _json_safety._json_safe_typed = saved  # type: ignore[assignment]


def _same(value: Any, **kw: Any) -> Any:
    fast, precise = _outcome(check_json_safe, value, **kw), _outcome(_precise_only, value, **kw)
    assert fast == precise, (value, fast, precise)
    return fast


def test_the_fixtures_are_safe_and_checked_by_the_typed_check() -> None:
    assert len(ITEMS) >= 10
    for item in ITEMS:
        assert _json_safety._json_safe_typed(item, 64)
        assert _same(item) is None
    assert type(ITEMS[0]) in _json_safety._STRUCT_CHECKS  # generated on first use


@pytest.mark.parametrize(("bad", "unsafe"), [(b, True) for b in BAD] + [(s, False) for s in SAFE], ids=[f"bad{i}-{type(b).__name__}" for i, b in enumerate(BAD)] + [f"safe{i}-{type(s).__name__}" for i, s in enumerate(SAFE)])
def test_any_value_in_any_field_gets_the_precise_answer(bad: Any, unsafe: bool) -> None:
    refused = 0
    for item in ITEMS:
        for name in item.__struct_fields__:
            broken = msgspec.structs.replace(item, **{name: bad})
            for value in (broken, Envelope(schema_version="1.0", session_id="s", seq=0, item=broken)):
                if _same(value) is not None:
                    refused += 1
    assert (refused > 0) == unsafe


def test_nested_structs_and_content_lists_are_walked() -> None:
    call = ToolCallItem(id="c", name="f", arguments={"q": "x"})
    result = ToolResultItem(call_id="c", content=[TextItem(text="ok"), TextItem(text="bad", metadata={"k": float("nan")})])
    assert _same(call) is None
    kind, problems = _same(Envelope(schema_version="1.0", session_id="s", seq=0, item=result))
    assert kind is DocumentError and problems[0][0] == "/item/content/1/metadata/k"
    with pytest.raises(DocumentError):
        encode_envelope(Envelope(schema_version="1.0", session_id="s", seq=0, item=result))
    with pytest.raises(DocumentError):
        encode_item(TextItem(text=b"bytes"))  # type: ignore[arg-type]


@pytest.mark.parametrize("max_depth", [0, 1, 2, 3, 5, 64])
def test_depth_limits_agree(max_depth: int) -> None:
    for n in range(0, 8):
        for value in (_deep(n), {"a": _deep(n)}, TextItem(text="t", metadata={"a": _deep(n)}), {"a": [1.5] if n % 2 else _deep(n)}):
            out = _same(value, max_depth=max_depth)
            assert out is None or out[0] is LimitError


def test_deeper_than_the_python_stack_falls_back_to_the_iterative_walk() -> None:
    assert _same({"a": _deep(5000)}, max_depth=10_000) is None
    assert _same({"a": [_deep(5000), float("nan")]}, max_depth=10_000) is not None


_leaf = st.one_of(
    st.none(), st.booleans(), st.integers(), st.text(max_size=5), st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([b"x", (1,), msgspec.UNSET, datetime.date(2026, 1, 1)]),
)
_json = st.recursive(_leaf, lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.one_of(st.text(max_size=3), st.integers()), kids, max_size=4), max_leaves=20)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(_json, st.sampled_from(["metadata", "arguments", "provider_data"]), st.integers(min_value=0, max_value=6))
def test_random_free_form_data_gets_the_precise_answer(value: Any, field: str, max_depth: int) -> None:
    item = ToolCallItem(id="c", name="f", arguments={})
    setattr(item, field, value)
    _same(item, max_depth=max_depth)
    _same(value, max_depth=max_depth)


def test_a_struct_whose_annotations_do_not_resolve_is_walked_generically() -> None:
    ns: dict[str, Any] = {}
    exec("import msgspec\nclass Odd(msgspec.Struct):\n    a: 'Missing'\n    b: int = 0\n", ns)  # noqa: S102
    odd = ns["Odd"](a=float("nan"))
    assert _same(TextItem(text="t", metadata={"o": odd})) is not None
    assert _same(ns["Odd"](a="fine")) is None
    assert _json_safety._STRUCT_CHECKS[ns["Odd"]] is _json_safety._json_safe_fast  # its annotations could not be read: the generic walk
