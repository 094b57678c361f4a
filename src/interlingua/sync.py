"""A synchronous facade over :class:`interlingua.transport.Client`, for scripts and notebooks.

The clients here run the async client on one private event loop, in a daemon thread of this module
(started on first use, shared by every sync client of the process), and wait for it. So it behaves the same in a plain script and inside a running event loop
(Jupyter, IPython, an async web framework's worker): it never calls ``asyncio.run`` on the caller's
thread and never needs ``nest_asyncio``. Everything else (preflight, retries, rate limits, one
request per generation, errors) is the async client's.

Example::

    from interlingua.sync import Client

    with Client("anthropic") as client:                      # key from ANTHROPIC_API_KEY
        response = client.generate(transcript, model="claude-sonnet-4-5").response()
        for event in client.generate(transcript, model="claude-sonnet-4-5"):
            print(event)
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from .items import Settings, Transcript
from .mapping import ModelResponse
from .mapping.report import Policy
from .streaming import StreamEvent
from .transport import Client as AsyncClient
from .transport import ConfigProblem, ModelInfo
from .transport import FallbackClient as AsyncFallbackClient
from .transport import FallbackAttempt, FallbackGeneration, Generation

__all__ = ["Client", "FallbackClient", "SyncGeneration", "generate_sync"]

T = TypeVar("T")


class _LoopThread:
    """An event loop running in a daemon thread; :meth:`run` waits for a coroutine on it."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="interlingua-sync-loop", daemon=True)
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        if threading.current_thread() is self.thread:
            coro.close()
            raise RuntimeError("a sync interlingua client cannot be called from inside an async call of interlingua.sync")
        future = asyncio.run_coroutine_threadsafe(coro, self.loop)
        try:
            return future.result()
        except BaseException:
            future.cancel()  # KeyboardInterrupt in the caller: the request is cancelled, its connection closed
            raise


_runner: _LoopThread | None = None
_runner_lock = threading.Lock()


def _loop() -> _LoopThread:
    """The module's loop thread, started on first use."""
    global _runner
    with _runner_lock:
        if _runner is None or not _runner.thread.is_alive():
            _runner = _LoopThread()
        return _runner


class SyncGeneration:
    """One model call: iterate for stream events, :meth:`response` for the whole response.

    Like the async :class:`~interlingua.transport.Generation` it sends its request once: calling
    :meth:`response` after iterating returns the streamed response, calling it twice returns the
    same one.

    Attributes:
        report: What the request mapper dropped or changed building the request.
    """

    def __init__(self, runner: _LoopThread, generation: Generation | FallbackGeneration) -> None:
        self._runner = runner
        self._generation = generation
        self.report = generation.report

    def __repr__(self) -> str:
        return f"Sync{self._generation!r}"

    @property
    def provider(self) -> str | None:
        """The provider that answered (a fallback chain's); a single client's provider otherwise."""
        return self._generation.provider

    @property
    def attempts(self) -> list[FallbackAttempt]:
        """The clients a fallback chain tried, in order (empty for a single client)."""
        return self._generation.attempts if isinstance(self._generation, FallbackGeneration) else []

    def __iter__(self) -> Iterator[StreamEvent]:
        events = self._runner.run(_aiter(self._generation))
        try:
            while True:
                try:
                    event = self._runner.run(events.__anext__())
                except StopAsyncIteration:
                    return
                yield event
        finally:
            self._runner.run(events.aclose())

    def response(self) -> ModelResponse:
        """Run the call (unless it ran already) and return the whole response.

        Raises:
            TransportError: the call failed.
        """
        return self._runner.run(self._generation.response())  # the async generation keeps it: a second call sends nothing


async def _aiter(generation: Generation | FallbackGeneration) -> Any:
    return generation.__aiter__()


class Client:
    """The synchronous client: the arguments of :class:`interlingua.transport.Client`, blocking calls.

    Args:
        provider: As :class:`interlingua.transport.Client`.
        **kwargs: Every keyword of :class:`interlingua.transport.Client` (``api_key``, ``base_url``,
            ``timeouts``, ``retry``, ``limiter``, ``requests_per_minute``, ...).

    Raises:
        TransportError, ValueError: as :class:`interlingua.transport.Client`.

    Use it as a context manager, or call :meth:`close`.
    """

    def __init__(self, provider: Any, **kwargs: Any) -> None:
        self._runner = _loop()
        self.client = AsyncClient(provider, **kwargs)
        self.provider = self.client.provider

    def __repr__(self) -> str:
        return "sync." + repr(self.client)

    def close(self) -> None:
        """Close the connection pool."""
        self._runner.run(self.client.aclose())

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def generate(
        self,
        transcript: Transcript,
        *,
        model: str,
        stream: bool = True,
        policy: Policy = "error",
        settings: Settings | Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> SyncGeneration:
        """Preflight and build the request now (errors raise here); send it when iterated or :meth:`SyncGeneration.response` is called.

        Same arguments and errors as :meth:`interlingua.transport.Client.generate`.
        """
        return SyncGeneration(self._runner, self.client.generate(transcript, model=model, stream=stream, policy=policy, settings=settings, **kwargs))

    def validate_config(self, model: str | None = None) -> list[ConfigProblem]:
        """Problems of this client's configuration, without network (:meth:`interlingua.transport.Client.validate_config`)."""
        return self.client.validate_config(model)

    def list_models(self) -> list[ModelInfo]:
        """The provider's models (:meth:`interlingua.transport.Client.list_models`)."""
        return self._runner.run(self.client.list_models())

    def count_tokens(self, transcript: Transcript, *, model: str, **kwargs: Any) -> int:
        """Input tokens of ``transcript`` by the provider's count endpoint (:meth:`interlingua.transport.Client.count_tokens`)."""
        return self._runner.run(self.client.count_tokens(transcript, model=model, **kwargs))

    def with_fallbacks(self, model: str, *routes: tuple[Client, str]) -> FallbackClient:
        """A :class:`FallbackClient` trying this client with ``model`` first, then each ``(client, model)``."""
        return FallbackClient([(self, model), *routes])


class FallbackClient:
    """The synchronous :class:`interlingua.transport.FallbackClient`: ``(sync Client, model)`` routes, tried in order.

    Raises:
        ValueError: no routes, or a route that is not a ``(sync Client, model)`` pair.
    """

    def __init__(self, routes: Sequence[tuple[Client, str]], **kwargs: Any) -> None:
        routes = list(routes)
        if any(not (isinstance(r, tuple) and len(r) == 2 and isinstance(r[0], Client)) for r in routes):
            raise ValueError("each route must be a (interlingua.sync.Client, model name) pair")
        self._runner = _loop()
        self._chain = AsyncFallbackClient([(c.client, m) for c, m in routes], **kwargs)

    def close(self) -> None:
        """Close every route's client."""
        self._runner.run(self._chain.aclose())

    def __enter__(self) -> FallbackClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def generate(self, transcript: Transcript, *, stream: bool = True, policy: Policy = "error", settings: Settings | Mapping[str, Any] | None = None) -> SyncGeneration:
        """Build the first client's request now; iterate the result or call its :meth:`SyncGeneration.response`."""
        return SyncGeneration(self._runner, self._chain.generate(transcript, stream=stream, policy=policy, settings=settings))


def generate_sync(transcript: Transcript, *, provider: str, model: str, stream: bool = False, **kwargs: Any) -> ModelResponse:
    """One call, blocking: make a client, send ``transcript`` to ``model``, return the response, close.

    ``kwargs`` go to :class:`Client` (``api_key``, ``base_url``, ...). Works inside a running event loop.

    Raises:
        TransportError, CapabilityError, ConversionError, DocumentError: as the async client.
    """
    with Client(provider, **kwargs) as client:
        return client.generate(transcript, model=model, stream=stream).response()

