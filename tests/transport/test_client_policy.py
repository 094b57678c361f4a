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
