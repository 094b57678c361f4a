"""Record HTTP exchanges to a fixture file, and replay them without a network.

Both are ``httpx.AsyncBaseTransport`` wrappers, so any ``httpx.AsyncClient`` (and
:class:`~interlingua.transport.Client` through its ``transport`` argument) can use
them. The fixture is JSON Lines, one exchange per line (see ``docs/replay.md``)::

    {"version": 1,
     "request": {"method": "POST", "url": "https://.../v1/messages",
                 "headers": {"x-api-key": "REDACTED", ...}, "body": "{...}"},
     "response": {"status": 200, "headers": {...}, "encoding": "utf-8",
                  "chunks": ["event: message_start\\ndata: ...", ...],
                  "disconnect": false}}

Credentials are removed with :func:`~interlingua.transport.redact` before anything is
written: credential headers by name, key-like query parameters, and the values of the
request's credential headers wherever else they appear.
"""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from typing import Any

import httpx

from ..errors import TransportError
from ._redact import SENSITIVE_HEADERS, redact

__all__ = ["FIXTURE_VERSION", "RecordingTransport", "ReplayTransport", "load_fixture"]

FIXTURE_VERSION = 1
_HOP = frozenset({"transfer-encoding", "content-length", "connection", "keep-alive"})


def _secrets_of(request: httpx.Request) -> list[str]:
    found = []
    for name, value in request.headers.items():
        if name.lower() in SENSITIVE_HEADERS and value:
            found.append(value)
            scheme, _, rest = value.partition(" ")
            if rest and scheme.lower() in ("bearer", "basic", "token"):
                found.append(rest)
    return sorted(found, key=len, reverse=True)


def _encode_chunks(chunks: list[bytes]) -> tuple[str, list[str]]:
    try:
        return "utf-8", [c.decode("utf-8") for c in chunks]
    except UnicodeDecodeError:
        return "base64", [base64.b64encode(c).decode("ascii") for c in chunks]


def _decode_chunks(encoding: str, chunks: list[str]) -> list[bytes]:
    if encoding == "base64":
        return [base64.b64decode(c) for c in chunks]
    return [c.encode("utf-8") for c in chunks]


class _TeeStream(httpx.AsyncByteStream):
    def __init__(self, inner: httpx.AsyncByteStream, done: Any) -> None:
        self._inner = inner
        self._done = done
        self._chunks: list[bytes] = []
        self._broken = False
        self._written = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._inner:
                self._chunks.append(chunk)
                yield chunk
        except httpx.TransportError:
            self._broken = True
            raise

    async def aclose(self) -> None:
        try:
            await self._inner.aclose()
        finally:
            if not self._written:
                self._written = True
                self._done(self._chunks, self._broken)


class RecordingTransport(httpx.AsyncBaseTransport):
    """Pass requests to ``inner`` and append each exchange to ``path`` (credentials redacted).

    An exchange is written when its response is closed, with every chunk that was read
    (a stream cut by the caller is written as far as it was read; one broken by the
    network gets ``"disconnect": true``).

    Args:
        path: Fixture file (JSON Lines; appended to).
        inner: The real transport (default ``httpx.AsyncHTTPTransport()``).
        secrets: Further values to redact (API keys are found in the request headers anyway).
    """

    def __init__(self, path: str | Path, inner: httpx.AsyncBaseTransport | None = None, *, secrets: Iterable[str] = ()) -> None:
        self.path = Path(path)
        self._inner = inner or httpx.AsyncHTTPTransport()
        self._secrets = tuple(secrets)
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"RecordingTransport(path={str(self.path)!r})"

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = await request.aread()
        secrets = [*self._secrets, *_secrets_of(request)]
        record_request = {
            "method": request.method,
            "url": redact(str(request.url), secrets, kind="url"),
            "headers": redact(request.headers.multi_items(), secrets, kind="headers"),
            "body": redact(body.decode("utf-8", errors="replace"), secrets),
        }
        response = await self._inner.handle_async_request(request)

        def done(chunks: list[bytes], broken: bool) -> None:
            encoding, texts = _encode_chunks(chunks)
            exchange = {
                "version": FIXTURE_VERSION,
                "request": record_request,
                "response": {
                    "status": response.status_code,
                    "headers": redact(response.headers.multi_items(), secrets, kind="headers"),
                    "encoding": encoding,
                    "chunks": redact(texts, secrets) if encoding == "utf-8" else texts,
                    "disconnect": broken,
                },
            }
            line = json.dumps(exchange, ensure_ascii=False)
            with self._lock, self.path.open("a", encoding="utf-8") as fh:
                fh.write(line + "\n")

        if not isinstance(response.stream, httpx.AsyncByteStream):
            raise TypeError("the inner transport returned a synchronous byte stream; RecordingTransport needs an async one")
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=_TeeStream(response.stream, done),
            extensions=response.extensions,
            request=request,
        )

    async def aclose(self) -> None:
        await self._inner.aclose()


class _ReplayStream(httpx.AsyncByteStream):
    def __init__(self, chunks: list[bytes], disconnect: bool) -> None:
        self._chunks = chunks
        self._disconnect = disconnect

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self._chunks:
            yield chunk
        if self._disconnect:
            raise httpx.RemoteProtocolError("recorded exchange ended with a broken connection")


def load_fixture(path: str | Path) -> list[dict[str, Any]]:
    """Read a fixture file's exchanges.

    Raises:
        TransportError: ``invalid_request`` when a line is not an exchange of a known version.
    """
    exchanges = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            exchange = json.loads(line)
            ok = exchange.get("version") == FIXTURE_VERSION and "request" in exchange and "response" in exchange
        except (ValueError, AttributeError):
            ok = False
        if not ok:
            raise TransportError("invalid_request", f"fixture line {n} is not a version {FIXTURE_VERSION} exchange", provider="replay")
        exchanges.append(exchange)
    return exchanges


class ReplayTransport(httpx.AsyncBaseTransport):
    """Answer requests from a fixture, in order, without a network.

    Each request must have the method and URL path of the next exchange; host and query
    are not compared, and one path may end with the other (``/v1beta/models/m:x`` matches
    ``/models/m:x``), so a fixture recorded against a provider replays against any
    ``base_url``. The requests received are kept in :attr:`requests`.

    Args:
        fixture: Fixture path or already loaded exchanges.

    Raises:
        TransportError: ``invalid_request`` when a request does not match the next exchange
            or the fixture is used up (raised from the request call).
    """

    def __init__(self, fixture: str | Path | list[dict[str, Any]]) -> None:
        self._exchanges = list(fixture) if isinstance(fixture, list) else load_fixture(fixture)
        self._next = 0
        self.requests: list[httpx.Request] = []

    def __repr__(self) -> str:
        return f"ReplayTransport(exchanges={len(self._exchanges)}, used={self._next})"

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        await request.aread()
        self.requests.append(request)
        if self._next >= len(self._exchanges):
            raise TransportError("invalid_request", f"replay fixture has no exchange left for {request.method} {request.url.path}", provider="replay")
        exchange = self._exchanges[self._next]
        want = exchange["request"]
        want_path = httpx.URL(want["url"]).path
        got_path = request.url.path
        same_path = want_path == got_path or want_path.endswith(got_path) or got_path.endswith(want_path)
        if want["method"] != request.method or not same_path:
            raise TransportError(
                "invalid_request",
                f"replay exchange {self._next} is {want['method']} {want_path}, got {request.method} {request.url.path}",
                provider="replay",
            )
        self._next += 1
        resp = exchange["response"]
        headers = [(k, v) for k, v in resp.get("headers", {}).items() if k.lower() not in _HOP]
        chunks = _decode_chunks(resp.get("encoding", "utf-8"), list(resp.get("chunks", [])))
        return httpx.Response(resp["status"], headers=headers, stream=_ReplayStream(chunks, bool(resp.get("disconnect"))), request=request)
