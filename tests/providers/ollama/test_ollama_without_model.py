"""An Ollama request body written without a model (``convert --to ollama`` with no ``--model``) reads back as Ollama.

Without ``model`` the body used to be claimed by nobody but OpenAI Chat, so ``convert --from ollama`` refused
the library's own output. A body without ``model`` is Ollama's when it holds what only Ollama's
``ChatRequest`` holds (``ollama_markers``): ``stream`` written as a boolean (the encoder always writes it),
``think``/``format``/``options``/``keep_alive``, a message's ``thinking``/``images``/``tool_name``, or
tool-call arguments as a JSON object.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.conversion import detect_kind
from interlingua.errors import FormatMismatchError
from interlingua.mapping import get_mapper
from interlingua.providers.ollama import mapper as ollama, ollama_markers

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "real"
EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "transcripts" / "weather.json"
FOLDERS = {
    "anthropic": "anthropic",
    "gemini": "gemini",
    "ollama": "ollama",
    "openai_chat": "openai-chat",
    "openai_responses": "openai-responses",
    "bedrock_converse": "bedrock-converse",
}
REQUESTS = sorted((folder, p) for folder in FOLDERS for p in (REAL / folder).glob("*.request.json"))
runner = CliRunner()


@pytest.mark.parametrize(("folder", "path"), REQUESTS, ids=[f"{f}/{p.name}" for f, p in REQUESTS])
def test_real_request_written_without_a_model_reads_back_as_ollama(folder: str, path: Path) -> None:
    # Ollama Cloud's OpenAI-compatible requests are openai-chat bodies (tool_choice: no ChatRequest field)
    source = get_mapper("openai-chat" if path.name.startswith("pai_ollama_cloud_") else FOLDERS[folder])
    transcript = source.decode_request(json.loads(path.read_text())).value
    body = ollama.encode_request(transcript, policy="drop").value
    assert "model" not in body
    assert ollama.kind_of(body) == "request"
    assert detect_kind(body, source="ollama") == "request"
    # It reads back as the same conversation: encoding what was read gives the same body again.
    again = ollama.encode_request(ollama.decode_request(body).value, policy="drop").value
    assert again == body


def test_cli_round_trip_without_model_keeps_the_conversation(tmp_path: Path) -> None:
    out = tmp_path / "ollama.json"
    res = runner.invoke(app, ["convert", "--from", "canonical", "--to", "ollama", "--policy", "drop", str(EXAMPLE), "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert "model" not in json.loads(out.read_text())
    res = runner.invoke(app, ["convert", "--from", "ollama", "--to", "canonical", str(out)])
    assert res.exit_code == 0, res.output
    back = json.loads(res.stdout)
    original = json.loads(EXAMPLE.read_text())
    def kinds(doc: dict) -> list:  # type: ignore[type-arg]
        return [(i["type"], i.get("role"), i.get("text"), i.get("id") if i["type"] == "tool_call" else None, i.get("call_id"), i.get("arguments")) for i in doc["items"]]

    assert kinds(back) == kinds(original)  # the reasoning's Anthropic signature is dropped (reported), its text kept
    assert [i["name"] for i in back["items"] if i["type"] == "tool_call"] == ["get_weather"]
    assert back["tools"] == original["tools"]


def test_markers_and_what_stays_ambiguous() -> None:
    text_only = {"messages": [{"role": "user", "content": "hi"}]}
    assert ollama.kind_of({"messages": []}) is None
    assert ollama.kind_of(text_only) is None  # nothing says Ollama: a Chat Completions body as much
    assert not ollama_markers(text_only)
    assert ollama.kind_of({**text_only, "stream": False}) == "request"
    assert ollama.kind_of({**text_only, "options": {"temperature": 0}}) == "request"
    assert ollama.kind_of({"messages": [{"role": "assistant", "content": "", "thinking": "hm"}]}) == "request"
    assert ollama.kind_of({"messages": [{"role": "tool", "content": "18C", "tool_name": "w"}]}) == "request"
    calls = [{"function": {"name": "w", "arguments": {"city": "Paris"}}}]
    assert ollama.kind_of({"messages": [{"role": "assistant", "content": "", "tool_calls": calls}]}) == "request"
    # Chat Completions sends arguments as a string: no marker.
    chat_calls = [{"id": "c", "type": "function", "function": {"name": "w", "arguments": "{}"}}]
    assert ollama.kind_of({"messages": [{"role": "assistant", "content": None, "tool_calls": chat_calls}]}) is None
    # Fields no Ollama request holds still win over a marker.
    assert ollama.kind_of({"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}], "stream": False}) is None
    assert ollama.kind_of({"system": "be brief", "messages": [], "stream": False}) is None


def test_model_less_chat_body_with_chat_fields_still_points_to_openai_chat() -> None:
    body = {"messages": [{"role": "user", "content": "hi"}], "max_completion_tokens": 5}
    with pytest.raises(FormatMismatchError, match="openai-chat"):
        detect_kind(body, source="ollama")
