"""``interlingua convert``: one wire format to another, through the canonical form.

Usage::

    interlingua convert --from FMT --to FMT [--kind request|response|stream]
                        [--policy error|drop|degrade] [--model M] [--force] [INPUT] [-o OUT]

``FMT`` is ``canonical``, a registered mapper name, or a framework format (:data:`FRAMEWORKS`):
``otel`` (the ``gen_ai.*`` attributes of an OpenTelemetry GenAI span, :mod:`interlingua.otel`),
``pydantic-ai`` (a ``ModelMessagesTypeAdapter`` JSON history) or ``langchain`` (``messages_to_dict``
output), read and written through the canonical form (ADR 0011); and the stored-conversation formats
(:data:`STORED`: Vercel AI SDK messages, fine-tuning records, ChatGPT/Claude.ai exports; ``--to`` only for
those :data:`interlingua.compat.WRITERS` names; ADR 0029). This command is a thin shell over
:func:`interlingua.convert_request` / :func:`~interlingua.convert_response` /
:func:`~interlingua.convert_stream` (format check, decode, model rules, preflight with the
policy, encode), so it gives what the Python API gives for the same input. Here live only
reading the input, telling a stream from a JSON body, and printing.

A transcript document file given with ``--from canonical`` is read item by item
(:mod:`interlingua._docstream`, ADR 0013) and, with ``--to canonical``, written item by item: a
document of a million items converts in tens of MB. stdin, session files and provider bodies are
read whole.

Exit codes: 0 converted; 1 refused (the input plainly belongs to another format than
``--from`` -- the hint is the first line, ``--force`` decodes it anyway --, policy error,
capability violations, malformed input such as a body that is not JSON, invalid transcript, failed or
truncated stream); 2 usage error or unreadable input (unknown format, missing file, a session file
holding several sessions without ``--session``, or ``--session`` for a transcript document). Report entries go to stderr as ``warning: ...`` lines; nothing is
written to ``-o`` unless the whole conversion succeeded.
"""

from __future__ import annotations

import enum
import contextlib
import io
import os
import tempfile
import sys
from pathlib import Path
from typing import IO, Annotated, Any

import msgspec
import typer

from ..codec import syntax_problem
from ..hosts import host_names
from ..conversion import CANONICAL, convert_request, convert_response, convert_stream, detect_kind, read_size
from ..errors import CapabilityError, DocumentError, FormatMismatchError, Problem, SessionChoiceError, InterlinguaError, LimitError, MappingError, StreamFailedError, UnknownFormatError
from ..mapping import Mapper, Report, available, get_mapper
from ..mapping.registry import is_known
from ._common import require_stdin, write_atomic

__all__ = ["CANONICAL", "FRAMEWORKS", "convert", "register"]

FRAMEWORKS: tuple[str, ...] = ("otel", "pydantic-ai", "langchain")
"""Formats that are not provider wire formats: whole conversations as other tools hold them (ADR 0011)."""

# --- stored conversations (issue 26): read through interlingua.compat; --to only where a writer exists
STORED = ("vercel-ui", "vercel-model", "openai-finetune", "sharegpt", "llamafactory", "hf-messages", "chatgpt-export", "claude-export")
FRAMEWORKS = FRAMEWORKS + STORED
# --- agent logs and agent framework stores (issue 26): read only, one conversation (see ._convert_agents)
AGENTS = ("claude-code", "codex", "adk", "mcp-sampling")
FRAMEWORKS = FRAMEWORKS + AGENTS

_STREAM_SUFFIXES = (".sse", ".ndjson")


class Kind(str, enum.Enum):
    """What the input holds."""

    request = "request"
    response = "response"
    stream = "stream"


class PolicyChoice(str, enum.Enum):
    """What to do with content the target cannot carry."""

    error = "error"
    drop = "drop"
    degrade = "degrade"


class _Fail(Exception):
    """Stop with an exit code and a one-line (or multi-line) message."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


# --------------------------------------------------------------------------- steps


def _format(name: str) -> None:
    """Exit 2 when ``name`` is neither canonical, a framework format nor a format that loads."""
    if name == CANONICAL or name in FRAMEWORKS:
        return
    if not is_known(name):
        raise _Fail(2, f"unknown format {name!r}; known: {', '.join([CANONICAL, *available(), *FRAMEWORKS])}")
    try:
        get_mapper(name)
    except UnknownFormatError as exc:  # a plugin that fails to load
        raise _Fail(2, f"{exc}; known: {', '.join([CANONICAL, *available(), *FRAMEWORKS])}") from exc


def _binary(stream: Any) -> IO[bytes]:
    """The byte stream under a text stream (``sys.stdin``/``sys.stdout``, also under test runners)."""
    buffer: IO[bytes] = getattr(stream, "buffer", stream)
    return buffer


def _read(source: str) -> bytes:
    if source == "-":
        return _binary(sys.stdin).read()
    try:
        return Path(source).read_bytes()
    except OSError as exc:
        raise _Fail(2, f"cannot read {source}: {exc.strerror or exc}") from exc


def _json(data: bytes, what: str) -> Any:
    try:
        return msgspec.json.decode(data)
    except msgspec.DecodeError as exc:
        # malformed input: exit 1, as for every command (README: 1 invalid or malformed, 2 usage or unreadable)
        raise _Fail(1, f"{what} is not JSON: {syntax_problem(data, exc).message}") from exc
    except msgspec.ValidationError as exc:  # a number out of range
        raise _Fail(1, f"{what} is not JSON: {exc}") from exc
    except RecursionError as exc:
        raise _Fail(1, f"{what}: /: nesting too deep") from exc


def _article(name: str) -> str:
    return "an" if name[:1] in "aeiou" else "a"


def _label(source: str) -> str:
    return "stdin" if source == "-" else source


_SSE_FIELDS = (b"data:", b"event:", b"id:", b"retry:", b":")


def _looks_like_stream(mapper: Mapper, data: bytes) -> bool:
    """Whether input that is not one JSON document has the shape of a stream of ``mapper``'s framing:
    SSE starts with a field name; NDJSON has a first line that is a JSON value on its own."""
    text = data.lstrip()
    if mapper.framing == "sse":
        return text.startswith(_SSE_FIELDS)
    first, _, rest = text.partition(b"\n")
    if not rest.strip():
        return False
    try:
        msgspec.json.decode(first)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return False
    return True


def _is_stream(mapper: Mapper, source: str, data: bytes) -> bool:
    """A ``.sse``/``.ndjson`` file, or input shaped like the mapper's stream framing, is a stream;
    anything else must be one JSON body (else: invalid JSON, located, exit 1)."""
    if source != "-" and source.lower().endswith(_STREAM_SUFFIXES):
        return True
    try:
        msgspec.json.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        if _looks_like_stream(mapper, data):
            return True
        what = exc if isinstance(exc, msgspec.ValidationError) else syntax_problem(data, exc).message
        raise _Fail(1, f"{_label(source)} is not JSON (nor {_article(mapper.name)} {mapper.name} stream): {what}") from exc
    except RecursionError as exc:
        raise _Fail(1, f"{_label(source)}: /: nesting too deep") from exc
    return False


def _with_format_hint(exc: DocumentError, data: bytes | None) -> DocumentError:
    """``exc`` for canonical input without ``schema_version``, with the provider or framework format
    the input looks like and the ``--from`` to use (as ``interlingua validate`` hints)."""
    from ..validation import detected_format, with_hint

    if data is None or any("looks like" in p.message for p in exc.problems):
        return exc
    found = detected_format(exc.problems, data)
    if found is None:
        return exc
    return type(exc)(with_hint(exc.problems, f" (this looks like {found} data, not a transcript: try --from {found})"))


def _not_a_body_hint(value: Any, from_: str) -> str:
    """What a JSON value that is not a body object (a bare message list, ...) more likely is, and
    what to run instead: a framework history names its ``--from``, envelopes name ``--from
    canonical``, a provider message list is wrapped in ``{"messages": [...]}`` or migrated."""
    if not isinstance(value, list):
        return ""
    if not value or not all(isinstance(v, (dict, list)) for v in value):  # [] or [1, 2]: not messages, no message hint
        return ""
    try:
        from ..compat import detect_format

        found = detect_format(value)
    except Exception:  # noqa: BLE001 - a hint is best effort; the error itself stands
        found = None
    if found in FRAMEWORKS:
        return f"; it looks like a {found} message history: try --from {found}"
    if found == "interlingua":
        return "; it looks like a JSON list of interlingua envelopes: write them as a session file with `interlingua migrate FILE -o OUT.jsonl`, then --from canonical"
    return (
        "; a bare list of messages is not a request body: wrap it as {\"messages\": [...]} (with a \"model\"), "
        "or read a stored history with `interlingua migrate FILE -o OUT.jsonl`"
        + (f" (it looks like {_article(found)} {found} message list)" if found and found != from_ else "")
    )


def _pretty(value: Any) -> bytes:
    return msgspec.json.format(msgspec.json.encode(value), indent=2) + b"\n"


def _pretty_to(value: Any, fh: IO[bytes]) -> None:
    """Write :func:`_pretty` of ``value`` to ``fh`` without holding the whole text: a dict's members
    one at a time, a list member's elements one at a time (the same bytes, tested)."""
    if not isinstance(value, dict) or not value:
        fh.write(_pretty(value))
        return
    fh.write(b"{")
    for n, (key, member) in enumerate(value.items()):
        fh.write((b",\n  " if n else b"\n  ") + msgspec.json.encode(key) + b": ")
        if isinstance(member, list) and member:
            fh.write(b"[")
            for i, element in enumerate(member):
                fh.write((b",\n    " if i else b"\n    ") + _indent(msgspec.json.format(msgspec.json.encode(element), indent=2), b"\n    "))
            fh.write(b"\n  ]")
        else:
            fh.write(_indent(msgspec.json.format(msgspec.json.encode(member), indent=2), b"\n  "))
    fh.write(b"\n}\n")


def _indent(text: bytes, newline: bytes) -> bytes:
    # a newline in JSON text is always formatting (in strings it is escaped)
    return text.replace(b"\n", newline)


class _NamedWrites(io.BufferedRandom):
    """The spool file of ``-o FILE``: a failed write or flush (a full disk) names FILE, the output
    the user asked for (the temporary file beside it is an implementation detail), so the message
    is "FILE: No space left on device", not "cannot write standard output"."""

    target = ""

    def write(self, data: Any) -> int:
        try:
            return super().write(data)
        except OSError as exc:
            exc.filename = exc.filename or self.target
            raise

    def flush(self) -> None:
        try:
            super().flush()
        except OSError as exc:
            exc.filename = exc.filename or self.target
            raise


class _Spool:
    """The output, written to a temporary file as it is made (never held whole) and put in place
    (or copied to stdout) only when the conversion succeeded."""

    def __init__(self, out: Path | None) -> None:
        from .._paths import output_target

        self.out = out
        self.tmp: str | None = None
        self.in_place: Path | None = None
        if out is not None:
            real, in_place = output_target(out)
            if in_place:  # /dev/null, a pipe: never renamed over; copied there on success, as stdout is
                self.in_place, out = real, None
        if out is None:
            self.fh: IO[bytes] = tempfile.TemporaryFile()
            return
        from .._migrate.file_sinks import _remove_stale

        _remove_stale(out)  # left by a run that was killed
        try:
            # named with the pid, as migrate names its own: a later run removes it if this one is killed
            fd, self.tmp = tempfile.mkstemp(prefix=f".{out.name}.{os.getpid()}.", suffix=".tmp", dir=out.parent if str(out.parent) else ".")
        except OSError as exc:
            raise _Fail(2, f"cannot write {out}: {exc.strerror or exc}") from exc
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(self.tmp, 0o666 & ~umask)
        named = _NamedWrites(io.FileIO(fd, "r+"))
        named.target = os.fspath(out)
        self.fh = named

    def commit(self) -> None:
        if self.in_place is not None:
            import shutil

            self.fh.seek(0)
            with open(self.in_place, "wb") as target:
                shutil.copyfileobj(self.fh, target, 1 << 20)
            self.fh.close()
            return
        if self.out is None:
            import shutil

            self.fh.seek(0)
            stream = _binary(sys.stdout)
            shutil.copyfileobj(self.fh, stream, 1 << 20)
            stream.flush()
            self.fh.close()
            return
        self.fh.close()
        assert self.tmp is not None
        os.replace(self.tmp, self.out)
        self.tmp = None

    def discard(self) -> None:
        # closing flushes, and on a full disk the flush fails again: the file is closed all the
        # same (io closes the descriptor before re-raising) and must still be removed
        with contextlib.suppress(OSError):
            self.fh.close()
        if self.tmp is not None and os.path.exists(self.tmp):
            os.unlink(self.tmp)
        self.tmp = None


def _stream_canonical(
    to: str, *, kind: Kind | None, policy: str, model: str | None, source: str, report: Report, output: Path | None, session: str | None = None
) -> _Spool | None:
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
        label = _label(source)

        def items() -> Any:
            fh.seek(0)
            return SessionItems(fh, session, label) if sessions else TranscriptStream(fh)

        spool = _Spool(output)
        try:
            stream = items()
            if to == CANONICAL:
                _canonical_to_canonical(stream, spool.fh, label)
            elif not _windowed(items, to=to, kind=kind, policy=policy, model=model, label=label, out=spool.fh, report=report):
                if to in FRAMEWORKS:
                    raise Fallback  # the usual path (through the canonical document) decides
                spool.discard()
                spool = _Spool(output)
                stream = items()
                whole = _located(list, stream, label)
                transcript = _transcript(stream.shell, whole)
                del whole
                if _canonical_kind(kind, transcript) is Kind.response:
                    conv = convert_response(transcript, source=CANONICAL, target=to, model=model, policy=policy, report=report)  # type: ignore[arg-type]
                else:
                    conv = convert_request(transcript, source=CANONICAL, target=to, model=model, policy=policy, report=report)  # type: ignore[arg-type]
                del transcript
                _pretty_to(conv.value, spool.fh)
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
    if to not in FRAMEWORKS and _canonical_kind(kind, stream.shell) is Kind.response:
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
    """Write the document :func:`_pretty` would write for it, each item as it comes, after the
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
            out.write(b"\n    " + _indent(element, b"\n    "))
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
    empty = _pretty(msgspec.json.decode(encoder.encode(_transcript(shell, []))))
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


def _write(out: Path | None, data: bytes) -> None:
    if out is None:
        stream = _binary(sys.stdout)
        stream.write(data)
        stream.flush()
        return
    write_atomic(out, data)


def run(
    from_: str,
    to: str,
    *,
    kind: Kind | None,
    policy: str,
    model: str | None,
    source: str,
    report: Report,
    force: bool = False,
    session: str | None = None,
    output: Path | None = None,
) -> bytes | _Spool:
    """Convert ``source`` with :mod:`interlingua.conversion` and return the output bytes.

    Only reading, kind detection and printing live here; every decision (format check, decode,
    model, preflight with the policy, encode) is the Python API's, so both give the same result.

    Raises:
        _Fail: usage or unreadable input (exit 2); input that is not JSON, or not an object (exit 1).
        InterlinguaError: a refusal by the format check, preflight, policy or the codec.
    """
    _format(from_)
    _format(to)
    pol: Any = policy
    if to in STORED or to in AGENTS:
        from ..compat import WRITERS

        if to not in WRITERS:
            raise _Fail(2, f"{to} is read, not written; --to takes one of: {', '.join(WRITERS)}")
    if from_ in FRAMEWORKS or to in FRAMEWORKS:
        if from_ == CANONICAL and to in (*STORED, "otel", "pydantic-ai", "langchain"):  # a message list or a record holding it: window by window (ADR 0047)
            streamed = _stream_canonical(to, kind=kind, policy=pol, model=model, source=source, report=report, output=output, session=session)
            if streamed is not None:
                return streamed
        return _via_transcript(from_, to, kind=kind, policy=pol, model=model, source=source, report=report, force=force, session=session)
    if from_ == CANONICAL and kind is Kind.stream:
        raise _Fail(2, "--kind stream needs --from <provider>: a canonical transcript is not a stream")
    if from_ == CANONICAL:
        streamed = _stream_canonical(to, kind=kind, policy=pol, model=model, source=source, report=report, output=output, session=session)
        if streamed is not None:
            return streamed
    data = _read(source)
    if from_ == CANONICAL:
        from ..session_file import looks_like_session_file, read_conversation

        if not looks_like_session_file(data[:4096]):
            _json(data, "the transcript document")
        # A transcript document, or one session of a session file (`--session` picks it).
        try:
            transcript = read_conversation(data, session=session, label=_label(source))
        except DocumentError as exc:
            raise _with_format_hint(exc, data) from exc
        if to != CANONICAL and _canonical_kind(kind, transcript) is Kind.response:
            conv = convert_response(transcript, source=from_, target=to, model=model, policy=pol, report=report)
        else:  # canonical to canonical keeps the whole document (tools, metadata) whatever the kind
            conv = convert_request(transcript, source=from_, target=to, model=model, policy=pol, report=report)
        return _pretty(conv.value)
    if session is not None:
        raise _Fail(2, "--session picks a session of a session file: it needs --from canonical")
    if kind is Kind.stream or (kind is None and _is_stream(get_mapper(from_), source, data)):
        conv = convert_stream(data, source=from_, target=to, model=model, policy=pol, report=report)
        return _pretty(conv.value)
    body = _json(data, f"the {from_} {kind.value if kind else 'input'}")
    nbytes = len(data)
    del data  # not held while the body is converted
    if not isinstance(body, dict):
        raise _Fail(1, f"{_label(source)}: malformed {from_} input: expected a JSON object, got {type(body).__name__}{_not_a_body_hint(body, from_)}")
    if kind is not None:
        found = kind.value
    else:
        try:
            found = detect_kind(body, source=from_, force=force)
        except FormatMismatchError:
            raise
        except MappingError as exc:
            if "schema_version" in body and isinstance(body.get("items"), list):
                raise _Fail(1, f"{_label(source)}: {exc}; it is an interlingua transcript document: try --from canonical") from exc
            raise _Fail(1, f"{_label(source)}: {exc}; check --from, or pass --kind to say which it is") from exc
    with read_size(nbytes):  # so the limits check measures strings only when one can be over the limit
        if found == "request":
            conv = convert_request(body, source=from_, target=to, model=model, policy=pol, force=force, report=report)
        else:
            conv = convert_response(body, source=from_, target=to, model=model, policy=pol, force=force, report=report)
    return _pretty(conv.value)


def _via_transcript(
    from_: str, to: str, *, kind: Kind | None, policy: Any, model: str | None, source: str, report: Report, force: bool, session: str | None
) -> bytes:
    """A conversion with a framework format on one side: the source to a transcript, the transcript to the target."""
    from ..codec import decode_transcript, encode_transcript

    if from_ in FRAMEWORKS:
        if session is not None:
            raise _Fail(2, "--session picks a session of a session file: it needs --from canonical")
        value = None if from_ in AGENTS else _json(_read(source), f"the {from_} input")
        if from_ in AGENTS:
            transcript = _agent_input(from_, source, report)
        elif from_ == "otel":
            from ..otel import from_otel

            transcript = from_otel(value, report=report).value
        else:
            from ..compat import read

            if from_ in STORED and isinstance(value, list) and value and all(isinstance(v, dict) and ("mapping" in v or "chat_messages" in v or "conversations" in v) for v in value):
                if len(value) != 1:  # a conversations.json or a dataset file: one conversation per convert
                    raise _Fail(2, f"{_label(source)} holds {len(value)} conversations: convert reads one; use `interlingua migrate --from {from_}` for all")
                value = value[0]
            migrated = read(value, from_)
            report.extend(migrated.report)
            transcript = migrated.transcript
    else:  # canonical or a provider format: the usual path, to canonical
        doc = run(from_, CANONICAL, kind=kind, policy=policy, model=model, source=source, report=report, force=force, session=session)
        if isinstance(doc, _Spool):  # a document file read item by item: the whole transcript is needed here
            doc.fh.seek(0)
            text = doc.fh.read()
            doc.discard()
            doc = text
        transcript = decode_transcript(doc)
    if to == "otel":
        from ..otel import to_otel

        return _pretty(to_otel(transcript, policy=policy, report=report).value)
    if to in FRAMEWORKS:
        from ..compat import write

        return _pretty(write(transcript, to, policy=policy, report=report).value)
    if to == CANONICAL:
        return _pretty(msgspec.json.decode(encode_transcript(transcript)))
    as_response = (_canonical_kind(kind, transcript) if from_ == CANONICAL else kind) is Kind.response  # a span or history is a request unless told
    conv = (convert_response if as_response else convert_request)(transcript, source=CANONICAL, target=to, model=model, policy=policy, report=report)
    return _pretty(conv.value)


# --------------------------------------------------------------------------- command


def convert(
    from_: Annotated[str, typer.Option("--from", metavar="FORMAT", help="Source format: {formats}; or otel, pydantic-ai, langchain; or a stored conversation: vercel-ui, vercel-model, openai-finetune, sharegpt, llamafactory, hf-messages, chatgpt-export, claude-export; or an agent log or session: claude-code, codex, adk, mcp-sampling.", show_default=False)],
    to: Annotated[str, typer.Option("--to", metavar="FORMAT", help="Target format: {formats}; or otel, pydantic-ai, langchain, vercel-ui, vercel-model, openai-finetune, sharegpt.", show_default=False)],
    source: Annotated[str, typer.Argument(metavar="INPUT", help="Input file, or `-` for stdin (the default).", show_default=False)] = "-",
    kind: Annotated[
        Kind | None, typer.Option("--kind", help="What the input holds; detected when not given.", show_default=False)
    ] = None,
    policy: Annotated[PolicyChoice, typer.Option("--policy", help="What the target format or model cannot take: refuse, leave out or replace by a text marker (each reported).")] = PolicyChoice.error,
    model: Annotated[str | None, typer.Option("--model", help="Target model: capabilities for preflight, written in the body (default: the source's model when --from and --to are the same provider).")] = None,
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Write here instead of stdout (only on success).")] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Decode as --from even when the input plainly belongs to another format.")
    ] = False,
    session: Annotated[
        str | None, typer.Option("--session", metavar="ID", help="With --from canonical and a session file holding several sessions: the one to convert.", show_default=False)
    ] = None,
    dialect: Annotated[
        str | None,
        typer.Option(
            "--dialect", metavar="NAME",
            help=f"With --to openai-chat: the OpenAI-compatible host to write for ({', '.join(host_names())}); same as --to openai-chat:NAME.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Convert a request, response or recorded stream between formats.

    Exit codes: 0 converted, 1 refused (input of another format than --from, policy, capability) or
    malformed input, 2 usage error or unreadable input.
    """
    if source == "-":
        require_stdin("convert")
    if dialect is not None:
        if to != "openai-chat":
            typer.echo(f"error: --dialect needs --to openai-chat (got --to {to})", err=True)
            raise typer.Exit(2)
        to = f"openai-chat:{dialect}"
    if output is None:
        _convert(from_, to, source, kind, policy, model, output, force, session)
        return
    from .._migrate.file_sinks import _terminate_cleanly

    with _terminate_cleanly():  # SIGTERM/SIGHUP: the temporary output is removed
        _convert(from_, to, source, kind, policy, model, output, force, session)


_STREAM_HINT_LIMIT = 16 << 20  # bytes: a larger recording is not read again for a hint


def _other_stream_formats(source: str, from_: str) -> list[str]:
    """The registered formats (other than ``from_``) that read the recorded stream in ``source`` to
    its end (an OpenAI Chat stream is Mistral's too); none for stdin or a large file."""
    if source == "-":
        return []
    try:
        path = Path(source)
        if path.stat().st_size > _STREAM_HINT_LIMIT:
            return []
        data = path.read_bytes()
    except OSError:
        return []
    found: list[str] = []
    for name in available():
        if name == from_:
            continue
        try:
            convert_stream(data, source=name, target=CANONICAL, report=Report())
        except Exception:  # noqa: BLE001 - not this format's stream
            continue
        found.append(name)
    return found if len(found) <= 3 else []


def _convert(
    from_: str, to: str, source: str, kind: Kind | None, policy: PolicyChoice, model: str | None, output: Path | None, force: bool, session: str | None
) -> None:
    report = Report()
    try:
        data = run(from_, to, kind=kind, policy=policy.value, model=model, source=source, report=report, force=force, session=session, output=output)
    except _Fail as exc:
        _warn(report)
        typer.echo(f"error: {exc.message}", err=True)
        raise typer.Exit(exc.code) from None
    except FormatMismatchError as exc:  # before any decoding: the hint is the first line
        typer.echo(f"error: {_label(source)}: {exc}: try --from {exc.likely}, or --force to decode it as {exc.source}", err=True)
        raise typer.Exit(1) from None
    except StreamFailedError as exc:
        _warn(report)
        others = _other_stream_formats(source, from_) if not exc.events else []
        if others:  # nothing was read as --from's content, and another format reads it whole
            hint = f" (it reads as {_article(others[0])} {' or '.join(others)} stream: try {' or '.join('--from ' + o for o in others)})"
        elif exc.pointer:  # a malformed event: the message says where
            hint = ""
        elif exc.code not in ("truncated", "provider_error"):  # the provider's own error event: the format is right
            hint = " (an error event sent by the provider)"
        elif exc.events:  # the stream was read as this format up to the failure: a real cut or error line
            hint = f" (after {exc.events} content event(s) of the stream)"
        else:
            hint = f" (is it {_article(exc.format)} {exc.format} stream? check --from and --kind)"
        typer.echo(f"error: {_label(source)}: {exc}{hint}", err=True)
        raise typer.Exit(1) from None
    except SessionChoiceError as exc:  # the file may be valid: which session to take is a usage matter
        _warn(report)
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    except DocumentError as exc:
        _warn(report)
        if from_ == CANONICAL and source != "-":  # a file read item by item: read it again for the hint
            try:
                exc = _with_format_hint(exc, Path(source).read_bytes()) if any("schema_version" in p.message for p in exc.problems) else exc
            except OSError:
                pass
        if isinstance(exc, LimitError) and from_ != CANONICAL:  # the canonical form of provider input is over a limit
            typer.echo(f"error: {exc.located(file=_label(source))}", err=True)
        elif from_ != CANONICAL:  # provider input read into items that are not valid (bad base64 in a data URL): not a transcript the user gave
            typer.echo(f"error: {from_} input read into invalid items (pointers are into its canonical items): {exc.located(file=_label(source))}", err=True)
        else:
            typer.echo(f"error: invalid transcript: {exc}", err=True)
        raise typer.Exit(1) from None
    except CapabilityError as exc:
        _warn(report)
        typer.echo(f"error: {exc}", err=True)
        if model is None:
            typer.echo(f"hint: no --model given: preflight used the {to} defaults ({exc.model}); name the target model with --model", err=True)
        if policy is PolicyChoice.error:
            typer.echo("hint: --policy drop leaves out (--policy degrade marks) what the model cannot take, each reported; what no policy can fix stays refused", err=True)
        raise typer.Exit(1) from None
    except InterlinguaError as exc:
        _warn(report)
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    except RecursionError:
        _warn(report)
        typer.echo(f"error: {_label(source)}: /: nesting too deep", err=True)
        raise typer.Exit(1) from None
    _warn(report)
    try:
        if isinstance(data, _Spool):
            try:
                data.commit()
            finally:
                data.discard()
        else:
            _write(output, data)
    except BrokenPipeError:
        raise  # the reader of stdout went away (`| head`): the root command exits quietly
    except OSError as exc:
        typer.echo(f"error: cannot write {output or 'standard output'}: {exc.strerror or exc}", err=True)
        raise typer.Exit(2) from None



def _agent_input(from_: str, source: str, report: Report) -> Any:
    """The one conversation of an agent log or agent framework file (:mod:`._convert_agents`), or a
    :class:`_Fail`: exit 2 for several conversations or an unreadable file, 1 for input not of that format."""
    from . import _convert_agents

    try:
        return _convert_agents.read_agent_input(from_, source, _read(source) if source == "-" else None, report)
    except _convert_agents.SeveralConversations as exc:
        raise _Fail(2, f"{_label(source)}: {exc}") from None
    except OSError as exc:
        raise _Fail(2, f"cannot read {source}: {exc.strerror or exc}") from None
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise _Fail(1, f"the {from_} input is not JSON: {exc}") from None


def _canonical_kind(kind: Kind | None, transcript: Any) -> Kind:
    """``--kind`` for a canonical document, detected when left out: a document with ``response`` (the
    response's id and model, what ``convert --to canonical`` of a response body writes) holds a
    model's response; any other is a request (a conversation to send), a stored session too, whose
    ``usage`` and ``stop_reason`` are those of its last answer."""
    if kind is not None:
        return kind
    if getattr(transcript, "response", msgspec.UNSET) not in (msgspec.UNSET, None):
        return Kind.response
    return Kind.request

def _warn(report: Report) -> None:
    for line in report.lines():
        typer.echo(line, err=True)


def register(app: typer.Typer) -> None:
    """Add the ``convert`` command to ``app``."""
    app.command("convert")(convert)
