"""The providers' official Python clients as an oracle: a body is sent with ``create(**body)`` over a mock transport.

The SDK types (``oracle.check_request``) say what a body may hold; the clients add rules the types cannot
express, checked before anything is sent:

- every key must be a keyword argument of the method (``client.messages.create(**body)`` raises
  ``TypeError: ... unexpected keyword argument 'temperature'`` for a key the API no longer takes);
- Anthropic: a non-streaming call whose ``max_tokens`` may take longer than 10 minutes is refused
  (``ValueError: Streaming is required ...``: ``anthropic._base_client.BaseClient._calculate_nonstreaming_timeout``,
  3600 s x max_tokens / 128000 > 600 s, and ``anthropic._constants.MODEL_NONSTREAMING_TOKENS`` per model);
- what the client puts on the wire must be the body itself (nothing dropped, renamed or added by the client).

No network: the transport is ``httpx2.MockTransport`` (the clients' own HTTP library), answering a minimal valid
response (the call is checked, not the answer). ``send(target, body)`` returns the problems (empty: sent as is).
"""

from __future__ import annotations

import inspect
import json
from functools import cache
from typing import Any

import httpx2

CLIENT_TARGETS = ("openai-chat", "openai-responses", "anthropic")
"""Targets whose official client is driven here (the others: SDK types only, see ``oracle.py``)."""

_ANSWERS: dict[str, dict[str, Any]] = {
    "/v1/messages": {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": [], "stop_reason": "end_turn",
        "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1},
    },
    "/v1/chat/completions": {
        "id": "c1", "object": "chat.completion", "created": 1, "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "ok"}}],
    },
    "/v1/responses": {
        "id": "r1", "object": "response", "created_at": 1, "model": "m", "output": [], "parallel_tool_calls": True,
        "tool_choice": "auto", "tools": [], "status": "completed",
    },
}


class _Recorder:
    """The mock transport's handler: keeps the last request, answers a minimal response."""

    def __init__(self) -> None:
        self.sent: Any = None

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.sent = json.loads(request.content)
        if isinstance(self.sent, dict) and self.sent.get("stream") is True:
            return httpx2.Response(200, content=b"", headers={"content-type": "text/event-stream"})
        return httpx2.Response(200, json=_ANSWERS.get(request.url.path, {}))


@cache
def _client(target: str) -> tuple[Any, _Recorder]:
    recorder = _Recorder()
    http = httpx2.Client(transport=httpx2.MockTransport(recorder))
    if target == "anthropic":
        import anthropic

        return anthropic.Anthropic(api_key="test", base_url="https://api.anthropic.test", http_client=http, max_retries=0), recorder
    import openai

    return openai.OpenAI(api_key="test", base_url="https://api.openai.test/v1", http_client=http, max_retries=0), recorder


def send(target: str, body: dict[str, Any]) -> list[str]:
    """Problems sending ``body`` with ``target``'s official client (``create(**body)``); empty: sent as it is."""
    client, recorder = _client(target)
    create = {
        "anthropic": lambda: client.messages.create,
        "openai-chat": lambda: client.chat.completions.create,
        "openai-responses": lambda: client.responses.create,
    }[target]()
    params = inspect.signature(create).parameters
    unknown = [k for k in body if k not in params]
    if unknown:  # create(**body) raises TypeError on the first; each is named (so a recorded source's own are told apart)
        return [f"{target} client refused the body: TypeError: unexpected keyword argument {k!r}" for k in unknown]
    recorder.sent = None
    try:
        create(**body)
    except (TypeError, ValueError) as exc:
        return [f"{target} client refused the body: {type(exc).__name__}: {exc}"]
    if recorder.sent != body:
        return [f"{target} client sent another body than the one given: {_diff(body, recorder.sent)}"]
    return []


def _diff(want: Any, got: Any) -> str:
    if isinstance(want, dict) and isinstance(got, dict):
        keys = sorted(set(want) ^ set(got)) + sorted(k for k in set(want) & set(got) if want[k] != got[k])
        return ", ".join(keys[:8])
    return f"{str(want)[:80]} != {str(got)[:80]}"


__all__ = ["CLIENT_TARGETS", "send"]
