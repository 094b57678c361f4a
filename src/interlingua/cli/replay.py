"""``interlingua replay``: send a transcript to a provider and print what the model answers.

Usage::

    interlingua replay TRANSCRIPT --provider P --model M [--base-url URL] [--stream|--no-stream]
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

from ..codec import encode_transcript
from ..errors import DocumentError, InterlinguaError, MappingError, SessionChoiceError, TransportError
from ..items import Settings, Transcript
from ..mapping import ModelResponse, Report
from ..streaming import StreamDone, StreamError, TextDelta
from ._common import require_regular_input, require_stdin
from .convert import PolicyChoice

__all__ = ["register", "replay"]


class _Fail(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _read(source: str, session: str | None, *, stored: bool) -> Transcript:
    """A transcript document or one session of a session file (``session`` picks it; with
    ``stored``, ``session`` names the stored session the output goes to, and picks only from a
    session file)."""
    from ..session_file import looks_like_session_file, read_conversation

    try:
        data = sys.stdin.buffer.read() if source == "-" else Path(source).read_bytes()
    except OSError as exc:
        raise _Fail(2, f"cannot read {source}: {exc.strerror or exc}") from None
    if stored and not looks_like_session_file(data[:4096]):
        session = None
    try:
        return read_conversation(data, session=session, label=source if source != "-" else "<stdin>")
    except SessionChoiceError as exc:  # the file may be valid: which session to take is a usage matter
        raise _Fail(2, str(exc)) from None
    except DocumentError as exc:
        raise _Fail(1, f"invalid transcript: {exc}") from None


def _warn_if_answered(doc: Transcript) -> None:
    """For ``--store``: a stored session whose last item is the model's own text has been answered;
    sending it again makes the model continue that text (Anthropic calls it a prefill) and appends a
    second answer, which is rarely what a second ``replay --store`` meant; say so on stderr (the
    call still goes out)."""
    from ..items import RefusalItem, TextItem

    last = doc.items[-1] if doc.items else None
    if isinstance(last, RefusalItem) or (isinstance(last, TextItem) and last.role == "assistant"):
        typer.echo(
            f"warning: the conversation ends with the model's answer (item {len(doc.items) - 1}): the model will continue it; "
            "append a user turn to ask something new",
            err=True,
        )


def _load_fixture(path: Path) -> list[dict[str, Any]]:
    """The fixture's exchanges, checked before anything is sent; a file that is not a fixture is a
    usage error (exit 2) naming the file, the line and what a fixture is."""
    from ..errors import TransportError
    from ..transport import load_fixture

    try:
        return load_fixture(path)
    except TransportError as exc:
        raise _Fail(2, f"{path}: not a replay fixture: {exc.message} (a fixture is a JSON Lines file of exchanges written by `replay --record`; see docs/replay.md)") from None
    except OSError as exc:
        raise _Fail(2, f"cannot read fixture {path}: {exc.strerror or exc}") from None


def _check_base_url(base_url: str) -> None:
    """``--base-url`` must be an http(s) URL with a host (the rule of ``check_config``); else exit 2 saying so."""
    from ..transport import redact
    from ..transport._calls import url_parts

    if not url_parts(base_url)[0]:
        raise _Fail(2, f"--base-url {redact(base_url, (), kind='url')!r} is not an http(s) URL with a host and a port from 1 to 65535 if any (e.g. http://127.0.0.1:8000/v1)")


def _default_stream(settings: Settings, exchanges: list[dict[str, Any]] | None) -> bool:
    """Stream or not when no flag says: as the recorded fixture's first exchange was made (its response
    a stream or a whole body), else as the conversation's settings say (``stream: false``: whole),
    else streamed."""
    if exchanges:
        response = exchanges[0].get("response")
        headers = response.get("headers") if isinstance(response, dict) else None
        if isinstance(headers, dict):
            media = str(next((v for k, v in headers.items() if str(k).lower() == "content-type"), "")).split(";", 1)[0].strip().lower()
            if media:
                return media in ("text/event-stream", "application/x-ndjson", "application/ndjson", "application/vnd.amazon.eventstream")
    return settings.stream is not False


async def _load_stored(url: str, session_id: str) -> Transcript:
    from ..errors import StoreError
    from ..store import SessionStore
    from .store import refuse_missing_file

    try:
        refuse_missing_file(url)  # as `store list` and `view`: a missing SQLite file is not created
    except StoreError as exc:
        raise _Fail(2, str(exc)) from None
    try:
        opened = await SessionStore.open(url)
    except StoreError as exc:
        raise _Fail(2, str(exc)) from None
    async with opened as store:
        return await store.load(session_id)


def _settings(
    base: Transcript,
    *,
    max_tokens: int | None,
    temperature: float | None,
    top_p: float | None,
    stop: list[str] | None,
    seed: int | None,
    reasoning_effort: str | None,
    response_format: Path | None,
    setting: list[str] | None,
) -> Settings:
    """The transcript's settings with every flag given replacing its field (exit 2 on a bad value)."""
    import msgspec

    from ..mapping.settings import merge_settings

    given: dict[str, Any] = {}
    for item in setting or ():
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise _Fail(2, f"--setting {item!r}: expected KEY=JSON (e.g. --setting top_k=40)")
        try:
            given[key] = msgspec.json.decode(raw)
        except msgspec.DecodeError:
            given[key] = raw  # a bare word: a string value (e.g. --setting model=gpt-4o)
    for key, value in (
        ("max_output_tokens", max_tokens),
        ("temperature", temperature),
        ("top_p", top_p),
        ("stop", stop or None),
        ("seed", seed),
    ):
        if value is not None:
            given[key] = value
    if reasoning_effort is not None:
        given["reasoning"] = {**given.get("reasoning", {}), "effort": reasoning_effort}
    if response_format is not None:
        try:
            if response_format.exists() and not response_format.is_file() and not response_format.is_dir():
                # a named pipe or a device: never read (/dev/zero would grow memory without limit)
                raise _Fail(2, f"cannot read --response-format {response_format}: not a regular file (a named pipe or a device)")
            given["response_format"] = msgspec.json.decode(response_format.read_bytes())
        except OSError as exc:
            raise _Fail(2, f"cannot read --response-format {response_format}: {exc.strerror or exc}") from None
        except msgspec.DecodeError as exc:
            raise _Fail(2, f"--response-format {response_format}: not JSON: {exc}") from None
    try:
        return merge_settings(base.settings, given)
    except DocumentError as exc:
        raise _Fail(2, f"bad setting: {exc}") from None


async def _generate(
    transcript: Transcript,
    *,
    provider: str,
    model: str,
    base_url: str | None,
    stream: bool,
    policy: str,
    fixture: list[dict[str, Any]] | None,
    record: Path | None,
    live: bool,
    timeouts: Any = None,
    settings: Settings | None = None,
) -> ModelResponse:
    from ..transport import Client, RecordingTransport, ReplayTransport, Timeouts, provider_spec

    transport: httpx.AsyncBaseTransport | None = None
    key = None
    if fixture is not None:
        transport = ReplayTransport(fixture)
        # Replaying needs no real key (CI without secrets); one from the environment is still used.
        spec = provider_spec(provider)  # none: Client names the providers it has HTTP rules for
        key = next((os.environ[v] for v in (spec.env_vars if spec is not None else ()) if os.environ.get(v)), "replay-without-key")
    if record is not None:
        transport = RecordingTransport(record, transport)
    async with Client(provider, api_key=key, base_url=base_url, transport=transport, timeouts=timeouts or Timeouts()) as client:
        generation = client.generate(transcript, model=model, stream=stream, policy=policy, settings=settings)  # type: ignore[arg-type]
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


async def _call(transcript: Transcript, *, provider: str, model: str, **kwargs: Any) -> ModelResponse:
    """Call the model (:func:`_generate`), then print the usage and its estimated cost on stderr."""
    from ..conversion import without_empty_texts

    response = await _generate(transcript, provider=provider, model=model, **kwargs)
    written = Report()  # what is printed or stored passes validate --strict: no empty text item
    response = without_empty_texts(response, written)
    for warning in written.lines():
        typer.echo(warning, err=True)
    line = usage_summary(response, provider, model)
    if line:
        typer.echo(line, err=True)
    return response


def usage_summary(response: ModelResponse, provider: str, model: str) -> str | None:
    """``usage: 1200 input, 80 output tokens; cost ~$0.0042 (estimate; litellm 1.110.2 (2026-12-01) prices)``,
    or ``None`` without usage. The cost is left out when the catalogue lists no price for the model."""
    from ..items import Usage

    usage = response.usage
    if not isinstance(usage, Usage):
        return None
    parts = [f"{getattr(usage, f)} {label}" for f, label in (("input_tokens", "input"), ("output_tokens", "output"), ("cache_read_tokens", "cache read")) if isinstance(getattr(usage, f), int)]
    if not parts:
        return None
    line = f"usage: {', '.join(parts)} tokens"
    # the model that answered (the response's) is the one billed; never priced as another
    billed = response.model if isinstance(response.model, str) and response.model else model
    try:
        from ..models import cost

        priced = cost(usage, provider, billed)
    except Exception:  # noqa: BLE001 - a cost estimate never fails a call
        priced = None
    return f"{line}; cost {priced.label()}" if priced is not None else f"{line}; cost unknown (no catalogue price for {billed!r})"


async def _call_and_append(call: Callable[[], Awaitable[ModelResponse]], url: str, session_id: str, sent: Transcript | None = None) -> tuple[int, int]:
    """Check the session exists, call the model, append its output where the head was.

    The head is read before the call and passed as ``expected_seq``, so a session that
    moved meanwhile fails with a conflict instead of interleaving. ``sent``: the transcript read
    from a file; it must hold exactly the stored session's items (the answer continues the
    conversation that was sent, never another one), else nothing is sent (exit 1).
    """
    from ..codec import to_builtins
    from ..store import SessionStore
    from ..store._engine import normalize_url

    from ..errors import SessionNotFoundError, StoreError
    from .store import refuse_missing_file

    norm = normalize_url(url)
    try:
        refuse_missing_file(norm)  # as `store` commands: a missing SQLite file is not created, a directory is named
        opened = await SessionStore.open(norm, create=False)
    except StoreError as exc:  # not a store (a directory, another file): a usage error, as in `store` commands
        raise _Fail(2, str(exc)) from None
    async with opened as store:
        try:
            head = await store.head(session_id)
        except SessionNotFoundError:
            raise
        except StoreError as exc:
            raise _Fail(2, str(exc)) from None
        if sent is not None:
            stored = await store.load(session_id)
            if to_builtins(stored.items) != to_builtins(sent.items):
                raise _Fail(
                    1,
                    f"TRANSCRIPT ({len(sent.items)} items) is not the conversation session {session_id} holds "
                    f"({len(stored.items)} items, head {head}): its answer would be appended to another conversation; "
                    "nothing was sent. Leave TRANSCRIPT out to continue the stored session, or `interlingua store export` it first",
                )
        response = await call()
        new_head = await store.append(session_id, response.items, head, usage=response.usage, stop_reason=response.stop_reason, response=response.info())
    return len(response.items), new_head


def replay(
    transcript: Annotated[
        str | None,
        typer.Argument(
            metavar="TRANSCRIPT",
            help="Transcript document or session file (`--session` picks one of several), `-` for stdin; "
            "left out with --store: the stored session.",
            show_default=False,
        ),
    ] = None,
    provider: Annotated[str, typer.Option("--provider", metavar="FORMAT", help="Wire format / provider: {mappers}.", show_default=False)] = "",
    model: Annotated[str | None, typer.Option("--model", help="Model to call (default: the settings' model).", show_default=False)] = None,
    base_url: Annotated[str | None, typer.Option("--base-url", help="API root (OpenAI-compatible server, proxy, local Ollama).")] = None,
    stream: Annotated[
        bool | None,
        typer.Option(
            "--stream/--no-stream",
            help="Stream the response, or ask for it whole (default: the settings' `stream`; streamed when they do not say).",
            show_default=False,
        ),
    ] = None,
    policy: Annotated[PolicyChoice, typer.Option("--policy", help="Content the target cannot carry: refuse, drop or degrade.")] = PolicyChoice.error,
    fixture: Annotated[Path | None, typer.Option("--fixture", help="Answer from this recorded fixture instead of the network.")] = None,
    record: Annotated[Path | None, typer.Option("--record", help="Append the exchange to this fixture file (credentials redacted).")] = None,
    store: Annotated[str | None, typer.Option("--store", help="Session store URL; append the output to --session instead of printing.")] = None,
    session: Annotated[str | None, typer.Option("--session", help="Session id: in --store, and the session to take from a session file.")] = None,
    max_tokens: Annotated[int | None, typer.Option("--max-tokens", help="Most tokens to generate (settings.max_output_tokens).", show_default=False)] = None,
    temperature: Annotated[float | None, typer.Option("--temperature", help="Sampling temperature.", show_default=False)] = None,
    top_p: Annotated[float | None, typer.Option("--top-p", help="Nucleus sampling probability mass.", show_default=False)] = None,
    stop: Annotated[list[str] | None, typer.Option("--stop", help="Stop sequence (repeat for several).", show_default=False)] = None,
    seed: Annotated[int | None, typer.Option("--seed", help="Sampling seed.", show_default=False)] = None,
    reasoning_effort: Annotated[
        str | None, typer.Option("--reasoning-effort", help="none, minimal, low, medium, high or xhigh.", show_default=False)
    ] = None,
    response_format: Annotated[
        Path | None, typer.Option("--response-format", help="JSON file holding a settings.response_format object.", show_default=False)
    ] = None,
    setting: Annotated[
        list[str] | None, typer.Option("--setting", metavar="KEY=JSON", help="Any settings field, e.g. top_k=40 (repeat for several).", show_default=False)
    ] = None,
    connect_timeout: Annotated[float, typer.Option("--connect-timeout", help="Seconds to establish a connection (each attempt).")] = 30.0,
    read_timeout: Annotated[float, typer.Option("--read-timeout", help="Seconds without a byte of a non-stream response.")] = 30.0,
    idle_timeout: Annotated[float, typer.Option("--idle-timeout", help="Seconds without stream data before the call ends with `timeout` (never retried).")] = 60.0,
    deadline: Annotated[float | None, typer.Option("--deadline", help="Seconds for the whole call, retries included (default: no bound).", show_default=False)] = None,
) -> None:
    """Send TRANSCRIPT to a model and print the output items as a transcript document.

    The conversation's own settings (its document's or session's `settings`) are used; each
    setting flag replaces one of them. Exit codes: 0 answered, 1 failed call (normalized error
    code) or refused transcript, 2 usage error.
    """
    from ..mapping import available
    from ..mapping.registry import is_known

    if transcript == "-":
        require_stdin("replay", "TRANSCRIPT")
    require_regular_input(transcript, "replay")
    try:
        if store is not None and session is None:
            raise _Fail(2, "--store needs --session ID (the session the output is appended to)")
        if store is not None:
            try:
                import interlingua.store  # noqa: F401
            except ImportError:
                raise _Fail(2, "--store needs the session store (interlingua.store), which is not in this build") from None
        if not provider:
            raise _Fail(2, "--provider is required")
        if not is_known(provider):
            detail = ""
            if ":" in provider:  # a variant of a known format: the registry says which variants there are
                from ..errors import UnknownFormatError
                from ..mapping.registry import get_mapper

                try:
                    get_mapper(provider)
                except UnknownFormatError as exc:
                    detail = str(exc)
                except Exception:  # noqa: BLE001 - only a hint
                    pass
            if detail:
                raise _Fail(2, f"unknown provider {provider!r}: {detail}")
            raise _Fail(2, f"unknown provider {provider!r}; known: {', '.join(available())}, or openai-chat:<host> (e.g. openai-chat:groq)")
        if fixture is not None and not fixture.is_file():
            raise _Fail(2, f"cannot read fixture {fixture}")
        exchanges = _load_fixture(fixture) if fixture is not None else None
        if base_url is not None:
            _check_base_url(base_url)
        timeouts = _timeouts(connect_timeout, read_timeout, idle_timeout, deadline)
        if transcript is None:
            if store is None or session is None:
                raise _Fail(2, "give TRANSCRIPT, or --store URL --session ID to replay a stored session")
            doc = asyncio.run(_load_stored(store, session))
        else:
            doc = _read(transcript, session, stored=store is not None)
        effective = _settings(
            doc, max_tokens=max_tokens, temperature=temperature, top_p=top_p, stop=stop, seed=seed,
            reasoning_effort=reasoning_effort, response_format=response_format, setting=setting,
        )
        if model is None:
            if not isinstance(effective.model, str):
                raise _Fail(2, "--model is required (the conversation's settings name no model)")
            model = effective.model
        if store is not None:  # the answer is appended to the stored session
            _warn_if_answered(doc)
        call = functools.partial(
            _call,
            doc,
            provider=provider,
            model=model,
            base_url=base_url,
            stream=stream if stream is not None else _default_stream(effective, exchanges),
            policy=policy.value,
            fixture=exchanges,
            record=record,
            live=sys.stderr.isatty(),
            timeouts=timeouts,
            settings=effective,
        )
        if store is not None and session is not None:
            count, head = asyncio.run(_call_and_append(call, store, session, None if transcript is None else doc))
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
