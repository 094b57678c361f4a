"""Every body the mappers write from the real fixtures, for the SDK oracle.

``request_cases()``: every real request fixture x every target x every policy, encoded with
``encode_request(..., model=MODELS[target])``. ``response_cases()``: every real response body and every
recorded stream's final response (the accumulated :class:`ModelResponse`), decoded by its own
mapper, then ``encode_response`` to every target under every policy; and the conversation continued
after each of those responses (``continuation()``), encoded as a request to every target.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from msgspec import UNSET

from interlingua.codec import SCHEMA_VERSION
from interlingua.errors import InterlinguaError
from interlingua.items import TextItem, Transcript
from interlingua.mapping import get_mapper
from interlingua.mapping.protocol import ModelResponse
from interlingua.streaming import StreamDone, StreamError, collect

from .oracle import TARGETS

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"
# ``real/corpus/<format>/``: a few files of the pydantic-ai corpus that show a class the SDK oracle found.
POLICIES = ("error", "drop", "degrade")
# A model each target's table knows (the request body needs one; Gemini takes it in the URL).
MODELS = {
    "openai-chat": "gpt-4.1",
    "openai-responses": "gpt-5",
    "anthropic": "claude-sonnet-4-5",
    "gemini": "gemini-2.5-pro",
    "ollama": "llama3.2",
    "cohere": "command-a-03-2025",
}


def _source_of(path: Path) -> str | None:
    d, name = path.parent.name, path.name
    if d in ("openai_chat", "openrouter"):
        return "openai-chat"
    if d == "ollama":
        if name.startswith("pai_ollama_cloud_"):  # OpenAI-compatible /v1/chat/completions
            return "openai-chat"
        if "generate_" in name:  # /api/generate, not a chat body
            return None
        return "ollama"
    return {"openai_responses": "openai-responses", "anthropic": "anthropic", "gemini": "gemini", "cohere": "cohere"}.get(d)


def request_fixtures() -> list[tuple[str, Path]]:
    out = []
    for p in sorted(REAL.glob("*/*.request.json")) + sorted(REAL.glob("corpus/*/*.request.json")):
        src = _source_of(p)
        if src:
            out.append((src, p))
    return out


def response_fixtures() -> list[tuple[str, Path]]:
    """Non-streamed response bodies and recorded streams (``.sse``/``.ndjson``)."""
    out = []
    for p in sorted(REAL.glob("*/*")) + sorted(REAL.glob("corpus/*/*")):
        if not (p.name.endswith((".response.json", ".sse", ".ndjson")) or p.name == "ollama_docs.chat_stream_final_done.json"):
            continue
        src = _source_of(p)
        if src:
            out.append((src, p))
    return out


@cache
def decoded_request(source: str, path: Path) -> Transcript:
    """The transcript of a request fixture (decoded once: mappers never mutate their input)."""
    return get_mapper(source).decode_request(json.loads(path.read_text(encoding="utf-8"))).value


@cache
def decoded_response(source: str, path: Path) -> tuple[str, ModelResponse | None]:
    """(kind, response): kind ``body`` or ``stream``; None when the fixture is no decodable response.
    Decoded once per fixture (mappers never mutate their input)."""
    mapper = get_mapper(source)
    if path.suffix == ".json":
        body = json.loads(path.read_text(encoding="utf-8"))
        try:
            return "body", mapper.decode_response(body).value
        except InterlinguaError:
            return "body", None  # e.g. an error body
    events = collect(mapper, path.read_bytes())
    last = events[-1]
    if isinstance(last, StreamDone):
        return "stream", last.response  # type: ignore[return-value]
    assert isinstance(last, StreamError)
    return "stream", last.partial if isinstance(last.partial, ModelResponse) and last.partial.items else None


@dataclass(frozen=True)
class Case:
    kind: str  # request | continuation | response | stream-final
    source: str
    fixture: str
    target: str
    policy: str

    @property
    def id(self) -> str:
        return f"{self.kind}:{self.fixture}->{self.target}:{self.policy}"


def produce(case: Case) -> tuple[dict[str, Any] | None, str | None]:
    """(body, refusal): the body the mapper writes, or the error it refused with."""
    target = get_mapper(case.target)
    path = REAL / case.fixture
    try:
        if case.kind == "request":
            transcript = decoded_request(case.source, path)
            return target.encode_request(transcript, model=MODELS[case.target], policy=case.policy).value, None  # type: ignore[arg-type]
        _, response = decoded_response(case.source, path)
        assert response is not None
        if case.kind == "continuation":
            return target.encode_request(continuation(case.source, path, response), model=MODELS[case.target], policy=case.policy).value, None  # type: ignore[arg-type]
        return target.encode_response(response, model=MODELS[case.target], policy=case.policy).value, None  # type: ignore[arg-type]
    except InterlinguaError as err:
        return None, f"{type(err).__name__}: {err}"


def continuation(source: str, path: Path, response: ModelResponse) -> Transcript:
    """The conversation continued after ``response``: its request (``x.N.request.json`` beside
    ``x.N.response.*``) when recorded, then the response's output items, then a user turn."""
    request = path.parent / (path.name.split(".response")[0] + ".request.json")
    base = decoded_request(source, request) if request.exists() else None
    items = list(base.items) if base is not None else [TextItem(role="user", text="Hello.")]
    items += list(response.items) + [TextItem(role="user", text="Go on.")]
    return Transcript(schema_version=SCHEMA_VERSION, items=items, tools=base.tools if base is not None else UNSET,  # type: ignore[arg-type]
                      tool_choice=base.tool_choice if base is not None else UNSET)


def source_body(case: Case) -> dict[str, Any] | None:
    """The recorded body a same-provider case re-encodes (``None``: no such body).

    Requests and JSON responses are the fixture itself; a Responses stream's final body is the
    ``response`` of its ``response.completed`` event. A continuation has none.
    """
    path = REAL / case.fixture
    if case.source != case.target or case.kind == "continuation":
        return None
    if path.suffix == ".json":
        return json.loads(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]
    if case.target == "openai-responses":
        for line in reversed(path.read_text(encoding="utf-8").splitlines()):
            if line.startswith("data:") and '"response.completed"' in line:
                return json.loads(line[5:])["response"]  # type: ignore[no-any-return]
    return None


def cases() -> Iterator[Case]:
    for src, p in request_fixtures():
        for tgt in TARGETS:
            for pol in POLICIES:
                yield Case("request", src, p.relative_to(REAL).as_posix(), tgt, pol)
    for src, p in response_fixtures():
        kind, response = decoded_response(src, p)
        if response is None:
            continue
        for tgt in TARGETS:
            for pol in POLICIES:
                yield Case("response" if kind == "body" else "stream-final", src, p.relative_to(REAL).as_posix(), tgt, pol)
                yield Case("continuation", src, p.relative_to(REAL).as_posix(), tgt, pol)
