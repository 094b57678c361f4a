"""Every body the mappers write from the corpus passes the current SDK types and the official clients (issue 25).

Each corpus request is decoded by its own mapper and encoded as a request to every oracle target (and Mistral) under
policy ``drop`` (same provider: with its own model; otherwise with ``sdk_oracle.bodies.MODELS``): the bodies
that are sent to providers. (Response bodies, written for mock servers, are checked on the real fixtures by
``tests/sdk_oracle/test_sdk_bodies.py``.) Every body must pass the strict SDK types
(``sdk_oracle.oracle``) and, for OpenAI Chat, Responses, Anthropic, Ollama and Cohere requests, be sent as it
is by the official client over a mock transport (``sdk_oracle.clients``: unknown keyword arguments, Anthropic's
non-streaming ``max_tokens`` rule). A same-provider body may keep only a problem its recorded source
already has at the same place (the provider's own record, older than the SDK). Without the corpus
(``$INTERLINGUA_CORPUS`` or ``../shared/corpus``) these tests skip.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from interlingua.errors import InterlinguaError
from interlingua.mapping import get_mapper
from sdk_oracle.bodies import MODELS
from sdk_oracle.clients import CLIENT_TARGETS, send
from sdk_oracle.mistral_oracle import check_mistral_request
from sdk_oracle.oracle import TARGETS, check_request, check_response

from . import _engine

ENTRIES = [e for e in _engine.manifest(_engine.corpus_dir()) if e.kind == "request"]
CHUNK = 40


def _chunks() -> list[object]:
    if not ENTRIES:
        return [pytest.param([], id="absent", marks=pytest.mark.skip(reason="corpus not found (manifest.tsv); set INTERLINGUA_CORPUS"))]
    out: list[object] = []
    for kind in ("request",):
        for fmt in _engine.FORMATS:
            group = [e for e in ENTRIES if e.kind == kind and e.format == fmt]
            for n, i in enumerate(range(0, len(group), CHUNK)):
                out.append(pytest.param(group[i : i + CHUNK], id=f"{kind}:{fmt}:{n}"))
    return out


ALL_TARGETS = (*TARGETS, "mistral")
"""The oracle's targets and Mistral (``mistralai`` types). Bedrock Converse's bodies from the corpus are checked
with botocore's ``Converse`` validation in ``tests/providers/bedrock_converse/test_bedrock_converse_corpus.py``."""
MODEL_OF = {**MODELS, "mistral": "mistral-small-latest"}


def _checks(kind: str, target: str, body: Any) -> list[str]:
    if target == "mistral":
        return check_mistral_request(body)
    if kind == "response":
        return check_response(target, body)  # type: ignore[arg-type]
    problems = check_request(target, body)  # type: ignore[arg-type]
    if target in CLIENT_TARGETS and isinstance(body, dict):
        problems += send(target, body)
    return problems


def problems_of(entry: _engine.Entry, root: Path) -> list[str]:
    """Every problem of every body written from one corpus file (empty: all accepted)."""
    body = _engine.load_json(root / entry.file)
    source = get_mapper(entry.format)
    out: list[str] = []
    try:
        decoded = source.decode_request(body).value if entry.kind == "request" else source.decode_response(body).value
    except InterlinguaError:
        return []  # a body its own mapper refuses is the corpus check's business (tests/corpus/test_corpus.py)
    for target in ALL_TARGETS:
        same = target == entry.format
        model = body.get("model") if same and isinstance(body.get("model"), str) else MODEL_OF[target]
        mapper = get_mapper(target)
        try:
            if entry.kind == "request":
                written = mapper.encode_request(decoded, model=model, policy="drop").value  # type: ignore[arg-type]
            else:
                written = mapper.encode_response(decoded, model=model, policy="drop").value  # type: ignore[arg-type]
        except InterlinguaError as exc:
            out.append(f"{entry.file} -> {target}: refused under drop: {exc}")
            continue
        problems = _checks(entry.kind, target, written)
        if problems and same:
            inherited = set(_checks(entry.kind, target, body))
            problems = [p for p in problems if p not in inherited]
        out += [f"{entry.file} -> {target}: {p}" for p in problems]
    return out


@pytest.mark.parametrize("chunk", _chunks())
def test_corpus_bodies_pass_the_sdk_types_and_clients(chunk: list[_engine.Entry], corpus_root: Path) -> None:
    problems = [p for entry in chunk for p in problems_of(entry, corpus_root)]
    assert not problems, f"{len(problems)} problem(s):\n" + "\n".join(problems[:30])
