"""A server on 127.0.0.1 that echoes the key back: no fixture, log, exception or report holds it.

The echoes (issue 19): split across chunk boundaries at every split point of the key, in
gzip- and deflate-compressed bodies, in response headers, in a redirect's Location, in 4xx
and 5xx error pages, in SSE events and NDJSON lines, and (Gemini) from a ``?key=`` query.
The key has characters that URL-encoding changes, so its raw, URL-encoded, JSON-escaped
and base64 forms differ; none of them may appear anywhere, nor in any decoded form of what
the fixture stores (base64-decoded, gunzipped, inflated).
"""

from __future__ import annotations

import base64
import gzip
import json
import logging
import re
import traceback
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

import httpx
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from interlingua.codec import to_builtins
from interlingua.errors import TransportError
from interlingua.mapping import get_mapper
from interlingua.streaming import StreamDone, StreamError, TextDelta, collect
from interlingua.transport import Client, RecordingTransport, ReplayTransport, RetryPolicy, Timeouts, load_fixture
from interlingua.transport._errors import translate
from interlingua.transport._redact import redact_bytes, secret_forms

from ._server import Reply
from .conftest import REAL, STREAMS

KEY = "sk-echo/9f+A=b%c~d.e_0123456789-LEAK!"
FAST = Timeouts(connect=2, read=1, idle=1, write=2)
QUICK = RetryPolicy(base=0.01, cap=0.02)
MODELS = {"openai-chat": "gpt-4o", "openai-responses": "gpt-4o", "anthropic": "claude-sonnet-4-5", "gemini": "gemini-2.5-flash", "ollama": "llama3.2"}
PROVIDERS = sorted(STREAMS)


def key_forms(key: str) -> list[bytes]:
    """Every form of ``key`` a leak check looks for."""
    raw = key.encode()
    forms = {raw, quote(key, safe="").encode(), quote(key).encode(), quote_plus(key).encode(), json.dumps(key)[1:-1].encode()}
    for b64 in (base64.b64encode(raw), base64.urlsafe_b64encode(raw)):
        forms |= {b64, b64.rstrip(b"=")}
    return sorted(forms, key=len, reverse=True)


def test_the_key_forms_really_differ() -> None:
    assert len(set(key_forms(KEY))) >= 5  # raw, 2 URL-encoded, base64 padded and not
    assert quote(KEY, safe="") != KEY != quote(KEY)


def _decodings(data: bytes) -> Iterator[bytes]:
    """``data`` and what it decodes to as base64, gzip, zlib or raw deflate (one and two levels)."""
    seen = [data]
    for blob in list(seen):
        for decode in (
            lambda b: base64.b64decode(b, validate=True),
            lambda b: base64.urlsafe_b64decode(b),
            gzip.decompress,
            zlib.decompress,
            lambda b: zlib.decompress(b, -15),
        ):
            try:
                out = decode(blob)
            except Exception:
                continue
            if out and out not in seen:
                seen.append(out)
    yield from seen


def holds_key(data: bytes | str, key: str = KEY) -> bytes | None:
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    for blob in _decodings(raw):
        for form in key_forms(key):
            if form in blob:
                return form
    return None


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def assert_fixture_clean(path: Path, key: str = KEY) -> None:
    data = path.read_bytes()
    assert holds_key(data, key) is None, "fixture bytes"
    for exchange in load_fixture(path):
        for text in _strings(exchange):
            assert holds_key(text, key) is None, text[:200]
        response = exchange["response"]
        chunks = response.get("chunks", [])
        body = b"".join(base64.b64decode(c) for c in chunks) if response.get("encoding") == "base64" else "".join(chunks).encode()
        assert holds_key(body, key) is None, "the reassembled body"
        assert holds_key(exchange["request"]["body"], key) is None


def error_texts(exc: BaseException) -> list[str]:
    """Message, repr, args, traceback and every chained cause and context of ``exc``."""
    out = ["".join(traceback.format_exception(exc))]
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        out += [str(e), repr(e), repr(e.args), str(getattr(e, "__dict__", ""))]
        todo += [e.__cause__, e.__context__]
    return out


# --------------------------------------------------------------------------- echo bodies per provider


def _stream(provider: str) -> bytes:
    return (REAL / STREAMS[provider][0]).read_bytes()


def _with_key_in_content(provider: str, key: str = KEY) -> bytes:
    """The real stream with `` <key>`` appended to its first text delta (a server echoing it)."""
    data = _stream(provider)
    first = next(e.text for e in collect(get_mapper(provider), data) if isinstance(e, TextDelta) and e.text)
    inner = json.dumps(first)[1:-1].encode()
    assert inner in data, (provider, first)
    return data.replace(inner, inner + b" " + json.dumps(key)[1:-1].encode(), 1)


def echo_body(provider: str, key: str = KEY) -> bytes:
    """One echo of the key per split point before the stream (SSE comments / NDJSON lines), then the stream."""
    if STREAMS[provider][1] == "application/x-ndjson":
        line = json.dumps({"model": "llama3.2", "created_at": "2023-08-04T08:52:19Z", "message": {"role": "assistant", "content": f"echo {key}"}, "done": False})
        echo = (line + "\n").encode()
    else:
        echo = f": debug proxy saw key {key}\n\n".encode()
    return echo * (len(key) - 1) + _with_key_in_content(provider, key)


def split_at_every_point(body: bytes, key: str = KEY) -> list[bytes]:
    """Chunks of ``body`` such that occurrence ``i`` of the key is cut after its ``i+1``-th byte."""
    raw = key.encode()
    cuts = [m.start() + (i % (len(raw) - 1)) + 1 for i, m in enumerate(re.finditer(re.escape(raw), body))]
    assert len(cuts) >= len(raw) - 1, "every split point is covered"
    bounds = [0, *cuts, len(body)]
    return [body[a:b] for a, b in zip(bounds, bounds[1:]) if b > a]


def sized(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


def _page(status: int) -> bytes:
    return f"<html><body><h1>{status}</h1><p>invalid x-api-key: {KEY}</p><a href='/retry?key={quote(KEY, safe='')}'>retry</a><!-- {base64.b64encode(KEY.encode()).decode()} --></body></html>".encode()


ECHO_HEADERS = {
    "x-echo-key": KEY,
    "x-echo-b64": base64.b64encode(KEY.encode()).decode(),
    "link": f"<https://debug.example/trace?for={quote(KEY, safe='')}>; rel=trace",
    "content-location": f"https://debug.example/c?api_key={KEY}",
}


def unknown_event(provider: str) -> bytes:
    """An event of an unknown type named by the key, before the stream (a decoder may quote it)."""
    if STREAMS[provider][1] == "application/x-ndjson":
        return (json.dumps({"model": "llama3.2", "created_at": "x", "message": {"role": KEY, "content": ""}, "type": KEY, "done": False}) + "\n").encode()
    return f"event: {KEY}\ndata: {json.dumps({'type': KEY, 'object': KEY})}\n\n".encode()


def scenarios(provider: str) -> dict[str, tuple[Callable[[], list[Reply]], bool | None]]:
    """name -> (fresh replies for one call, the stream call ends in StreamDone; None: either)."""
    media = STREAMS[provider][1]
    body = echo_body(provider)
    ok = {"content-type": media}
    return {
        "unknown_event": (lambda: [Reply(200, headers=ok, chunks=split_at_every_point(unknown_event(provider) * (len(KEY) - 1) + _stream(provider)))], None),
        "split_every_point": (lambda: [Reply(200, headers=ok, chunks=split_at_every_point(body))], True),
        "gzip": (lambda: [Reply(200, headers={**ok, "content-encoding": "gzip"}, chunks=sized(gzip.compress(body), 11))], True),
        "deflate": (lambda: [Reply(200, headers={**ok, "content-encoding": "deflate"}, chunks=sized(zlib.compress(body), 7))], True),
        "headers": (lambda: [Reply(200, headers={**ok, **ECHO_HEADERS}, chunks=sized(body, 64))], True),
        "redirect": (lambda: [Reply(302, headers={"location": f"https://login.example/cb?key={KEY}&next=/v1?token={quote(KEY, safe='')}", "x-echo-key": KEY}, chunks=[_page(302)])], False),
        "error_401": (lambda: [Reply(401, headers={"content-type": "text/html"}, chunks=split_at_every_point(_page(401) * (len(KEY) - 1)))], False),
        "error_500_gzip": (lambda: [Reply(500, headers={"content-type": "text/html", "content-encoding": "gzip", **ECHO_HEADERS}, chunks=sized(gzip.compress(_page(500)), 5)) for _ in range(3)], False),
    }


def _shape(events: list[Any]) -> list[Any]:
    return [to_builtins(e.response.items) if isinstance(e, StreamDone) else repr(e) for e in events]


def _redacted_shape(events: list[Any]) -> list[Any]:
    return json.loads(json.dumps(_shape(events)).replace(json.dumps(KEY)[1:-1], "REDACTED"))


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_echoed_key_reaches_no_fixture_log_error_or_report(provider: str, serve: Any, transcript: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    seen: list[str] = []
    for name, (replies, succeeds) in scenarios(provider).items():
        fixture = tmp_path / f"{name}.jsonl"
        srv = serve(replies())
        async with Client(provider, api_key=KEY, base_url=srv.url, timeouts=FAST, retry=QUICK, transport=RecordingTransport(fixture)) as c:
            generation = c.generate(transcript, model=MODELS[provider])
            seen += [repr(c), repr(generation), *generation.report.lines()]
            live = [e async for e in generation]
        if succeeds is not None:
            assert isinstance(live[-1], StreamDone if succeeds else StreamError), (name, live[-1])
        # what the model "said" (deltas, output items) is the caller's own; everything else is checked
        seen += [repr(e) for e in live if not isinstance(e, (TextDelta, StreamDone, StreamError))]
        seen += [line for e in live if isinstance(e, (StreamDone, StreamError)) for line in e.report.lines()]
        if isinstance(live[-1], StreamError):
            seen += [live[-1].error.message, repr(live[-1].error)]
        assert len(srv.received) >= 1 and all(r.headers.get("x-api-key", r.headers.get("x-goog-api-key", r.headers.get("authorization", ""))).endswith(KEY) for r in srv.received)
        assert_fixture_clean(fixture)

        # the fixture replays the stream event by event, the key replaced by the marker
        async with Client(provider, api_key="replay", transport=ReplayTransport(fixture), retry=QUICK) as c:
            again = [e async for e in c.generate(transcript, model=MODELS[provider])]
        assert _shape(again) == _redacted_shape(live), name
        if succeeds:
            assert any(isinstance(e, TextDelta) and "REDACTED" in e.text for e in again), name

        # the same replies, not streamed: the exception and its whole chain stay clean
        if succeeds is False:
            srv = serve(replies())
            async with Client(provider, api_key=KEY, base_url=srv.url, timeouts=FAST, retry=QUICK, transport=RecordingTransport(fixture)) as c:
                with pytest.raises(TransportError) as info:
                    await c.generate(transcript, model=MODELS[provider], stream=False)
            seen += error_texts(info.value)
            assert_fixture_clean(fixture)

    for text in seen:
        assert holds_key(text) is None, text[:300]
    assert caplog.records, "the transport logged at DEBUG"
    for record in caplog.records:
        assert holds_key(record.getMessage()) is None
        assert holds_key(repr(record.args)) is None
    assert holds_key(caplog.text) is None


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_the_split_fixture_keeps_the_chunking(provider: str, serve: Any, transcript: Any, tmp_path: Path) -> None:
    """Chunk boundaries survive: the fixture has as many chunks as were read, none holding part of a key."""
    fixture = tmp_path / "rec.jsonl"
    chunks = split_at_every_point(echo_body(provider))
    srv = serve([Reply(200, headers={"content-type": STREAMS[provider][1]}, chunks=chunks)])
    async with Client(provider, api_key=KEY, base_url=srv.url, timeouts=FAST, transport=RecordingTransport(fixture)) as c:
        await c.generate(transcript, model=MODELS[provider])
    (exchange,) = load_fixture(fixture)
    stored = exchange["response"]["chunks"]
    assert exchange["response"]["encoding"] == "utf-8"
    # every cut inside a key moved to its marker; the marker is never split
    assert all(not c.endswith(p) for c in stored[:-1] for p in ("R", "RE", "RED", "REDA", "REDAC", "REDACT", "REDACTE"))
    assert len(stored) >= len(KEY) - 1
    assert "".join(stored).encode() == echo_body(provider).replace(KEY.encode(), b"REDACTED")


async def test_gemini_key_in_query_and_header(serve: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A caller's own httpx client sending ``?key=`` (and the header): both are removed, echoes too."""
    caplog.set_level(logging.DEBUG)
    page = f"request was GET /v1beta/models/gemini-2.5-flash:generateContent?key={KEY} with x-goog-api-key {quote(KEY, safe='')}".encode()
    fixture = tmp_path / "g.jsonl"
    srv = serve([Reply(400, headers={"content-type": "text/plain", "x-echo-key": KEY}, chunks=split_at_every_point(page * (len(KEY) - 1))), Reply(200, chunks=[page])])
    async with httpx.AsyncClient(transport=RecordingTransport(fixture)) as http:
        first = await http.get(f"{srv.url}/v1beta/models/gemini-2.5-flash:generateContent", params={"key": KEY, "alt": "json"}, headers={"x-goog-api-key": KEY})
        second = await http.get(f"{srv.url}/v1beta/models/gemini-2.5-flash:generateContent", params={"key": KEY})  # the query alone
    assert first.status_code == 400 and second.status_code == 200
    assert srv.received[1].path.endswith("key=" + quote(KEY, safe=""))
    assert_fixture_clean(fixture)
    urls = [e["request"]["url"] for e in load_fixture(fixture)]
    assert all("key=REDACTED" in u for u in urls)
    assert holds_key(caplog.text) is None


async def test_undecodable_encoding_is_not_stored(serve: Any, transcript: Any, tmp_path: Path) -> None:
    fixture = tmp_path / "rec.jsonl"
    srv = serve([Reply(200, headers={"content-type": "application/json", "content-encoding": "x-unknown"}, chunks=[_page(200)])])
    async with Client("anthropic", api_key=KEY, base_url=srv.url, timeouts=FAST, retry=RetryPolicy(max_retries=0), transport=RecordingTransport(fixture)) as c:
        with pytest.raises(TransportError):
            await c.generate(transcript, model="claude-sonnet-4-5", stream=False)
    (exchange,) = load_fixture(fixture)
    assert exchange["response"]["chunks"] == [] and "cannot be redacted" in exchange["response"]["omitted"]
    assert "content-encoding" not in exchange["response"]["headers"]
    assert_fixture_clean(fixture)


async def test_corrupt_gzip_is_recorded_as_far_as_it_decodes(serve: Any, transcript: Any, tmp_path: Path) -> None:
    fixture = tmp_path / "rec.jsonl"
    good = gzip.compress(echo_body("anthropic"))
    corrupt = b"\x1f\x8c" + good[2:] + KEY.encode()  # a bad magic number: nothing decodes
    srv = serve([Reply(200, headers={"content-type": "text/event-stream", "content-encoding": "gzip"}, chunks=sized(corrupt, 50))])
    async with Client("anthropic", api_key=KEY, base_url=srv.url, timeouts=FAST, retry=RetryPolicy(max_retries=0), transport=RecordingTransport(fixture)) as c:
        live = [e async for e in c.generate(transcript, model="claude-sonnet-4-5")]
    assert isinstance(live[-1], StreamError)
    (exchange,) = load_fixture(fixture)
    assert exchange["response"]["disconnect"] is True and exchange["response"]["decoded_from"] == "gzip"
    assert_fixture_clean(fixture)
    async with Client("anthropic", api_key="replay", transport=ReplayTransport(fixture), retry=RetryPolicy(max_retries=0)) as c:
        again = [e async for e in c.generate(transcript, model="claude-sonnet-4-5")]
    assert isinstance(again[-1], StreamError)


def test_httpx_exception_chain_is_scrubbed() -> None:
    """A library exception quoting the key (its message, its cause's) is cleaned in place."""
    inner = OSError(f"connect to https://proxy.example/?key={quote(KEY, safe='')} failed")
    try:
        try:
            raise inner
        except OSError as exc:
            raise httpx.ConnectError(f"proxy said: {KEY}") from exc
    except httpx.ConnectError as outer:
        caught = outer
    with pytest.raises(TransportError) as info, translate("gemini", secrets=[KEY]):
        raise caught
    for text in error_texts(info.value):
        assert holds_key(text) is None, text
    assert info.value.__cause__ is caught and "REDACTED" in str(caught) and "REDACTED" in str(inner)


def test_old_fixtures_still_replay() -> None:
    """The docs' fixture (recorded before whole-body redaction) loads and replays unchanged."""
    path = Path(__file__).parents[2] / "docs/examples/anthropic_hello.jsonl"
    (exchange,) = load_fixture(path)
    assert exchange["version"] == 1 and exchange["response"]["encoding"] == "utf-8"
    assert "".join(exchange["response"]["chunks"]).encode() == (REAL / STREAMS["anthropic"][0]).read_bytes()


# --------------------------------------------------------------------------- property: any key shape, any split, any compression

_HEADER_SAFE = st.characters(min_codepoint=0x21, max_codepoint=0x7E)


async def _record_and_replay(key: str, body: bytes, cuts: list[int], compress: str, path: Path) -> bytes:
    wire = {"none": lambda b: b, "gzip": gzip.compress, "deflate": zlib.compress}[compress](body)
    bounds = sorted({0, *(c % (len(wire) + 1) for c in cuts), len(wire)})
    pieces = [wire[a:b] for a, b in zip(bounds, bounds[1:])]

    async def stream() -> Any:
        for piece in pieces:
            yield piece

    def answer(request: httpx.Request) -> httpx.Response:
        headers = {"content-type": "text/plain", "x-echo": key}
        if compress != "none":
            headers["content-encoding"] = compress
        return httpx.Response(200, headers=headers, content=stream())

    async with httpx.AsyncClient(transport=RecordingTransport(path, httpx.MockTransport(answer))) as http:
        assert (await http.post("http://127.0.0.1/echo", headers={"authorization": f"Bearer {key}"}, content=b"{}")).content == body
    async with httpx.AsyncClient(transport=ReplayTransport(path)) as http:
        return (await http.post("http://127.0.0.1/echo")).content


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    key=st.text(_HEADER_SAFE, min_size=8, max_size=48),
    prefix=st.binary(max_size=80),
    suffix=st.binary(max_size=80),
    form=st.sampled_from(["raw", "quote", "quote_plus", "b64", "b64url", "json"]),
    copies=st.integers(1, 3),
    cuts=st.lists(st.integers(0, 10_000), max_size=12),
    compress=st.sampled_from(["none", "gzip", "deflate"]),
)
async def test_property_no_form_of_any_key_survives(key: str, prefix: bytes, suffix: bytes, form: str, copies: int, cuts: list[int], compress: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    echo = {
        "raw": key,
        "quote": quote(key, safe=""),
        "quote_plus": quote_plus(key),
        "b64": base64.b64encode(key.encode()).decode(),
        "b64url": base64.urlsafe_b64encode(key.encode()).decode(),
        "json": json.dumps(key)[1:-1],
    }[form].encode()
    body = prefix + (echo + suffix) * copies
    # cut inside the echo too: every run adds cuts at offsets within its first copy
    cuts = [*cuts, len(prefix) + len(echo) // 2, len(prefix) + 1]
    path = tmp_path_factory.mktemp("prop") / "rec.jsonl"
    replayed = await _record_and_replay(key, body, cuts, compress, path)
    assert_fixture_clean(path, key)
    assert holds_key(replayed, key) is None
    # Where prefix and suffix hold no form of the key themselves, the replay is the body with
    # each echo replaced by the marker and nothing else changed.
    forms = [f.encode() for f in secret_forms([key])]
    plain = all(f not in prefix + b"\x00" + suffix for f in forms) and "REDACTED" not in key
    matches = [m.span() for m in re.finditer(b"|".join(re.escape(f) for f in forms), body)]
    assume(plain)
    if len(matches) == copies and all(body[a:b] == echo for a, b in matches):
        assert replayed == prefix + (b"REDACTED" + suffix) * copies


@given(key=st.text(_HEADER_SAFE, min_size=8, max_size=40), data=st.binary(max_size=200), cuts=st.lists(st.integers(0, 400), max_size=10))
def test_property_redact_bytes_boundaries(key: str, data: bytes, cuts: list[int]) -> None:
    """Cuts stay ascending, inside the body, and never fall inside a marker or a key form."""
    body = data[: len(data) // 2] + key.encode() + data[len(data) // 2 :]
    out, moved = redact_bytes(body, [key], sorted(c % (len(body) + 1) for c in cuts))
    assert moved == sorted(set(moved)) and all(0 < c < len(out) for c in moved)
    assert all(form.encode() not in out for form in secret_forms([key]))
    for cut in moved:
        for m in re.finditer(b"REDACTED", out):
            assert not m.start() < cut < m.end()


class _QuotingMapper:
    """The provider's mapper, except that a body it cannot read is quoted in the error (as a careless decoder might)."""

    def __init__(self, provider: str) -> None:
        self._inner = get_mapper(provider)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def decode_response(self, body: Any) -> Any:
        raise ValueError(f"cannot read {body!r}")


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_200_body_that_does_not_decode_keeps_the_key_out_of_the_error(provider: str, serve: Any, transcript: Any, tmp_path: Path) -> None:
    """A debug proxy answering 200 with a body quoting the key: the decoder's error (the cause) is scrubbed."""
    fixture = tmp_path / "rec.jsonl"
    body = json.dumps([{"echo": KEY}] * (len(KEY) - 1)).encode()
    srv = serve([Reply(200, headers={"content-type": "application/json"}, chunks=split_at_every_point(body))])
    async with Client(provider, api_key=KEY, base_url=srv.url, timeouts=FAST, retry=QUICK, transport=RecordingTransport(fixture), mapper=_QuotingMapper(provider)) as c:  # type: ignore[arg-type]
        with pytest.raises(TransportError) as info:
            await c.generate(transcript, model=MODELS[provider], stream=False)
    assert info.value.code == "provider_error" and isinstance(info.value.__cause__, ValueError)
    assert "REDACTED" in str(info.value.__cause__)
    for text in error_texts(info.value):
        assert holds_key(text) is None, text[:300]
    assert_fixture_clean(fixture)
