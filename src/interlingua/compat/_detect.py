"""Decide which stored format a parsed JSON value is.

Rules, first match wins (each looks at every message, so one odd message does not decide):

1. An object with ``schema_version`` (a transcript document), or a list of objects that all
   have ``schema_version`` (envelopes of one session): ``interlingua``.
2. A list of ``{"kind": "request"|"response", "parts": [...]}``: ``pydantic-ai``.
3. A list of ``{"type": <LangChain message type>, "data": {...}}``: ``langchain``.
4. A list of ``{"parts": [...]}`` with roles ``user``/``model`` (or none), or an object with
   ``contents``: ``gemini``.
5. A list with Responses items (``type`` of ``message``, ``function_call``,
   ``function_call_output``, ``reasoning``, ...; or ``input_text``/``output_text`` parts),
   or an object with ``input``: ``openai-responses`` (an ``input_audio`` part is not counted: Chat
   Completions has one too).
6. A list of messages whose every content block is a one-member object without ``type``
   (``{"text": ...}``, ``{"toolUse": {...}}``, ...: Converse ``ContentBlock`` unions), or a
   request body with ``inferenceConfig``/``toolConfig``/``modelId``: ``bedrock-converse``.
7. Cohere v2: a message with ``tool_plan``, an assistant ``thinking`` part (string ``thinking``) without a
   ``signature`` (Anthropic's always has one), a tool message with ``document`` parts; or a body
   with ``p``/``k``/``safety_mode``/``citation_options``/``strict_tools``/``documents``, a
   ``tool_choice`` of ``REQUIRED``/``NONE``, a ``thinking`` object with ``token_budget``, or
   ``stop_sequences`` without ``max_tokens`` (Anthropic requires it): ``cohere``.
8. A request body whose own keys name its API: ``system``, an Anthropic ``thinking`` config
   (``ThinkingConfigParam``: a ``type`` of ``enabled`` with ``budget_tokens``, ``disabled``,
   ``adaptive`` or ``between_tools``; z.ai's ``thinking`` toggle is not one), ``anthropic_version``,
   ``stop_sequences``, ``top_k``, tools with ``input_schema`` or an object ``tool_choice``
   with an Anthropic ``type``: ``anthropic``; ``options``, ``keep_alive``, ``think``,
   ``format``: ``ollama``.
9. A list of ``{"role", ...}`` messages (or an object with ``messages``):
   ``anthropic`` when a block is ``tool_use``/``tool_result``/``thinking`` (with a string
   ``thinking``: Mistral's ``ThinkChunk`` holds a list)/``redacted_thinking`` or an image has a ``source``; ``ollama`` when a message has
   ``images``/``thinking``/``tool_name`` or a tool call's ``arguments`` is an object;
   else ``openai-chat`` (which also reads plain ``{role, content: str}`` lists of the
   other two the same way).

Stored conversations (issue 26) are told first, by shapes no API message list has (:func:`_stored_format`):
an object with a node ``mapping`` (``chatgpt-export``) or ``chat_messages`` (``claude-export``);
``conversations`` of ``{"from", "value"}`` turns, or a bare list of them (``sharegpt``); serialized LangChain
messages (``{"lc": 1, "type": "constructor", ...}``: ``langchain``); messages with UIMessage ``parts``
(``vercel-ui``), with ModelMessage parts (``tool-call``/``tool-result``, ``image`` with ``image``, ``file``
with ``data``: ``vercel-model``), with LLaMA-Factory ``{"type", "value"}`` parts (``llamafactory``); a
``messages`` record with an ``images``/``videos``/``audios`` list (``hf-messages``) or a ``weight`` on a
message (``openai-finetune``).

Anything else raises :class:`FormatDetectionError` naming what was looked for.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import UnknownFormatError
from ..mapping.wire import a_json_type
from ._langchain import TYPES as _LANGCHAIN_TYPES

__all__ = ["FormatDetectionError", "LOOKED_FOR", "detect_format"]

LOOKED_FOR = (
    "interlingua: an object with 'schema_version' (a transcript document), or a list of envelopes each with 'schema_version'",
    "pydantic-ai: a list of {'kind': 'request'|'response', 'parts': [...]}",
    "langchain: a list of {'type': 'human'|'ai'|'system'|'tool'|'function'|'chat', 'data': {...}}",
    "gemini: a list of {'role': 'user'|'model', 'parts': [...]}, or an object with 'contents'",
    "openai-responses: a list of input items ({'type': 'message'|'function_call'|'function_call_output'|'reasoning', ...}), or an object with 'input'",
    "bedrock-converse: messages whose content blocks are one-member objects ({'text': ...}, {'toolUse': {...}}), or a body with 'inferenceConfig'/'toolConfig'",
    "cohere: messages with 'tool_plan', unsigned 'thinking' parts or 'document' tool content, or a body with 'p'/'k'/'safety_mode'/'documents' or tool_choice 'REQUIRED'/'NONE'",
    "anthropic / ollama / openai-chat: a list of {'role', 'content'} messages, or an object with 'messages'",
    # --- issue 26 part a: agent logs and agent framework stores (checked first) ---
    "claude-code: Claude Code session records ({'type': 'user'|'assistant'|..., 'uuid', 'parentUuid', 'sessionId', 'message'}), or a web session export ({'data': [records], 'has_more'})",
    "codex: Codex CLI rollout records ({'timestamp', 'type': 'session_meta'|'response_item'|..., 'payload'}, or a legacy {'id', 'timestamp'} first line)",
    "adk: a Google ADK Session ({'id', 'app_name', 'events'}), eval set ({'eval_set_id', 'eval_cases'}), eval case ({'eval_id', 'conversation'}) or old eval data ([{'query', 'expected_tool_use', 'reference'}])",
    "mcp-sampling: an MCP sampling/createMessage request or result (JSON-RPC or bare: 'maxTokens', 'systemPrompt', single-block 'content', 'toolUseId'), or a list of them",
    # --- stored conversations (issue 26)
    "chatgpt-export: a conversation with a node 'mapping' (and 'current_node')",
    "claude-export: a conversation with 'chat_messages'",
    "sharegpt: {'conversations': [{'from', 'value'}]}, or a list of {'from', 'value'} turns",
    "langchain (serialized): a list of {'lc': 1, 'type': 'constructor', 'id': [..., 'HumanMessage'], 'kwargs'}",
    "vercel-ui / vercel-model: messages with UIMessage 'parts', or ModelMessage 'tool-call'/'tool-result'/'image'/'file' parts",
    "llamafactory / hf-messages / openai-finetune: 'messages' with {'type', 'value'} parts; with an 'images' list; with a 'weight'",
)
"""What :func:`detect_format` looks for, in order (used in its error message)."""

_RESPONSES_TYPES = frozenset(
    {
        "message", "function_call", "function_call_output", "reasoning", "custom_tool_call", "custom_tool_call_output",
        "web_search_call", "file_search_call", "computer_call", "computer_call_output", "image_generation_call",
        "code_interpreter_call", "local_shell_call", "local_shell_call_output", "mcp_call", "mcp_list_tools",
        "mcp_approval_request", "mcp_approval_response", "item_reference", "compaction",
    }
)
# ``input_audio`` is left out: Chat Completions has an ``input_audio`` content part too
# (``ChatCompletionContentPartInputAudioParam``), so it tells neither format.
_RESPONSES_PARTS = frozenset({"input_text", "output_text", "input_image", "input_file"})
_ANTHROPIC_BLOCKS = frozenset({"tool_use", "tool_result", "thinking", "redacted_thinking", "server_tool_use", "web_search_tool_result", "search_result"})


class FormatDetectionError(UnknownFormatError):
    """:func:`detect_format` could not tell the format; the message lists what it looked for."""


def _fail(why: str) -> FormatDetectionError:
    looked = "\n".join(f"  - {x}" for x in LOOKED_FOR)
    return FormatDetectionError(f"cannot detect the format: {why}; looked for:\n{looked}\n(pass the format explicitly to skip detection)")


def _blocks(msg: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    content = msg.get("content")
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


_CONVERSE_BLOCKS = frozenset({"text", "image", "document", "video", "audio", "toolUse", "toolResult", "reasoningContent", "cachePoint", "guardContent", "citationsContent", "searchResult"})


def _kind(obj: Mapping[str, Any]) -> str | None:
    """``obj["type"]`` when a string, ``None`` when absent or null, else ``""`` (matches no known type)."""
    value = obj.get("type")
    return value if value is None or isinstance(value, str) else ""


def _converse(messages: list[Any]) -> bool:
    """Every block of every message is a one-member Converse ``ContentBlock`` (and there is at least one)."""
    blocks: list[Any] = []
    for m in messages:
        content = m.get("content") if isinstance(m, dict) else None
        blocks.extend(content if isinstance(content, list) else [None])
    return bool(blocks) and all(isinstance(b, dict) and len(b) == 1 and next(iter(b)) in _CONVERSE_BLOCKS for b in blocks)


_COHERE_BODY_KEYS = frozenset({"p", "k", "safety_mode", "citation_options", "strict_tools", "documents", "priority"})


def _cohere_messages(messages: list[Any]) -> bool:
    for m in messages:
        if not isinstance(m, dict):
            continue
        if "tool_plan" in m:
            return True
        blocks = _blocks(m)
        if m.get("role") == "assistant" and any(_text_thinking(b) and "signature" not in b for b in blocks):
            return True
        if m.get("role") == "tool" and any(b.get("type") == "document" and isinstance(b.get("document"), dict) for b in blocks):
            return True
    return False


def _cohere_body(body: Mapping[str, Any]) -> bool:
    thinking = body.get("thinking")
    return bool(
        _COHERE_BODY_KEYS & body.keys()
        or body.get("tool_choice") in ("REQUIRED", "NONE")
        or (isinstance(thinking, dict) and "token_budget" in thinking)
        or ("stop_sequences" in body and "max_tokens" not in body)
    )


def _message_list(messages: list[Any]) -> str:
    if messages and all(isinstance(m, dict) and m.get("role") in ("user", "assistant") for m in messages) and _converse(messages):
        return "bedrock-converse"
    if not messages:
        raise _fail("the message list is empty")
    if not all(isinstance(m, dict) for m in messages):
        raise _fail("not every message is a JSON object")
    if any(_kind(m) in _RESPONSES_TYPES or (_kind(m) is None and any(_kind(b) in _RESPONSES_PARTS for b in _blocks(m))) for m in messages):
        return "openai-responses"
    if not all("role" in m for m in messages):
        raise _fail("some messages have no 'role'")
    if _cohere_messages(messages):
        return "cohere"
    for m in messages:
        for b in _blocks(m):
            if (_kind(b) in _ANTHROPIC_BLOCKS and (_kind(b) != "thinking" or _text_thinking(b))) or (_kind(b) in ("image", "document") and isinstance(b.get("source"), dict)):
                return "anthropic"
    for m in messages:
        if any(k in m for k in ("images", "thinking", "tool_name")):
            return "ollama"
        calls = m.get("tool_calls")
        if isinstance(calls, list) and any(isinstance(c, dict) and isinstance(c.get("function"), dict) and isinstance(c["function"].get("arguments"), dict) and "id" not in c for c in calls):
            return "ollama"
    return "openai-chat"


_ANTHROPIC_BODY_KEYS = frozenset({"system", "anthropic_version", "stop_sequences", "top_k"})
# Anthropic's ``thinking`` request parameter (SDK type ``ThinkingConfigParam``): ``{"type": "enabled",
# "budget_tokens": N}``, ``{"type": "disabled" | "adaptive" | "between_tools"}``, optionally ``display``.
# z.ai's chat ``thinking`` toggle (``{"type": "enabled", "clear_thinking": false}``) is not one.
_ANTHROPIC_THINKING_TYPES = frozenset({"enabled", "disabled", "adaptive", "between_tools"})
_ANTHROPIC_THINKING_KEYS = frozenset({"type", "budget_tokens", "display"})


def _text_thinking(block: Any) -> bool:
    """A ``thinking`` content block whose ``thinking`` is a string (Anthropic's and Cohere's; Mistral's
    ``ThinkChunk`` holds a list of text chunks instead)."""
    return isinstance(block, dict) and block.get("type") == "thinking" and isinstance(block.get("thinking"), str)


def _anthropic_thinking(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("type"), str)
        and value["type"] in _ANTHROPIC_THINKING_TYPES
        and not value.keys() - _ANTHROPIC_THINKING_KEYS
        and (value["type"] != "enabled" or "budget_tokens" in value)
    )
_OLLAMA_BODY_KEYS = frozenset({"options", "keep_alive", "think", "format"})


def _body_hint(body: Mapping[str, Any]) -> str | None:
    """A request body's own keys can tell Anthropic and Ollama from OpenAI Chat."""
    tools = body.get("tools")
    if _ANTHROPIC_BODY_KEYS & body.keys() or _anthropic_thinking(body.get("thinking")) or (isinstance(tools, list) and any(isinstance(t, dict) and "input_schema" in t for t in tools)):
        return "anthropic"
    if isinstance(body.get("tool_choice"), dict) and body["tool_choice"].get("type") in ("auto", "any", "tool", "none"):
        return "anthropic"
    if _OLLAMA_BODY_KEYS & body.keys():
        return "ollama"
    return None


# --------------------------------------------------------------------------- stored conversations (issue 26)


def _turns(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(t, dict) and isinstance(t.get("from"), str) and "value" in t and "role" not in t for t in value)


_FINETUNE_KEYS = frozenset({"messages", "tools", "parallel_tool_calls", "functions"})


def _stored_messages(messages: list[Any], record: Mapping[str, Any] | None) -> str | None:
    from . import _finetune, _langchain, _vercel_ai

    if not messages or not all(isinstance(m, dict) for m in messages):
        return None
    if any(_langchain.is_serialized(m) for m in messages):
        return "langchain"
    if all(isinstance(m.get("parts"), list) and m.get("role") in ("system", "user", "assistant") for m in messages) and any(
        _vercel_ai.ui_part_types(p) for m in messages for p in m["parts"]
    ):
        return "vercel-ui"
    if _finetune.typed_content(messages):
        return "llamafactory"
    if any(_vercel_ai.model_part(p) for m in messages for p in (m.get("content") if isinstance(m.get("content"), list) else [])):
        return "vercel-model"
    if record is not None:
        if any(isinstance(record.get(k), list) for k in ("images", "videos", "audios")) and all(isinstance(m.get("content"), str) for m in messages):
            return "hf-messages"
        if "model" not in record and (any("weight" in m for m in messages) or ("parallel_tool_calls" in record and record.keys() <= _FINETUNE_KEYS)):
            return "openai-finetune"
    return None


def _stored_format(obj: Any) -> str | None:
    """The stored-conversation format ``obj`` plainly is, or ``None`` (the API rules decide)."""
    if isinstance(obj, Mapping):
        if isinstance(obj.get("mapping"), dict) and ("current_node" in obj or "title" in obj or "create_time" in obj):
            return "chatgpt-export"
        if isinstance(obj.get("chat_messages"), list):
            return "claude-export"
        if _turns(obj.get("conversations")):
            return "sharegpt"
        if isinstance(obj.get("messages"), list):
            return _stored_messages(obj["messages"], obj)
        return None
    if isinstance(obj, list):
        if _turns(obj):
            return "sharegpt"
        inner = obj[0] if len(obj) == 1 and isinstance(obj[0], list) else obj
        from . import _langchain

        if inner and all(_langchain.is_serialized(m) for m in inner):
            return "langchain"
        return _stored_messages(obj, None)
    return None


def detect_format(obj: Any) -> str:
    """The stored format of ``obj`` (one conversation, parsed JSON), by the rules above.

    Returns:
        A name from :data:`interlingua.compat.FORMATS`.

    Raises:
        FormatDetectionError: the shape matches none of them; the message lists what was looked for.
    """
    stored = _agent_log_format(obj) or _stored_format(obj)
    if stored is not None:
        return stored
    if isinstance(obj, Mapping):
        if "schema_version" in obj:
            return "interlingua"
        if isinstance(obj.get("contents"), list):
            return "gemini"
        if "input" in obj and isinstance(obj.get("input"), list | str):
            return "openai-responses"
        if isinstance(obj.get("messages"), list):
            if {"inferenceConfig", "toolConfig", "modelId", "additionalModelRequestFields"} & obj.keys() or (obj["messages"] and _converse(obj["messages"]) and all(isinstance(m, dict) and m.get("role") in ("user", "assistant") for m in obj["messages"])):
                return "bedrock-converse"
            if _cohere_body(obj):
                return "cohere"
            return _body_hint(obj) or _message_list(obj["messages"])
        raise _fail(f"an object with keys {sorted(obj)[:8]}")
    if not isinstance(obj, list):
        raise _fail(f"{a_json_type(obj)}, not a list or object")
    if not obj:
        raise _fail("the list is empty")
    if not all(isinstance(m, dict) for m in obj):
        raise _fail("not every list entry is a JSON object")
    if all("schema_version" in m for m in obj):  # envelopes of any version (older ones may name "item" otherwise)
        return "interlingua"
    if all(m.get("kind") in ("request", "response") and isinstance(m.get("parts"), list) for m in obj):
        return "pydantic-ai"
    if all(_kind(m) in _LANGCHAIN_TYPES and isinstance(m.get("data"), dict) for m in obj):
        return "langchain"
    if all(isinstance(m.get("parts"), list) and m.get("role", "user") in ("user", "model", "function") for m in obj):
        return "gemini"
    return _message_list(obj)


# --- issue 26 part a: agent logs and agent framework stores ---------------------------------------
# Checked before the rules above: a Codex legacy rollout is Responses items after its first line, an MCP
# request body is a 'messages' object whose single-block content OpenAI Chat would read as "".


def _agent_log_format(obj: Any) -> str | None:
    from . import _adk, _claude_code, _codex, _mcp_sampling

    if isinstance(obj, list) and obj and isinstance(obj[0], dict):
        if _codex.looks_like(obj[0]) and "schema_version" not in obj[0]:
            return "codex"
        if any(_claude_code.looks_like(r) for r in obj[:20]) and all(isinstance(r, dict) and isinstance(r.get("type"), str) for r in obj):
            return "claude-code"
    if _claude_code.is_web_export(obj):  # a Claude Code on the web session export: {"data": [events], ...}
        return "claude-code"
    if _mcp_sampling.looks_like(obj):
        return "mcp-sampling"
    if _adk.looks_like(obj):
        return "adk"
    return None
