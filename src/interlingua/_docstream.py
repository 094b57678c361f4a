"""Read a transcript document item by item, in bounded memory (see ADR 0013).

msgspec decodes one JSON text whole; a transcript document of a million items decoded whole
holds every item at once (about 1 GB for a 68 MB file). :class:`TranscriptStream` reads the
document from a binary file in chunks and hands out its items one at a time, each decoded by the
codec's own item decoder (:func:`interlingua.codec._items.decode_one_item`: the same rules, limits and
error messages as :func:`~interlingua.codec.decode_transcript`).

How the ``items`` array is split: the bytes read so far, from the start of an element, are cut
after a ``}`` and given to msgspec as ``[`` + those bytes + ``]`` decoding ``list[msgspec.Raw]``.
That parse succeeds only when the cut falls right after a complete element (a cut inside a string
leaves it unterminated, a cut inside a nested value leaves brackets open), so msgspec itself
finds the element boundaries at C speed, and checks their syntax. Only when no cut parses (a
single element larger than the bytes read, or elements that are not objects) does a small
tokenizer (:func:`_value_end`) find the end of the first element. The members other than
``items`` (``schema_version``, ``tools``, ``metadata``, ...) are found by the same tokenizer and
decoded by the codec's document shell at the end, so they are checked exactly as before.

Anything this reader does not handle the usual way -- ``schema_version`` after ``items``, a key
given twice, a syntax error, a document that is not an object -- raises :class:`Fallback`
before or while reading, and the caller reads the document whole with
:func:`~interlingua.codec.decode_transcript`, which then reports exactly what it reported
before. An item over ``max_item_bytes`` is refused here without being held whole.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import IO, Any

import msgspec

from .codec import DEFAULT_LIMITS, Limits, Mode, check_json_safe
from .codec._items import decode_one_item
from .codec._jsonl import decode_items_block
from .codec._model import MINOR
from .codec._transcripts import read_version, shell_decoder
from .errors import DocumentError, LimitError, Problem

__all__ = ["CHUNK_BYTES", "Fallback", "TranscriptStream"]

CHUNK_BYTES = 1 << 20
"""Bytes read from the file at a time (more while one element is larger)."""

_raws = msgspec.json.Decoder(list[msgspec.Raw])
_WS = b" \t\r\n"
_TOKEN = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]|"')
_SCALAR_END = re.compile(rb"[,\]}\s]")
_MEMBERS = ("schema_version", "items", "tools", "tool_choice", "settings", "metadata", "usage", "stop_reason", "response", "responses")


class Fallback(Exception):
    """The document cannot be read item by item the usual way: read it whole instead."""


class _Incomplete(Exception):
    """The value goes on past the bytes read so far."""


def _value_end(data: bytes, pos: int) -> int:
    """Index just past the JSON value starting at ``data[pos]`` (no leading whitespace).

    Raises:
        _Incomplete: the value does not end within ``data``.
        Fallback: not the start of a JSON value, or brackets that do not match.
    """
    first = data[pos : pos + 1]
    if first not in (b"{", b"[", b'"'):
        if not first or first in b",:]}":
            raise Fallback
        m = _SCALAR_END.search(data, pos)
        if m is None:
            raise _Incomplete
        return m.start()
    stack: list[int] = []
    for m in _TOKEN.finditer(data, pos):
        tok = m.group()
        c = tok[0]
        if c == 0x22:  # a string
            if len(tok) == 1:  # an opening quote without its end: the string goes on
                raise _Incomplete
            if not stack:
                return m.end()
        elif c in (0x7B, 0x5B):  # { [
            stack.append(c)
        else:  # } ]
            if not stack or stack.pop() != (0x7B if c == 0x7D else 0x5B):
                raise Fallback
            if not stack:
                return m.end()
    raise _Incomplete


class TranscriptStream:
    """A transcript document read from a binary file, item by item.

    Iterate it once for the items (decoded as :func:`~interlingua.codec.decode_transcript` decodes
    them, in order); afterwards :attr:`shell` holds the document's other members (a
    ``_TranscriptShell`` with no items), decoded and checked as that function checks them.

    Raises (while iterating):
        Fallback: the caller must read the document whole (see the module docstring); also for
            an item that does not decode (so the error is the whole-document reader's).
        LimitError: an item over ``limits.max_item_bytes`` (pointer ``/items/N``), found without
            holding it whole.
    """

    def __init__(self, fh: IO[bytes], *, mode: Mode = "preserving", limits: Limits = DEFAULT_LIMITS, chunk: int = CHUNK_BYTES) -> None:
        self.fh = fh
        self.mode: Mode = mode
        self.limits = limits
        self.chunk = chunk
        self.data = b""
        self.pos = 0
        self.eof = False
        self.count = 0
        self.shell: Any = None
        self.minor: int | None = None
        self.version: str = ""
        """The document's ``schema_version`` (known before the first item)."""
        self._members: list[tuple[str, bytes]] = []

    # ------------------------------------------------------------------ buffer

    def _more(self, cap: int | None = None) -> bool:
        """Read more bytes (dropping what was consumed), at most ``cap``; False at the end of the file."""
        if self.eof:
            return False
        want = max(self.chunk, len(self.data) - self.pos)  # doubles while one value is larger
        if cap is not None:
            want = max(min(want, cap), 1)
        block = self.fh.read(want)
        if not block:
            self.eof = True
            return False
        self.data = self.data[self.pos :] + block
        self.pos = 0
        return True

    def _skip_ws(self) -> bytes:
        """The next byte that is not whitespace (not consumed); b"" at the end of the file."""
        while True:
            data, pos, n = self.data, self.pos, len(self.data)
            while pos < n and data[pos] in _WS:
                pos += 1
            self.pos = pos
            if pos < n:
                return data[pos : pos + 1]
            if not self._more():
                return b""

    def _expect(self, allowed: bytes) -> bytes:
        c = self._skip_ws()
        if not c or c not in allowed:
            raise Fallback
        self.pos += 1
        return c

    def _value(self, cap: int) -> bytes:
        """The raw JSON value at the current position (consumed); Fallback past ``cap`` bytes."""
        self._skip_ws()
        while True:
            try:
                end = _value_end(self.data, self.pos)
            except _Incomplete:
                if len(self.data) - self.pos > cap or not self._more():
                    raise Fallback from None
                continue
            raw = self.data[self.pos : end]
            self.pos = end
            return raw

    # ------------------------------------------------------------------ document

    def __iter__(self) -> Iterator[Any]:
        self._expect(b"{")
        seen: set[str] = set()
        if self._skip_ws() == b"}":
            raise Fallback  # an empty object: the whole reader says what is missing
        while True:
            key_raw = self._value(1 << 16)
            try:
                key = msgspec.json.decode(key_raw)
            except msgspec.DecodeError:
                raise Fallback from None
            if not isinstance(key, str) or key in seen or key not in _MEMBERS:
                raise Fallback  # unknown or repeated member: the whole reader decides
            seen.add(key)
            self._expect(b":")
            if key == "items":
                if self.minor is None:
                    raise Fallback  # schema_version must come first to read items as they come
                yield from self._items()
            else:
                raw = self._value(self.limits.max_line_bytes)
                self._members.append((key, raw))
                if key == "schema_version":
                    try:
                        _, self.minor = read_version(b'{"schema_version":' + raw + b"}")
                        self.version = msgspec.json.decode(raw)
                    except (DocumentError, msgspec.DecodeError, RecursionError):
                        raise Fallback from None  # (an over-deep value: the whole reader's LimitError)
            if self._expect(b",}") == b"}":
                break
        if self._skip_ws():
            raise Fallback  # data after the document
        if "items" not in seen:
            raise Fallback
        self._finish()

    def _finish(self) -> None:
        doc = b"{" + b",".join(msgspec.json.encode(k) + b":" + v for k, v in self._members) + b',"items":[]}'
        try:
            shell = shell_decoder.decode(doc)
            for name in ("tools", "metadata", "tool_choice", "settings", "response", "responses"):
                val = getattr(shell, name)
                if val is not msgspec.UNSET:
                    check_json_safe(val, f"/{name}", max_depth=self.limits.max_depth)
        except (msgspec.ValidationError, msgspec.DecodeError, DocumentError, RecursionError):
            raise Fallback from None
        self.shell = shell

    def _items(self) -> Iterator[Any]:
        self._expect(b"[")
        if self._skip_ws() == b"]":
            self.pos += 1
            return
        newer = (self.minor or 0) > MINOR
        limits, mode = self.limits, self.mode
        while True:
            self._skip_ws()
            raws, end = self._split()
            self.pos = end
            block = decode_items_block(b"\n".join(bytes(r) for r in raws), len(raws), limits) if raws else None
            if block is not None:  # every element passes the item decoder unchanged: one typed pass
                self.count += len(block)
                yield from block
                raws = []
            for r in raws:
                i = self.count
                self.count += 1
                try:
                    yield decode_one_item(bytes(r), f"/items/{i}", mode, newer, limits)
                except LimitError:
                    raise
                except DocumentError:
                    raise Fallback from None
            c = self._expect(b",]")
            if c == b"]":
                return
            if self._skip_ws() == b"]":
                raise Fallback  # a trailing comma

    def _split(self) -> tuple[list[msgspec.Raw], int]:
        """Complete elements from the current position: their raw JSON and the index after the last."""
        limit = self.limits.max_item_bytes
        while True:
            data, pos = self.data, self.pos
            # A cut after the last "}," read, then one before the middle of the bytes read.
            end = len(data)
            for _ in range(2):
                cut = data.rfind(b"},", pos, end)
                if cut < 0:
                    break
                try:
                    return _raws.decode(b"[" + data[pos : cut + 1] + b"]"), cut + 1
                except msgspec.DecodeError:
                    end = pos + (cut - pos) // 2
                except RecursionError:
                    raise Fallback from None
            # Else the tokenizer finds where the last complete element ends.
            last = _last_complete(data, pos)
            if last is None:
                if len(data) - pos > limit:
                    raise LimitError(Problem(f"/items/{self.count}", f"item is larger than {limit} bytes; the limit is {limit}"))
                # read on, doubling, but never more than one byte past the limit for one item
                if not self._more(cap=limit + 1 - (len(data) - pos)):
                    raise Fallback  # the document ends inside an element
                continue
            try:
                return _raws.decode(b"[" + data[pos:last] + b"]"), last
            except (msgspec.DecodeError, RecursionError):
                raise Fallback from None


def _last_complete(data: bytes, pos: int) -> int | None:
    """Index just past the last complete array element in ``data[pos:]`` (elements separated by
    commas, the first at ``pos``), or None when the first is not complete."""
    last = None
    n = len(data)
    while True:
        try:
            end = _value_end(data, pos)
        except _Incomplete:
            return last
        last = end
        while end < n and data[end] in _WS:
            end += 1
        if end >= n or data[end] != 0x2C:  # not a comma: the array ends (or the next read says)
            return last
        end += 1
        while end < n and data[end] in _WS:
            end += 1
        if end >= n:
            return last
        pos = end
