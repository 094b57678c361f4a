"""Record a transcript on an OpenTelemetry tracer (extra ``interlingua[otel]``: ``opentelemetry-api``).

::

    from opentelemetry import trace
    from interlingua.otel.tracing import record

    report = record(trace.get_tracer("my-app"), transcript)   # one "chat <model>" span, one event

The span gets the scalar ``gen_ai.*`` attributes of :func:`interlingua.otel.to_otel` (operation, provider,
request and response model, ids, usage, finish reasons); the conversation itself goes on the span as
one ``gen_ai.client.inference.operation.details`` event whose attributes are the message
attributes (``gen_ai.system_instructions``, ``gen_ai.input.messages``, ``gen_ai.output.messages``,
``gen_ai.tool.definitions``) as JSON strings, since span attributes hold only scalars and arrays of
scalars. :func:`interlingua.otel.from_otel` reads that event's attributes back.

Source: OpenTelemetry GenAI semantic conventions 1.41.0, ``docs/gen-ai/gen-ai-events.md`` (event
``gen_ai.client.inference.operation.details``) and ``docs/gen-ai/gen-ai-spans.md`` (span name
``{gen_ai.operation.name} {gen_ai.request.model}``, kind ``CLIENT``).
"""

from __future__ import annotations

import json
from typing import Any

from ..items import Transcript
from ..mapping import Policy, Report
from . import INPUT_MESSAGES, OUTPUT_MESSAGES, SYSTEM_INSTRUCTIONS, TOOL_DEFINITIONS, to_otel

__all__ = ["EVENT_NAME", "add_event", "record", "span_attributes"]

EVENT_NAME = "gen_ai.client.inference.operation.details"
"""The GenAI event that carries the conversation of one inference."""

_MESSAGE_ATTRIBUTES = (SYSTEM_INSTRUCTIONS, INPUT_MESSAGES, OUTPUT_MESSAGES, TOOL_DEFINITIONS)


def _require_api() -> Any:
    try:
        from opentelemetry import trace
    except ImportError as exc:  # pragma: no cover - exercised in an environment without the extra
        raise ImportError("interlingua.otel.tracing needs opentelemetry-api: pip install 'interlingua[otel]'") from exc
    return trace


def _scalar(value: Any) -> Any:
    """A span attribute value: scalars and lists of strings as they are, anything else as JSON text."""
    if isinstance(value, str | bool | int | float):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def span_attributes(transcript: Transcript, *, policy: Policy = "drop", report: Report | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(span attributes, event attributes)`` for ``transcript``, every value a valid span attribute value.

    Raises:
        ConversionError: under policy ``error``, an item no GenAI part can hold.
    """
    attrs = to_otel(transcript, policy=policy, report=report).value
    span = {k: _scalar(v) for k, v in attrs.items() if k not in _MESSAGE_ATTRIBUTES}
    event = {k: _scalar(attrs[k]) for k in _MESSAGE_ATTRIBUTES if k in attrs}
    return span, event


def add_event(span: Any, transcript: Transcript, *, policy: Policy = "drop", report: Report | None = None) -> Report:
    """Put ``transcript`` on an existing span: its scalar ``gen_ai.*`` attributes and the details event.

    Args:
        span: An ``opentelemetry.trace.Span`` (anything with ``set_attributes`` and ``add_event``).
        transcript: The conversation of one inference.
        policy: For items no GenAI part can hold; ``drop`` by default (tracing should not fail the
            traced code), each reported.
        report: Entries are appended here (a new report when not given).

    Returns:
        The report of what the GenAI form could not carry.
    """
    report = report if report is not None else Report()
    attrs, event = span_attributes(transcript, policy=policy, report=report)
    span.set_attributes(attrs)
    span.add_event(EVENT_NAME, attributes=event)
    return report


def record(tracer: Any, transcript: Transcript, *, name: str | None = None, policy: Policy = "drop", report: Report | None = None) -> Report:
    """Record ``transcript`` as one ``CLIENT`` span of ``tracer`` holding the details event.

    Args:
        tracer: An ``opentelemetry.trace.Tracer`` (e.g. ``trace.get_tracer("my-app")``).
        transcript: The conversation of one inference.
        name: The span name (default: ``"chat {model}"``, the model of the settings or the response, else ``"chat"``).
        policy: As for :func:`add_event`.
        report: Entries are appended here (a new report when not given).

    Returns:
        The report of what the GenAI form could not carry.

    Raises:
        ImportError: ``opentelemetry-api`` is not installed (``pip install 'interlingua[otel]'``).
    """
    trace = _require_api()
    report = report if report is not None else Report()
    attrs, event = span_attributes(transcript, policy=policy, report=report)
    model = attrs.get("gen_ai.request.model") or attrs.get("gen_ai.response.model")
    span_name = name or (f"chat {model}" if model else "chat")
    with tracer.start_as_current_span(span_name, kind=trace.SpanKind.CLIENT, attributes=attrs) as span:
        span.add_event(EVENT_NAME, attributes=event)
    return report
