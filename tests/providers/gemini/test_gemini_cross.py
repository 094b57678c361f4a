"""Gemini <-> Ollama through the canonical form: losses are reported, never silent."""

from __future__ import annotations

from pathlib import Path

from interlingua.items import ToolResultItem, Transcript, TextItem
from interlingua.providers.gemini import mapper as gemini
from interlingua.providers.ollama import mapper as ollama
from interlingua.streaming import collect

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "real"


def test_gemini_signature_never_reaches_ollama_as_text() -> None:
    done = collect(gemini, (REAL / "gemini" / "pai_google_streaming_tool_call_thought_signature.0.response.sse").read_bytes())[-1]
    call = done.response.items[1]
    t = Transcript(schema_version="1.0", items=[TextItem(role="user", text="q"), *done.response.items, ToolResultItem(call_id=call.id, content=[TextItem(text="Mexico")])])
    out = ollama.encode_request(t, model="llama3.2")
    sig = done.response.items[0].opaque.value
    assert sig not in repr(out.value)
    # (and Ollama's explicit stream: false, the transcript holding no settings)
    assert [(e.action, e.item_type) for e in out.report] == [("dropped", "reasoning"), ("changed", "settings")]
    # a Gemini call without a wire id still goes to Ollama with its canonical id, on both sides
    assert out.value["messages"][1]["tool_calls"][0]["id"] == call.id
    assert out.value["messages"][2]["tool_call_id"] == call.id


def test_ollama_history_to_gemini() -> None:
    import json

    body = json.loads((REAL / "ollama" / "ollama_docs.chat_tools_history.request.json").read_text())
    t = ollama.decode_request(body).value
    out = gemini.encode_request(t)
    assert out.value["contents"] == [
        {"role": "user", "parts": [{"text": "what is the weather in Toronto?"}]},
        {"role": "model", "parts": [{"functionCall": {"id": "ollama_m1_c0", "name": "get_weather", "args": {"city": "Toronto"}}}]},
        {"role": "user", "parts": [{"functionResponse": {"id": "ollama_m1_c0", "name": "get_weather", "response": {"output": "11 degrees celsius"}}}]},
    ]
    assert out.value["tools"][0]["functionDeclarations"][0]["parametersJsonSchema"]["required"] == ["city"]


def test_anthropic_thinking_text_reaches_gemini_as_a_thought_without_the_signature() -> None:
    """A real Anthropic thinking stream (pai_anthropic_thinking_part_stream.0.response.sse) replayed to
    Gemini: the signature is Anthropic's (left out, reported); the thinking text goes as a thought part,
    as pydantic-ai's test_google_model_thinking_part_from_other_model.yaml sent another model's
    reasoning to Gemini (answered 200)."""
    from interlingua.items import ReasoningItem
    from interlingua.providers.anthropic import mapper as anthropic

    done = collect(anthropic, (REAL / "anthropic" / "pai_anthropic_thinking_part_stream.0.response.sse").read_bytes())[-1]
    (thinking,) = [i for i in done.response.items if isinstance(i, ReasoningItem)]
    assert thinking.text and thinking.opaque.issuer == "anthropic"
    t = Transcript(schema_version="1.0", items=[TextItem(role="user", text="q"), *done.response.items, TextItem(role="user", text="next")])
    out = gemini.encode_request(t, model="gemini-2.5-flash", policy="drop")
    model_parts = out.value["contents"][1]["parts"]
    assert model_parts[0] == {"text": thinking.text, "thought": True}
    assert thinking.opaque.value not in repr(out.value)
    assert [(e.action, e.item_type) for e in out.report] == [("dropped", "reasoning")]
