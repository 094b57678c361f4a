"""Resolution order: caller's resolver, then the table, then the mapper's defaults."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from interlingua.capabilities import resolve, resolve_capabilities
from interlingua.errors import UnknownFormatError
from interlingua.items import ModelCapabilities, ModelTable, ModelTableEntry
from interlingua.mapping import register

TABLE_CAPS = ModelCapabilities(tools=True, input_modalities=["text", "image"])
RESOLVER_CAPS = ModelCapabilities(tools=True, parallel_tool_calls=True)
DEFAULT_CAPS = ModelCapabilities(streaming=True)

TABLE = ModelTable(
    schema_version="1.0",
    entries=[
        ModelTableEntry(provider="other", pattern="toy-*", capabilities=ModelCapabilities(reasoning=True)),
        ModelTableEntry(provider="toy-wire", pattern="toy-vision*", capabilities=TABLE_CAPS),
        ModelTableEntry(provider="toy-wire", pattern="toy-*", capabilities=ModelCapabilities()),
    ],
)


class DefaultsOnly:
    """Just enough of a mapper for resolution: ``capabilities`` records what it was asked."""

    name = "toy-wire"

    def __init__(self) -> None:
        self.asked: list[str | None] = []

    def capabilities(self, model: str | None) -> ModelCapabilities:
        self.asked.append(model)
        return DEFAULT_CAPS

    def __getattr__(self, name: str) -> Any:  # the rest of the protocol is not used here
        raise AttributeError(name)


@pytest.fixture
def mapper() -> Iterator[DefaultsOnly]:
    m = DefaultsOnly()
    unregister = register("toy-wire", m)  # type: ignore[arg-type]
    yield m
    unregister()


def test_resolver_wins_over_table_and_mapper(mapper: DefaultsOnly) -> None:
    asked: list[tuple[str, str]] = []

    def resolver(provider: str, model: str) -> ModelCapabilities | None:
        asked.append((provider, model))
        return RESOLVER_CAPS

    got = resolve("toy-wire", "toy-vision-1", resolver=resolver, table=TABLE)
    assert got.capabilities is RESOLVER_CAPS and got.source == "resolver"
    assert asked == [("toy-wire", "toy-vision-1")]
    assert mapper.asked == []


def test_resolver_returning_none_falls_through_to_the_first_matching_table_entry(mapper: DefaultsOnly) -> None:
    got = resolve("toy-wire", "toy-vision-1", resolver=lambda p, m: None, table=TABLE)
    assert got.capabilities is TABLE_CAPS and got.source == "table" and got.pattern == "toy-vision*"
    assert mapper.asked == []


def test_table_entries_of_other_providers_are_ignored(mapper: DefaultsOnly) -> None:
    got = resolve("toy-wire", "toy-plain", table=TABLE)
    assert got.pattern == "toy-*" and got.capabilities.reasoning is False


def test_mapper_defaults_last(mapper: DefaultsOnly) -> None:
    got = resolve("toy-wire", "unlisted-model", resolver=lambda p, m: None, table=TABLE)
    assert got.capabilities is DEFAULT_CAPS and got.source == "mapper"
    assert mapper.asked == ["unlisted-model"]


def test_without_a_model_only_the_mapper_is_asked(mapper: DefaultsOnly) -> None:
    def resolver(provider: str, model: str) -> ModelCapabilities | None:
        raise AssertionError("resolver must not be asked without a model")

    assert resolve_capabilities("toy-wire", None, resolver=resolver, table=TABLE) is DEFAULT_CAPS
    assert mapper.asked == [None]


def test_explicit_mapper_is_used_without_the_registry() -> None:
    m = DefaultsOnly()
    assert resolve_capabilities("not-registered", "x", mapper=m, table=TABLE) is DEFAULT_CAPS  # type: ignore[arg-type]


def test_unknown_provider_needing_defaults() -> None:
    with pytest.raises(UnknownFormatError):
        resolve("no-such-wire", "x", table=TABLE)


def test_resolver_must_return_capabilities(mapper: DefaultsOnly) -> None:
    with pytest.raises(TypeError, match="dict"):
        resolve("toy-wire", "x", resolver=lambda p, m: {"tools": True}, table=TABLE)  # type: ignore[arg-type,return-value]


def test_shipped_table_is_used_by_default(mapper: DefaultsOnly) -> None:
    # No shipped entry is for toy-wire, so the mapper answers; a real provider name hits the table.
    assert resolve("toy-wire", "claude-sonnet-4-5").source == "mapper"
    got = resolve("anthropic", "claude-sonnet-4-5")
    assert got.source == "table" and got.capabilities.requires_tool_definitions is True
