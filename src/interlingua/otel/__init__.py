"""OpenTelemetry GenAI semantic conventions: a transcript as span attributes, and back.

:func:`to_otel` writes a transcript as the attributes of one GenAI inference span
(``gen_ai.system_instructions``, ``gen_ai.input.messages``, ``gen_ai.output.messages``,
``gen_ai.tool.definitions``, ``gen_ai.request.*``, ``gen_ai.response.*``, ``gen_ai.usage.*``);
:func:`from_otel` reads such attributes (as a tracing library recorded them) back into a
transcript. Both return a :class:`~interlingua.mapping.Conversion` whose report lists every
field or item the other side cannot carry, as a mapper's does. :func:`interlingua.otel.tracing.record`
(extra ``interlingua[otel]``) puts the attributes on a span of an existing tracer.

Source: the OpenTelemetry GenAI semantic conventions, release 1.41.0 (``docs/gen-ai/gen-ai-spans.md``,
``docs/registry/attributes/gen-ai.md`` and the JSON Schemas ``gen-ai-input-messages.json``,
``gen-ai-output-messages.json``, ``gen-ai-system-instructions.json``,
``gen-ai-tool-definitions.json`` of https://github.com/open-telemetry/semantic-conventions; the
conventions have since moved to https://github.com/open-telemetry/semantic-conventions-genai).

Shapes (``to_otel(t).value``, JSON values, not JSON strings)::

    {"gen_ai.operation.name": "chat",
     "gen_ai.provider.name": "anthropic",                    # when an item's origin names one
     "gen_ai.system_instructions": [{"type": "text", "content": "Be brief."}],
     "gen_ai.input.messages": [{"role": "user", "parts": [{"type": "text", "content": "Hi"}]}],
     "gen_ai.output.messages": [{"role": "assistant", "parts": [...], "finish_reason": "stop"}],
     "gen_ai.tool.definitions": [{"type": "function", "name": ..., "description": ..., "parameters": {...}}],
     "gen_ai.request.model": ..., "gen_ai.request.temperature": ..., "gen_ai.response.id": ...,
     "gen_ai.usage.input_tokens": ..., ...}

Mapping (canonical item -> message part):

* Messages: consecutive items of one role and one ``message`` key form one message; roles are
  ``system``/``developer``/``user``/``assistant`` (the item's), ``tool`` for tool results.
  Leading ``system`` texts are ``gen_ai.system_instructions``. When the transcript carries a
  response (``stop_reason``, ``usage`` or ``response``), its trailing assistant items are the
  one output message (``finish_reason`` from the stop reason); everything before is input.
* ``text`` -> ``text``; ``tool_call`` -> ``tool_call`` (``arguments`` the object, or the raw text
  of malformed arguments); ``tool_result`` -> ``tool_call_response`` (``response``: the text, or a
  list of parts for several or non-text content); ``reasoning`` -> ``reasoning`` (text, else the
  summary joined by blank lines); media with base64 bytes -> ``blob``, with a URL -> ``uri``, with
  a provider file id -> ``file`` (``modality`` image/audio/video, ``document`` for documents);
  ``artifact_ref`` -> ``uri``; ``refusal`` -> a generic ``refusal`` part; ``handoff_call``/``handoff_result``
  -> ``tool_call``/``tool_call_response`` (reported); ``structured`` -> its JSON as text (reported).
  ``raw(provider="otel")`` (a part read by :func:`from_otel` with no canonical form, e.g.
  ``server_tool_call``) is written back as it was. ``error`` items and foreign ``raw`` items have
  no part: the policy decides (refuse, leave out, or a text marker).
* Fields no part carries (``id``, ``origin``, ``metadata``, ``provider_data``, annotations, opaque
  reasoning state, ``is_error``, ...) are left out, one report entry per item naming them.
* Stop reasons: ``end_turn``/``stop_sequence`` -> ``stop``, ``max_tokens`` -> ``length``,
  ``tool_use`` -> ``tool_call``, ``content_filter``/``refusal`` -> ``content_filter``, ``error`` ->
  ``error``; ``pause``/``other`` write the provider's raw value.

:func:`from_otel` reads the inverse, plus variants tracing libraries write: ``result`` instead of
``response`` and a ``name`` on ``tool_call_response`` (pydantic-ai), arguments as a JSON string,
output messages without ``finish_reason``, a provider's own finish reason (``end_turn``),
attribute values as JSON strings (how span attributes hold them) and OTLP/JSON attribute lists.
"""

from __future__ import annotations

from ._common import FORMAT, INPUT_MESSAGES, OUTPUT_MESSAGES, SEMCONV_VERSION, SYSTEM_INSTRUCTIONS, TOOL_DEFINITIONS
from ._read import from_otel
from ._write import to_otel

__all__ = [
    "FORMAT",
    "INPUT_MESSAGES",
    "OUTPUT_MESSAGES",
    "SEMCONV_VERSION",
    "SYSTEM_INSTRUCTIONS",
    "TOOL_DEFINITIONS",
    "from_otel",
    "to_otel",
]
