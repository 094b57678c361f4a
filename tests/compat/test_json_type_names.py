"""Errors about JSON input name JSON types (null, an array, a string), never Python's (NoneType, list, str)."""

from __future__ import annotations

import re
from typing import Any

import pytest

import interlingua as il
import interlingua.compat as compat
import interlingua.otel as otel
from interlingua.errors import InterlinguaError

PYTHON_NAMES = re.compile(r"(got|JSON|is an?|not an?) (NoneType|list|dict|str|int|float|bool|tuple)\b")
WRONG: list[Any] = [None, "text", 1.5, 7, True, [1, 2]]


def _message(call: Any) -> str:
    with pytest.raises(InterlinguaError) as info:
        call()
    return str(info.value)


@pytest.mark.parametrize("value", WRONG, ids=repr)
@pytest.mark.parametrize("fmt", sorted(compat.FORMATS))
def test_legacy_readers(fmt: str, value: Any) -> None:
    try:
        compat.read(value, fmt)
    except InterlinguaError as exc:
        assert not PYTHON_NAMES.search(str(exc)), str(exc)


@pytest.mark.parametrize("value", WRONG, ids=repr)
def test_otel_reader(value: Any) -> None:
    message = _message(lambda: otel.from_otel(value))
    assert not PYTHON_NAMES.search(message), message
    assert "got " in message


@pytest.mark.parametrize("value", [None, "text", 1.5, [1, 2]], ids=repr)
def test_convert_request_of_a_body_that_is_no_object(value: Any) -> None:
    message = _message(lambda: il.convert_request(value, source="anthropic", target="openai-chat"))
    assert not PYTHON_NAMES.search(message), message


@pytest.mark.parametrize(("value", "name"), [(None, "null"), ("s", "a string"), (1.5, "a number"), (True, "a boolean"), ({}, "an object"), ([], "an array")])
def test_a_json_type(value: Any, name: str) -> None:
    from interlingua.mapping.wire import a_json_type

    assert a_json_type(value) == name
