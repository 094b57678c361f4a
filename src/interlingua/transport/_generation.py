"""One model call: the request built by ``generate``, sent once when iterated or awaited.

:class:`Generation` knows nothing of the client that made it: it is given a :class:`Sender` (the
client's connection) that sends a :class:`Prepared` request whole or as a stream.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Generator
from dataclasses import dataclass
from typing import Any, Protocol

import msgspec

from ..errors import TransportError
from ..items import ErrorItem
from ..mapping import ModelResponse, Report
from ..streaming import StreamDone, StreamError, StreamEvent
from ._errors import error_item

__all__ = ["Generation", "Prepared", "Sender"]


@dataclass
class Prepared:
    """A request built and ready to send.

    Attributes:
        model: The model asked.
        stream: Whether the response is streamed.
        url: Where it is POSTed.
        body: The JSON body, encoded.
        report: What the request mapper dropped or changed building it.
        failure: The error a stream ended with, raised as it was by an ``await``.
    """

    model: str
    stream: bool
    url: str
    body: bytes
    report: Report
    failure: TransportError | None = None


class Sender(Protocol):
    """What a :class:`Generation` needs to send its request (a client's connection)."""

    @property
    def provider(self) -> str:
        """The provider's mapper registry name."""
        ...

    async def complete(self, prepared: Prepared) -> ModelResponse:
        """Send ``prepared`` and return the whole response (retries included).

        Raises:
            TransportError: the call failed.
        """
        ...

    def stream(self, prepared: Prepared) -> AsyncGenerator[StreamEvent, None]:
        """Send ``prepared`` and yield its events, ending with one ``StreamDone`` or ``StreamError``."""
        ...


class Generation:
    """One model call: ``async for`` yields stream events; ``await`` gives the response.

    Iterating yields canonical stream events ending with exactly one ``StreamDone`` or
    ``StreamError`` (transport failures become a ``StreamError`` too). In non-stream mode
    it yields one terminal event. Awaiting returns the
    :class:`~interlingua.mapping.ModelResponse` (output items, usage, stop reason) or
    raises :class:`~interlingua.errors.TransportError`.

    A generation sends its request once, whatever is done with it: awaiting it after
    iterating it returns the streamed response (or raises the streamed error); awaiting it
    again returns the same response; iterating it again yields the same events again. None
    of these sends anything.

    Attributes:
        provider: The provider the request goes to (mapper registry name).
        report: What the request mapper dropped or changed building the request.

    Raises:
        RuntimeError: awaiting or iterating it while an iteration of it has not reached its terminal
            event (still running, or left by ``break``): the request is not sent a second time.
    """

    def __init__(self, sender: Sender, prepared: Prepared) -> None:
        self._sender = sender
        self.provider = sender.provider
        self._prepared = prepared
        self.report = prepared.report
        self._events: list[StreamEvent] | None = None  # every event of the finished run
        self._running = False
        self._abandoned = False
        self._failure: TransportError | None = None  # a non-stream call's own error, raised again as it was

    def __repr__(self) -> str:
        return f"Generation(provider={self.provider!r}, model={self._prepared.model!r}, stream={self._prepared.stream})"

    def _begin(self) -> None:
        if self._running or self._abandoned:
            raise RuntimeError(
                "this generation's request was sent by an iteration that has not reached its terminal event (still running, "
                "or stopped early by break): the request is not sent again; finish that iteration, or call generate() again"
            )
        self._running = True

    def __aiter__(self) -> AsyncIterator[StreamEvent]:
        if self._events is not None:
            return _replay(self._events)
        self._begin()
        return self._run()

    async def _run(self) -> AsyncGenerator[StreamEvent, None]:
        seen: list[StreamEvent] = []
        events = self._sender.stream(self._prepared) if self._prepared.stream else self._one_event()
        try:
            async for event in events:
                seen.append(event)
                if isinstance(event, (StreamDone, StreamError)):
                    self._events = seen  # before the yield: a caller may stop at the terminal event
                yield event
        finally:
            await events.aclose()  # the response is closed now, not when the generator is collected
            self._running = False
            if self._events is None:
                self._abandoned = True

    async def _one_event(self) -> AsyncGenerator[StreamEvent, None]:
        try:
            response = await self._sender.complete(self._prepared)
        except TransportError as err:
            self._failure = err
            yield StreamError(error_item(err), partial=ModelResponse())
            return
        yield StreamDone(response)

    async def response(self) -> ModelResponse:
        """Run the call (unless it ran already) and return the whole response.

        Raises:
            TransportError: the call failed (a stream's error, including ``truncated``).
            RuntimeError: see the class.
        """
        if self._events is None:
            if not self._prepared.stream:
                self._begin()
                try:
                    response = await self._sender.complete(self._prepared)
                except TransportError as err:
                    self._events = [StreamError(error_item(err), partial=ModelResponse())]
                    self._failure = err
                    raise
                finally:
                    self._running = False
                self._events = [StreamDone(response)]
                return response
            async for _ in self:
                pass
        assert self._events is not None
        last = self._events[-1]
        if isinstance(last, StreamDone):
            return last.response  # type: ignore[return-value]
        assert isinstance(last, StreamError)
        raise self._failure or self._prepared.failure or _from_item(last.error, self.provider)

    def __await__(self) -> Generator[Any, None, ModelResponse]:
        return self.response().__await__()

    @property
    def failure(self) -> TransportError | None:
        """The error the call ended with (``None`` before it ended, or when it answered)."""
        return self._failure or self._prepared.failure


async def _replay(events: list[StreamEvent]) -> AsyncGenerator[StreamEvent, None]:
    for event in events:
        yield event


def _from_item(item: ErrorItem, provider: str) -> TransportError:
    status = item.status if isinstance(item.status, int) else None
    return TransportError(
        code=str(item.code),
        message=item.message,
        status=status,
        provider=item.provider if isinstance(item.provider, str) else provider,
        retryable=bool(item.retryable) if item.retryable is not msgspec.UNSET else False,
    )
