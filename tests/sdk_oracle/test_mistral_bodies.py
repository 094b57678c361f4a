"""Every body the ``mistral`` mapper writes from the real fixtures passes the ``mistralai`` SDK types, strictly.

Cases: every real request fixture of every provider (``bodies.request_fixtures()``, plus the Mistral
recordings) encoded for Mistral under every policy; every real response and recorded stream's final
response encoded as a Mistral response, and the conversation continued after it as a Mistral request.
A refusal is allowed only under policy ``error``; whatever is written must validate.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from interlingua.errors import InterlinguaError
from interlingua.mapping import get_mapper

from .bodies import POLICIES, REAL, continuation, decoded_request, decoded_response, request_fixtures, response_fixtures
from .mistral_oracle import check_mistral_request, check_mistral_response

MISTRAL = REAL / "mistral"
MODEL = "mistral-large-latest"


def _requests() -> list[tuple[str, Path]]:
    return request_fixtures() + [("mistral", p) for p in sorted(MISTRAL.glob("*.request.json"))]


def _responses() -> list[tuple[str, Path]]:
    own = [("mistral", p) for p in sorted(MISTRAL.glob("*.response.*"))]
    return [(s, p) for s, p in response_fixtures() + own if decoded_response(s, p)[1] is not None]


def _id(source: str, path: Path, policy: str) -> str:
    return f"{source}:{path.relative_to(REAL).as_posix()}:{policy}"


REQUESTS = [pytest.param(s, p, pol, id=_id(s, p, pol)) for s, p in _requests() for pol in POLICIES]
RESPONSES = [pytest.param(s, p, pol, id=_id(s, p, pol)) for s, p in _responses() for pol in POLICIES]


def test_the_cases_cover_every_provider_and_the_mistral_recordings() -> None:
    sources = {p.values[0] for p in REQUESTS}
    assert sources == {"openai-chat", "openai-responses", "anthropic", "gemini", "ollama", "mistral", "cohere"}
    assert sum(1 for p in REQUESTS if p.values[0] == "mistral") == 62 * len(POLICIES)
    assert any(p.values[1].suffix == ".sse" and p.values[0] == "mistral" for p in RESPONSES)


@pytest.mark.parametrize("source, path, policy", REQUESTS)
def test_request_passes_the_mistral_sdk_types(source: str, path: Path, policy: str) -> None:
    mapper = get_mapper("mistral")
    try:
        body = mapper.encode_request(decoded_request(source, path), model=MODEL, policy=policy).value  # type: ignore[arg-type]
    except InterlinguaError as err:
        assert policy == "error", f"refused under policy {policy!r}: {err}"
        return
    problems = check_mistral_request(body)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("source, path, policy", RESPONSES)
def test_response_and_continuation_pass_the_mistral_sdk_types(source: str, path: Path, policy: str) -> None:
    mapper = get_mapper("mistral")
    _, response = decoded_response(source, path)
    assert response is not None
    for kind in ("response", "continuation"):
        try:
            if kind == "response":
                body = mapper.encode_response(response, model=MODEL, policy=policy).value  # type: ignore[arg-type]
            else:
                body = mapper.encode_request(continuation(source, path, response), model=MODEL, policy=policy).value  # type: ignore[arg-type]
        except InterlinguaError as err:
            assert policy == "error", f"{kind} refused under policy {policy!r}: {err}"
            continue
        problems = check_mistral_response(body) if kind == "response" else check_mistral_request(body)
        assert not problems, f"{kind}:\n" + "\n".join(problems)


def test_the_oracle_refuses_what_mistral_does_not_take() -> None:
    body = json.loads((MISTRAL / "pai_mistral_mistral_forwards_penalties.0.request.json").read_text())
    assert check_mistral_request(body) == []
    assert any("unknown key 'seed'" in p for p in check_mistral_request({**body, "seed": 3}))
    assert check_mistral_request({**body, "tool_choice": "any"}) == []
    bad_message = {**body, "messages": [{"role": "assistant", "content": "x", "reasoning": "y"}]}
    assert any("reasoning" in p for p in check_mistral_request(bad_message))
    assert check_mistral_request({**body, "temperature": "0.5"})  # strict: no coercion
