"""Gemini ``Part`` <-> canonical items, both ways (GEN ``types.py`` ``Part``).

Decoding rules (one part -> items, in order):

* ``{text}`` -> ``text`` (role of the content); ``{text:""}`` alone is dropped from responses and
  streams (they send it as filler) and kept as ``text("")`` with ``origin {provider "gemini"}`` in
  requests (recorded requests with an empty user prompt or an empty model turn were answered 200), so
  it goes back as it came. An empty ``text`` item from another source is left out and reported: the API
  answers 400 "Unable to submit request because it has an empty text parameter" (issue 25); nothing is
  lost, so it is left out under every policy.
* ``{text, thought:true}`` -> ``reasoning(text)``.
* ``{inlineData{mimeType, data}}`` -> ``image``/``audio``/``video`` by ``image/*``/``audio/*``/``video/*``,
  anything else -> ``document``; the source is ``Base64Source(mimeType, data)`` (``data`` in the
  standard base64 alphabet: URL-safe ``-``/``_`` are translated, same bytes).
* ``{fileData{mimeType, fileUri}}`` -> the same kinds with ``FileSource(provider="gemini")`` for Files API
  (``https://generativelanguage.googleapis.com/...``) and ``gs://`` URIs, ``UrlSource`` for other URLs
  (YouTube URLs included: ``{"fileData": {"fileUri": "https://www.youtube.com/watch?v=..."}}`` is a video,
  with or without ``mimeType``; Gemini "Video understanding" guide).
* A known part with fields this mapper does not model (``videoMetadata``, ``mediaResolution``,
  ``thought: false``, a field added later) keeps its content; those fields go to the item's
  ``provider_data["gemini"]`` (written back to Gemini only, reported as dropped by every other target).
  Fields inside the kind's body that the mapper does not model (``inlineData.displayName``,
  ``functionResponse.scheduling``, ...) go there under the kind key (``{"functionResponse": {...}}``)
  and are merged back into that body. A streamed call fragment (``partialArgs``/``willContinue``) is raw.
* ``{functionCall{id?, name, args}}`` -> ``tool_call`` (id from the caller: the wire id, or a derived one).
* ``{functionResponse{id?, name, response, parts?}}`` -> ``tool_result``: ``response`` ``{"output": x}``
  gives ``x`` (text when a string, else ``structured``), ``{"error": x}`` the same with ``is_error``,
  any other object is the output as a whole (``structured``); ``parts`` media follow as content items.
  ``{"output": {...}}`` and the bare ``{...}`` give the same item: the wrapped form is remembered in the
  result's ``provider_data["gemini"]["functionResponseWrap"] = "output"`` and written back to Gemini.
  ``{"error": ""}`` with ``parts`` is an error result holding only those media (no empty text item).
* ``thoughtSignature`` -> ``reasoning(opaque={namespace "gemini.thought_signature", issuer "gemini",
  value exactly as received, model})``; on a thought part it sits on that reasoning item, on any other
  part it is a separate reasoning item placed immediately before the item made from the part (same
  ``message`` key). A signature on an empty text part keeps that part as ``text("")``.
* Any other part (no known kind, several kinds, a malformed kind body) -> ``raw`` (kept exactly, round-trips to Gemini only).

Encoding is the inverse; see :class:`PartEncoder`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import msgspec

from ...codec import Item, UnknownItem
from ...items import (
    ArtifactRefItem,
    AudioItem,
    Base64Source,
    DocumentItem,
    ErrorItem,
    FileSource,
    HandoffCallItem,
    HandoffResultItem,
    ImageItem,
    OpaqueReasoning,
    Origin,
    RawItem,
    ReasoningItem,
    RefusalItem,
    StructuredItem,
    TextItem,
    TextSource,
    ToolCallItem,
    ToolResultItem,
    UrlSource,
    VideoItem,
)
from ...mapping.reasoning_text import reasoning_text
from ...mapping.opaque import replayable
from ...mapping.report import Policy, Report
from ...mapping.settings import own_provider_data
from ...errors import MalformedArgumentsError
from ._common import ISSUER, NAME, SIG_NAMESPACE, camel, get, jcopy, keyset, tag_of

UNSET = msgspec.UNSET

__all__ = ["PartDecoder", "PartEncoder", "is_files_api_uri"]

_TEXT_KEYS = {"text", "thought", "thoughtSignature"}
_KIND_KEYS = ("text", "inlineData", "fileData", "functionCall", "functionResponse")
_INLINE_KEYS = {"mimeType", "data"}
_FILE_KEYS = {"mimeType", "fileUri"}
_CALL_KEYS = {"id", "name", "args"}
_RESPONSE_KEYS = {"id", "name", "response", "parts"}
_WRAP = "functionResponseWrap"
"""Key in a ``tool_result``'s ``provider_data["gemini"]``: ``"output"`` when the wire ``response`` held an
object under ``output`` (``{"output": {...}}``), which reads the same as the bare object; not a Part field,
so the encoder takes it out before writing the part's other kept fields."""


def is_files_api_uri(uri: str) -> bool:
    """Whether ``uri`` names a file held by Google (Files API or Cloud Storage)."""
    return uri.startswith("https://generativelanguage.googleapis.com/") or uri.startswith("gs://")


_YOUTUBE = ("https://www.youtube.com/", "https://youtube.com/", "https://youtu.be/", "https://m.youtube.com/", "http://www.youtube.com/", "http://youtu.be/")


def is_youtube_uri(uri: str) -> bool:
    """Whether ``uri`` is a YouTube video URL (Gemini reads those as video without a ``mimeType``)."""
    return uri.startswith(_YOUTUBE)


def _media_item(kind_key: str, inner: Mapping[str, Any]) -> ImageItem | AudioItem | VideoItem | DocumentItem:
    """``inlineData``/``fileData`` body -> content item (no role, no key)."""
    mime = get(inner, "mimeType")
    source: Base64Source | FileSource | UrlSource
    if kind_key == "inlineData":
        # Gemini's JSON ``bytes`` take both base64 alphabets and the google-genai SDK sends the URL-safe
        # one; a canonical Base64Source is the standard alphabet (other providers, e.g. Ollama's
        # ``images``, refuse ``-``/``_``). Same bytes, so no report.
        data = get(inner, "data")
        source = Base64Source(media_type=mime, data=data.replace("-", "+").replace("_", "/") if isinstance(data, str) else data)
    else:
        uri = get(inner, "fileUri")
        mt = mime if isinstance(mime, str) else UNSET
        if uri.startswith(("http://", "https://")) and not is_files_api_uri(uri):
            source = UrlSource(url=uri, media_type=mt)
        else:
            source = FileSource(file_id=uri, provider=NAME, media_type=mt)
    mime_s = mime if isinstance(mime, str) else ""
    if mime_s.startswith("image/"):
        return ImageItem(source=source)
    if mime_s.startswith("audio/"):
        return AudioItem(source=source)
    if mime_s.startswith("video/") or (not mime_s and kind_key == "fileData" and is_youtube_uri(get(inner, "fileUri"))):
        return VideoItem(source=source)
    return DocumentItem(source=source)


_INNER_KEYS = {"inlineData": _INLINE_KEYS, "fileData": _FILE_KEYS, "functionCall": _CALL_KEYS, "functionResponse": _RESPONSE_KEYS}
"""The fields of each kind's body the mapper models; any other one (``displayName``, ``willContinue``,
``scheduling``, a field added later) is kept by :func:`part_extras`."""


def _media_ok(kind_key: str, inner: Any, *, strict: bool = False) -> bool:
    """Whether an ``inlineData``/``fileData`` body has the fields a media item needs (``strict``: and no
    others, for media nested in a ``functionResponse``, which has no place for kept fields)."""
    if not isinstance(inner, Mapping):
        return False
    keys = keyset(inner)
    if strict and not keys <= _INNER_KEYS[kind_key]:
        return False
    if not isinstance(get(inner, "mimeType", ""), str):
        return False
    if kind_key == "inlineData":
        return _INLINE_KEYS <= keys and isinstance(get(inner, "mimeType"), str) and isinstance(get(inner, "data"), str)
    return isinstance(get(inner, "fileUri"), str) and bool(get(inner, "fileUri"))


def part_extras(part: Mapping[str, Any], kind: str) -> dict[str, Any]:
    """Fields of a known part that this mapper does not model (kept in ``provider_data["gemini"]``).

    Fields beside the kind key are kept as they are (``videoMetadata``, ``thought: false``, ...);
    fields inside the kind's body that the mapper does not model go under the kind key in camelCase
    (``{"functionCall": {"willContinue": true}}``) and are merged back into that body.
    """
    known = {kind} | ({"thoughtSignature"} if get(part, "thoughtSignature") is not None else set())
    known |= {"thought"} if kind == "text" and get(part, "thought") is True else set()
    out = {k: jcopy(v) for k, v in part.items() if camel(k) not in known}
    inner = get(part, kind)
    if kind in _INNER_KEYS and isinstance(inner, Mapping):
        if inner_extras := {k: jcopy(v) for k, v in inner.items() if camel(k) not in _INNER_KEYS[kind]}:
            out[kind] = inner_extras
    return out


def _without_nulls(part: Mapping[str, Any]) -> Mapping[str, Any]:
    """``part`` without its ``null`` members, and without those of a ``functionCall`` /
    ``functionResponse`` body: proto3 JSON mapping, "null is an accepted value for all field types and
    treated as the default value" (SDK ``model_dump()`` and ADK files write every field). The part
    itself when it has none. The null members beside the kind are kept by :func:`part_extras` (read
    from the part as given) and written back."""
    if all(v is not None for v in part.values()) and not any(
        isinstance(v, Mapping) and None in v.values() for k, v in part.items() if camel(k) in ("functionCall", "functionResponse")
    ):
        return part
    out = {k: v for k, v in part.items() if v is not None}
    for k, v in out.items():
        if camel(k) in ("functionCall", "functionResponse") and isinstance(v, Mapping):
            out[k] = {ik: iv for ik, iv in v.items() if iv is not None}
    return out


def _part_kind(part: Mapping[str, Any]) -> str | None:
    """The part's kind key when its content is one this mapper maps, else ``None`` (-> raw).

    Fields beside the kind that the mapper does not model do not make the part raw: see
    :func:`part_extras`. A functionCall/functionResponse with a field added to the part is kept the same way.
    """
    keys = keyset(part)
    kinds = [k for k in _KIND_KEYS if k in keys]
    if len(kinds) != 1:
        return None
    kind = kinds[0]
    if kind == "text":
        if not isinstance(get(part, "text"), str):
            return None
        if "thought" in keys and not isinstance(get(part, "thought"), bool):
            return None
    sig = get(part, "thoughtSignature")
    if "thoughtSignature" in keys and not isinstance(sig, str):
        return None
    inner = get(part, kind)
    if kind in ("inlineData", "fileData"):
        return kind if _media_ok(kind, inner) else None
    if kind == "functionCall":
        ok = isinstance(inner, Mapping) and isinstance(inner.get("name"), str) and inner.get("name")
        # a streamed fragment of a call (partialArgs / willContinue, streamed function call arguments)
        # is no whole call: kept raw
        ok = ok and not ({"partialArgs", "willContinue"} & keyset(inner))
        ok = ok and isinstance(inner.get("args", {}), Mapping) and isinstance(inner.get("id", ""), str)
        return kind if ok else None
    if kind == "functionResponse":
        ok = isinstance(inner, Mapping) and isinstance(inner.get("name"), str)
        ok = ok and isinstance(inner.get("response", {}), Mapping) and isinstance(inner.get("id", ""), str)
        parts = inner.get("parts", []) if isinstance(inner, Mapping) else []
        ok = ok and isinstance(parts, list) and all(_response_part_ok(p) for p in parts)
        return kind if ok else None
    return kind


def _response_part_ok(part: Any) -> bool:
    if not isinstance(part, Mapping) or len(part) != 1:
        return False
    (key,) = keyset(part)
    if key not in ("inlineData", "fileData"):
        return False
    return _media_ok(key, get(part, key), strict=True)


@dataclass
class PartDecoder:
    """Decodes the parts of one Gemini content.

    Attributes:
        speaker: ``"user"`` or ``"assistant"`` (Gemini ``role`` ``user``/``model``).
        key: The ``message`` key every item gets.
        report: Where drops are recorded.
        call_id: ``(wire_id or None, name, call_ordinal) -> canonical call id``.
        result_id: ``(wire_id or None, name, part_index) -> call_id`` of the call a response answers.
        origin: Base origin for model-produced items (``None``: only tool calls get one, to remember the wire id).
        model: Model for opaque signatures, when known.
        pointer: JSON pointer of the content, for report entries.
        index: Index of the content, for report entries.
        keep_empty: Keep an empty text part as ``text("")`` (requests: the API accepts it and the part
            goes back as it came) instead of dropping it (responses and streams send it as filler).
    """

    speaker: str
    key: str
    report: Report
    call_id: Callable[[str | None, str, int], str]
    result_id: Callable[[str | None, str, int], str]
    origin: Origin | None = None
    model: str | None = None
    pointer: str = ""
    index: int | None = None
    keep_empty: bool = False
    _calls: int = field(default=0, init=False)

    def _origin(self, item_id: str | None = None) -> Any:
        if self.origin is None:
            if item_id is None:
                return UNSET
            return Origin(provider=NAME, item_id=item_id)
        if item_id is None:
            return self.origin
        return msgspec.structs.replace(self.origin, item_id=item_id)

    def _sig(self, value: str) -> OpaqueReasoning:
        return OpaqueReasoning(namespace=SIG_NAMESPACE, issuer=ISSUER, value=value, model=self.model or UNSET)

    def decode(self, parts: list[Any]) -> list[Item]:
        """Items made from ``parts`` in order (see the module docstring)."""
        out: list[Item] = []
        for j, part in enumerate(parts):
            out.extend(self._part(j, part))
        return out

    def _role_fields(self) -> dict[str, Any]:
        return {"role": self.speaker, "message": self.key}

    def _part(self, j: int, part: Any) -> list[Item]:
        ptr = f"{self.pointer}/parts/{j}"
        given = part
        if isinstance(part, Mapping):
            part = _without_nulls(part)
        kind = _part_kind(part) if isinstance(part, Mapping) else None
        if kind is None:
            return [RawItem(provider=NAME, value=jcopy(given), origin=self._origin(), **self._role_fields())]
        sig = get(part, "thoughtSignature")
        extras = part_extras(given, kind)
        pdata: Any = UNSET
        if extras:  # kept, not lost: written back to Gemini; other targets report them dropped
            pdata = {NAME: extras}
        lead: list[Item] = []
        if sig is not None and not (kind == "text" and get(part, "thought") is True):
            lead.append(ReasoningItem(opaque=self._sig(sig), origin=self._origin(), message=self.key))
        inner = get(part, kind)
        item: Item
        if kind == "text":
            text = inner
            if get(part, "thought") is True:
                return [
                    ReasoningItem(
                        text=text,
                        opaque=self._sig(sig) if sig is not None else UNSET,
                        origin=self._origin(),
                        message=self.key,
                        provider_data=pdata,
                    )
                ]
            if text == "" and sig is None and not extras and not self.keep_empty:
                self.report.add("dropped", "empty text part (not sent back)", index=self.index, item_type="text", pointer=ptr)
                return []
            origin = self._origin()
            if text == "" and origin is UNSET:
                origin = Origin(provider=NAME)  # read from Gemini: the encoder sends this empty part back (and no other)
            item = TextItem(text=text, origin=origin, **self._role_fields())
        elif kind in ("inlineData", "fileData"):
            item = msgspec.structs.replace(_media_item(kind, inner), origin=self._origin(), **self._role_fields())
        elif kind == "functionCall":
            wire_id = inner.get("id")
            k = self._calls
            self._calls += 1
            item = ToolCallItem(
                id=self.call_id(wire_id, inner["name"], k),
                name=inner["name"],
                arguments=jcopy(dict(inner.get("args", {}))),
                origin=self._origin(wire_id) if wire_id is not None else (self.origin or Origin(provider=NAME)),
                message=self.key,
            )
        else:  # functionResponse
            item = self._function_response(j, inner)
            if item.provider_data is not UNSET:  # how the response object was written (see _function_response)
                pdata = {NAME: {**item.provider_data[NAME], **(pdata[NAME] if pdata is not UNSET else {})}}
        if pdata is not UNSET:
            item = msgspec.structs.replace(item, provider_data=pdata)
        return lead + [item]

    def _function_response(self, j: int, fr: Mapping[str, Any]) -> ToolResultItem:
        content: list[Any] = []
        is_error: Any = UNSET
        pdata: Any = UNSET
        resp = fr.get("response")
        if isinstance(resp, Mapping) and resp:
            keys = set(resp)
            if keys in ({"output"}, {"error"}):
                if keys == {"error"}:
                    is_error = True
                value = resp["error"] if keys == {"error"} else resp["output"]
                if not (keys == {"error"} and value == "" and fr.get("parts")):  # {"error": ""} beside media: the error flag alone
                    content.append(TextItem(text=value) if isinstance(value, str) else StructuredItem(data=jcopy(value)))
                if keys == {"output"} and isinstance(value, Mapping) and value and set(value) not in ({"output"}, {"error"}):
                    # {"output": {...}} and the bare {...} are one structured output; the encoder writes the
                    # bare form, so the wrapping is remembered (the model saw {"output": ...})
                    pdata = {NAME: {_WRAP: "output"}}
            else:
                content.append(StructuredItem(data=jcopy(dict(resp))))
        for p in fr.get("parts", []) or []:
            (pkey,) = keyset(p)
            content.append(_media_item(pkey, get(p, pkey)))
        return ToolResultItem(
            call_id=self.result_id(fr.get("id"), fr["name"], j),
            content=content,
            name=fr["name"],
            is_error=is_error,
            message=self.key,
            provider_data=pdata,
        )


# --------------------------------------------------------------------------- encoding


def media_part(item: ImageItem | AudioItem | VideoItem | DocumentItem, *, policy: Policy, report: Report, index: int | None) -> list[dict[str, Any]]:
    """A media item -> one ``inlineData``/``fileData``/``text`` part (or none, reported)."""
    src = item.source
    item_type = tag_of(item)
    mime: Any = src.media_type
    if isinstance(item, DocumentItem) and mime is UNSET:
        mime = item.media_type
    if isinstance(src, Base64Source):
        return [{"inlineData": {"mimeType": src.media_type, "data": src.data}}]
    if isinstance(src, FileSource) and src.provider is not UNSET and src.provider != NAME:
        report.unsupported(policy, f"file {src.file_id!r} is held by {src.provider}, not Gemini", index=index, item_type=item_type)
        return []
    if isinstance(src, (UrlSource, FileSource)):
        body = {"fileUri": src.url if isinstance(src, UrlSource) else src.file_id}
        if mime is not UNSET:
            body = {"mimeType": mime, **body}
        elif not isinstance(item, DocumentItem):
            # Gemini tells media kinds apart by mimeType only; without one the part reads back as a document
            report.add("changed", f"{item_type} source without a media type is sent as an untyped file (read back as a document)", index=index, item_type=item_type)
        return [{"fileData": body}]
    if isinstance(src, TextSource):
        report.add("changed", "text document sent as a text part", index=index, item_type=item_type)
        return [{"text": src.text}]
    report.unsupported(policy, f"{tag_of(src)} source cannot be sent to Gemini", index=index, item_type=item_type)
    return []


@dataclass
class PartEncoder:
    """Encodes canonical items into Gemini contents.

    Grouping: consecutive items go into one content while the Gemini role stays the same and their
    ``message`` keys agree (an item without a key joins the current content); consecutive tool results
    always share one user content (Gemini wants parallel ``functionResponse`` parts in one turn), and
    model parts from another source right after a model turn holding ``functionCall`` parts join that
    turn whatever their key (the calls of one turn are answered by the next user turn; reported
    ``changed``); items decoded from Gemini (``origin.provider == "gemini"``) keep Gemini's own turns. A thought signature
    with no part of its own goes on the next model part (reported when that part has another key).

    Tool-call ids: a call decoded from Gemini (``origin.provider == "gemini"``) is sent with an ``id``
    only if the wire call had one (``origin.item_id`` set); calls from other sources keep their id
    (Gemini accepts client ids). A result carries an ``id`` exactly when its call does.
    """

    policy: Policy
    report: Report
    model: str | None
    calls: dict[str, ToolCallItem] = field(default_factory=dict)
    contents: list[dict[str, Any]] = field(default_factory=list)
    dropped_calls: set[str] = field(default_factory=set)
    _keys: list[Any] = field(default_factory=list)
    _results_only: list[bool] = field(default_factory=list)
    _calls_turn: list[bool] = field(default_factory=list)
    _native: bool = False
    _pending: tuple[str, Any, int] | None = None
    _extras: dict[str, Any] = field(default_factory=dict)
    _wrap: Any = None
    _idx: int | None = None

    @staticmethod
    def sends_id(call: ToolCallItem) -> bool:
        """Whether ``call`` goes to Gemini with an ``id`` (see the class docstring)."""
        origin = call.origin
        if origin is not UNSET and origin.provider == NAME:
            return origin.item_id is not UNSET
        return True

    def index_calls(self, items: list[Any]) -> None:
        """Remember every tool call, so results find their name and id rule."""
        for it in items:
            if isinstance(it, ToolCallItem):
                self.calls.setdefault(it.id, it)

    # -- placement

    def _place(self, role: str, key: Any, parts: list[dict[str, Any]], *, result: bool = False) -> None:
        if not parts:
            return
        if self._extras:  # the item's provider_data["gemini"]: fields of its part that no canonical field holds
            for k, v in self._extras.items():
                body = parts[-1].get(k)
                if isinstance(body, dict) and isinstance(v, Mapping):  # fields inside the kind's body
                    for ik, iv in v.items():
                        body.setdefault(ik, jcopy(iv))
                else:
                    parts[-1].setdefault(k, jcopy(v))
            self._extras = {}
        if self._pending is not None:
            sig, pkey, pidx = self._pending
            if (pkey == key or role == "model") and "thoughtSignature" not in parts[0]:
                if pkey != key:
                    self.report.add("changed", f"thought signature of message {pkey!r} sent on the part after it (message {key!r})", index=pidx, item_type="reasoning")
                parts[0]["thoughtSignature"] = sig
                self._pending = None
            else:
                self._flush_pending()
        if self.contents:
            cur, ckey = self.contents[-1], self._keys[-1]
            same_role = cur["role"] == role
            joins = same_role and ((result and self._results_only[-1]) or key is UNSET or ckey is UNSET or ckey == key)
            if not joins and same_role and role == "model" and self._calls_turn[-1] and not self._native:
                # Gemini answers a model turn with function calls by the user turn right after it, holding
                # one functionResponse per call ("Please ensure that the number of function response parts
                # is equal to the number of function call parts of the function call turn", the API's 400):
                # parts the model gives after its calls (a flat source's next call) join that turn. Items
                # decoded from Gemini keep the turns Gemini sent (recorded requests with one model turn
                # per call, answered by one user turn, were accepted).
                self.report.add(
                    "changed",
                    f"model parts of message {key!r} joined to the function call turn before them (message {ckey!r}, "
                    f"/contents/{len(self.contents) - 1}/parts/{len(cur['parts'])})",
                    index=self._idx,
                    item_type="tool_call",
                )
                joins = True
            if joins:
                cur["parts"].extend(parts)
                self._calls_turn[-1] = self._calls_turn[-1] or any("functionCall" in p for p in parts)
                if ckey is UNSET:
                    self._keys[-1] = key
                self._results_only[-1] = self._results_only[-1] and result
                return
        self.contents.append({"role": role, "parts": parts})
        self._keys.append(key)
        self._results_only.append(result)
        self._calls_turn.append(role == "model" and any("functionCall" in p for p in parts))

    def _flush_pending(self) -> None:
        if self._pending is None:
            return
        sig, key, idx = self._pending
        self._pending = None
        self.report.add("changed", "thought signature with no following part sent on an empty text part", index=idx, item_type="reasoning")
        self._place("model", key, [{"text": "", "thoughtSignature": sig}])

    def finish(self) -> list[dict[str, Any]]:
        """The contents built so far (flushes a trailing signature)."""
        self._flush_pending()
        return self.contents

    # -- items

    def add(self, idx: int, item: Any) -> None:
        """Encode one non-system item (its ``provider_data["gemini"]`` fields go back onto its part)."""
        tag = item.type if isinstance(item, UnknownItem) else tag_of(item)
        self._extras = own_provider_data(getattr(item, "provider_data", UNSET), NAME, self.report, what=f"a {tag} item", index=idx, item_type=tag)
        self._wrap = self._extras.pop(_WRAP, None)
        self._idx = idx
        try:
            self._add(idx, item)
        finally:
            self._extras = {}

    def _add(self, idx: int, item: Any) -> None:
        key = getattr(item, "message", UNSET)
        origin = getattr(item, "origin", UNSET)
        self._native = origin is not UNSET and origin.provider == NAME
        policy, report = self.policy, self.report
        if isinstance(item, TextItem):
            if item.text == "" and not self._native:
                # Gemini answers 400 "Unable to submit request because it has an empty text parameter";
                # an empty text read from Gemini goes back as it came (the API took it then)
                report.add("dropped", "empty text (Gemini refuses an empty text part)", index=idx, item_type="text")
                return
            if item.annotations is not UNSET and item.annotations:
                report.add("dropped", "text annotations have no Gemini equivalent", index=idx, item_type="text")
            self._place("model" if item.role == "assistant" else "user", key, [{"text": item.text}])
        elif isinstance(item, (ImageItem, AudioItem, VideoItem, DocumentItem)):
            self._media_notes(idx, item)
            self._place("model" if item.role == "assistant" else "user", key, media_part(item, policy=policy, report=report, index=idx))
        elif isinstance(item, ToolCallItem):
            self._place("model", key, self._call(idx, item))
        elif isinstance(item, ToolResultItem):
            self._place("user", key, self._result(idx, item), result=True)
        elif isinstance(item, ReasoningItem):
            self._reasoning(idx, item, key)
        elif isinstance(item, RawItem):
            if item.provider != NAME:
                report.add("dropped", f"raw item of {item.provider} cannot be sent to Gemini", index=idx, item_type="raw")
                return
            if not isinstance(item.value, dict):
                report.add("dropped", f"raw Gemini item whose value is not a part object ({type(item.value).__name__})", index=idx, item_type="raw")
                return
            self._place("model" if item.role == "assistant" else "user", key, [jcopy(item.value)])
        elif isinstance(item, StructuredItem):
            report.add("changed", "structured output sent as JSON text", index=idx, item_type="structured")
            self._place("model", key, [{"text": msgspec.json.encode(item.data).decode()}])
        elif isinstance(item, RefusalItem):
            for t in report.unsupported(policy, "Gemini has no refusal part", index=idx, item_type="refusal", marker=item.text):
                self._place("model", key, [{"text": t.text}])
        elif isinstance(item, ErrorItem):
            report.add("dropped", "error items are runtime records, not sent to a model", index=idx, item_type="error")
        elif isinstance(item, (ArtifactRefItem, HandoffCallItem, HandoffResultItem)):
            tag = tag_of(item)
            for t in report.unsupported(policy, f"Gemini cannot carry a {tag} item", index=idx, item_type=tag):
                self._place("model" if isinstance(item, HandoffCallItem) else "user", key, [{"text": t.text}])
        elif isinstance(item, UnknownItem):
            report.add("dropped", f"unknown item type {item.type!r} cannot be sent to Gemini", index=idx, item_type=item.type)
        else:  # pragma: no cover - the union is closed
            raise TypeError(f"not a canonical item: {type(item).__name__}")

    def _media_notes(self, idx: int, item: Any) -> None:
        tag = tag_of(item)
        for name in ("detail", "transcript", "format", "title", "filename", "context", "citations"):
            if getattr(item, name, UNSET) is not UNSET:
                self.report.add("dropped", f"{tag} {name} has no Gemini equivalent", index=idx, item_type=tag)

    def _call(self, idx: int, item: ToolCallItem) -> list[dict[str, Any]]:
        if item.arguments is UNSET:
            reason = f"tool call {item.id!r} has malformed arguments ({item.arguments_error or 'no arguments object'}); Gemini needs an object"
            if self.policy == "error":
                raise MalformedArgumentsError(reason, index=idx, item_type="tool_call")
            self.report.add("dropped", reason, index=idx, item_type="tool_call")
            self.dropped_calls.add(item.id)
            return []
        body: dict[str, Any] = {"name": item.name, "args": jcopy(item.arguments)}
        if self.sends_id(item):
            body = {"id": item.id, **body}
        return [{"functionCall": body}]

    def _result(self, idx: int, item: ToolResultItem) -> list[dict[str, Any]]:
        if item.call_id in self.dropped_calls:
            # Gemini requires results to match calls: a result without its call would be an orphan
            self.report.add("dropped", f"result of the dropped tool call {item.call_id!r}", index=idx, item_type="tool_result")
            return []
        call = self.calls.get(item.call_id)
        name = item.name if item.name is not UNSET else (call.name if call is not None else None)
        if not name:
            self.report.unsupported(self.policy, f"tool result for {item.call_id!r} has no tool name and no matching call", index=idx, item_type="tool_result")
            return []
        non_media: list[Any] = []
        media: list[dict[str, Any]] = []
        for c in item.content:
            pd = getattr(c, "provider_data", UNSET)
            if isinstance(pd, dict) and pd:  # nested parts carry no Gemini fields: all reported
                own_provider_data({k: v for k, v in pd.items() if k != NAME}, NAME, self.report, what=f"a {tag_of(c)} in a tool result", index=idx, item_type="tool_result")
            if isinstance(c, (TextItem, StructuredItem)):
                non_media.append(c)
            elif isinstance(c, (ImageItem, AudioItem, VideoItem, DocumentItem)):
                if isinstance(c.source, TextSource):
                    non_media.append(TextItem(text=c.source.text))
                    self.report.add("changed", "text document in a tool result sent as text", index=idx, item_type="tool_result")
                    continue
                self._media_notes(idx, c)
                parts = media_part(c, policy=self.policy, report=self.report, index=idx)
                media.extend(parts)
            else:
                tag = tag_of(c)
                for t in self.report.unsupported(self.policy, f"a {tag} in a tool result cannot be sent to Gemini", index=idx, item_type="tool_result"):
                    non_media.append(t)
        err = item.is_error is True
        slot = "error" if err else "output"
        response: dict[str, Any]
        if err and media and len(non_media) == 1 and isinstance(non_media[0], TextItem) and non_media[0].text == "":
            # {"error": ""} beside media reads back as the error flag alone (see the decoding rules)
            self.report.add("dropped", "an empty error text beside media has no distinct Gemini form", index=idx, item_type="text")
            non_media = []
        if not non_media:
            response = {slot: ""} if err else {}
        elif len(non_media) == 1:
            c = non_media[0]
            if isinstance(c, TextItem):
                response = {slot: c.text}
            elif isinstance(c.data, dict) and not err and c.data and set(c.data) not in ({"output"}, {"error"}):
                response = {"output": jcopy(c.data)} if self._wrap == "output" else jcopy(c.data)
            else:
                response = {slot: jcopy(c.data)}
        else:
            self.report.add("changed", "several tool result items sent as one list", index=idx, item_type="tool_result")
            response = {slot: [c.text if isinstance(c, TextItem) else jcopy(c.data) for c in non_media]}
        body: dict[str, Any] = {"name": name, "response": response}
        if call is None or self.sends_id(call):
            body = {"id": item.call_id, **body}
        if media:
            body["parts"] = media
        return [{"functionResponse": body}]

    def _reasoning(self, idx: int, item: ReasoningItem, key: Any) -> None:
        sig: str | None = None
        if item.opaque is not UNSET:
            ok, why = replayable(item.opaque, ISSUER, self.model, model_bound=True)
            if ok and item.opaque.namespace != SIG_NAMESPACE:
                ok, why = False, f"opaque {item.opaque.namespace} is not a Gemini thought signature"
            if ok and not isinstance(item.opaque.value, str):
                ok, why = False, "thought signature is not a string"
            has_text = item.text is not UNSET or (item.summary is not UNSET and bool(item.summary))
            if not ok and not has_text:
                self.report.add("dropped", f"{why}; reasoning left out", index=idx, item_type="reasoning")
                return
            if not ok:
                # another issuer's (or model's) state cannot be replayed, but its text can: Gemini takes
                # thought text without a signature (pydantic-ai's test_google_model_thinking_part_from_other_model
                # sent OpenAI reasoning summaries as thought parts and was answered 200)
                self.report.add("dropped", f"{why}; its opaque state is left out, the text is sent as a thought part", index=idx, item_type="reasoning")
            else:
                sig = item.opaque.value
        text = reasoning_text(item, self.report, index=idx, sent_as="thought text")
        if text is None:
            if sig is None:
                self.report.add("dropped", "reasoning with neither text nor a Gemini signature", index=idx, item_type="reasoning")
                return
            self._flush_pending()
            self._pending = (sig, key, idx)
            return
        part: dict[str, Any] = {"text": text, "thought": True}
        if sig is not None:
            part["thoughtSignature"] = sig
        self._place("model", key, [part])
