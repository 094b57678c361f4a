"""``interlingua convert --from canonical`` read item by item (bounded memory).

A transcript document file or a session file is read item by item (:mod:`interlingua._docstream`,
ADR 0013): ``--to canonical`` writes each item as it is read, a provider request is converted window
by window (:mod:`interlingua._windowed`); anything else falls back to the whole path, which gives the
same output and the same errors.
"""

from __future__ import annotations

from pathlib import Path
from typing import IO, Any

import msgspec

from ..conversion import CANONICAL, convert_request, convert_response
from ..errors import DocumentError
from ..mapping import Report
from ._convert_formats import FRAMEWORKS, Kind, canonical_kind
from ._convert_io import Spool, indent, pretty, pretty_to, source_label

__all__ = ["stream_canonical"]

def stream_canonical(
    to: str, *, kind: Kind | None, policy: str, model: str | None, source: str, report: Report, output: Path | None, session: str | None = None
) -> Spool | None:
    """``--from canonical`` for a transcript document file or a session file, read item by item
    (bounded memory): ``--to canonical`` writes each item as it is read; a provider request is
    converted window by window and written as it is produced (:mod:`interlingua._windowed`).
    ``None`` when the input must be read whole (stdin, or anything the streamed readers hand back:
    :class:`~interlingua._docstream.Fallback`): that path then gives the same output and the same
    errors."""
    from .._docstream import Fallback, TranscriptStream
    from ..session_file import looks_like_session_file
    from ._session_items import SessionItems

    if source == "-":
        return None
    try:
        fh = open(source, "rb")  # noqa: SIM115
    except OSError:
        return None  # the whole path says why
    with fh:
        sessions = source.lower().endswith((".jsonl", ".ndjson")) or looks_like_session_file(fh.read(4096))
        if session is not None and not sessions:
            return None  # the whole path says --session needs a session file
        fh.seek(0)
        label = source_label(source)

        def items() -> Any:
            fh.seek(0)
            return SessionItems(fh, session, label) if sessions else TranscriptStream(fh)

        spool = Spool(output)
        try:
            stream = items()
            if to == CANONICAL:
                _canonical_to_canonical(stream, spool.fh, label)
            elif not _windowed(items, to=to, kind=kind, policy=policy, model=model, label=label, out=spool.fh, report=report):
                if to in FRAMEWORKS:
                    raise Fallback  # the usual path (through the canonical document) decides
                spool.discard()
                spool = Spool(output)
                stream = items()
                whole = _located(list, stream, label)
                transcript = _transcript(stream.shell, whole)
                del whole
                if canonical_kind(kind, transcript) is Kind.response:
                    conv = convert_response(transcript, source=CANONICAL, target=to, model=model, policy=policy, report=report)  # type: ignore[arg-type]
                else:
                    conv = convert_request(transcript, source=CANONICAL, target=to, model=model, policy=policy, report=report)  # type: ignore[arg-type]
                del transcript
                pretty_to(conv.value, spool.fh)
        except Fallback:
            spool.discard()
            return None
        except BaseException:
            spool.discard()
            raise
    return spool


def _windowed(items: Any, *, to: str, kind: Kind | None, policy: Any, model: str | None, label: str, out: IO[bytes], report: Report) -> bool:
    """A request to a provider, converted window by window and written to ``out`` as it is produced
    (two passes over the file: ``items()`` makes a new reader each time; see
    :mod:`interlingua._windowed`); False when it must be converted whole (``out`` then holds a
    partial body, ``report`` is untouched)."""
    from .._windowed import plan, write_windows

    stream = items()
    found = plan(_located_items(stream, label))
    if to not in FRAMEWORKS and canonical_kind(kind, stream.shell) is Kind.response:
        return False
    return write_windows(_located_items(items(), label), stream.shell, found, target=to, model=model, policy=policy, out=out, report=report)


def _located(consume: Any, stream: Any, label: str) -> Any:
    try:
        return consume(stream)
    except DocumentError as exc:  # an item over the limit, as read_conversation locates it
        raise exc.located(file=label) from exc


def _transcript(shell: Any, items: list[Any]) -> Any:
    from ..items import Transcript

    return Transcript(
        schema_version=shell.schema_version, items=items, tools=shell.tools, tool_choice=shell.tool_choice, settings=shell.settings,
        metadata=shell.metadata, usage=shell.usage, stop_reason=shell.stop_reason, response=shell.response, responses=getattr(shell, "responses", msgspec.UNSET),
    )


def _canonical_to_canonical(stream: Any, out: IO[bytes], label: str) -> None:
    """Write the document :func:`pretty` would write for it, each item as it comes, after the
    checks :func:`~interlingua.conversion.convert_request` runs (schema, limits, semantic checks)."""
    from ..codec import check_json_safe
    from ..codec._items import encoder
    from ..errors import Problem
    from ..validation._semantic import SessionTable

    table = SessionTable()
    problems: list[Problem] = []
    written = False
    try:
        for i, item in enumerate(_located_items(stream, label)):
            pointer = f"/items/{i}"
            checker = table.get("")
            before = len(checker.seen)
            problems.extend(checker.check(item, pointer))
            table.grew(len(checker.seen) - before)
            if problems:
                continue  # nothing will be written: only look for more problems
            check_json_safe(item, pointer, max_depth=10_000)
            if not written:
                out.write(_head(stream.version))
                written = True
            else:
                out.write(b",")
            element = msgspec.json.format(msgspec.json.encode(msgspec.json.decode(encoder.encode(item))), indent=2)
            out.write(b"\n    " + indent(element, b"\n    "))
    finally:
        table.close()
    shell = stream.shell
    if shell.tools is not msgspec.UNSET:
        names: set[str] = set()
        for i, tool in enumerate(shell.tools):
            if tool.name in names:
                problems.append(Problem(f"/tools/{i}/name", f"duplicate tool name {tool.name!r}"))
            names.add(tool.name)
    if problems:
        raise DocumentError(problems)
    empty = pretty(msgspec.json.decode(encoder.encode(_transcript(shell, []))))
    marker = b'\n  "items": [],'
    at = empty.find(marker)
    if at < 0:
        marker = b'\n  "items": []\n'
        at = empty.find(marker)
    if not written:
        out.write(empty)
        return
    if empty[:at] + b'\n  "items": [' != _head(stream.version):
        raise AssertionError("transcript members out of the expected order")  # pragma: no cover - Transcript's field order
    out.write(b"\n  ]" + empty[at + len(b'\n  "items": []') :])


def _located_items(stream: Any, label: str) -> Any:
    try:
        yield from stream
    except DocumentError as exc:  # an item over the limit, as read_conversation locates it
        raise exc.located(file=label) from exc


def _head(version: str) -> bytes:
    return b'{\n  "schema_version": ' + msgspec.json.encode(version) + b',\n  "items": ['
