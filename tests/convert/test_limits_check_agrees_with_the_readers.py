"""``check_limits`` (what a conversion applies to the items a mapper made) refuses exactly what the
readers refuse (``codec.check_item_limits``, the check of ``decode_item`` and ``iter_jsonl``): same
item, same kind of error, whether or not it measures strings first. Its fast path (one encode per
item into a reused buffer, or items in a list encoded in chunks as JSON Lines and looked at one by
one only in a chunk that is large, holds a base64 tag or a line of many brackets; nesting and base64
looked at only where an item holds a free-form value or an inline source) must not let through
anything the readers refuse, and names the same first item."""

from __future__ import annotations

import json
from pathlib import Path
from unittest import mock
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interlingua import convert_request, convert_response
from interlingua.codec import DEFAULT_LIMITS, Limits, check_item_limits, decode_item
from interlingua.codec._items import encoder
from interlingua.conversion import check_limits
from interlingua.errors import InterlinguaError
from interlingua.items import Base64Source, ImageItem, ToolCallItem, ToolResultItem
from interlingua.testing.strategies import items as item_lists

REAL = Path(__file__).parent.parent / "fixtures" / "real"


def _readers_verdict(items: list[Any], limits: Limits) -> tuple[str, str] | None:
    """(error class, pointer) of the first item the readers' own check refuses, else None."""
    for i, item in enumerate(items):
        try:
            check_item_limits(item, encoder.encode(item), pointer=f"/items/{i}", limits=limits)
        except InterlinguaError as exc:
            return type(exc).__name__, exc.problems[0].pointer.split("/source")[0].split("/content")[0]
    return None


def _verdict(items: list[Any], limits: Limits, measure_strings: bool) -> tuple[str, str] | None:
    try:
        check_limits(items, limits=limits, measure_strings=measure_strings)
    except InterlinguaError as exc:
        return type(exc).__name__, exc.problems[0].pointer.split("/source")[0].split("/content")[0]
    return None


small_limits = st.builds(
    Limits,
    max_depth=st.integers(1, 8),
    max_item_bytes=st.integers(40, 3000),
    max_base64_bytes=st.integers(0, 200),
)


@settings(max_examples=300, deadline=None)
@given(items=item_lists(max_size=8), limits=small_limits, measure_strings=st.booleans())
def test_the_same_items_are_refused_as_by_the_readers(items: list[Any], limits: Limits, measure_strings: bool) -> None:
    assert _verdict(items, limits, measure_strings) == _readers_verdict(items, limits)


@settings(max_examples=300, deadline=None)
@given(items=item_lists(max_size=12), limits=small_limits, chunk=st.integers(1, 4))
def test_the_chunked_check_names_the_same_first_item_across_chunk_ends(items: list[Any], limits: Limits, chunk: int) -> None:
    # items in memory are encoded a chunk at a time: a refused item in a later chunk, or after a
    # clean chunk, keeps its index in the whole list
    with mock.patch("interlingua._item_limits._CHUNK", chunk), mock.patch("interlingua._item_limits._CHUNKED", True):
        assert _verdict(items, limits, False) == _readers_verdict(items, limits)


def test_an_item_refused_after_the_first_chunk_is_named_by_its_index() -> None:
    clean = [ToolCallItem(id=f"c{i}", name="f", arguments={"q": i}) for i in range(600)]
    deep = ToolCallItem(id="deep", name="f", arguments={"a": {"b": {"c": {"d": {}}}}})
    bad = _image("not base64!")
    limits = Limits(max_depth=4)
    for chunked in (True, False):  # chunked: the path taken when the compiled line check is built
        with mock.patch("interlingua._item_limits._CHUNKED", chunked):
            assert _verdict([*clean, deep], limits, False) == ("LimitError", "/items/600")
            assert _verdict([*clean[:300], bad, *clean[300:]], DEFAULT_LIMITS, False) == ("DocumentError", "/items/300")
            assert _verdict(clean, limits, False) is None


def _image(data: str) -> ImageItem:
    return ImageItem(source=Base64Source(media_type="image/png", data=data), role="user")


@pytest.mark.parametrize(
    ("item", "why"),
    [
        (_image("not base64!"), "DocumentError"),  # an inline source that is not base64, at top level
        (ToolResultItem(call_id="c1", content=[_image("QUJD===")]), "DocumentError"),  # ... inside a result
        (_image("QUJD" * 40), "LimitError"),  # over max_base64_bytes (100)
        (ToolCallItem(id="c1", name="f", arguments={"a": {"b": {"c": {"d": {}}}}}), "LimitError"),  # deeper than 4
    ],
)
def test_each_kind_of_refusal_is_found_on_the_fast_path(item: Any, why: str) -> None:
    limits = Limits(max_depth=4, max_base64_bytes=100)
    assert _readers_verdict([item], limits) == (why, "/items/0")
    for measure in (True, False):
        assert _verdict([item], limits, measure) == (why, "/items/0")


def test_real_request_bodies_agree_with_the_readers_at_tight_limits() -> None:
    # the corpus of real recorded requests, at limits tight enough that many are refused
    checked = refused = 0
    formats = {"anthropic": "anthropic", "openai_chat": "openai-chat", "openai_responses": "openai-responses", "gemini": "gemini", "bedrock_converse": "bedrock-converse"}
    for directory, fmt in formats.items():
        for path in sorted((REAL / directory).rglob("*.json")):
            if not path.name.endswith((".request.json", ".response.json")):
                continue
            convert = convert_request if path.name.endswith(".request.json") else convert_response
            try:
                conv = convert(path.read_bytes(), source=fmt, target="canonical", policy="drop", force=True)
            except InterlinguaError:
                continue  # a fixture that is refused at the default limits (tested where it belongs)
            items = [decode_item(msgspec.json.encode(i)) for i in conv.value["items"]]
            for limits in (Limits(max_depth=3, max_item_bytes=400, max_base64_bytes=8), DEFAULT_LIMITS):
                expected = _readers_verdict(items, limits)
                refused += expected is not None
                assert _verdict(items, limits, True) == expected == _verdict(items, limits, False), path
                checked += 1
    assert checked > 80 and refused > 20, (checked, refused)


def test_a_dict_body_over_the_limit_is_refused_at_the_item_without_measuring_strings() -> None:
    # a dict given in Python: no bytes were read here, so the item is encoded once and refused by its size
    text = "x" * (DEFAULT_LIMITS.max_item_bytes + 1)
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": text}]}
    with pytest.raises(InterlinguaError) as exc:
        convert_request(body, source="openai-chat", target="anthropic", model="claude-sonnet-4-5")
    assert exc.value.problems[0].pointer == "/items/1"
    assert f"the limit is {DEFAULT_LIMITS.max_item_bytes} (max_item_bytes)" in exc.value.problems[0].message
    # the same body as JSON text is measured first (its bytes are over the limit): refused the same way
    with pytest.raises(InterlinguaError) as again:
        convert_request(json.dumps(body), source="openai-chat", target="anthropic", model="claude-sonnet-4-5")
    assert again.value.problems[0].pointer == "/items/1" and "of more than" in again.value.problems[0].message
