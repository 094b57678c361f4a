"""``repair`` and ``trim`` of a transcript document read item by item, in bounded memory.

A transcript document is one JSON value; decoded whole, a million items are a million objects held
at once (``interlingua repair -o`` and ``trim -o`` of the 1,000,000-item benchmark document peaked
at 476 and 548 MB). Here the document is read twice from its file with
:class:`~interlingua._docstream.TranscriptStream` (ADR 0013), never holding more than one read
window of items:

* ``repair``: the first pass feeds the items to the
  :class:`~interlingua.history._integrity.IntegrityScanner` (what it keeps is per call id, not per
  item). When nothing breaks the rules the second pass writes the items as they are read.
* ``trim``: the first pass keeps the compact facts of :class:`~interlingua.history._trim.TurnFacts`
  (an estimated cost and a few flag bytes per item, one id per call), from which
  :func:`~interlingua.history._trim.plan_trim` finds the cut; the second pass writes every item
  but the dropped turns' (and the marker where they were).

The bytes written are those of :func:`~interlingua.codec.encode_transcript` of what the whole
path (:func:`interlingua.history.repair`, :func:`interlingua.history.trim`) returns: the document's
other members are encoded once around an empty ``items`` array and the items, each encoded by the
same encoder, are put in between. Whatever this path does not cover returns ``None`` from the first
pass (nothing written yet): the caller then reads the document whole, as before.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, Any

import msgspec

from ..errors import IntegrityError
from ..items import TextItem, Transcript
from ..mapping.report import Policy
from ._integrity import IntegrityScanner
from ._tokens import TokenCount, _tools_tokens
from ._trim import TRIM_MARKER, TrimPlan, TurnFacts, _is_instruction

__all__ = ["DocumentFacts", "read_trim_facts", "scan_document", "write_document", "write_trimmed"]

_BATCH = 4096
"""Items encoded and written at a time."""

CHUNK_BYTES: int | None = None
"""Bytes read from the document at a time (``None``: :data:`interlingua._docstream.CHUNK_BYTES`);
read when each pass starts, so tests can make the read windows small."""


def _stream(fh: IO[bytes]) -> Any:
    from .._docstream import CHUNK_BYTES as DEFAULT_CHUNK, TranscriptStream

    fh.seek(0)
    return TranscriptStream(fh, chunk=CHUNK_BYTES or DEFAULT_CHUNK)


def _shell_transcript(shell: Any, *, responses: Any = None) -> Transcript:
    return Transcript(
        schema_version=shell.schema_version, items=[], tools=shell.tools, tool_choice=shell.tool_choice, settings=shell.settings,
        metadata=shell.metadata, usage=shell.usage, stop_reason=shell.stop_reason, response=shell.response,
        responses=shell.responses if responses is None else responses,
    )


def _head_tail(shell_doc: Transcript) -> tuple[bytes, bytes]:
    """The document's bytes before and after its items, as :func:`encode_transcript` writes them."""
    from ..codec import encode_transcript

    whole = encode_transcript(shell_doc)
    at = whole.index(b'"items":[') + len(b'"items":[')  # schema_version (digits and a dot) comes first
    return whole[:at], whole[at:]


def _items(fh: IO[bytes]) -> Iterator[Any]:
    """The document's items, read again from its start (the first pass read them all: no fallback)."""
    yield from _stream(fh)


def _write_items(out: IO[bytes], head: bytes, tail: bytes, items: Iterator[Any]) -> None:
    from ..codec._items import encoder

    encode = encoder.encode
    out.write(head)
    batch: list[bytes] = []
    first = True
    for item in items:
        batch.append(encode(item))
        if len(batch) >= _BATCH:
            out.write((b"" if first else b",") + b",".join(batch))
            first = False
            batch.clear()
    if batch:
        out.write((b"" if first else b",") + b",".join(batch))
    out.write(tail + b"\n")


@dataclass
class DocumentFacts:
    """What the first pass over a transcript document found.

    Attributes:
        shell: The document's members other than ``items`` (decoded and checked as
            :func:`~interlingua.codec.decode_transcript` checks them).
        count: Number of items.
        turns: The items' :class:`TurnFacts` (``trim``), else ``None``.
        scanner: The integrity scan of the items (``repair``), else ``None``.
    """

    shell: Any
    count: int
    turns: TurnFacts | None = None
    scanner: IntegrityScanner | None = None


def _first_pass(fh: IO[bytes], feed: Callable[[Any], None]) -> tuple[Any, int] | None:
    from .._docstream import Fallback

    stream = _stream(fh)
    try:
        for item in stream:
            feed(item)
    except Fallback:
        return None
    return stream.shell, stream.count


def scan_document(fh: IO[bytes], policy: Policy, *, open_end: bool = False) -> DocumentFacts | None:
    """First pass of ``repair``: the document's items through the integrity rules.

    Args:
        fh: The document, a seekable binary file (read from its start).
        policy: As :func:`interlingua.history.repair`.
        open_end: As :func:`interlingua.history.repair`.

    Returns:
        The facts when the document is sound (the second pass, :func:`write_document`, writes it
        as read); ``None`` when it must be repaired or read whole (a rule broken under ``drop`` or
        ``degrade``, or anything :class:`~interlingua._docstream.TranscriptStream` leaves to the
        whole reader).

    Raises:
        IntegrityError: under ``error``, listing every finding (as the whole path raises it).
        LimitError: an item over the size limit (pointer ``/items/N``).
    """
    scanner = IntegrityScanner(open_end=open_end)
    read = _first_pass(fh, scanner.feed)
    if read is None:
        return None
    findings = scanner.finish()
    if findings:
        if policy == "error":
            raise IntegrityError(findings)
        return None
    return DocumentFacts(read[0], read[1], scanner=scanner)


def write_document(fh: IO[bytes], out: IO[bytes], facts: DocumentFacts) -> None:
    """Second pass: the document written as :func:`~interlingua.codec.encode_transcript` writes it
    decoded (plus a newline), its items read one window at a time.

    Raises:
        DocumentError: a member is not JSON-safe (as ``encode_transcript``).
        OSError: ``out`` cannot be written.
    """
    head, tail = _head_tail(_shell_transcript(facts.shell))
    _write_items(out, head, tail, _items(fh))


def read_trim_facts(fh: IO[bytes]) -> DocumentFacts | None:
    """First pass of ``trim``: the items' :class:`TurnFacts`.

    Returns:
        The facts; ``None`` when the document must be read whole: anything
        :class:`~interlingua._docstream.TranscriptStream` leaves to the whole reader, or ``responses``
        records (reported usage seeds the count, which needs the items' fingerprints).

    Raises:
        LimitError: an item over the size limit (pointer ``/items/N``).
    """
    turns = TurnFacts()
    read = _first_pass(fh, turns.feed)
    if read is None:
        return None
    shell, count = read
    if isinstance(shell.responses, list) and shell.responses:
        return None
    return DocumentFacts(shell, count, turns=turns)


def count_document(facts: DocumentFacts, model: str | None) -> TokenCount:
    """The offline estimate :func:`~interlingua.history.count_tokens` gives the whole document (it
    has no ``responses`` records, see :func:`read_trim_facts`)."""
    assert facts.turns is not None
    n = _tools_tokens(_shell_transcript(facts.shell)) + facts.turns.instr_tokens + facts.turns.tokens
    return TokenCount(n, exact=False, method="estimate", estimated_tokens=n, model=model)


def write_trimmed(fh: IO[bytes], out: IO[bytes], facts: DocumentFacts, plan: TrimPlan | None, *, marker: bool = False) -> tuple[int, int]:
    """Second pass of ``trim``: the document without the turns ``plan`` drops (``None`` or none
    dropped: as read), written as :func:`~interlingua.codec.encode_transcript` writes what
    :func:`interlingua.history.trim` returns (plus a newline).

    Returns:
        ``(items kept, estimated tokens kept)``: the kept items (the marker included) and their
        estimate with the tools', as :func:`~interlingua.history.count_tokens` gives it.

    Raises:
        OSError: ``out`` cannot be written.
    """
    turns = facts.turns
    assert turns is not None
    tokens = _tools_tokens(_shell_transcript(facts.shell)) + turns.instr_tokens + turns.tokens
    if plan is None or not plan.dropped:
        _write_items(out, *_head_tail(_shell_transcript(facts.shell)), _items(fh))
        return facts.count, tokens
    lo, hi = plan.drop_range()
    mark = TextItem(text=TRIM_MARKER.format(n=len(plan.dropped)), role="user") if marker else None
    kept = [0]

    def kept_items() -> Iterator[Any]:
        placed = mark is None
        for i, item in enumerate(_items(fh)):
            if lo <= i < hi and not _is_instruction(item):
                if not placed:  # where the first dropped item was
                    placed = True
                    kept[0] += 1
                    yield mark
                continue
            kept[0] += 1
            yield item

    # what the whole path keeps of the records: none ([] and dropped turns give UNSET)
    _write_items(out, *_head_tail(_shell_transcript(facts.shell, responses=msgspec.UNSET)), kept_items())
    return kept[0], tokens - plan.dropped_tokens() + (TurnFacts.cost_of(mark) if mark is not None else 0)
