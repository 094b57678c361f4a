"""Anthropic content blocks <-> canonical items, shared by requests, responses and streams.

Block shapes follow the ANT SDK ``types/*_block_param.py`` and ``types/*_block.py``
(anthropics/anthropic-sdk-python 009b035; see the providers' API references).
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from typing import Any

import msgspec

from ...codec import Item, UnknownItem
from ...errors import MalformedArgumentsError, MalformedInputError
from ...items import (
    Annotation,
    ArtifactRefItem,
    AudioItem,
    VideoItem,
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
from ...mapping.extras import unknown_fields
from ...mapping.settings import own_provider_data
from ...mapping.wire import a_json_type, json_copy

__all__ = [
    "DecodeContext",
    "call_fields",
    "item_type",
    "speaker",
    "ISSUER",
    "NAME",
    "SIGNATURE_NS",
    "REDACTED_NS",
    "ID_RULE",
    "Encoder",
    "decode_block",
    "decode_citation",
    "encode_citation",
]

NAME = "anthropic"
ISSUER = "anthropic"
SIGNATURE_NS = "anthropic.signature"
REDACTED_NS = "anthropic.redacted_thinking"
ID_RULE = IdRule("anthropic", pattern=r"[a-zA-Z0-9_-]+", prefix="toolu_")
"""``tool_use.id`` must match ``^[a-zA-Z0-9_-]+$`` (400 quoted in ClawRouter#17, RooCode PR 10649)."""

IMAGE_MEDIA_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
"""Base64 image media types the Messages API accepts (``base64_image_source_param.py``)."""

_DIRECT_CALLER = {"type": "direct"}

# Citation field each canonical Annotation field stands for, per citation type
# (``text_citation_param.py``: char_location, page_location, content_block_location,
# web_search_result_location, search_result_location).
_TITLE_KEY = {
    "char_location": "document_title",
    "page_location": "document_title",
    "content_block_location": "document_title",
    "web_search_result_location": "title",
    "search_result_location": "title",
}


_TTL = re.compile(r"[0-9]+[smh]")


def _set(value: Any) -> Any:
    return msgspec.UNSET if value is None else value


# --------------------------------------------------------------------------- citations


def decode_citation(citation: dict[str, Any]) -> Annotation:
    """One Anthropic citation -> :class:`Annotation`.

    ``kind`` is the citation ``type``; ``cited_text``, ``document_index``, ``file_id``, ``url``,
    the title (``document_title`` or ``title``) and, for ``char_location``, ``start_char_index`` /
    ``end_char_index`` map to canonical fields; every other field (page numbers, block indexes,
    ``encrypted_index``, null values) is kept in ``provider_data["anthropic"]``.
    """
    rest = copy.deepcopy(dict(citation))
    kind = rest.pop("type", None) or "unknown"
    fields: dict[str, Any] = {}

    def take(src: str, dst: str, typ: type) -> None:
        if src in rest and isinstance(rest[src], typ) and not isinstance(rest[src], bool):
            if typ is int and rest[src] < 0:
                return
            fields[dst] = rest.pop(src)

    take("cited_text", "cited_text", str)
    take("document_index", "document_index", int)
    take("file_id", "file_id", str)
    take("url", "url", str)
    title_key = _TITLE_KEY.get(kind)
    if title_key:
        take(title_key, "title", str)
    if kind == "char_location":
        take("start_char_index", "start_index", int)
        take("end_char_index", "end_index", int)
    return Annotation(kind=kind, provider_data={NAME: rest} if rest else msgspec.UNSET, **fields)


def encode_citation(annotation: Annotation) -> dict[str, Any] | None:
    """:class:`Annotation` -> Anthropic citation, or ``None`` when it is not an Anthropic citation kind."""
    if annotation.kind not in _TITLE_KEY:
        return None
    out: dict[str, Any] = {"type": annotation.kind}
    if annotation.cited_text is not msgspec.UNSET:
        out["cited_text"] = annotation.cited_text
    if annotation.document_index is not msgspec.UNSET:
        out["document_index"] = annotation.document_index
    if annotation.file_id is not msgspec.UNSET:
        out["file_id"] = annotation.file_id
    if annotation.url is not msgspec.UNSET:
        out["url"] = annotation.url
    if annotation.title is not msgspec.UNSET:
        out[_TITLE_KEY[annotation.kind]] = annotation.title
    if annotation.kind == "char_location":
        if annotation.start_index is not msgspec.UNSET:
            out["start_char_index"] = annotation.start_index
        if annotation.end_index is not msgspec.UNSET:
            out["end_char_index"] = annotation.end_index
    pd = annotation.provider_data
    if pd is not msgspec.UNSET and isinstance(pd.get(NAME), dict):
        out.update(copy.deepcopy(pd[NAME]))
    return out


# --------------------------------------------------------------------------- decoding


@dataclass
class DecodeContext:
    """Where decoded blocks go: speaker, message key, origin, and the report.

    Attributes:
        role: ``user`` or ``assistant`` (``None`` inside a tool_result).
        message: The message key for every item of this message.
        origin: Origin for model-produced items (responses), else ``None``.
        opaque_model: Model recorded on opaque reasoning state, when known.
        report: Where dropped block fields are recorded.
        index: Provider message index, for report entries.
        pointer: JSON pointer of the message's ``content`` array.
    """

    role: str | None
    message: str | None
    origin: Origin | None
    opaque_model: str | None
    report: Report
    index: int | None = None
    pointer: str = ""


def _common(ctx: DecodeContext, *, role: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if ctx.message is not None:
        out["message"] = ctx.message
    if ctx.origin is not None:
        out["origin"] = copy.deepcopy(ctx.origin)
    if role and ctx.role is not None:
        out["role"] = ctx.role
    return out


def _cache(block: dict[str, Any], known: set[str]) -> dict[str, Any]:
    """Item fields for a block's ``cache_control`` and for its fields the mapper does not model.

    ``{type: "ephemeral", ttl?}`` (ANT ``cache_control_ephemeral_param.py``; ttl ``5m``/``1h``) ->
    ``cache_breakpoint``; any other shape is kept as it is in ``provider_data["anthropic"]``, so a
    same-provider round trip writes it back exactly. So are the block's keys outside ``known``
    (``tool_use.caller``, new fields; ADR 0009): :meth:`Encoder.mark` writes them back.
    """
    extra = unknown_fields(block, known | {"type", "cache_control"})
    cc = block.get("cache_control")
    out: dict[str, Any] = {}
    if cc is not None:
        ttl = cc.get("ttl", msgspec.UNSET) if isinstance(cc, dict) else msgspec.UNSET
        if isinstance(cc, dict) and cc.get("type") == "ephemeral" and set(cc) <= {"type", "ttl"} and (
            ttl is msgspec.UNSET or (isinstance(ttl, str) and _TTL.fullmatch(ttl))
        ):
            out["cache_breakpoint"] = CacheBreakpoint(ttl=ttl)
        else:
            extra["cache_control"] = copy.deepcopy(cc)
    if extra:
        out["provider_data"] = {NAME: extra}
    return out


def _decode_source(source: Any, *, image: bool) -> Any:
    """Anthropic image/document ``source`` -> canonical source, or ``None`` (no canonical form)."""
    if not isinstance(source, dict):
        return None
    typ = source.get("type")
    if typ == "base64" and isinstance(source.get("data"), str) and isinstance(source.get("media_type"), str):
        return Base64Source(media_type=source["media_type"], data=source["data"])
    if typ == "url" and isinstance(source.get("url"), str) and source["url"]:
        return UrlSource(url=source["url"])
    if typ == "file" and isinstance(source.get("file_id"), str) and source["file_id"]:
        return FileSource(file_id=source["file_id"], provider=NAME)
    if not image and typ == "text" and isinstance(source.get("data"), str):
        return TextSource(text=source["data"], media_type=source.get("media_type") or "text/plain")
    return None


def _decode_text(block: dict[str, Any], ctx: DecodeContext, ptr: str, *, nested: bool = False) -> TextItem | None:
    text = block.get("text")
    if not isinstance(text, str):
        return None
    fields = _common(ctx, role=not nested) if not nested else {}
    citations = block.get("citations")
    if isinstance(citations, list):
        if not all(isinstance(c, dict) for c in citations):
            return None
        fields["annotations"] = [decode_citation(c) for c in citations]
    return TextItem(text=text, **fields, **_cache(block, {"text", "citations"}))


def _decode_image(block: dict[str, Any], ctx: DecodeContext, ptr: str, *, nested: bool = False) -> ImageItem | None:
    source = _decode_source(block.get("source"), image=True)
    if source is None:
        return None
    return ImageItem(source=source, **(_common(ctx) if not nested else {}), **_cache(block, {"source"}))


def _decode_document(block: dict[str, Any], ctx: DecodeContext, ptr: str, *, nested: bool = False) -> DocumentItem | None:
    source = _decode_source(block.get("source"), image=False)
    if source is None:
        return None
    fields = _common(ctx) if not nested else {}
    media = getattr(source, "media_type", msgspec.UNSET)
    if isinstance(media, str):
        fields["media_type"] = media
    if isinstance(block.get("title"), str):
        fields["title"] = block["title"]
    if isinstance(block.get("context"), str):
        fields["context"] = block["context"]
    citations = block.get("citations")
    if isinstance(citations, dict):
        if set(citations) - {"enabled"} or not isinstance(citations.get("enabled", False), bool):
            return None
        if "enabled" in citations:
            fields["citations"] = citations["enabled"]
    elif citations is not None:
        return None
    return DocumentItem(source=source, **fields, **_cache(block, {"source", "title", "context", "citations"}))


def _decode_nested(block: Any, ctx: DecodeContext, ptr: str) -> Any:
    """A block inside ``tool_result.content`` -> canonical content item (no role), or ``None``."""
    if not isinstance(block, dict):
        return None
    typ = block.get("type")
    if typ == "text":
        return _decode_text(block, ctx, ptr, nested=True)
    if typ == "image":
        return _decode_image(block, ctx, ptr, nested=True)
    if typ == "document":
        return _decode_document(block, ctx, ptr, nested=True)
    if typ == "tool_reference" and isinstance(block.get("tool_name"), str) and block["tool_name"]:
        # tool search result (SDK BetaToolReferenceBlockParam {type, tool_name, cache_control?}): a text
        # naming the tool for other targets; the block itself is kept for Anthropic in provider_data
        return TextItem(text=f"tool reference: {block['tool_name']}", provider_data={NAME: {"tool_reference": copy.deepcopy(block)}})
    return None


def _tool_reference(item: Any) -> dict[str, Any] | None:
    """The ``tool_reference`` block a text item was read from (see ``_decode_nested``), else ``None``."""
    pd = getattr(item, "provider_data", msgspec.UNSET)
    own = pd.get(NAME) if isinstance(pd, dict) else None
    ref = own.get("tool_reference") if isinstance(own, dict) else None
    if isinstance(ref, dict) and ref.get("type") == "tool_reference":
        return copy.deepcopy(ref)
    return None


def _raw(block: dict[str, Any], ctx: DecodeContext) -> RawItem:
    return RawItem(provider=NAME, value=copy.deepcopy(block), **_common(ctx))


def decode_block(block: Any, ctx: DecodeContext, position: int) -> Item:
    """One Anthropic content block -> one canonical item.

    ``text`` (citations -> annotations), ``image``, ``document``, ``tool_use`` -> ToolCallItem,
    ``tool_result`` -> ToolResultItem, ``thinking`` -> ReasoningItem with opaque
    ``anthropic.signature``, ``redacted_thinking`` -> ReasoningItem(redacted) with opaque
    ``anthropic.redacted_thinking``; every other block (``server_tool_use``,
    ``web_search_tool_result``, ``compaction``, unknown ones, and known ones in a shape with no
    canonical form such as a ``content`` document source) -> ``RawItem(provider="anthropic")``.
    """
    ptr = f"{ctx.pointer}/{position}"
    if not isinstance(block, dict):
        return RawItem(provider=NAME, value=copy.deepcopy(block), **_common(ctx))
    typ = block.get("type")
    item: Item | None = None
    if typ == "text":
        item = _decode_text(block, ctx, ptr)
    elif typ == "image":
        item = _decode_image(block, ctx, ptr)
    elif typ == "document":
        item = _decode_document(block, ctx, ptr)
    elif typ == "tool_use":
        item = _decode_tool_use(block, ctx, ptr)
    elif typ == "tool_result":
        item = _decode_tool_result(block, ctx, ptr)
    elif typ == "thinking":
        if isinstance(block.get("thinking"), str) and isinstance(block.get("signature", ""), str):
            opaque: OpaqueReasoning | msgspec.UnsetType = msgspec.UNSET
            if "signature" in block:
                opaque = _opaque(SIGNATURE_NS, block["signature"], ctx)
            item = ReasoningItem(text=block["thinking"], opaque=opaque, **_common(ctx, role=False))
    elif typ == "redacted_thinking":
        if isinstance(block.get("data"), str):
            item = ReasoningItem(redacted=True, opaque=_opaque(REDACTED_NS, block["data"], ctx), **_common(ctx, role=False))
    return item if item is not None else _raw(block, ctx)


def _opaque(namespace: str, value: str, ctx: DecodeContext) -> OpaqueReasoning:
    return OpaqueReasoning(namespace=namespace, issuer=ISSUER, value=value, model=ctx.opaque_model or msgspec.UNSET)


def _decode_tool_use(block: dict[str, Any], ctx: DecodeContext, ptr: str) -> ToolCallItem | None:
    call_id, name, args = block.get("id"), block.get("name"), block.get("input")
    # an empty id ("") is passed through: the decoder's caller gives it an id linked to its result
    # (interlingua.mapping.empty_ids)
    if not (isinstance(call_id, str) and isinstance(name, str) and name and isinstance(args, dict)):
        return None
    caller = block.get("caller")
    if caller is not None and caller != _DIRECT_CALLER:
        return None  # programmatic calls (code execution) have no canonical form: kept raw
    return ToolCallItem(id=call_id, name=name, arguments=copy.deepcopy(args), **_common(ctx, role=False), **_cache(block, {"id", "name", "input"}))


def call_fields(ctx: DecodeContext, block: dict[str, Any] | None = None) -> dict[str, Any]:
    """Fields a tool_use call of this message carries (message key, origin, and ``block``'s cache
    breakpoint and unmodelled fields such as ``caller``); used by the stream."""
    return {**_common(ctx, role=False), **(_cache(block, {"id", "name", "input"}) if block is not None else {})}


def _decode_tool_result(block: dict[str, Any], ctx: DecodeContext, ptr: str) -> ToolResultItem | None:
    call_id = block.get("tool_use_id")
    if not isinstance(call_id, str):
        # Required by the API (ToolResultBlockParam.tool_use_id): a result that names no call is bad input.
        # An empty string is passed through, linked to its call by position (interlingua.mapping.empty_ids).
        raise MalformedInputError(f"{ptr}/tool_use_id", f"a tool_result needs tool_use_id, a string (got {a_json_type(call_id) if 'tool_use_id' in block else 'none'})", provider=NAME)
    raw_content = block.get("content")
    content: list[Any] = []
    if isinstance(raw_content, str):
        if raw_content:
            content = [TextItem(text=raw_content)]
    elif isinstance(raw_content, list):
        for j, part in enumerate(raw_content):
            item = _decode_nested(part, ctx, f"{ptr}/content/{j}")
            if item is None:
                ctx.report.add(
                    "changed",
                    f"tool_result for {call_id!r} holds a {part.get('type') if isinstance(part, dict) else type(part).__name__} "
                    "block with no canonical form; the whole block is kept as a raw anthropic item",
                    index=ctx.index,
                    item_type="tool_result",
                    pointer=f"{ptr}/content/{j}",
                )
                return None
            content.append(item)
    elif raw_content is not None:
        return None
    fields = _common(ctx, role=False)
    is_error = block.get("is_error")
    if isinstance(is_error, bool):
        fields["is_error"] = is_error
    return ToolResultItem(call_id=call_id, content=content, **fields, **_cache(block, {"tool_use_id", "content", "is_error"}))


# --------------------------------------------------------------------------- encoding


@dataclass(init=False)
class Encoder:
    """Encodes canonical items to Anthropic blocks for one conversion.

    Attributes:
        policy: What to do with content Anthropic cannot carry.
        report: Receives every drop, degradation and change.
        model: Target model (recorded in reports only; Anthropic signatures are checked by the API).
        ids: Tool-call id map (one per conversion, so calls and results agree).
    """

    policy: Policy
    report: Report
    model: str | None = None
    ids: IdMap = field(init=False)
    dropped_calls: set[str] = field(default_factory=set)

    def __init__(self, policy: Policy, report: Report, model: str | None = None) -> None:
        # written out (not generated with a __post_init__): one is made per conversion
        self.policy = policy
        self.report = report
        self.model = model
        self.ids = IdMap(ID_RULE, report)
        self.dropped_calls = set()

    # -- content -----------------------------------------------------------

    def mark(self, item: Any, block: dict[str, Any], index: int | None) -> dict[str, Any]:
        """Write the item's ``cache_breakpoint`` as ``cache_control`` and its own ``provider_data`` fields onto ``block``.

        ``{ttl?}`` -> ``{"type": "ephemeral", "ttl"?}`` (platform.claude.com/docs/en/build-with-claude/prompt-caching);
        other providers' ``provider_data`` is left out and reported.
        """
        breakpoint_ = getattr(item, "cache_breakpoint", msgspec.UNSET)
        pd = getattr(item, "provider_data", msgspec.UNSET)
        if breakpoint_ is msgspec.UNSET and pd is msgspec.UNSET:
            return block  # neither: the usual case, nothing to write
        if isinstance(breakpoint_, CacheBreakpoint):
            cc: dict[str, Any] = {"type": "ephemeral"}
            if breakpoint_.ttl is not msgspec.UNSET:
                cc["ttl"] = breakpoint_.ttl
            block["cache_control"] = cc
        if pd is not msgspec.UNSET and pd:
            kind = item_type(item)
            for key, value in own_provider_data(pd, NAME, self.report, what=f"a {kind} item", index=index, item_type=kind).items():
                block.setdefault(key, value)
        return block

    def unsupported(self, reason: str, index: int | None, item_type: str) -> list[dict[str, Any]]:
        """Apply the policy; degraded markers come back as text blocks."""
        return [{"type": "text", "text": m.text} for m in self.report.unsupported(self.policy, reason, index=index, item_type=item_type)]

    def text(self, item: TextItem, index: int | None, *, keep_empty: bool = False) -> list[dict[str, Any]]:
        """TextItem -> text block; empty or whitespace-only text is dropped and reported.

        Source: 400 "text content blocks must be non-empty" (anthropics/claude-code#59812).
        ``keep_empty`` keeps it (response bodies, where the API itself emits empty text blocks).
        """
        if item.text.strip() == "" and not keep_empty:
            self.report.add("dropped", "empty or whitespace-only text block (Anthropic rejects empty text content blocks)", index=index, item_type="text")
            return []
        block: dict[str, Any] = {"type": "text", "text": item.text}
        if item.annotations is not msgspec.UNSET:
            cites = []
            for a in item.annotations:
                c = encode_citation(a)
                if c is None:
                    self.report.add("dropped", f"annotation of kind {a.kind!r} is not an Anthropic citation", index=index, item_type="text")
                else:
                    cites.append(c)
            if cites or not item.annotations:
                block["citations"] = cites
        return [self.mark(item, block, index)]

    def source(self, source: Any, *, image: bool) -> dict[str, Any] | None:
        """Canonical source -> Anthropic source, or ``None`` after applying the policy."""
        if isinstance(source, Base64Source):
            if image and source.media_type not in IMAGE_MEDIA_TYPES:
                return None
            if not image and source.media_type != "application/pdf":
                return None
            return {"type": "base64", "media_type": source.media_type, "data": source.data}
        if isinstance(source, UrlSource):
            return {"type": "url", "url": source.url}
        if isinstance(source, FileSource):
            if source.provider is not msgspec.UNSET and source.provider != NAME:
                return None
            return {"type": "file", "file_id": source.file_id}
        if isinstance(source, TextSource) and not image:
            return {"type": "text", "media_type": source.media_type if source.media_type is not msgspec.UNSET else "text/plain", "data": source.text}
        return None

    def _source_reason(self, source: Any, image: bool) -> str:
        if isinstance(source, Base64Source):
            return f"base64 {source.media_type} is not an Anthropic {'image' if image else 'document'} media type"
        if isinstance(source, FileSource):
            return f"file id from provider {source.provider!r} means nothing to Anthropic"
        return f"{type(source).__name__} is not an Anthropic {'image' if image else 'document'} source"

    def image(self, item: ImageItem, index: int | None) -> list[dict[str, Any]]:
        src = self.source(item.source, image=True)
        if src is None:
            return self.unsupported(self._source_reason(item.source, True), index, "image")
        if item.detail is not msgspec.UNSET:
            self.report.add("dropped", "image detail hint has no Anthropic equivalent", index=index, item_type="image")
        return [self.mark(item, {"type": "image", "source": src}, index)]

    def document(self, item: DocumentItem, index: int | None) -> list[dict[str, Any]]:
        src = self.source(item.source, image=False)
        if src is None:
            return self.unsupported(self._source_reason(item.source, False), index, "document")
        block: dict[str, Any] = {"type": "document", "source": src}
        if item.title is not msgspec.UNSET:
            block["title"] = item.title
        if item.context is not msgspec.UNSET:
            block["context"] = item.context
        if item.citations is not msgspec.UNSET:
            block["citations"] = {"enabled": item.citations}
        if item.filename is not msgspec.UNSET and item.title is msgspec.UNSET:
            self.report.add("dropped", "document filename has no Anthropic field", index=index, item_type="document")
        return [self.mark(item, block, index)]

    def content(self, item: Any, index: int | None) -> list[dict[str, Any]]:
        """A content item (top level or nested in a tool_result) -> blocks."""
        if isinstance(item, TextItem):
            ref = _tool_reference(item)
            if ref is not None:
                return [ref]
            return self.text(item, index)
        if isinstance(item, ImageItem):
            return self.image(item, index)
        if isinstance(item, DocumentItem):
            return self.document(item, index)
        if isinstance(item, StructuredItem):
            self.report.add("changed", "structured data sent as JSON text (Anthropic has no structured block)", index=index, item_type="structured")
            return [{"type": "text", "text": msgspec.json.encode(item.data).decode()}]
        if isinstance(item, AudioItem):
            return self.unsupported("Anthropic Messages has no audio input", index, "audio")
        if isinstance(item, VideoItem):
            return self.unsupported("Anthropic Messages has no video input", index, "video")
        if isinstance(item, ArtifactRefItem):
            return self.unsupported("artifact references must be resolved to bytes before sending to Anthropic", index, "artifact_ref")
        return self.unsupported(f"{item_type(item)} cannot be sent to Anthropic", index, item_type(item))

    # -- tools and reasoning ----------------------------------------------

    def tool_use(self, item: ToolCallItem, index: int | None) -> list[dict[str, Any]]:
        """ToolCallItem -> ``tool_use`` (``input`` is an object; malformed arguments never become ``{}``).

        Raises:
            MalformedArgumentsError: under policy ``error`` when the call has no arguments object.
        """
        if item.arguments is msgspec.UNSET:
            reason = f"tool call {item.id!r} has malformed arguments ({item.arguments_error or 'no arguments object'}); Anthropic needs an input object"
            if self.policy == "error":
                raise MalformedArgumentsError(reason, index=index, item_type="tool_call")
            self.report.add("dropped", reason + "; the call and its result are left out", index=index, item_type="tool_call")
            self.dropped_calls.add(item.id)
            return []
        return [self.mark(item, {"type": "tool_use", "id": self.ids.get(item.id, index=index), "name": item.name, "input": json_copy(item.arguments)}, index)]

    def tool_result(self, item: ToolResultItem, index: int | None) -> list[dict[str, Any]]:
        """ToolResultItem -> ``tool_result`` (a lone plain text part is sent as a string).

        ``name`` is not sent: Anthropic links a result to its call by ``tool_use_id`` alone.
        """
        if item.call_id in self.dropped_calls:
            self.report.add("dropped", f"result of dropped tool call {item.call_id!r}", index=index, item_type="tool_result")
            return []
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": self.ids.get(item.call_id, index=index)}
        parts: list[dict[str, Any]] = []
        for part in item.content:
            parts.extend(self.content(part, index))
        if len(parts) == 1 and parts[0]["type"] == "text" and set(parts[0]) == {"type", "text"}:
            block["content"] = parts[0]["text"]
        elif parts:
            block["content"] = parts
        if item.is_error is not msgspec.UNSET:
            block["is_error"] = item.is_error
        return [self.mark(item, block, index)]

    def reasoning(self, item: ReasoningItem, index: int | None) -> list[dict[str, Any]]:
        """ReasoningItem -> ``thinking`` / ``redacted_thinking``, complete and unmodified.

        Only Anthropic-issued state is sent back (thinking needs its signature:
        platform.claude.com/docs/build-with-claude/thinking-tool-workflows). Foreign opaque state
        and reasoning without a signature are left out and reported, never turned into text.
        """
        opaque = item.opaque
        if opaque is msgspec.UNSET:
            self.report.add("dropped", "reasoning without an Anthropic signature cannot be sent as a thinking block", index=index, item_type="reasoning")
            return []
        ok, why = replayable(opaque, ISSUER, self.model, model_bound=False)
        if not ok:
            self.report.add("dropped", f"{why}; reasoning left out", index=index, item_type="reasoning")
            return []
        if opaque.namespace == SIGNATURE_NS and isinstance(opaque.value, str):
            text = item.text if item.text is not msgspec.UNSET else ""
            if summary_left_out(item, text):
                self.report.add("dropped", "reasoning summary left out (a thinking block carries the thinking text only)", index=index, item_type="reasoning")
            return [{"type": "thinking", "thinking": text, "signature": opaque.value}]
        if opaque.namespace == REDACTED_NS and isinstance(opaque.value, str):
            if (item.text is not msgspec.UNSET and item.text) or (item.summary is not msgspec.UNSET and item.summary):
                self.report.add("dropped", "reasoning text and summary left out (a redacted_thinking block carries its data only)", index=index, item_type="reasoning")
            return [{"type": "redacted_thinking", "data": opaque.value}]
        self.report.add("dropped", f"unknown anthropic opaque namespace {opaque.namespace!r}; reasoning left out", index=index, item_type="reasoning")
        return []

    def raw(self, item: RawItem, index: int | None) -> list[dict[str, Any]]:
        """RawItem -> its block, only when it came from Anthropic (else dropped and reported)."""
        if item.provider != NAME:
            self.report.add("dropped", f"raw item from {item.provider!r} cannot be sent to Anthropic", index=index, item_type="raw")
            return []
        if not isinstance(item.value, dict):
            self.report.add("dropped", f"raw Anthropic item whose value is not a content block object ({type(item.value).__name__})", index=index, item_type="raw")
            return []
        return [copy.deepcopy(item.value)]

    def assistant_item(self, item: Any, index: int | None) -> list[dict[str, Any]]:
        """Any item spoken by the assistant -> blocks."""
        if isinstance(item, ToolCallItem):
            return self.tool_use(item, index)
        if isinstance(item, ReasoningItem):
            return self.reasoning(item, index)
        if isinstance(item, RawItem):
            return self.raw(item, index)
        if isinstance(item, RefusalItem):
            origin = item.origin
            if origin is not msgspec.UNSET and origin.provider == NAME:
                # An Anthropic refusal came from stop_details, never from the message content:
                # the wire message never held it, so leaving it out restores the original turn.
                self.report.add("dropped", "Anthropic refusal (from stop_details) is not message content", index=index, item_type="refusal")
                return []
            return self.unsupported("Anthropic has no refusal block in a message", index, "refusal")
        return self.content(item, index)


def item_type(item: Any) -> str:
    """The canonical ``type`` tag of an item (``UnknownItem``: its own type, or ``"unknown"``)."""
    if isinstance(item, UnknownItem):
        return item.type or "unknown"
    config = getattr(type(item), "__struct_config__", None)
    tag = getattr(config, "tag", None)
    return tag if isinstance(tag, str) else type(item).__name__


_ROLE_SPEAKER = {"system": "system", "developer": "system", "user": "user", "assistant": "assistant"}
_FIXED_SPEAKER: dict[type, str | None] = {
    ToolCallItem: "assistant",
    ReasoningItem: "assistant",
    RefusalItem: "assistant",
    StructuredItem: "assistant",
    ToolResultItem: "user",
    HandoffCallItem: None,
    HandoffResultItem: None,
    ErrorItem: None,
    UnknownItem: None,
}
_ROLE_TYPES = frozenset({TextItem, ImageItem, AudioItem, VideoItem, DocumentItem, ArtifactRefItem})


def speaker(item: Any) -> str | None:
    """Who speaks ``item`` in an Anthropic request: ``system``, ``user``, ``assistant``, or ``None`` (no place)."""
    tp = type(item)
    if tp in _ROLE_TYPES:  # a content item: its role says (no role: user)
        role = item.role
        return _ROLE_SPEAKER.get(role, "user") if type(role) is str else "user"
    if tp in _FIXED_SPEAKER:
        return _FIXED_SPEAKER[tp]
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

