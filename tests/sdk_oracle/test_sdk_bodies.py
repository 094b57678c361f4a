"""Every body the mappers write from the real fixtures passes its target's own SDK types, strictly.

Cases (``bodies.cases()``): every real request fixture x every target x every policy; every real
response body and every recorded stream's final response, ``encode_response`` to every target x
every policy; and the conversation continued after each of those responses, as a request to every
target. A mapper may refuse (a clear :class:`~interlingua.errors.InterlinguaError`) only under policy
``error``; whatever it writes must validate (``oracle.check_request``/``check_response``) with
nothing added by the test. A request to OpenAI Chat, Responses, Anthropic, Ollama or Cohere is also sent with
the official client over a mock transport (``clients.send``): ``create(**body)`` (``ollama.Client.chat``,
``cohere.ClientV2.chat``) must take every key, apply its own rules (Anthropic's non-streaming ``max_tokens``
limit) and put exactly the body on the wire (but for the client's own documented normalizations).

The one problem a same-provider body may keep is one its source body already has at the same place
(a recording older than the SDK's types, e.g. Responses usage without ``cache_write_tokens``): that
is the provider's own record, kept as given, and it is listed by ``test_real_fixtures_against_sdk``.
"""

from __future__ import annotations

import pytest

from .bodies import Case, cases, produce, source_body
from .clients import CLIENT_TARGETS, send
from .oracle import check_request, check_response

def _checks(case: Case, body: dict) -> list[str]:
    """The SDK types' problems, and for a request the official client's (``clients.send``: ``create(**body)``)."""
    if case.kind not in ("request", "continuation"):
        return check_response(case.target, body)
    problems = check_request(case.target, body)
    if case.target in CLIENT_TARGETS:
        problems += send(case.target, body)
    return problems


def _problems(case: Case, body: dict) -> list[str]:
    problems = _checks(case, body)
    source = source_body(case)
    if problems and source is not None:
        inherited = set(_checks(case, source))
        problems = [p for p in problems if p not in inherited]
    return problems


def _params() -> list:
    return [pytest.param(case, id=case.id) for case in cases()]


PARAMS = _params()


def test_the_case_list_covers_every_fixture_target_and_policy():
    all_cases = [p.values[0] for p in PARAMS]
    kinds = {c.kind for c in all_cases}
    assert kinds == {"request", "continuation", "response", "stream-final"}
    assert {c.target for c in all_cases} == {"openai-chat", "openai-responses", "anthropic", "gemini", "ollama", "cohere"}
    assert {c.policy for c in all_cases} == {"error", "drop", "degrade"}
    assert len({c.fixture for c in all_cases if c.kind == "request"}) == 51  # 42 on main + 6 Gemini corpus requests (issue 13.2) + 1 Chat request with temperature (issue 25) + 2 for issue 30 (a cache_control block, reasoning with text and summary)
    assert len({c.fixture for c in all_cases if c.kind == "stream-final"}) >= 15
    assert len(all_cases) > 1400


@pytest.mark.parametrize("case", PARAMS)
def test_body_passes_the_target_sdk_types(case: Case) -> None:
    body, refusal = produce(case)
    if body is None:
        assert case.policy == "error", f"refused under policy {case.policy!r}: {refusal}"
        return
    problems = _problems(case, body)
    assert not problems, "\n".join(problems)
