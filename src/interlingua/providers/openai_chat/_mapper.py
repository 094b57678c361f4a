"""The OpenAI Chat Completions mapper class (one instance per dialect)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from ...items import ModelCapabilities, Settings, Transcript
from ...mapping.ids import IdRule
from ...mapping.spelling import keeps_spelling
from ...mapping.protocol import Conversion, Framing, ModelResponse
from ...mapping.report import Policy, Report
import dataclasses

import msgspec

from ...items import StopReason
from ...streaming.events import RawEvent, StreamEvent
from ._common import OPENAI_MODELS, DIALECTS, FINISH_TO_STOP, ID_RULE, ISSUER, NAME, Dialect
from ._dialects import DIALECT_RULES
from ...mapping.settings import settings_of
from ...mapping.vendor_models import VendorModels
from ._request import decode_request, encode_request
from ._fields import item_field_table
from ._settings import settings_table
from ...mapping.item_fields import ItemFieldTable
from ...mapping.settings_table import SettingsTable
from ...mapping.empty_ids import links_empty_ids
from ._response import decode_response, encode_response
from ._settings import settings_mirrors
from ._stream import ChatStreamAccumulator

__all__ = ["ID_RULE", "OpenAIChatMapper", "foreign_request_fields", "variant"]

_FOREIGN_BLOCKS = frozenset({"tool_use", "tool_result", "redacted_thinking", "server_tool_use", "web_search_tool_result"})


def foreign_request_fields(body: Mapping[str, Any]) -> str | None:
    """What in a ``messages`` body no Chat Completions request (of any dialect) holds, or ``None``.

    The create params (``openai.types.chat.CompletionCreateParams``; API reference "Create chat
    completion") have no top-level ``system``, function tools carry ``function.parameters`` (never
    ``input_schema``), and content parts are ``text``/``image_url``/``input_audio``/``file``
    (``ChatCompletionContentPartParam``), never ``tool_use``/``tool_result``/``redacted_thinking``
    blocks or an ``image``/``document`` block with a ``source`` object. (Mistral's ``thinking`` part
    is a Chat dialect and is not counted.)
    """
    if "system" in body:
        return "a top-level 'system'"
    tools = body.get("tools")
    if isinstance(tools, list) and any((type(t) is dict or isinstance(t, Mapping)) and "input_schema" in t for t in tools):
        return "a tool with 'input_schema'"
    for message in body.get("messages") or ():  # `type(...) is dict` first: the ABC check costs more
        content = message.get("content") if type(message) is dict or isinstance(message, Mapping) else None
        if type(content) is str:
            continue
        for block in content if isinstance(content, list) else ():
            if not isinstance(block, Mapping):
                continue
            kind = block.get("type")
            if not isinstance(kind, str):
                continue
            if kind in _FOREIGN_BLOCKS or (kind in ("image", "document") and isinstance(block.get("source"), Mapping)):
                return f"a {kind!r} content block"
    return None



@keeps_spelling
class OpenAIChatMapper:
    """OpenAI Chat Completions (``POST /v1/chat/completions``) and OpenAI-compatible endpoints.

    Reading accepts every dialect's fields (DeepSeek ``reasoning_content``, OpenRouter ``reasoning``
    and ``reasoning_details``, Ollama ``reasoning``). Writing puts reasoning back only where the
    dialect accepts it; elsewhere it is left out and reported.

    Args:
        dialect: ``openai`` (default) or a name of the host registry, :data:`interlingua.hosts.HOSTS`
            (registry names ``openai-chat:<dialect>``; each entry holds its rules and sources).

    Raises:
        ValueError: unknown dialect.
    """

    name: str = NAME
    issuer: str = ISSUER
    framing: Framing = "sse"
    stream_end_markers: frozenset[str] = frozenset({"[DONE]"})
    """SSE data that ends a stream without being JSON (OpenAI-compatible servers send it; also after the terminal event)."""
    id_rule: IdRule | None = ID_RULE

    def __init__(self, dialect: Dialect = "openai") -> None:
        if dialect not in DIALECTS:
            raise ValueError(f"unknown OpenAI Chat dialect {dialect!r} (known: {', '.join(DIALECTS)})")
        self.dialect: Dialect = dialect
        self.vendor_models: tuple[VendorModels, ...] = (OPENAI_MODELS,) if dialect == "openai" else ()
        """OpenAI's model ids (the same on Responses: the model carries there); none for another host's dialect."""
        self.settings_table: SettingsTable = settings_table(dialect)
        """What this dialect does with every canonical setting (ADR 0042)."""
        self.item_fields: ItemFieldTable = item_field_table(dialect)
        """What this dialect does with every item field (ADR 0044)."""

    def __repr__(self) -> str:
        return f"OpenAIChatMapper(dialect={self.dialect!r})"

    def settings_mirrors(self, data: Mapping[str, Any], settings: Settings) -> set[str]:
        """Keys of this mapper's settings provider data that only spell a value ``settings`` carries
        (``max_tokens`` beside ``max_output_tokens``, ...): not reported as lost by another mapper."""
        return settings_mirrors(data, settings)

    @links_empty_ids
    def decode_request(self, body: Mapping[str, Any]) -> Conversion[Transcript]:
        """Request body (``messages``, ``tools``, ``tool_choice``, ``parallel_tool_calls``) -> transcript."""
        report = Report()
        return Conversion(decode_request(body, report, self.dialect), report)

    def encode_request(self, transcript: Transcript, *, model: str | None = None, policy: Policy = "error") -> Conversion[dict[str, Any]]:
        """Transcript -> request body.

        Raises:
            ConversionError: under policy ``error``, for content OpenAI Chat cannot carry.
            MalformedArgumentsError: under policy ``error``, for a tool call whose arguments did not parse.
        """
        report = Report()
        body = encode_request(transcript, dialect=self.dialect, rule=ID_RULE, model=model, policy=policy, report=report)
        choice = body.get("tool_choice")
        modes = DIALECT_RULES[self.dialect].tool_choice_modes
        # the host's own spelling (Mistral's "any") goes back to the model the transcript was read with (ADR 0012)
        same_model = model is not None and settings_of(transcript).model == model and isinstance(choice, str)
        if not same_model and ((isinstance(choice, str) and choice not in modes) or (isinstance(choice, dict) and "required" not in modes)):
            shown = choice if isinstance(choice, str) else "a named function"
            report.unsupported(policy, f"the {self.dialect} dialect takes tool_choice {', '.join(sorted(modes))} only, not {shown}", item_type="tool_choice")
            del body["tool_choice"]
        return Conversion(body, report)

    @links_empty_ids
    def decode_response(self, body: Mapping[str, Any]) -> Conversion[ModelResponse]:
        """``chat.completion`` body -> items of ``choices[0]``, usage and stop reason."""
        report = Report()
        return Conversion(_dialect_stop(decode_response(body, report, self.dialect), self.dialect), report)

    def encode_response(self, response: ModelResponse, *, model: str | None = None, policy: Policy = "error") -> Conversion[dict[str, Any]]:
        """Output items -> ``chat.completion`` body (for round-trip tests and mock servers)."""
        report = Report()
        body = encode_response(response, dialect=self.dialect, rule=ID_RULE, model=model, policy=policy, report=report)
        stop = response.stop_reason
        extra = DIALECT_RULES[self.dialect].finish_reasons
        if stop is not None and isinstance(stop.raw, str) and extra.get(stop.raw) == stop.reason:
            for choice in body.get("choices") or ():
                choice["finish_reason"] = stop.raw
        return Conversion(body, report)

    def kind_of(self, body: Mapping[str, Any]) -> Literal["request", "response"] | None:
        """``request`` when ``body`` has a ``messages`` list, ``response`` when it has ``choices``.

        A ``messages`` body that holds what no Chat Completions request can (see
        :func:`foreign_request_fields`) is ``None``: it belongs to another format.
        """
        if not isinstance(body, Mapping):
            return None
        if isinstance(body.get("messages"), list):
            return None if foreign_request_fields(body) else "request"
        if isinstance(body.get("choices"), list):
            return "response"
        return None

    def accumulator(self) -> ChatStreamAccumulator:
        """A fresh accumulator for one streamed response (the dialect's ``finish_reason`` values read)."""
        if not DIALECT_RULES[self.dialect].finish_reasons:
            return ChatStreamAccumulator()
        return _DialectAccumulator(self.dialect)

    def capabilities(self, model: str | None) -> ModelCapabilities:
        """Defaults for an OpenAI Chat model: text/image/audio/document in, text out, parallel tools,
        streaming, structured output, automatic prompt caching, stop sequences. Reasoning is
        accepted back only where the dialect has a reasoning field; each dialect's overrides
        (``DialectRules.capabilities``) apply on top."""
        caps = ModelCapabilities(
            input_modalities=["text", "image", "audio", "document"],
            output_modalities=["text"],
            tools=True,
            parallel_tool_calls=True,
            requires_tool_definitions=False,
            reasoning=self.dialect != "openai",
            streaming=True,
            structured_output=True,
            prompt_caching=True,
            stop_sequences=True,
            assistant_prefill=False,
            raw_round_trip=True,
        )
        rules = DIALECT_RULES[self.dialect]
        caps = msgspec.structs.replace(caps, reasoning=rules.reasoning_field is not None)
        return msgspec.structs.replace(caps, **dict(rules.capabilities)) if rules.capabilities else caps


def _dialect_stop(response: ModelResponse, dialect: str) -> ModelResponse:
    """A ``finish_reason`` outside OpenAI's enum that the dialect documents -> its canonical reason."""
    stop = response.stop_reason
    extra = DIALECT_RULES[dialect].finish_reasons
    if stop is not None and stop.reason == "other" and isinstance(stop.raw, str) and stop.raw in extra and stop.raw not in FINISH_TO_STOP:
        return dataclasses.replace(response, stop_reason=StopReason(reason=extra[stop.raw], raw=stop.raw))  # type: ignore[arg-type]
    return response


class _DialectAccumulator(ChatStreamAccumulator):
    """The Chat accumulator reading a dialect's own ``finish_reason`` values."""

    def __init__(self, dialect: str) -> None:
        super().__init__()
        self._dialect = dialect

    def _fix(self, events: list[StreamEvent]) -> list[StreamEvent]:
        out: list[StreamEvent] = []
        for ev in events:
            for attr in ("response", "partial"):
                value = getattr(ev, attr, None)
                if isinstance(value, ModelResponse):
                    ev = dataclasses.replace(ev, **{attr: _dialect_stop(value, self._dialect)})  # type: ignore[arg-type]
            out.append(ev)
        return out

    def feed(self, event: RawEvent) -> list[StreamEvent]:
        return self._fix(super().feed(event))

    def finish(self) -> list[StreamEvent]:
        return self._fix(super().finish())


def variant(name: str) -> OpenAIChatMapper:
    """The mapper of dialect ``name`` (registry name ``openai-chat:<name>``).

    Raises:
        UnknownFormatError: no such dialect (the message lists them).
    """
    from ...errors import UnknownFormatError

    if name not in DIALECTS or name == "mistral":
        known = ", ".join(d for d in DIALECTS if d != "mistral")
        raise UnknownFormatError(f"unknown OpenAI Chat dialect {name!r}; known: {known} (Mistral is its own format: mistral)")
    return OpenAIChatMapper(dialect=name)
