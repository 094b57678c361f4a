"""An override in models.json states only what it changes on top of the catalogue (issue 28).

Each field an entry states must change what :func:`interlingua.models.lookup` says of at least one
model it matches: a catalogue row the pattern matches, a model our fixtures name, or a name no row
describes (the pattern with its wildcards filled). A field the catalogue row or the wire format's
defaults already give is noise that goes stale when the catalogue moves: the test names it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import msgspec
import pytest

from interlingua.capabilities import _table
from interlingua.capabilities._table import default_table, pattern_matches, spelled_fields
from interlingua.models import _info, lookup, use_models_file
from interlingua.models._catalogue import rows
from interlingua.models._sources import CATALOGUE_PROVIDERS, OPEN_HOST_FALLBACK

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"

READ_FROM_THE_ENTRY = {("anthropic", "max_output_tokens"), ("anthropic", "structured_output")}
"""Fields the Anthropic mapper reads straight from its entry (default ``max_tokens``, the structured
outputs refusal): stated even where the catalogue agrees."""


@pytest.fixture(autouse=True)
def _no_user_table(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("INTERLINGUA_MODELS", raising=False)
    use_models_file(None)


def _fixture_models() -> set[str]:
    out = set()
    for path in REAL.rglob("*.request.json"):
        try:
            model = json.loads(path.read_text(encoding="utf-8")).get("model")
        except (ValueError, AttributeError):
            continue
        if isinstance(model, str):
            out.add(model)
    return out


def _probes(entry, fixture_models: set[str]) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    names = {m for m in fixture_models if pattern_matches(entry.pattern, m)}
    for cat in CATALOGUE_PROVIDERS.get(entry.provider, ()):
        names |= {n for n in rows(cat) if pattern_matches(entry.pattern, n)}
    names.add(re.sub(r"\[(.)[^\]]*\]", r"\1", entry.pattern).replace("*", "zz").replace("?", "z"))
    formats = [entry.provider, *sorted(OPEN_HOST_FALLBACK - {entry.provider})]
    return [(f, n) for n in sorted(names) for f in formats]


def _seen(probes: list[tuple[str, str]]) -> list[tuple[bool, bytes, int | None, int | None]]:
    out = []
    for provider, model in probes:
        info = lookup(provider, model)
        out.append((info.known, msgspec.json.encode(info.capabilities), info.context_window, info.max_output_tokens))
    return out


def test_every_stated_field_changes_a_fact(monkeypatch: pytest.MonkeyPatch) -> None:
    spelled = dict(_table._default_spelled())
    fixture_models = _fixture_models()
    redundant = []
    try:
        for entry in default_table().entries:
            stated = spelled_fields(entry) or frozenset()
            probes = _probes(entry, fixture_models)
            _info._lookup.cache_clear()
            base = _seen(probes)
            for name in sorted(stated):
                if (entry.provider, name) in READ_FROM_THE_ENTRY:
                    continue
                if name == "reasoning" and "reasoning_settings" in stated and entry.capabilities.reasoning_settings is None:
                    continue  # ``reasoning_settings: null`` reads "as reasoning": the entry's own
                trial = {**spelled, id(entry): stated - {name}}
                monkeypatch.setattr(_table, "_default_spelled", lambda trial=trial: trial)
                _info._lookup.cache_clear()
                if _seen(probes) == base:
                    redundant.append(f"{entry.provider} {entry.pattern}: {name}")
                monkeypatch.setattr(_table, "_default_spelled", lambda: spelled)
    finally:
        _info._lookup.cache_clear()
    assert redundant == [], "override fields the catalogue or the defaults already give:\n" + "\n".join(redundant)


def test_a_partial_override_keeps_the_catalogue_facts_it_does_not_state() -> None:
    # gpt-5* on Chat Completions states reasoning false (Chat takes no reasoning items) and no context
    # window or maximum output: those are the catalogue row's, the reasoning fact the override's
    info = lookup("openai-chat", "gpt-5")
    assert info.facts["reasoning"].origin == "override" and info.capabilities.reasoning is False
    assert info.facts["context_window"].origin == "catalogue" and info.context_window == lookup("openai-responses", "gpt-5").context_window
    assert info.facts["max_output_tokens"].origin == "catalogue" and isinstance(info.max_output_tokens, int)
    assert info.facts["streaming"].origin == "default" and info.facts["raw_round_trip"].origin == "default"
    # a retired model's row states its last known facts; what it does not state is the wire format's
    opus3 = lookup("anthropic", "claude-3-opus-latest")
    assert opus3.retired == "2026-01-05" and opus3.context_window == 200000 and opus3.max_output_tokens == 4096
    assert opus3.facts["requires_tool_definitions"].origin == "default" and opus3.capabilities.requires_tool_definitions is True
