"""The source's own spelling of a value, kept while its canonical value is unchanged (ADR 0014, ADR 0027).

Clients spell one canonical value in several ways the provider reads alike: a message ``content`` as a
string or as a list of text parts, tool-call ``arguments`` with or without spaces, base64 in the
URL-safe or the standard alphabet, ``1`` or ``1.0``, an explicit ``null`` or ``""`` or an absent key,
a default the client left out. The canonical form holds the value, not the spelling, so each encoder
writes one spelling and a same-provider round trip came back changed with no warning.

One mechanism for every mapper, with no provider rule in it (:func:`keeps_spelling`, a class decorator):

* **Decoding** a request or a response, the mapper's own encoder writes the decoded value back once;
  where the result differs from the source by spelling only (:func:`spelling_entries`: the rules
  below), the source's spelling is kept in the value's ``provider_data[<mapper>]["wire_spelling"]``:
  a list of entries ``{"at": [key or index, ...], "was": <source value>, "is": <encoder's value>}``
  (``was`` or ``is`` absent: the key was absent there), or a compact form for the two spellings that
  would otherwise copy content: ``{"at": ..., "as": "parts", "type": <part type>}`` (the source had
  one text part where the encoder writes a string), ``{"at": ..., "as": "string"}`` (the reverse),
  ``{"at": ..., "as": "base64", "alphabet": "url" | "std", "pad": bool}`` (the same bytes in another
  base64 alphabet or padding).
* **Encoding** to the same mapper, each kept entry is applied where the encoder's output still holds,
  at that place, exactly what it held when the spelling was recorded (:func:`restore_spelling`): the
  canonical value there is unchanged, so the source's spelling is written. Anywhere else (an edited
  transcript, another model, a value that moved) the encoder's own spelling stays. Other targets
  ignore the entries: a spelling is no data, so nothing is reported for them.

Spelling-only differences (anything else is a change the report must name, and is never kept):

* equal numbers (``1`` and ``1.0``); ``null``, ``""``, ``[]``, ``{}`` and an absent key among
  themselves; a key the source left out that the encoder fills in with a scalar (a default: the
  source was accepted without it), unless a field of the source is missing beside it (then the
  added key may be that field renamed or moved, which is no spelling);
* a field name in snake_case and in camelCase (``inline_data``, ``inlineData``: protobuf JSON reads both);
* a string and a list of text parts (objects holding exactly ``type`` and ``text``) whose texts join
  to it, or a list of one message object (``role``, ``type``, ``content``) holding it;
* two strings holding the same JSON object or array (tool-call ``arguments``, ``{"a": 1}`` and
  ``{"a":1}``); two strings holding the same bytes in base64 (URL-safe or standard alphabet, with or
  without padding).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from typing import Any, TypeVar

import msgspec

from .wire import json_copy

__all__ = ["SPELLING_KEY", "keeps_spelling", "restore_spelling", "spelling_entries", "spelling_unused", "strip_spelling", "without_spelling"]

SPELLING_KEY = "wire_spelling"
"""The key of the kept spelling entries inside ``provider_data[<mapper>]``."""

_MISSING: Any = object()
_EMPTY_VALUES: tuple[Any, ...] = (None, "", [], {})
_C = TypeVar("_C", bound=type)
_B64_STD = str.maketrans("-_", "+/")
_B64_URL = str.maketrans("+/", "-_")
_B64_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_=")


def _empty(v: Any) -> bool:
    return v is _MISSING or any(v == e and type(v) is type(e) for e in _EMPTY_VALUES)


def _is_number(v: Any) -> bool:
    return type(v) in (int, float)


def _text_parts(v: Any) -> tuple[str, str] | None:
    """``(part type, joined text)`` of a list of text parts holding only ``type`` and ``text``, else ``None``."""
    if type(v) is not list or not v:
        return None
    kinds, texts = set(), []
    for p in v:
        if type(p) is not dict or set(p) != {"type", "text"} or type(p["text"]) is not str or type(p["type"]) is not str:
            return None
        kinds.add(p["type"])
        texts.append(p["text"])
    return (kinds.pop(), "".join(texts)) if len(kinds) == 1 else None


def _same_json_text(a: str, b: str) -> bool:
    if a[:1] not in "{[" or b[:1] not in "{[":
        a, b = a.lstrip(), b.lstrip()
        if a[:1] not in "{[" or b[:1] not in "{[":
            return False
    try:
        return bool(json.loads(a) == json.loads(b))
    except ValueError:
        return False


def _same_base64(a: str, b: str) -> bool:
    if len(a) < 4 or not _B64_CHARS.issuperset(a) or not _B64_CHARS.issuperset(b):
        return False
    return a.translate(_B64_STD).rstrip("=") == b.translate(_B64_STD).rstrip("=")


def _leaf_entry(path: list[Any], was: Any, out: Any) -> dict[str, Any] | None:
    """The entry keeping ``was`` where the encoder wrote ``out``, when they differ by spelling only."""
    if out is _MISSING:
        return {"at": path, "was": json_copy(was)} if _empty(was) else None
    if was is None or (_empty(was) and _empty(out)) or (_is_number(was) and _is_number(out) and was == out):
        return {"at": path, "was": json_copy(was), "is": json_copy(out)}
    if type(out) is str:
        parts = _text_parts(was)
        if parts is not None and parts[1] == out:
            return {"at": path, "as": "parts", "type": parts[0]} if len(was) == 1 else {"at": path, "was": json_copy(was), "is": out}
        if type(was) is str:
            if _same_json_text(was, out):
                return {"at": path, "was": was, "is": out}
            if _same_base64(was, out):
                url = any(c in was for c in "-_") or not any(c in was for c in "+/")
                return {"at": path, "as": "base64", "alphabet": "url" if url else "std", "pad": was.endswith("=")}
        return None
    if type(was) is str:
        parts = _text_parts(out)
        if parts is not None and parts[1] == was:
            return {"at": path, "as": "string"} if len(out) == 1 else {"at": path, "was": was, "is": json_copy(out)}
        if _message_text(out) == was:
            return {"at": path, "as": "string"}
    return None


def _message_text(v: Any) -> str | None:
    """The text of a list holding one message object (only ``role``, ``type``, ``content``) whose content is
    a string or one text part: the spelling of a lone user input (``"input": "Hi"``)."""
    if type(v) is not list or len(v) != 1 or type(v[0]) is not dict or "content" not in v[0] or not set(v[0]) <= {"role", "type", "content"}:
        return None
    content = v[0]["content"]
    if type(content) is str:
        return content
    parts = _text_parts(content)
    return parts[1] if parts is not None and len(content) == 1 else None


def spelling_entries(source: Any, written: Any) -> list[dict[str, Any]]:
    """The entries that turn ``written`` (an encoder's output) back into ``source`` where they differ by
    spelling only (see the module docstring); differences of any other kind are left out.

    Objects are compared key by key, lists of equal length element by element; in lists of another
    length the elements are matched by their ``type`` and ``role`` (an item added or removed is no
    spelling, but the spelling of the items around it is still kept).
    """
    out: list[dict[str, Any]] = []
    _walk(source, written, [], out)
    # one order whatever the key order of either body (a body read back from our own output is equal),
    # a key rename after every entry below it (those name the written key)
    return sorted(out, key=lambda e: [*(f"{type(k).__name__[0]}{k:>12}" if type(k) is int else f"s{k}" for k in e["at"]), "\uffff" if "key" in e else ""])


def _other_case(key: str, src: dict[str, Any], dst: dict[str, Any]) -> str | None:
    """The key of ``dst`` that spells ``key`` in the other case style (snake_case / camelCase), if only ``dst`` has it."""
    if "_" in key:
        head, *rest = key.split("_")
        alt = head + "".join(p[:1].upper() + p[1:] for p in rest)
    else:
        alt = "".join(f"_{c.lower()}" if c.isupper() else c for c in key)
    return alt if alt != key and alt in dst and alt not in src else None


def _signature(v: Any) -> Any:
    return (v.get("type"), v.get("role")) if type(v) is dict else type(v).__name__


def _aligned(src: list[Any], dst: list[Any]) -> list[tuple[int, int]]:
    """Index pairs ``(source, written)`` of the elements of two lists that correspond: all of them, in
    order, when the lengths are equal; else the elements matched by their ``type`` and ``role`` (an item
    left out or added shifts the rest, whose spelling is still compared)."""
    if len(src) == len(dst):
        return list(zip(range(len(src)), range(len(dst))))
    import difflib

    pairs: list[tuple[int, int]] = []
    matcher = difflib.SequenceMatcher(None, [repr(_signature(v)) for v in src], [repr(_signature(v)) for v in dst], autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal" or (op == "replace" and i2 - i1 == j2 - j1):
            pairs += zip(range(i1, i2), range(j1, j2))
    return pairs


def _walk(src: Any, dst: Any, path: list[Any], out: list[dict[str, Any]]) -> None:
    if type(src) is dict and type(dst) is dict:
        keys = {k: k if k in dst else _other_case(k, src, dst) for k in src}
        for k, v in src.items():
            dk = keys[k]
            if dk is not None:
                _walk(v, dst[dk], [*path, dk], out)
                if dk != k:  # after the entries below it, which name the written key
                    out.append({"at": [*path, dk], "key": k})
            else:
                e = _leaf_entry([*path, k], v, _MISSING)
                if e is not None:
                    out.append(e)
        # a key the encoder added is a default only where nothing of the source is missing beside it
        # (else it may be a moved field: `parameters` for `parametersJsonSchema`) and it holds no
        # content (a scalar or an empty container)
        if not any(keys[k] is None and not _empty(v) for k, v in src.items()):
            written = set(keys.values())
            for k, v in dst.items():
                if k not in written and (type(v) not in (dict, list) or not v):
                    out.append({"at": [*path, k], "is": json_copy(v)})
        return
    if type(src) is list and type(dst) is list:
        for i, j in _aligned(src, dst):
            _walk(src[i], dst[j], [*path, j], out)
        return
    if src == dst and type(src) is type(dst):
        return
    e = _leaf_entry(path, src, dst)
    if e is not None:
        out.append(e)


def _parent(body: Any, path: list[Any]) -> Any:
    cur = body
    for key in path[:-1]:
        if type(cur) is dict and type(key) is str and key in cur:
            cur = cur[key]
        elif type(cur) is list and type(key) is int and 0 <= key < len(cur):
            cur = cur[key]
        else:
            return None
    return cur


def restore_spelling(body: dict[str, Any], entries: Any) -> None:
    """Apply kept spelling ``entries`` to ``body`` (an encoder's fresh output, modified in place): each
    where ``body`` holds at its place exactly what the encoder wrote when it was recorded. Malformed
    entries are skipped (a spelling is never data)."""
    if type(entries) is not list:
        return
    # an entry that names the object it was recorded in applies only where the encoder's fresh output
    # holds that same object (judged before any entry changes the body)
    moved = {id(e) for e in entries if type(e) is dict and type(e.get("in")) is str and type(e.get("at")) is list and e["at"]
             and _fingerprint(_parent(body, e["at"])) != e["in"]}
    for e in entries:
        if type(e) is not dict or type(e.get("at")) is not list or not e["at"] or id(e) in moved:
            continue
        path = e["at"]
        parent = _parent(body, path)
        key = path[-1]
        if type(parent) is dict and type(key) is str:
            cur = parent.get(key, _MISSING)
        elif type(parent) is list and type(key) is int and 0 <= key < len(parent):
            cur = parent[key]
        else:
            continue
        if "key" in e:
            if type(parent) is dict and cur is not _MISSING and type(e["key"]) is str and e["key"] not in parent:
                parent[e["key"]] = parent.pop(key)
            continue
        new = _restored(e, cur)
        if new is None:
            continue
        value = new[0]
        if value is _MISSING:
            if type(parent) is dict:
                parent.pop(key, None)
        elif type(parent) is dict or cur is not _MISSING:
            parent[key] = value


def _same(a: Any, b: Any) -> bool:
    """JSON equality that tells ``1`` from ``1.0`` and ``true`` from ``1``, at any depth."""
    if type(a) is not type(b):
        return False
    if type(a) is dict:
        return a.keys() == b.keys() and all(_same(v, b[k]) for k, v in a.items())
    if type(a) is list:
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return bool(a == b)


def _restored(e: dict[str, Any], cur: Any) -> tuple[Any] | None:
    """``(value,)`` to write for entry ``e`` where the body holds ``cur``, or ``None`` to leave it."""
    kind = e.get("as")
    if kind == "parts":
        return ([{"type": e.get("type", "text"), "text": cur}],) if type(cur) is str else None
    if kind == "string":
        parts = _text_parts(cur)
        if parts is not None and len(cur) == 1:
            return (parts[1],)
        text = _message_text(cur)
        return (text,) if text is not None else None
    if kind == "base64":
        if type(cur) is not str or not _B64_CHARS.issuperset(cur):
            return None
        text = cur.rstrip("=").translate(_B64_URL if e.get("alphabet") == "url" else _B64_STD)
        return ((text + "=" * (-len(text) % 4)) if e.get("pad") else text,)
    expected = e.get("is", _MISSING)
    if not (cur is _MISSING and expected is _MISSING) and (cur is _MISSING or expected is _MISSING or not _same(cur, expected)):
        return None
    return (json_copy(e["was"]) if "was" in e else _MISSING,)


# ---------------------------------------------------------------------------------------------- where entries live


def _own(provider_data: Any, name: str) -> Any:
    if type(provider_data) is not dict:
        return None
    own = provider_data.get(name)
    return own.get(SPELLING_KEY) if type(own) is dict else None


def _with_entries(provider_data: Any, name: str, entries: list[dict[str, Any]]) -> dict[str, Any]:
    data = dict(provider_data) if type(provider_data) is dict else {}
    own = dict(data.get(name) or {}) if type(data.get(name)) is dict else {}
    own[SPELLING_KEY] = entries
    data[name] = own
    return data


def strip_spelling(provider_data: Any, name: str | None = None) -> Any:
    """``provider_data`` without the kept spelling of ``name`` (of every mapper when ``None``); a mapper
    entry left empty is removed, and an empty result is ``UNSET`` when ``provider_data`` was a dict."""
    if type(provider_data) is not dict:
        return provider_data
    if not any(type(v) is dict and SPELLING_KEY in v for k, v in provider_data.items() if name is None or k == name):
        return provider_data
    data: dict[str, Any] = {}
    for k, v in provider_data.items():
        if type(v) is dict and SPELLING_KEY in v and (name is None or k == name):
            v = {kk: vv for kk, vv in v.items() if kk != SPELLING_KEY}
            if not v:
                continue
        data[k] = v
    return data if data else msgspec.UNSET


def without_spelling(transcript: Any) -> Any:
    """``transcript`` (a :class:`~interlingua.items.Transcript`) without any kept spelling: what to compare when
    only the canonical value matters (two spellings of one request decode to the same value)."""
    return _request_entries(transcript, "")[0]


def _request_entries(transcript: Any, name: str) -> tuple[Any, Any]:
    """``(transcript without the kept spelling, entries)``."""
    settings = getattr(transcript, "settings", msgspec.UNSET)
    if settings is msgspec.UNSET or settings is None:
        return transcript, None
    pd = getattr(settings, "provider_data", msgspec.UNSET)
    stripped = strip_spelling(pd)
    if stripped is pd:
        return transcript, None
    new_settings = msgspec.structs.replace(settings, provider_data=stripped)
    if not msgspec.structs.asdict(new_settings) or all(v is msgspec.UNSET for v in msgspec.structs.asdict(new_settings).values()):
        return msgspec.structs.replace(transcript, settings=msgspec.UNSET), _own(pd, name)
    return msgspec.structs.replace(transcript, settings=new_settings), _own(pd, name)


def _with_request_entries(transcript: Any, name: str, entries: list[dict[str, Any]]) -> Any:
    from ..items import Settings

    settings = getattr(transcript, "settings", msgspec.UNSET)
    if settings is msgspec.UNSET or settings is None:
        settings = Settings()
    pd = getattr(settings, "provider_data", msgspec.UNSET)
    return msgspec.structs.replace(transcript, settings=msgspec.structs.replace(settings, provider_data=_with_entries(pd, name, entries)))


def _response_entries(response: Any, name: str) -> tuple[Any, Any]:
    import dataclasses

    pd = response.provider_data
    stripped = strip_spelling(pd)
    if stripped is pd:
        return response, None
    return dataclasses.replace(response, provider_data=None if stripped is msgspec.UNSET else stripped), _own(pd, name)


_RECORDING: ContextVar[bool] = ContextVar("interlingua_spelling_recording", default=True)


@contextlib.contextmanager
def spelling_unused() -> Iterator[None]:
    """Within the block, decoders record no source spelling: for a caller that sends the decoded value
    only to another mapper, which ignores the entries (the record costs an encode of the body by the
    source's own encoder and a walk of both, most of a decode). Nothing else about the decode changes."""
    token = _RECORDING.set(False)
    try:
        yield
    finally:
        _RECORDING.reset(token)


def keeps_spelling(cls: _C) -> _C:
    """Class decorator for a mapper: its decoders keep the source's spelling, its encoders write it back
    (see the module docstring). The mapper's ``name`` is the ``provider_data`` key; its optional
    ``spelling_fixed`` (paths, each a tuple of keys) names fields the encoder always writes its own way
    (Ollama ``stream``: written explicitly so a body without ``model`` is still recognisable). Wraps
    ``decode_request``/``encode_request``/``decode_response``/``encode_response``; nothing else changes.
    """
    dec_req, enc_req = cls.decode_request, cls.encode_request  # type: ignore[attr-defined]
    fixed = tuple(tuple(p) for p in getattr(cls, "spelling_fixed", ()))

    def _entries_of(write: Callable[[], Any], body: dict[str, Any]) -> list[dict[str, Any]]:
        entries = _spelling_of(write, body)
        return [e for e in entries if not any(tuple(e["at"][: len(p)]) == p for p in fixed)] if fixed else entries
    dec_resp, enc_resp = cls.decode_response, cls.encode_response  # type: ignore[attr-defined]

    def _model(body: Mapping[str, Any]) -> Any:
        m = body.get("model") if isinstance(body, Mapping) else None
        return m if isinstance(m, str) else None

    @functools.wraps(dec_req)
    def decode_request(self: Any, body: Mapping[str, Any]) -> Any:
        conv = dec_req(self, body)
        if type(body) is dict and _RECORDING.get():
            entries = _entries_of(lambda: enc_req(self, conv.value, model=_model(body), policy="degrade").value, body)
            if entries:
                conv.value = _with_request_entries(conv.value, self.name, entries)
        return conv

    @functools.wraps(enc_req)
    def encode_request(self: Any, transcript: Any, *args: Any, **kwargs: Any) -> Any:
        transcript, entries = _request_entries(transcript, self.name)
        conv = enc_req(self, transcript, *args, **kwargs)
        if entries and type(conv.value) is dict:
            restore_spelling(conv.value, entries)
        return conv

    @functools.wraps(dec_resp)
    def decode_response(self: Any, body: Mapping[str, Any]) -> Any:
        conv = dec_resp(self, body)
        if type(body) is dict and _RECORDING.get():
            model = _model(body) or (body.get("modelVersion") if isinstance(body.get("modelVersion"), str) else None)
            entries = _entries_of(lambda: enc_resp(self, conv.value, model=model, policy="degrade").value, body)
            if entries:
                import dataclasses

                conv.value = dataclasses.replace(conv.value, provider_data=_with_entries(conv.value.provider_data, self.name, entries))
        return conv

    @functools.wraps(enc_resp)
    def encode_response(self: Any, response: Any, *args: Any, **kwargs: Any) -> Any:
        response, entries = _response_entries(response, self.name)
        conv = enc_resp(self, response, *args, **kwargs)
        if entries and type(conv.value) is dict:
            restore_spelling(conv.value, entries)
        return conv

    cls.decode_request, cls.encode_request = decode_request, encode_request  # type: ignore[attr-defined]
    cls.decode_response, cls.encode_response = decode_response, encode_response  # type: ignore[attr-defined]
    return cls


def _spelling_of(write: Callable[[], Any], body: dict[str, Any]) -> list[dict[str, Any]]:
    """Spelling entries of ``body`` against what ``write`` (the mapper's own encoder) makes of its decoded
    value; none when the encoder refuses or fails (the encode proper reports that)."""
    try:
        written = write()
    except Exception:  # noqa: BLE001 - the real encode raises it again, where it belongs
        return []
    try:
        entries = spelling_entries(body, written) if type(written) is dict else []
    except RecursionError:  # nesting deeper than the walk can follow: no spelling kept, the decode stands
        return []
    for e in entries:
        if _needs_place(e):
            e["in"] = _fingerprint(_parent(written, e["at"]))
    return entries


def _needs_place(e: dict[str, Any]) -> bool:
    """An entry for a key the encoder leaves out (``was`` only) inside a nested object: ``restore_spelling``
    finds the key absent wherever the object moved to (an edited transcript drops or reorders items), so
    the entry also records which object it was in (``in``: a fingerprint of the encoder's object there)."""
    return "was" in e and "is" not in e and "as" not in e and "key" not in e and len(e["at"]) > 1


def _fingerprint(obj: Any) -> str:
    """A short digest of ``obj`` as JSON (the object an entry's key sits in, as the encoder wrote it)."""
    try:
        data = msgspec.json.encode(obj)
    except (TypeError, ValueError, OverflowError):
        return ""
    return hashlib.blake2b(data, digest_size=8).hexdigest()
