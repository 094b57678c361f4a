"""The five built-in mappers are the first users of the conformance suite.

They declare no ``known_gaps``: what the suite found in them is fixed in the mappers (each with a
regression test in its own test directory).

Their supported subsets come from the strategies of their own property tests
(loaded by path, so this module does not depend on how pytest names them). Where a mapper's
property tests generate only one side (canonical transcripts, or wire requests), the other side is
declared only when it adds checks: Gemini and Ollama transcripts are their generated wire requests
decoded (realistic transcripts for the mutation and loss rules). OpenAI Chat and Anthropic declare
no wire requests: their tests have no wire strategy, and encoded transcripts would only repeat the
transcript round trip. Gemini and Ollama declare no tool-call id rule: neither wire format
constrains call ids (Gemini ``functionCall.id`` is optional free text, Ollama sends none).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from interlingua.mapping import get_mapper
from interlingua.testing.conformance import ConformanceProfile, MapperConformance

TESTS = Path(__file__).parent.parent
REAL = TESTS / "fixtures" / "real"


def _files(folder: str, *suffixes: str) -> list[Path]:
    return sorted(p for p in (REAL / folder).iterdir() if p.name.endswith(suffixes))


def _strategy(path: str, name: str) -> Any:
    """A strategy defined in a provider's property test module."""
    spec = importlib.util.spec_from_file_location(f"_conformance_{Path(path).stem}", TESTS / path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def _decoded(mapper_name: str, requests: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[Any]:
    """Transcripts of a mapper's supported subset: its supported wire requests, decoded."""
    mapper = get_mapper(mapper_name)
    return requests.map(lambda body: mapper.decode_request(body).value)


def _responses_spelling(body: dict[str, Any]) -> dict[str, Any]:
    """A generated Responses request in the mapper's own spelling.

    The one representation choice the generated bodies differ in: a ``type: "message"`` item
    holding exactly one ``input_text`` part is the same message with string content
    (tests/providers/openai_responses/conftest.py ``REPRESENTATION_CHOICES``).
    """
    out = dict(body)
    items = []
    for item in body["input"]:
        content = item.get("content") if isinstance(item, dict) else None
        if item.get("type") == "message" and isinstance(content, list) and len(content) == 1 and set(content[0]) == {"type", "text"} and content[0]["type"] == "input_text":
            item = {"role": item["role"], "content": content[0]["text"]}
        items.append(item)
    out["input"] = items
    return out


_GEMINI_REQUESTS = _strategy("providers/gemini/test_gemini_property.py", "request")()
_OLLAMA_REQUESTS = _strategy("providers/ollama/test_ollama_property.py", "request")()


class TestOpenAIChat(MapperConformance):
    mapper = get_mapper("openai-chat")
    profile = ConformanceProfile(
        transcripts=_strategy("providers/openai_chat/test_openai_chat_property.py", "transcripts")(),
        streams=_files("openai_chat", ".sse"),
        samples=_files("openai_chat", ".json"),
        malformed_samples=[
            {
                "messages": [
                    {"role": "user", "content": "hi"},
                    {"role": "assistant", "content": None, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1'}}]},
                ]
            }
        ],
    )


class TestOpenAIResponses(MapperConformance):
    mapper = get_mapper("openai-responses")
    profile = ConformanceProfile(
        transcripts=_strategy("providers/openai_responses/test_oaresp_property.py", "transcript")(),
        requests=_strategy("providers/openai_responses/test_oaresp_property.py", "request_body")().map(_responses_spelling),
        streams=_files("openai_responses", ".sse"),
        samples=_files("openai_responses", ".json"),
        malformed_samples=[{"input": [{"type": "function_call", "call_id": "call_1", "name": "f", "arguments": "[1"}]}],
    )


class TestAnthropic(MapperConformance):
    mapper = get_mapper("anthropic")
    profile = ConformanceProfile(
        transcripts=_strategy("providers/anthropic/test_anthropic_property.py", "transcripts")(),
        streams=_files("anthropic", ".sse"),
        samples=_files("anthropic", ".json"),
        model=_strategy("providers/anthropic/test_anthropic_property.py", "MODEL"),
    )


class TestGemini(MapperConformance):
    mapper = get_mapper("gemini")
    profile = ConformanceProfile(
        requests=_GEMINI_REQUESTS,
        transcripts=_decoded("gemini", _GEMINI_REQUESTS),
        streams=_files("gemini", ".sse"),
        samples=_files("gemini", ".json"),
    )


class TestOllama(MapperConformance):
    mapper = get_mapper("ollama")
    profile = ConformanceProfile(
        requests=_OLLAMA_REQUESTS,
        transcripts=_decoded("ollama", _OLLAMA_REQUESTS),
        streams=_files("ollama", ".ndjson"),
        samples=_files("ollama", ".json"),
    )
