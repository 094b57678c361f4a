"""A transcript as one self-contained HTML page, for reading a stored conversation.

:func:`render_html` takes a :class:`~interlingua.items.Transcript` or the sessions of a session file
(:func:`~interlingua.session_file.read_sessions`) and returns one HTML document that needs nothing
else: the style sheet is inline, images, audio and video held as base64 are inline ``data:`` URLs,
and the page has no script at all. A ``Content-Security-Policy`` meta tag (``default-src 'none'``)
forbids scripts, frames and every network fetch, so a page opened from a mail attachment or a CI
artifact loads nothing from anywhere; remote images, videos and files are shown as their URL, not
loaded.

What the page shows, per item:

- roles (consecutive items of one role form one turn), text with its line breaks;
- images, audio and video inline when they are base64 of a media type a browser plays, else the URL,
  file id or artifact URI as text;
- tool calls with their arguments pretty-printed, linked both ways to their tool results; arguments
  that were not valid JSON are shown as received and flagged;
- reasoning collapsed (``<details>``); opaque reasoning state as "opaque, issued by X";
- refusals and errors marked; usage and stop reason after each response;
- structured output, raw items and item types this version does not know as pretty-printed JSON.

All content is escaped (:func:`html.escape`): a text holding ``<script>`` or an ``onerror=`` attribute
renders as that text. Importing this module loads neither the store nor the mappers.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from .codec import to_builtins
from .items import Transcript
from .session_file import SessionBlock

__all__ = ["document_sections", "iter_html", "render_html", "session_sections"]

_PLAYABLE = {
    "image": {"image/png", "image/jpeg", "image/gif", "image/webp", "image/avif", "image/bmp"},
    "audio": {"audio/wav", "audio/x-wav", "audio/mpeg", "audio/mp3", "audio/ogg", "audio/webm", "audio/flac", "audio/aac", "audio/mp4"},
    "video": {"video/mp4", "video/webm", "video/ogg"},
}
"""Media types shown inline from base64 data, per item type. SVG is left out on purpose: it is a
document that can hold script and links; it is shown as text instead."""

_AUDIO_FORMATS = {"wav": "audio/wav", "mp3": "audio/mpeg", "ogg": "audio/ogg", "flac": "audio/flac", "aac": "audio/aac", "webm": "audio/webm"}

_CSP = "default-src 'none'; img-src data:; media-src data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"

_STYLE = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;background:#f6f7f9;color:#1d2430}
main{max-width:960px;margin:0 auto;padding:24px 16px 64px}
h1{font-size:20px;margin:0 0 4px}h2{font-size:17px;margin:32px 0 8px;border-bottom:1px solid #d5d9e0;padding-bottom:4px}
.meta{color:#5b6575;font-size:13px}
.turn{background:#fff;border:1px solid #d5d9e0;border-radius:8px;margin:12px 0;padding:10px 14px}
.turn>.role{font-weight:600;font-size:12px;text-transform:uppercase;letter-spacing:.04em;color:#5b6575;margin-bottom:6px}
.turn.user{border-left:4px solid #3b82f6}.turn.assistant{border-left:4px solid #10b981}
.turn.system,.turn.developer{border-left:4px solid #a855f7}.turn.tool{border-left:4px solid #f59e0b}
.item{margin:6px 0}.text{white-space:pre-wrap;overflow-wrap:anywhere}
pre{background:#f1f3f6;border-radius:6px;padding:8px;overflow:auto;margin:4px 0;white-space:pre-wrap;overflow-wrap:anywhere;font-size:13px}
.label{display:inline-block;font-size:12px;font-weight:600;border-radius:4px;padding:1px 6px;margin-right:6px;background:#e5e8ee}
.tool_call .label,.tool_result .label{background:#fdf0d5}
.flag{background:#fde2e2;color:#9b1c1c}
.refusal{border-left:3px solid #d97706;padding-left:8px}.error{border-left:3px solid #dc2626;padding-left:8px;color:#7f1d1d}
details{margin:4px 0}summary{cursor:pointer;color:#5b6575}
.response{font-size:12px;color:#5b6575;border-top:1px dashed #d5d9e0;margin-top:8px;padding-top:4px}
img.inline{max-width:100%;max-height:480px;border:1px solid #d5d9e0;border-radius:4px}
a{color:#2563eb}
"""


@dataclass
class _Entry:
    item: dict[str, Any]
    usage: dict[str, Any] | None = None
    stop_reason: dict[str, Any] | None = None
    response: dict[str, Any] | None = None


def _cost_estimate(entry: _Entry) -> str | None:
    """``cost ~$0.0042 (estimate; litellm 1.110.2 (2026-12-01) prices)`` for a response's usage, from the
    catalogue's price of the model that answered (the item's ``origin``); ``None`` when it is not priced."""
    from types import SimpleNamespace

    found = entry.item.get("origin")
    origin: dict[str, Any] = found if isinstance(found, dict) else {}
    provider = origin.get("provider")
    model = (entry.response or {}).get("model") or origin.get("model")
    if not (isinstance(provider, str) and isinstance(model, str) and entry.usage):
        return None
    fields = ("input_tokens", "output_tokens", "reasoning_tokens", "cache_read_tokens", "cache_write_tokens")
    usage = SimpleNamespace(**{n: entry.usage.get(n) for n in fields})
    try:
        from .models import cost

        priced = cost(usage, provider, model)
    except Exception:  # noqa: BLE001 - a provider the catalogue does not know: no estimate
        return None
    return f"cost {priced.label()}" if priced is not None else None


@dataclass
class _Conversation:
    title: str
    entries: list[_Entry] = field(default_factory=list)
    header: dict[str, Any] = field(default_factory=dict)


def _plain(value: Any) -> Any:
    return None if value is None else to_builtins(value)


def _from_transcript(transcript: Transcript, title: str) -> _Conversation:
    entries = [_Entry(to_builtins(item)) for item in transcript.items]
    records = transcript.responses if isinstance(transcript.responses, list) else []
    for record in records:  # per-response usage, as a stored session keeps it
        if 0 <= record.item < len(entries):
            entry = entries[record.item]
            entry.usage, entry.stop_reason, entry.response = (_plain(_set(getattr(record, n))) for n in ("usage", "stop_reason", "response"))
    if entries and not records:
        last = entries[-1]
        last.usage, last.stop_reason, last.response = (_plain(_set(getattr(transcript, n))) for n in ("usage", "stop_reason", "response"))
    header = {n: to_builtins(v) for n in ("tools", "tool_choice", "settings", "metadata") if (v := _set(getattr(transcript, n))) is not None}
    return _Conversation(title, entries, header)


def _from_block(block: SessionBlock) -> _Conversation:
    entries = [
        _Entry(to_builtins(e.item), _plain(_set(e.usage)), _plain(_set(e.stop_reason)), _plain(_set(getattr(e, "response", None))))
        for e in block.envelopes
    ]
    header: dict[str, Any] = {}
    if block.header is not None:
        record = to_builtins(block.header)
        header = {n: record[n] for n in ("tools", "tool_choice", "settings", "metadata") if record.get(n) is not None}
    return _Conversation(f"session {block.session_id}", entries, header)


def _set(value: Any) -> Any:
    """``None`` for msgspec's UNSET (and ``None``), else the value."""
    return None if value is None or value is msgspec.UNSET else value


def render_html(source: Transcript | Iterable[SessionBlock], *, title: str | None = None) -> str:
    """Render a transcript, or the sessions of a session file, as one self-contained HTML page.

    Args:
        source: A transcript document, or session blocks as :func:`~interlingua.session_file.read_sessions`
            yields them (each becomes a section; each envelope's usage and stop reason are shown after it).
        title: Page title (default: ``"Transcript"``).

    Returns:
        The page as text (UTF-8 when written). It holds no script and loads nothing over the network.
    """
    conversations = [_from_transcript(source, "")] if isinstance(source, Transcript) else [_from_block(b) for b in source]
    sections = [(c.title, c.header, c.entries, *_links(c.entries)) for c in conversations]
    return "".join(iter_html(sections, title=title, items=sum(len(c.entries) for c in conversations)))


Section = tuple[str, dict[str, Any], Iterable["_Entry"], set[str], set[str]]
"""One conversation to render: title, header (tools, tool choice, settings, metadata), its entries
(read once, in order), and the ids of its calls and of the calls its results answer (for links)."""


def _links(entries: Iterable[_Entry]) -> tuple[set[str], set[str]]:
    calls: set[str] = set()
    results: set[str] = set()
    for entry in entries:
        _note_links(entry.item, calls, results)
    return calls, results


def _note_links(it: dict[str, Any], calls: set[str], results: set[str]) -> None:
    """Add an item's call id (a call) or answered call id (a result) to the sets."""
    t = it.get("type")
    if t in ("tool_call", "handoff_call") and isinstance(it.get("id"), str):
        calls.add(it["id"])
    elif t in ("tool_result", "handoff_result") and isinstance(it.get("call_id"), str):
        results.add(it["call_id"])


def iter_html(sections: Iterable[Section], *, title: str | None = None, items: int | None = None, conversations: int | None = None) -> Iterator[str]:
    """The page of :func:`render_html` as a sequence of text chunks, for writing as it is made.

    Memory is bounded by one turn of one conversation: each section's entries are read once, in
    order. What links calls to results is given up front (the section's two id sets), so a caller
    streaming a large file reads it twice (once for the ids and counts, once to render).

    Args:
        sections: See :data:`Section`.
        title: Page title (default ``"Transcript"``).
        items: Total item count shown under the title; when ``None``, each section's entries must be
            a sized collection (a list) and are counted.
        conversations: Number of sections, for that line.
    """
    if items is None or conversations is None:
        sections = list(sections)
        conversations = len(sections)
        if items is None:
            items = sum(len(entries) for _, _, entries, _, _ in sections)  # type: ignore[arg-type,misc]  # documented: sized when not given
    page_title = title or "Transcript"
    yield (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="referrer" content="no-referrer">'
        f"<title>{_e(page_title)}</title><style>{_STYLE}</style></head>\n<body><main>\n"
    )
    yield f"<h1>{_e(page_title)}</h1>"
    yield f'\n<div class="meta">{items} item(s) in {conversations} conversation(s)</div>'
    for n, (sec_title, header, entries, calls, results) in enumerate(sections):
        yield "\n"
        yield from _Renderer(f"c{n}", calls, results).conversation(sec_title, header, entries)
    yield "\n</main></body></html>\n"


_SURROGATES = re.compile("[\ud800-\udfff]")


def _e(value: Any) -> str:
    """``value`` as escaped HTML text; lone surrogates (a file name or title that is not UTF-8) become U+FFFD."""
    text = str(value)
    if not text.isascii():
        text = _SURROGATES.sub("\ufffd", text)
    return html.escape(text, quote=True)


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False)


def _role_of(item: dict[str, Any]) -> str:
    t = item.get("type")
    if isinstance(item.get("role"), str):
        return str(item["role"])
    if t in ("tool_result", "handoff_result"):
        return "tool"
    if t == "error":
        return "error"
    return "assistant" if t in ("tool_call", "handoff_call", "reasoning", "refusal", "structured") else "other"


class _Renderer:
    """Renders one conversation; anchors are unique per page (``prefix``)."""

    def __init__(self, prefix: str, calls: set[str], results: set[str]) -> None:
        self.prefix = prefix
        self.call_ids = calls
        self.result_ids = results

    def anchor(self, kind: str, call_id: str) -> str:
        digest = hashlib.sha256(call_id.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        return f"{self.prefix}-{kind}-{digest}"

    def conversation(self, title: str, header: dict[str, Any], entries: Iterable[_Entry]) -> Iterator[str]:
        """The section's HTML, a turn at a time (joined by line breaks)."""
        yield f'<section id="{self.prefix}">'
        if title:
            yield f"\n<h2>{_e(title)}</h2>"
        yield "\n" + self.header(header)
        turn: list[str] = []
        role = None
        for entry in entries:
            r = _role_of(entry.item)
            if r != role and turn:
                yield "\n" + self.turn(role, turn)
                turn = []
            role = r
            turn.append(self.item(entry.item))
            footer = self.response(entry)
            if footer:
                turn.append(footer)
                yield "\n" + self.turn(role, turn)
                turn, role = [], None
        if turn:
            yield "\n" + self.turn(role, turn)
        yield "\n</section>"

    @staticmethod
    def turn(role: str | None, parts: Sequence[str]) -> str:
        r = role or "other"
        return f'<div class="turn {_e(r)}" data-role="{_e(r)}"><div class="role">{_e(r)}</div>' + "".join(parts) + "</div>"

    @staticmethod
    def header(header: dict[str, Any]) -> str:
        parts = []
        for tool in header.get("tools") or ():
            name = tool.get("name", "?") if isinstance(tool, dict) else "?"
            desc = tool.get("description", "") if isinstance(tool, dict) else ""
            parts.append(f'<details class="tool"><summary><span class="label">tool</span>{_e(name)} <span class="meta">{_e(desc)}</span></summary><pre>{_e(_json(tool))}</pre></details>')
        for name in ("tool_choice", "settings", "metadata"):
            if name in header:
                parts.append(f'<details class="{name}"><summary>{name.replace("_", " ")}</summary><pre>{_e(_json(header[name]))}</pre></details>')
        return "".join(parts)

    def response(self, entry: _Entry) -> str:
        bits = []
        if entry.stop_reason:
            sr = entry.stop_reason
            native = f" ({sr['raw']})" if sr.get("raw") not in (None, sr.get("reason")) else ""
            bits.append(f"stop reason: {_e(sr.get('reason', '?'))}{_e(native)}")
        if entry.usage:
            names = ("input_tokens", "output_tokens", "reasoning_tokens", "cache_read_tokens", "cache_write_tokens", "total_tokens")
            counts = [f"{n.replace('_tokens', '').replace('_', ' ')} {entry.usage[n]}" for n in names if isinstance(entry.usage.get(n), int)]
            bits.append("usage: " + _e(", ".join(counts) or "-") + " tokens")
            estimate = _cost_estimate(entry)
            if estimate:
                bits.append(f'<span class="cost" title="an estimate from a dated price list, not a bill">{_e(estimate)}</span>')
        if entry.response:
            r = entry.response
            bits.extend(f"{k}: {_e(r[k])}" for k in ("model", "id") if isinstance(r.get(k), str))
        return f'<div class="response">{" · ".join(bits)}</div>' if bits else ""

    def item(self, it: dict[str, Any]) -> str:
        t = it.get("type")
        # A fixed table, never getattr on the item's type: a type of a newer version is content, and
        # names such as "call" or "_class__" must not reach helper methods or dunders (they render as unknown).
        name = _RENDERERS.get(t) if isinstance(t, str) else None
        body = getattr(self, name)(it) if name is not None else self._unknown(it)
        return f'<div class="item {_e(t if isinstance(t, str) else "unknown")}" data-type="{_e(t)}">{body}</div>'

    # one method per item type -------------------------------------------------------------
    def _text(self, it: dict[str, Any]) -> str:
        return f'<div class="text">{_e(it.get("text", ""))}</div>'

    def _media(self, it: dict[str, Any], kind: str) -> str:
        src = it.get("source") or {}
        stype = src.get("type")
        media = src.get("media_type") or (_AUDIO_FORMATS.get(str(it.get("format"))) if kind == "audio" else None)
        if stype == "base64" and isinstance(src.get("data"), str) and media in _PLAYABLE[kind]:
            data_url = f"data:{media};base64,{src['data']}"
            if kind == "image":
                return f'<span class="label">image</span><br><img class="inline" alt="image ({_e(media)})" src="{_e(data_url)}">'
            return f'<span class="label">{kind}</span><br><{kind} controls src="{_e(data_url)}"></{kind}>'
        return f'<span class="label">{kind}</span>{self._source(src)}'

    @staticmethod
    def _source(src: dict[str, Any]) -> str:
        stype = src.get("type")
        media = f" ({_e(src['media_type'])})" if src.get("media_type") else ""
        if stype == "url":
            return f'remote, not loaded: <code>{_e(src.get("url", ""))}</code>{media}'
        if stype == "file":
            prov = f" at {_e(src['provider'])}" if src.get("provider") else ""
            return f"file <code>{_e(src.get('file_id', ''))}</code>{prov}{media}"
        if stype == "artifact":
            return f"artifact <code>{_e(src.get('uri', ''))}</code>{media}"
        if stype == "text":
            return f'{media}<pre>{_e(src.get("text", ""))}</pre>'
        if stype == "base64":
            size = len(src.get("data") or "") * 3 // 4
            return f"inline data, about {size:,} bytes{media}"
        return f"<pre>{_e(_json(src))}</pre>"

    def _image(self, it: dict[str, Any]) -> str:
        return self._media(it, "image")

    def _audio(self, it: dict[str, Any]) -> str:
        out = self._media(it, "audio")
        if it.get("transcript"):
            out += f'<div class="text">transcript: {_e(it["transcript"])}</div>'
        return out

    def _video(self, it: dict[str, Any]) -> str:
        return self._media(it, "video")

    def _document(self, it: dict[str, Any]) -> str:
        name = it.get("title") or it.get("filename") or ""
        return f'<span class="label">document</span>{_e(name)} ' + self._source(it.get("source") or {})

    def _artifact_ref(self, it: dict[str, Any]) -> str:
        extra = " ".join(f"{k}: {_e(it[k])}" for k in ("title", "media_type", "size_bytes", "sha256") if k in it)
        return f'<span class="label">artifact</span><code>{_e(it.get("uri", ""))}</code> <span class="meta">{extra}</span>'

    def _call(self, it: dict[str, Any], kind: str, name_key: str) -> str:
        call_id = it.get("id")
        anchor = self.anchor("call", call_id) if isinstance(call_id, str) and call_id in self.call_ids else ""
        link = ""
        if isinstance(call_id, str) and call_id in self.result_ids:
            link = f' <a class="to-result" href="#{self.anchor("result", call_id)}">result</a>'
        elif kind == "tool call":
            link = ' <span class="label flag">no result</span>'
        head = f'<span class="label" id="{anchor}">{kind}</span><b>{_e(it.get(name_key, ""))}</b> <code class="meta">{_e(call_id)}</code>{link}'
        if "arguments_raw" in it or "arguments_error" in it:
            why = f": {_e(it['arguments_error'])}" if it.get("arguments_error") else ""
            return head + f'<div><span class="label flag">malformed arguments{why}</span></div><pre class="arguments raw">{_e(it.get("arguments_raw", ""))}</pre>'
        return head + f'<pre class="arguments">{_e(_json(it.get("arguments", {})))}</pre>'

    def _tool_call(self, it: dict[str, Any]) -> str:
        return self._call(it, "tool call", "name")

    def _handoff_call(self, it: dict[str, Any]) -> str:
        return self._call(it, "handoff", "target")

    def _result(self, it: dict[str, Any], kind: str) -> str:
        call_id = it.get("call_id")
        anchor = self.anchor("result", call_id) if isinstance(call_id, str) and call_id in self.result_ids else ""
        if isinstance(call_id, str) and call_id in self.call_ids:
            ref = f'<a class="to-call" href="#{self.anchor("call", call_id)}">{_e(call_id)}</a>'
        else:
            ref = f'<code>{_e(call_id)}</code> <span class="label flag">no matching call</span>'
        err = ' <span class="label flag">error</span>' if it.get("is_error") else ""
        name = f"<b>{_e(it['name'])}</b> " if it.get("name") else ""
        parts = [self.item(c) if isinstance(c, dict) else f"<pre>{_e(_json(c))}</pre>" for c in it.get("content") or ()]
        return f'<span class="label" id="{anchor}">{kind}</span>{name}for {ref}{err}' + "".join(parts)

    def _tool_result(self, it: dict[str, Any]) -> str:
        return self._result(it, "tool result")

    def _handoff_result(self, it: dict[str, Any]) -> str:
        return self._result(it, "handoff result")

    def _reasoning(self, it: dict[str, Any]) -> str:
        inner = []
        if it.get("text"):
            inner.append(f'<div class="text">{_e(it["text"])}</div>')
        for s in it.get("summary") or ():
            inner.append(f'<div class="text summary">{_e(s.get("text", "") if isinstance(s, dict) else s)}</div>')
        opaque = it.get("opaque")
        if isinstance(opaque, dict):
            model = f", model {_e(opaque['model'])}" if opaque.get("model") else ""
            inner.append(f'<div class="meta opaque">opaque, issued by {_e(opaque.get("issuer", "?"))} ({_e(opaque.get("namespace", ""))}{model})</div>')
        if it.get("redacted"):
            inner.append('<div class="meta">redacted by the provider</div>')
        return f'<details class="reasoning"><summary><span class="label">reasoning</span></summary>{"".join(inner)}</details>'

    def _refusal(self, it: dict[str, Any]) -> str:
        return f'<div class="refusal"><span class="label flag">refusal</span><span class="text">{_e(it.get("text", ""))}</span></div>'

    def _error(self, it: dict[str, Any]) -> str:
        status = f" HTTP {_e(it['status'])}" if it.get("status") is not None else ""
        prov = f" from {_e(it['provider'])}" if it.get("provider") else ""
        return f'<div class="error"><span class="label flag">error {_e(it.get("code", ""))}{status}{prov}</span><span class="text">{_e(it.get("message", ""))}</span></div>'

    def _structured(self, it: dict[str, Any]) -> str:
        name = f" {_e(it['schema_name'])}" if it.get("schema_name") else ""
        return f'<span class="label">structured{name}</span><pre>{_e(_json(it.get("data")))}</pre>'

    def _raw(self, it: dict[str, Any]) -> str:
        return f'<span class="label">raw from {_e(it.get("provider", "?"))}</span><pre>{_e(_json(it.get("value")))}</pre>'

    def _unknown(self, it: dict[str, Any]) -> str:
        return f'<span class="label flag">unknown item type {_e(it.get("type"))}</span><pre>{_e(_json(it))}</pre>'


_RENDERERS = {
    t: f"_{t}"
    for t in (
        "text", "image", "audio", "video", "document", "artifact_ref", "tool_call", "handoff_call", "tool_result",
        "handoff_result", "reasoning", "refusal", "error", "structured", "raw",
    )
}
"""Item type -> the :class:`_Renderer` method for it; any other type is shown as an unknown item."""


# --------------------------------------------------------------------------- files read twice, in bounded memory


def _shell_header(shell: Any) -> dict[str, Any]:
    return {n: to_builtins(v) for n in ("tools", "tool_choice", "settings", "metadata") if (v := _set(getattr(shell, n, None))) is not None}


def document_sections(path: str, *, label: str | None = None) -> tuple[list[Section], int] | None:
    """A transcript document file as one :data:`Section` for :func:`iter_html`, read item by item.

    The file is read twice (once here for the item count and the call and result ids, once while
    the page is written), so memory does not grow with the conversation. ``None`` when the
    document must be read whole (see :class:`interlingua._docstream.TranscriptStream`).

    Raises:
        DocumentError, LimitError: located at ``label`` (default: ``path``).
    """
    from ._docstream import Fallback, TranscriptStream

    where = label or path
    calls: set[str] = set()
    results: set[str] = set()
    count = 0
    with open(path, "rb") as fh:
        stream = TranscriptStream(fh)
        try:
            for item in _located(stream, where):
                _note_links(to_builtins(item), calls, results)
                count += 1
        except Fallback:
            return None
        shell = stream.shell

    def entries() -> Iterator[_Entry]:
        with open(path, "rb") as fh:
            n = 0
            for item in _located(TranscriptStream(fh), where):
                n += 1
                entry = _Entry(to_builtins(item))
                if n == count:
                    entry.usage, entry.stop_reason, entry.response = (_plain(_set(getattr(shell, a, None))) for a in ("usage", "stop_reason", "response"))
                yield entry

    return [("", _shell_header(shell), entries(), calls, results)], count


LINK_IDS = 200_000
"""Call and result ids :func:`session_sections` keeps from its first pass; past them (a file of many
sessions) each session's ids are read just before it is rendered, by a reader one session ahead."""


def session_sections(path: str, *, session: str | None = None, label: str | None = None) -> tuple[Iterator[Section], int, int]:
    """The sessions of a session file (or the one named ``session``) as :data:`Section` s for
    :func:`iter_html`, read envelope batch by batch: counts (and, up to :data:`LINK_IDS`, the ids
    links need) first, then the sections. Memory holds one batch and one session's ids when the
    file has more ids than that (a third reader then reads each session's ids just before it).

    Returns:
        ``(sections, items, sessions)``; ``sessions`` is 0 when ``session`` is not in the file.

    Raises:
        DocumentError, LimitError, VersionError: as :func:`~interlingua.session_file.iter_session_parts`.
    """
    from .session_file import EnvelopeBatch, SessionEnd, SessionStart, iter_session_parts

    where = label or path
    found: dict[int, tuple[set[str], set[str]]] | None = {}  # None: over LINK_IDS, read ahead instead
    kept: set[int] = set()  # the sessions shown (every one when ``session`` is None)
    items = ids = 0
    index = -1
    keep = False
    for part in iter_session_parts(path, label=where):
        if isinstance(part, SessionStart):
            index += 1
            keep = session is None or part.session_id == session
            if keep:
                kept.add(index)
                if found is not None:
                    found[index] = (set(), set())
        elif isinstance(part, EnvelopeBatch) and keep:
            if found is not None:
                calls, results = found[index]
                before = len(calls) + len(results)
                for env in part.envelopes:
                    _note_links(to_builtins(env.item), calls, results)
                ids += len(calls) + len(results) - before
                if ids > LINK_IDS:
                    found = None
            items += len(part.envelopes)

    def ahead_links() -> Iterator[tuple[set[str], set[str]]]:
        """The link ids of each shown session in turn, read by a reader of its own."""
        calls: set[str] = set()
        results: set[str] = set()
        n, on = -1, False
        for part in iter_session_parts(path, label=where):
            if isinstance(part, SessionStart):
                n += 1
                on = n in kept
                calls, results = set(), set()
            elif isinstance(part, EnvelopeBatch) and on:
                for env in part.envelopes:
                    _note_links(to_builtins(env.item), calls, results)
            elif isinstance(part, SessionEnd) and on:
                yield calls, results

    def sections() -> Iterator[Section]:
        parts = iter_session_parts(path, label=where)
        links = ahead_links() if found is None else None
        n = -1
        for part in parts:
            if not isinstance(part, SessionStart):
                continue
            n += 1
            if n not in kept:
                continue
            record = to_builtins(part.header) if part.header is not None else {}
            header = {k: record[k] for k in ("tools", "tool_choice", "settings", "metadata") if record.get(k) is not None}

            def entries(parts: Iterator[Any] = parts) -> Iterator[_Entry]:
                for p in parts:
                    if isinstance(p, SessionEnd):
                        return
                    if isinstance(p, EnvelopeBatch):
                        for e in p.envelopes:
                            yield _Entry(to_builtins(e.item), _plain(_set(e.usage)), _plain(_set(e.stop_reason)), _plain(_set(getattr(e, "response", None))))

            calls, results = next(links) if links is not None else found.pop(n)  # type: ignore[union-attr]  # found is set when links is None
            yield (f"session {part.session_id}", header, entries(), calls, results)

    return sections(), items, len(kept)


def _located(stream: Iterable[Any], where: str) -> Iterator[Any]:
    from .errors import InterlinguaError

    try:
        yield from stream
    except InterlinguaError as exc:
        located = getattr(exc, "located", None)
        if located is None:
            raise
        raise located(file=where) from None
