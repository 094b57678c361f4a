"""Amazon Bedrock Converse content blocks <-> canonical items, shared by requests, responses and streams.

Block shapes are the botocore ``bedrock-runtime`` service model (API version 2023-09-30):
``ContentBlock`` (a union: exactly one of ``text``, ``image``, ``document``, ``video``, ``toolUse``,
``toolResult``, ``reasoningContent``, ``cachePoint``, ``guardContent``, ...), ``ImageBlock``,
``DocumentBlock``, ``VideoBlock``, ``ToolUseBlock``, ``ToolResultBlock``, ``ReasoningContentBlock``,
``CachePointBlock``; AWS Bedrock API reference pages "ContentBlock", "ToolResultContentBlock",
"ReasoningContentBlock", "CachePointBlock".

Bytes fields (``image.source.bytes``, ``document.source.bytes``, ``video.source.bytes``,
``reasoningContent.redactedContent``) are blobs: base64 strings in the REST JSON wire form (what
this mapper writes) and ``bytes`` in boto3 (also accepted when decoding; encoded to base64).
"""

from __future__ import annotations

import base64
import copy
import re
from dataclasses import dataclass, field
from typing import Any

import msgspec

from ...codec import Item, UnknownItem
from ...errors import MalformedArgumentsError, MalformedInputError
from ...items import (
    ArtifactRefItem,
    AudioItem,
    Base64Source,
    CacheBreakpoint,
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
)
from ...mapping.reasoning_text import summary_left_out
from ...mapping.ids import IdMap, IdRule
from ...mapping.opaque import replayable
from ...mapping.report import Policy, Report
from ...mapping.settings import own_provider_data

__all__ = [
    "DOCUMENT_FORMATS",
    "ID_RULE",
    "IMAGE_FORMATS",
    "ISSUER",
    "NAME",
    "REDACTED_NS",
    "SIGNATURE_NS",
    "DecodeContext",
    "Encoder",
    "b64",
    "decode_blocks",
    "item_type",
    "speaker",
]

NAME = "bedrock-converse"
ISSUER = "bedrock-converse"
SIGNATURE_NS = "bedrock-converse.signature"
"""Namespace of ``reasoningContent.reasoningText.signature`` (opaque, issued by Bedrock)."""
REDACTED_NS = "bedrock-converse.redacted_content"
"""Namespace of ``reasoningContent.redactedContent`` (base64 of the blob)."""

ID_RULE = IdRule(NAME, pattern=r"[a-zA-Z0-9_.:-]+", max_length=64, prefix="tooluse_")
"""``toolUseId``: botocore shape ``ToolUseId`` (min 1, max 64, pattern ``[a-zA-Z0-9_.:-]+``)."""

IMAGE_FORMATS: dict[str, str] = {"png": "image/png", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp"}
"""``ImageFormat`` enum -> media type."""
_IMAGE_OUT = {v: k for k, v in IMAGE_FORMATS.items()} | {"image/jpg": "jpeg"}

DOCUMENT_FORMATS: dict[str, str] = {
    "pdf": "application/pdf",
    "csv": "text/csv",
    "doc": "application/msword",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "xls": "application/vnd.ms-excel",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "html": "text/html",
    "txt": "text/plain",
    "md": "text/markdown",
}
"""``DocumentFormat`` enum -> media type."""
_DOCUMENT_OUT = {v: k for k, v in DOCUMENT_FORMATS.items()}

VIDEO_FORMATS = frozenset({"mkv", "mov", "mp4", "webm", "flv", "mpeg", "mpg", "wmv", "three_gp"})
"""``VideoFormat`` enum (a video inside a tool result becomes a ``video/<format>`` document)."""

_DOC_NAME_BAD = re.compile(r"[^A-Za-z0-9\s\-()\[\]]")
"""``DocumentBlock.name``: alphanumerics, whitespace, hyphens, parentheses, square brackets (API reference "DocumentBlock")."""


def b64(value: Any, pointer: str) -> str:
    """A blob as base64 text: ``bytes`` (boto3) are encoded, strings (REST JSON) kept as they are.

    Raises:
        MalformedInputError: neither bytes nor a string.
    """
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, str):
        return value
    raise MalformedInputError(pointer, "a blob is a base64 string (or bytes)", provider=NAME)


@dataclass
class DecodeContext:
    """Where the blocks being decoded sit.

    Attributes:
        role: Message role (``user``/``assistant``) or ``system``.
        message: Message key shared by the items of one message (``None``: none).
        origin: Origin of model-produced items (responses), else ``None``.
        report: Where losses are recorded.
        pointer: JSON pointer of the block list.
        index: Message index, for report entries.
    """

    role: str
    message: str | None
    origin: Origin | None
    report: Report
    pointer: str = ""
    index: int | None = None


def _common(ctx: DecodeContext, *, role: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if role:
        out["role"] = ctx.role
    if ctx.message is not None:
        out["message"] = ctx.message
    if ctx.origin is not None:
        out["origin"] = copy.deepcopy(ctx.origin)
    return out


def _member(block: Any, ptr: str) -> tuple[str, Any]:
    """The one member of a union block (``{"text": ...}`` -> ``("text", ...)``)."""
    if not isinstance(block, dict):
        raise MalformedInputError(ptr, "a content block is a JSON object", provider=NAME)
    if len(block) != 1:
        raise MalformedInputError(ptr, f"a content block has exactly one member, got {len(block)}", provider=NAME)
    ((key, value),) = block.items()
    return key, value


def _obj(value: Any, ptr: str, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise MalformedInputError(ptr, f"{what} is a JSON object", provider=NAME)
    return value


def _decode_source(source: Any, media_type: str | None, ptr: str) -> tuple[Any, dict[str, Any]] | None:
    """An ``ImageSource``/``DocumentSource``/``VideoSource`` -> (canonical source, extra provider fields); ``None``: no canonical form."""
    src = _obj(source, ptr, "source")
    if len(src) != 1:
        raise MalformedInputError(ptr, f"a source has exactly one member, got {len(src)}", provider=NAME)
    ((key, value),) = src.items()
    mt = {"media_type": media_type} if media_type else {}
    if key == "bytes":
        if media_type is None:
            return None
        return Base64Source(data=b64(value, f"{ptr}/bytes"), media_type=media_type), {}
    if key == "s3Location":
        loc = _obj(value, f"{ptr}/s3Location", "s3Location")
        if not isinstance(loc.get("uri"), str):
            raise MalformedInputError(f"{ptr}/s3Location/uri", "s3Location.uri is a string", provider=NAME)
        extra = {k: copy.deepcopy(v) for k, v in loc.items() if k != "uri"}
        return FileSource(file_id=loc["uri"], provider=NAME, **mt), ({"s3Location": extra} if extra else {})
    if key == "text" and isinstance(value, str):
        return TextSource(text=value, **mt), {}
    return None


def _with_data(fields: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    if extra:
        fields["provider_data"] = {NAME: extra}
    return fields


def _decode_image(value: Any, ctx: DecodeContext, ptr: str, *, nested: bool) -> ImageItem | None:
    img = _obj(value, ptr, "image")
    fmt = img.get("format")
    if fmt not in IMAGE_FORMATS or set(img) - {"format", "source"}:
        return None
    decoded = _decode_source(img.get("source"), IMAGE_FORMATS[fmt], f"{ptr}/source")
    if decoded is None:
        return None
    source, extra = decoded
    if isinstance(source, TextSource):
        return None
    return ImageItem(source=source, **_with_data(_common(ctx, role=not nested), extra))


def _decode_document(value: Any, ctx: DecodeContext, ptr: str, *, nested: bool, video: bool = False) -> DocumentItem | None:
    doc = _obj(value, ptr, "document")
    fmt = doc.get("format")
    if video:
        if fmt not in VIDEO_FORMATS or set(doc) - {"format", "source"}:
            return None
        media_type: str | None = f"video/{fmt}"
    else:
        if (fmt is not None and fmt not in DOCUMENT_FORMATS) or set(doc) - {"format", "source", "name", "context", "citations"}:
            return None
        media_type = DOCUMENT_FORMATS[fmt] if fmt is not None else None
    decoded = _decode_source(doc.get("source"), media_type, f"{ptr}/source")
    if decoded is None:
        return None
    source, extra = decoded
    fields = _common(ctx, role=not nested)
    if media_type is not None:
        fields["media_type"] = media_type
    if video:
        extra["video"] = True
    if isinstance(doc.get("name"), str):
        fields["title"] = doc["name"]
    if isinstance(doc.get("context"), str):
        fields["context"] = doc["context"]
    citations = doc.get("citations")
    if isinstance(citations, dict) and set(citations) == {"enabled"} and isinstance(citations["enabled"], bool):
        fields["citations"] = citations["enabled"]
    elif citations is not None:
        return None
    return DocumentItem(source=source, **_with_data(fields, extra))


def raw_block(block: dict[str, Any], ctx: DecodeContext) -> RawItem:
    return RawItem(provider=NAME, value=copy.deepcopy(block), **_common(ctx, role=True))


def _decode_tool_use(value: Any, ctx: DecodeContext, ptr: str) -> ToolCallItem:
    use = _obj(value, ptr, "toolUse")
    for key in ("toolUseId", "name"):
        if not isinstance(use.get(key), str):
            raise MalformedInputError(f"{ptr}/{key}", f"toolUse.{key} is a string", provider=NAME)
    extra = {k: copy.deepcopy(v) for k, v in use.items() if k not in ("toolUseId", "name", "input")}
    fields = _with_data(_common(ctx, role=False), extra)
    arguments = use.get("input")
    if isinstance(arguments, dict):
        return ToolCallItem(id=use["toolUseId"], name=use["name"], arguments=copy.deepcopy(arguments), **fields)
    text = msgspec.json.encode(arguments).decode() if arguments is not None else ""
    what = "missing" if "input" not in use else f"JSON {type(arguments).__name__}"
    return ToolCallItem(id=use["toolUseId"], name=use["name"], arguments_raw=text, arguments_error=f"toolUse.input is {what}, not an object", **fields)


def _decode_result_part(part: Any, ctx: DecodeContext, ptr: str) -> Any:
    key, value = _member(part, ptr)
    if key == "text" and isinstance(value, str):
        return TextItem(text=value)
    if key == "json":
        return StructuredItem(data=copy.deepcopy(value))
    if key == "image":
        return _decode_image(value, ctx, f"{ptr}/image", nested=True)
    if key == "document":
        return _decode_document(value, ctx, f"{ptr}/document", nested=True)
    if key == "video":
        return _decode_document(value, ctx, f"{ptr}/video", nested=True, video=True)
    return None


def _decode_tool_result(value: Any, ctx: DecodeContext, ptr: str, block: dict[str, Any]) -> Item:
    res = _obj(value, ptr, "toolResult")
    if not isinstance(res.get("toolUseId"), str):
        raise MalformedInputError(f"{ptr}/toolUseId", "toolResult.toolUseId is a string", provider=NAME)
    content = res.get("content")
    if not isinstance(content, list):
        raise MalformedInputError(f"{ptr}/content", "toolResult.content is an array", provider=NAME)
    if ctx.role != "user":
        return raw_block(block, ctx)  # a server tool's result inside an assistant message has no canonical form
    parts = []
    for j, part in enumerate(content):
        item = _decode_result_part(part, ctx, f"{ptr}/content/{j}")
        if item is None:
            return raw_block(block, ctx)
        parts.append(item)
    extra = {k: copy.deepcopy(v) for k, v in res.items() if k not in ("toolUseId", "content", "status")}
    fields = _with_data(_common(ctx, role=False), extra)
    status = res.get("status")
    if status in ("success", "error"):
        fields["is_error"] = status == "error"
    elif status is not None:
        raise MalformedInputError(f"{ptr}/status", "toolResult.status is 'success' or 'error'", provider=NAME)
    return ToolResultItem(call_id=res["toolUseId"], content=parts, **fields)


def _decode_reasoning(value: Any, ctx: DecodeContext, ptr: str, block: dict[str, Any]) -> Item:
    rc = _obj(value, ptr, "reasoningContent")
    if len(rc) != 1:
        return raw_block(block, ctx)
    ((key, inner),) = rc.items()
    fields = _common(ctx, role=False)
    if key == "redactedContent":
        data = b64(inner, f"{ptr}/redactedContent")
        return ReasoningItem(redacted=True, opaque=OpaqueReasoning(namespace=REDACTED_NS, issuer=ISSUER, value=data), **fields)
    if key != "reasoningText":
        return raw_block(block, ctx)
    rt = _obj(inner, f"{ptr}/reasoningText", "reasoningText")
    if not isinstance(rt.get("text"), str) or set(rt) - {"text", "signature"}:
        return raw_block(block, ctx)
    signature = rt.get("signature")
    if signature is not None:
        if not isinstance(signature, str):
            raise MalformedInputError(f"{ptr}/reasoningText/signature", "signature is a string", provider=NAME)
        fields["opaque"] = OpaqueReasoning(namespace=SIGNATURE_NS, issuer=ISSUER, value=signature)
    elif "origin" not in fields:
        # Unsigned reasoning text (DeepSeek, gpt-oss on Bedrock) in a request came from a Bedrock model:
        # the origin says so, so it may go back to Bedrock as it came.
        fields["origin"] = Origin(provider=NAME)
    return ReasoningItem(text=rt["text"], **fields)


_CACHEABLE = (TextItem, ImageItem, DocumentItem, AudioItem, ToolCallItem, ToolResultItem)


def decode_blocks(blocks: Any, ctx: DecodeContext) -> list[Item]:
    """A ``ContentBlocks``/``SystemContentBlocks`` list -> items.

    ``cachePoint`` (``{type: "default", ttl?}``) sets ``cache_breakpoint`` on the item before it in
    the same list; a cache point with nothing cacheable before it stays a ``raw`` item. Blocks with no
    canonical form (``guardContent``, ``citationsContent``, ``searchResult``, ``audio``, ``video``, a
    server tool's ``toolResult`` in an assistant message, fields this mapper does not model) become
    ``raw`` items of provider ``bedrock-converse``.

    Raises:
        MalformedInputError: not a list, or a block that is not a one-member object.
    """
    if not isinstance(blocks, list):
        raise MalformedInputError(ctx.pointer, "content is an array of blocks", provider=NAME)
    items: list[Item] = []
    for j, block in enumerate(blocks):
        ptr = f"{ctx.pointer}/{j}"
        key, value = _member(block, ptr)
        item: Item | None = None
        if key == "text":
            if not isinstance(value, str):
                raise MalformedInputError(f"{ptr}/text", "text is a string", provider=NAME)
            item = TextItem(text=value, **_common(ctx, role=True))
        elif key == "image":
            item = _decode_image(value, ctx, f"{ptr}/image", nested=False)
        elif key == "document":
            item = _decode_document(value, ctx, f"{ptr}/document", nested=False)
        elif key == "toolUse":
            item = _decode_tool_use(value, ctx, f"{ptr}/toolUse")
        elif key == "toolResult":
            item = _decode_tool_result(value, ctx, f"{ptr}/toolResult", block)
        elif key == "reasoningContent":
            item = _decode_reasoning(value, ctx, f"{ptr}/reasoningContent", block)
        elif key == "cachePoint":
            cp = _obj(value, f"{ptr}/cachePoint", "cachePoint")
            prev = items[-1] if items else None
            if (
                cp.get("type") == "default"
                and set(cp) <= {"type", "ttl"}
                and (cp.get("ttl") is None or isinstance(cp.get("ttl"), str))
                and isinstance(prev, _CACHEABLE)
                and prev.cache_breakpoint is msgspec.UNSET
            ):
                prev.cache_breakpoint = CacheBreakpoint(ttl=cp["ttl"]) if "ttl" in cp else CacheBreakpoint()
                continue
        if item is None:
            item = raw_block(block, ctx)
        items.append(item)
    return items


# --------------------------------------------------------------------------- encode


@dataclass
class Encoder:
    """Items -> Converse blocks for one conversion.

    Attributes:
        policy: Loss policy.
        report: Where losses are recorded.
        model: Target model id, if known.
        ids: Tool-call id map (one per conversion, so calls and results agree).
        dropped_calls: Ids of calls left out (their results are left out too).
    """

    policy: Policy
    report: Report
    model: str | None = None
    ids: IdMap = field(init=False)
    dropped_calls: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.ids = IdMap(ID_RULE, self.report)

    def unsupported(self, reason: str, index: int | None, item_type: str) -> list[dict[str, Any]]:
        """Apply the policy; degraded markers come back as text blocks."""
        return [{"text": m.text} for m in self.report.unsupported(self.policy, reason, index=index, item_type=item_type)]

    def own(self, item: Any, index: int | None) -> dict[str, Any]:
        """The item's own ``provider_data["bedrock-converse"]`` (other keys reported as dropped)."""
        data = getattr(item, "provider_data", msgspec.UNSET)
        return own_provider_data(data, NAME, self.report, what=f"{item_type(item)} item", index=index, item_type=item_type(item))

    def cache(self, item: Any, blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Append a ``cachePoint`` block after ``blocks`` when the item has a cache breakpoint."""
        bp = getattr(item, "cache_breakpoint", msgspec.UNSET)
        if blocks and isinstance(bp, CacheBreakpoint):
            cp: dict[str, Any] = {"type": "default"}
            if bp.ttl is not msgspec.UNSET:
                cp["ttl"] = bp.ttl
            return [*blocks, {"cachePoint": cp}]
        return blocks

    # -- content -----------------------------------------------------------

    def text(self, item: TextItem, index: int | None, *, keep_empty: bool = False) -> list[dict[str, Any]]:
        """TextItem -> ``{text}``; empty text is dropped and reported."""
        self.own(item, index)
        if item.text == "" and not keep_empty:
            # Whitespace-only text is accepted (a recorded request holds one); empty text is refused.
            self.report.add("dropped", "empty text block (Converse rejects empty text content)", index=index, item_type="text")
            return []
        if item.annotations is not msgspec.UNSET and item.annotations:
            self.report.add("dropped", "text annotations have no Converse text field", index=index, item_type="text")
        return [{"text": item.text}]

    def _source(self, source: Any, extra: dict[str, Any], *, document: bool) -> dict[str, Any] | None:
        if isinstance(source, Base64Source):
            return {"bytes": source.data}
        if isinstance(source, FileSource) and source.provider == NAME and source.file_id.startswith("s3://"):
            return {"s3Location": {"uri": source.file_id, **copy.deepcopy(extra.get("s3Location", {}))}}
        if isinstance(source, TextSource) and document:
            return {"text": source.text}
        return None

    def _source_reason(self, source: Any, what: str) -> str:
        if isinstance(source, UrlSource):
            return f"a URL {what} cannot be sent to Converse (bytes or an s3Location only)"
        if isinstance(source, FileSource):
            return f"file id from provider {source.provider!r} means nothing to Bedrock"
        return f"{type(source).__name__} is not a Converse {what} source"

    def image(self, item: ImageItem, index: int | None) -> list[dict[str, Any]]:
        extra = self.own(item, index)
        media_type = getattr(item.source, "media_type", msgspec.UNSET)
        fmt = _IMAGE_OUT.get(media_type) if isinstance(media_type, str) else None
        src = self._source(item.source, extra, document=False)
        if fmt is None or src is None:
            why = self._source_reason(item.source, "image") if src is None else f"image media type {media_type!r} is not a Converse ImageFormat"
            return self.unsupported(why, index, "image")
        if item.detail is not msgspec.UNSET:
            self.report.add("dropped", "image detail hint has no Converse equivalent", index=index, item_type="image")
        return [{"image": {"format": fmt, "source": src}}]

    def document(self, item: DocumentItem, index: int | None, *, doc_no: int) -> list[dict[str, Any]]:
        extra = self.own(item, index)
        media_type = item.media_type if item.media_type is not msgspec.UNSET else getattr(item.source, "media_type", msgspec.UNSET)
        src = self._source(item.source, extra, document=not extra.get("video"))
        if extra.get("video") and isinstance(media_type, str) and media_type.removeprefix("video/") in VIDEO_FORMATS and src is not None:
            return [{"video": {"format": media_type.removeprefix("video/"), "source": src}}]
        if src is None:
            return self.unsupported(self._source_reason(item.source, "document"), index, "document")
        block: dict[str, Any] = {}
        if isinstance(media_type, str):
            fmt = _DOCUMENT_OUT.get(media_type)
            if fmt is None:
                return self.unsupported(f"document media type {media_type!r} is not a Converse DocumentFormat", index, "document")
            block["format"] = fmt
        elif "bytes" in src:
            return self.unsupported("a document of bytes needs a media type for Converse's format", index, "document")
        name = item.title if item.title is not msgspec.UNSET else item.filename if item.filename is not msgspec.UNSET else None
        if name is None:
            name = f"document-{doc_no}"
            self.report.add("changed", f"document without a title sent with name {name!r} (DocumentBlock.name is required)", index=index, item_type="document")
        else:
            clean = re.sub(r"\s+", " ", _DOC_NAME_BAD.sub("-", name)).strip() or f"document-{doc_no}"
            if clean != name:
                self.report.add("changed", f"document name {name!r} sent as {clean!r} (DocumentBlock.name allows letters, digits, spaces, hyphens, parentheses, brackets)", index=index, item_type="document")
            name = clean
            if item.title is msgspec.UNSET:
                self.report.add("changed", "document filename sent as the Converse name", index=index, item_type="document")
        block["name"] = name
        block["source"] = src
        if item.context is not msgspec.UNSET:
            block["context"] = item.context
        if item.citations is not msgspec.UNSET:
            block["citations"] = {"enabled": item.citations}
        return [{"document": block}]

    def content(self, item: Any, index: int | None, *, doc_no: int = 0) -> list[dict[str, Any]]:
        """A top-level content item -> blocks (cache point appended)."""
        if isinstance(item, TextItem):
            return self.cache(item, self.text(item, index))
        if isinstance(item, ImageItem):
            return self.cache(item, self.image(item, index))
        if isinstance(item, DocumentItem):
            return self.cache(item, self.document(item, index, doc_no=doc_no))
        if isinstance(item, StructuredItem):
            self.report.add("changed", "structured data sent as JSON text (Converse has no structured message block)", index=index, item_type="structured")
            return [{"text": msgspec.json.encode(item.data).decode()}]
        if isinstance(item, AudioItem):
            return self.unsupported("audio input is not sent to Converse by this mapper", index, "audio")
        if isinstance(item, ArtifactRefItem):
            return self.unsupported("artifact references must be resolved to bytes before sending to Bedrock", index, "artifact_ref")
        return self.unsupported(f"{item_type(item)} cannot be sent to Converse", index, item_type(item))

    def result_part(self, part: Any, index: int | None, doc_no: int) -> list[dict[str, Any]]:
        """A content item nested in a tool result -> ``ToolResultContentBlock`` members."""
        if isinstance(part, StructuredItem):
            self.own(part, index)
            return [{"json": copy.deepcopy(part.data)}]
        if isinstance(part, TextItem) and part.text == "":
            return [{"text": ""}]
        blocks = self.content(part, index, doc_no=doc_no)
        return [b for b in blocks if "cachePoint" not in b]

    # -- tools and reasoning ----------------------------------------------

    def tool_use(self, item: ToolCallItem, index: int | None) -> list[dict[str, Any]]:
        """ToolCallItem -> ``toolUse`` (``input`` is an object; malformed arguments never become ``{}``).

        Raises:
            MalformedArgumentsError: under policy ``error`` when the call has no arguments object.
        """
        extra = self.own(item, index)
        if item.arguments is msgspec.UNSET:
            reason = f"tool call {item.id!r} has malformed arguments ({item.arguments_error or 'no arguments object'}); Converse needs an input object"
            if self.policy == "error":
                raise MalformedArgumentsError(reason, index=index, item_type="tool_call")
            self.report.add("dropped", reason + "; the call and its result are left out", index=index, item_type="tool_call")
            self.dropped_calls.add(item.id)
            return []
        use: dict[str, Any] = {"toolUseId": self.ids.get(item.id, index=index), "name": item.name, "input": copy.deepcopy(item.arguments)}
        use.update(extra)
        return self.cache(item, [{"toolUse": use}])

    def tool_result(self, item: ToolResultItem, index: int | None) -> list[dict[str, Any]]:
        """ToolResultItem -> ``toolResult`` (``status`` from ``is_error``; ``name`` is not sent: results link by ``toolUseId``)."""
        extra = self.own(item, index)
        if item.call_id in self.dropped_calls:
            self.report.add("dropped", f"result of dropped tool call {item.call_id!r}", index=index, item_type="tool_result")
            return []
        parts: list[dict[str, Any]] = []
        for n, part in enumerate(item.content):
            parts.extend(self.result_part(part, index, n))
        res: dict[str, Any] = {"toolUseId": self.ids.get(item.call_id, index=index), "content": parts}
        if item.is_error is not msgspec.UNSET:
            res["status"] = "error" if item.is_error else "success"
        res.update(extra)
        return self.cache(item, [{"toolResult": res}])

    def reasoning(self, item: ReasoningItem, index: int | None) -> list[dict[str, Any]]:
        """ReasoningItem -> ``reasoningContent``.

        Signed reasoning (``reasoningText.signature``) and ``redactedContent`` go back only to Bedrock
        (issuer ``bedrock-converse``); unsigned reasoning text only when it came from Bedrock
        (``origin.provider``). Anything else is left out and reported, never turned into text.
        """
        self.own(item, index)
        opaque = item.opaque
        text = item.text if item.text is not msgspec.UNSET else ""
        if opaque is msgspec.UNSET:
            origin = item.origin
            if origin is not msgspec.UNSET and origin.provider == NAME and item.text is not msgspec.UNSET:
                if summary_left_out(item, text):
                    self.report.add("dropped", "reasoning summary left out (reasoningText carries the reasoning text only)", index=index, item_type="reasoning")
                return [{"reasoningContent": {"reasoningText": {"text": text}}}]
            self.report.add("dropped", "reasoning not issued by Bedrock cannot be sent as reasoningContent", index=index, item_type="reasoning")
            return []
        ok, why = replayable(opaque, ISSUER, self.model, model_bound=False)
        if not ok:
            self.report.add("dropped", f"{why}; reasoning left out", index=index, item_type="reasoning")
            return []
        if opaque.namespace == SIGNATURE_NS and isinstance(opaque.value, str):
            if summary_left_out(item, text):
                self.report.add("dropped", "reasoning summary left out (reasoningText carries the reasoning text only)", index=index, item_type="reasoning")
            return [{"reasoningContent": {"reasoningText": {"text": text, "signature": opaque.value}}}]
        if opaque.namespace == REDACTED_NS and isinstance(opaque.value, str):
            if text or (item.summary is not msgspec.UNSET and item.summary):
                self.report.add("dropped", "reasoning text and summary left out (redactedContent carries its data only)", index=index, item_type="reasoning")
            return [{"reasoningContent": {"redactedContent": opaque.value}}]
        self.report.add("dropped", f"unknown {NAME} opaque namespace {opaque.namespace!r}; reasoning left out", index=index, item_type="reasoning")
        return []

    def raw(self, item: RawItem, index: int | None) -> list[dict[str, Any]]:
        """RawItem -> its block, only when it came from Bedrock Converse (else dropped and reported)."""
        if item.provider != NAME:
            self.report.add("dropped", f"raw item from {item.provider!r} cannot be sent to Bedrock Converse", index=index, item_type="raw")
            return []
        if not isinstance(item.value, dict):
            self.report.add("dropped", f"raw Bedrock Converse item whose value is not a content block object ({type(item.value).__name__})", index=index, item_type="raw")
            return []
        return [copy.deepcopy(item.value)]

    def assistant_item(self, item: Any, index: int | None, *, doc_no: int = 0) -> list[dict[str, Any]]:
        """Any item spoken by the assistant (or a user content item) -> blocks."""
        if isinstance(item, ToolCallItem):
            return self.tool_use(item, index)
        if isinstance(item, ReasoningItem):
            return self.reasoning(item, index)
        if isinstance(item, RawItem):
            return self.raw(item, index)
        if isinstance(item, RefusalItem):
            return self.unsupported("Converse has no refusal block in a message", index, "refusal")
        return self.content(item, index, doc_no=doc_no)


def item_type(item: Any) -> str:
    """The canonical ``type`` tag of an item (``UnknownItem``: its own type, or ``"unknown"``)."""
    if isinstance(item, UnknownItem):
        return item.type or "unknown"
    config = getattr(type(item), "__struct_config__", None)
    tag = getattr(config, "tag", None)
    return tag if isinstance(tag, str) else type(item).__name__


def speaker(item: Any) -> str | None:
    """Who speaks ``item`` in a Converse request: ``system``, ``user``, ``assistant``, or ``None`` (no place)."""
    if isinstance(item, (ToolCallItem, ReasoningItem, RefusalItem, StructuredItem)):
        return "assistant"
    if isinstance(item, ToolResultItem):
        return "user"
    if isinstance(item, (HandoffCallItem, HandoffResultItem, ErrorItem, UnknownItem)):
        return None
    role = getattr(item, "role", msgspec.UNSET)
    if role in ("system", "developer"):
        return "system"
    if role in ("user", "assistant"):
        return str(role)
    if isinstance(item, RawItem):
        return "assistant"
    return "user"
