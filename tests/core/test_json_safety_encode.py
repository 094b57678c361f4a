"""``encode_envelope`` / ``encode_item`` answer exactly as the precise walk followed by the encoder.

The encoders check a Struct with its class's generated check directly (one frame, no wrapper
calls) and fall back to :func:`check_json_safe` on any doubt. These property tests put hostile
values (NaN, infinities, bytes, tuples, sets, int keys, datetimes, UUIDs, Decimals, enums, UNSET
inside JSON data, lone surrogates, Structs with wrong-typed fields, nesting past the limit) into
random fields at every level of real fixture items inside envelopes that carry every optional
nested Struct, and compare the whole outcome -- the bytes, or the error class, JSON pointer and
message -- with the precise walk alone followed by the plain encode.
"""

from __future__ import annotations

import datetime
import decimal
import enum
import uuid
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interlingua import codec
from interlingua.codec import _items, _json_safety
from interlingua.codec import UnknownItem, decode_item, encode_envelope, encode_item
from interlingua.errors import DocumentError
from interlingua.items import Envelope, Origin, ResponseInfo, StopReason, TextItem, ToolResultItem, Usage

ROOT = Path(__file__).resolve().parents[2]
LINES = [line for line in (ROOT / "tests" / "fixtures" / "canonical" / "valid_items.jsonl").read_bytes().splitlines() if line.strip()]


class _Colour(enum.Enum):
    RED = "red"


class _Str(str):
    pass


class _Int(int):
    pass


def _deep(n: int) -> Any:
    v: Any = "leaf"
    for _ in range(n):
        v = [v]
    return v


_HOSTILE = st.sampled_from([
    float("nan"), float("inf"), -float("inf"), b"x", bytearray(b"x"), memoryview(b"x"), (1, 2), {1, 2}, frozenset({"a"}),
    {1: "a"}, {"k": float("nan")}, {"k": [b"x"]}, {"k": {"j": (1,)}}, [msgspec.UNSET], {"a": msgspec.UNSET},
    datetime.datetime(2026, 1, 1), datetime.date(2026, 1, 1), uuid.UUID(int=7), decimal.Decimal("1.5"), _Colour.RED,
    "\ud800", {"\udc00": 1}, ["ok", "\ud83d"], _deep(70), {"a": _deep(63)}, object(), msgspec.Raw(b"1"),
    Origin(provider=b"x"),  # type: ignore[arg-type]
    TextItem(text=float("nan")),  # type: ignore[arg-type]
    TextItem(text="nested", metadata={"n": 1.5}),
])
"""Values that must be refused (or, for the last ones, accepted) wherever they are put."""
_FINE = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**63), max_value=2**63 - 1), st.text(max_size=5),
    st.floats(allow_nan=False, allow_infinity=False), st.sampled_from([_Str("s"), msgspec.UNSET, {}, [], {"a": [1, {"b": 2.5}]}, _Int(3)]),
)
_VALUE = st.one_of(_HOSTILE, _FINE, st.recursive(_FINE | _HOSTILE, lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=3), kids, max_size=3), max_leaves=8))


def _envelope(i: int) -> Envelope:
    item = decode_item(LINES[i % len(LINES)])
    return Envelope(
        schema_version="1.0", session_id="s", seq=i, item=item, created_at="2026-01-01T00:00:00Z",
        usage=Usage(input_tokens=1, output_tokens=2, details={"x": 1}), stop_reason=StopReason(reason="end_turn", raw="stop"),
        response=ResponseInfo(id="r", model="m", provider_data={"p": [1, 2.5, None]}),
    )


def _slots(value: Any) -> list[tuple[Any, str]]:
    """Every (Struct, field name) reachable from ``value``: nested Structs and Structs in lists and dicts too."""
    out: list[tuple[Any, str]] = []
    if isinstance(value, msgspec.Struct):
        for name in value.__struct_fields__:
            out.append((value, name))
            out.extend(_slots(getattr(value, name)))
    elif isinstance(value, list):
        for sub in value:
            out.extend(_slots(sub))
    elif isinstance(value, dict):
        for sub in value.values():
            out.extend(_slots(sub))
    return out


def _outcome(fn: Any, value: Any) -> Any:
    try:
        return fn(value)
    except DocumentError as exc:
        return type(exc), [(p.pointer, p.message) for p in exc.problems]
    except Exception as exc:  # noqa: BLE001 - whatever the plain encoder raises must stay the same
        return type(exc), str(exc)


def _reference(value: Any) -> bytes:
    """The precise walk alone (the fast check answering "not sure"), then the plain encode."""
    saved = _json_safety._json_safe_typed
    _json_safety._json_safe_typed = lambda v, d: False  # type: ignore[assignment]
    try:
        codec.check_json_safe(value)
    finally:
        _json_safety._json_safe_typed = saved  # type: ignore[assignment]
    return _items._encode_text(value)


@settings(max_examples=600, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.integers(min_value=0, max_value=10_000), st.integers(min_value=0, max_value=10_000), _VALUE, st.booleans())
def test_a_hostile_value_anywhere_gets_the_precise_answer(i: int, j: int, value: Any, whole: bool) -> None:
    env = _envelope(i)
    target = env if whole else env.item
    slots = _slots(target)
    struct, name = slots[j % len(slots)]
    setattr(struct, name, value)
    fn = encode_envelope if whole else encode_item
    assert _outcome(fn, target) == _outcome(_reference, target)


def test_every_fixture_item_encodes_as_msgspec_does() -> None:
    for i in range(len(LINES)):
        env = _envelope(i)
        assert encode_envelope(env) == msgspec.json.encode(env)
        assert encode_item(env.item) == msgspec.json.encode(env.item)
        assert type(env.item) in _json_safety._STRUCT_CHECKS  # the generated check is what answered


@pytest.mark.parametrize(
    ("path", "value", "pointer"),
    [
        ("usage.details", {"a": float("inf")}, "/usage/details/a"),
        ("response.provider_data", {"p": (1,)}, "/response/provider_data/p"),
        ("stop_reason.raw", b"x", "/stop_reason/raw"),
        ("item.origin", Origin(provider="p", model=decimal.Decimal("1")), "/item/origin/model"),  # type: ignore[arg-type]
        ("seq", 1.5j, "/seq"),
        ("item", {"type": "text"}, "/item"),
    ],
)
def test_errors_keep_their_pointers(path: str, value: Any, pointer: str) -> None:
    env = _envelope(0)
    *head, last = path.split(".")
    obj: Any = env
    for part in head:
        obj = getattr(obj, part)
    setattr(obj, last, value)
    out = _outcome(encode_envelope, env)
    if path == "item":  # a dict is JSON-safe: the encoder writes it (a wrong declared type is no JSON-safety matter)
        assert out == msgspec.json.encode(env)
        return
    assert out[0] is DocumentError and out[1][0][0] == pointer, out
    assert out == _outcome(_reference, env)


def test_unknown_items_content_lists_and_surrogates() -> None:
    raw = b'{"type":"future_kind","x":[1,2]}'
    env = Envelope(schema_version="1.0", session_id="s", seq=0, item=UnknownItem(raw, "future_kind"))  # type: ignore[arg-type]
    assert encode_envelope(env) == b'{"schema_version":"1.0","session_id":"s","seq":0,"item":' + raw + b"}"
    result = ToolResultItem(call_id="c", content=[TextItem(text="ok"), TextItem(text="bad\ud800")])
    out = _outcome(encode_item, result)
    assert out[0] is DocumentError and out[1][0][0] == "/content/1/text"
    result.content[1] = TextItem(text="ok", metadata={"k": [float("nan")]})
    out = _outcome(encode_item, result)
    assert out[0] is DocumentError and out[1][0][0] == "/content/1/metadata/k/0"
