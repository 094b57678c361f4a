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
reading the input, telling a stream from a JSON body, and printing: the formats and kinds in
:mod:`._convert_formats`, input and output in :mod:`._convert_io`, the item-by-item canonical path in
:mod:`._convert_canonical`.

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

from pathlib import Path
from typing import Annotated, Any

import msgspec
import typer

from ..conversion import CANONICAL, convert_request, convert_response, convert_stream, detect_kind, read_size
from ..errors import CapabilityError, DocumentError, FormatMismatchError, InterlinguaError, LimitError, MappingError, SessionChoiceError, StreamFailedError
from ..hosts import host_names
from ..mapping import Report, available, get_mapper
from ._common import require_regular_input, require_stdin
from ._convert_canonical import stream_canonical
from ._convert_formats import AGENTS, FRAMEWORKS, STORED, Fail, Kind, PolicyChoice, canonical_kind, check_format
from ._convert_io import Spool, article, decode_json, is_stream, pretty, read_input, source_label, write_output

__all__ = ["AGENTS", "CANONICAL", "FRAMEWORKS", "STORED", "Kind", "PolicyChoice", "convert", "register"]


# --------------------------------------------------------------------------- steps




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
        + (f" (it looks like {article(found)} {found} message list)" if found and found != from_ else "")
    )


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
) -> bytes | Spool:
    """Convert ``source`` with :mod:`interlingua.conversion` and return the output bytes.

    Only reading, kind detection and printing live here; every decision (format check, decode,
    model, preflight with the policy, encode) is the Python API's, so both give the same result.

    Raises:
        Fail: usage or unreadable input (exit 2); input that is not JSON, or not an object (exit 1).
        InterlinguaError: a refusal by the format check, preflight, policy or the codec.
    """
    check_format(from_)
    check_format(to)
    pol: Any = policy
    if to in STORED or to in AGENTS:
        from ..compat import WRITERS

        if to not in WRITERS:
            raise Fail(2, f"{to} is read, not written; --to takes one of: {', '.join(WRITERS)}")
    if from_ in FRAMEWORKS or to in FRAMEWORKS:
        if from_ == CANONICAL and to in (*STORED, "otel", "pydantic-ai", "langchain"):  # a message list or a record holding it: window by window (ADR 0047)
            streamed = stream_canonical(to, kind=kind, policy=pol, model=model, source=source, report=report, output=output, session=session)
            if streamed is not None:
                return streamed
        return _via_transcript(from_, to, kind=kind, policy=pol, model=model, source=source, report=report, force=force, session=session)
    if from_ == CANONICAL and kind is Kind.stream:
        raise Fail(2, "--kind stream needs --from <provider>: a canonical transcript is not a stream")
    if from_ == CANONICAL:
        streamed = stream_canonical(to, kind=kind, policy=pol, model=model, source=source, report=report, output=output, session=session)
        if streamed is not None:
            return streamed
    data = read_input(source)
    if from_ == CANONICAL:
        from ..session_file import looks_like_session_file, read_conversation

        if not looks_like_session_file(data[:4096]):
            decode_json(data, "the transcript document")
        # A transcript document, or one session of a session file (`--session` picks it).
        try:
            transcript = read_conversation(data, session=session, label=source_label(source))
        except DocumentError as exc:
            raise _with_format_hint(exc, data) from exc
        if to != CANONICAL and canonical_kind(kind, transcript) is Kind.response:
            conv = convert_response(transcript, source=from_, target=to, model=model, policy=pol, report=report)
        else:  # canonical to canonical keeps the whole document (tools, metadata) whatever the kind
            conv = convert_request(transcript, source=from_, target=to, model=model, policy=pol, report=report)
        return pretty(conv.value)
    if session is not None:
        raise Fail(2, "--session picks a session of a session file: it needs --from canonical")
    if kind is Kind.stream or (kind is None and is_stream(get_mapper(from_), source, data)):
        conv = convert_stream(data, source=from_, target=to, model=model, policy=pol, report=report)
        return pretty(conv.value)
    body = decode_json(data, f"the {from_} {kind.value if kind else 'input'}")
    nbytes = len(data)
    del data  # not held while the body is converted
    if not isinstance(body, dict):
        raise Fail(1, f"{source_label(source)}: malformed {from_} input: expected a JSON object, got {type(body).__name__}{_not_a_body_hint(body, from_)}")
    if kind is not None:
        found = kind.value
    else:
        try:
            found = detect_kind(body, source=from_, force=force)
        except FormatMismatchError:
            raise
        except MappingError as exc:
            if "schema_version" in body and isinstance(body.get("items"), list):
                raise Fail(1, f"{source_label(source)}: {exc}; it is an interlingua transcript document: try --from canonical") from exc
            raise Fail(1, f"{source_label(source)}: {exc}; check --from, or pass --kind to say which it is") from exc
    with read_size(nbytes):  # so the limits check measures strings only when one can be over the limit
        if found == "request":
            conv = convert_request(body, source=from_, target=to, model=model, policy=pol, force=force, report=report)
        else:
            conv = convert_response(body, source=from_, target=to, model=model, policy=pol, force=force, report=report)
    return pretty(conv.value)


def _via_transcript(
    from_: str, to: str, *, kind: Kind | None, policy: Any, model: str | None, source: str, report: Report, force: bool, session: str | None
) -> bytes:
    """A conversion with a framework format on one side: the source to a transcript, the transcript to the target."""
    from ..codec import decode_transcript, encode_transcript

    if from_ in FRAMEWORKS:
        if session is not None:
            raise Fail(2, "--session picks a session of a session file: it needs --from canonical")
        value = None if from_ in AGENTS else decode_json(read_input(source), f"the {from_} input")
        if from_ in AGENTS:
            transcript = _agent_input(from_, source, report)
        elif from_ == "otel":
            from ..otel import from_otel

            transcript = from_otel(value, report=report).value
        else:
            from ..compat import read

            if from_ in STORED and isinstance(value, list) and value and all(isinstance(v, dict) and ("mapping" in v or "chat_messages" in v or "conversations" in v) for v in value):
                if len(value) != 1:  # a conversations.json or a dataset file: one conversation per convert
                    raise Fail(2, f"{source_label(source)} holds {len(value)} conversations: convert reads one; use `interlingua migrate --from {from_}` for all")
                value = value[0]
            migrated = read(value, from_)
            report.extend(migrated.report)
            transcript = migrated.transcript
    else:  # canonical or a provider format: the usual path, to canonical
        doc = run(from_, CANONICAL, kind=kind, policy=policy, model=model, source=source, report=report, force=force, session=session)
        if isinstance(doc, Spool):  # a document file read item by item: the whole transcript is needed here
            doc.fh.seek(0)
            text = doc.fh.read()
            doc.discard()
            doc = text
        transcript = decode_transcript(doc)
    if to == "otel":
        from ..otel import to_otel

        return pretty(to_otel(transcript, policy=policy, report=report).value)
    if to in FRAMEWORKS:
        from ..compat import write

        return pretty(write(transcript, to, policy=policy, report=report).value)
    if to == CANONICAL:
        return pretty(msgspec.json.decode(encode_transcript(transcript)))
    as_response = (canonical_kind(kind, transcript) if from_ == CANONICAL else kind) is Kind.response  # a span or history is a request unless told
    conv = (convert_response if as_response else convert_request)(transcript, source=CANONICAL, target=to, model=model, policy=policy, report=report)
    return pretty(conv.value)


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
    require_regular_input(source, "convert")
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
    except Fail as exc:
        _warn(report)
        typer.echo(f"error: {exc.message}", err=True)
        raise typer.Exit(exc.code) from None
    except FormatMismatchError as exc:  # before any decoding: the hint is the first line
        typer.echo(f"error: {source_label(source)}: {exc}: try --from {exc.likely}, or --force to decode it as {exc.source}", err=True)
        raise typer.Exit(1) from None
    except StreamFailedError as exc:
        _warn(report)
        others = _other_stream_formats(source, from_) if not exc.events else []
        if others:  # nothing was read as --from's content, and another format reads it whole
            hint = f" (it reads as {article(others[0])} {' or '.join(others)} stream: try {' or '.join('--from ' + o for o in others)})"
        elif exc.pointer:  # a malformed event: the message says where
            hint = ""
        elif exc.code not in ("truncated", "provider_error"):  # the provider's own error event: the format is right
            hint = " (an error event sent by the provider)"
        elif exc.events:  # the stream was read as this format up to the failure: a real cut or error line
            hint = f" (after {exc.events} content event(s) of the stream)"
        else:
            hint = f" (is it {article(exc.format)} {exc.format} stream? check --from and --kind)"
        typer.echo(f"error: {source_label(source)}: {exc}{hint}", err=True)
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
            typer.echo(f"error: {exc.located(file=source_label(source))}", err=True)
        elif from_ != CANONICAL:  # provider input read into items that are not valid (bad base64 in a data URL): not a transcript the user gave
            typer.echo(f"error: {from_} input read into invalid items (pointers are into its canonical items): {exc.located(file=source_label(source))}", err=True)
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
        typer.echo(f"error: {source_label(source)}: /: nesting too deep", err=True)
        raise typer.Exit(1) from None
    _warn(report)
    try:
        if isinstance(data, Spool):
            try:
                data.commit()
            finally:
                data.discard()
        else:
            write_output(output, data)
    except BrokenPipeError:
        raise  # the reader of stdout went away (`| head`): the root command exits quietly
    except OSError as exc:
        typer.echo(f"error: cannot write {output or 'standard output'}: {exc.strerror or exc}", err=True)
        raise typer.Exit(2) from None


def _agent_input(from_: str, source: str, report: Report) -> Any:
    """The one conversation of an agent log or agent framework file (:mod:`._convert_agents`), or a
    :class:`Fail`: exit 2 for several conversations or an unreadable file, 1 for input not of that format."""
    from . import _convert_agents

    try:
        return _convert_agents.read_agent_input(from_, source, read_input(source) if source == "-" else None, report)
    except _convert_agents.SeveralConversations as exc:
        raise Fail(2, f"{source_label(source)}: {exc}") from None
    except OSError as exc:
        raise Fail(2, f"cannot read {source}: {exc.strerror or exc}") from None
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise Fail(1, f"the {from_} input is not JSON: {exc}") from None


def _warn(report: Report) -> None:
    for line in report.lines():
        typer.echo(line, err=True)


def register(app: typer.Typer) -> None:
    """Add the ``convert`` command to ``app``."""
    app.command("convert")(convert)
