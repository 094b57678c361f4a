"""``convert_request`` to another provider records no source spelling, and that changes nothing.

The source's spelling (``mapping/spelling.py``) is read back only by the source's own mapper; other
targets ignore the entries. Recording it costs an encode of the body by the source's encoder and a walk
of both (about three quarters of an OpenAI Chat decode), so ``convert_request`` skips it when the target
is another mapper. Every real request fixture, converted to every other provider under every policy,
gives the same body, the same report and the same error with the record skipped and with it forced on.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest

from interlingua import conversion
from interlingua.conversion import convert_request
from interlingua.errors import InterlinguaError
from interlingua.mapping.registry import available
from interlingua.mapping.report import Report

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"
FORMAT_DIRS = {"anthropic": "anthropic", "bedrock_converse": "bedrock-converse", "cohere": "cohere", "gemini": "gemini", "mistral": "mistral",
               "ollama": "ollama", "openai_chat": "openai-chat", "openai_chat_extra": "openai-chat", "openai_responses": "openai-responses"}
CASES = sorted((p, FORMAT_DIRS[p.parent.name]) for p in REAL.glob("*/*.request.json") if p.parent.name in FORMAT_DIRS)
RESPONSES = sorted((p, FORMAT_DIRS[p.parent.name]) for p in REAL.glob("*/*.response.json") if p.parent.name in FORMAT_DIRS)


def _outcome(body: dict[str, Any], source: str, target: str, policy: Any) -> Any:
    report = Report()
    try:
        value = convert_request(body, source=source, target=target, policy=policy, report=report).value
    except InterlinguaError as exc:
        return type(exc).__name__, str(exc)
    return json.dumps(value, sort_keys=True), [repr(e) for e in report]


def test_there_are_cases() -> None:
    assert len(CASES) > 100


@pytest.mark.parametrize(("path", "source"), CASES, ids=lambda v: v.name if isinstance(v, Path) else v)
def test_skipping_the_record_changes_nothing(path: Path, source: str, monkeypatch: pytest.MonkeyPatch) -> None:
    body = json.loads(path.read_bytes())
    for target in available():
        if target == source:
            continue
        for policy in ("drop", "error"):
            skipped = _outcome(body, source, target, policy)
            with monkeypatch.context() as m:
                m.setattr(conversion, "spelling_unused", contextlib.nullcontext)
                recorded = _outcome(body, source, target, policy)
            assert skipped == recorded, (target, policy)


def test_the_record_is_skipped_for_another_target_and_kept_for_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    from interlingua.mapping import spelling

    seen: list[bool] = []
    real = spelling._spelling_of

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(True)
        return real(*args, **kwargs)

    monkeypatch.setattr(spelling, "_spelling_of", spy)
    body = json.loads(next(p for p, s in CASES if s == "openai-chat").read_bytes())
    convert_request(body, source="openai-chat", target="anthropic", model="claude-sonnet-4-5", policy="drop")
    assert seen == []
    convert_request(body, source="openai-chat", target="openai-chat", policy="drop")
    convert_request(body, source="openai-chat", target="canonical")
    assert len(seen) == 2


@pytest.mark.parametrize(("path", "source"), RESPONSES, ids=lambda v: v.name if isinstance(v, Path) else v)
def test_convert_response_skips_the_record_alike(path: Path, source: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from interlingua.conversion import convert_response

    body = json.loads(path.read_bytes())

    def outcome(target: str) -> Any:
        report = Report()
        try:
            value = convert_response(body, source=source, target=target, policy="drop", report=report).value
        except InterlinguaError as exc:
            return type(exc).__name__, str(exc)
        return json.dumps(value, sort_keys=True), [repr(e) for e in report]

    for target in available():
        if target == source:
            continue
        skipped = outcome(target)
        with monkeypatch.context() as m:
            m.setattr(conversion, "spelling_unused", contextlib.nullcontext)
            recorded = outcome(target)
        assert skipped == recorded, target
