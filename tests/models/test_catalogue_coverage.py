"""Every model named in our real fixtures (and the corpus, when it is beside the repository) is known.

A model the pinned catalogue and the overrides do not describe would be listed in :data:`NOT_IN_CATALOGUE`
with why: the test fails on a new unknown model (describe it: an override with its source, a gateway
id rule, or a catalogue refresh) and on a listed model that has become known (take it off the list).
Unknown models are still converted (their capabilities unknown, preflight says it could not check);
this list is what "the catalogue covers" has left to do.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from interlingua.models import lookup, use_models_file

ROOT = Path(__file__).resolve().parents[2]
REAL = ROOT / "tests" / "fixtures" / "real"
sys.path.insert(0, str(ROOT / "tests"))

FOLDER_FORMAT = {
    "openai_chat": "openai-chat",
    "openai_chat_extra": "openai-chat",
    "openai_compatible": "openai-chat",
    "openrouter": "openai-chat:openrouter",
    "openai_responses": "openai-responses",
    "anthropic": "anthropic",
    "gemini": "gemini",
    "bedrock_converse": "bedrock-converse",
    "cohere": "cohere",
    "mistral": "mistral",
    "ollama": "ollama",
    "openai-chat": "openai-chat",
    "openai-responses": "openai-responses",
}

NOT_IN_CATALOGUE: dict[tuple[str, str], str] = {}
"""(wire format, model) -> why the catalogue and the overrides do not describe it yet. Empty: every model
our fixtures and corpus name is described (a retired model by an override row marked ``retired``, a
gateway's id by the rules of :mod:`interlingua.models._gateway`)."""


def _named(folder: Path, fmt_of: dict[str, str]) -> dict[tuple[str, str], str]:
    out: dict[tuple[str, str], str] = {}
    for path in sorted(folder.rglob("*.request.json")):
        parent = path.parent.name
        fmt = f"openai-chat:{path.name.split('__')[0]}" if parent == "openai_compatible_hosts" else fmt_of.get(parent)
        if fmt is None:
            continue
        try:
            body = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            continue
        model = body.get("model") if isinstance(body, dict) else None
        if isinstance(model, str) and model:
            out.setdefault((fmt, model), str(path.relative_to(folder)))
    return out


def _models() -> dict[tuple[str, str], str]:
    found = _named(REAL, FOLDER_FORMAT)
    from corpus import _engine

    corpus = _engine.corpus_dir()
    if (corpus / "corpus.tar.xz").is_file():
        import tempfile

        dest = Path(tempfile.gettempdir()) / f"interlingua-corpus-{abs(hash(str(corpus)))}"
        _engine.unpack(dest, corpus)
        for key, where in _named(dest, FOLDER_FORMAT).items():
            found.setdefault(key, f"corpus {where}")
    return found


@pytest.fixture(autouse=True)
def _no_user_table(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("INTERLINGUA_MODELS", raising=False)
    use_models_file(None)


def test_every_model_named_in_fixtures_and_corpus_is_known() -> None:
    models = _models()
    assert len(models) > 30
    unknown = {key: where for key, where in models.items() if not lookup(*key).known}
    new = {k: v for k, v in unknown.items() if k not in NOT_IN_CATALOGUE}
    assert new == {}, "models neither the catalogue nor the overrides describe:\n" + "\n".join(f"  {p} {m}  ({w})" for (p, m), w in sorted(new.items()))
    now_known = sorted(k for k in NOT_IN_CATALOGUE if k in models and k not in unknown)
    assert now_known == [], f"now known, take them off NOT_IN_CATALOGUE: {now_known}"


CURRENT: dict[str, tuple[str, ...] | None] = {
    # the current models of every built-in provider and host (issue 28, "Done when"); ``None``: a local
    # server the user loads any model into (vLLM, LM Studio, llama.cpp), which has no catalogue rows
    "openai-responses": ("gpt-5", "gpt-5.1", "gpt-5.2", "gpt-5.4", "gpt-5.5", "gpt-5.6"),
    "openai-chat": ("gpt-4.1-mini", "gpt-5.5"),
    "anthropic": ("claude-opus-4-5", "claude-sonnet-4-5", "claude-haiku-4-5", "claude-sonnet-4-6"),
    "gemini": ("gemini-2.5-flash", "gemini-2.5-pro", "gemini-3-flash-preview", "gemini-3.1-pro-preview", "gemini-3.5-flash"),
    "bedrock-converse": ("anthropic.claude-sonnet-4-6", "us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
    "cohere": ("command-a-03-2025",),
    "mistral": ("mistral-large-latest", "mistral-medium-latest", "magistral-medium-latest"),
    "ollama": ("llama3.1", "gpt-oss:20b-cloud"),
    "openai-chat:deepseek": ("deepseek-chat", "deepseek-v4-pro"),
    "openai-chat:openrouter": ("anthropic/claude-sonnet-4.5", "openai/gpt-5.5", "google/gemini-2.5-flash"),
    "openai-chat:ollama": ("gpt-oss:120b-cloud",),
    "openai-chat:groq": ("openai/gpt-oss-120b",),
    "openai-chat:together": ("meta-llama/Llama-3.3-70B-Instruct-Turbo",),
    "openai-chat:fireworks": ("accounts/fireworks/models/gpt-oss-120b",),
    "openai-chat:xai": ("grok-4.3",),
    "openai-chat:cerebras": ("gpt-oss-120b",),
    "openai-chat:vllm": None,
    "openai-chat:lmstudio": None,
    "openai-chat:llamacpp": None,
    "openai-chat:huggingface": ("deepseek-ai/DeepSeek-R1", "openai/gpt-oss-120b"),
    "openai-chat:zai": ("glm-4.7", "glm-5"),
    "openai-chat:kimi": ("kimi-k2.5", "kimi-k3"),
}


def test_current_models_name_every_wire_format_and_every_registered_host() -> None:
    from interlingua.hosts import HOSTS, host_names
    from interlingua.models._sources import CATALOGUE_PROVIDERS

    assert set(CURRENT) == set(CATALOGUE_PROVIDERS)  # a new host or wire format names its current models here
    for name in host_names():
        assert (CURRENT[f"openai-chat:{name}"] is None) == (not HOSTS[name].catalogue), name


@pytest.mark.parametrize(
    ("provider", "model"),
    [(p, m) for p, models in CURRENT.items() for m in models or ()],
)
def test_current_models_of_each_provider_are_in_the_catalogue(provider: str, model: str) -> None:
    info = lookup(provider, model)
    assert info.known and info.catalogue_row is not None, (provider, model)
    assert isinstance(info.context_window, int) and info.context_window > 0
    assert isinstance(info.max_output_tokens, int) and info.max_output_tokens > 0
    assert info.retired is None
