"""A known model's capabilities come from its catalogue row: a ``supports_*`` flag a vendor's own row
leaves out is false (as LiteLLM reads it), never a wire format default's true."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from interlingua import convert_request
from interlingua.cli import app
from interlingua.errors import CapabilityError
from interlingua.models import lookup
import interlingua.models._catalogue as cat
from interlingua.models._info import _FIRST_PARTY_ROWS

runner = CliRunner()
IMAGE = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
BODY = {"model": "gpt-3.5-turbo", "messages": [{"role": "user", "content": [{"type": "text", "text": "what is this?"}, IMAGE]}]}
MODALITY_FLAGS = ("supports_vision", "supported_modalities", "supports_pdf_input", "supports_audio_input", "supports_video_input")


@pytest.mark.parametrize("model", ["gpt-3.5-turbo", "gpt-4", "gpt-4-0613"])
@pytest.mark.parametrize("provider", ["openai-chat", "openai-responses"])
def test_rows_without_a_vision_flag_take_text_only(provider: str, model: str) -> None:
    info = lookup(provider, model)
    assert info.catalogue_row == f"openai/{model}"
    assert not any(k in cat._document()["providers"]["openai"][model] for k in MODALITY_FLAGS)
    assert info.capabilities.input_modalities == ["text"]
    assert info.facts["input_modalities"].origin == "catalogue"


def test_a_row_with_its_flags_keeps_them() -> None:
    info = lookup("openai-chat", "gpt-4o")
    assert set(info.capabilities.input_modalities) >= {"text", "image", "document"}


def test_image_to_gpt_35_turbo_is_refused_under_policy_error() -> None:
    with pytest.raises(CapabilityError, match="image input"):
        convert_request(BODY, source="openai-chat", target="openai-chat", model="gpt-3.5-turbo", policy="error")


def test_image_to_gpt_35_turbo_cli_exit_1() -> None:
    result = runner.invoke(app, ["convert", "-", "--from", "openai-chat", "--to", "openai-chat", "--policy", "error"], input=json.dumps(BODY))
    assert result.exit_code == 1, result.output
    assert "gpt-3.5-turbo" in result.stderr and "image" in result.stderr and result.stdout == ""


def test_every_first_party_row_never_widens_past_its_flags() -> None:
    """The class: for every vendor row, an input modality beyond text is only there when a flag names it."""
    doc = cat._document()
    checked = 0
    for section in _FIRST_PARTY_ROWS:
        for name, fields in doc["providers"].get(section, {}).items():
            if fields.get("mode") not in (None, "chat", "responses"):
                continue
            provider = {"openai": "openai-chat", "anthropic": "anthropic", "gemini": "gemini", "mistral": "mistral", "cohere_chat": "cohere"}.get(section)
            if provider is None:
                continue
            info = lookup(provider, name)
            if info.catalogue_row != f"{section}/{name}" or info.override is not None:
                continue
            mods = info.capabilities.input_modalities
            if not any(k in fields for k in MODALITY_FLAGS):
                assert mods == ["text"], (section, name, mods)
            if "image" in mods:
                assert fields.get("supports_vision") or "image" in [str(m).lower() for m in fields.get("supported_modalities") or ()], (section, name)
            checked += 1
    assert checked > 100
