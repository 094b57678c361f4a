"""interlingua.otel.tracing on a real OpenTelemetry SDK tracer with the in-memory exporter (test-only)."""

from __future__ import annotations

import json

import pytest

from interlingua.items import ErrorItem, Settings, StopReason, TextItem, ToolCallItem, ToolResultItem, Transcript, Usage
from interlingua.otel import INPUT_MESSAGES, OUTPUT_MESSAGES, from_otel, to_otel

sdk_trace = pytest.importorskip("opentelemetry.sdk.trace")
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402
from opentelemetry.trace import SpanKind  # noqa: E402

from interlingua.otel.tracing import EVENT_NAME, add_event, record  # noqa: E402

T = Transcript(
    schema_version="1.0",
    items=[
        TextItem(text="Be brief.", role="system"),
        TextItem(text="Weather in Paris?", role="user", message="u"),
        ToolCallItem(id="call_1", name="get_weather", arguments={"city": "Paris"}, message="a"),
        ToolResultItem(call_id="call_1", content=[TextItem(text="rainy, 14°C")], message="t"),
        TextItem(text="Rainy, 14°C.", role="assistant", message="r"),
    ],
    settings=Settings(model="gpt-4.1", temperature=0.2, stop=["\n\n"]),
    usage=Usage(input_tokens=40, output_tokens=8),
    stop_reason=StopReason(reason="end_turn"),
)


@pytest.fixture
def tracer_and_exporter():  # type: ignore[no-untyped-def]
    exporter = InMemorySpanExporter()
    provider = sdk_trace.TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield provider.get_tracer("interlingua-test"), exporter
    provider.shutdown()


def test_record_makes_one_client_span_with_the_details_event(tracer_and_exporter) -> None:  # type: ignore[no-untyped-def]
    tracer, exporter = tracer_and_exporter
    report = record(tracer, T)
    assert not report
    (span,) = exporter.get_finished_spans()
    assert span.name == "chat gpt-4.1" and span.kind is SpanKind.CLIENT
    assert span.attributes["gen_ai.operation.name"] == "chat"
    assert span.attributes["gen_ai.request.temperature"] == 0.2
    assert tuple(span.attributes["gen_ai.request.stop_sequences"]) == ("\n\n",)
    assert span.attributes["gen_ai.usage.input_tokens"] == 40
    assert tuple(span.attributes["gen_ai.response.finish_reasons"]) == ("stop",)
    (event,) = span.events
    assert event.name == EVENT_NAME
    # The SDK kept every attribute (it silently drops values that are not valid attribute types).
    assert set(event.attributes) == {"gen_ai.system_instructions", INPUT_MESSAGES, OUTPUT_MESSAGES}
    assert json.loads(event.attributes[OUTPUT_MESSAGES]) == to_otel(T).value[OUTPUT_MESSAGES]
    # The recorded span and event read back to the transcript's conversation.
    back = from_otel({**dict(span.attributes), **dict(event.attributes)}).value
    assert [getattr(i, "text", None) for i in back.items] == [getattr(i, "text", None) for i in T.items]
    assert back.usage == T.usage and back.settings == T.settings


def test_add_event_on_the_current_span(tracer_and_exporter) -> None:  # type: ignore[no-untyped-def]
    tracer, exporter = tracer_and_exporter
    t = Transcript(schema_version="1.0", items=[TextItem(text="hi", role="user"), ErrorItem(code="server", message="boom")])
    with tracer.start_as_current_span("my agent step") as span:
        report = add_event(span, t)
    assert [e.action for e in report] == ["dropped"]  # tracing never fails the traced code by default
    (finished,) = exporter.get_finished_spans()
    assert finished.name == "my agent step"
    assert json.loads(finished.events[0].attributes[INPUT_MESSAGES]) == [{"role": "user", "parts": [{"type": "text", "content": "hi"}]}]
