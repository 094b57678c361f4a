"""``interlingua replay``: send a transcript to a provider and print what the model answers.

Usage::

    interlingua replay TRANSCRIPT --provider P --model M [--base-url URL] [--no-stream]
                       [--policy error|drop|degrade] [--fixture FILE] [--record FILE]
                       [--store URL --session ID]
                       [--connect-timeout S] [--read-timeout S] [--idle-timeout S] [--deadline S]

``TRANSCRIPT`` is a transcript document (``-`` for stdin). The output items are
printed to stdout as a transcript document (with usage and stop reason). While a
response streams, its text is shown live on stderr when stderr is a terminal.
``--fixture`` answers from a recorded fixture instead of the network (no API key
needed);
``--record`` writes the exchange to a fixture (credentials redacted; see
``docs/replay.md``). The API key comes from the provider's usual environment
variable, never from the command line. With ``--store URL --session ID`` the
output items are appended to that stored session (with usage and stop reason)
instead of printed; the session must exist, and if another writer moved its head
during the call the append fails with a conflict. The timeouts are in seconds
(``Timeouts`` in ``interlingua.transport``): ``--deadline`` bounds the whole call,
retries included.

Exit codes: 0 answered; 1 the call failed (``error: CODE: message`` with the
normalized transport error code), the model cannot take the transcript, or the
transcript is invalid; 2 usage error or unreadable input.
"""

from __future__ import annotations

import asyncio
import functools
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any

import httpx
import typer

from ..codec import decode_transcript, encode_transcript
from ..errors import DocumentError, InterlinguaError, MappingError, TransportError
from ..items import Transcript
from ..mapping import ModelResponse
from ..streaming import StreamDone, StreamError, TextDelta
from ._common import require_stdin
from .convert import PolicyChoice

__all__ = ["register", "replay"]


class _Fail(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _read(source: str) -> Transcript:
    try:
        data = sys.stdin.buffer.read() if source == "-" else Path(source).read_bytes()
    except OSError as exc:
        raise _Fail(2, f"cannot read {source}: {exc.strerror or exc}") from None
    try:
        return decode_transcript(data)
    except DocumentError as exc:
        raise _Fail(1, f"invalid transcript: {exc.located(file=source)}") from None


async def _call(
    transcript: Transcript,
    *,
    provider: str,
    model: str,
    base_url: str | None,
    stream: bool,
    policy: str,
    fixture: Path | None,
    record: Path | None,
    live: bool,
    timeouts: Any = None,
) -> ModelResponse:
    from ..transport import PROVIDERS, Client, RecordingTransport, ReplayTransport, Timeouts

    transport: httpx.AsyncBaseTransport | None = None
    key = None
    if fixture is not None:
        transport = ReplayTransport(fixture)
        # Replaying needs no real key (CI without secrets); one from the environment is still used.
        key = next((os.environ[v] for v in PROVIDERS[provider].env_vars if os.environ.get(v)), "replay-without-key")
    if record is not None:
        transport = RecordingTransport(record, transport)
    async with Client(provider, api_key=key, base_url=base_url, transport=transport, timeouts=timeouts or Timeouts()) as client:
        generation = client.generate(transcript, model=model, stream=stream, policy=policy)  # type: ignore[arg-type]
        for line in generation.report.lines():
            typer.echo(line, err=True)
        if not stream:
            return await generation
        shown = False
        async for event in generation:
            if isinstance(event, TextDelta) and live:
                sys.stderr.write(event.text)
                sys.stderr.flush()
                shown = True
            elif isinstance(event, StreamDone):
                if shown:
                    sys.stderr.write("\n")
                for line in event.report.lines():
                    typer.echo(line, err=True)
                return event.response  # type: ignore[return-value]
            elif isinstance(event, StreamError):
                if shown:
                    sys.stderr.write("\n")
                err = event.error
                raise TransportError(code=str(err.code), message=err.message, provider=provider)
    raise AssertionError("stream ended without a terminal event")  # pragma: no cover


async def _call_and_append(call: Callable[[], Awaitable[ModelResponse]], url: str, session_id: str) -> tuple[int, int]:
    """Check the session exists, call the model, append its output where the head was.

    The head is read before the call and passed as ``expected_seq``, so a session that
    moved meanwhile fails with a conflict instead of interleaving.
    """
    from ..store import SessionStore

    async with await SessionStore.open(url) as store:
        head = await store.head(session_id)
        response = await call()
        new_head = await store.append(session_id, response.items, head, usage=response.usage, stop_reason=response.stop_reason)
    return len(response.items), new_head


def replay(
    transcript: Annotated[str, typer.Argument(metavar="TRANSCRIPT", help="Transcript document, or `-` for stdin.")],
    provider: Annotated[str, typer.Option("--provider", metavar="FORMAT", help="Wire format / provider: {mappers}.", show_default=False)],
    model: Annotated[str, typer.Option("--model", help="Model to call.", show_default=False)],
    base_url: Annotated[str | None, typer.Option("--base-url", help="API root (OpenAI-compatible server, proxy, local Ollama).")] = None,
    no_stream: Annotated[bool, typer.Option("--no-stream", help="Ask for the whole response at once.")] = False,
    policy: Annotated[PolicyChoice, typer.Option("--policy", help="Content the target cannot carry: refuse, drop or degrade.")] = PolicyChoice.error,
    fixture: Annotated[Path | None, typer.Option("--fixture", help="Answer from this recorded fixture instead of the network.")] = None,
    record: Annotated[Path | None, typer.Option("--record", help="Append the exchange to this fixture file (credentials redacted).")] = None,
    store: Annotated[str | None, typer.Option("--store", help="Session store URL; append the output to --session instead of printing.")] = None,
    session: Annotated[str | None, typer.Option("--session", help="Session id in --store.")] = None,
    connect_timeout: Annotated[float, typer.Option("--connect-timeout", help="Seconds to establish a connection (each attempt).")] = 30.0,
    read_timeout: Annotated[float, typer.Option("--read-timeout", help="Seconds without a byte of a non-stream response.")] = 30.0,
    idle_timeout: Annotated[float, typer.Option("--idle-timeout", help="Seconds without stream data before the call ends with `timeout` (never retried).")] = 60.0,
    deadline: Annotated[float | None, typer.Option("--deadline", help="Seconds for the whole call, retries included (default: no bound).", show_default=False)] = None,
) -> None:
    """Send TRANSCRIPT to a model and print the output items as a transcript document.

    Exit codes: 0 answered, 1 failed call (normalized error code) or refused transcript, 2 usage error.
    """
    from ..mapping import available

    if transcript == "-":
        require_stdin("replay", "TRANSCRIPT")
    try:
        if (store is None) != (session is None):
            raise _Fail(2, "--store and --session go together")
        if store is not None:
            try:
                import interlingua.store  # noqa: F401
            except ImportError:
                raise _Fail(2, "--store needs the session store (interlingua.store), which is not in this build") from None
        if provider not in available():
            raise _Fail(2, f"unknown provider {provider!r}; known: {', '.join(available())}")
        if fixture is not None and not fixture.is_file():
            raise _Fail(2, f"cannot read fixture {fixture}")
        timeouts = _timeouts(connect_timeout, read_timeout, idle_timeout, deadline)
        doc = _read(transcript)
        call = functools.partial(
            _call,
            doc,
            provider=provider,
            model=model,
            base_url=base_url,
            stream=not no_stream,
            policy=policy.value,
            fixture=fixture,
            record=record,
            live=sys.stderr.isatty(),
            timeouts=timeouts,
        )
        if store is not None and session is not None:
            count, head = asyncio.run(_call_and_append(call, store, session))
            typer.echo(f"appended {count} item(s) to session {session} (head {head})", err=True)
            return
        response = asyncio.run(call())
    except _Fail as exc:
        typer.echo(f"error: {exc.message}", err=True)
        raise typer.Exit(exc.code) from None
    except TransportError as exc:
        typer.echo(f"error: {exc.code}: {exc.message}", err=True)
        raise typer.Exit(1) from None
    except (MappingError, InterlinguaError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    sys.stdout.buffer.write(encode_transcript(response.to_transcript(), indent=2) + b"\n")
    sys.stdout.flush()


def _timeouts(connect: float, read: float, idle: float, deadline: float | None) -> Any:
    """The ``Timeouts`` of the timeout flags (seconds); a value that is not positive is a usage error."""
    from ..transport import Timeouts

    try:
        return Timeouts(connect=connect, read=read, idle=idle, deadline=deadline)
    except ValueError as exc:
        flag = str(exc).split(" ", 1)[0].removeprefix("Timeouts.")
        name = {"connect": "--connect-timeout", "read": "--read-timeout", "idle": "--idle-timeout", "deadline": "--deadline"}.get(flag, flag)
        raise _Fail(2, f"{name} must be a positive number of seconds") from None


def register(app: typer.Typer) -> None:
    """Add the ``replay`` command to ``app``."""
    app.command("replay")(replay)
