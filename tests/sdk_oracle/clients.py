"""The providers' official Python clients as an oracle: a body is sent with ``create(**body)`` over a mock transport.

The SDK types (``oracle.check_request``) say what a body may hold; the clients add rules the types cannot
express, checked before anything is sent:

- every key must be a keyword argument of the method (``client.messages.create(**body)`` raises
  ``TypeError: ... unexpected keyword argument 'temperature'`` for a key the API no longer takes);
- Anthropic: a non-streaming call whose ``max_tokens`` may take longer than 10 minutes is refused
  (``ValueError: Streaming is required ...``: ``anthropic._base_client.BaseClient._calculate_nonstreaming_timeout``,
  3600 s x max_tokens / 128000 > 600 s, and ``anthropic._constants.MODEL_NONSTREAMING_TOKENS`` per model);
- what the client puts on the wire must be the body itself (nothing dropped, renamed or added by the client).

Ollama (``ollama.Client.chat``) and Cohere (``cohere.ClientV2.chat`` / ``chat_stream``) are driven the same way,
over ``httpx.MockTransport`` (their HTTP library), with the body's keys as keyword arguments. What each client
itself changes on the way is told apart from a problem:

- Ollama: ``_copy_messages`` leaves out a message key holding a false value (``"content": ""``, ``"images": []``;
  the server reads an absent key as that zero value), the request is dumped with ``exclude_none``, ``tools``
  is always written (``[]`` without tools) and so is ``stream`` (the method's default ``false`` when the body has
  none; the server's default is ``true``: call with ``stream=`` to choose); the keys
  the server takes and the Python models lag behind (``oracle.OLLAMA_SERVER_KEYS``: ``Message.tool_call_id``,
  ``ToolCall.id``) are left out by the client (``ollama._types.Message`` ignores unknown keys), and so is every
  JSON Schema keyword of a tool's ``parameters`` that ``ollama._types.Tool`` does not hold (``additionalProperties``,
  a property's ``anyOf`` or ``format``, ...): that is the SDK's lag, listed by ``client_drops`` rather than failed;
- Cohere: the client writes ``"stream": false`` (``chat``) or ``true`` (``chat_stream``) itself, so ``stream``
  selects the method and is compared as the method's.

No network: the transport is ``httpx2.MockTransport`` / ``httpx.MockTransport`` (the clients' own HTTP library),
answering a minimal valid response (the call is checked, not the answer). ``send(target, body)`` returns the
problems (empty: sent as is).
"""

from __future__ import annotations

import inspect
import json
from functools import cache
from typing import Any

import httpx
import httpx2

from .oracle import OLLAMA_SERVER_KEYS

CLIENT_TARGETS = ("openai-chat", "openai-responses", "anthropic", "ollama", "cohere")
"""Targets whose official client is driven here (Gemini: SDK types only, see ``oracle.py``)."""

_ANSWERS: dict[str, dict[str, Any]] = {
    "/v1/messages": {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": [], "stop_reason": "end_turn",
        "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1},
    },
    "/v1/chat/completions": {
        "id": "c1", "object": "chat.completion", "created": 1, "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "ok"}}],
    },
    "/api/chat": {"model": "m", "created_at": "2025-01-01T00:00:00Z", "message": {"role": "assistant", "content": "ok"}, "done": True},
    "/v2/chat": {"id": "c1", "finish_reason": "COMPLETE", "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}]}},
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

    def httpx(self, request: httpx.Request) -> httpx.Response:
        """The same for clients on ``httpx`` (Ollama, Cohere); a stream is answered with one final record."""
        self.sent = json.loads(request.content)
        answer = _ANSWERS.get(request.url.path, {})
        if isinstance(self.sent, dict) and self.sent.get("stream") is True:
            if request.url.path == "/v2/chat":
                return httpx.Response(200, content=b'event: message-end\ndata: {"type": "message-end"}\n\n', headers={"content-type": "text/event-stream"})
            return httpx.Response(200, content=json.dumps(answer).encode() + b"\n", headers={"content-type": "application/x-ndjson"})
        return httpx.Response(200, json=answer)


@cache
def _client(target: str) -> tuple[Any, _Recorder]:
    recorder = _Recorder()
    if target == "ollama":
        import ollama

        return ollama.Client(host="http://127.0.0.1:11434", transport=httpx.MockTransport(recorder.httpx)), recorder
    if target == "cohere":
        import cohere

        client = httpx.Client(transport=httpx.MockTransport(recorder.httpx))
        return cohere.ClientV2(api_key="test", base_url="https://api.cohere.test", httpx_client=client, max_retries=0, log_warning_experimental_features=False), recorder
    http = httpx2.Client(transport=httpx2.MockTransport(recorder))
    if target == "anthropic":
        import anthropic

        return anthropic.Anthropic(api_key="test", base_url="https://api.anthropic.test", http_client=http, max_retries=0), recorder
    import openai

    return openai.OpenAI(api_key="test", base_url="https://api.openai.test/v1", http_client=http, max_retries=0), recorder


def send(target: str, body: dict[str, Any]) -> list[str]:
    """Problems sending ``body`` with ``target``'s official client (``create(**body)``); empty: sent as it is."""
    client, recorder = _client(target)
    args = dict(body)
    if target == "cohere":
        create = client.chat_stream if args.pop("stream", None) is True else client.chat
    else:
        create = {
            "anthropic": lambda: client.messages.create,
            "openai-chat": lambda: client.chat.completions.create,
            "openai-responses": lambda: client.responses.create,
            "ollama": lambda: client.chat,
        }[target]()
    # the class's function: the Cohere client's bound methods are wrapped (``*args, **kwargs``)
    params = inspect.signature(getattr(type(client), create.__name__, create) if target == "cohere" else create).parameters
    unknown = [k for k in args if k not in params]
    if unknown:  # create(**body) raises TypeError on the first; each is named (so a recorded source's own are told apart)
        return [f"{target} client refused the body: TypeError: unexpected keyword argument {k!r}" for k in unknown]
    recorder.sent = None
    try:
        out = create(**args)
        if not isinstance(out, (dict, list)) and hasattr(out, "__next__"):
            for _ in out:  # a stream is sent when it is read
                pass
    except (TypeError, ValueError) as exc:
        return [f"{target} client refused the body: {type(exc).__name__}: {exc}"]
    want = _as_sent(target, body)
    if recorder.sent != want:
        return [f"{target} client sent another body than the one given: {_diff(want, recorder.sent)}"]
    return []


def _as_sent(target: str, body: dict[str, Any]) -> dict[str, Any]:
    """``body`` as the client puts it on the wire when it changes nothing but its own documented normalizations
    (module docstring): what ``send`` compares the sent body with."""
    if target == "cohere":
        return {**body, "stream": body.get("stream") is True}
    if target != "ollama":
        return body
    out = {k: v for k, v in body.items() if v is not None}
    out.setdefault("stream", False)  # chat(stream=False) is the method's default, written by the client
    if isinstance(out.get("messages"), list):
        out["messages"] = [_ollama_message_as_sent(m) for m in out["messages"]]
    # ``tools=list(_copy_tools(tools))``: the client always writes the list, empty without tools
    out["tools"] = [_kept(t, _OLLAMA_TOOL) for t in out["tools"]] if isinstance(out.get("tools"), list) else []
    return out


# What ``ollama._types.Tool`` holds, level by level (``Tool``, ``Tool.Function``, ``Tool.Function.Parameters``,
# ``Parameters.Property``); ``_copy_tools`` validates a tool into it and dumps it, so any other JSON Schema keyword
# (``additionalProperties``, a property's ``anyOf``, ``format``, nested ``properties``, ...) is left out by the client.
_PROPERTY: dict[str, Any] = {"type": None, "items": None, "description": None, "enum": None}
_OLLAMA_TOOL: dict[str, Any] = {
    "type": None,
    "function": {"name": None, "description": None, "parameters": {"type": None, "$defs": None, "items": None, "required": None, "properties": {"*": _PROPERTY}}},
}


def _kept(value: Any, shape: dict[str, Any] | None, path: str = "", dropped: list[str] | None = None) -> Any:
    """``value`` with only the keys of ``shape`` (``None``: any value; ``"*"``: every key, each of that shape);
    the keys left out are appended to ``dropped`` as JSON pointers."""
    if shape is None or not isinstance(value, dict):
        return value
    out = {}
    for k, v in value.items():
        sub = shape.get("*", shape.get(k, _MISSING)) if "*" in shape else shape.get(k, _MISSING)
        if sub is _MISSING:
            if dropped is not None:
                dropped.append(f"{path}/{k}")
        elif v is not None:
            out[k] = _kept(v, sub, f"{path}/{k}", dropped)
    return out


_MISSING: Any = object()


def _ollama_message_as_sent(message: Any) -> Any:
    if not isinstance(message, dict):
        return message
    out = {k: v for k, v in message.items() if v and k not in OLLAMA_SERVER_KEYS["Message"]}
    if isinstance(out.get("tool_calls"), list):
        out["tool_calls"] = [{k: v for k, v in c.items() if k not in OLLAMA_SERVER_KEYS["ToolCall"]} if isinstance(c, dict) else c for c in out["tool_calls"]]
    return out


def client_drops(target: str, body: dict[str, Any]) -> list[str]:
    """The keys of ``body`` the ``target`` client leaves out because its types lag behind the server
    (Ollama: ``oracle.OLLAMA_SERVER_KEYS``, and the JSON Schema keywords ``ollama._types.Tool`` does not hold),
    as JSON pointers; empty for the other targets."""
    if target != "ollama" or not isinstance(body.get("messages"), list):
        return []
    out: list[str] = []
    for i, tool in enumerate(body.get("tools") or ()):
        _kept(tool, _OLLAMA_TOOL, f"/tools/{i}", out)
    for i, m in enumerate(body["messages"]):
        if not isinstance(m, dict):
            continue
        out += [f"/messages/{i}/{k}" for k in m if k in OLLAMA_SERVER_KEYS["Message"]]
        for j, c in enumerate(m.get("tool_calls") or ()):
            if isinstance(c, dict):
                out += [f"/messages/{i}/tool_calls/{j}/{k}" for k in c if k in OLLAMA_SERVER_KEYS["ToolCall"]]
    return out


def _diff(want: Any, got: Any) -> str:
    if isinstance(want, dict) and isinstance(got, dict):
        keys = sorted(set(want) ^ set(got)) + sorted(k for k in set(want) & set(got) if want[k] != got[k])
        return ", ".join(keys[:8])
    return f"{str(want)[:80]} != {str(got)[:80]}"


__all__ = ["CLIENT_TARGETS", "client_drops", "send"]
