"""Entry-point discovery in the mapper registry and the capability resolver group."""

from __future__ import annotations

import importlib.metadata

import pytest
from _perplexity_support import PERPLEXITY_EP

from interlingua.capabilities import _resolve, resolve
from interlingua.errors import MappingError, UnknownFormatError
from interlingua.items import ModelCapabilities
from interlingua.mapping import available, get_mapper, register, registry, sources


def _ep(name: str, value: str, group: str = "interlingua.mappers") -> importlib.metadata.EntryPoint:
    return importlib.metadata.EntryPoint(name=name, value=value, group=group)


def test_plugins_are_listed_without_being_imported(entry_points) -> None:
    entry_points.append(_ep("lazy", "module_that_does_not_exist_abc:mapper"))
    assert "lazy" in available()
    assert "entry point 'lazy'" in sources()["lazy"]
    with pytest.raises(UnknownFormatError, match=r"'lazy' could not be loaded from entry point 'lazy' = 'module_that_does_not_exist_abc:mapper'.*ModuleNotFoundError"):
        get_mapper("lazy")
    assert get_mapper("anthropic").name == "anthropic"  # other formats unaffected


def test_two_entry_points_for_one_name_name_both_sources(entry_points) -> None:
    entry_points += [_ep("dup", "pkg_a:mapper"), _ep("dup", "pkg_b:mapper")]
    with pytest.raises(MappingError, match=r"'dup' is already registered by entry point 'dup' = 'pkg_a:mapper'.*entry point 'dup' = 'pkg_b:mapper'"):
        get_mapper("dup")


def test_an_entry_point_cannot_take_a_builtin_name(entry_points) -> None:
    entry_points.append(_ep("anthropic", "evil:mapper"))
    assert get_mapper("anthropic").__class__.__module__.startswith("interlingua.providers")
    assert "anthropic" in available()


def test_register_against_an_entry_point_names_both(entry_points) -> None:
    entry_points.append(PERPLEXITY_EP)
    with pytest.raises(MappingError, match=r"'perplexity' is already registered by entry point 'perplexity' = 'interlingua_perplexity:mapper'.*; myapp.setup cannot"):
        register("perplexity", object(), source="myapp.setup")  # type: ignore[arg-type]


def test_register_returns_unregister_and_duplicates_name_both(entry_points) -> None:
    m = get_mapper("ollama")
    undo = register("toy", m, source="first.py")
    with pytest.raises(MappingError, match=r"'toy' is already registered by first\.py; second\.py cannot register it again"):
        register("toy", m, source="second.py")
    assert get_mapper("toy") is m
    undo()
    undo()  # idempotent
    assert "toy" not in available()
    with pytest.raises(UnknownFormatError):
        get_mapper("toy")


def test_a_plugin_that_is_not_a_mapper_is_refused(entry_points) -> None:
    entry_points.append(_ep("notamapper", "json:dumps"))
    with pytest.raises(UnknownFormatError, match="is not a mapper"):
        get_mapper("notamapper")


def test_plugin_loaded_once(entry_points) -> None:
    entry_points.append(PERPLEXITY_EP)
    assert get_mapper("perplexity") is get_mapper("perplexity")
    assert registry._loaded["perplexity"] is get_mapper("perplexity")


# --------------------------------------------------------------------------- capability resolvers

CAPS = ModelCapabilities(input_modalities=["text", "image"], tools=True)


def house_resolver(provider: str, model: str) -> ModelCapabilities | None:
    return CAPS if model.startswith("house-") else None


@pytest.fixture
def resolver_eps(monkeypatch: pytest.MonkeyPatch):
    eps: list[importlib.metadata.EntryPoint] = []
    monkeypatch.setattr(_resolve.importlib.metadata, "entry_points", lambda **kw: [e for e in eps if e.group == kw["group"]])
    _resolve.plugin_resolvers(refresh=True)
    yield eps
    monkeypatch.undo()
    _resolve.plugin_resolvers(refresh=True)


def test_installed_resolver_answers_before_the_table(resolver_eps) -> None:
    resolver_eps.append(_ep("house", f"{__name__}:house_resolver", group="interlingua.capabilities"))
    _resolve.plugin_resolvers(refresh=True)
    found = resolve("openai-chat", "house-model-1")
    assert found.source == "resolver" and found.capabilities == CAPS
    assert resolve("openai-chat", "gpt-4o").source in ("table", "mapper")  # falls through
    # the caller's resolver still comes first
    assert resolve("openai-chat", "house-x", resolver=lambda p, m: ModelCapabilities()).capabilities == ModelCapabilities()


def test_duplicate_resolver_names_name_both(resolver_eps) -> None:
    resolver_eps += [_ep("house", "a:f", group="interlingua.capabilities"), _ep("house", "b:f", group="interlingua.capabilities")]
    with pytest.raises(MappingError, match=r"'house' is already registered by entry point 'house' = 'a:f'.*entry point 'house' = 'b:f'"):
        _resolve.plugin_resolvers(refresh=True)
