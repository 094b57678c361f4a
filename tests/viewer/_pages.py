"""Real fixtures as transcripts, for the viewer tests."""


from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from interlingua import convert_request, convert_response, convert_stream
from interlingua.codec import decode_transcript
from interlingua.errors import InterlinguaError
from interlingua.items import Transcript

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"

_FORMAT_OF_DIR = {
    "openai_chat": "openai-chat",
    "openai_chat_extra": "openai-chat",
    "openai_compatible": "openai-chat",
    "openai_responses": "openai-responses",
    "anthropic": "anthropic",
    "gemini": "gemini",
    "ollama": "ollama",
    "bedrock_converse": "bedrock-converse",
    "cohere": "cohere",
}


def _format_of(path: Path) -> str | None:
    parts = path.relative_to(REAL).parts
    top = parts[1] if parts[0] == "corpus" and len(parts) > 2 else parts[0]
    fmt = _FORMAT_OF_DIR.get(top.replace("-", "_"))
    if fmt == "ollama" and path.name.startswith("pai_ollama_cloud_"):
        return "openai-chat"  # Ollama Cloud's OpenAI-compatible endpoint (see the fixtures' README)
    return fmt


def real_fixture_files() -> list[Path]:
    """Every request, response and stream recording under tests/fixtures/real with a known format."""
    out = []
    for path in sorted(REAL.rglob("*")):
        name = path.name
        if not path.is_file() or name == "index.json":
            continue
        if path.suffix == ".bin" and path.with_suffix(".ndjson").exists():
            continue  # Bedrock's AWS event-stream bytes; the .ndjson beside it is the same stream decoded
        if name.endswith((".request.json", ".response.json", ".sse", ".ndjson", ".bin")) and _format_of(path):
            out.append(path)
    return out


def transcript_of(path: Path) -> Transcript:
    """The fixture converted to a canonical transcript document (policy ``error``: a canonical target takes everything)."""
    fmt = _format_of(path)
    assert fmt is not None
    data = path.read_bytes()
    if path.name.endswith(".request.json"):
        conv = convert_request(data, source=fmt, target="canonical", policy="error")
    elif path.name.endswith(".response.json"):
        conv = convert_response(data, source=fmt, target="canonical", policy="error")
    else:
        conv = convert_stream(data, source=fmt, target="canonical", policy="error")
    body: Any = conv.value
    return decode_transcript(body if isinstance(body, (bytes, str)) else msgspec.json.encode(body))


def convertible_fixtures() -> list[tuple[Path, Transcript]]:
    """(path, transcript) for every real fixture that converts (error streams and error bodies do not)."""
    out = []
    for path in real_fixture_files():
        try:
            out.append((path, transcript_of(path)))
        except InterlinguaError:
            continue
    return out
