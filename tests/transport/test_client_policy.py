"""Client.generate follows the policy for what the model cannot take, as `convert` does (one rule)."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from interlingua.conversion import convert_request
from interlingua.errors import CapabilityError
from interlingua.mapping import get_mapper
from interlingua.transport import Client

AUDIO = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "openai_chat_extra" / "pai_openai_audio_as_binary_content_input.0.request.json"


def _transcript():  # type: ignore[no-untyped-def]
    return get_mapper("openai-chat").decode_request(json.loads(AUDIO.read_text())).value


async def test_audio_to_anthropic_follows_the_policy() -> None:
    transcript = _transcript()
    async with Client("anthropic", api_key="k", base_url="http://127.0.0.1:9") as client:
        with pytest.raises(CapabilityError, match="audio"):
            client.generate(transcript, model="claude-sonnet-4-5", policy="error")
        for policy in ("drop", "degrade"):
            generation = client.generate(transcript, model="claude-sonnet-4-5", policy=policy)
            lines = [str(e) for e in generation.report]
            assert any("audio" in line for line in lines), lines
            body = msgspec.json.decode(generation._prepared.body)  # what would be sent
            assert "input_audio" not in json.dumps(body) and '"audio"' not in json.dumps(body)
            # The same conversion through the documented one-call API gives the same body.
            same = convert_request(transcript, source="canonical", target="anthropic", model="claude-sonnet-4-5", policy=policy)
            assert body["messages"] == same.value["messages"]


@pytest.mark.parametrize("key", ["sk-ant-\u00e9", "sk ant", "sk-ant\n"])
def test_a_key_no_header_can_carry_is_an_auth_error_that_shows_none_of_it(key: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from interlingua.cli import app
    from interlingua.errors import TransportError

    with pytest.raises(TransportError) as ei:
        Client("anthropic", api_key=key)
    assert ei.value.code == "auth" and key not in str(ei.value)
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    doc = Path(__file__).resolve().parents[2] / "docs" / "examples" / "hello.json"
    result = CliRunner().invoke(app, ["replay", str(doc), "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", "http://127.0.0.1:9"])
    assert result.exit_code == 1 and "Traceback" not in result.output and "ANTHROPIC_API_KEY" in result.stderr
    assert key.strip() not in result.output
