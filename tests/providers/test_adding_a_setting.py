"""Adding a canonical setting is a row per mapper and nothing elsewhere (issue 30, ADR 0042, ADR 0049).

The day a field is added to ``schemas/settings.json`` is played here: :class:`~interlingua.items.Settings` gets a
new field (``min_p``, a sampling setting Ollama, OpenRouter and vLLM take) everywhere interlingua names it, and
then

* every mapper's table (every registered mapper and every OpenAI Chat dialect) is refused, naming the mapper and
  the setting, until it has a row: nothing can drop the setting silently;
* with one row added to each table and nothing else changed, every mapper does what its row says, both ways: a
  ``Wire`` row (``plain``) writes the value at its path and reads it back into the setting; an ``Unsupported``
  row reports it dropped at ``/settings/min_p``, with the reason.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest

import interlingua.items
from interlingua.codec import SCHEMA_VERSION
from interlingua.items import ReasoningSettings, ResponseFormat, Settings, TextItem, Transcript
from interlingua.mapping import available, get_mapper
from interlingua.mapping.settings import settings_of
from interlingua.mapping.settings_table import SettingsTable, SettingsTableError, Unsupported, Wire, required_settings
from interlingua.providers.openai_chat import DIALECTS, OpenAIChatMapper


class SettingsWithMinP(Settings):
    """The generated model with one more field, as ``tools/gen_models.py`` would write it."""

    min_p: float | msgspec.UnsetType = msgspec.UNSET


NEW_ROWS: dict[str, Wire | Unsupported] = {
    "ollama": Wire("options.min_p", plain=True),  # Ollama ``Options.min_p``
    "openai-chat:openrouter": Wire("min_p", plain=True),  # OpenRouter's sampling parameters
    "openai-chat:vllm": Wire("min_p", plain=True),  # vLLM's extra sampling parameters
}
"""The one row each mapper gets; every other mapper declares the setting unsupported."""

WHY = "the API has no min_p"
MODEL = {"gemini": "gemini-2.5-flash", "bedrock-converse": "amazon.nova-pro-v1:0"}


def _mappers() -> list[Any]:
    return [get_mapper(name) for name in available()] + [OpenAIChatMapper(dialect=d) for d in DIALECTS if d not in ("openai", "mistral")]


_mappers()  # every provider module imported (and its tables built) before the field is added


def _interlingua_modules() -> list[Any]:
    return [m for name, m in list(sys.modules.items()) if (name == "interlingua" or name.startswith("interlingua.")) and m is not None]


def _tables() -> Iterator[tuple[Any, str, Any]]:
    """Every place a settings table is held: (holder, attribute or key, table), module globals, class
    attributes and dictionaries of tables alike."""
    for module in _interlingua_modules():
        for name, value in list(vars(module).items()):
            if isinstance(value, SettingsTable):
                yield module, name, value
            elif isinstance(value, dict) and value and all(isinstance(v, SettingsTable) for v in value.values()):
                for key, table in value.items():
                    yield value, key, table
            elif isinstance(value, type) and value.__module__ == module.__name__ and isinstance(vars(value).get("settings_table"), SettingsTable):
                yield value, "settings_table", vars(value)["settings_table"]


@pytest.fixture
def min_p(monkeypatch: pytest.MonkeyPatch) -> None:
    """``Settings`` has a ``min_p`` field wherever interlingua names the class (as after regenerating the models)."""
    for module in _interlingua_modules():
        if vars(module).get("Settings") is Settings:
            monkeypatch.setattr(module, "Settings", SettingsWithMinP)
    assert "min_p" in required_settings()


def test_a_new_field_is_refused_by_every_table_until_it_has_a_row(min_p: None) -> None:
    seen = set()
    for _, _, table in _tables():
        with pytest.raises(SettingsTableError, match=rf"mapper {table.mapper!r}: no row for min_p"):
            SettingsTable(table.mapper, table.target, table.rows)
        seen.add(table.mapper)
    assert {m.settings_table.mapper for m in _mappers()} <= seen  # every mapper's table is among those checked


@pytest.fixture
def rows_added(min_p: None, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """One row per table, put where the table was (nothing else of interlingua is touched)."""
    new: dict[int, SettingsTable] = {}
    for holder, key, table in list(_tables()):
        if id(table) not in new:
            row = NEW_ROWS.get(table.mapper, Unsupported(why=WHY))
            new[id(table)] = SettingsTable(table.mapper, table.target, {**table.rows, "min_p": row})
        if isinstance(holder, dict):
            monkeypatch.setitem(holder, key, new[id(table)])
        else:
            monkeypatch.setattr(holder, key, new[id(table)])
    mappers = _mappers()
    for mapper in mappers:
        if id(vars(mapper).get("settings_table")) in new:  # an instance holding its own (a Chat dialect)
            monkeypatch.setattr(mapper, "settings_table", new[id(mapper.settings_table)])
        assert "min_p" in mapper.settings_table.rows, mapper
    return mappers


def test_one_row_per_mapper_is_all_a_new_setting_needs(rows_added: list[Any]) -> None:
    written = set()
    for mapper in rows_added:
        row = mapper.settings_table.rows["min_p"]
        settings = SettingsWithMinP(min_p=0.05, temperature=0.5)
        t = Transcript(schema_version=SCHEMA_VERSION, items=[TextItem(role="user", text="hi")], settings=settings)
        conv = mapper.encode_request(t, model=MODEL.get(mapper.name, "test-model"), policy="drop")
        entries = [e for e in conv.report if e.pointer == "/settings/min_p"]
        if isinstance(row, Wire):
            node: Any = conv.value
            for part in row.path.split("."):
                node = node[part]
            assert node == 0.05, (mapper, conv.value)
            assert not entries, entries
            back = settings_of(mapper.decode_request(conv.value).value)
            assert isinstance(back, SettingsWithMinP) and back.min_p == 0.05 and back.temperature == 0.5, (mapper, back)
            written.add(mapper.settings_table.mapper)
        else:
            assert [e.action for e in entries] == ["dropped"], (mapper.settings_table.mapper, list(conv.report))
            assert WHY in entries[0].reason and "min_p=0.05" in entries[0].reason
            assert "min_p" not in str(conv.value)
    assert written == set(NEW_ROWS)


def test_a_body_field_that_does_not_fit_the_new_setting_stays_provider_data(rows_added: list[Any]) -> None:
    """The shared reader keeps what does not fit (a string) as given, so it goes back to the same provider."""
    mapper = next(m for m in rows_added if m.settings_table.mapper == "openai-chat:openrouter")
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "min_p": "high"}
    settings = settings_of(mapper.decode_request(body).value)
    assert settings.min_p is msgspec.UNSET
    assert mapper.encode_request(mapper.decode_request(body).value, model="m").value["min_p"] == "high"


def test_the_tables_are_back_after_the_fixtures() -> None:
    """The monkeypatching above leaves nothing behind (the other tests see today's tables)."""
    assert "min_p" not in required_settings()
    assert all("min_p" not in m.settings_table.rows for m in _mappers())
    assert interlingua.items.Settings is Settings


class ReasoningWithSample(ReasoningSettings):
    """A new field of a nested settings object (``reasoning.sample``)."""

    sample: bool | msgspec.UnsetType = msgspec.UNSET


class ResponseFormatWithExample(ResponseFormat):
    """A new field of a nested settings object (``response_format.example``)."""

    example: str | msgspec.UnsetType = msgspec.UNSET


class SettingsWithSample(Settings):
    reasoning: ReasoningWithSample | msgspec.UnsetType = msgspec.UNSET


class SettingsWithExample(Settings):
    response_format: ResponseFormatWithExample | msgspec.UnsetType = msgspec.UNSET


@pytest.mark.parametrize(
    ("name", "settings"),
    [
        ("reasoning.sample", SettingsWithSample(reasoning=ReasoningWithSample(sample=True))),
        ("reasoning.sample", SettingsWithSample(reasoning=ReasoningWithSample(effort="low", sample=True))),
        ("response_format.example", SettingsWithExample(response_format=ResponseFormatWithExample(type="json_object", example="{}"))),
        ("response_format.example", SettingsWithExample(response_format=ResponseFormatWithExample(type="text", example="hi"))),
        ("response_format.example", SettingsWithExample(response_format=ResponseFormatWithExample(type="json_schema", schema={"type": "object"}, example="{}"))),
    ],
)
def test_a_new_field_of_a_nested_setting_unsupported_everywhere_is_reported_everywhere(name: str, settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    nested = (ReasoningSettings, ReasoningWithSample) if name.startswith("reasoning.") else (ResponseFormat, ResponseFormatWithExample)
    for module in _interlingua_modules():
        for old, new in ((Settings, type(settings)), nested):
            if vars(module).get(old.__name__) is old:
                monkeypatch.setattr(module, old.__name__, new)
    assert name in required_settings()
    new_tables: dict[int, SettingsTable] = {}
    for holder, key, table in list(_tables()):
        new_tables.setdefault(id(table), SettingsTable(table.mapper, table.target, {**table.rows, name: Unsupported(why=WHY)}))
        if isinstance(holder, dict):
            monkeypatch.setitem(holder, key, new_tables[id(table)])
        else:
            monkeypatch.setattr(holder, key, new_tables[id(table)])
    missing = []
    for mapper in _mappers():
        t = Transcript(schema_version=SCHEMA_VERSION, items=[TextItem(role="user", text="hi")], settings=settings)
        conv = mapper.encode_request(t, model=MODEL.get(mapper.name, "test-model"), policy="drop")
        pointer = "/settings/" + name.replace(".", "/")
        itself = any(e.pointer == pointer and e.action == "dropped" and WHY in e.reason for e in conv.report)
        whole = any(e.pointer == pointer.rpartition("/")[0] and e.action == "dropped" for e in conv.report)  # the whole object left out
        if not (itself or whole):
            missing.append(mapper.settings_table.mapper)
    assert not missing, f"{name} set, declared unsupported, not reported by {missing}"
