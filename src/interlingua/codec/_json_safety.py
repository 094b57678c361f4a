"""JSON safety and limits: syntax errors located by line, the JSON-safe walk, depth and base64 bounds."""

from __future__ import annotations

import binascii
import math
import re
from typing import Any

import msgspec

from ..errors import DocumentError, LimitError, Problem
from ..items import AudioItem, VideoItem, Base64Source, DocumentItem, ImageItem
from ._model import DEFAULT_LIMITS, Limits, UnknownItem


# --------------------------------------------------------------------------- JSON safety

_any_decoder = msgspec.json.Decoder()
"""Plain JSON (dicts, lists, scalars): the careful path's decoder."""


def _msgspec_path_to_pointer(path: str, prefix: str) -> str:
    """Turn msgspec's ``$.items[3].text`` into ``{prefix}/items/3/text``."""
    out = prefix
    for m in re.finditer(r"\.([^.\[]+)|\[(\d+)\]|\[\.\.\.\]", path[1:]):
        key = m.group(1) if m.group(1) is not None else m.group(2)
        if key is None:
            continue
        out += "/" + key.replace("~", "~0").replace("/", "~1")
    return out


def split_msgspec_error(exc: Exception, prefix: str) -> Problem:
    text = str(exc)
    m = re.search(r" - at `(\$[^`]*)`$", text)
    if m:
        return Problem(_msgspec_path_to_pointer(m.group(1), prefix), text[: m.start()])
    return Problem(prefix, text)


_LONE_HIGH_SURROGATE = re.compile(rb'(?:^|[^\\])(?:\\\\)*(\\u[dD][89abAB][0-9a-fA-F]{2})(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})')
"""A ``\\uD800``-``\\uDBFF`` escape (not itself escaped) that no low surrogate escape follows."""


def syntax_problem(raw: bytes, exc: Exception, pointer: str = "", *, one_line: bool = False) -> Problem:
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
        raise DocumentError(syntax_problem(raw, exc, pointer, one_line=one_line)) from exc
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


FREE_FORM = ("arguments", "data", "value", "metadata", "provider_data")


def item_too_deep(item: Any, max_depth: int, level: int = 1) -> bool:
    """Whether a decoded item nests deeper than ``max_depth`` (the item object is ``level``).

    Typed fields nest shallowly by the schema; only free-form values (arguments, data,
    value, metadata, provider_data, opaque value) and results' content can be deep.
    """
    for name in FREE_FORM:
        v = getattr(item, name, None)
        if type(v) in (dict, list) and level + _depth(v, max_depth) > max_depth:
            return True
    opaque = getattr(item, "opaque", None)
    if isinstance(opaque, msgspec.Struct):
        v = opaque.value  # type: ignore[attr-defined]
        if type(v) in (dict, list) and level + 1 + _depth(v, max_depth) > max_depth:
            return True
    for sub in getattr(item, "content", None) or ():
        if isinstance(sub, msgspec.Struct) and item_too_deep(sub, max_depth, level + 2):
            return True
    return False


_MEDIA_CLASSES = (ImageItem, AudioItem, VideoItem, DocumentItem)


def check_base64(item: Any, pointer: str, limits: Limits) -> None:
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
            check_base64(sub, f"{pointer}/content/{i}", limits)


