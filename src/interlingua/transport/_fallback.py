"""Ordered fallback across clients: the next one answers when one fails before anything reached the caller.

``FallbackClient([(primary, "model-a"), (backup, "model-b")])`` sends the transcript to the first
client; on a failure whose code is in ``fall_back_on`` (the retryable codes by default: rate limit,
overload, server error, timeout, network, a stream cut before content) that happened before the
first event was handed to the caller, the next client gets the same transcript, converted for its
own provider by its own :meth:`Client.generate` (preflight, policy, another provider's reasoning
state left out, each loss in that attempt's report). Once an event has been delivered, a failure
is the caller's, as with one client. Each client makes its own retries first (its ``RetryPolicy``).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Generator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ..capabilities import Resolver
from ..errors import InterlinguaError, TransportError
from ..items import Settings, Transcript
from ..mapping import ModelResponse, Report
from ..mapping.report import Policy
from ..streaming import StreamDone, StreamError, StreamEvent, UsageUpdate
from ._errors import RETRYABLE
from ._generation import Generation

__all__ = ["FallbackAttempt", "FallbackClient", "FallbackGeneration", "RouteClient"]


@runtime_checkable
class RouteClient(Protocol):
    """What a :class:`FallbackClient` needs of each route's client (a :class:`~interlingua.transport.Client`)."""

    @property
    def provider(self) -> str:
        """The provider's mapper registry name."""
        ...

    def generate(
        self,
        transcript: Transcript,
        *,
        model: str,
        stream: bool = True,
        policy: Policy = "error",
        resolver: Resolver | None = None,
        settings: Settings | Mapping[str, Any] | None = None,
    ) -> Generation:
        """Preflight and build the request now; send it when the result is iterated or awaited."""
        ...

    async def aclose(self) -> None:
        """Close the connection pool."""
        ...


@dataclass
class FallbackAttempt:
    """One client tried by a :class:`FallbackGeneration`.

    Attributes:
        provider: The client's provider (mapper registry name).
        model: The model asked.
        report: What converting the transcript for this provider dropped or changed (empty when the
            request could not be built).
        error: Why this client did not answer (``None`` for the one that answered): a
            :class:`TransportError`, or the error that stopped building its request
            (``CapabilityError``, ``ConversionError``, ``auth`` for a missing key).
    """

    provider: str
    model: str
    report: Report = field(default_factory=Report)
    error: InterlinguaError | None = None


class FallbackClient:
    """Clients tried in order for one call; the result says which answered.

    Args:
        routes: ``(client, model)`` pairs, in the order to try them (at least one).
        fall_back_on: Error codes that move to the next client (default: the retryable codes,
            :data:`~interlingua.transport.RETRYABLE`). An error with another code (``auth``,
            ``invalid_request``, ``context_length``, ...) ends the call.

    Raises:
        ValueError: no routes, or a route that is not a ``(Client, str)`` pair.

    Closing a :class:`FallbackClient` (``aclose``, ``async with``) closes its clients.
    """

    def __init__(self, routes: Sequence[tuple[RouteClient, str]], *, fall_back_on: frozenset[str] = RETRYABLE) -> None:
        routes = list(routes)
        if not routes:
            raise ValueError("FallbackClient needs at least one (client, model) route")
        for i, route in enumerate(routes):
            if not (isinstance(route, tuple) and len(route) == 2 and isinstance(route[0], RouteClient) and isinstance(route[1], str) and route[1]):
                raise ValueError(f"route {i} must be a (Client, model name) pair, got {route!r}")
        self.routes: list[tuple[RouteClient, str]] = routes
        self.fall_back_on = frozenset(fall_back_on)

    def __repr__(self) -> str:
        return "FallbackClient([" + ", ".join(f"({c.provider!r}, {m!r})" for c, m in self.routes) + "])"

    async def aclose(self) -> None:
        """Close every client's connection pool."""
        for client, _ in self.routes:
            await client.aclose()

    async def __aenter__(self) -> FallbackClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def generate(
        self,
        transcript: Transcript,
        *,
        stream: bool = True,
        policy: Policy = "error",
        resolver: Resolver | None = None,
        settings: Settings | Mapping[str, Any] | None = None,
    ) -> FallbackGeneration:
        """Build the first client's request now (its errors raise here, as :meth:`Client.generate`'s do);
        the others' when their turn comes. Iterate or await the result, as a :class:`Generation`.

        Args:
            transcript: The conversation; each client converts it for its own provider.
            stream: Stream (``async for``) or take the response whole.
            policy: What each mapper does with content its target cannot carry.
            resolver: Caller's capability lookup, asked first.
            settings: Generation settings for this call (each client's own settings apply below them).

        Raises:
            CapabilityError, ConversionError, DocumentError, TransportError: building the first
                client's request failed (see :meth:`Client.generate`).
        """
        kw: dict[str, Any] = {"stream": stream, "policy": policy, "resolver": resolver, "settings": settings}
        client, model = self.routes[0]
        first = client.generate(transcript, model=model, **kw)
        return FallbackGeneration(self, transcript, kw, first)


class FallbackGeneration:
    """One call through a :class:`FallbackClient`: ``async for`` yields events, ``await`` the response.

    Like :class:`Generation`, the call runs once: awaiting after iterating returns the streamed
    response, awaiting twice returns the same one, iterating again replays the events.

    Attributes:
        provider: The provider that answered (``None`` before the call ran, or when none did).
        model: The model that answered (``None`` likewise).
        attempts: Every client tried, in order, the one that answered last (its ``error`` is ``None``).
        report: The conversion report of the request that answered (the first's until the call ran).
    """

    def __init__(self, owner: FallbackClient, transcript: Transcript, kw: dict[str, Any], first: Generation) -> None:
        self._owner = owner
        self._transcript = transcript
        self._kw = kw
        self._first = first
        self.report = first.report
        self.provider: str | None = None
        self.model: str | None = None
        self.attempts: list[FallbackAttempt] = []
        self._events: list[StreamEvent] | None = None
        self._started = False
        self._failure: TransportError | None = None

    def __repr__(self) -> str:
        return f"FallbackGeneration(routes={len(self._owner.routes)}, provider={self.provider!r}, model={self.model!r})"

    def _generations(self) -> Generator[tuple[int, Generation | None, InterlinguaError | None], None, None]:
        """Each route's generation in order (``None`` and the error when its request cannot be built)."""
        yield 0, self._first, None
        for i, (client, model) in enumerate(self._owner.routes[1:], start=1):
            try:
                yield i, client.generate(self._transcript, model=model, **self._kw), None
            except InterlinguaError as exc:  # preflight, conversion under policy, missing key
                yield i, None, exc

    def __aiter__(self) -> AsyncIterator[StreamEvent]:
        if self._events is not None:
            return _replay(self._events)
        if self._started:
            raise RuntimeError("this fallback generation's requests were sent by an iteration that has not ended: they are not sent again")
        self._started = True
        return self._run()

    async def _run(self) -> AsyncGenerator[StreamEvent, None]:
        seen: list[StreamEvent] = []
        last: StreamError | None = None
        for i, generation, error in self._generations():
            client, model = self._owner.routes[i]
            attempt = FallbackAttempt(client.provider, model, generation.report if generation is not None else Report(), error)
            self.attempts.append(attempt)
            if generation is None:
                continue
            held: list[StreamEvent] = []
            delivered = False
            events = generation.__aiter__()
            try:
                async for event in events:
                    if not delivered:
                        if isinstance(event, UsageUpdate):
                            held.append(event)  # no content yet: not "an event that reached the caller"
                            continue
                        if isinstance(event, StreamError) and str(event.error.code) in self._owner.fall_back_on:
                            last = event
                            attempt.error = _failure_of(generation, event)
                            break
                        delivered = True
                        self.provider, self.model, self.report = client.provider, model, generation.report
                        for kept in held:
                            seen.append(kept)
                            yield kept
                    seen.append(event)
                    if isinstance(event, StreamError):
                        attempt.error = self._failure = _failure_of(generation, event)
                    if isinstance(event, (StreamDone, StreamError)):
                        self._events = seen
                    yield event
            finally:
                await events.aclose()  # type: ignore[attr-defined]
            if delivered:
                return
        # every client failed before delivering anything: the last failure is the call's
        assert last is not None  # the first route always has a generation
        self._failure = next(a.error for a in reversed(self.attempts) if isinstance(a.error, TransportError))
        seen.append(last)
        self._events = seen
        yield last

    async def response(self) -> ModelResponse:
        """Run the call (unless it ran already) and return the response of the client that answered.

        Raises:
            TransportError: every client failed (the last failure), or the answering one failed after
                it began delivering.
        """
        if self._events is None:
            async for _ in self:
                pass
        assert self._events is not None
        last = self._events[-1]
        if isinstance(last, StreamDone):
            return last.response  # type: ignore[return-value]
        assert isinstance(last, StreamError)
        raise self._failure or TransportError(str(last.error.code), last.error.message)

    def __await__(self) -> Generator[Any, None, ModelResponse]:
        return self.response().__await__()


def _failure_of(generation: Generation, event: StreamError) -> TransportError:
    return generation.failure or TransportError(str(event.error.code), event.error.message, provider=generation.provider)


async def _replay(events: list[StreamEvent]) -> AsyncGenerator[StreamEvent, None]:
    for event in events:
        yield event
