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
request's credential headers (raw, URL-encoded, JSON-escaped, base64) wherever else they
appear. A response body is redacted whole: its chunks are joined, decompressed (a
``Content-Encoding`` httpx decodes: ``gzip``, ``deflate``, and ``br``/``zstd`` when their
packages are installed), redacted, then cut again at the original chunk boundaries
(moved out of any removed value and onto UTF-8 character boundaries), so neither a chunk
boundary nor compression nor base64 can hide a key. A decoded body is stored without its
``Content-Encoding`` header (``"decoded_from"`` names it); a body in an encoding that cannot
be decoded is not stored at all (``"omitted"`` says why).
"""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import AsyncIterator, Iterable, Iterator
from pathlib import Path
from typing import Annotated, Any, Literal

import httpx
import msgspec

from ..errors import TransportError
from ._redact import SENSITIVE_HEADERS, SENSITIVE_PARAMS, protect_logs, redact, redact_bytes

try:  # the encodings httpx can decode here (br and zstd need optional packages)
    from httpx._decoders import SUPPORTED_DECODERS as _SUPPORTED

    _DECODABLE = frozenset(_SUPPORTED)
except ImportError:  # pragma: no cover - a future httpx moving its private module
    _DECODABLE = frozenset({"identity", "gzip", "deflate"})

__all__ = ["FIXTURE_VERSION", "RecordingTransport", "ReplayTransport", "load_fixture"]

FIXTURE_VERSION = 1
_HOP = frozenset({"transfer-encoding", "content-length", "connection", "keep-alive"})


def _secrets_of(request: httpx.Request) -> list[str]:
    """The request's credentials: credential header values and key-like query parameters."""
    found = []
    for name, value in request.headers.items():
        if name.lower() in SENSITIVE_HEADERS and value:
            found.append(value)
            scheme, _, rest = value.partition(" ")
            if rest and scheme.lower() in ("bearer", "basic", "token"):
                found.append(rest)
    found += [v for k, v in request.url.params.multi_items() if k.lower() in SENSITIVE_PARAMS and v]
    if request.url.password:
        found.append(request.url.password)
    return sorted(found, key=len, reverse=True)


def _decode_body(encoding: str | None, chunks: list[bytes]) -> tuple[list[bytes], bool]:
    """Decompress the raw chunks as httpx would; ``(pieces, failed)``.

    Pieces keep roughly the raw chunk boundaries (each is what the decoder gave for one raw
    chunk); ``failed`` means the body broke off undecodable after the pieces returned.
    """
    if not encoding:
        return chunks, False

    def raw() -> Iterator[bytes]:
        yield from chunks

    decoded = httpx.Response(200, headers=[("content-encoding", encoding)], content=raw())
    pieces: list[bytes] = []
    try:
        for piece in decoded.iter_bytes():
            pieces.append(piece)
    except httpx.DecodingError:
        return pieces, True
    return pieces, False


def _content_encodings(headers: httpx.Headers) -> list[str]:
    values = [v.strip().lower() for value in headers.get_list("content-encoding") for v in value.split(",")]
    return [v for v in values if v and v != "identity"]


def _split(body: bytes, cuts: list[int]) -> tuple[str, list[str]]:
    """The redacted body cut at ``cuts``: UTF-8 text pieces, or base64 ones for a binary body."""
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        bounds = [0, *cuts, len(body)]
        return "base64", [base64.b64encode(body[a:b]).decode("ascii") for a, b in zip(bounds, bounds[1:])]
    moved = []
    for cut in cuts:
        while 0 < cut < len(body) and body[cut] & 0xC0 == 0x80:
            cut -= 1  # never split a UTF-8 character
        moved.append(cut)
    bounds = sorted({0, *moved, len(body)})
    return "utf-8", [body[a:b].decode("utf-8") for a, b in zip(bounds, bounds[1:])] if body else []


def _record_body(headers: httpx.Headers, chunks: list[bytes], secrets: list[str]) -> dict[str, Any]:
    """The fixture's body fields for the raw chunks read: decoded, redacted whole, re-split."""
    encodings = _content_encodings(headers)
    if any(e not in _DECODABLE for e in encodings):
        return {
            "encoding": "utf-8",
            "chunks": [],
            "omitted": "the body's Content-Encoding cannot be decoded here, so it cannot be redacted",
        }
    pieces, failed = _decode_body(", ".join(encodings) if encodings else None, chunks)
    cuts, end = [], 0
    for piece in pieces:
        end += len(piece)
        cuts.append(end)
    body, moved = redact_bytes(b"".join(pieces), secrets, cuts[:-1])
    encoding, texts = _split(body, moved)
    out: dict[str, Any] = {"encoding": encoding, "chunks": texts}
    if encodings:
        out["decoded_from"] = ", ".join(encodings)
    if failed:
        out["decode_error"] = True
    return out


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
        protect_logs(self, self._secrets)

    def __repr__(self) -> str:
        return f"RecordingTransport(path={str(self.path)!r})"

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = await request.aread()
        secrets = [*self._secrets, *_secrets_of(request)]
        protect_logs(request, secrets)  # until the exchange is over (httpx logs it after the response)
        record_request = {
            "method": request.method,
            "url": redact(str(request.url), secrets, kind="url"),
            "headers": redact(request.headers.multi_items(), secrets, kind="headers"),
            "body": redact(redact_bytes(body, secrets)[0].decode("utf-8", errors="replace"), secrets),
        }
        response = await self._inner.handle_async_request(request)

        def done(chunks: list[bytes], broken: bool) -> None:
            recorded = _record_body(response.headers, chunks, secrets)
            headers = response.headers.multi_items()
            if "decoded_from" in recorded or "omitted" in recorded:
                headers = [(k, v) for k, v in headers if k.lower() not in ("content-encoding", "content-length")]
            exchange = {
                "version": FIXTURE_VERSION,
                "request": record_request,
                "response": {
                    "status": response.status_code,
                    "headers": redact(headers, secrets, kind="headers"),
                    **recorded,
                    "disconnect": broken or bool(recorded.get("decode_error")),
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


class _FixtureRequest(msgspec.Struct):
    method: str
    url: str
    headers: dict[str, str] = {}
    body: str | None = None


class _FixtureResponse(msgspec.Struct):
    status: Annotated[int, msgspec.Meta(ge=100, le=599)]
    headers: dict[str, str] = {}
    encoding: Literal["utf-8", "base64"] = "utf-8"
    chunks: list[str] = []
    disconnect: bool = False


class _FixtureExchange(msgspec.Struct):
    version: Literal[1]
    request: _FixtureRequest
    response: _FixtureResponse


_exchange_decoder = msgspec.json.Decoder(_FixtureExchange)


def _check_exchange(line: bytes, n: int) -> dict[str, Any]:
    """One fixture line, checked field by field (the fields replay reads; others are kept as given)."""
    what = f"fixture line {n}"
    try:
        _exchange_decoder.decode(line)
        exchange: dict[str, Any] = msgspec.json.decode(line)
        if exchange["response"].get("encoding") == "base64":
            for i, chunk in enumerate(exchange["response"].get("chunks", [])):
                try:
                    base64.b64decode(chunk, validate=True)
                except ValueError as exc:
                    raise TransportError("invalid_request", f"{what}: /response/chunks/{i} is not base64", provider="replay") from exc
        httpx.URL(exchange["request"]["url"])
    except msgspec.ValidationError as exc:
        if "`$.version`" in str(exc):
            raise TransportError("invalid_request", f"{what} is not a version {FIXTURE_VERSION} exchange", provider="replay") from exc
        raise TransportError("invalid_request", f"{what} is not a version {FIXTURE_VERSION} exchange: {exc}", provider="replay") from exc
    except msgspec.DecodeError as exc:
        raise TransportError("invalid_request", f"{what} is not a version {FIXTURE_VERSION} exchange: invalid JSON ({exc})", provider="replay") from exc
    except RecursionError as exc:
        raise TransportError("invalid_request", f"{what}: nesting too deep", provider="replay") from exc
    except httpx.InvalidURL as exc:
        raise TransportError("invalid_request", f"{what}: /request/url is not a URL ({exc})", provider="replay") from exc
    return exchange


def load_fixture(path: str | Path) -> list[dict[str, Any]]:
    """Read a fixture file's exchanges.

    Each line is checked before anything is replayed: JSON (no NaN, no lone surrogates), ``version``
    1, ``request.method``/``url`` strings, ``response.status`` an HTTP status, ``headers`` string to
    string, ``chunks`` strings (base64 ones when ``encoding`` is ``"base64"``), ``disconnect`` a
    boolean.

    Raises:
        TransportError: ``invalid_request`` when a line is not such an exchange (naming the line and field).
    """
    exchanges = []
    for n, line in enumerate(Path(path).read_bytes().splitlines(), 1):
        if not line.strip():
            continue
        exchanges.append(_check_exchange(line, n))
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
                redact(f"replay exchange {self._next} is {want['method']} {want_path}, got {request.method} {request.url.path}", _secrets_of(request)),
                provider="replay",
            )
        self._next += 1
        resp = exchange["response"]
        headers = [(k, v) for k, v in resp.get("headers", {}).items() if k.lower() not in _HOP]
        chunks = _decode_chunks(resp.get("encoding", "utf-8"), list(resp.get("chunks", [])))
        return httpx.Response(resp["status"], headers=headers, stream=_ReplayStream(chunks, bool(resp.get("disconnect"))), request=request)
