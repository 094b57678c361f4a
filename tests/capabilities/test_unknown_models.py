"""A model nothing describes has unknown capabilities: converted with a warning, never refused on a default's.

Issue 25 ("Unknown models"): same-provider round trips of real Cerebras / DeepSeek / Groq / z.ai requests
with ``reasoning_effort`` were refused because their model was not in the table and the ``openai-chat``
defaults take no reasoning. The cases below are those recordings (tests/fixtures/real/openai_compatible_hosts,
pydantic-ai's cassettes), read as the corpus reads them (``openai-chat``, the URL path) and as their host.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from interlingua import convert_request
from interlingua.capabilities import resolve
from interlingua.errors import CapabilityError
from interlingua.items import ReasoningSettings, Settings, TextItem, Transcript
from interlingua.transport import Client

HOSTS = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "openai_compatible_hosts"
REQUESTS = sorted(HOSTS.glob("*.request.json"))

UNKNOWN_WITH_REASONING = [
    # (fixture, model): the request asks for reasoning; its recorded model (Cerebras' zai-glm-4.7) was in
    # neither the catalogue nor the overrides until issue 28's override described it, so the recorded
    # request is sent here under a model name nothing describes (the rest of the body as recorded)
    ("cerebras__pai_cerebras_cerebras_disable_reasoning_setting.0.request.json", "zai-glm-9-unreleased"),
    ("cerebras__pai_thinking_wire_contract_reasoning_wire_contract_cerebras_zai_clear_thinking.0.request.json", "zai-glm-9-unreleased"),
]


def _body(name: str) -> dict:
    return json.loads((HOSTS / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", REQUESTS, ids=lambda p: p.name[:80])
@pytest.mark.parametrize("as_host", [False, True], ids=["openai-chat", "host"])
def test_every_recorded_host_request_round_trips_without_a_refusal(path: Path, as_host: bool) -> None:
    """Each of these requests was answered by its host: preflight refuses none of them."""
    fmt = f"openai-chat:{path.name.split('__')[0]}" if as_host else "openai-chat"
    body = json.loads(path.read_text(encoding="utf-8"))
    out = convert_request(body, source=fmt, target=fmt)
    assert out.value.get("model") == body["model"]


@pytest.mark.parametrize(("name", "model"), UNKNOWN_WITH_REASONING)
def test_unknown_model_is_converted_with_a_warning_naming_what_was_not_checked(name: str, model: str) -> None:
    body = {**_body(name), "model": model}
    out = convert_request(body, source="openai-chat", target="openai-chat")
    assert out.value["reasoning_effort"] == body["reasoning_effort"]  # sent as the client sent it
    warnings = [e.reason for e in out.report if "could not check" in e.reason]
    assert len(warnings) == 1, list(out.report)
    assert repr(model) in warnings[0]
    assert "would have refused: the settings ask for reasoning" in warnings[0]  # what the defaults would have said
    # under every policy: nothing is dropped on a guess
    for policy in ("drop", "degrade"):
        again = convert_request(body, source="openai-chat", target="openai-chat", policy=policy)
        assert again.value["reasoning_effort"] == body["reasoning_effort"]
        assert not [e for e in again.report if e.action == "dropped" and e.pointer == "/settings/reasoning"]


@pytest.mark.parametrize(("name", "model"), UNKNOWN_WITH_REASONING)
def test_the_recorded_model_is_now_described_and_takes_the_reasoning_asked(name: str, model: str) -> None:
    body = _body(name)
    out = convert_request(body, source="openai-chat", target="openai-chat")
    assert out.value["reasoning_effort"] == body["reasoning_effort"]
    assert not [e for e in out.report if "could not check" in e.reason]  # described: checked, and it reasons


def test_a_known_model_is_still_refused_what_it_cannot_take() -> None:
    """Unknown is not permissive for known models: gpt-4o on Chat takes no reasoning settings."""
    t = Transcript(schema_version="1.0", items=[TextItem(role="user", text="hi")], settings=Settings(reasoning=ReasoningSettings(effort="high")))
    with pytest.raises(CapabilityError, match="reasoning"):
        convert_request(t, source="canonical", target="openai-chat", model="gpt-4o")


def test_resolution_of_an_unknown_model_says_so_and_keeps_the_wire_rules() -> None:
    got = resolve("anthropic", "claude-next-9")
    assert got.source == "unknown" and got.defaults is not None
    assert got.capabilities.requires_tool_definitions is True  # Anthropic's wire rule still applies
    assert set(got.capabilities.input_modalities) == {"text", "image", "audio", "video", "document"}
    assert resolve("anthropic", None).source == "mapper"


def test_the_client_warns_too() -> None:
    """The same rule on the transport's path (Client.prepare builds the body; nothing is sent)."""
    client = Client("openai-chat:cerebras", api_key="k", base_url="http://127.0.0.1:9")
    t = Transcript(schema_version="1.0", items=[TextItem(role="user", text="hi")], settings=Settings(reasoning=ReasoningSettings(effort="none")))
    gen = client.generate(t, model="zai-glm-9-unreleased", stream=False)  # builds the request; nothing is sent until awaited
    assert any("could not check" in e.reason for e in gen.report)
