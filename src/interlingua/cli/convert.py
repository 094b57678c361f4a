"""``interlingua convert``: one wire format to another, through the canonical form.

Usage::

    interlingua convert --from FMT --to FMT [--kind request|response|stream]
                        [--policy error|drop|degrade] [--model M] [INPUT] [-o OUT]

``FMT`` is ``canonical`` or a registered mapper name. Provider to provider goes
through canonical (decode, then encode; both reports are printed). Before a
request body is encoded for a provider, the transcript is preflighted against
the capabilities resolved for ``--model`` (table, then mapper defaults).

Exit codes: 0 converted; 1 refused (policy error, capability violations,
malformed input such as a body that is not JSON, invalid transcript, failed or
truncated stream); 2 usage error or unreadable input (unknown format, missing
file). Report entries go to stderr as ``warning: ...`` lines; nothing is
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

from ..capabilities import preflight, resolve
from ..codec import _syntax_problem, decode_transcript, encode_transcript
from ..errors import DocumentError, InterlinguaError, UnknownFormatError
from ..items import Transcript
from ..mapping import Mapper, ModelResponse, Report, available, get_mapper
from ..mapping.registry import BUILTIN
from ..streaming import StreamDone, StreamError, iter_stream
from ._common import require_stdin

__all__ = ["CANONICAL", "convert", "register"]

CANONICAL = "canonical"
_STREAM_SUFFIXES = (".sse", ".ndjson")
_MALFORMED = (KeyError, TypeError, ValueError, AttributeError, IndexError, msgspec.ValidationError)


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


def _format(name: str) -> Mapper | None:
    """``None`` for canonical, else the mapper (exit 2 when unknown or not built in)."""
    if name == CANONICAL:
        return None
    if name not in available():
        raise _Fail(2, f"unknown format {name!r}; known: {', '.join([CANONICAL, *available()])}")
    try:
        return get_mapper(name)
    except UnknownFormatError as exc:
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


def _body(data: bytes, fmt: str, kind: str) -> dict[str, Any]:
    body = _json(data, f"the {fmt} {kind} input")
    if not isinstance(body, dict):
        raise _Fail(1, f"malformed {fmt} {kind} body: expected a JSON object, got {type(body).__name__}")
    return body


def _article(name: str) -> str:
    return "an" if name[:1] in "aeiou" else "a"


def _looks_like(body: Any) -> str | None:
    """The provider format a request body's shape suggests (``None`` when unsure or not a provider)."""
    from ..compat import detect_format

    try:
        found = detect_format(body)
    except InterlinguaError:
        return None
    return found if found in available() else None


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


def _detect(mapper: Mapper, source: str, data: bytes) -> tuple[Kind, dict[str, Any] | None]:
    """Kind of a provider input: a ``.sse``/``.ndjson`` file, or input shaped like the mapper's
    stream framing, is a stream; anything else must be one JSON body (else: invalid JSON, located)."""
    if source != "-" and source.lower().endswith(_STREAM_SUFFIXES):
        return Kind.stream, None
    try:
        body = msgspec.json.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        if _looks_like_stream(mapper, data):
            return Kind.stream, None
        what = exc if isinstance(exc, msgspec.ValidationError) else _syntax_problem(data, exc).message
        raise _Fail(1, f"{_label(source)} is not JSON (nor {_article(mapper.name)} {mapper.name} stream): {what}") from exc
    except RecursionError as exc:
        raise _Fail(1, f"{_label(source)}: /: nesting too deep") from exc
    if not isinstance(body, dict):
        raise _Fail(1, f"malformed {mapper.name} input: expected a JSON object, got {type(body).__name__}")
    found = mapper.kind_of(body)
    if found is None:
        hint = _looks_like(body)
        guess = f"; it looks like {_article(hint)} {hint} request: try --from {hint}" if hint and hint != mapper.name else "; check --from, or pass --kind to say which it is"
        keys = ", ".join(sorted(body)[:8])
        raise _Fail(1, f"{_label(source)}: not {_article(mapper.name)} {mapper.name} request or response body (top-level keys: {keys}){guess}")
    return Kind(found), body


def _decode_provider(mapper: Mapper, kind: Kind, data: bytes, body: dict[str, Any] | None, report: Report) -> Transcript | ModelResponse:
    if kind is Kind.stream:
        last = None
        for last in iter_stream(mapper, data):
            pass
        if isinstance(last, StreamError):
            if last.pointer is not None:  # a malformed event: say where, not a guess about the format
                raise _Fail(1, f"the {mapper.name} stream failed: {last.error.code}: {last.error.message} (at {last.pointer})")
            raise _Fail(1, f"the {mapper.name} stream failed: {last.error.code}: {last.error.message} (is it {_article(mapper.name)} {mapper.name} stream? check --from and --kind)")
        if not isinstance(last, StreamDone) or not isinstance(last.response, ModelResponse):
            raise _Fail(1, f"the {mapper.name} stream ended without a result")
        report.extend(last.report)
        return last.response
    if body is None:
        body = _body(data, mapper.name, kind.value)
    try:
        if kind is Kind.request:
            conv_t = mapper.decode_request(body)
            report.extend(conv_t.report)
            return conv_t.value
        conv_r = mapper.decode_response(body)
        report.extend(conv_r.report)
        return conv_r.value
    except InterlinguaError:
        raise
    except _MALFORMED as exc:
        raise _Fail(1, f"malformed {mapper.name} {kind.value} body: {type(exc).__name__}: {exc}") from exc


def _decode_canonical(data: bytes, kind: Kind) -> Transcript | ModelResponse:
    _json(data, "the transcript document")
    transcript = decode_transcript(data)
    if kind is Kind.request:
        return transcript
    return ModelResponse.from_transcript(transcript)


def _encode(
    target: Mapper | None, to: str, value: Transcript | ModelResponse, *, model: str | None, policy: str, report: Report
) -> bytes:
    if target is None:
        transcript = value.to_transcript() if isinstance(value, ModelResponse) else value
        return encode_transcript(transcript, indent=2) + b"\n"
    if isinstance(value, Transcript):
        resolution = resolve(to, model, mapper=target)
        if model and resolution.source == "mapper" and to in BUILTIN:
            report.add("changed", f"model {model!r} is not in the model table; preflight used the {to} defaults (see docs/capabilities.md)")
        preflight(value, resolution.capabilities, model=model, provider=to)
        conv = target.encode_request(value, model=model, policy=policy)  # type: ignore[arg-type]
    else:
        conv = target.encode_response(value, model=model, policy=policy)  # type: ignore[arg-type]
    report.extend(conv.report)
    return msgspec.json.format(msgspec.json.encode(conv.value), indent=2) + b"\n"


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
    from_: str, to: str, *, kind: Kind | None, policy: str, model: str | None, source: str, report: Report
) -> bytes:
    """Convert ``source`` and return the output bytes; report entries are added to ``report``.

    Raises:
        _Fail: usage, unreadable input, malformed input, failed stream.
        InterlinguaError: a refusal by preflight, policy or the codec.
    """
    src = _format(from_)
    dst = _format(to)
    if src is None and kind is Kind.stream:
        raise _Fail(2, "--kind stream needs --from <provider>: a canonical transcript is not a stream")
    data = _read(source)
    value: Transcript | ModelResponse
    if src is None:
        # Canonical to canonical keeps the whole document (tools, metadata) whatever the kind.
        value = _decode_canonical(data, Kind.request if dst is None else kind or Kind.request)
    else:
        body = None
        if kind is None:
            kind, body = _detect(src, source, data)
        value = _decode_provider(src, kind, data, body, report)
        if kind is Kind.request and report and body is not None and src.name in BUILTIN:
            hint = _looks_like(body)
            if hint and hint != src.name:
                report.add("changed", f"{_label(source)} looks like {_article(hint)} {hint} request, decoded as {src.name} as asked; check --from")
    return _encode(dst, to, value, model=model, policy=policy, report=report)


# --------------------------------------------------------------------------- command


def convert(
    from_: Annotated[str, typer.Option("--from", metavar="FORMAT", help="Source format: {formats}.", show_default=False)],
    to: Annotated[str, typer.Option("--to", metavar="FORMAT", help="Target format: {formats}.", show_default=False)],
    source: Annotated[str, typer.Argument(metavar="INPUT", help="Input file, or `-` for stdin (the default).", show_default=False)] = "-",
    kind: Annotated[
        Kind | None, typer.Option("--kind", help="What the input holds; detected when not given.", show_default=False)
    ] = None,
    policy: Annotated[PolicyChoice, typer.Option("--policy", help="Content the target cannot carry: refuse, drop or degrade.")] = PolicyChoice.error,
    model: Annotated[str | None, typer.Option("--model", help="Target model (capabilities for preflight; set in the request).")] = None,
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Write here instead of stdout (only on success).")] = None,
) -> None:
    """Convert a request, response or recorded stream between formats.

    Exit codes: 0 converted, 1 refused or malformed input, 2 usage error or unreadable input.
    """
    if source == "-":
        require_stdin("convert")
    report = Report()
    try:
        data = run(from_, to, kind=kind, policy=policy.value, model=model, source=source, report=report)
    except _Fail as exc:
        _warn(report)
        typer.echo(f"error: {exc.message}", err=True)
        raise typer.Exit(exc.code) from None
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
