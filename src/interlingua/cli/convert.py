"""``interlingua convert``: one wire format to another, through the canonical form.

Usage::

    interlingua convert --from FMT --to FMT [--kind request|response|stream]
                        [--policy error|drop|degrade] [--model M] [--force] [INPUT] [-o OUT]

``FMT`` is ``canonical`` or a registered mapper name. This command is a thin shell over
:func:`interlingua.convert_request` / :func:`~interlingua.convert_response` /
:func:`~interlingua.convert_stream` (format check, decode, model rules, preflight with the
policy, encode), so it gives what the Python API gives for the same input. Here live only
reading the input, telling a stream from a JSON body, and printing.

Exit codes: 0 converted; 1 refused (the input plainly belongs to another format than
``--from`` -- the hint is the first line, ``--force`` decodes it anyway --, policy error,
capability violations, malformed input such as a body that is not JSON, invalid transcript, failed or
truncated stream); 2 usage error or unreadable input (unknown format, missing file). Report entries go to stderr as ``warning: ...`` lines; nothing is
written to ``-o`` unless the whole conversion succeeded.
"""

from __future__ import annotations

import enum
import os
import sys
import tempfile
from pathlib import Path
from typing import IO, Annotated, Any

import msgspec
import typer

from ..codec import _syntax_problem
from ..conversion import CANONICAL, convert_request, convert_response, convert_stream, detect_kind
from ..errors import DocumentError, FormatMismatchError, InterlinguaError, MappingError, StreamFailedError, UnknownFormatError
from ..mapping import Mapper, Report, available, get_mapper
from ..mapping.registry import is_known
from ._common import require_stdin

__all__ = ["CANONICAL", "convert", "register"]

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
    """Exit 2 when ``name`` is neither canonical nor a format that loads."""
    if name == CANONICAL:
        return
    if not is_known(name):
        raise _Fail(2, f"unknown format {name!r}; known: {', '.join([CANONICAL, *available()])}")
    try:
        get_mapper(name)
    except UnknownFormatError as exc:  # a plugin that fails to load
        raise _Fail(2, f"{exc}; known: {', '.join([CANONICAL, *available()])}") from exc


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
        raise _Fail(1, f"{what} is not JSON: {_syntax_problem(data, exc).message}") from exc
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
        what = exc if isinstance(exc, msgspec.ValidationError) else _syntax_problem(data, exc).message
        raise _Fail(1, f"{_label(source)} is not JSON (nor {_article(mapper.name)} {mapper.name} stream): {what}") from exc
    except RecursionError as exc:
        raise _Fail(1, f"{_label(source)}: /: nesting too deep") from exc
    return False


def _pretty(value: Any) -> bytes:
    return msgspec.json.format(msgspec.json.encode(value), indent=2) + b"\n"


def _write(out: Path | None, data: bytes) -> None:
    if out is None:
        stream = _binary(sys.stdout)
        stream.write(data)
        stream.flush()
        return
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent if str(out.parent) else ".")
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, out)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


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
) -> bytes:
    """Convert ``source`` with :mod:`interlingua.conversion` and return the output bytes.

    Only reading, kind detection and printing live here; every decision (format check, decode,
    model, preflight with the policy, encode) is the Python API's, so both give the same result.

    Raises:
        _Fail: usage, unreadable input, input that is not JSON where JSON is needed.
        InterlinguaError: a refusal by the format check, preflight, policy or the codec.
    """
    _format(from_)
    _format(to)
    pol: Any = policy
    if from_ == CANONICAL and kind is Kind.stream:
        raise _Fail(2, "--kind stream needs --from <provider>: a canonical transcript is not a stream")
    data = _read(source)
    if from_ == CANONICAL:
        from ..session_file import looks_like_session_file, read_conversation

        if not looks_like_session_file(data[:4096]):
            _json(data, "the transcript document")
        # A transcript document, or one session of a session file (`--session` picks it).
        transcript = read_conversation(data, session=session, label=_label(source))
        if kind is Kind.response and to != CANONICAL:
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
    if not isinstance(body, dict):
        raise _Fail(1, f"malformed {from_} input: expected a JSON object, got {type(body).__name__}")
    if kind is not None:
        found = kind.value
    else:
        try:
            found = detect_kind(body, source=from_, force=force)
        except FormatMismatchError:
            raise
        except MappingError as exc:
            raise _Fail(1, f"{_label(source)}: {exc}; check --from, or pass --kind to say which it is") from exc
    if found == "request":
        conv = convert_request(body, source=from_, target=to, model=model, policy=pol, force=force, report=report)
    else:
        conv = convert_response(body, source=from_, target=to, model=model, policy=pol, force=force, report=report)
    return _pretty(conv.value)


# --------------------------------------------------------------------------- command


def convert(
    from_: Annotated[str, typer.Option("--from", metavar="FORMAT", help="Source format: {formats}.", show_default=False)],
    to: Annotated[str, typer.Option("--to", metavar="FORMAT", help="Target format: {formats}.", show_default=False)],
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
            help="With --to openai-chat: the OpenAI-compatible host to write for (groq, together, fireworks, xai, cerebras, deepseek, "
            "openrouter, vllm, lmstudio, llamacpp, huggingface, zai, kimi, ollama); same as --to openai-chat:NAME.",
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
    report = Report()
    try:
        data = run(from_, to, kind=kind, policy=policy.value, model=model, source=source, report=report, force=force, session=session)
    except _Fail as exc:
        _warn(report)
        typer.echo(f"error: {exc.message}", err=True)
        raise typer.Exit(exc.code) from None
    except FormatMismatchError as exc:  # before any decoding: the hint is the first line
        typer.echo(f"error: {_label(source)}: {exc}: try --from {exc.likely}, or --force to decode it as {exc.source}", err=True)
        raise typer.Exit(1) from None
    except StreamFailedError as exc:
        _warn(report)
        if exc.pointer:  # a malformed event: the message says where
            hint = ""
        elif exc.code not in ("truncated", "provider_error"):  # the provider's own error event: the format is right
            hint = " (an error event sent by the provider)"
        else:
            hint = f" (is it {_article(exc.format)} {exc.format} stream? check --from and --kind)"
        typer.echo(f"error: {exc}{hint}", err=True)
        raise typer.Exit(1) from None
    except DocumentError as exc:
        _warn(report)
        typer.echo(f"error: invalid transcript: {exc}", err=True)
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
        _write(output, data)
    except BrokenPipeError:
        raise  # the reader of stdout went away (`| head`): the root command exits quietly
    except OSError as exc:
        typer.echo(f"error: cannot write {output}: {exc.strerror or exc}", err=True)
        raise typer.Exit(2) from None


def _warn(report: Report) -> None:
    for line in report.lines():
        typer.echo(line, err=True)


def register(app: typer.Typer) -> None:
    """Add the ``convert`` command to ``app``."""
    app.command("convert")(convert)
