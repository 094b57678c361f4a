"""Checked reading of provider wire data (bodies and stream events), shared by every mapper.

Three pieces, so that a wrongly typed field anywhere in provider input is a clear
:class:`~interlingua.errors.MalformedInputError` with a JSON pointer and never a ``TypeError``:

* :func:`decode_event`: the one JSON path for stream events (:func:`interlingua.codec.decode_json`:
  msgspec, no lone surrogates, no NaN/Infinity, bounded depth and size).
* :func:`check_shape`: typed validation of a decoded event or body against a msgspec Struct that
  the provider's module declares (the fields its decoder reads, with their documented JSON types).
* :func:`guarded`: wraps a mapper's ``decode_request``/``decode_response``. A shape the Struct
  does not cover that still trips the decoder (``TypeError``, ``KeyError``, ``AttributeError``,
  ``IndexError``, ``ValueError``) is located by running the decoder once more on a copy of the body
  that records which field was read last, and reported there.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

import msgspec

from ..codec import DEFAULT_LIMITS, decode_json
from ..codec._json_safety import split_msgspec_error
from ..errors import MalformedInputError

__all__ = ["DECODE_FAILURES", "check_shape", "decode_event", "fast_event", "guarded", "json_copy", "json_type", "locate_failure"]

DECODE_FAILURES = (TypeError, KeyError, AttributeError, IndexError, ValueError, msgspec.ValidationError)
"""Exceptions a decoder raises when the input has a shape it does not expect."""

_F = TypeVar("_F", bound=Callable[..., Any])


_ATOMS = frozenset({str, int, float, bool, type(None)})


def json_copy(value: Any) -> Any:
    """A deep copy of a JSON value (plain ``dict``/``list`` of JSON scalars), as ``copy.deepcopy`` gives.

    Plain dicts, lists and JSON scalars are copied by a direct walk (several times faster than
    ``deepcopy``, which keeps a memo for shared and cyclic references that decoded JSON never has);
    anything else (a dict subclass, a tuple, another object) is handed to ``copy.deepcopy``.
    """
    t = type(value)
    if t is dict:
        if _ATOMS.issuperset(map(type, value.values())):  # flat (the usual arguments): a C-level copy
            return value.copy()
        return {k: v if type(v) in _ATOMS else json_copy(v) for k, v in value.items()}
    if t is list:
        if _ATOMS.issuperset(map(type, value)):
            return value.copy()
        return [v if type(v) in _ATOMS else json_copy(v) for v in value]
    if t in _ATOMS:
        return value
    return copy.deepcopy(value)


def json_type(value: Any) -> str:
    """The JSON type name of a decoded value (``object``, ``array``, ``string``, ...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, (list, tuple)):
        return "array"
    return type(value).__name__


def a_json_type(value: Any) -> str:
    """:func:`json_type` with its article, for messages (``an object``, ``an array``, ``a string``, ``null``)."""
    name = json_type(value)
    if name == "null":
        return name
    return f"an {name}" if name[0] in "aeiou" else f"a {name}"


def decode_event(data: str | bytes, *, provider: str | None = None) -> Any:
    """Decode one stream event's JSON text.

    Raises:
        DocumentError: not valid JSON (lone surrogate, NaN/Infinity, syntax), with the column.
        LimitError: deeper or larger than :data:`interlingua.codec.DEFAULT_LIMITS` allows for one line.
    """
    return decode_json(data, max_bytes=DEFAULT_LIMITS.max_line_bytes, one_line=True)


_FAST_MAX_CHARS = DEFAULT_LIMITS.max_line_bytes // 4
"""A text of at most this many characters is at most ``max_line_bytes`` bytes in UTF-8 (4 bytes a character)."""


def fast_event(decoder: msgspec.json.Decoder[Any], data: str) -> Any:
    """Decode one stream event straight into a fast-path Struct, or ``None``: then run the checked path.

    The fast path of a stream accumulator for its most frequent event (a text delta). ``decoder``
    decodes into a Struct declared with ``forbid_unknown_fields=True`` whose fields are all typed
    (no ``Any``, no free-form ``dict``), so a successful decode proves everything
    :func:`decode_event` + :func:`check_shape` check: every value of the event was decoded and
    typed by msgspec (an unknown field would be skipped unchecked, so it is refused), the nesting
    depth is bounded by the Struct's own shape, and the text is within the line size limit. On any
    failure (a malformed text, a wrongly typed or unknown field, an unusual shape) it returns
    ``None`` and the accumulator runs its checked path, which raises the same error as before.
    """
    if len(data) > _FAST_MAX_CHARS:
        return None
    try:
        return decoder.decode(data)
    except (msgspec.DecodeError, UnicodeError):
        return None


def check_shape(data: Any, shape: Any, *, provider: str | None = None, pointer: str = "") -> None:
    """Check decoded JSON against ``shape`` (a msgspec Struct or type); unknown fields are allowed.

    Raises:
        MalformedInputError: the first wrongly typed field, with its JSON pointer below ``pointer``.
    """
    try:
        msgspec.convert(data, shape, strict=True)
    except msgspec.ValidationError as exc:
        problem = split_msgspec_error(exc, pointer)
        raise MalformedInputError(problem.pointer, problem.message, provider=provider) from exc


# --------------------------------------------------------------------------- locating a failure


class _Trail:
    __slots__ = ("last",)

    def __init__(self) -> None:
        self.last = ""


def _wrap(value: Any, ptr: str, trail: _Trail) -> Any:
    trail.last = ptr
    if type(value) is dict:
        return _TrackedDict(value, ptr, trail)
    if type(value) is list:
        return _TrackedList(value, ptr, trail)
    return value


def _esc(key: Any) -> str:
    return str(key).replace("~", "~0").replace("/", "~1")


class _TrackedDict(dict):
    """A dict that records the pointer of each value read from it (children wrapped alike)."""

    def __init__(self, src: dict[str, Any], ptr: str, trail: _Trail) -> None:
        super().__init__(src)
        self._ptr, self._trail = ptr, trail

    def __getitem__(self, key: Any) -> Any:
        self._trail.last = f"{self._ptr}/{_esc(key)}"
        return _wrap(super().__getitem__(key), f"{self._ptr}/{_esc(key)}", self._trail)

    def get(self, key: Any, default: Any = None) -> Any:
        self._trail.last = f"{self._ptr}/{_esc(key)}"
        if key in self:
            return self[key]
        return default

    def items(self) -> Iterator[tuple[Any, Any]]:  # type: ignore[override]
        for k in list(super().keys()):
            yield k, self[k]

    def values(self) -> Iterator[Any]:  # type: ignore[override]
        for k in list(super().keys()):
            yield self[k]


class _TrackedList(list):
    def __init__(self, src: list[Any], ptr: str, trail: _Trail) -> None:
        super().__init__(src)
        self._ptr, self._trail = ptr, trail

    def __getitem__(self, index: Any) -> Any:
        value = super().__getitem__(index)
        if isinstance(index, int):
            return _wrap(value, f"{self._ptr}/{index % max(len(self), 1)}", self._trail)
        return value

    def __iter__(self) -> Iterator[Any]:
        for i in range(len(self)):
            yield self[i]


def _value_at(body: Any, pointer: str) -> Any:
    cur = body
    for part in pointer.split("/")[1:]:
        key = part.replace("~1", "/").replace("~0", "~")
        if isinstance(cur, Mapping):
            cur = cur.get(key)
        elif isinstance(cur, list) and key.isdigit() and int(key) < len(cur):
            cur = cur[int(key)]
        else:
            return None
    return cur


def locate_failure(decode: Callable[[Any], Any], body: Any) -> str:
    """The JSON pointer of the field ``decode`` read last before failing on ``body`` (``""`` if unknown).

    ``decode`` is run once more on a copy of ``body`` that records each field read; decoders are
    pure, so the run fails at the same place.
    """
    trail = _Trail()
    try:
        decode(_wrap(body, "", trail))
    except Exception:  # noqa: BLE001 - the failure being located
        return trail.last
    return ""


def guarded(provider: str, what: str) -> Callable[[_F], _F]:
    """Decorate a decoder ``decode_*(body, ...)``: shape failures become :class:`MalformedInputError`.

    ``what`` names the body in the message (``"request"``, ``"response"``). A body that is not a
    JSON object, and any ``TypeError``/``KeyError``/``AttributeError``/``IndexError``/``ValueError``
    the decoder raises on a wrongly typed field, are reported with the field's pointer
    (see :func:`locate_failure`).
    """

    def deco(fn: _F) -> _F:
        @functools.wraps(fn)
        def wrapper(body: Any, *args: Any, **kwargs: Any) -> Any:
            if type(body) is not dict and not isinstance(body, Mapping):  # a dict first: the ABC check is slow
                raise MalformedInputError("", f"a {what} body is a JSON object, got {json_type(body)}", provider=provider)
            try:
                return fn(body, *args, **kwargs)
            except DECODE_FAILURES as exc:
                pointer = locate_failure(lambda b: fn(b, *args, **kwargs), body)
                found = json_type(_value_at(body, pointer)) if pointer else "object"
                reason = f"unexpected {found} in the {what} body ({type(exc).__name__})"
                raise MalformedInputError(pointer, reason, provider=provider) from exc
            except RecursionError as exc:
                raise MalformedInputError("", f"the {what} body nests too deeply", provider=provider) from exc

        return wrapper  # type: ignore[return-value]

    return deco
