"""What interlingua writes as a canonical document passes its own ``validate --strict``: an empty text
block of a response (Anthropic's refusal stream opens one and closes it empty) is left out, reported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from interlingua import convert_response, convert_stream
from interlingua.cli import app
from interlingua.codec import decode_transcript
from interlingua.items import TextItem
from interlingua.validation import validate_document_bytes

REAL = Path(__file__).parent.parent / "fixtures" / "real"
REFUSAL = REAL / "anthropic" / "anthropic_sdk.refusal_response.sse"
FOLDERS = {"anthropic": "anthropic", "openai-chat": "openai_chat", "openai-responses": "openai_responses", "gemini": "gemini", "mistral": "mistral", "cohere": "cohere", "ollama": "ollama"}
runner = CliRunner()


def _strict_errors(doc: dict) -> list[str]:
    result = validate_document_bytes(json.dumps(doc).encode(), mode="strict")
    return [str(p) for p in (*result.problems, *result.warnings)]


def test_refusal_stream_to_canonical_passes_strict() -> None:
    out = convert_stream(REFUSAL.read_bytes(), source="anthropic", target="canonical")
    assert [i["type"] for i in out.value["items"]] == ["refusal"]
    assert any(e.action == "dropped" and e.item_type == "text" and "empty text" in e.reason for e in out.report)
    assert _strict_errors(out.value) == []


def test_refusal_stream_cli_then_validate_strict(tmp_path: Path) -> None:
    result = runner.invoke(app, ["convert", str(REFUSAL), "--from", "anthropic", "--to", "canonical"])
    assert result.exit_code == 0, result.output
    assert "warning: dropped: item 0 text: an empty text block" in result.stderr
    path = tmp_path / "r.json"
    path.write_text(result.stdout)
    checked = runner.invoke(app, ["validate", "--strict", str(path)])
    assert checked.exit_code == 0, checked.output


def _recordings() -> list[tuple[str, Path]]:
    out = []
    for provider, folder in FOLDERS.items():
        for path in sorted((REAL / folder).glob("*")):
            if path.name.endswith((".response.json", ".sse", ".ndjson")) and "error" not in path.name:
                out.append((provider, path))
    return out


@pytest.mark.parametrize(("provider", "path"), _recordings(), ids=lambda v: getattr(v, "name", v))
def test_every_real_response_to_canonical_has_no_empty_text(provider: str, path: Path) -> None:
    try:
        if path.name.endswith(".json"):
            out = convert_response(path.read_bytes(), source=provider, target="canonical", policy="drop")
        else:
            out = convert_stream(path.read_bytes(), source=provider, target="canonical", policy="drop")
    except Exception as exc:  # noqa: BLE001 - error recordings, requests: not this test's subject
        pytest.skip(f"not a convertible response: {type(exc).__name__}")
    doc = decode_transcript(json.dumps(out.value).encode())
    assert not [i for i, item in enumerate(doc.items) if isinstance(item, TextItem) and not item.text.strip()]
    assert not [e for e in _strict_errors(out.value) if "empty_text" in e]
