"""Hot path: items to row values and rows back to envelopes (msgspec, no ORM objects).

Everything here is pure: validation happens before any database work, so an
invalid batch is refused with nothing written.
"""

from __future__ import annotations

import contextlib
import gc
import operator
import re
from collections.abc import Callable, Iterator, Sequence
from itertools import repeat
from datetime import UTC, datetime
from typing import Any

import msgspec

from .._gc import gc_paused

from ..codec import (
    KNOWN_ITEM_TYPES,
    SCHEMA_VERSION,
    UnknownItem,
    check_json_safe,
    check_version,
    decode_envelope,
    decode_item,
    encode_item,
)
from ..codec._jsonl import decode_items_block
from ..errors import DocumentError, Problem
from ..items import Envelope, InputItem, ResponseInfo, Settings, StopReason, ToolChoice, ToolDefinition, Usage
from ._engine import JsonText

__all__ = ["PreparedRow", "decode_row", "format_ts", "parse_ts", "prepare_rows", "encode_tools", "encode_json"]

_ITEM_CLASSES = tuple(InputItem.__origin__.__args__)  # type: ignore[attr-defined]
_ITEM_CLASS_SET = frozenset(_ITEM_CLASSES)
_MAJOR, _MINOR = (int(p) for p in SCHEMA_VERSION.split("."))
_NUL_ESCAPE = re.compile(rb"(?<!\\)(?:\\\\)*\\u0000")
_usage_dec = msgspec.json.Decoder(Usage)
_stop_dec = msgspec.json.Decoder(StopReason)
_response_dec = msgspec.json.Decoder(ResponseInfo)
_tools_dec = msgspec.json.Decoder(list[ToolDefinition])
_choice_dec = msgspec.json.Decoder(ToolChoice)
_settings_dec = msgspec.json.Decoder(Settings)
_any_dec = msgspec.json.Decoder()
_enc = msgspec.json.Encoder()


def format_ts(dt: datetime) -> str:
    """RFC 3339 UTC (``Z``), microseconds only when non-zero. Naive values are taken as UTC."""
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    dt = dt.astimezone(UTC)
    return dt.isoformat(timespec="microseconds" if dt.microsecond else "seconds").replace("+00:00", "Z")


def parse_ts(text: str, pointer: str) -> datetime:
    """Parse an RFC 3339 timestamp; a value without offset is refused.

    Raises:
        DocumentError: not a timestamp with an offset.
    """
    try:
        dt = datetime.fromisoformat(text)
    except ValueError as exc:
        raise DocumentError(Problem(pointer, f"not an RFC 3339 timestamp: {text!r}")) from exc
    if dt.tzinfo is None:
        raise DocumentError(Problem(pointer, f"timestamp {text!r} has no UTC offset"))
    return dt.astimezone(UTC)


def _encode(value: Any, pointer: str) -> bytes:
    check_json_safe(value, pointer)
    try:
        return _enc.encode(value)
    except (UnicodeEncodeError, msgspec.EncodeError, TypeError) as exc:
        raise DocumentError(Problem(pointer, f"not encodable as JSON: {exc}")) from exc


def encode_json(value: Any, pointer: str) -> JsonText:
    """Encode caller JSON (metadata) after the JSON-safety check."""
    return JsonText(_encode(value, pointer).decode())


def encode_tools(tools: Sequence[Any], pointer: str = "/tools") -> JsonText:
    """Validate tool definitions (Structs or dicts) and encode them.

    Raises:
        DocumentError: not a list of valid tool definitions.
    """
    if not isinstance(tools, (list, tuple)):
        raise DocumentError(Problem(pointer, f"tools must be a list, got {type(tools).__name__}"))
    raw = _encode(list(tools), pointer)
    try:
        _tools_dec.decode(raw)
    except msgspec.ValidationError as exc:
        raise DocumentError(Problem(pointer, f"invalid tool definitions: {exc}")) from exc
    return JsonText(raw.decode())


def encode_choice(choice: Any, pointer: str = "/tool_choice") -> JsonText:
    """Validate a tool choice (Struct or dict) and encode it."""
    raw = _encode(choice, pointer)
    try:
        _choice_dec.decode(raw)
    except msgspec.ValidationError as exc:
        raise DocumentError(Problem(pointer, f"invalid tool choice: {exc}")) from exc
    return JsonText(raw.decode())


def encode_settings(settings: Any, pointer: str = "/settings") -> JsonText:
    """Validate generation settings (a :class:`~interlingua.items.Settings` or dict) and encode them."""
    raw = _encode(settings, pointer)
    try:
        _settings_dec.decode(raw)
    except msgspec.ValidationError as exc:
        raise DocumentError(Problem(pointer, f"invalid settings: {exc}")) from exc
    return JsonText(raw.decode())


def _relocate(exc: DocumentError, prefix: str) -> DocumentError:
    err = type(exc).__new__(type(exc))
    DocumentError.__init__(err, [Problem(prefix + p.pointer, p.message, p.file, p.line) for p in exc.problems])
    return err


class PreparedRow(msgspec.Struct):
    """Column values of one item row, seq not yet known. ``item`` is the item's JSON text (a plain
    ``str``, as the SQLite driver binds it without its adapter path; :meth:`values` marks it as
    :class:`JsonText` for SQLAlchemy's JSON column)."""

    schema_version: str
    type: str
    role: str | None
    call_id: str | None
    item: str
    raw_json: str | None
    usage: JsonText | None
    stop_reason: JsonText | None
    created_at: datetime | None  # None: the time of the append
    response: JsonText | None = None  # ResponseInfo of the response whose last item this is

    def values(self, session_id: str, seq: int, now: datetime) -> dict[str, Any]:
        return {
            "session_id": session_id,
            "seq": seq,
            "schema_version": self.schema_version,
            "type": self.type,
            "role": self.role,
            "call_id": self.call_id,
            "created_at": self.created_at or now,
            "item": self.item if type(self.item) is JsonText else JsonText(self.item),
            "raw_json": self.raw_json,
            "usage": self.usage,
            "stop_reason": self.stop_reason,
            "response": self.response,
        }


def _str_or_none(v: Any) -> str | None:
    return v if isinstance(v, str) else None


def _prepare_item(
    item: Any, version: str, pointer: str, forbid_nul: bool, deferred: list[tuple[str, bytes]] | None = None, validated: bool = False
) -> tuple[str, str | None, str | None, bytes, bool]:
    """Validate one item; return (type, role, call_id, json, is_unknown).

    With ``deferred``, a known item's typed check is left to the caller: ``(pointer, json)`` is
    appended for :func:`_check_deferred`. With ``validated``, a known item came from a typed decode
    of JSON (so it is JSON-safe and valid) and is only encoded.
    """
    minor = _MINOR if version is SCHEMA_VERSION else check_version(version, pointer=f"{pointer}/schema_version")[1]
    # the common case first: one set look-up, not a chain of isinstance
    known = type(item) in _ITEM_CLASS_SET or (not isinstance(item, UnknownItem) and isinstance(item, _ITEM_CLASSES))
    if isinstance(item, UnknownItem):
        try:
            value = _any_dec.decode(item.raw)
        except msgspec.DecodeError as exc:
            raise DocumentError(Problem(pointer, f"unknown item is not valid JSON: {exc}")) from exc
        if not isinstance(value, dict) or not isinstance(value.get("type"), str) or not value["type"]:
            raise DocumentError(Problem(pointer, "an item must be a JSON object with a string `type`"))
        typ = value["type"]
        if typ in KNOWN_ITEM_TYPES and minor <= _MINOR:
            # A known type is only kept opaque when a newer minor version adds fields to it.
            try:
                decode_item(item.raw, mode="strict", pointer=pointer)
            except DocumentError as exc:
                raise DocumentError(
                    [Problem(p.pointer, f"{p.message} (a known item type with unknown fields needs a newer minor schema_version)") for p in exc.problems]
                ) from exc
        data = item.raw
        role, call_id = value.get("role"), value.get("call_id", value.get("id") if typ.endswith("_call") else None)
        unknown = True
    elif known:
        try:
            data = _enc.encode(item) if validated else encode_item(item)
        except DocumentError as exc:
            raise _relocate(exc, pointer) from exc
        except (UnicodeEncodeError, msgspec.EncodeError, TypeError, NotImplementedError) as exc:
            # e.g. a lone surrogate in a string, which UTF-8 JSON cannot carry
            raise DocumentError(Problem(pointer, f"not encodable as JSON: {exc}")) from exc
        if validated:
            pass
        elif deferred is not None:
            deferred.append((pointer, data))
        else:
            decode_item(data, mode="strict", pointer=pointer)  # Structs are not validated on construction
        typ = item.__struct_config__.tag
        role = getattr(item, "role", None)
        call_id = getattr(item, "call_id", None)
        if typ in ("tool_call", "handoff_call"):
            call_id = item.id
        unknown = False
    else:
        hint = "; decode it with interlingua.codec.decode_item first" if isinstance(item, (dict, str, bytes)) else ""
        raise DocumentError(Problem(pointer, f"expected an interlingua item, got {type(item).__name__}{hint}"))
    if forbid_nul and _NUL_ESCAPE.search(data):
        raise DocumentError(Problem(pointer, "contains the character U+0000, which PostgreSQL JSONB cannot store"))
    return typ, _str_or_none(role), _str_or_none(call_id), data, unknown


def prepare_rows(
    items: Sequence[Any],
    *,
    usage: Usage | None = None,
    stop_reason: StopReason | None = None,
    response: ResponseInfo | None = None,
    keep_created_at: bool = False,
    forbid_nul: bool = False,
    keep_text: bool = False,
    validated: bool = False,
) -> list[PreparedRow]:
    """Validate and encode a batch. Items may be canonical items, :class:`UnknownItem` or
    :class:`~interlingua.items.Envelope` (whose version, usage, stop reason, response metadata
    and, with ``keep_created_at``, timestamp are kept; its session id and seq are not).

    ``usage``/``stop_reason``/``response`` go on the envelope of the batch's last item. ``keep_text``
    (PostgreSQL) keeps the exact JSON text of every item in ``raw_json``, as JSONB
    reorders keys and re-renders numbers; otherwise only unknown items keep it.

    Each item is validated once: encoded (after the JSON-safety walk), then the encoded items are
    checked by one typed decode per ~1 MB (as :func:`decode_rows_fast` reads them back), falling
    back to one item at a time to locate a problem. ``validated`` says the items were just read by
    a typed decode of JSON (a session file): they are encoded only.

    Raises:
        DocumentError: the first invalid item, pointer ``/<index>/...``; VersionError for a newer major.
    """
    if isinstance(items, (str, bytes, dict)) or not isinstance(items, Sequence):
        raise DocumentError(Problem("", f"items must be a list of items, got {type(items).__name__}"))
    with gc_paused():  # see gc_paused: the batch's objects hold no cycles
        fast = _prepare_fast(items, usage, stop_reason, response, keep_created_at, forbid_nul, keep_text, validated)
    if fast is not None:
        return fast
    rows: list[PreparedRow] = []
    last = len(items) - 1
    deferred: list[tuple[str, bytes]] = []
    deferred_bytes = 0
    try:
        for i, obj in enumerate(items):
            pointer = f"/{i}"
            version, env_usage, env_stop, env_resp, created = SCHEMA_VERSION, None, None, None, None
            item = obj
            if isinstance(obj, Envelope):
                item, version = obj.item, obj.schema_version
                env_usage = obj.usage if obj.usage is not msgspec.UNSET else None
                env_stop = obj.stop_reason if obj.stop_reason is not msgspec.UNSET else None
                env_resp = obj.response if obj.response is not msgspec.UNSET else None
                if keep_created_at and obj.created_at is not msgspec.UNSET:
                    created = parse_ts(obj.created_at, f"{pointer}/created_at")
                pointer = f"{pointer}/item"
            queued = len(deferred)
            typ, role, call_id, data, unknown = _prepare_item(item, version, pointer, forbid_nul, deferred, validated)
            if len(deferred) > queued:
                deferred_bytes += len(data) + 1
                if deferred_bytes >= _FAST_GROUP_BYTES:
                    _check_deferred(deferred)
                    deferred.clear()
                    deferred_bytes = 0
            if i == last:
                env_usage = usage if usage is not None else env_usage
                env_stop = stop_reason if stop_reason is not None else env_stop
                env_resp = response if response is not None else env_resp
            text = data.decode()
            rows.append(
                PreparedRow(
                    schema_version=version,
                    type=typ,
                    role=role,
                    call_id=call_id,
                    item=text,
                    raw_json=text if unknown or keep_text else None,
                    usage=_enc_checked(env_usage, Usage, f"/{i}/usage"),
                    stop_reason=_enc_checked(env_stop, StopReason, f"/{i}/stop_reason"),
                    created_at=created,
                    response=_enc_checked(env_resp, ResponseInfo, f"/{i}/response"),
                )
            )
    except DocumentError:
        _check_deferred(deferred)  # the first invalid item by index: an earlier item's typed check goes first
        raise
    _check_deferred(deferred)
    return rows


def _prepare_fast(
    items: Sequence[Any],
    usage: Usage | None,
    stop_reason: StopReason | None,
    response: ResponseInfo | None,
    keep_created_at: bool,
    forbid_nul: bool,
    keep_text: bool,
    validated: bool,
) -> list[PreparedRow] | None:
    """:func:`prepare_rows` for the common batch, whole-batch operations in C; ``None`` on any doubt.

    Only batches of known items (or envelopes of exactly this schema version holding them): one
    ``Encoder.encode`` per item (a C-level ``map``), then one typed ``decode_lines`` per ~1 MB of them (the check
    :func:`decode_item` would make) whose result must equal the items given. That equality is the
    JSON-safety proof without a Python walk of every value: NaN, infinities, bytes, non-string keys,
    tuples or other non-JSON values do not come back equal from their JSON. Anything else, or any
    failure, returns ``None`` and the item-by-item path runs, which locates the problem.
    """
    known = _ITEM_CLASS_SET
    version = SCHEMA_VERSION
    if not items:
        return []
    first = items[0]
    if type(first) is Envelope:
        envs = items
        plain: list[Any] = []
        for env in envs:
            if type(env) is not Envelope or env.schema_version != version or type(env.item) not in known:
                return None
            plain.append(env.item)
    else:
        envs = None
        plain = items if isinstance(items, list) else list(items)
        for item in plain:
            if type(item) not in known:
                return None
    try:
        # one encode per item (C-level map), not one encode_lines split again: the split of the
        # joined text was ~8% of a bulk append (callgrind), the join here is a copy
        parts = list(map(_enc.encode, plain))
    except (UnicodeEncodeError, msgspec.EncodeError, TypeError, NotImplementedError, OverflowError):
        return None
    blob = b"\n".join(parts)
    if forbid_nul and _NUL_ESCAPE.search(blob):
        return None
    if not validated:
        if len(blob) <= _FAST_GROUP_BYTES:
            # the whole batch in one group (the common case): the encoded lines as they are
            decoded = decode_items_block(blob, len(parts))
            if decoded is None or decoded != plain:
                return None
        else:
            start = size = 0
            for end, part in enumerate(parts, 1):
                size += len(part) + 1
                if size >= _FAST_GROUP_BYTES or end == len(parts):
                    decoded = decode_items_block(b"\n".join(parts[start:end]), end - start)
                    if decoded is None or decoded != plain[start:end]:
                        return None
                    start, size = end, 0
    texts = list(map(bytes.decode, parts))
    if envs is None:
        return _plain_rows(plain, texts, texts if keep_text else None, usage, stop_reason, response)
    rows: list[PreparedRow] = []
    append = rows.append
    last = len(plain) - 1
    stamps: dict[str, datetime] = {}
    raw_of = texts if keep_text else repeat(None)
    for i, item, text, raw in zip(range(len(plain)), plain, texts, raw_of):
        cls = type(item)
        shape = _SHAPES.get(cls)
        if shape is None:
            shape = _SHAPES[cls] = _shape(cls)
        typ, role_attr, call_attr = shape
        role = getattr(item, role_attr) if role_attr else None
        call_id = getattr(item, call_attr) if call_attr else None
        env_usage = env_stop = env_resp = created = None
        if envs is not None:
            env = envs[i]
            if env.usage is not msgspec.UNSET:
                env_usage = env.usage
            if env.stop_reason is not msgspec.UNSET:
                env_stop = env.stop_reason
            if env.response is not msgspec.UNSET:
                env_resp = env.response
            if keep_created_at and env.created_at is not msgspec.UNSET:
                created = stamps.get(env.created_at)
                if created is None:
                    created = stamps[env.created_at] = parse_ts(env.created_at, f"/{i}/created_at")
        if i == last:
            env_usage = usage if usage is not None else env_usage
            env_stop = stop_reason if stop_reason is not None else env_stop
            env_resp = response if response is not None else env_resp
        append(
            PreparedRow(
                version,
                typ,
                role if type(role) is str else None,
                call_id if type(call_id) is str else None,
                text,
                raw,
                None if env_usage is None else _enc_checked(env_usage, Usage, f"/{i}/usage"),
                None if env_stop is None else _enc_checked(env_stop, StopReason, f"/{i}/stop_reason"),
                created,
                None if env_resp is None else _enc_checked(env_resp, ResponseInfo, f"/{i}/response"),
            )
        )
    return rows


_SHAPES: dict[type, tuple[str, str | None, str | None]] = {}


def _no_value(_item: Any) -> None:
    return None


_GETTERS: dict[type, tuple[str, Callable[[Any], Any], Callable[[Any], Any]]] = {}
"""Per item class: its type tag, and the getters of its role and call id (:func:`_shape`)."""
_STR_OR_NONE = frozenset((str, type(None)))


def _getters(cls: type) -> tuple[str, Callable[[Any], Any], Callable[[Any], Any]]:
    got = _GETTERS.get(cls)
    if got is None:
        tag, role_attr, call_attr = _shape(cls)
        got = _GETTERS[cls] = (
            tag,
            operator.attrgetter(role_attr) if role_attr else _no_value,
            operator.attrgetter(call_attr) if call_attr else _no_value,
        )
    return got


def _plain_rows(
    items: list[Any],
    texts: list[str],
    raws: list[str] | None,
    usage: Usage | None,
    stop_reason: StopReason | None,
    response: ResponseInfo | None,
) -> list[PreparedRow]:
    """The rows of a batch of known items (not envelopes), checked and encoded already (``texts``):
    each column picked for the whole batch by C-level ``map`` (per class: the tag, the role and
    call id getters), one :class:`PreparedRow` per item built by ``map``, with no Python loop body
    per item (the loop was ~30% of a 10,000-item ``prepare_rows``). ``usage``/``stop_reason``/
    ``response`` go on the last row."""
    n = len(items)
    getters = list(map(_getters, map(type, items)))
    tags = list(map(_TAG_OF, getters))
    roles = list(map(operator.call, map(_ROLE_GETTER_OF, getters), items))
    calls = list(map(operator.call, map(_CALL_GETTER_OF, getters), items))
    # a role or call id that is not a plain string (UNSET) is stored as NULL
    if not _STR_OR_NONE.issuperset(map(type, roles)):
        roles = [r if type(r) is str else None for r in roles]
    if not _STR_OR_NONE.issuperset(map(type, calls)):
        calls = [c if type(c) is str else None for c in calls]
    none = repeat(None, n)
    rows = list(
        map(PreparedRow, repeat(SCHEMA_VERSION, n), tags, roles, calls, texts, none if raws is None else raws, repeat(None, n), repeat(None, n), repeat(None, n))
    )
    if n and (usage is not None or stop_reason is not None or response is not None):
        last = n - 1
        row = rows[last]
        row.usage = _enc_checked(usage, Usage, f"/{last}/usage")
        row.stop_reason = _enc_checked(stop_reason, StopReason, f"/{last}/stop_reason")
        row.response = _enc_checked(response, ResponseInfo, f"/{last}/response")
    return rows


_TAG_OF = operator.itemgetter(0)
_ROLE_GETTER_OF = operator.itemgetter(1)
_CALL_GETTER_OF = operator.itemgetter(2)


def _shape(cls: type) -> tuple[str, str | None, str | None]:
    """An item class's ``(type tag, role field, call id field)``, each field ``None`` when it has none:
    ``id`` for the call items (``tool_call``, ``handoff_call``), ``call_id`` where declared."""
    tag = cls.__struct_config__.tag  # type: ignore[attr-defined]
    fields = cls.__struct_fields__  # type: ignore[attr-defined]
    call = "id" if tag in ("tool_call", "handoff_call") else ("call_id" if "call_id" in fields else None)
    return tag, ("role" if "role" in fields else None), call


def _check_deferred(deferred: list[tuple[str, bytes]]) -> None:
    """The typed check of encoded known items: one ``decode_lines`` pass, else item by item (which
    raises the first problem with its pointer)."""
    if not deferred:
        return
    if decode_items_block(b"\n".join(data for _p, data in deferred), len(deferred)) is not None:
        return
    for pointer, data in deferred:
        decode_item(data, mode="strict", pointer=pointer)


def _enc_checked(value: Any, cls: type, pointer: str) -> JsonText | None:
    if value is None:
        return None
    if not isinstance(value, cls):
        raise DocumentError(Problem(pointer, f"expected {cls.__name__}, got {type(value).__name__}"))
    raw = _encode(value, pointer)
    try:
        msgspec.json.decode(raw, type=cls)
    except msgspec.ValidationError as exc:
        raise DocumentError(Problem(pointer, str(exc))) from exc
    return JsonText(raw.decode())


class _EnvelopeLine(msgspec.Struct, omit_defaults=True):
    schema_version: str
    session_id: str
    seq: int
    item: msgspec.Raw


def decode_row(session_id: str, row: Any) -> Envelope:
    """Decode one item row (a Core ``Row`` with the item columns) into an envelope.

    Raises:
        DocumentError: the row does not decode (the caller quarantines it).
    """
    text = row.raw_json if row.raw_json is not None else row.item
    raw = text.encode() if isinstance(text, str) else bytes(text)
    _, minor = check_version(row.schema_version)
    if minor > _MINOR:
        # Newer minor: decode through the envelope reader, which keeps known items
        # with unknown fields as preserved items.
        line = _enc.encode(_EnvelopeLine(row.schema_version, session_id, row.seq, msgspec.Raw(raw)))
        item: Any = decode_envelope(line).item
    else:
        item = decode_item(raw, mode="preserving")
    env = Envelope(
        schema_version=row.schema_version,
        session_id=session_id,
        seq=row.seq,
        item=item,
        created_at=format_ts(row.created_at),
    )
    try:
        if row.usage is not None:
            env.usage = _usage_dec.decode(row.usage)
        if row.stop_reason is not None:
            env.stop_reason = _stop_dec.decode(row.stop_reason)
        if row.response is not None:
            env.response = _response_dec.decode(row.response)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise DocumentError(Problem("/usage", f"stored usage/stop_reason/response does not decode: {exc}")) from exc
    return env


_FAST_GROUP_BYTES = 1 << 20


ROW_COLUMNS = ("seq", "schema_version", "created_at", "text", "usage", "stop_reason", "response")
"""What :func:`decode_rows_fast` reads of an item row, in its tuples' order; ``text`` is the item's
JSON (``raw_json`` when stored, else ``item``), as ``str`` or UTF-8 ``bytes``."""


def row_tuple(row: Any) -> tuple[Any, ...]:
    """A Core ``Row`` of the items table as the tuple :func:`decode_rows_fast` reads (:data:`ROW_COLUMNS`)."""
    return (row.seq, row.schema_version, row.created_at, row.raw_json if row.raw_json is not None else row.item, row.usage, row.stop_reason, row.response)


def decode_rows_fast(session_id: str, rows: Sequence[tuple[Any, ...]], *, parse_created: Callable[[Any], Any] | None = None) -> list[Envelope] | None:
    """:func:`decode_row` for a whole page of rows, items decoded in one typed pass per ~1 MB.

    ``rows`` are tuples of :data:`ROW_COLUMNS` (see :func:`row_tuple`), their texts all ``str`` or
    all ``bytes``. Only rows of exactly this schema version; the items' JSON texts joined by
    newlines must pass ``codec._jsonl.decode_items_block``'s proofs (one object per line, depth and size
    bounds, known types). ``parse_created``: the rows come from the driver unprocessed, and this
    turns a ``created_at`` value into a datetime (the column type's own result processor); it runs
    once per distinct value (an append's rows share one timestamp). The envelopes are built by
    C-level ``map`` over the columns, with the collector paused (:func:`gc_paused`).
    Returns ``None`` on any doubt: the caller then decodes row by row (and quarantines what fails).
    """
    if not rows:
        return []
    with gc_paused():
        try:
            return _decode_rows_fast(session_id, rows, parse_created)
        except (msgspec.MsgspecError, ValueError, TypeError, AttributeError):
            return None


def _decode_rows_fast(session_id: str, rows: Sequence[tuple[Any, ...]], parse_created: Callable[[Any], Any] | None) -> list[Envelope] | None:
    version = SCHEMA_VERSION
    n = len(rows)
    seqs, versions, createds, texts, usages, stops, responses = zip(*rows)
    if versions.count(version) != n:
        return None
    kind = type(texts[0])
    if kind is bytes:
        sep: Any = b"\n"
    elif kind is str:
        sep = "\n"
    else:
        return None
    if set(map(type, texts)) != {kind}:
        return None
    items: list[Any] = []
    start = size = 0
    for end, length in enumerate(map(len, texts), 1):
        size += length + 1
        if size >= _FAST_GROUP_BYTES or end == n:
            block = sep.join(texts[start:end])
            decoded = decode_items_block(block if kind is bytes else block.encode(), end - start)
            if decoded is None:
                return None
            items.extend(decoded)
            start, size = end, 0
    stamps = {c: format_ts(c if parse_created is None else parse_created(c)) for c in set(createds)}
    envs = list(map(Envelope, repeat(version, n), repeat(session_id, n), seqs, items, map(stamps.__getitem__, createds)))
    if usages.count(None) != n:
        usage_dec = _usage_dec.decode
        for env, usage in zip(envs, usages):
            if usage is not None:
                env.usage = usage_dec(usage)
    if stops.count(None) != n:
        stop_dec = _stop_dec.decode
        for env, stop in zip(envs, stops):
            if stop is not None:
                env.stop_reason = stop_dec(stop)
    if responses.count(None) != n:
        response_dec = _response_dec.decode
        for env, resp in zip(envs, responses):
            if resp is not None:
                env.response = response_dec(resp)
    return envs


def decode_tools(text: str | None) -> list[ToolDefinition] | None:
    value = None if text is None else _any_dec.decode(text)
    return None if value is None else msgspec.convert(value, list[ToolDefinition])


def decode_choice(text: str | None) -> ToolChoice | None:
    if text is None:
        return None
    value = _any_dec.decode(text)
    return None if value is None else msgspec.convert(value, ToolChoice)


def decode_settings(text: str | None) -> Settings | None:
    if text is None:
        return None
    value = _any_dec.decode(text)
    return None if value is None else msgspec.convert(value, Settings)


def decode_json(text: str | None) -> Any:
    return None if text is None else _any_dec.decode(text)

