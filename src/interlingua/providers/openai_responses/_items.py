"""Wire items <-> canonical items, shared by requests (``input``) and responses (``output``).

Shapes (OAI ``types/responses``): ``response_input_item_param.py``, ``easy_input_message_param.py``,
``response_output_message.py``, ``response_output_text.py``, ``response_output_refusal.py``,
``response_function_tool_call.py``, ``response_reasoning_item.py``, ``response_input_image.py``,
``response_input_file.py``. The rules are listed with their sources in docs/providers/openai_responses.md.
"""

from __future__ import annotations

import mimetypes
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from ...codec import Item, UnknownItem
from ...items import (
    ArtifactRefItem,
    AudioItem,
    VideoItem,
    Base64Source,
    DocumentItem,
    FileSource,
    ImageItem,
    OpaqueReasoning,
    RawItem,
    ReasoningItem,
    RefusalItem,
    StructuredItem,
    TextItem,
    ToolCallItem,
    ToolResultItem,
    UrlSource,
)
from ...mapping.extras import as_provider_data, item_fields, keep_fields, restore_fields, unknown_fields
from ...mapping.arguments import arguments_json, tool_call_from_text
from ...mapping.ids import IdMap
from ...mapping.opaque import replayable
from ...mapping.report import Policy, Report
from ...mapping.wire import a_json_type
from ._common import (
    FILE_PROVIDER,
    ISSUER,
    NAME,
    NAMESPACE,
    UNSET,
    _ANNOTATION_FIELDS,
    annotation_from_wire,
    data_url,
    origin,
    own_item_id,
    parse_data_url,
    plain,
    url_or_data,
)

__all__ = [
    "DecodeContext",
    "decode_function_call",
    "decode_function_call_output",
    "decode_message",
    "decode_reasoning",
    "decode_wire_item",
    "encode_message",
    "encode_reasoning",
    "encode_tool_call",
    "encode_tool_result",
    "raw_item",
]

ROLES = ("user", "system", "developer", "assistant")

_MESSAGE_FIELDS = {"type", "role", "content", "id", "status"}
_CALL_FIELDS = {"type", "call_id", "name", "arguments", "id", "status"}
_OUTPUT_FIELDS = {"type", "call_id", "output", "id", "status"}
_REASONING_FIELDS = {"type", "id", "summary", "encrypted_content", "content", "status"}
_OPENAI_FILE_PROVIDERS = (UNSET, FILE_PROVIDER, NAME, "openai-chat")


class _NotCanonical(Exception):
    """A wire item has a shape with no faithful canonical form; it is kept as a raw item."""


@dataclass
class DecodeContext:
    """Where decoded items come from.

    Attributes:
        report: Collects every field that is not carried.
        model: Model name for ``origin`` (responses only).
        response_id: Response id for ``origin`` (responses only).
    """

    report: Report
    model: str | None = None
    response_id: str | None = None

    def origin(self, item_id: Any) -> Any:
        return origin(item_id, model=self.model, response_id=self.response_id)


def raw_item(value: Mapping[str, Any], key: str | None) -> RawItem:
    """A provider item with no canonical form, kept exactly as received (a message keeps its role)."""
    role = value.get("role")
    return RawItem(provider=NAME, value=plain(dict(value)), message=key if key else UNSET, role=role if role in ROLES else UNSET)


def _report_extra(raw: Mapping[str, Any], known: set[str], ctx: DecodeContext, index: int, pointer: str, item_type: str) -> None:
    for key in raw:
        if key not in known:
            ctx.report.add("dropped", f"field {key!r} of a {item_type} item is not carried", index=index, item_type=item_type, pointer=f"{pointer}/{key}")


# --------------------------------------------------------------------------- decode


def _decode_input_image(part: Mapping[str, Any], role: Any) -> ImageItem:
    detail = part.get("detail")
    if detail is not None and detail not in ("auto", "low", "high", "original"):
        raise _NotCanonical
    url, file_id = part.get("image_url"), part.get("file_id")
    if isinstance(url, str) and url and file_id is None:
        source: Any = url_or_data(url)
    elif isinstance(file_id, str) and file_id and url is None:
        source = FileSource(file_id=file_id, provider=FILE_PROVIDER)
    else:
        raise _NotCanonical
    if set(part) - {"type", "image_url", "file_id", "detail"}:
        raise _NotCanonical
    return ImageItem(source=source, detail=detail if detail is not None else UNSET, role=role)


def _decode_input_file(part: Mapping[str, Any], role: Any, ctx: DecodeContext, index: int, pointer: str) -> DocumentItem:
    data, file_id, file_url = part.get("file_data"), part.get("file_id"), part.get("file_url")
    given = [v for v in (data, file_id, file_url) if v is not None]
    if len(given) != 1 or not isinstance(given[0], str) or not given[0]:
        raise _NotCanonical
    if set(part) - {"type", "file_data", "file_id", "file_url", "filename", "detail"}:
        raise _NotCanonical
    filename = part.get("filename")
    if filename is not None and not isinstance(filename, str):
        raise _NotCanonical
    media_type: Any = UNSET
    if data is not None:
        source: Any = parse_data_url(data)
        if source is None:
            guessed = mimetypes.guess_type(filename or "")[0] or "application/octet-stream"
            source = Base64Source(media_type=guessed, data=data)
            ctx.report.add("changed", f"file_data is bare base64; kept as {guessed} and sent back as a data URL", index=index, item_type="input_file", pointer=f"{pointer}/file_data")
        media_type = source.media_type
    elif file_id is not None:
        source = FileSource(file_id=file_id, provider=FILE_PROVIDER)
    else:
        source = url_or_data(str(file_url))
        if isinstance(source, Base64Source):
            media_type = source.media_type
    if part.get("detail") is not None:
        ctx.report.add("dropped", "input_file detail is not carried", index=index, item_type="input_file", pointer=f"{pointer}/detail")
    return DocumentItem(source=source, media_type=media_type, filename=filename if filename is not None else UNSET, role=role)


def _decode_part(part: Any, role: Any, ctx: DecodeContext, index: int, pointer: str, *, assistant_parts: bool) -> Item:
    """One content part -> a canonical item (``role`` is UNSET inside a tool output)."""
    if not isinstance(part, Mapping):
        raise _NotCanonical
    kind = part.get("type")
    if kind in ("input_text", "output_text"):
        text = part.get("text")
        if not isinstance(text, str):
            raise _NotCanonical
        extras: Any = UNSET
        if kind == "input_text" and set(part) - {"type", "text"}:
            # fields not modelled (OpenRouter prompt_cache_breakpoint, ...): the text is kept, they go to provider_data
            extras = as_provider_data(NAME, unknown_fields(part, ("type", "text")))
        annotations: Any = UNSET
        if kind == "output_text":
            if not assistant_parts:
                raise _NotCanonical
            raw_ann = part.get("annotations")
            if raw_ann is not None and not isinstance(raw_ann, list):
                raise _NotCanonical
            if raw_ann:
                if not all(isinstance(a, Mapping) for a in raw_ann):
                    raise _NotCanonical
                annotations = [annotation_from_wire(a) for a in raw_ann]
            # ``logprobs`` and any other field of the part go back to this provider (ADR 0009).
            return keep_fields(TextItem(text=text, role=role, annotations=annotations), NAME, unknown_fields(part, ("type", "text", "annotations")))
        return TextItem(text=text, role=role, annotations=annotations, provider_data=extras)
    if kind == "refusal" and assistant_parts:
        text = part.get("refusal")
        if not isinstance(text, str) or set(part) - {"type", "refusal"}:
            raise _NotCanonical
        return RefusalItem(text=text)
    if kind == "input_image" and not assistant_parts:
        return _decode_input_image(part, role)
    if kind == "input_file" and not assistant_parts:
        return _decode_input_file(part, role, ctx, index, pointer)
    raise _NotCanonical


def decode_message(raw: Mapping[str, Any], key: str, ctx: DecodeContext, index: int, pointer: str) -> list[Item]:
    """A message item (easy, strict or output form) -> content items sharing ``key``.

    Assistant content is ``output_text``/``refusal`` (output form) or a string; other roles take
    ``input_text``/``input_image``/``input_file`` or a string. A message holding a part with no
    canonical form (``input_audio``, unknown parts), or no parts at all, is kept whole as a raw item.
    """
    role = raw.get("role")
    content = raw.get("content")
    if role not in ROLES:
        return [raw_item(raw, key)]
    assistant = role == "assistant"
    item_id = raw.get("id") if assistant else None
    org = ctx.origin(item_id) if isinstance(item_id, str) else (ctx.origin(None) if assistant else UNSET)
    if raw.get("id") is not None and not assistant:
        ctx.report.add("dropped", "id of a non-assistant message is not carried", index=index, item_type="message", pointer=f"{pointer}/id")
    # The message's own unmodelled fields (``phase``, ...) ride on its first item (ADR 0009).
    message_extra = unknown_fields(raw, _MESSAGE_FIELDS)
    if isinstance(content, str):
        items: list[Item] = [TextItem(text=content, role=role)]
    elif isinstance(content, list) and content:
        sub = Report()
        sub_ctx = DecodeContext(sub, ctx.model, ctx.response_id)
        try:
            items = [
                _decode_part(part, role, sub_ctx, index, f"{pointer}/content/{j}", assistant_parts=assistant)
                for j, part in enumerate(content)
            ]
        except _NotCanonical:
            return [raw_item(raw, key)]
        ctx.report.extend(sub)
    else:
        return [raw_item(raw, key)]
    out: list[Item] = []
    for item in items:
        if org is not UNSET:
            item = msgspec.structs.replace(item, origin=org)  # type: ignore[type-var]
        out.append(msgspec.structs.replace(item, message=key))  # type: ignore[type-var]
    if out and message_extra:
        out[0] = keep_fields(out[0], NAME, {_MESSAGE_EXTRA: message_extra})
    return out


_MESSAGE_EXTRA = "message"
"""Key, in a content item's own ``provider_data``, of its message's unmodelled fields (the part's own fields sit beside it)."""


def _message_extra(items: Sequence[tuple[int, Any]]) -> dict[str, Any]:
    """The message fields kept on the first of ``items`` (other providers' data is reported by :func:`encode_content`)."""
    for _, item in items:
        pd = getattr(item, "provider_data", UNSET)
        own = pd.get(NAME) if isinstance(pd, dict) else None
        if isinstance(own, dict) and isinstance(own.get(_MESSAGE_EXTRA), dict):
            return plain(own[_MESSAGE_EXTRA])
    return {}


def decode_function_call(raw: Mapping[str, Any], key: str, ctx: DecodeContext, index: int, pointer: str) -> Item:
    """``function_call`` -> :class:`ToolCallItem` (id = ``call_id``; ``fc_`` id in ``origin.item_id``).

    Malformed ``arguments`` are kept raw with the reason (never ``{}``).
    """
    call_id, name, args = raw.get("call_id"), raw.get("name"), raw.get("arguments")
    # an empty call_id ("") is passed through, linked to its output by position (interlingua.mapping.empty_ids)
    if not (isinstance(call_id, str) and isinstance(name, str) and name and isinstance(args, str)):
        return raw_item(raw, key)
    item_id = raw.get("id")
    call = tool_call_from_text(call_id, name, args, origin=ctx.origin(item_id if isinstance(item_id, str) else None), message=key)
    # unmodelled fields go back to this provider; so does a ``status`` other than the ``completed`` the
    # encoder writes (a response may hold a call still ``in_progress``: ResponseFunctionToolCall.status)
    known = _CALL_FIELDS if raw.get("status") in (None, "completed") else _CALL_FIELDS - {"status"}
    return keep_fields(call, NAME, unknown_fields(raw, known))


def decode_function_call_output(raw: Mapping[str, Any], key: str, ctx: DecodeContext, index: int, pointer: str) -> Item:
    """``function_call_output`` -> :class:`ToolResultItem`; a string output becomes one text item."""
    call_id, output = raw.get("call_id"), raw.get("output")
    if not isinstance(call_id, str):  # "" is linked to its call by position (interlingua.mapping.empty_ids)
        return raw_item(raw, key)
    if isinstance(output, str):
        content: list[Any] = [TextItem(text=output)]
    elif isinstance(output, list):
        sub = DecodeContext(Report(), ctx.model, ctx.response_id)
        try:
            content = [_decode_part(p, UNSET, sub, index, f"{pointer}/output/{j}", assistant_parts=False) for j, p in enumerate(output)]
        except _NotCanonical:
            return raw_item(raw, key)
        ctx.report.extend(sub.report)
    else:
        return raw_item(raw, key)
    _report_extra(raw, _OUTPUT_FIELDS, ctx, index, pointer, "function_call_output")
    item_id = raw.get("id")
    return ToolResultItem(call_id=call_id, content=content, origin=origin(item_id) if isinstance(item_id, str) else UNSET, message=key)


def decode_reasoning(raw: Mapping[str, Any], key: str, ctx: DecodeContext, index: int, pointer: str) -> Item:
    """``reasoning`` -> :class:`ReasoningItem` (summary texts, ``reasoning_text`` content, encrypted_content
    as opaque ``openai.encrypted_content`` issued by ``openai-responses``, ``rs_`` id in ``origin.item_id``)."""
    summary_raw = raw.get("summary", [])
    content_raw = raw.get("content")
    encrypted = raw.get("encrypted_content")
    if not isinstance(summary_raw, list) or not all(
        isinstance(s, Mapping) and s.get("type") == "summary_text" and isinstance(s.get("text"), str) and set(s) <= {"type", "text"} for s in summary_raw
    ):
        return raw_item(raw, key)
    if content_raw is not None and (
        not isinstance(content_raw, list)
        or len(content_raw) > 1
        or not all(isinstance(c, Mapping) and c.get("type") == "reasoning_text" and isinstance(c.get("text"), str) and set(c) <= {"type", "text"} for c in content_raw)
    ):
        return raw_item(raw, key)
    if encrypted is not None and not isinstance(encrypted, str):
        return raw_item(raw, key)
    item_id = raw.get("id")
    # Unmodelled fields (and a ``status``, which the encoder does not write) go back to this provider.
    extra = unknown_fields(raw, _REASONING_FIELDS - {"status"})
    return keep_fields(ReasoningItem(
        summary=[s["text"] for s in summary_raw],
        text=content_raw[0]["text"] if content_raw else UNSET,
        opaque=OpaqueReasoning(namespace=NAMESPACE, issuer=ISSUER, value=encrypted) if encrypted is not None else UNSET,
        origin=ctx.origin(item_id if isinstance(item_id, str) else None),
        message=key,
    ), NAME, extra)


def decode_wire_item(raw: Any, key: str, ctx: DecodeContext, index: int, pointer: str) -> list[Item]:
    """Any ``input``/``output`` item -> canonical items; item types with no canonical form
    (``item_reference``, ``web_search_call``, ``mcp_*``, ...) -> :class:`RawItem`."""
    if not isinstance(raw, Mapping):
        ctx.report.add("dropped", f"input item is {a_json_type(raw)}, not an object", index=index, pointer=pointer)
        return []
    kind = raw.get("type")
    if kind == "message" or (kind is None and "role" in raw):
        return decode_message(raw, key, ctx, index, pointer)
    if kind == "function_call":
        return [decode_function_call(raw, key, ctx, index, pointer)]
    if kind == "function_call_output":
        return [decode_function_call_output(raw, key, ctx, index, pointer)]
    if kind == "reasoning":
        return [decode_reasoning(raw, key, ctx, index, pointer)]
    return [raw_item(raw, key)]


# --------------------------------------------------------------------------- encode


@dataclass
class EncodeContext:
    """State of one encoding: policy, report and the call-id map."""

    policy: Policy
    report: Report
    ids: IdMap


def _file_id(source: FileSource, ctx: EncodeContext, index: int, item_type: str) -> str | None:
    if source.provider in _OPENAI_FILE_PROVIDERS:
        return source.file_id
    return None


def _encode_image(item: ImageItem, ctx: EncodeContext, index: int) -> list[dict[str, Any]] | None:
    out: dict[str, Any] = {"type": "input_image"}
    src = item.source
    if isinstance(src, UrlSource):
        out["image_url"] = src.url
    elif isinstance(src, Base64Source):
        out["image_url"] = data_url(src)
    elif isinstance(src, FileSource) and _file_id(src, ctx, index, "image") is not None:
        out["file_id"] = src.file_id
    else:
        return None
    # ResponseInputImageParam.detail is Required; "auto" is the API default, written when none is given.
    out["detail"] = item.detail if item.detail is not UNSET else "auto"
    return [out]


def _encode_document(item: DocumentItem, ctx: EncodeContext, index: int) -> list[dict[str, Any]] | None:
    out: dict[str, Any] = {"type": "input_file"}
    src = item.source
    if isinstance(src, Base64Source):
        out["file_data"] = data_url(src)
    elif isinstance(src, FileSource) and _file_id(src, ctx, index, "document") is not None:
        out["file_id"] = src.file_id
    elif isinstance(src, UrlSource):
        out["file_url"] = src.url
    else:
        return None
    if item.filename is not UNSET:
        out["filename"] = item.filename
    for name in ("title", "context", "citations"):
        if getattr(item, name) is not UNSET:
            ctx.report.add("dropped", f"document {name} has no input_file field", index=index, item_type="document")
    return [out]


def encode_content(item: Any, ctx: EncodeContext, index: int, *, assistant: bool) -> list[dict[str, Any]]:
    """One content item -> wire parts (``[]`` when dropped under the policy; reported).

    The item's ``provider_data["openai-responses"]`` fields go back onto its part; another
    provider's ``provider_data`` is reported dropped (:func:`~interlingua.mapping.extras.merge_own`).
    """
    parts = _encode_content(item, ctx, index, assistant=assistant)
    # Assistant text restores its own fields in _encode_content; the message-level fields
    # (_MESSAGE_EXTRA) go on the message, never on a part.
    if getattr(item, "provider_data", UNSET) is not UNSET and not (assistant and isinstance(item, TextItem)):
        own = item_fields(item, NAME, ctx.report, index=index)
        own.pop(_MESSAGE_EXTRA, None)
        if len(parts) == 1:
            restore_fields(parts[0], own)
    return parts


def _encode_content(item: Any, ctx: EncodeContext, index: int, *, assistant: bool) -> list[dict[str, Any]]:
    """One content item -> wire parts, without its provider_data (see :func:`encode_content`).

    Raises:
        ConversionError: under policy ``error`` for content the Responses API cannot carry
            (audio: ``input_audio`` is not in the message-content union of OAI e43b422; artifact refs;
            foreign file ids; text documents; images in assistant messages).
    """
    if isinstance(item, TextItem):
        if assistant:
            anns = encode_annotations(item, ctx, index)
            own = item_fields(item, NAME, ctx.report, index=index)
            own.pop(_MESSAGE_EXTRA, None)
            return [restore_fields({"type": "output_text", "text": item.text, "annotations": anns}, own)]
        if item.annotations is not UNSET and item.annotations:
            ctx.report.add("dropped", "annotations on input text are not carried", index=index, item_type="text")
        return [{"type": "input_text", "text": item.text}]
    if isinstance(item, RefusalItem):
        if assistant:
            return [{"type": "refusal", "refusal": item.text}]
        return _degrade(ctx, "a refusal cannot appear outside an assistant message", index, "refusal", assistant)
    if isinstance(item, StructuredItem):
        ctx.report.add("changed", "structured data sent as JSON text", index=index, item_type="structured")
        text = msgspec.json.encode(item.data).decode()
        return [{"type": "output_text", "text": text, "annotations": []} if assistant else {"type": "input_text", "text": text}]
    if isinstance(item, ImageItem) and not assistant:
        parts = _encode_image(item, ctx, index)
        if parts is not None:
            return parts
        return _degrade(ctx, f"image source {describe(item.source)!r} cannot be sent to {NAME}", index, "image", assistant)
    if isinstance(item, DocumentItem) and not assistant:
        parts = _encode_document(item, ctx, index)
        if parts is not None:
            return parts
        return _degrade(ctx, f"document source {describe(item.source)!r} cannot be sent to {NAME}", index, "document", assistant)
    if isinstance(item, VideoItem):
        return _degrade(ctx, "video input is not in the Responses message-content union", index, "video", assistant)
    if isinstance(item, AudioItem):
        return _degrade(ctx, "audio input is not in the Responses message-content union", index, "audio", assistant)
    if isinstance(item, ArtifactRefItem):
        return _degrade(ctx, "artifact references cannot be sent to a provider", index, "artifact_ref", assistant)
    kind = describe(item)
    return _degrade(ctx, f"{kind} content cannot appear in {'an assistant' if assistant else 'this'} message", index, str(kind), assistant)


_ANNOTATION_TYPES: dict[str, tuple[str, ...]] = {
    "url_citation": ("url", "title", "start_index", "end_index"),
    "file_citation": ("file_id", "filename", "index"),
    "container_file_citation": ("container_id", "file_id", "filename", "start_index", "end_index"),
    "file_path": ("file_id", "index"),
}
"""``output_text`` annotation types and their fields, all ``Required`` (OAI ``response_output_text.py``:
``AnnotationURLCitation``, ``AnnotationFileCitation``, ``AnnotationContainerFileCitation``, ``AnnotationFilePath``)."""

_URL_KINDS = ("web_search_result_location",)
"""Other providers' citation kinds that cite a URL (Anthropic ``web_search_result_location``) -> ``url_citation``."""


def encode_annotations(item: TextItem, ctx: EncodeContext, index: int) -> list[dict[str, Any]]:
    """The annotations of an assistant text -> ``output_text`` annotations the SDK's types accept.

    Each is one of :data:`_ANNOTATION_TYPES` with every field it requires and no other: a URL citation
    from another provider becomes ``url_citation``; one with no span covers the whole text it is on, one
    with no title gets ``""`` (each reported as changed); ``provider_data`` keys that are no field of
    the type are left out, and an annotation missing a required field, or of a kind Responses has not,
    is dropped (reported).
    """
    out: list[dict[str, Any]] = []
    for ann in item.annotations if item.annotations is not UNSET else []:
        kind = ann.kind
        if kind in _URL_KINDS and ann.url is not UNSET:
            ctx.report.add("changed", f"{kind} annotation written as url_citation", index=index, item_type="text")
            kind = "url_citation"
        fields = _ANNOTATION_TYPES.get(kind)
        if fields is None:
            ctx.report.add("dropped", f"annotation {kind!r} has no Responses output_text form", index=index, item_type="text")
            continue
        extra = ann.provider_data if ann.provider_data is not UNSET else {}
        wire: dict[str, Any] = {"type": kind}
        for name in fields:
            value = getattr(ann, name, UNSET) if name in _ANNOTATION_FIELDS else UNSET
            wire[name] = value if value is not UNSET else plain(extra[name]) if name in extra else UNSET
        if kind == "url_citation":
            if wire["start_index"] is UNSET or wire["end_index"] is UNSET:
                ctx.report.add("changed", "url citation with no span written over its whole text", index=index, item_type="text")
                wire["start_index"], wire["end_index"] = 0, len(item.text)
            if wire["title"] is UNSET:
                ctx.report.add("changed", "url citation with no title written with title ''", index=index, item_type="text")
                wire["title"] = ""
        missing = [k for k, v in wire.items() if v is UNSET]
        if missing:
            ctx.report.add("dropped", f"{kind} annotation without {', '.join(missing)} cannot be written", index=index, item_type="text")
            continue
        left = sorted(k for k in extra if k not in fields and k != "type")
        if left:
            ctx.report.add("dropped", f"annotation fields {left} are not in {kind}", index=index, item_type="text")
        out.append(wire)
    return out


def _degrade(ctx: EncodeContext, reason: str, index: int, item_type: str, assistant: bool) -> list[dict[str, Any]]:
    marker = ctx.report.unsupported(ctx.policy, reason, index=index, item_type=item_type)
    if assistant:
        return [{"type": "output_text", "text": m.text, "annotations": []} for m in marker]
    return [{"type": "input_text", "text": m.text} for m in marker]


def encode_message(items: Sequence[tuple[int, Any]], role: str, ctx: EncodeContext, *, output_form: bool = False) -> list[dict[str, Any]]:
    """Consecutive content items of one message -> message items (``[]`` if nothing is left).

    Forms (OAI ``easy_input_message_param.py``, ``response_output_message_param.py``,
    ``response_input_item_param.py``):

    - an assistant message made by this provider (``msg_`` id in origin) or ``output_form`` ->
      ``{type:"message", id, role:"assistant", status:"completed", content:[output_text|refusal]}``
      (``ResponseOutputMessageParam``: ``id`` and ``status`` are ``Required``);
    - any other assistant message -> ``EasyInputMessageParam`` ``{role:"assistant", content:"<text>"}``,
      one per part: no Responses input type takes output parts or a refusal without the provider's
      message id (``ResponseInputItemParam.Message`` has no assistant role), so a refusal is sent as
      assistant text, text annotations are left out and several parts become several messages
      (each reported);
    - a single text part without annotations -> ``{role, content: "<text>"}``;
    - anything else -> ``{type:"message", role, content:[parts]}``.
    """
    out_messages = _encode_message(items, role, ctx, output_form=output_form)
    if out_messages:
        restore_fields(out_messages[0], _message_extra(items))
    return out_messages


def _encode_message(items: Sequence[tuple[int, Any]], role: str, ctx: EncodeContext, *, output_form: bool) -> list[dict[str, Any]]:
    assistant = role == "assistant"
    by_item = [(index, encode_content(item, ctx, index, assistant=assistant)) for index, item in items]
    parts = [part for _, item_parts in by_item for part in item_parts]
    if not parts:
        return []
    msg_id = next((own_item_id(item.origin, "") for _, item in items if own_item_id(item.origin, "")), None)
    if assistant and (msg_id or output_form):
        out: dict[str, Any] = {"type": "message", "role": "assistant", "content": parts, "status": "completed"}
        if msg_id:
            out["id"] = msg_id
        return [out]
    if len(parts) == 1 and parts[0]["type"] in ("input_text", "output_text") and not parts[0].get("annotations"):
        return [{"role": role, "content": parts[0]["text"]}]
    if assistant:
        return _easy_assistant(by_item, ctx)
    return [{"type": "message", "role": role, "content": parts}]


def _easy_assistant(by_item: list[tuple[int, list[dict[str, Any]]]], ctx: EncodeContext) -> list[dict[str, Any]]:
    """Assistant parts with no provider message id -> one ``EasyInputMessageParam`` per part (reported)."""
    n = sum(len(parts) for _, parts in by_item)
    if n > 1:
        ctx.report.add("changed", f"assistant message of {n} parts with no Responses message id sent as {n} assistant messages (ResponseOutputMessageParam.id is required)", index=by_item[0][0], item_type="text")
    out = []
    for index, parts in by_item:
        for part in parts:
            if part["type"] == "refusal":
                ctx.report.add("changed", "refusal sent as assistant text: no Responses input type takes a refusal without the provider's message id", index=index, item_type="refusal")
                out.append({"role": "assistant", "content": part["refusal"]})
                continue
            if part.get("annotations"):
                ctx.report.add("dropped", "annotations of assistant text with no Responses message id are not carried (EasyInputMessageParam content is a string)", index=index, item_type="text")
            out.append({"role": "assistant", "content": part["text"]})
    return out


def encode_tool_call(item: ToolCallItem, ctx: EncodeContext, index: int) -> dict[str, Any] | None:
    """:class:`ToolCallItem` -> ``function_call`` (``call_id`` via the id map; ``fc_`` id only when
    this provider made the call). ``None`` when the call is dropped under policy ``drop``.

    Raises:
        MalformedArgumentsError: under policy ``error`` when the call has no arguments object.
    """
    args = arguments_json(item, policy=ctx.policy, report=ctx.report, index=index)
    if args is None:
        return None
    out: dict[str, Any] = {"type": "function_call", "call_id": ctx.ids.get(item.id, index=index), "name": item.name, "arguments": args}
    fc_id = own_item_id(item.origin, "")
    if fc_id:
        out["id"] = fc_id
    return restore_fields(out, item_fields(item, NAME, ctx.report, index=index))


def encode_tool_result(item: ToolResultItem, ctx: EncodeContext, index: int) -> dict[str, Any]:
    """:class:`ToolResultItem` -> ``function_call_output`` (one plain text item -> string output)."""
    content = list(item.content)
    if item.is_error is True:
        ctx.report.add("changed", "is_error has no function_call_output field; the output is sent without it", index=index, item_type="tool_result")
    if not content:
        output: Any = ""
    elif len(content) == 1 and isinstance(content[0], TextItem) and (content[0].annotations is UNSET or not content[0].annotations) and content[0].provider_data is UNSET:
        output = content[0].text
    else:
        output = []
        for part in content:
            output.extend(encode_content(part, ctx, index, assistant=False))
    out: dict[str, Any] = {"type": "function_call_output", "call_id": ctx.ids.get(item.call_id, index=index), "output": output}
    item_id = own_item_id(item.origin, "")
    if item_id:
        out["id"] = item_id
    return out


def encode_reasoning(item: ReasoningItem, ctx: EncodeContext, index: int) -> dict[str, Any] | None:
    """:class:`ReasoningItem` -> ``reasoning`` item, or ``None`` (reported) when it cannot be replayed.

    A reasoning item needs its ``rs_`` id (OAI ``response_reasoning_item_param.py``: ``id`` Required), so
    only reasoning this provider made is sent. Opaque state from another issuer is left out and
    reported, never turned into visible text.
    """
    rs_id = own_item_id(item.origin, "")
    if rs_id is None:
        ctx.report.add("dropped", f"reasoning not made by {NAME} (no rs_ id) cannot be replayed; left out with its opaque state, not turned into text", index=index, item_type="reasoning")
        return None
    opaque = item.opaque
    if opaque is not UNSET:
        ok, why = replayable(opaque, ISSUER, None, model_bound=False)
        if not ok or opaque.namespace != NAMESPACE or not isinstance(opaque.value, str):
            ctx.report.add("dropped", why or f"opaque {opaque.namespace} is not OpenAI encrypted reasoning", index=index, item_type="reasoning")
            opaque = UNSET
    out: dict[str, Any] = {"type": "reasoning", "id": rs_id, "summary": [{"type": "summary_text", "text": s} for s in (item.summary or [])]}
    if item.text is not UNSET:
        out["content"] = [{"type": "reasoning_text", "text": item.text}]
    if opaque is not UNSET:
        out["encrypted_content"] = opaque.value
    if item.redacted is True:
        ctx.report.add("changed", "redacted flag has no reasoning field", index=index, item_type="reasoning")
    return restore_fields(out, item_fields(item, NAME, ctx.report, index=index))


def encode_raw(item: RawItem, ctx: EncodeContext, index: int) -> dict[str, Any] | None:
    """A raw item of this provider goes back exactly; any other provider's is dropped and reported."""
    if item.provider == NAME and isinstance(item.value, dict):
        return plain(item.value)
    if item.provider == NAME:
        ctx.report.add("dropped", f"raw {NAME} item whose value is not an input item object ({type(item.value).__name__})", index=index, item_type="raw")
        return None
    ctx.report.add("dropped", f"raw item of provider {item.provider!r} cannot be sent to {NAME}", index=index, item_type="raw")
    return None


def describe(item: Any) -> str:
    """The canonical type name of an item (``UnknownItem`` included)."""
    if isinstance(item, UnknownItem):
        return item.type or "unknown"
    config = getattr(type(item), "__struct_config__", None)
    tag = getattr(config, "tag", None)
    return str(tag) if tag else type(item).__name__

