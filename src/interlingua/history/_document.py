"""``repair`` and ``trim`` of a transcript document read item by item, in bounded memory.

A transcript document is one JSON value; decoded whole, a million items are a million objects held
at once (``interlingua repair -o`` and ``trim -o`` of the 1,000,000-item benchmark document peaked
at 476 and 548 MB). Here the document is read twice from its file with
:class:`~interlingua._docstream.TranscriptStream` (ADR 0013), never holding more than one read
window of items:

* ``repair``: the first pass feeds the items to the
  :class:`~interlingua.history._integrity.IntegrityScanner` (what it keeps is per call id, not per
  item). When nothing breaks the rules the second pass writes the items as they are read; otherwise
  the rewrite runs in rounds (:func:`write_repaired`), each planned by index with
  :func:`~interlingua.history._integrity.plan_pass` and written to a temporary file.
* ``trim``: the first pass keeps the compact facts of :class:`~interlingua.history._trim.TurnFacts`
  (an estimated cost and a few flag bytes per item, one id per call), from which
  :func:`~interlingua.history._trim.plan_trim` finds the cut; the second pass writes every item
  but the dropped turns' (and the marker where they were).

The documents are read once more than the items are written (two or more passes), so they must be
seekable files (``interlingua repair`` and ``trim`` copy standard input to a temporary file first).
The bytes written are those of :func:`~interlingua.codec.encode_transcript` of what the whole
path (:func:`interlingua.history.repair`, :func:`interlingua.history.trim`) returns: the document's
other members are encoded once around an empty ``items`` array and the items, each encoded by the
same encoder, are put in between. Whatever this path does not cover returns ``None`` from the first
pass (nothing written yet): the caller then reads the document whole, as before.
"""

from __future__ import annotations

import contextlib
import dataclasses
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, Any

import msgspec

from ..errors import IntegrityError
from ..items import TextItem, Transcript
from ..mapping.report import Policy, Report
from ._integrity import IntegrityScanner
from ._tokens import TokenCount, _tools_tokens
from ._trim import TRIM_MARKER, TrimPlan, TurnFacts, _is_instruction

__all__ = ["DocumentFacts", "read_trim_facts", "scan_document", "write_document", "write_repaired", "write_trimmed"]

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
    newer: bool = False
    """The document is of a newer minor schema version than this reader's (its items decode so)."""


def _first_pass(fh: IO[bytes], feed: Callable[[Any], None]) -> tuple[Any, int, bool] | None:
    from .._docstream import Fallback
    from ..codec._model import MINOR

    stream = _stream(fh)
    try:
        for item in stream:
            feed(item)
    except Fallback:
        return None
    return stream.shell, stream.count, (stream.minor or 0) > MINOR


def scan_document(fh: IO[bytes], policy: Policy, *, open_end: bool = False) -> DocumentFacts | None:
    """First pass of ``repair``: the document's items through the integrity rules.

    Args:
        fh: The document, a seekable binary file (read from its start).
        policy: As :func:`interlingua.history.repair`.
        open_end: As :func:`interlingua.history.repair`.

    Returns:
        The facts (the next passes: :func:`write_repaired`); ``None`` when the document must be
        read whole (anything :class:`~interlingua._docstream.TranscriptStream` leaves to the whole
        reader).

    Raises:
        IntegrityError: under ``error``, listing every finding (as the whole path raises it).
        LimitError: an item over the size limit (pointer ``/items/N``).
    """
    scanner = IntegrityScanner(open_end=open_end)
    read = _first_pass(fh, scanner.feed)
    if read is None:
        return None
    findings = scanner.finish()
    if findings and policy == "error":
        raise IntegrityError(findings)
    return DocumentFacts(read[0], read[1], scanner=scanner, newer=read[2])


def write_document(fh: IO[bytes], out: IO[bytes], facts: DocumentFacts) -> None:
    """Second pass: the document written as :func:`~interlingua.codec.encode_transcript` writes it
    decoded (plus a newline), its items read one window at a time.

    Raises:
        DocumentError: a member is not JSON-safe (as ``encode_transcript``).
        OSError: ``out`` cannot be written.
    """
    head, tail = _head_tail(_shell_transcript(facts.shell))
    _write_items(out, head, tail, _items(fh))


_Row = tuple[Any, "bytes | None", int, bool]
"""An item of a repair round: the item, its encoded bytes when known, its input index, and whether it
is the input's own item unchanged."""


def write_repaired(fh: IO[bytes], out: IO[bytes], facts: DocumentFacts, policy: Policy, *, open_end: bool = False) -> Report:
    """The passes of ``repair`` after :func:`scan_document` (its scan is consumed): the document written as
    :func:`~interlingua.codec.encode_transcript` writes what :func:`interlingua.history.repair`
    returns (plus a newline), and that function's report.

    A sound document is written as read. Otherwise each round of the rewrite (as
    :func:`~interlingua.history._integrity.repair_items` repeats it until nothing is found) reads the
    current items twice: once for what the plan needs of the findings' items (type, input index, a
    late result to move back, the ids a renamed call must not take), once to write the rewritten items
    to a temporary file, one a line, while the next round's scan runs over them. Memory: the scanner's
    state per call id, the findings, and the items moved or waiting for a stub result.

    Raises:
        OSError: ``out`` or a temporary file cannot be written.
    """
    from ..codec import DEFAULT_LIMITS
    from ..codec._items import decode_one_item, encoder
    from ._integrity import _stub, plan_pass

    report = Report()
    scan = facts.scanner
    assert scan is not None
    if not scan.findings:
        write_document(fh, out, facts)
        return report
    facts.scanner = None  # consumed: each round's scan is let go once its plan is made
    encode = encoder.encode
    newer = facts.newer
    # the items read back were read once under the limits; a renamed id may make one a few bytes longer
    limits = dataclasses.replace(DEFAULT_LIMITS, max_item_bytes=1 << 62)

    def from_document() -> Iterator[_Row]:
        for i, item in enumerate(_items(fh)):
            yield item, None, i, True

    def from_spool(spool: IO[bytes]) -> Callable[[], Iterator[_Row]]:
        def rows() -> Iterator[_Row]:
            spool.seek(0)
            for i, line in enumerate(spool):
                o, p, raw = line.split(b" ", 2)
                raw = raw[:-1]
                yield decode_one_item(raw, f"/items/{i}", "preserving", newer, limits), raw, int(o), p == b"1"

        return rows

    with contextlib.ExitStack() as stack:
        source: Callable[[], Iterator[_Row]] = from_document
        count = facts.count
        for _ in range(facts.count + 2):
            findings = scan.findings
            need: set[int] = set()
            late_set: set[int] = set()
            for f in findings:
                need.add(f.index)
                late = scan.late_result.get(f.index) if f.rule == "dangling_call" else None
                if late is not None:
                    need.add(late)
                    late_set.add(late)
                res = scan.result_of.get(f.index) if f.rule == "duplicate_call_id" else None
                if res is not None:
                    need.add(res)
            bases = {str(f.call_id) for f in findings if f.rule == "duplicate_call_id"} if policy == "degrade" else set()
            tags: dict[int, str] = {}
            origins: dict[int, int] = {}
            held_late: dict[int, _Row] = {}
            taken: set[str] = set()
            for j, row in enumerate(source()):
                item = row[0]
                if j in need:
                    tags[j] = item.__struct_config__.tag
                    origins[j] = row[2]
                if j in late_set:
                    held_late[j] = row
                if bases:
                    iid = getattr(item, "id", None)
                    if isinstance(iid, str) and iid.rpartition("_")[0] in bases:
                        taken.add(iid)
            plan = plan_pass(scan, policy, report, tag_of=tags.__getitem__, origin_of=origins.__getitem__, taken=taken)
            stub_calls = {k for entries in plan.insert.values() for moved, k in entries if not moved}
            held_calls: dict[int, tuple[Any, int]] = {}
            spool = stack.enter_context(tempfile.TemporaryFile())
            nxt = scan = IntegrityScanner(open_end=open_end)  # the last round's scan is not held while writing
            state = [0, -1]  # items written, first position not the input's own item in its place

            def emit(item: Any, raw: bytes | None, o: int, pristine: bool) -> None:
                nxt.feed(item)
                spool.write(b"%d %d " % (o, pristine) + (encode(item) if raw is None else raw) + b"\n")
                if state[1] < 0 and not (pristine and o == state[0]):
                    state[1] = state[0]
                state[0] += 1

            def inserts(j: int) -> None:
                for moved, k in plan.insert.get(j, ()):
                    if moved:
                        emit(*held_late.pop(k))
                    else:
                        call, o = held_calls.pop(k)
                        emit(_stub(call), None, o, False)

            n = 0
            for j, (item, raw, o, pristine) in enumerate(source()):
                n = j + 1
                inserts(j)
                if j in stub_calls:
                    held_calls[j] = (plan.renamed(j, item), o)
                if j in plan.drop:
                    continue
                new = plan.renamed(j, item)
                if new is item:
                    emit(item, raw, o, pristine)
                else:
                    emit(new, None, o, False)
            inserts(n)
            nxt.finish()
            scan, source, count = nxt, from_spool(spool), state[0]
            if not scan.findings:
                break
        else:  # pragma: no cover - each round removes or fixes a finding
            raise AssertionError("history repair did not converge")
        first_change = state[1] if state[1] >= 0 else count
        records = facts.shell.responses
        kept = [r for r in records if r.item < min(first_change, facts.count)] if isinstance(records, list) else []
        head, tail = _head_tail(_shell_transcript(facts.shell, responses=kept or msgspec.UNSET))
        out.write(head)
        spool.seek(0)
        first = True
        for line in spool:
            out.write((b"" if first else b",") + line.split(b" ", 2)[2][:-1])
            first = False
        out.write(tail + b"\n")
    return report


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
    shell, count, newer = read
    if isinstance(shell.responses, list) and shell.responses:
        return None
    return DocumentFacts(shell, count, turns=turns, newer=newer)


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
