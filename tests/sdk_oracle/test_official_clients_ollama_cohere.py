"""Ollama and Cohere bodies sent with the official clients over a mock transport (issue 25, "official clients").

``sdk_oracle.clients.send`` drives ``ollama.Client.chat`` and ``cohere.ClientV2.chat`` / ``chat_stream`` (over
``httpx.MockTransport``) with a body's keys as keyword arguments: an unknown key is a ``TypeError``, and what the
client puts on the wire must be the body, except for each client's own documented normalizations. These tests
check that the check itself works on real bodies (pydantic-ai's Cohere recordings, Ollama's documented examples)
and fails on a body a client refuses or changes; ``test_sdk_bodies.py`` and the corpus oracle run it on every body
the mappers write.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from interlingua.mapping import get_mapper

from .clients import CLIENT_TARGETS, _client, client_drops, send

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"
OLLAMA_TOOLS_HISTORY = REAL / "ollama" / "ollama_docs.chat_tools_history.request.json"
OLLAMA_IMAGES = REAL / "ollama" / "ollama_docs.chat_images.request.json"
COHERE_TOOLS = REAL / "cohere" / "pai_test_tool_choice_matrix_tools_plus_output_cohere.1.request.json"


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_bytes())


def test_ollama_and_cohere_are_client_targets() -> None:
    assert {"ollama", "cohere"} <= set(CLIENT_TARGETS)


@pytest.mark.parametrize("path", [OLLAMA_TOOLS_HISTORY, OLLAMA_IMAGES], ids=lambda p: p.name)
def test_real_ollama_requests_are_sent_as_given(path: Path) -> None:
    body = _load(path)
    assert send("ollama", body) == []
    _, recorder = _client("ollama")
    assert recorder.sent["model"] == body["model"] and len(recorder.sent["messages"]) == len(body["messages"])


def test_ollama_round_trip_of_a_real_request_is_sent_as_given() -> None:
    body = _load(OLLAMA_TOOLS_HISTORY)
    mapper = get_mapper("ollama")
    out = mapper.encode_request(mapper.decode_request(body).value, model=body["model"], policy="error").value
    assert send("ollama", out) == []


def test_real_cohere_request_is_sent_as_given_with_chat_and_chat_stream() -> None:
    body = _load(COHERE_TOOLS)
    assert body["stream"] is False and send("cohere", body) == []
    _, recorder = _client("cohere")
    assert recorder.sent == body
    streamed = {**body, "stream": True}
    assert send("cohere", streamed) == []
    assert recorder.sent == streamed


def test_cohere_body_from_another_provider_is_sent_as_given() -> None:
    chat = _load(REAL / "openai_chat" / sorted(p.name for p in (REAL / "openai_chat").glob("*.request.json"))[0])
    t = get_mapper("openai-chat").decode_request(chat).value
    out = get_mapper("cohere").encode_request(t, model="command-a-03-2025", policy="drop").value
    assert send("cohere", out) == []


@pytest.mark.parametrize("target,path", [("ollama", OLLAMA_TOOLS_HISTORY), ("cohere", COHERE_TOOLS)])
def test_a_key_the_client_method_does_not_take_is_refused(target: str, path: Path) -> None:
    body = {**_load(path), "temperature_typo": 0.2}
    assert send(target, body) == [f"{target} client refused the body: TypeError: unexpected keyword argument 'temperature_typo'"]


def test_a_message_key_the_ollama_client_drops_is_a_problem() -> None:
    body = copy.deepcopy(_load(OLLAMA_TOOLS_HISTORY))
    body["messages"][0]["name"] = "alice"  # not a field of ollama._types.Message: the client leaves it out
    problems = send("ollama", body)
    assert problems and "sent another body" in problems[0]


def test_ollama_server_keys_the_python_client_lags_behind_are_listed_not_failed() -> None:
    body = copy.deepcopy(_load(OLLAMA_TOOLS_HISTORY))
    body["messages"][1]["tool_calls"][0]["id"] = "call_1"
    body["messages"][2]["tool_call_id"] = "call_1"
    body["tools"][0]["function"]["parameters"]["additionalProperties"] = False
    assert send("ollama", body) == []
    assert client_drops("ollama", body) == [
        "/tools/0/function/parameters/additionalProperties",
        "/messages/1/tool_calls/0/id",
        "/messages/2/tool_call_id",
    ]
    _, recorder = _client("ollama")
    assert "tool_call_id" not in recorder.sent["messages"][2]
