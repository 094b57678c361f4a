"""Encode and decode transcript documents and JSON Lines envelope streams.

Two read modes:

* ``"preserving"`` (default): an item whose ``type`` this reader does not know
  (for example one added by a newer minor schema version) is kept as an
  :class:`UnknownItem` and written back byte-for-byte. In a document of a newer
  minor version, a known item carrying fields this reader does not know is
  preserved the same way.
* ``"strict"``: every item must be one this reader knows exactly.

Versions: the same major with an equal or newer minor is read; a newer major
raises :class:`~interlingua.errors.VersionError` naming both versions; an older
major is for :mod:`interlingua.compat`.

JSON safety (enforced on write, and on read where JSON allows it): no NaN or
Infinity, string keys only, no bytes, only JSON types; nesting depth, item size
and inline base64 size are bounded by :class:`Limits`. Every violation is a
:class:`~interlingua.errors.DocumentError` (or a subclass) carrying a JSON
pointer, never a traceback.
"""

from __future__ import annotations

import binascii
import functools
import io
import itertools
import math
import operator
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Literal, TypeAlias

import msgspec

from .errors import DocumentError, LimitError, Problem, VersionError
from .items import (
    AudioItem,
    VideoItem,
    Base64Source,
    DocumentItem,
    Envelope,
    ImageItem,
    SessionHeader,
    InputItem,
    ResponseInfo,
    ResponseRecord,
    StopReason,
    Settings,
    ToolChoice,
    ToolDefinition,
    Transcript,
    Usage,
)

__all__ = [
    "DEFAULT_LIMITS",
    "KNOWN_ITEM_TYPES",
    "SCHEMA_VERSION",
    "Item",
    "JsonlRecord",
    "Limits",
    "Mode",
    "UnknownItem",
    "check_json_safe",
    "check_version",
    "decode_envelope",
    "decode_json",
    "decode_item",
    "decode_session_header",
    "decode_transcript",
    "encode_envelope",
    "encode_item",
    "encode_transcript",
    "iter_jsonl",
    "read_transcript",
    "to_builtins",
    "write_jsonl",
]

SCHEMA_VERSION = "1.0"
"""The schema version this library writes (``MAJOR.MINOR``)."""

_MAJOR, _MINOR = (int(p) for p in SCHEMA_VERSION.split("."))

Mode: TypeAlias = Literal["preserving", "strict"]


def _tag_of(cls: type) -> str:
    return cls.__struct_config__.tag  # type: ignore[attr-defined]


_ITEM_CLASSES: dict[str, type] = {_tag_of(c): c for c in InputItem.__origin__.__args__}  # type: ignore[attr-defined]
KNOWN_ITEM_TYPES: frozenset[str] = frozenset(_ITEM_CLASSES)
"""Item ``type`` values defined by this schema version."""


@dataclass(frozen=True)
class Limits:
    """Bounds applied on read and write.

    Attributes:
        max_depth: Deepest nesting of JSON arrays/objects inside one item (levels).
        max_item_bytes: Largest encoded item (bytes).
        max_line_bytes: Longest JSON Lines record (bytes).
        max_base64_bytes: Largest inline ``base64`` source ``data`` string (characters).
    """

    max_depth: int = 64
    max_item_bytes: int = 32 * 1024 * 1024
    max_line_bytes: int = 48 * 1024 * 1024
    max_base64_bytes: int = 24 * 1024 * 1024


DEFAULT_LIMITS = Limits()


class UnknownItem:
    """An item this reader does not know, preserved unchanged.

    Produced only in ``"preserving"`` mode. Encoding writes :attr:`raw` back
    byte-for-byte.

    Attributes:
        raw: The item's JSON exactly as read.
        type: The item's ``type`` (``None`` when it has none that is a string).
    """

    __slots__ = ("raw", "type", "_value")

    def __init__(self, raw: bytes, type: str | None = None) -> None:
        self.raw = bytes(raw)
        self.type = type
        self._value: Any = None

    @property
    def value(self) -> dict[str, Any]:
        """The item decoded as a plain dict (decoded lazily, cached)."""
        if self._value is None:
            self._value = msgspec.json.decode(self.raw)
        return self._value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, UnknownItem) and other.raw == self.raw

    def __hash__(self) -> int:
        return hash(self.raw)

    def __repr__(self) -> str:
        return f"UnknownItem(type={self.type!r}, raw={self.raw[:60]!r}{'...' if len(self.raw) > 60 else ''})"


Item: TypeAlias = InputItem | UnknownItem
"""A canonical item, or an unknown one preserved unchanged."""


# --------------------------------------------------------------------------- versions


_VERSION_RE = re.compile(r"^([0-9]+)\.([0-9]+)$")


def check_version(version: object, *, pointer: str = "/schema_version") -> tuple[int, int]:
    """Check a ``schema_version`` value against this reader.

    Args:
        version: The value read from a document or envelope.
        pointer: JSON pointer used in the error.

    Returns:
        ``(major, minor)``.

    Raises:
        VersionError: missing or malformed, or a newer major than :data:`SCHEMA_VERSION`,
            or an older major (read those through :mod:`interlingua.compat`).
    """
    if isinstance(version, str):
        return _check_version_str(version, pointer)
    raise VersionError(Problem(pointer, f"schema_version must be a 'MAJOR.MINOR' string, got {version!r}"))


@functools.lru_cache(maxsize=64)
def _check_version_str(version: str, pointer: str) -> tuple[int, int]:
    # Cached: stores and streams check the same few version strings on every row.
    if not (m := _VERSION_RE.match(version)):
        raise VersionError(Problem(pointer, f"schema_version must be a 'MAJOR.MINOR' string, got {version!r}"))
    major, minor = int(m.group(1)), int(m.group(2))
    if major > _MAJOR:
        raise VersionError(
            Problem(pointer, f"schema_version {version} is newer than this reader ({SCHEMA_VERSION}); upgrade interlingua to read it")
        )
    if major < _MAJOR:
        from .compat._upcast import registered  # only on this error: compat is not loaded to read current files

        if version in registered():
            advice = "read it through interlingua.compat (`interlingua migrate`)"
        else:  # `migrate` would refuse it too: say what is missing instead of sending the reader there
            advice = "no upcaster for it is registered (interlingua.compat.upcaster), so neither this reader nor `interlingua migrate` reads it"
        raise VersionError(Problem(pointer, f"schema_version {version} is older than this reader ({SCHEMA_VERSION}); {advice}"))
    return major, minor


# --------------------------------------------------------------------------- JSON safety


def _msgspec_path_to_pointer(path: str, prefix: str) -> str:
    """Turn msgspec's ``$.items[3].text`` into ``{prefix}/items/3/text``."""
    out = prefix
    for m in re.finditer(r"\.([^.\[]+)|\[(\d+)\]|\[\.\.\.\]", path[1:]):
        key = m.group(1) if m.group(1) is not None else m.group(2)
        if key is None:
            continue
        out += "/" + key.replace("~", "~0").replace("/", "~1")
    return out


def _split_msgspec_error(exc: Exception, prefix: str) -> Problem:
    text = str(exc)
    m = re.search(r" - at `(\$[^`]*)`$", text)
    if m:
        return Problem(_msgspec_path_to_pointer(m.group(1), prefix), text[: m.start()])
    return Problem(prefix, text)


_LONE_HIGH_SURROGATE = re.compile(rb'(?:^|[^\\])(?:\\\\)*(\\u[dD][89abAB][0-9a-fA-F]{2})(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})')
"""A ``\\uD800``-``\\uDBFF`` escape (not itself escaped) that no low surrogate escape follows."""


def _syntax_problem(raw: bytes, exc: Exception, pointer: str = "", *, one_line: bool = False) -> Problem:
    """A JSON syntax error located by line and column (msgspec reports a byte offset).

    ``one_line``: ``raw`` is one JSON Lines record, whose line number the reader sets; only the
    column is given.
    """
    text = str(exc)
    if text == "Input data was truncated" and not raw.strip():
        return Problem(pointer, "the input is empty (no JSON value)")
    m = re.search(r"\(byte (\d+)\)", text)
    lone = _LONE_HIGH_SURROGATE.search(raw) if not m and text == "Input data was truncated" else None
    if lone is None and not m:
        return Problem(pointer, f"invalid JSON: {text}")
    if lone is not None:  # msgspec reads 6 bytes past a high surrogate escape; near the end it says "truncated"
        offset = lone.start(1)
        text = f"lone UTF-16 surrogate escape {lone.group(1).decode()} (a high surrogate without its low half)"
    else:
        assert m is not None
        offset = int(m.group(1))
    line = raw.count(b"\n", 0, offset) + 1
    column = offset - (raw.rfind(b"\n", 0, offset) + 1) + 1
    at = raw[offset : offset + 9]
    if at.startswith((b"NaN", b"Infinity", b"-Infinity")):
        text = "NaN and Infinity are not valid JSON"
    elif offset == 0 and raw.startswith(b"\xef\xbb\xbf"):
        text = "the input starts with a UTF-8 byte order mark (BOM); JSON text has none (RFC 8259, section 8.1)"
    if one_line:
        return Problem(pointer, f"invalid JSON at column {column}: {text}")
    return Problem(pointer, f"invalid JSON at line {line}, column {column}: {text}", line=line)


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


_SCALARS = (str, int, bool, type(None))


def _json_safe_fast(value: Any, max_depth: int) -> bool:
    """True when ``value`` is certainly JSON-safe; False on any doubt (the precise walk then decides).

    The same walk as :func:`check_json_safe` without building a JSON pointer per field:
    encoding spends most of its time here, so the common case must be cheap.
    """
    unset = msgspec.UNSET
    stack: list[tuple[Any, int]] = [(value, 0)]
    pop, push = stack.pop, stack.append
    while stack:
        v, depth = pop()
        if depth > max_depth:
            return False
        t = type(v)
        if t is dict:
            for k, sub in v.items():
                if type(k) is not str:
                    return False
                if type(sub) not in _SCALARS:
                    push((sub, depth + 1))
        elif t is list:
            for sub in v:
                if type(sub) not in _SCALARS:
                    push((sub, depth + 1))
        elif t is float:
            if not math.isfinite(v):
                return False
        elif isinstance(v, msgspec.Struct):
            for sub in msgspec.structs.astuple(v):
                if sub is unset or type(sub) in _SCALARS:
                    continue
                push((sub, depth + 1 if type(sub) in (dict, list) else depth))
        elif t is UnknownItem:
            continue
        elif t not in _SCALARS:
            return False
    return True


# The typed fast check: one Python function per Struct class, generated from its declared field
# types the first time a value of that class is checked. Its answer is the same as the walks
# above (True only when every value is JSON-safe: it never trusts a declared type, it only
# orders the tests so that the value the declaration predicts costs one test).
_FIELD_OK = frozenset({str, int, bool, type(None), msgspec.UnsetType})
"""Types a Struct field may hold with nothing below them to check (``UNSET``: the field is left out)."""
_VALUE_OK = frozenset({str, int, bool, type(None)})
"""The same inside JSON data (``UNSET`` is no JSON value)."""


def _safe_value(x: Any, r: int) -> bool:
    """Whether ``x``, at ``r`` levels above the depth limit, is certainly JSON-safe (the precise walk decides a ``False``)."""
    t = type(x)
    if t in _VALUE_OK:
        return True
    if t is dict:
        return _safe_dict(x, r)
    if t is list:
        return _safe_list(x, r)
    if t is float:
        return r >= 0 and x - x == 0.0  # NaN and +-Infinity give NaN
    chk = _STRUCT_CHECKS.get(t)
    if chk is None:
        chk = _struct_check_for(t)
    return chk(x, r)


def _safe_field(x: Any, r: int) -> bool:
    """A Struct field's value (the Struct ``r`` levels above the limit): containers sit one level deeper, Structs at the same."""
    t = type(x)
    if t is dict:
        return _safe_dict(x, r - 1)
    if t is list:
        return _safe_list(x, r - 1)
    if t is float:
        return x - x == 0.0
    if t in _FIELD_OK:
        return True
    chk = _STRUCT_CHECKS.get(t)
    if chk is None:
        chk = _struct_check_for(t)
    return chk(x, r)


def _safe_dict(d: dict[Any, Any], r: int) -> bool:
    if r < 0:
        return False
    r -= 1
    for k, x in d.items():
        if type(k) is not str:
            return False
        t = type(x)
        if t in _VALUE_OK:
            continue
        if t is dict:
            if not _safe_dict(x, r):
                return False
        elif t is list:
            if not _safe_list(x, r):
                return False
        elif t is float:
            if r < 0 or x - x != 0.0:
                return False
        elif not _safe_value(x, r):
            return False
    return True


def _safe_list(v: list[Any], r: int) -> bool:
    if r < 0:
        return False
    r -= 1
    for x in v:
        t = type(x)
        if t in _VALUE_OK:
            continue
        if t is dict:
            if not _safe_dict(x, r):
                return False
        elif t is list:
            if not _safe_list(x, r):
                return False
        elif t is float:
            if r < 0 or x - x != 0.0:
                return False
        elif not _safe_value(x, r):
            return False
    return True


def _always_safe(x: Any, r: int) -> bool:
    return True


_MAX_DEPTH = DEFAULT_LIMITS.max_depth
_STRUCT_CHECKS: dict[type, Any] = {UnknownItem: _always_safe}
"""Struct class -> its generated check ``(value, r) -> bool`` (filled on first use)."""


def _struct_check_for(t: type) -> Any:
    """The check for a value of type ``t`` that is not plain JSON: a generated one for a Struct class, else the generic walk."""
    if not (isinstance(t, type) and issubclass(t, msgspec.Struct)):
        return _json_safe_fast  # same signature: (value, levels left)
    try:
        chk = _compile_struct_check(t)
    except Exception:  # e.g. a caller's Struct whose annotations do not resolve: the generic walk needs none
        chk = _json_safe_fast
    if len(_STRUCT_CHECKS) < 4096:  # classes made at run time (defstruct) must not grow it without end
        _STRUCT_CHECKS[t] = chk
    return chk


def _compile_struct_check(cls: type) -> Any:
    """Generate ``check(v, r)`` for one Struct class: one test per field, in declaration order.

    Per field, by its declared type (which only orders the tests, it is never trusted: a Struct
    is not validated on construction, so a wrong type can be there):

    - a string, number, boolean or literal field reads the value once and tests
      ``type(x) is <the declared type>`` (an optional field first ``x is UNSET``), then
      ``type(x) in _FIELD_OK``; any other value goes to :func:`_safe_field`;
    - a field of one to three Struct classes has those classes' tests inlined behind
      ``type(x) is C`` (three levels deep at most); a union of more classes looks its check up
      in ``_STRUCT_CHECKS``;
    - a dict or list field goes to the JSON walk; every other value to :func:`_safe_field`,
      which looks at the value itself.

    The names the check uses are globals of its own namespace (specialised global loads, nothing
    to set up per call). Measured on the benchmark's 9,078 envelopes (callgrind): 140M
    instructions against 163M for the previous generator (one more local store and a set test
    per field) and 96M for msgspec's encode of the same structs.
    """
    import keyword

    import msgspec.inspect as mi

    scalar = (mi.StrType, mi.IntType, mi.BoolType, mi.NoneType, mi.LiteralType, mi.FloatType)

    def members(t: Any) -> list[Any]:
        if isinstance(t, mi.Metadata):
            return members(t.type)
        if isinstance(t, mi.UnionType):
            return [m for s in t.types for m in members(s)]
        return [t]

    def plain(c: type) -> bool:
        return all(n.isidentifier() and not keyword.iskeyword(n) for n in c.__struct_fields__)  # type: ignore[attr-defined]

    def primary(kinds: list[Any]) -> str | None:
        """The one Python type every declared member has (``str`` for a string literal), else None."""
        found: set[type] = set()
        for k in kinds:
            if isinstance(k, mi.StrType):
                found.add(str)
            elif isinstance(k, mi.IntType):
                found.add(int)
            elif isinstance(k, mi.BoolType):
                found.add(bool)
            elif isinstance(k, mi.LiteralType):
                found.update(type(x) for x in k.values)
            else:
                return None
        if len(found) != 1:
            return None
        return {str: "str", int: "int", bool: "bool"}.get(found.pop())

    if not plain(cls):
        return _json_safe_fast
    namespace: dict[str, Any] = {
        "_FIELD_OK": _FIELD_OK, "_safe_field": _safe_field, "_safe_dict": _safe_dict, "_safe_list": _safe_list,
        "_STRUCT_CHECKS": _STRUCT_CHECKS, "UNSET": msgspec.UNSET, "UnsetType": msgspec.UnsetType,
    }
    lines = ["def check(v, r):", "    if r < 0:", "        return False"]

    def emit(c: type, var: str, indent: str, nesting: int) -> None:
        lines.append(f"{indent}pass")  # a class without fields
        for f in mi.type_info(c).fields:  # type: ignore[attr-defined]
            kinds = members(f.type)
            a, x, t = f"{var}.{f.name}", f"x{nesting}", f"t{nesting}"
            fail = [f"{indent}    return False"]
            if all(isinstance(k, scalar) for k in kinds):
                p = primary(kinds)
                if p is None:
                    lines.extend([f"{indent}if type({a}) not in _FIELD_OK and not _safe_field({a}, r):", *fail])
                elif f.required:
                    lines.extend([f"{indent}if type({a}) is not {p} and type({a}) not in _FIELD_OK and not _safe_field({a}, r):", *fail])
                else:
                    lines.extend([f"{indent}{x} = {a}", f"{indent}if {x} is not UNSET and type({x}) is not {p} and type({x}) not in _FIELD_OK and not _safe_field({x}, r):", *fail])
                continue
            lines.append(f"{indent}{x} = {a}")
            if all(isinstance(k, mi.StructType) for k in kinds):
                classes = [k.cls for k in kinds]
                if len(classes) <= 3 and nesting < 3 and all(plain(k) for k in classes):
                    lines.append(f"{indent}{t} = type({x})")
                    for i, k in enumerate(classes):
                        name = f"C_{k.__name__}_{len(namespace)}"
                        namespace[name] = k
                        lines.append(f"{indent}{'if' if i == 0 else 'elif'} {t} is {name}:")
                        emit(k, x, indent + "    ", nesting + 1)
                    lines.extend([f"{indent}elif {t} is not UnsetType and not _safe_field({x}, r):", *fail])
                else:
                    lines.extend([
                        f"{indent}c = _STRUCT_CHECKS.get(type({x}))",
                        f"{indent}if not (c({x}, r) if c is not None else _safe_field({x}, r)):",
                        *fail,
                    ])
            elif len(kinds) == 1 and isinstance(kinds[0], mi.DictType):
                lines.extend([f"{indent}if type({x}) is dict:", f"{indent}    if not _safe_dict({x}, r - 1):", f"{indent}        return False",
                              f"{indent}elif {x} is not UNSET and not _safe_field({x}, r):", *fail])
            elif len(kinds) == 1 and isinstance(kinds[0], mi.ListType):
                lines.extend([f"{indent}if type({x}) is list:", f"{indent}    if not _safe_list({x}, r - 1):", f"{indent}        return False",
                              f"{indent}elif {x} is not UNSET and not _safe_field({x}, r):", *fail])
            else:
                lines.extend([f"{indent}if {x} is not UNSET and not _safe_field({x}, r):", *fail])

    emit(cls, "v", "    ", 0)
    lines.append("    return True")
    exec(compile("\n".join(lines), f"<interlingua JSON-safety check for {cls.__qualname__}>", "exec"), namespace)  # noqa: S102
    return namespace["check"]


def _json_safe_typed(value: Any, max_depth: int) -> bool:
    """True when ``value`` is certainly JSON-safe within ``max_depth``; False on any doubt."""
    try:
        return _safe_value(value, max_depth)
    except RecursionError:  # deeper than Python's stack (a large max_depth): the iterative walk decides
        return False


def check_json_safe(value: Any, pointer: str = "", *, max_depth: int = DEFAULT_LIMITS.max_depth) -> None:
    """Check that ``value`` is plain, JSON-safe data.

    Allowed: ``dict`` with ``str`` keys, ``list``, ``str``, ``int``, finite ``float``,
    ``bool``, ``None``; msgspec Structs are walked field by field.

    Raises:
        DocumentError: at the first offending place (JSON pointer below ``pointer``).
        LimitError: nesting deeper than ``max_depth``.
    """
    if _json_safe_typed(value, max_depth):
        return
    stack: list[tuple[Any, str, int]] = [(value, pointer, 0)]
    while stack:
        v, ptr, depth = stack.pop()
        if depth > max_depth:
            raise LimitError(Problem(ptr, f"nesting deeper than {max_depth} levels"))
        if v is None or isinstance(v, (str, bool, int)):
            continue
        if isinstance(v, float):
            if not math.isfinite(v):
                raise DocumentError(Problem(ptr, f"{v!r} is not JSON-safe (NaN and Infinity are not allowed)"))
            continue
        if isinstance(v, dict):
            for k, sub in v.items():
                if not isinstance(k, str):
                    raise DocumentError(Problem(ptr, f"object key {k!r} is not a string"))
                if isinstance(sub, (dict, list, float, msgspec.Struct)) or not isinstance(sub, (str, bool, int, type(None))):
                    stack.append((sub, f"{ptr}/{_escape(k)}", depth + 1))
            continue
        if isinstance(v, list):
            for i, sub in enumerate(v):
                if isinstance(sub, (dict, list, float, msgspec.Struct)) or not isinstance(sub, (str, bool, int, type(None))):
                    stack.append((sub, f"{ptr}/{i}", depth + 1))
            continue
        if isinstance(v, msgspec.Struct):
            for name in v.__struct_fields__:
                sub = getattr(v, name)
                if sub is msgspec.UNSET:
                    continue
                stack.append((sub, f"{ptr}/{name}", depth + 1 if isinstance(sub, (dict, list)) else depth))
            continue
        if isinstance(v, UnknownItem):
            continue
        if isinstance(v, (bytes, bytearray, memoryview)):
            raise DocumentError(Problem(ptr, "bytes are not JSON-safe; base64-encode them into a string"))
        raise DocumentError(Problem(ptr, f"{type(v).__name__} is not a JSON type"))


def decode_json(
    data: bytes | str,
    *,
    limits: Limits = DEFAULT_LIMITS,
    max_depth: int | None = None,
    max_bytes: int | None = None,
    pointer: str = "",
    one_line: bool = False,
) -> Any:
    """Decode any JSON text (a provider body, one stream event) under this module's JSON-safety rules.

    The one JSON path for wire input: msgspec parses it, so lone or invalid UTF-16 surrogates,
    ``NaN``/``Infinity`` and numbers out of range are refused (never passed on to crash an
    encoder later); nesting deeper than the limit and texts larger than ``max_bytes`` are refused.

    Args:
        data: The JSON text.
        limits: Bounds; ``max_depth`` defaults to ``limits.max_depth`` plus 16 levels for the
            provider envelope around the items (a body is not one item).
        max_depth: Deepest nesting of arrays/objects allowed (overrides the default).
        max_bytes: Largest text accepted (bytes); ``None`` for no size bound.
        pointer: JSON pointer used in errors.
        one_line: ``data`` is one line of a larger input (only the column is given in errors).

    Returns:
        The decoded value (``dict``, ``list``, ``str``, ``int``, ``float``, ``bool`` or ``None``).

    Raises:
        DocumentError: not valid JSON (with line and column), or a number out of range.
        LimitError: too deep or too large.
    """
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    depth = max_depth if max_depth is not None else limits.max_depth + 16
    if max_bytes is not None and len(raw) > max_bytes:
        raise LimitError(Problem(pointer, f"JSON text is {len(raw)} bytes; the limit is {max_bytes}"))
    try:
        value = _any_decoder.decode(raw)
    except msgspec.ValidationError as exc:  # e.g. a number out of range
        raise DocumentError(Problem(pointer, f"invalid JSON value: {exc}")) from exc
    except msgspec.DecodeError as exc:
        raise DocumentError(_syntax_problem(raw, exc, pointer, one_line=one_line)) from exc
    except RecursionError as exc:
        raise LimitError(Problem(pointer, "nesting too deep")) from exc
    if not _few_brackets(raw, depth) and _depth(value, depth) > depth:
        raise LimitError(Problem(pointer, f"nesting deeper than {depth} levels"))
    return value


def _few_brackets(raw: bytes, max_depth: int) -> bool:
    """Fewer brackets than the limit cannot nest deeper than it (a C-speed pre-check)."""
    return raw.count(b"{") + raw.count(b"[") <= max_depth


def _depth(value: Any, limit: int) -> int:
    """Nesting depth of plain JSON data (a scalar is 0), stopping once it exceeds ``limit``."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        v, d = stack.pop()
        if d > deepest:
            deepest = d
            if d > limit:
                return d
        if type(v) is dict:
            stack.extend((x, d + 1) for x in v.values() if type(x) in (dict, list))
        elif type(v) is list:
            stack.extend((x, d + 1) for x in v if type(x) in (dict, list))
    return deepest


_FREE_FORM = ("arguments", "data", "value", "metadata", "provider_data")


def _item_too_deep(item: Any, max_depth: int, level: int = 1) -> bool:
    """Whether a decoded item nests deeper than ``max_depth`` (the item object is ``level``).

    Typed fields nest shallowly by the schema; only free-form values (arguments, data,
    value, metadata, provider_data, opaque value) and results' content can be deep.
    """
    for name in _FREE_FORM:
        v = getattr(item, name, None)
        if type(v) in (dict, list) and level + _depth(v, max_depth) > max_depth:
            return True
    opaque = getattr(item, "opaque", None)
    if isinstance(opaque, msgspec.Struct):
        v = opaque.value  # type: ignore[attr-defined]
        if type(v) in (dict, list) and level + 1 + _depth(v, max_depth) > max_depth:
            return True
    for sub in getattr(item, "content", None) or ():
        if isinstance(sub, msgspec.Struct) and _item_too_deep(sub, max_depth, level + 2):
            return True
    return False


_MEDIA_CLASSES = (ImageItem, AudioItem, VideoItem, DocumentItem)


def _check_base64(item: Any, pointer: str, limits: Limits) -> None:
    """Refuse an inline ``base64`` source over ``max_base64_bytes`` (:class:`LimitError`) or whose
    ``data`` is not base64 (:class:`DocumentError`): RFC 4648 standard alphabet with its padding, no
    whitespace, nothing after the padding (``binascii.a2b_base64(data, strict_mode=True)``), so nothing written fails to decode on the
    way to a provider. Checked for the item's own source and the media items of its ``content``."""
    src = getattr(item, "source", None)
    if isinstance(src, Base64Source):
        if len(src.data) > limits.max_base64_bytes:
            raise LimitError(
                Problem(f"{pointer}/source/data", f"inline base64 is {len(src.data)} characters; the limit is {limits.max_base64_bytes} (use an artifact_ref or a file source)")
            )
        try:
            binascii.a2b_base64(src.data, strict_mode=True)
            if src.data.endswith("==="):  # (strict mode still takes a whole padding quantum)
                raise binascii.Error("Excess padding")
        except (binascii.Error, ValueError) as exc:
            raise DocumentError(Problem(f"{pointer}/source/data", f"data is not valid base64 ({exc}; standard alphabet with padding, no whitespace)")) from None
    for i, sub in enumerate(getattr(item, "content", None) or ()):
        if isinstance(sub, _MEDIA_CLASSES):
            _check_base64(sub, f"{pointer}/content/{i}", limits)


# --------------------------------------------------------------------------- items

_item_decoder = msgspec.json.Decoder(InputItem)
_any_decoder = msgspec.json.Decoder()
_encoder = msgspec.json.Encoder(enc_hook=lambda obj: _enc_hook(obj))


def _enc_hook(obj: Any) -> Any:
    if isinstance(obj, UnknownItem):
        return msgspec.Raw(obj.raw)
    raise NotImplementedError(f"{type(obj).__name__} is not JSON-safe")


_REPEATED = " (a key given more than once counts with its last value)"


def _last_wins(raw: bytes, decoder: msgspec.json.Decoder[Any], problem: Problem, pointer: str) -> tuple[Any, Problem]:
    """Duplicate keys: the last value counts, in every reader (ADR 0015).

    msgspec keeps the last value of a repeated field but picks a tagged union's class by the first
    ``type`` key, so ``{"type": "x", ..., "type": "text"}`` fails with ``Invalid value`` at a
    ``type``. On that error only, the object is read generically (last value wins), written once
    and decoded again. Returns ``(value, problem)``: the value when the re-read decodes, else
    ``None`` and the problem to report (the re-read's own, marked, when it differs).
    """
    if not problem.message.startswith("Invalid value"):
        return None, problem
    try:
        norm = msgspec.json.encode(_any_decoder.decode(raw))
    except (msgspec.DecodeError, RecursionError, TypeError, ValueError):
        return None, problem
    try:
        return decoder.decode(norm), problem
    except msgspec.ValidationError as exc:
        again = _split_msgspec_error(exc, pointer)
        if again == problem:  # nothing was repeated: the same error
            return None, problem
        return None, Problem(again.pointer, again.message + _REPEATED)
    except (msgspec.DecodeError, RecursionError):
        return None, problem


def _decode_one_item(raw: bytes, pointer: str, mode: Mode, newer_minor: bool, limits: Limits) -> Item:
    if len(raw) > limits.max_item_bytes:
        raise LimitError(Problem(pointer, f"item is {len(raw)} bytes; the limit is {limits.max_item_bytes}"))
    try:
        item = _item_decoder.decode(raw)
    except msgspec.ValidationError as exc:
        again, problem = _last_wins(raw, _item_decoder, _split_msgspec_error(exc, pointer), pointer)
        if again is not None:
            return _checked_item(again, raw, pointer, limits)
        if mode == "preserving":
            try:
                generic = _any_decoder.decode(raw)
            except msgspec.DecodeError:
                generic = None
            if isinstance(generic, dict):
                typ = generic.get("type")
                # an unknown item is kept only with a non-empty string `type` (the store keeps it by
                # its type: one contract for validate and store import)
                if isinstance(typ, str) and typ and typ not in KNOWN_ITEM_TYPES:
                    return UnknownItem(raw, typ)
                if newer_minor and "unknown field" in problem.message and isinstance(typ, str) and typ:
                    return UnknownItem(raw, typ)
        if problem.message.startswith("Invalid value") and problem.pointer == f"{pointer}/type":
            problem = Problem(problem.pointer, _bad_type_message(raw, mode))
        raise DocumentError(problem) from exc
    except msgspec.DecodeError as exc:
        raise DocumentError(Problem(pointer, f"invalid JSON: {exc}")) from exc
    except RecursionError as exc:
        raise LimitError(Problem(pointer, "nesting too deep")) from exc
    return _checked_item(item, raw, pointer, limits)


def check_item_limits(item: Item, encoded: bytes, *, pointer: str = "", limits: Limits = DEFAULT_LIMITS) -> None:
    """Check an item built in memory (a mapper's output) against the limits every reader applies.

    What a writer writes must read back: an item over ``max_item_bytes``, nested deeper than
    ``max_depth`` or holding oversized inline base64 is refused here as it would be on reading.

    Args:
        item: The item.
        encoded: Its compact JSON (as it will be written).
        pointer: JSON pointer of the item, for the error.
        limits: The bounds (the readers' defaults unless given).

    Raises:
        LimitError: over a limit.
    """
    if len(encoded) > limits.max_item_bytes:
        raise LimitError(Problem(pointer, f"item is {len(encoded)} bytes; the limit is {limits.max_item_bytes}"))
    _checked_item(item, encoded, pointer, limits)


def _checked_item(item: Any, raw: bytes, pointer: str, limits: Limits) -> Item:
    if not _few_brackets(raw, limits.max_depth) and _item_too_deep(item, limits.max_depth):
        raise LimitError(Problem(pointer, f"nesting deeper than {limits.max_depth} levels"))
    if isinstance(item, _MEDIA_CLASSES) or getattr(item, "content", None):
        _check_base64(item, pointer, limits)
    return item


def _bad_type_message(raw: bytes, mode: Mode) -> str:
    """Why the item's ``type`` was refused: a duplicate key, a non-string, or a type this reader does not know."""
    try:
        generic = _any_decoder.decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        generic = None
    typ = generic.get("type") if isinstance(generic, dict) else None
    known = ", ".join(sorted(KNOWN_ITEM_TYPES))
    if isinstance(typ, str) and typ in KNOWN_ITEM_TYPES:
        # the typed decoder read another `type` than the last one: the key is given more than once
        return "the item has more than one `type` key; give `type` once"
    if not isinstance(typ, str):
        return f"item type must be a string naming an item type (known: {known})"
    if mode == "strict":
        return f"unknown item type {typ!r} (known: {known}); read in preserving mode to keep it"
    return f"unknown item type {typ!r} (known: {known})"


def decode_item(data: bytes | str, *, mode: Mode = "preserving", limits: Limits = DEFAULT_LIMITS, pointer: str = "") -> Item:
    """Decode one item from JSON.

    Args:
        data: The item's JSON.
        mode: ``"preserving"`` keeps unknown item types as :class:`UnknownItem`; ``"strict"`` rejects them.
        limits: Size and depth bounds.
        pointer: JSON pointer prefix used in errors.

    Raises:
        DocumentError: invalid JSON or not a valid item; LimitError: over a limit.
    """
    raw = data.encode() if isinstance(data, str) else bytes(data)
    try:
        return _decode_one_item(raw, pointer, mode, False, limits)
    except msgspec.DecodeError as exc:
        raise DocumentError(Problem(pointer, f"invalid JSON: {exc}")) from exc


def encode_item(item: Item) -> bytes:
    """Encode one item to compact JSON after checking it is JSON-safe.

    Raises:
        DocumentError: the item holds NaN/Infinity, bytes, non-string keys or non-JSON types.
    """
    return _checked_encode(item)


def _checked_encode(obj: Any) -> bytes:
    """``check_json_safe(obj)`` then ``_encode_text(obj)``, with the common case in one frame.

    A Struct whose class already has its generated check (:func:`_compile_struct_check`) is
    checked by it directly; anything else, or any doubt, goes through :func:`check_json_safe`
    (which decides, builds the error pointer and generates the check on first use). The work
    and the answers are the same; this only leaves out four Python calls per value, which at
    the benchmark's 9,078 envelopes were ~11M instructions against the check's ~140M.
    """
    chk = _STRUCT_CHECKS.get(type(obj))
    try:
        ok = chk is not None and chk(obj, _MAX_DEPTH)
    except RecursionError:  # deeper than Python's stack: the iterative walk decides
        ok = False
    if not ok:
        check_json_safe(obj)
    try:
        return _encoder.encode(obj)
    except UnicodeEncodeError:
        return _encode_text(obj)  # raises DocumentError at the string's pointer


def _encode_text(obj: Any) -> bytes:
    """``_encoder.encode(obj)``; a string that UTF-8 cannot carry (a lone surrogate, which Python
    strings may hold and JSON text may not) is a :class:`DocumentError` at its pointer."""
    try:
        return _encoder.encode(obj)
    except UnicodeEncodeError:
        pointer = _surrogate_pointer(obj, "") or ""
        raise DocumentError(Problem(pointer, "string holds a lone surrogate (not valid Unicode text, so not JSON text)")) from None


def _surrogate_pointer(value: Any, pointer: str) -> str | None:
    """The JSON pointer of the first string (or key) in ``value`` that UTF-8 cannot encode."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return pointer
        return None
    if isinstance(value, msgspec.Struct):
        for name, wire in zip(value.__struct_fields__, value.__struct_encode_fields__):
            found = _surrogate_pointer(getattr(value, name), f"{pointer}/{_escape(wire)}")
            if found is not None:
                return found
        return None
    if isinstance(value, dict):
        for key, sub in value.items():
            if _surrogate_pointer(key, "") is not None:
                return f"{pointer}/{_escape(str(key).encode('utf-8', 'backslashreplace').decode())}"
            found = _surrogate_pointer(sub, f"{pointer}/{_escape(key)}")
            if found is not None:
                return found
        return None
    if isinstance(value, (list, tuple)):
        for i, sub in enumerate(value):
            found = _surrogate_pointer(sub, f"{pointer}/{i}")
            if found is not None:
                return found
    return None


def to_builtins(obj: Any) -> Any:
    """Convert items, transcripts or envelopes to plain dicts/lists (UNSET fields left out)."""
    return msgspec.json.decode(_encoder.encode(obj))


# --------------------------------------------------------------------------- transcripts


class _TranscriptShell(msgspec.Struct, forbid_unknown_fields=True):
    schema_version: str
    items: list[msgspec.Raw]
    tools: list[ToolDefinition] | msgspec.UnsetType = msgspec.UNSET
    tool_choice: ToolChoice | msgspec.UnsetType = msgspec.UNSET
    settings: Settings | msgspec.UnsetType = msgspec.UNSET
    metadata: dict[str, Any] | msgspec.UnsetType = msgspec.UNSET
    usage: Usage | msgspec.UnsetType = msgspec.UNSET
    stop_reason: StopReason | msgspec.UnsetType = msgspec.UNSET
    response: ResponseInfo | msgspec.UnsetType = msgspec.UNSET
    responses: list[ResponseRecord] | msgspec.UnsetType = msgspec.UNSET


class _VersionOnly(msgspec.Struct):
    schema_version: Any = msgspec.UNSET


_shell_decoder = msgspec.json.Decoder(_TranscriptShell)
_version_decoder = msgspec.json.Decoder(_VersionOnly)


def _read_version(raw: bytes) -> tuple[int, int]:
    try:
        head = _version_decoder.decode(raw)
    except msgspec.ValidationError as exc:
        raise DocumentError(_split_msgspec_error(exc, "")) from exc
    if head.schema_version is msgspec.UNSET:
        raise VersionError(Problem("", "missing required field `schema_version`"))
    return check_version(head.schema_version)


def decode_transcript(
    data: bytes | str, *, mode: Mode = "preserving", limits: Limits = DEFAULT_LIMITS, collect: bool = False
) -> Transcript:
    """Decode a transcript document (``{"schema_version", "tools", "tool_choice", "settings", "items", "metadata"}``).

    Args:
        data: The document's JSON.
        mode: ``"preserving"`` or ``"strict"`` (see the module docstring).
        limits: Size and depth bounds.
        collect: Report every invalid item in one :class:`DocumentError` instead of stopping at the
            first; the error's ``partial`` attribute then lists the decoded items (``None`` where one failed).

    Returns:
        A :class:`~interlingua.items.Transcript` whose ``items`` may include :class:`UnknownItem`
        in preserving mode.

    Raises:
        DocumentError: invalid JSON, invalid document or item (with JSON pointers).
        VersionError: missing/malformed ``schema_version`` or a newer major.
        LimitError: a limit was exceeded.
    """
    raw = data.encode() if isinstance(data, str) else bytes(data)
    try:
        _, minor = _read_version(raw)
        shell = _shell_decoder.decode(raw)
    except msgspec.ValidationError as exc:
        raise DocumentError(_split_msgspec_error(exc, "")) from exc
    except msgspec.DecodeError as exc:
        raise DocumentError(_syntax_problem(raw, exc)) from exc
    except RecursionError as exc:
        raise LimitError(Problem("", "nesting too deep")) from exc
    newer = minor > _MINOR
    items: list[Any] = []
    problems: list[Problem] = []
    for i, r in enumerate(shell.items):
        try:
            items.append(_decode_one_item(bytes(r), f"/items/{i}", mode, newer, limits))
        except DocumentError as exc:
            if not collect:
                raise
            problems.extend(exc.problems)
            items.append(None)
    for name in ("tools", "metadata", "tool_choice", "settings", "response"):
        val = getattr(shell, name)
        if val is not msgspec.UNSET:
            check_json_safe(val, f"/{name}", max_depth=limits.max_depth)
    if problems:
        err = DocumentError(problems)
        err.partial = items  # the items that did decode, for further checks
        raise err
    return Transcript(
        schema_version=shell.schema_version,
        items=items,
        tools=shell.tools,
        tool_choice=shell.tool_choice,
        settings=shell.settings,
        metadata=shell.metadata,
        usage=shell.usage,
        stop_reason=shell.stop_reason,
        response=shell.response,
        responses=shell.responses,
    )


def read_transcript(path: str | os.PathLike[str], *, mode: Mode = "preserving", limits: Limits = DEFAULT_LIMITS) -> Transcript:
    """Read a transcript document from a file; errors name the file.

    Raises:
        DocumentError: as :func:`decode_transcript`, with ``file`` set on every problem.
        OSError: the file cannot be read.
    """
    data = Path(path).read_bytes()
    try:
        return decode_transcript(data, mode=mode, limits=limits)
    except DocumentError as exc:
        raise exc.located(file=str(path)) from exc


def encode_transcript(transcript: Transcript, *, indent: int = 0) -> bytes:
    """Encode a transcript document to JSON.

    Args:
        transcript: The document. ``schema_version`` is written as given.
        indent: ``0`` for compact output, else spaces per level.

    Raises:
        DocumentError: something in it is not JSON-safe.
    """
    check_json_safe(transcript, max_depth=10_000)
    out = _encode_text(transcript)
    return msgspec.json.format(out, indent=indent) if indent else out


# --------------------------------------------------------------------------- envelopes / JSON Lines


class _EnvelopeShell(msgspec.Struct, forbid_unknown_fields=True):
    schema_version: str
    session_id: str
    seq: int
    item: msgspec.Raw
    created_at: str | msgspec.UnsetType = msgspec.UNSET
    usage: Usage | msgspec.UnsetType = msgspec.UNSET
    stop_reason: StopReason | msgspec.UnsetType = msgspec.UNSET
    response: ResponseInfo | msgspec.UnsetType = msgspec.UNSET


_envelope_shell_decoder = msgspec.json.Decoder(_EnvelopeShell)


_envelope_decoder = msgspec.json.Decoder(Envelope)


def _decode_envelope_fast(raw: bytes, limits: Limits) -> Envelope | None:
    """One typed pass for an ordinary line of this exact version; ``None`` sends it down the careful path.

    The careful path (version first, then the frame, then the item) gives the precise error
    and preserves unknown items; most lines never need it.
    """
    if len(raw) > limits.max_item_bytes:
        return None
    try:
        env = _envelope_decoder.decode(raw)
    except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
        return None
    if env.schema_version != SCHEMA_VERSION or env.seq < 0 or not env.session_id:
        return None
    item = env.item
    if _item_too_deep(item, limits.max_depth, level=2) or (
        env.usage is not msgspec.UNSET and type(env.usage.details) is dict and 3 + _depth(env.usage.details, limits.max_depth) > limits.max_depth
    ):
        return None
    if isinstance(item, _MEDIA_CLASSES) or getattr(item, "content", None):
        try:
            _check_base64(item, "/item", limits)
        except (LimitError, DocumentError):
            return None
    return env


def decode_envelope(data: bytes | str, *, mode: Mode = "preserving", limits: Limits = DEFAULT_LIMITS) -> Envelope:
    """Decode one JSON Lines envelope (``{"schema_version", "session_id", "seq", "created_at", "item"}``).

    Raises:
        DocumentError, VersionError, LimitError: with JSON pointers inside the line.
    """
    raw = data.encode() if isinstance(data, str) else bytes(data)
    if len(raw) > limits.max_line_bytes:
        raise LimitError(Problem("", f"line is {len(raw)} bytes; the limit is {limits.max_line_bytes}"))
    fast = _decode_envelope_fast(raw, limits)
    if fast is not None:
        return fast
    try:
        _, minor = _read_version(raw)
        shell = _envelope_shell_decoder.decode(raw)
    except msgspec.ValidationError as exc:
        raise DocumentError(_split_msgspec_error(exc, "")) from exc
    except msgspec.DecodeError as exc:
        raise DocumentError(_syntax_problem(raw, exc, one_line=True)) from exc
    except RecursionError as exc:
        raise LimitError(Problem("", "nesting too deep")) from exc
    if shell.seq < 0:
        raise DocumentError(Problem("/seq", f"seq must be >= 0, got {shell.seq}"))
    if not shell.session_id:
        raise DocumentError(Problem("/session_id", "session_id must not be empty"))
    item = _decode_one_item(bytes(shell.item), "/item", mode, minor > _MINOR, limits)
    return Envelope(
        schema_version=shell.schema_version,
        session_id=shell.session_id,
        seq=shell.seq,
        item=item,  # type: ignore[arg-type]
        created_at=shell.created_at,
        usage=shell.usage,
        stop_reason=shell.stop_reason,
        response=shell.response,
    )


def encode_envelope(envelope: Envelope) -> bytes:
    """Encode one envelope as a compact JSON line (without the newline).

    Raises:
        DocumentError: something in it is not JSON-safe.
    """
    return _checked_encode(envelope)


@dataclass(frozen=True)
class JsonlRecord:
    """One line of a JSON Lines stream read by :func:`iter_jsonl` with ``errors="yield"``.

    Attributes:
        line: 1-based line number.
        envelope: The decoded envelope, or ``None`` when the line is invalid (or is the header).
        error: The problem with the line, or ``None``.
        header: The session header, when this line is one (a session file has one per session).
    """

    line: int
    envelope: Envelope | None
    error: DocumentError | None
    header: SessionHeader | None = None


_header_decoder = msgspec.json.Decoder(SessionHeader)


def _looks_like_header(raw: bytes) -> bool:
    return raw.startswith(b"{") and b'"session"' in raw[:64] and b'"item"' not in raw[:4096]


def decode_session_header(data: bytes | str) -> SessionHeader:
    """Decode a session header line of a session file (``{"schema_version", "session": {...}}``).

    Raises:
        DocumentError, VersionError: with JSON pointers inside the line.
    """
    raw = data.encode() if isinstance(data, str) else bytes(data)
    try:
        _read_version(raw)
        header = _header_decoder.decode(raw)
    except msgspec.ValidationError as exc:
        raise DocumentError(_split_msgspec_error(exc, "")) from exc
    except msgspec.DecodeError as exc:
        raise DocumentError(_syntax_problem(raw, exc, one_line=True)) from exc
    except RecursionError as exc:
        raise LimitError(Problem("", "nesting too deep")) from exc
    for name in ("metadata", "tools", "tool_choice", "settings"):
        value = getattr(header.session, name)
        if value is not msgspec.UNSET:
            check_json_safe(value, f"/session/{name}")
    return header


def _open_binary(source: str | os.PathLike[str] | IO[bytes]) -> tuple[IO[bytes], bool]:
    if isinstance(source, (str, os.PathLike)):
        return open(source, "rb"), True  # noqa: SIM115
    return source, False


def iter_jsonl(
    source: str | os.PathLike[str] | IO[bytes],
    *,
    mode: Mode = "preserving",
    limits: Limits = DEFAULT_LIMITS,
    errors: Literal["raise", "yield"] = "raise",
    file_label: str | None = None,
) -> Iterator[Any]:
    """Read a JSON Lines envelope stream in bounded memory (one line at a time).

    Blank lines are skipped. A last line without a newline is read; if it does not
    parse it is reported as truncated. Session header lines
    (:class:`~interlingua.items.SessionHeader`, as ``interlingua store export`` and ``migrate -o``
    write before each session, see :mod:`interlingua.session_file`) are checked and skipped
    (``errors="yield"`` yields each as a record with ``header`` set).

    Args:
        source: A path or a binary file object.
        mode: Read mode for the items.
        limits: Bounds; a line over ``max_line_bytes`` is an error without being read whole.
        errors: ``"raise"`` yields :class:`~interlingua.items.Envelope` and raises the first
            :class:`DocumentError`; ``"yield"`` yields a :class:`JsonlRecord` for every line.
        file_label: Name used in error locations (default: the path).

    Raises:
        DocumentError: (``errors="raise"``) with file and line set.
    """
    parts = _jsonl_parts(source, mode=mode, limits=limits, errors=errors, file_label=file_label)
    if errors == "raise":
        # the envelopes of a block are handed out by C iterators, not resumed Python generators
        return itertools.chain.from_iterable(part[1] if type(part) is tuple else (part,) for part in parts)
    return _records(parts)


def _records(parts: Iterator[Any]) -> Iterator[Any]:
    for part in parts:
        if type(part) is not tuple:
            yield part
        else:
            for n, env in enumerate(part[1], part[0]):
                yield JsonlRecord(n, env, None)


def _jsonl_parts(
    source: str | os.PathLike[str] | IO[bytes],
    *,
    mode: Mode,
    limits: Limits,
    errors: Literal["raise", "yield"],
    file_label: str | None,
) -> Iterator[Any]:
    """:func:`iter_jsonl`'s reader: yields what it yields, except that a block of lines read in one
    pass comes as one ``(first line number, [Envelope, ...])`` tuple (consecutive lines)."""
    fh, owned = _open_binary(source)
    label = file_label or (str(source) if isinstance(source, (str, os.PathLike)) else getattr(fh, "name", None))
    label = str(label) if label is not None else None
    state = _JsonlState()

    def careful(line: bytes) -> Iterator[Any]:
        """One line the slow, precise way (``line`` holds its ``\n`` unless it is the last)."""
        state.line_no += 1
        line_no = state.line_no
        if len(line) - line.endswith(b"\n") > limits.max_line_bytes:
            err: DocumentError = LimitError(Problem("", f"line is longer than {limits.max_line_bytes} bytes", label, line_no))
            # Skip the rest of the over-long line without holding it.
            while not line.endswith(b"\n"):
                line = fh.readline(1 << 20)
                if not line:
                    break
            if errors == "raise":
                raise err
            yield JsonlRecord(line_no, None, err)
            return
        stripped = line.strip()
        if not stripped:
            return
        if _looks_like_header(stripped):
            state.seen_content = True
            try:
                header = decode_session_header(stripped)
            except DocumentError as exc:
                # a header and an envelope have disjoint required keys: a line that reads as a plain
                # envelope is one, wherever the word "session" is (the block path reads it so too)
                env = _decode_envelope_fast(stripped, limits)
                if env is not None:
                    yield env if errors == "raise" else JsonlRecord(line_no, env, None)
                    return
                located = exc.located(file=label, line=line_no)
                if errors == "raise":
                    raise located from exc
                yield JsonlRecord(line_no, None, located)
                return
            if errors == "yield":
                yield JsonlRecord(line_no, None, None, header)
            return
        state.seen_content = True
        try:
            env = decode_envelope(stripped, mode=mode, limits=limits)
        except DocumentError as exc:
            located = exc.located(file=label, line=line_no)
            if not line.endswith(b"\n"):
                located = DocumentError(
                    [Problem(p.pointer, f"last line is truncated (no newline, does not parse): {p.message}", p.file, p.line) for p in located.problems]
                )
            if errors == "raise":
                raise located from exc
            yield JsonlRecord(line_no, None, located)
            return
        yield env if errors == "raise" else JsonlRecord(line_no, env, None)

    # Blocks of whole lines go through one typed msgspec pass (`_decode_block`) when a cheap test
    # proves the per-line checks would pass; any doubt sends the block down `careful`, line by line.
    batch_ok = _BLOCK_BYTES <= min(limits.max_line_bytes, limits.max_item_bytes, limits.max_base64_bytes)

    def whole_lines(buf: bytes | bytearray, start: int, end: int) -> Iterator[Any]:
        """The lines ``buf[start:end]`` (``end`` one past the last line end of ``buf``; ``start`` 0 or
        one past a line end): one typed pass when the proofs hold, else the line-by-line path."""
        while not state.seen_content and start < end:
            nl = buf.find(b"\n", start) + 1
            yield from careful(bytes(buf[start:nl]))
            start = nl
        if start >= end:
            return
        # The whole span first: a session header never decodes as an envelope (its required
        # `session` key is no Envelope field), so success proves there is none in it and the
        # search for header lines is needed only when the span does not decode.
        # (a span that holds `"session"` holds a header line, or rarely that word in a value: it is
        # cut into runs first, not decoded whole only to fail at its first header)
        whole = batch_ok and buf.find(b'"session"', start, end) < 0
        envs = _decode_block(buf, limits, start, end) if whole else None
        if envs is not None:
            first = state.line_no + 1
            state.line_no += len(envs)
            yield (first, envs)
            return
        data = memoryview(buf)[start:end].tobytes() if start or end != len(buf) or type(buf) is not bytes else buf  # one copy
        for run, is_header in _header_runs(data):
            if is_header:  # a session header line (session files hold one per session)
                yield from careful(run)
                continue
            envs = _decode_block(run, limits) if batch_ok and (run is not data or not whole) else None
            if envs is None:
                for line in run.split(b"\n")[:-1]:
                    yield from careful(line + b"\n")
                continue
            first = state.line_no + 1
            state.line_no += len(envs)
            yield (first, envs)

    # Blocks are read into one buffer, reused (a fresh 1 MB bytes per read costs its pages
    # again each time). Only for the io module's own readers: any other file object is read with
    # `read`, which a wrapper may count or transform (a `readinto` passed through to the file
    # under it would go around that).
    readinto = fh.readinto if type(fh) in _READINTO_TYPES else None  # type: ignore[attr-defined]
    buffer = bytearray(_BLOCK_BYTES) if readinto is not None else None
    try:
        pending = b""
        while True:
            # Each block is decoded where it was read (no copy): only the line it shares with the
            # previous block (`pending` + its first line) is joined, and read on its own.
            block: bytes | bytearray
            if buffer is None or readinto is None:
                block = fh.read(_BLOCK_BYTES)
            else:
                n = readinto(buffer)
                block = buffer if n == len(buffer) else bytes(memoryview(buffer)[: n or 0])
            if not block:
                if pending:
                    yield from careful(pending)
                break
            start = block.find(b"\n") + 1
            if start == 0:
                # no line end in a whole block: a long line; finish it with the bounded line reader
                data = pending + block
                yield from careful(data + fh.readline(max(limits.max_line_bytes + 1 - len(data), 1)))
                pending = b""
                continue
            if pending:
                head = pending + block[:start]
                yield from whole_lines(head, 0, len(head))
            else:
                start = 0
            cut = block.rfind(b"\n") + 1
            pending = bytes(block[cut:])
            yield from whole_lines(block, start, cut)
    finally:
        if owned:
            fh.close()


_HEADER_LINE = re.compile(rb'(?m)^\{[^\n]{0,48}"session"[^\n]*\n')


def _header_runs(data: bytes) -> Iterator[tuple[bytes, bool]]:
    """``data`` (whole lines) cut into runs of envelope lines and single session header lines.

    A header line is what ``_HEADER_LINE`` matches (a line starting with ``{`` that has ``"session"``
    within its first 49 bytes and ends with a line end) and :func:`_looks_like_header` accepts. Found
    by C-speed searches for ``"session"`` (quotes included: an envelope's key is ``"session_id"``),
    one per line that holds it, not by the regex, which tries every byte as a line start (it was
    most of the time a session file took to read: 2.6x a bare envelope stream)."""
    start = 0
    pos = data.find(b'"session"')
    while pos >= 0:
        line_start = data.rfind(b"\n", 0, pos) + 1
        line_end = data.find(b"\n", pos) + 1
        if not line_end:
            break  # a last line without its line end is no header line (the regex needs the `\n`)
        # the first "session" of a line decides: a later one is further from the line start
        if pos - line_start <= 49 and data[line_start : line_start + 1] == b"{" and _looks_like_header(data[line_start:line_end].strip()):
            if line_start > start:
                yield data[start:line_start], False
            yield data[line_start:line_end], True
            start = line_end
        pos = data.find(b'"session"', line_end)
    if start < len(data):
        yield data[start:], False


_READINTO_TYPES = (io.BufferedReader, io.BytesIO, io.FileIO)


class _JsonlState:
    __slots__ = ("line_no", "seen_content")

    def __init__(self) -> None:
        self.line_no = 0
        self.seen_content = False


_BLOCK_BYTES = 1 << 20
"""Bytes read at a time by :func:`iter_jsonl` (a block never holds a line longer than this)."""

# A line end not preceded by `}` or not followed by `{`: the block is not plain one-object-per-line JSONL.
_ODD_LINE_END = re.compile(rb"\n(?:(?!\{)|(?<!\}\n))")
_KEEP_BRACKETS = bytes(b for b in range(256) if b not in b"{[\n")
_schema_version_of = operator.attrgetter("schema_version")
_KEEP_STRUCTURE = bytes(b for b in range(256) if b not in b"{}[],:\n")
"""Delete table: what is left of a block is its JSON punctuation and line ends (~5% of the bytes)."""


_ONE_BRACKET = bytes.maketrans(b"[", b"{")


@functools.lru_cache(maxsize=8)
def _bracket_run(n: int) -> bytes:
    return b"{" * n


@functools.lru_cache(maxsize=8)
def _many_brackets(n: int) -> re.Pattern[bytes]:
    return re.compile(rb"[^\n]{%d}" % n)


def _decode_items_block(data: bytes, count: int, limits: Limits = DEFAULT_LIMITS) -> list[Any] | None:
    """Decode ``count`` items, one JSON object per line of ``data`` (``\n``-joined, no final newline),
    in one typed msgspec pass; ``None`` unless every one would pass :func:`decode_item` unchanged
    (known type, types, nesting depth, size limits), by the same proofs as :func:`_decode_block`."""
    if len(data) > min(limits.max_item_bytes, limits.max_base64_bytes):
        return None
    if data[:1] != b"{" or data[-1:] != b"}":
        return None
    structure = data.translate(None, _KEEP_STRUCTURE)
    if _ODD_LINE_END.search(structure) is not None:
        return None
    brackets = structure.translate(None, _KEEP_BRACKETS)
    if _many_brackets(max(limits.max_depth - 1, 1)).search(brackets) is not None:
        return None
    try:
        items: list[Any] = _item_decoder.decode_lines(data)
    except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
        return None
    if len(items) != count or brackets.count(b"\n") != count - 1:
        return None
    if not _decoded_base64_ok(items, limits):
        return None  # the line-by-line path locates the bad data
    return items


def _decode_block(data: bytes | bytearray, limits: Limits, start: int = 0, end: int | None = None) -> list[Envelope] | None:
    """Decode a block of whole JSON Lines (``data[start:end]``, which ends with ``\n``) in one typed msgspec pass.

    When ``start`` is 0 or one past the first line end of ``data`` and ``end`` (default
    ``len(data)``) one past its last line end, the lines are read where they are (no copy of the
    span); any other span is read from a copy.

    Returns the envelopes only when this proves each line would pass :func:`decode_envelope`'s
    fast path unchanged, else ``None`` (the caller then reads the block line by line, which
    locates every problem):

    * in the block's punctuation (``{}[],:`` and line ends, everything else deleted: one
      ``bytes.translate``), every line end but the last has ``}`` before it and ``{`` after it, and
      the block starts with ``{``. In valid JSON (msgspec decodes the whole block) a line end inside
      a value always has another punctuation mark on one side (two adjacent tokens of one value are
      never a ``}`` then a ``{``, and a string or number next to the line end has a ``,``, ``:``,
      ``[`` or ``]`` beside it), so every line end is between two values and none spans two lines;
      with as many values as line ends, each line holds one. (Whitespace around a value is allowed:
      the line-by-line path strips it too.);
    * every line holds fewer than ``max_depth - 1`` opening brackets (``{`` or ``[``, strings
      included; counted on the punctuation left above), so no item or usage can nest deeper than the limit;
    * the block is no longer than the line, item and base64 limits (the caller's block size),
      so no line, item or base64 string can exceed them;
    * msgspec decodes every line as an :class:`~interlingua.items.Envelope` (types, ``seq >= 0``,
      non-empty ``session_id``, known item types only) and every ``schema_version`` is exactly
      :data:`SCHEMA_VERSION`.
    """
    if end is None:
        end = len(data)
    if data[start : start + 1] != b"{":
        return None
    structure = data.translate(None, _KEEP_STRUCTURE)
    if start or end != len(data):
        # the punctuation of data[start:end]: the lines after the first line end, up to the last
        if (start and data.find(b"\n") + 1 != start) or data.rfind(b"\n") + 1 != end:
            return _decode_block(data[start:end], limits)  # another span: on a copy
        structure = structure[structure.find(b"\n") + 1 if start else 0 : structure.rfind(b"\n") + 1]
        view: bytes | bytearray | memoryview = memoryview(data)[start:end]
    else:
        view = data
    # (C-speed counts and a substring test on the punctuation, ~50 KB a MB, instead of two regexes:
    # each `}\n{` holds one line end, so one fewer of them than line ends puts all but the last
    # between `}` and `{`; with `[` written as `{`, a line of as many brackets as the limit holds
    # that many `{` in a row)
    brackets = structure.translate(_ONE_BRACKET, _KEEP_BRACKETS)
    lines = brackets.count(b"\n")
    if structure.count(b"}\n{") != lines - 1:
        return None
    if _bracket_run(max(limits.max_depth - 1, 1)) in brackets:
        return None
    try:
        envs: list[Envelope] = _envelope_decoder.decode_lines(view)
    except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
        return None
    if len(envs) != lines:
        return None
    if any(map(SCHEMA_VERSION.__ne__, map(_schema_version_of, envs))):
        return None
    if not _decoded_base64_ok(list(map(_item_of, envs)), limits):
        return None  # the line-by-line path locates the bad data
    return envs


def _base64_ok(item: Any, limits: Limits) -> bool:
    if not (isinstance(item, _MEDIA_CLASSES) or getattr(item, "content", None)):
        return True
    try:
        _check_base64(item, "", limits)
    except (LimitError, DocumentError):
        return False
    return True


_MEDIA_TYPES = frozenset(_MEDIA_CLASSES)
_CONTENT_HOLDERS = frozenset(c for c in _ITEM_CLASSES.values() if "content" in c.__struct_fields__)  # type: ignore[attr-defined]
"""Item classes with a ``content`` list (:func:`_check_base64` looks into its media items)."""
_item_of = operator.attrgetter("item")
_content_of = operator.attrgetter("content")


def _decoded_base64_ok(items: list[Any], limits: Limits) -> bool:
    """:func:`_base64_ok` for every item of a typed decode (exact item classes, never ``UnknownItem``).

    The same answer, by class, without searching the text for a ``base64`` tag (a search for the
    tag, or for a ``\\u`` escape that could spell it, costs up to a pass over the bytes as long as
    a ``bytes.translate``; this looks at the decoded items instead). The classes are picked in C
    (``map(type, ...)``): a media item runs the check when its source is a ``Base64Source``; the
    ``content`` of all items that have one is looked at in one pass, and only when it holds a
    media item do those items run the check one by one."""
    types = list(map(type, items))
    for item in itertools.compress(items, map(_MEDIA_TYPES.__contains__, types)):
        if type(item.source) is Base64Source and not _base64_ok(item, limits):
            return False
    holders = list(itertools.compress(items, map(_CONTENT_HOLDERS.__contains__, types)))
    if holders and not _MEDIA_TYPES.isdisjoint(map(type, itertools.chain.from_iterable(map(_content_of, holders)))):
        return all(_base64_ok(item, limits) for item in holders)
    return True


def write_jsonl(envelopes: Iterable[Envelope], dest: str | os.PathLike[str] | IO[bytes]) -> int:
    """Write envelopes as JSON Lines (one compact envelope and ``\\n`` per line).

    A path is written to a temporary file beside it and renamed into place, so a
    failure leaves no half-written file.

    Returns:
        The number of lines written.

    Raises:
        DocumentError: an envelope is not JSON-safe (nothing is written to a path).
    """
    if isinstance(dest, (str, os.PathLike)):
        from ._paths import output_target

        path, in_place = output_target(dest)
        if in_place:  # /dev/null, a pipe: written as it is, never renamed over
            with open(path, "wb") as fh:
                return write_jsonl(envelopes, fh)
        tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
        try:
            with open(tmp, "wb") as fh:
                n = write_jsonl(envelopes, fh)
            os.replace(tmp, path)
        finally:
            if tmp.exists():
                tmp.unlink()
        return n
    n = 0
    for env in envelopes:
        dest.write(encode_envelope(env) + b"\n")
        n += 1
    return n
